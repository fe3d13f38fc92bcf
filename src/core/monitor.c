/* Sampling thread for CPU, steal, context switches, faults, run queue, NIC and disk
 * rates and watched processes; builds the monitor's series and summary. */
#define _GNU_SOURCE
#include "core/monitor.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/json.h"
#include "core/nic_kind.h"
#include "core/procfs.h"

#define MAX_WATCH 8
#define MAX_WATCH_PIDS 256

struct watched_pid {
    int pid;
    uint64_t ticks;
    unsigned threads;
};

struct snapshot {
    int64_t at_ns;
    struct vp_proc_stat stat;
    uint64_t faults, major_faults;
    struct vp_device_counters nics[VP_PROC_MAX_DEVICES];
    size_t nic_count;
    struct vp_device_counters disks[VP_PROC_MAX_DEVICES];
    size_t disk_count;
    struct watched_pid watched[MAX_WATCH][MAX_WATCH_PIDS];
    size_t watched_count[MAX_WATCH];
};

struct column {
    char name[96];
    double *values;
};

struct vp_monitor {
    double hz;
    char *watch[MAX_WATCH];
    size_t watch_count;
    bool watch_seen[MAX_WATCH]; /* a process of that name ran at some sample */
    char *disk_names[VP_PROC_MAX_DEVICES];
    size_t disk_name_count;
    enum vp_nic_kind nic_kinds[VP_PROC_MAX_DEVICES]; /* of the first snapshot's NICs */
    bool nic_counted[VP_PROC_MAX_DEVICES];           /* in network.rx and network.tx */
    long ticks_per_second;
    struct vp_text text; /* /proc reads, by the sampling thread only */

    struct snapshot earlier, previous, current; /* earlier: the start of the last row */
    int64_t started_ns;
    struct column *columns;
    size_t column_count;
    size_t samples, capacity;

    pthread_t thread;
    atomic_int stop;
};

/* Whether column is the watch.NAME.cpu of a NAME no process had at any sample. */
static bool watch_never_seen(const struct vp_monitor *monitor, const char *column)
{
    for (size_t w = 0; w < monitor->watch_count; w++) {
        char name[64];
        snprintf(name, sizeof name, "watch.%s.cpu", monitor->watch[w]);
        if (!monitor->watch_seen[w] && strcmp(name, column) == 0)
            return true;
    }
    return false;
}

static void read_watched(struct vp_monitor *monitor, struct snapshot *snap)
{
    memset(snap->watched_count, 0, sizeof snap->watched_count);
    if (monitor->watch_count == 0)
        return;
    DIR *proc = opendir("/proc");
    if (!proc)
        return;
    struct dirent *entry;
    char path[64], comm[64];
    while ((entry = readdir(proc))) {
        int pid = atoi(entry->d_name);
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        uint64_t ticks;
        unsigned threads;
        if (vp_read_whole(path, &monitor->text) != 0 ||
            vp_parse_pid_stat(monitor->text.data, comm, sizeof comm, &ticks, &threads) != 0)
            continue;
        for (size_t w = 0; w < monitor->watch_count; w++) {
            if (strcmp(comm, monitor->watch[w]) != 0 || snap->watched_count[w] == MAX_WATCH_PIDS)
                continue;
            snap->watched[w][snap->watched_count[w]++] = (struct watched_pid){ pid, ticks, threads };
            monitor->watch_seen[w] = true;
        }
    }
    closedir(proc);
}

static int take_snapshot(struct vp_monitor *monitor, struct snapshot *snap)
{
    snap->at_ns = vp_now_ns();
    struct vp_text *text = &monitor->text;
    if (vp_read_whole("/proc/stat", text) != 0 || vp_parse_proc_stat(text->data, &snap->stat) != 0)
        return -1;
    if (vp_read_whole("/proc/vmstat", text) != 0 ||
        vp_parse_vmstat(text->data, &snap->faults, &snap->major_faults) != 0)
        return -1;
    snap->nic_count = 0;
    if (vp_read_whole("/proc/net/dev", text) == 0)
        vp_parse_net_dev(text->data, snap->nics, &snap->nic_count);
    snap->disk_count = 0;
    if (vp_read_whole("/proc/diskstats", text) == 0)
        vp_parse_diskstats(text->data, (const char *const *)monitor->disk_names,
                           monitor->disk_name_count, snap->disks, &snap->disk_count);
    read_watched(monitor, snap);
    return 0;
}

/* Whole block devices (not partitions), from /sys/block, without loop and ram disks. */
static void find_disks(struct vp_monitor *monitor)
{
    DIR *dir = opendir("/sys/block");
    if (!dir)
        return;
    struct dirent *entry;
    while ((entry = readdir(dir)) && monitor->disk_name_count < VP_PROC_MAX_DEVICES) {
        const char *name = entry->d_name;
        char size_path[300], size[32];
        snprintf(size_path, sizeof size_path, "/sys/block/%s/size", name);
        if (name[0] == '.' || strncmp(name, "ram", 3) == 0 ||
            vp_read_text_file(size_path, size, sizeof size) <= 0 || atoll(size) == 0)
            continue; /* loop devices count only while something is attached */
        monitor->disk_names[monitor->disk_name_count++] = strdup(name);
    }
    closedir(dir);
}

static void add_column(struct vp_monitor *monitor, const char *name)
{
    monitor->columns = realloc(monitor->columns,
                               (monitor->column_count + 1) * sizeof *monitor->columns);
    if (!monitor->columns)
        abort();
    struct column *column = &monitor->columns[monitor->column_count++];
    snprintf(column->name, sizeof column->name, "%s", name);
    column->values = NULL;
}

static const char *const fixed_columns[] = {
    "t", "cpu.busy", "cpu.user", "cpu.system", "cpu.iowait", "cpu.irq", "cpu.steal",
    "cpu.idle", "ctxsw", "faults.minor", "faults.major", "runq",
};
#define FIXED_COLUMNS (sizeof fixed_columns / sizeof fixed_columns[0])

/* Columns follow the first snapshot's devices; later samples look devices up by name. */
static void define_columns(struct vp_monitor *monitor)
{
    char name[96];
    for (size_t i = 0; i < FIXED_COLUMNS; i++)
        add_column(monitor, fixed_columns[i]);
    for (size_t i = 0; i < monitor->previous.nic_count; i++) {
        snprintf(name, sizeof name, "net.%s.rx", monitor->previous.nics[i].name);
        add_column(monitor, name);
        snprintf(name, sizeof name, "net.%s.tx", monitor->previous.nics[i].name);
        add_column(monitor, name);
        monitor->nic_kinds[i] = vp_nic_kind_of("/sys/class/net", monitor->previous.nics[i].name);
    }
    vp_nic_counted(monitor->nic_kinds, monitor->previous.nic_count, monitor->nic_counted);
    add_column(monitor, "network.rx");
    add_column(monitor, "network.tx");
    for (size_t i = 0; i < monitor->previous.disk_count; i++) {
        snprintf(name, sizeof name, "disk.%s.read", monitor->previous.disks[i].name);
        add_column(monitor, name);
        snprintf(name, sizeof name, "disk.%s.write", monitor->previous.disks[i].name);
        add_column(monitor, name);
        snprintf(name, sizeof name, "disk.%s.util", monitor->previous.disks[i].name);
        add_column(monitor, name);
    }
    for (size_t i = 0; i < monitor->watch_count; i++) {
        snprintf(name, sizeof name, "watch.%s.cpu", monitor->watch[i]);
        add_column(monitor, name);
    }
}

static const struct vp_device_counters *find_device(const struct vp_device_counters *devices,
                                                    size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(devices[i].name, name) == 0)
            return &devices[i];
    return NULL;
}

static double counter_rate(uint64_t now, uint64_t before, double seconds)
{
    return now >= before ? (double)(now - before) / seconds : 0;
}

/* The CPU the processes of watch used between two snapshots, in % of one CPU. The kernel
 * counts utime and stime in whole ticks (1/100 s), so a short interval can show one tick
 * more than the process ran: each process's share is held to what its threads could use
 * (a busy single-threaded process read 100.6%). */
static double watched_cpu_percent(const struct snapshot *now, const struct snapshot *before,
                                  size_t watch, long ticks_per_second, double seconds)
{
    double percent = 0;
    for (size_t i = 0; i < now->watched_count[watch]; i++) {
        const struct watched_pid *current = &now->watched[watch][i];
        for (size_t j = 0; j < before->watched_count[watch]; j++) {
            const struct watched_pid *earlier = &before->watched[watch][j];
            if (earlier->pid != current->pid || current->ticks < earlier->ticks)
                continue;
            double used = 100.0 * (double)(current->ticks - earlier->ticks) /
                          (double)ticks_per_second / seconds;
            double most = 100.0 * current->threads;
            percent += used > most ? most : used;
        }
    }
    return percent;
}

/* Appends one row computed from previous -> current. */
static void record_sample(struct vp_monitor *monitor)
{
    const struct snapshot *now = &monitor->current, *before = &monitor->previous;
    double seconds = (double)(now->at_ns - before->at_ns) / 1e9;
    if (seconds <= 0)
        return;
    if (monitor->samples == monitor->capacity) {
        monitor->capacity = monitor->capacity ? monitor->capacity * 2 : 64;
        for (size_t c = 0; c < monitor->column_count; c++) {
            struct column *column = &monitor->columns[c];
            column->values = realloc(column->values, monitor->capacity * sizeof(double));
            if (!column->values)
                abort();
        }
    }
    const struct vp_cpu_ticks *a = &before->stat.cpu, *b = &now->stat.cpu;
    double user = (double)(b->user + b->nice) - (double)(a->user + a->nice);
    double system = (double)b->system - (double)a->system;
    double idle = (double)b->idle - (double)a->idle;
    double iowait = (double)b->iowait - (double)a->iowait;
    double irq = (double)(b->irq + b->softirq) - (double)(a->irq + a->softirq);
    double steal = (double)b->steal - (double)a->steal;
    double total = user + system + idle + iowait + irq + steal;
    if (total <= 0)
        total = 1;
    double minor_now = (double)(now->faults - now->major_faults);
    double minor_before = (double)(before->faults - before->major_faults);
    double row[FIXED_COLUMNS] = {
        (double)(now->at_ns - monitor->started_ns) / 1e9,
        100 * (user + system + irq + steal) / total,
        100 * user / total,
        100 * system / total,
        100 * iowait / total,
        100 * irq / total,
        100 * steal / total,
        100 * idle / total,
        counter_rate(now->stat.context_switches, before->stat.context_switches, seconds),
        minor_now >= minor_before ? (minor_now - minor_before) / seconds : 0,
        counter_rate(now->major_faults, before->major_faults, seconds),
        (double)now->stat.procs_running,
    };
    size_t c = 0, index = monitor->samples;
    for (; c < FIXED_COLUMNS; c++)
        monitor->columns[c].values[index] = row[c];
    double received = 0, sent = 0; /* by the interfaces that face the outside */
    for (size_t i = 0; i < before->nic_count; i++) {
        const struct vp_device_counters *then = &before->nics[i];
        const struct vp_device_counters *latest = find_device(now->nics, now->nic_count,
                                                              then->name);
        double rx = latest ? counter_rate(latest->a, then->a, seconds) : 0;
        double tx = latest ? counter_rate(latest->b, then->b, seconds) : 0;
        monitor->columns[c++].values[index] = rx;
        monitor->columns[c++].values[index] = tx;
        received += monitor->nic_counted[i] ? rx : 0;
        sent += monitor->nic_counted[i] ? tx : 0;
    }
    monitor->columns[c++].values[index] = received;
    monitor->columns[c++].values[index] = sent;
    for (size_t i = 0; i < before->disk_count; i++) {
        const struct vp_device_counters *then = &before->disks[i];
        const struct vp_device_counters *latest = find_device(now->disks, now->disk_count,
                                                              then->name);
        monitor->columns[c++].values[index] =
            latest ? 512 * counter_rate(latest->a, then->a, seconds) : 0;
        monitor->columns[c++].values[index] =
            latest ? 512 * counter_rate(latest->b, then->b, seconds) : 0;
        double util = latest ? counter_rate(latest->busy_ms, then->busy_ms, seconds) / 10 : 0;
        monitor->columns[c++].values[index] = util > 100 ? 100 : util;
    }
    for (size_t w = 0; w < monitor->watch_count; w++)
        monitor->columns[c++].values[index] =
            watched_cpu_percent(now, before, w, monitor->ticks_per_second, seconds);
    monitor->samples++;
}

/* Keeps the device lists of the first snapshot so every row has the same columns. */
static void advance(struct vp_monitor *monitor)
{
    struct snapshot *now = &monitor->current;
    size_t nic_count = monitor->previous.nic_count, disk_count = monitor->previous.disk_count;
    struct vp_device_counters nics[VP_PROC_MAX_DEVICES], disks[VP_PROC_MAX_DEVICES];
    for (size_t i = 0; i < nic_count; i++) {
        const struct vp_device_counters *latest =
            find_device(now->nics, now->nic_count, monitor->previous.nics[i].name);
        nics[i] = latest ? *latest : monitor->previous.nics[i];
    }
    for (size_t i = 0; i < disk_count; i++) {
        const struct vp_device_counters *latest =
            find_device(now->disks, now->disk_count, monitor->previous.disks[i].name);
        disks[i] = latest ? *latest : monitor->previous.disks[i];
    }
    monitor->earlier = monitor->previous;
    monitor->previous = *now;
    memcpy(monitor->previous.nics, nics, sizeof nics);
    monitor->previous.nic_count = nic_count;
    memcpy(monitor->previous.disks, disks, sizeof disks);
    monitor->previous.disk_count = disk_count;
}

static void sample_once(struct vp_monitor *monitor)
{
    if (take_snapshot(monitor, &monitor->current) != 0)
        return;
    record_sample(monitor);
    advance(monitor);
}

static void *sampling_thread(void *arg)
{
    struct vp_monitor *monitor = arg;
    int64_t period_ns = (int64_t)(1e9 / monitor->hz);
    int64_t next = monitor->started_ns + period_ns;
    while (!atomic_load(&monitor->stop)) {
        vp_sleep_until_ns_or_stop(next, &monitor->stop);
        if (atomic_load(&monitor->stop))
            break;
        sample_once(monitor);
        next += period_ns;
        int64_t now = vp_now_ns();
        if (next < now) /* fell behind (a loaded machine): skip missed ticks */
            next = now + period_ns;
    }
    return NULL;
}

static void free_monitor(struct vp_monitor *monitor)
{
    for (size_t i = 0; i < monitor->watch_count; i++)
        free(monitor->watch[i]);
    for (size_t i = 0; i < monitor->disk_name_count; i++)
        free(monitor->disk_names[i]);
    for (size_t c = 0; c < monitor->column_count; c++)
        free(monitor->columns[c].values);
    free(monitor->columns);
    vp_text_free(&monitor->text);
    free(monitor);
}

struct vp_monitor *vp_monitor_start(double hz, char *const *watch, size_t watch_count,
                                    const cpu_set_t *cpus, char *err, size_t err_len)
{
    struct vp_monitor *monitor = calloc(1, sizeof *monitor);
    if (!monitor)
        abort();
    monitor->hz = hz;
    monitor->ticks_per_second = sysconf(_SC_CLK_TCK);
    for (size_t i = 0; i < watch_count && i < MAX_WATCH; i++)
        monitor->watch[monitor->watch_count++] = strndup(watch[i], 15); /* comm is 15 chars */
    find_disks(monitor);
    if (take_snapshot(monitor, &monitor->previous) != 0) {
        snprintf(err, err_len, "monitor: cannot read /proc/stat or /proc/vmstat");
        free_monitor(monitor);
        return NULL;
    }
    monitor->started_ns = monitor->previous.at_ns;
    define_columns(monitor);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    if (cpus)
        pthread_attr_setaffinity_np(&attributes, sizeof *cpus, cpus);
    int started = pthread_create(&monitor->thread, &attributes, sampling_thread, monitor);
    pthread_attr_destroy(&attributes);
    if (started != 0) {
        snprintf(err, err_len, "monitor: cannot start the sampling thread");
        free_monitor(monitor);
        return NULL;
    }
    return monitor;
}

json_t *vp_monitor_stop(struct vp_monitor *monitor)
{
    atomic_store(&monitor->stop, 1);
    vp_wake_sleepers(&monitor->stop); /* not the rest of its period: a run ends now */
    pthread_join(monitor->thread, NULL);
    int64_t since_last = vp_now_ns() - monitor->previous.at_ns;
    if (since_last > (int64_t)(0.2e9 / monitor->hz) || monitor->samples == 0) {
        sample_once(monitor);
    } else if (take_snapshot(monitor, &monitor->current) == 0) {
        /* too short a time for a row of its own (a rate over a few ms is noise), but what
         * crossed a link in it happened: the last row is widened to end now */
        monitor->previous = monitor->earlier;
        monitor->samples--;
        record_sample(monitor);
        advance(monitor);
    }

    json_t *series = json_object(), *summary = json_object(), *missing = json_array();
    for (size_t w = 0; w < monitor->watch_count; w++)
        if (!monitor->watch_seen[w])
            json_array_append_new(missing, json_string(monitor->watch[w]));
    for (size_t c = 0; c < monitor->column_count; c++) {
        const struct column *column = &monitor->columns[c];
        if (watch_never_seen(monitor, column->name))
            continue; /* no figure for a process that never ran: not 0% */
        json_t *values = json_array();
        double sum = 0, max = -INFINITY;
        for (size_t i = 0; i < monitor->samples; i++) {
            json_array_append_new(values, json_real(column->values[i]));
            sum += column->values[i];
            if (column->values[i] > max)
                max = column->values[i];
        }
        json_object_set_new(series, column->name, values);
        if (monitor->samples > 0 && c > 0)
            json_object_set_new(summary, column->name,
                                json_pack("{s:f,s:f}", "mean", sum / (double)monitor->samples,
                                          "max", max));
    }
    json_t *nics = json_object();
    for (size_t i = 0; i < monitor->previous.nic_count; i++)
        json_object_set_new(nics, monitor->previous.nics[i].name,
                            json_pack("{s:s,s:b}", "kind", vp_nic_kind_name(monitor->nic_kinds[i]),
                                      "counted", monitor->nic_counted[i]));
    json_t *result = json_pack("{s:f,s:I,s:o,s:o,s:o}", "hz", monitor->hz, "samples",
                               (json_int_t)monitor->samples, "series", series, "summary",
                               summary, "nics", nics);
    if (json_array_size(missing))
        json_object_set(result, "watch_missing", missing);
    json_decref(missing);
    free_monitor(monitor);
    return result;
}

double vp_monitor_figures_mean(const json_t *figures)
{
    return json_is_number(figures) ? json_number_value(figures)
                                   : vp_json_number(figures, "mean");
}

double vp_monitor_mean(const json_t *summary, const char *column)
{
    return vp_monitor_figures_mean(json_object_get(summary, column));
}

bool vp_monitor_network_column(const json_t *columns, const char *column, const char *direction,
                               const char *route)
{
    char own[96];
    snprintf(own, sizeof own, "net.%s.%s", route ? route : "", direction);
    if (route && *route && json_object_get(columns, own))
        return strcmp(column, own) == 0;
    char headline[32];
    snprintf(headline, sizeof headline, "network.%s", direction);
    if (json_object_get(columns, headline))
        return strcmp(column, headline) == 0;
    size_t len = strlen(column), direction_len = strlen(direction);
    return strncmp(column, "net.", 4) == 0 && len > 4 + direction_len &&
           column[len - direction_len - 1] == '.' &&
           strcmp(column + len - direction_len, direction) == 0;
}

const char *vp_result_route(const json_t *result)
{
    const json_t *named = json_object_get(json_object_get(result, "peer"), "interface");
    if (!json_is_string(named))
        named = json_object_get(json_object_get(result, "data"), "network_interface");
    return json_is_string(named) && *json_string_value(named) ? json_string_value(named) : NULL;
}
