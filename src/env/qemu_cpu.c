/* A QEMU process's CPU time by kind of thread (see qemu_cpu.h). */
#include "env/qemu_cpu.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

/* A /proc stat file's command name and utime + stime in seconds: 0, or -1 when it
 * cannot be read. */
static int read_stat(const char *path, char *comm, size_t comm_len, double *seconds)
{
    char text[1024];
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[n] = '\0';
    uint64_t used;
    unsigned threads;
    if (vp_parse_pid_stat(text, comm, comm_len, &used, &threads) != 0)
        return -1;
    *seconds = (double)used / (double)sysconf(_SC_CLK_TCK);
    return 0;
}

int vp_qemu_cpu_read(pid_t pid, struct vp_qemu_cpu *cpu)
{
    char path[128], comm[64];
    double total; /* every thread's, those that have exited too */
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (read_stat(path, comm, sizeof comm, &total) != 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return -1;
    *cpu = (struct vp_qemu_cpu){ 0 };
    struct dirent *entry;
    while ((entry = readdir(tasks))) {
        char stat_path[512];
        double used;
        snprintf(stat_path, sizeof stat_path, "%s/%s/stat", path, entry->d_name);
        if (entry->d_name[0] != '.' && read_stat(stat_path, comm, sizeof comm, &used) == 0 &&
            strncmp(comm, "CPU ", 4) == 0) /* a vCPU thread: "CPU N/KVM", "CPU N/TCG" */
            cpu->vcpu_s += used;
    }
    closedir(tasks);
    cpu->other_s = total > cpu->vcpu_s ? total - cpu->vcpu_s : 0;
    return 0;
}
