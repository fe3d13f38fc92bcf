/* Monotonic time, absolute sleeps and UTC timestamps. */
#include "core/clock.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int64_t vp_clock_ns(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t vp_now_ns(void)
{
    return vp_clock_ns(CLOCK_MONOTONIC);
}

void vp_sleep_until_ns(int64_t deadline_ns)
{
    struct timespec deadline = {
        .tv_sec = deadline_ns / 1000000000,
        .tv_nsec = deadline_ns % 1000000000,
    };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR)
        ;
}

void vp_sleep_until_ns_or_stop(int64_t deadline_ns, atomic_int *stop)
{
    struct timespec deadline = {
        .tv_sec = deadline_ns / 1000000000,
        .tv_nsec = deadline_ns % 1000000000,
    };
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline; it returns at once
     * when *stop is no longer 0, and on a wake-up, a signal or the deadline */
    while (atomic_load(stop) == 0 && vp_now_ns() < deadline_ns)
        syscall(SYS_futex, stop, FUTEX_WAIT_BITSET, 0, &deadline, NULL, FUTEX_BITSET_MATCH_ANY);
}

void vp_wake_sleepers(atomic_int *stop)
{
    syscall(SYS_futex, stop, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void vp_utc_instant(int64_t realtime_ns, char *buf, size_t len)
{
    time_t seconds = (time_t)(realtime_ns / 1000000000);
    struct tm utc;
    gmtime_r(&seconds, &utc);
    char whole[32];
    strftime(whole, sizeof whole, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(buf, len, "%s.%03dZ", whole, (int)(realtime_ns % 1000000000 / 1000000));
}

double vp_utc_seconds(const char *text)
{
    struct tm utc = { 0 };
    int millis = 0;
    if (!text || sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &utc.tm_year, &utc.tm_mon,
                        &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &millis) != 7)
        return -1;
    utc.tm_year -= 1900;
    utc.tm_mon -= 1;
    return (double)timegm(&utc) + millis / 1e3;
}

void vp_utc_timestamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}
