/* hwloc topology loading, pin-spec mapping and self-binding of job processes. */
#define _GNU_SOURCE
#include "core/topology.h"

#include <hwloc.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

#define VP_MAX_CPUS 4096

struct vp_topology {
    hwloc_topology_t hw;
    bool this_machine; /* not loaded from XML: this process's affinity applies */
};

/* hwloc's plugins that add only I/O objects (PCI, OpenCL, GL displays) or parse XML through
 * libxml2: virtperf keeps no I/O object and hwloc reads its XML itself without them, yet
 * each process that loaded them mapped 25 more libraries (X11, ICU, OpenCL, libpciaccess)
 * and spent a third of `virtperf sysinfo`'s CPU time there. hwloc reads the list when it
 * first initialises a topology, so it is set before; a user's own list is kept. */
static void skip_unused_hwloc_plugins(void)
{
    setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 0);
}

int vp_topology_load(struct vp_topology **topology, const char *xml_path, char *err,
                     size_t err_len)
{
    skip_unused_hwloc_plugins();
    struct vp_topology *loaded = calloc(1, sizeof *loaded);
    if (!loaded || hwloc_topology_init(&loaded->hw) != 0) {
        free(loaded);
        snprintf(err, err_len, "cannot initialise hwloc");
        return -1;
    }
    /* Only packages, cores, PUs and NUMA nodes are used: caches (a dozen sysfs files a
     * CPU to read), I/O and Misc objects are left out of the discovery. */
    hwloc_topology_set_cache_types_filter(loaded->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(loaded->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(loaded->hw, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(loaded->hw, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (xml_path && hwloc_topology_set_xml(loaded->hw, xml_path) != 0) {
        snprintf(err, err_len, "cannot read topology XML '%s'", xml_path);
        hwloc_topology_destroy(loaded->hw);
        free(loaded);
        return -1;
    }
    if (hwloc_topology_load(loaded->hw) != 0) {
        snprintf(err, err_len, "hwloc cannot load the topology");
        hwloc_topology_destroy(loaded->hw);
        free(loaded);
        return -1;
    }
    loaded->this_machine = xml_path == NULL;
    *topology = loaded;
    return 0;
}

void vp_topology_free(struct vp_topology *topology)
{
    if (!topology)
        return;
    hwloc_topology_destroy(topology->hw);
    free(topology);
}

static unsigned count_type(const struct vp_topology *topology, hwloc_obj_type_t type)
{
    int count = hwloc_get_nbobjs_by_type(topology->hw, type);
    return count > 0 ? (unsigned)count : 0;
}

void vp_topology_count(const struct vp_topology *topology, struct vp_topology_counts *out)
{
    out->packages = count_type(topology, HWLOC_OBJ_PACKAGE);
    out->cores = count_type(topology, HWLOC_OBJ_CORE);
    out->pus = count_type(topology, HWLOC_OBJ_PU);
    out->numa_nodes = count_type(topology, HWLOC_OBJ_NUMANODE);
}

/* The schedulable units pinning works with: cores, or PUs where hwloc saw no cores. */
static hwloc_obj_type_t core_type(const struct vp_topology *topology)
{
    return count_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

static int first_pu_of(const struct vp_topology *topology, hwloc_obj_t core)
{
    hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topology->hw, core->cpuset,
                                                         HWLOC_OBJ_PU, 0);
    return pu ? (int)pu->os_index : -1;
}

/* The cores compact and spread deal jobs to, in hwloc's order: on this machine those
 * whose first PU this process may run on (a cpuset, taskset, or an MPI launcher's
 * binding of its rank), or every core when it may run on none of them (or for a
 * topology read from XML). Returns how many, at most cap. */
static unsigned usable_cores(const struct vp_topology *topology, hwloc_obj_t *cores, unsigned cap)
{
    hwloc_obj_type_t type = core_type(topology);
    unsigned all = count_type(topology, type), count = 0;
    cpu_set_t allowed;
    bool any = !topology->this_machine || sched_getaffinity(0, sizeof allowed, &allowed) != 0;
    for (unsigned i = 0; i < all && count < cap; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology->hw, type, i);
        int pu = first_pu_of(topology, core);
        if (any || (pu >= 0 && pu < CPU_SETSIZE && CPU_ISSET(pu, &allowed)))
            cores[count++] = core;
    }
    for (unsigned i = 0; count == 0 && i < all && i < cap; i++)
        cores[i] = hwloc_get_obj_by_type(topology->hw, type, i);
    return count ? count : (all < cap ? all : cap);
}

static void plan_compact(const struct vp_topology *topology, unsigned jobs, int *cpus)
{
    hwloc_obj_t cores[VP_MAX_CPUS];
    unsigned count = usable_cores(topology, cores, VP_MAX_CPUS);
    for (unsigned job = 0; job < jobs; job++)
        cpus[job] = first_pu_of(topology, cores[job % count]);
}

/* Groups the cores by package (one group where hwloc saw no package), then deals the
 * jobs round-robin over packages and, within each, over its cores. */
static void plan_spread(const struct vp_topology *topology, unsigned jobs, int *cpus)
{
    hwloc_obj_t usable[VP_MAX_CPUS];
    unsigned cores = usable_cores(topology, usable, VP_MAX_CPUS);
    unsigned packages = count_type(topology, HWLOC_OBJ_PACKAGE);
    if (packages == 0)
        packages = 1;
    hwloc_obj_t *grouped = calloc((size_t)packages * cores, sizeof *grouped);
    unsigned *in_package = calloc(packages, sizeof *in_package);
    if (!grouped || !in_package)
        abort();
    for (unsigned i = 0; i < cores; i++) {
        hwloc_obj_t core = usable[i];
        hwloc_obj_t owner = hwloc_get_ancestor_obj_by_type(topology->hw, HWLOC_OBJ_PACKAGE,
                                                           core);
        unsigned package = owner && owner->logical_index < packages ? owner->logical_index : 0;
        grouped[(size_t)package * cores + in_package[package]++] = core;
    }
    unsigned nonempty[VP_MAX_CPUS], nonempty_count = 0;
    for (unsigned package = 0; package < packages && nonempty_count < VP_MAX_CPUS; package++)
        if (in_package[package] > 0)
            nonempty[nonempty_count++] = package;
    for (unsigned job = 0; job < jobs; job++) {
        unsigned package = nonempty[job % nonempty_count];
        unsigned slot = (job / nonempty_count) % in_package[package];
        cpus[job] = first_pu_of(topology, grouped[(size_t)package * cores + slot]);
    }
    free(grouped);
    free(in_package);
}

static int parse_pin_list(const struct vp_topology *topology, const char *spec, int *list,
                          size_t *count, char *err, size_t err_len)
{
    hwloc_const_cpuset_t present = hwloc_topology_get_topology_cpuset(topology->hw);
    int last = hwloc_bitmap_last(present);
    if (vp_parse_cpu_list(spec, VP_MAX_CPUS - 1, list, VP_MAX_CPUS, count) != 0) {
        snprintf(err, err_len,
                 "--pin: '%s' is not valid; accepted: none, compact, spread, or a CPU list "
                 "such as 0,2,4-6 (CPUs 0..%d)", spec, last);
        return -1;
    }
    for (size_t i = 0; i < *count; i++) {
        if (!hwloc_bitmap_isset(present, (unsigned)list[i])) {
            snprintf(err, err_len, "--pin: CPU %d does not exist here; accepted CPUs: 0..%d",
                     list[i], last);
            return -1;
        }
    }
    return 0;
}

int vp_pin_check(const struct vp_topology *topology, const char *spec, char *err,
                 size_t err_len)
{
    if (strcmp(spec, "none") == 0 || strcmp(spec, "compact") == 0 ||
        strcmp(spec, "spread") == 0)
        return 0;
    int list[VP_MAX_CPUS];
    size_t count;
    return parse_pin_list(topology, spec, list, &count, err, err_len);
}

int vp_pin_plan(const struct vp_topology *topology, const char *spec, unsigned jobs,
                int *cpus, char *err, size_t err_len)
{
    if (strcmp(spec, "none") == 0) {
        for (unsigned job = 0; job < jobs; job++)
            cpus[job] = -1;
        return 0;
    }
    if (strcmp(spec, "compact") == 0) {
        plan_compact(topology, jobs, cpus);
        return 0;
    }
    if (strcmp(spec, "spread") == 0) {
        plan_spread(topology, jobs, cpus);
        return 0;
    }
    int list[VP_MAX_CPUS];
    size_t count;
    if (parse_pin_list(topology, spec, list, &count, err, err_len) != 0)
        return -1;
    for (unsigned job = 0; job < jobs; job++)
        cpus[job] = list[job % count];
    return 0;
}

int vp_pin_self(int cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((size_t)cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

unsigned vp_allowed_cpus(int *cpus, unsigned cap)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    unsigned count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set)) {
            if (count < cap)
                cpus[count] = cpu;
            count++;
        }
    return count;
}

void vp_affinity_text(char *buf, size_t len)
{
    cpu_set_t set;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    size_t used = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        int written = last > cpu
            ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", cpu, last)
            : snprintf(buf + used, len - used, "%s%d", used ? "," : "", cpu);
        if (written < 0 || (size_t)written >= len - used)
            return;
        used += (size_t)written;
        cpu = last;
    }
}
