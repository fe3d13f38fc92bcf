/* Running another program to its end: the helpers virtperf starts for the environments
 * it makes (mkfs.ext4, podman, the image helper). */
#ifndef VP_CORE_PROGRAM_H
#define VP_CORE_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

/* Runs argv (argv[0] looked up on PATH) and waits for it. quiet: its output goes to a
 * file (not a pipe: a daemon it starts may hold a pipe open), whose first out_len - 1
 * bytes land in out when given; else it writes where virtperf does. Returns its exit
 * status, or -1 when it could not start or did not exit. */
int vp_run_program(char *const *argv, bool quiet, char *out, size_t out_len);
/* Whether program is an executable in a directory of PATH. */
bool vp_program_installed(const char *program);

#endif
