/* The machine's memory-copy speed: the ceiling a "served from cache" read is judged
 * against, and a line of the fingerprint (memory.copy_bandwidth). Measuring it costs about
 * 80 ms and 128 MiB, so it is measured once per boot and kept in a small file
 * ($VIRTPERF_CACHE, else /var/cache/virtperf, else ~/.cache/virtperf, keyed by the boot
 * id): jobs, MPI ranks and guests' agents read it instead of measuring again. A figure
 * measured while another task was runnable (our own ranks starting, a load) may serve a
 * warning but is marked busy and never enters a fingerprint. */
#ifndef VP_COPY_SPEED_H
#define VP_COPY_SPEED_H

/* Measures the figure unless a quiet one is kept for this boot: for a process alone on
 * its machine, before anything of the run starts (a run, `virtperf sysinfo`). */
void vp_copy_speed_settle(void);

/* The kept figure for this boot if it was measured on a quiet machine, else 0: a file
 * read, never a measurement (what the fingerprint records). */
double vp_copy_speed_quiet(void);

/* Bytes per second memcpy moves between two 64 MiB buffers this boot: the kept figure
 * (quiet or not), else measured now. Concurrent callers on one machine measure once:
 * the others wait on the cache directory's lock, idle, then read. */
double vp_copy_speed(void);

#endif
