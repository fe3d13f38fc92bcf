/* What app (app.c) measures a program's run with: the end of its output kept, read from
 * its pipes until they close or a deadline, and the perf events counting its cycles,
 * instructions and CPU time where the hardware counters are exposed. */
#ifndef VP_BENCH_APP_PROCESS_H
#define VP_BENCH_APP_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KEPT_OUTPUT 65536 /* the last bytes of stdout and of stderr kept per process */

/* The last KEPT_OUTPUT bytes of a stream. */
struct vp_app_tail {
    char data[KEPT_OUTPUT + 1];
    size_t len;
};

/* perf events for the program: cycles, instructions and task-clock where the hardware
 * counters are exposed. */
struct vp_app_counters {
    int task_clock, cycles, instructions;
};

/* Without cycles there is no effective clock to give, and counting alone costs the
 * program time: then nothing is opened (every fd -1). */
void vp_app_open_counters(pid_t pid, struct vp_app_counters *counters);
/* A counter's count, NAN where it is not open or cannot be read. */
double vp_app_read_counter(int fd);
void vp_app_close_counters(struct vp_app_counters *counters);

/* The last non-empty line of text, for an error message. */
void vp_app_last_line(const char *text, char *line, size_t len);
/* Reads both pipes until they close or the deadline passes (0: none); false on the
 * deadline. */
bool vp_app_drain(int out, int err_fd, struct vp_app_tail *stdout_tail,
                  struct vp_app_tail *stderr_tail, int64_t deadline_ns);

#endif
