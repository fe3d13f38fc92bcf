/* Time sources: CLOCK_MONOTONIC nanoseconds for measurement and the start barrier,
 * absolute sleeps, and wall-clock timestamps for records. */
#ifndef VP_CLOCK_H
#define VP_CLOCK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The bound on an instant another host sends (about 146 years of ns): an offset, a lead or
 * a shift by another such number never overflows. */
#define VP_INSTANT_LIMIT ((int64_t)1 << 62)

/* Nanoseconds on the given clock (CLOCK_REALTIME: since the epoch). */
int64_t vp_clock_ns(clockid_t clock);
/* CLOCK_MONOTONIC nanoseconds. */
int64_t vp_now_ns(void);
/* Sleeps until the absolute CLOCK_MONOTONIC instant (no busy wait), resuming after
 * signals that did not stop the process. */
void vp_sleep_until_ns(int64_t deadline_ns);
/* Sleeps like vp_sleep_until_ns, or less: until *stop is nonzero and
 * vp_wake_sleepers(stop) is called (a thread that samples every 100 ms stops at once). */
void vp_sleep_until_ns_or_stop(int64_t deadline_ns, atomic_int *stop);
/* Wakes every thread in vp_sleep_until_ns_or_stop on stop (set it first). */
void vp_wake_sleepers(atomic_int *stop);
/* UTC now as "2026-11-29T20:14:30Z". */
void vp_utc_timestamp(char *buf, size_t len);
/* A CLOCK_REALTIME instant as "2026-11-29T20:14:30.123Z". */
void vp_utc_instant(int64_t realtime_ns, char *buf, size_t len);
/* Seconds since the epoch of an instant vp_utc_instant wrote, -1: not one. */
double vp_utc_seconds(const char *text);

#endif
