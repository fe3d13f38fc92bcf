/* The CPU idle policy a timing measurement ran under. A guest's wake-up latency depends
 * on whether its idle CPUs halt (an exit to the hypervisor, woken by an interrupt) or
 * poll; a PM QoS request at /dev/cpu_dma_latency of 0 us makes them poll, and cyclictest
 * holds one by default. The idle driver, its states and the request in force are read
 * from sysfs and /dev/cpu_dma_latency, and a request of 0 can be held for a result. */
#ifndef VP_IDLE_H
#define VP_IDLE_H

#include <jansson.h>
#include <stddef.h>

/* {"driver", "states": [{"name", "latency_us", "disabled"}], "latency_request_us"} as
 * the machine has them now; absent parts are left out (no cpuidle in a container...). */
json_t *vp_idle_policy(void);

/* One line for a policy object (as vp_idle_policy or a result's "idle" has it):
 * "haltpoll, latency request 0 us (held by virtperf)". */
void vp_idle_describe(const json_t *idle, char *buf, size_t len);

/* Holds a CPU latency request of 0 us until vp_idle_release (the device keeps a request
 * while its file is open). Returns 0, or -1 with why in err. */
int vp_idle_hold_zero(char *err, size_t err_len);
void vp_idle_release(void);
/* A request is held by this process now. */
int vp_idle_holding(void);

#endif
