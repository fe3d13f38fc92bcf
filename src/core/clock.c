/* Monotonic time, absolute sleeps and UTC timestamps. */
#include "core/clock.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

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

void vp_utc_instant(int64_t realtime_ns, char *buf, size_t len)
{
    time_t seconds = (time_t)(realtime_ns / 1000000000);
    struct tm utc;
    gmtime_r(&seconds, &utc);
    char whole[32];
    strftime(whole, sizeof whole, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(buf, len, "%s.%03dZ", whole, (int)(realtime_ns % 1000000000 / 1000000));
}

void vp_utc_timestamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}
