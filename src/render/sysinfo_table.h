/* sysinfo's table on the terminal: the fingerprint field by field (host, kernel, CPU
 * topology, memory, clock, hypervisor, container, NICs, disks, steal, idle policy), then
 * the advisories of the fingerprint and of this host's stored results. */
#ifndef VP_RENDER_SYSINFO_TABLE_H
#define VP_RENDER_SYSINFO_TABLE_H

#include <jansson.h>
#include <stdio.h>

void vp_print_sysinfo(FILE *out, const json_t *fingerprint, const json_t *advisories,
                      const json_t *from_results);

#endif
