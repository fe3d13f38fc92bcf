/* A QEMU process's CPU time by kind of thread (see qemu_cpu.h). */
#include "guest/qemu_cpu.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

/* A /proc stat file's utime + stime in seconds, or -1 when it cannot be read. */
static double stat_seconds(const char *path)
{
    char text[1024], comm[64];
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[n] = '\0';
    uint64_t used;
    unsigned threads;
    if (vp_parse_pid_stat(text, comm, sizeof comm, &used, &threads) != 0)
        return -1;
    return (double)used / (double)sysconf(_SC_CLK_TCK);
}

/* Whether task's stat names a vCPU thread ("CPU N/KVM", "CPU N/TCG"). */
static bool is_vcpu(const char *stat_path)
{
    char text[128];
    FILE *file = fopen(stat_path, "r");
    if (!file)
        return false;
    size_t n = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[n] = '\0';
    const char *name = strchr(text, '(');
    return name && strncmp(name + 1, "CPU ", 4) == 0;
}

int vp_qemu_cpu_read(pid_t pid, struct vp_qemu_cpu *cpu)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    double total = stat_seconds(path); /* every thread's, those that have exited too */
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *tasks = opendir(path);
    if (!tasks || total < 0) {
        if (tasks)
            closedir(tasks);
        return -1;
    }
    *cpu = (struct vp_qemu_cpu){ 0 };
    struct dirent *entry;
    while ((entry = readdir(tasks))) {
        char stat_path[512];
        snprintf(stat_path, sizeof stat_path, "%s/%s/stat", path, entry->d_name);
        double used;
        if (entry->d_name[0] != '.' && is_vcpu(stat_path) && (used = stat_seconds(stat_path)) > 0)
            cpu->vcpu_s += used;
    }
    closedir(tasks);
    cpu->other_s = total > cpu->vcpu_s ? total - cpu->vcpu_s : 0;
    return 0;
}
