/* The machine monitor: a thread that samples /proc and /sys at a fixed rate while a
 * result is measured, and turns the samples into a time series plus mean and max. */
#ifndef VP_MONITOR_H
#define VP_MONITOR_H

#include <jansson.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

struct vp_monitor;

/* Starts sampling at hz (0.1..1000) on the CPUs of cpus (NULL: any) and watches the
 * CPU use of processes whose command name equals one of watch[] (as the studies watched
 * GPFS's mmfsd). Returns NULL (and says why in err) when /proc cannot be read. */
struct vp_monitor *vp_monitor_start(double hz, char *const *watch, size_t watch_count,
                                    const cpu_set_t *cpus, char *err, size_t err_len);

/* Stops sampling, takes a last sample when the last one is older than a fifth of a
 * period, and returns {"hz", "samples", "series": {COLUMN: [...]}, "summary":
 * {COLUMN: {"mean", "max"}}}. Columns: t (s since start), cpu.busy/user/system/
 * iowait/irq/steal/idle (%), ctxsw (/s), faults.minor, faults.major (/s), runq,
 * net.IF.rx/tx (B/s), network.rx/tx (B/s: the interfaces that face the outside, each
 * packet once: nic_kind.h), disk.DEV.read/write (B/s), disk.DEV.util (%), watch.NAME.cpu
 * (% of one CPU), left out for a NAME no process had at any sample, which is listed in
 * "watch_missing": [NAME, ...] instead; "nics": {IF: {"kind", "counted"}}. Frees the
 * monitor. */
json_t *vp_monitor_stop(struct vp_monitor *monitor);

/* The mean of one column's figures in a monitor's summary: {"mean", "max"} as a result
 * has them, or the bare mean a read of summaries keeps (store.h); NAN when absent. */
double vp_monitor_figures_mean(const json_t *figures);
/* The mean of summary's column (vp_monitor_figures_mean of it). */
double vp_monitor_mean(const json_t *summary, const char *column);

/* Whether column of a monitor's series or summary (columns) is part of its network
 * input (direction "rx") or output ("tx"): route's own (net.ROUTE.rx: the interface the
 * result's traffic took, when given and monitored), else network.rx, or, in a document
 * recorded before the monitor counted each packet once (no network.rx), every
 * net.IF.rx. */
bool vp_monitor_network_column(const json_t *columns, const char *column, const char *direction,
                               const char *route);

/* The interface a result's traffic took, where it says (a net benchmark's peer.interface,
 * a data source's data.network_interface), or NULL. */
const char *vp_result_route(const json_t *result);

#endif
