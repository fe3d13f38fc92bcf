/* Load processes for --load (see load.h). */
#define _GNU_SOURCE
#include "core/load.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/topology.h"

#define MAX_LOAD 1024
#define MEM_BUFFER (64u << 20)
#define IO_BLOCK (1u << 20)
#define IO_WRAP (256ull << 20)
#define IO_DIRECTORY "/var/tmp"

static pid_t load_pids[MAX_LOAD];
static unsigned load_count;

static void spin_cpu(void)
{
    volatile double sink = 1;
    for (;;)
        for (int i = 0; i < 1000000; i++)
            sink = sink * 1.0000001 + 1e-9;
}

static void copy_memory(void)
{
    char *a = malloc(MEM_BUFFER), *b = malloc(MEM_BUFFER);
    if (!a || !b)
        _exit(1);
    memset(a, 1, MEM_BUFFER);
    for (;;) {
        memcpy(b, a, MEM_BUFFER);
        memcpy(a, b, MEM_BUFFER);
    }
}

static void write_disk(int fd)
{
    char *block = malloc(IO_BLOCK);
    if (!block)
        _exit(1);
    memset(block, 0x5a, IO_BLOCK);
    for (unsigned long long offset = 0;; offset = (offset + IO_BLOCK) % IO_WRAP) {
        if (pwrite(fd, block, IO_BLOCK, (off_t)offset) != (ssize_t)IO_BLOCK)
            _exit(1);
        if (offset % (8 * IO_BLOCK) == 0)
            fdatasync(fd);
    }
}

/* A file that has no name from the start, so even a killed load leaves nothing. */
static int anonymous_file(char *err, size_t err_len)
{
    int fd = open(IO_DIRECTORY, O_TMPFILE | O_RDWR, 0600);
    if (fd < 0) {
        char path[] = IO_DIRECTORY "/virtperf-load-XXXXXX";
        fd = mkstemp(path);
        if (fd >= 0)
            unlink(path);
    }
    if (fd < 0)
        snprintf(err, err_len, "--load=io: cannot create a file in %s: %s", IO_DIRECTORY,
                 strerror(errno));
    return fd;
}

int vp_load_start(const char *kind, unsigned count, char *err, size_t err_len)
{
    if (strcmp(kind, "none") == 0)
        return 0;
    int allowed[MAX_LOAD];
    unsigned allowed_count = vp_allowed_cpus(allowed, MAX_LOAD);
    if (allowed_count > MAX_LOAD)
        allowed_count = MAX_LOAD;
    if (count == 0)
        count = allowed_count ? allowed_count : 1;
    if (count > MAX_LOAD)
        count = MAX_LOAD;
    pid_t parent = getpid();
    fflush(NULL);
    for (unsigned i = 0; i < count; i++) {
        int fd = -1;
        if (strcmp(kind, "io") == 0 && (fd = anonymous_file(err, err_len)) < 0) {
            vp_load_stop();
            return -1;
        }
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(0);
            signal(SIGINT, SIG_IGN); /* virtperf decides when the load ends */
            if (allowed_count) /* each on its own CPU while there are enough */
                vp_pin_self(allowed[i % allowed_count]);
            if (strcmp(kind, "cpu") == 0)
                spin_cpu();
            else if (strcmp(kind, "mem") == 0)
                copy_memory();
            else
                write_disk(fd);
            _exit(0);
        }
        if (fd >= 0)
            close(fd);
        if (pid < 0) {
            snprintf(err, err_len, "--load=%s: cannot fork a load process: %s", kind,
                     strerror(errno));
            vp_load_stop();
            return -1;
        }
        load_pids[load_count++] = pid;
    }
    return 0;
}

void vp_load_stop(void)
{
    for (unsigned i = 0; i < load_count; i++)
        kill(load_pids[i], SIGKILL);
    for (unsigned i = 0; i < load_count; i++)
        while (waitpid(load_pids[i], NULL, 0) < 0 && errno == EINTR)
            ;
    load_count = 0;
}

unsigned vp_load_running(void)
{
    return load_count;
}

const char *vp_load_of(const json_t *result)
{
    const char *load = json_string_value(json_object_get(json_object_get(result, "params"), "load"));
    return load && load[0] ? load : "none";
}
