/* A program's run as app measures it (app_process.h): its output's end, its counters. */
#define _GNU_SOURCE
#include "bench/app_process.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"


static void keep(struct vp_app_tail *tail, const char *bytes, size_t n)
{
    if (n > KEPT_OUTPUT) { /* only the end of a long read can stay */
        bytes += n - KEPT_OUTPUT;
        n = KEPT_OUTPUT;
    }
    size_t drop = tail->len + n > KEPT_OUTPUT ? tail->len + n - KEPT_OUTPUT : 0;
    memmove(tail->data, tail->data + drop, tail->len - drop);
    memcpy(tail->data + tail->len - drop, bytes, n);
    tail->len = tail->len - drop + n;
    tail->data[tail->len] = '\0';
}


static int open_counter(pid_t pid, unsigned type, unsigned long long config)
{
    struct perf_event_attr attr = { .type = type, .size = sizeof attr, .config = config,
                                    .disabled = 1, .enable_on_exec = 1, .inherit = 1,
                                    .exclude_kernel = 1, .exclude_hv = 1 };
    return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Without cycles there is no effective clock to give, and counting alone costs the
 * program time (2.5% of xz's here, bench/app_peers.sh): then nothing is opened. */
void vp_app_open_counters(pid_t pid, struct vp_app_counters *counters)
{
    counters->cycles = open_counter(pid, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
    bool counting = counters->cycles >= 0;
    counters->instructions = counting ? open_counter(pid, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS) : -1;
    counters->task_clock = counting ? open_counter(pid, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) : -1;
}

double vp_app_read_counter(int fd)
{
    uint64_t value;
    return fd >= 0 && read(fd, &value, sizeof value) == sizeof value ? (double)value : NAN;
}

void vp_app_close_counters(struct vp_app_counters *counters)
{
    int fds[] = { counters->task_clock, counters->cycles, counters->instructions };
    for (size_t i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* The last non-empty line of text, for an error message. */
void vp_app_last_line(const char *text, char *line, size_t len)
{
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    snprintf(line, len, "%.*s", (int)(end - start), text + start);
}

/* Reads both pipes until they close or the deadline passes; false on the deadline. */
bool vp_app_drain(int out, int err_fd, struct vp_app_tail *stdout_tail, struct vp_app_tail *stderr_tail,
                  int64_t deadline_ns)
{
    struct pollfd fds[2] = { { .fd = out, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };
    char buffer[16384];
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        int wait_ms = -1;
        if (deadline_ns) {
            int64_t left = deadline_ns - vp_now_ns();
            if (left <= 0)
                return false;
            wait_ms = (int)(left / 1000000) + 1;
        }
        if (poll(fds, 2, wait_ms) < 0 && errno != EINTR)
            return true;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !fds[i].revents)
                continue;
            ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
            if (got > 0)
                keep(i == 0 ? stdout_tail : stderr_tail, buffer, (size_t)got);
            else if (got == 0 || errno != EINTR)
                fds[i].fd = -1;
        }
    }
    return true;
}
