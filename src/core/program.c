/* Running a program to its end (see program.h). */
#include "core/program.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int vp_run_program(char *const *argv, bool quiet, char *out, size_t out_len)
{
    int fd = -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (quiet) {
        char path[] = "/tmp/virtperf-program.XXXXXX";
        fd = mkstemp(path);
        if (fd < 0) {
            posix_spawn_file_actions_destroy(&actions);
            return -1;
        }
        unlink(path);
        posix_spawn_file_actions_adddup2(&actions, fd, 1);
        posix_spawn_file_actions_adddup2(&actions, fd, 2);
    }
    pid_t pid;
    int spawned = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    bool waited = spawned == 0 && waitpid(pid, &status, 0) == pid;
    if (out && out_len) {
        ssize_t n = fd >= 0 ? pread(fd, out, out_len - 1, 0) : 0;
        out[n > 0 ? n : 0] = '\0';
    }
    if (fd >= 0)
        close(fd);
    return waited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool vp_program_installed(const char *program)
{
    const char *path = getenv("PATH");
    char copy[4096], candidate[4200];
    snprintf(copy, sizeof copy, "%s", path ? path : "/usr/bin:/bin");
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(candidate, sizeof candidate, "%s/%s", dir, program);
        if (access(candidate, X_OK) == 0)
            return true;
    }
    return false;
}
