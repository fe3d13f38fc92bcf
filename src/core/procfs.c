/* Reading /proc files whole, and parsers for /proc/stat, /proc/vmstat, /proc/net/dev,
 * /proc/diskstats, /proc/PID/stat and mountinfo. */
#include "core/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long vp_read_text_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t used = 0;
    while (used + 1 < cap) {
        ssize_t got = read(fd, buf + used, cap - 1 - used);
        if (got < 0) {
            close(fd);
            return -1;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    close(fd);
    buf[used] = '\0';
    return (long)used;
}

int vp_read_whole(const char *path, struct vp_text *text)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    text->len = 0;
    for (;;) {
        if (text->cap - text->len < 4096) {
            size_t cap = text->cap ? 2 * text->cap : 16384;
            char *grown = realloc(text->data, cap);
            if (!grown)
                abort();
            text->data = grown;
            text->cap = cap;
        }
        ssize_t got = read(fd, text->data + text->len, text->cap - 1 - text->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            close(fd);
            return -1;
        }
        if (got == 0)
            break;
        text->len += (size_t)got;
    }
    close(fd);
    text->data[text->len] = '\0';
    return 0;
}

void vp_text_free(struct vp_text *text)
{
    free(text->data);
    *text = (struct vp_text){ 0 };
}

/* Returns the start of the line after 'line', or NULL at the end. */
static const char *next_line(const char *line)
{
    const char *newline = strchr(line, '\n');
    return newline ? newline + 1 : NULL;
}

/* The value of a "key value" line anywhere in text. */
static int find_keyed_value(const char *text, const char *key, uint64_t *value)
{
    size_t key_len = strlen(key);
    for (const char *line = text; line; line = next_line(line)) {
        if (strncmp(line, key, key_len) == 0 && line[key_len] == ' ')
            return sscanf(line + key_len, " %" SCNu64, value) == 1 ? 0 : -1;
    }
    return -1;
}

int vp_parse_proc_stat(const char *text, struct vp_proc_stat *out)
{
    struct vp_cpu_ticks *cpu = &out->cpu;
    memset(out, 0, sizeof *out);
    if (strncmp(text, "cpu ", 4) != 0)
        return -1;
    int fields = sscanf(text + 4, " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                        " %" SCNu64 " %" SCNu64 " %" SCNu64,
                        &cpu->user, &cpu->nice, &cpu->system, &cpu->idle, &cpu->iowait,
                        &cpu->irq, &cpu->softirq, &cpu->steal);
    if (fields < 4)
        return -1;
    if (find_keyed_value(text, "ctxt", &out->context_switches) != 0)
        return -1;
    if (find_keyed_value(text, "procs_running", &out->procs_running) != 0)
        return -1;
    return 0;
}

int vp_parse_vmstat(const char *text, uint64_t *faults, uint64_t *major_faults)
{
    if (find_keyed_value(text, "pgfault", faults) != 0)
        return -1;
    return find_keyed_value(text, "pgmajfault", major_faults);
}

/* Copies a name of at most VP_PROC_NAME_LEN - 1 bytes; refuses longer or empty ones. */
static int copy_name(char *dest, const char *src, size_t len)
{
    if (len == 0 || len >= VP_PROC_NAME_LEN)
        return -1;
    memcpy(dest, src, len);
    dest[len] = '\0';
    return 0;
}

int vp_parse_net_dev(const char *text, struct vp_device_counters *devices, size_t *count)
{
    *count = 0;
    for (const char *line = text; line; line = next_line(line)) {
        const char *colon = strchr(line, ':');
        const char *newline = strchr(line, '\n');
        if (!colon || (newline && colon > newline))
            continue; /* the two header lines have no colon */
        const char *name = line;
        while (*name == ' ')
            name++;
        if (*count == VP_PROC_MAX_DEVICES)
            break;
        struct vp_device_counters *device = &devices[*count];
        if (copy_name(device->name, name, (size_t)(colon - name)) != 0)
            continue;
        uint64_t skip;
        if (sscanf(colon + 1, " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                   &device->a, &skip, &skip, &skip, &skip, &skip, &skip, &skip,
                   &device->b) != 9)
            continue;
        device->busy_ms = 0;
        (*count)++;
    }
    return *count > 0 ? 0 : -1;
}

static int name_allowed(const char *name, const char *const *allowed, size_t allowed_count)
{
    if (!allowed)
        return 1;
    for (size_t i = 0; i < allowed_count; i++)
        if (strcmp(allowed[i], name) == 0)
            return 1;
    return 0;
}

int vp_parse_diskstats(const char *text, const char *const *allowed, size_t allowed_count,
                       struct vp_device_counters *devices, size_t *count)
{
    *count = 0;
    for (const char *line = text; line && *count < VP_PROC_MAX_DEVICES; line = next_line(line)) {
        unsigned major, minor;
        char name[VP_PROC_NAME_LEN];
        uint64_t reads, reads_merged, sectors_read, read_ms, writes, writes_merged;
        uint64_t sectors_written, write_ms, in_flight, busy_ms;
        if (sscanf(line, " %u %u %31s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                   &major, &minor, name, &reads, &reads_merged, &sectors_read, &read_ms,
                   &writes, &writes_merged, &sectors_written, &write_ms, &in_flight,
                   &busy_ms) != 13)
            continue;
        if (!name_allowed(name, allowed, allowed_count))
            continue;
        struct vp_device_counters *device = &devices[(*count)++];
        strcpy(device->name, name);
        device->a = sectors_read;
        device->b = sectors_written;
        device->busy_ms = busy_ms;
    }
    return 0;
}

int vp_parse_pid_stat(const char *text, char *comm, size_t comm_len, uint64_t *cpu_ticks,
                      unsigned *threads)
{
    const char *open_paren = strchr(text, '(');
    const char *close_paren = strrchr(text, ')');
    if (!open_paren || !close_paren || close_paren < open_paren || comm_len == 0)
        return -1;
    size_t name_len = (size_t)(close_paren - open_paren - 1);
    if (name_len >= comm_len)
        name_len = comm_len - 1;
    memcpy(comm, open_paren + 1, name_len);
    comm[name_len] = '\0';
    /* After ") ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
     * cmajflt utime stime cutime cstime priority nice num_threads: utime is the 12th
     * field, num_threads the 18th. */
    char state;
    uint64_t skip, utime, stime, thread_count;
    int64_t signed_skip;
    if (sscanf(close_paren + 1, " %c %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNu64,
               &state, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip, &skip,
               &utime, &stime, &signed_skip, &signed_skip, &signed_skip, &signed_skip,
               &thread_count) != 18 ||
        thread_count == 0 || thread_count > UINT32_MAX)
        return -1;
    *cpu_ticks = utime + stime;
    *threads = (unsigned)thread_count;
    return 0;
}

/* Whether mount_point (no trailing slash but for "/") contains path. */
static int mount_contains(const char *mount_point, const char *path)
{
    size_t len = strlen(mount_point);
    if (strcmp(mount_point, "/") == 0)
        return path[0] == '/';
    return strncmp(mount_point, path, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

/* mountinfo writes space, tab, newline and backslash in a path as \ and three octal
 * digits (\040 for a space): back to the characters, in place. */
static void unescape_mount_path(char *text)
{
    char *to = text;
    for (const char *from = text; *from; to++) {
        if (from[0] == '\\' && from[1] >= '0' && from[1] <= '3' && from[2] >= '0' &&
            from[2] <= '7' && from[3] >= '0' && from[3] <= '7') {
            *to = (char)((from[1] - '0') * 64 + (from[2] - '0') * 8 + (from[3] - '0'));
            from += 4;
        } else {
            *to = *from++;
        }
    }
    *to = '\0';
}

int vp_parse_mountinfo(const char *text, const char *path, char *mount_point,
                       size_t mount_len, char *fstype, size_t fstype_len)
{
    size_t best = 0;
    int found = -1;
    for (const char *line = text; line && *line; line = next_line(line)) {
        /* id parent major:minor root mount-point options [optional...] - fstype source */
        char point[1024], type[64];
        const char *separator = strstr(line, " - ");
        const char *newline = strchr(line, '\n');
        if (!separator || (newline && separator > newline))
            continue;
        if (sscanf(line, "%*s %*s %*s %*s %1023s", point) != 1 ||
            sscanf(separator + 3, "%63s", type) != 1)
            continue;
        unescape_mount_path(point);
        size_t len = strlen(point);
        if (!mount_contains(point, path) || len < best || len >= mount_len ||
            strlen(type) >= fstype_len)
            continue;
        best = len;
        strcpy(mount_point, point);
        strcpy(fstype, type);
        found = 0;
    }
    return found;
}
