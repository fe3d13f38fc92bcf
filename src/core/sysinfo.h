/* The environment fingerprint stored with every run (host, kernel, CPU, topology,
 * memory, clocksource, hypervisor, container, NICs, block devices) and the advisories
 * that explain likely virtualization penalties. */
#ifndef VP_SYSINFO_H
#define VP_SYSINFO_H

#include <jansson.h>

#include "core/topology.h"

/* Collects the fingerprint of this machine as a JSON object. */
json_t *vp_sysinfo_collect(const struct vp_topology *topology);
/* Adds "boot_id" (this running kernel's: /proc/sys/kernel/random/boot_id) to a
 * fingerprint, by which hosts of one machine (ranks, containers) are told from guests. */
void vp_sysinfo_add_boot_id(json_t *host);

/* Advisories derived from a fingerprint: an array of one-line strings. */
json_t *vp_sysinfo_advisories(const json_t *fingerprint);

/* {"clocksource", "available"}: the kernel's clocksource now and the ones it could use. */
json_t *vp_sysinfo_clock(void);

/* The hypervisor's CPUID leaf 0x40000000 signature ("KVMKVMKVM", "TCGTCGTCGTCG"), or ""
 * when the hypervisor bit is clear. */
void vp_cpuid_hypervisor_signature(char *buf, size_t len);

#endif
