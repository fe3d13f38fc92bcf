/* A QEMU process's CPU time by kind of thread (see qemu_cpu.h). */
#include "guest/qemu_cpu.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

int vp_qemu_cpu_read(pid_t pid, struct vp_qemu_cpu *cpu)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return -1;
    double ticks = (double)sysconf(_SC_CLK_TCK);
    *cpu = (struct vp_qemu_cpu){ 0 };
    struct dirent *entry;
    while ((entry = readdir(tasks))) {
        if (entry->d_name[0] == '.')
            continue;
        char stat_path[512], text[1024], comm[64];
        snprintf(stat_path, sizeof stat_path, "%s/%s/stat", path, entry->d_name);
        FILE *file = fopen(stat_path, "r");
        if (!file)
            continue;
        size_t n = fread(text, 1, sizeof text - 1, file);
        fclose(file);
        text[n] = '\0';
        uint64_t used;
        unsigned threads;
        if (vp_parse_pid_stat(text, comm, sizeof comm, &used, &threads) != 0)
            continue;
        if (strncmp(comm, "CPU ", 4) == 0)
            cpu->vcpu_s += (double)used / ticks;
        else
            cpu->other_s += (double)used / ticks;
    }
    closedir(tasks);
    return 0;
}
