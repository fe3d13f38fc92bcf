/* Machine topology (hwloc) and the mapping of a --pin spec to one CPU per job. */
#ifndef VP_TOPOLOGY_H
#define VP_TOPOLOGY_H

#include <stddef.h>

struct vp_topology;

struct vp_topology_counts {
    unsigned packages, cores, pus, numa_nodes;
};

/* Loads this machine's topology, or an hwloc XML file when xml_path is given (tests). */
int vp_topology_load(struct vp_topology **topology, const char *xml_path, char *err,
                     size_t err_len);
void vp_topology_free(struct vp_topology *topology);
void vp_topology_count(const struct vp_topology *topology, struct vp_topology_counts *out);

/* Checks a pin spec without a job count: none, compact, spread or a CPU list whose CPUs
 * all exist. Returns 0, or -1 with a one-line message naming the accepted forms. */
int vp_pin_check(const struct vp_topology *topology, const char *spec, char *err,
                 size_t err_len);

/* Maps spec to a CPU (hwloc OS index) per job: cpus[i] for job i, -1 for "none".
 *  compact: cores in topology order, filling one package's cores first;
 *  spread:  round-robin over packages, then over the cores of each package;
 *  LIST:    the listed CPUs in order, one per job, cycling.
 * More jobs than cores wrap around. A core is named by its first hardware thread. */
int vp_pin_plan(const struct vp_topology *topology, const char *spec, unsigned jobs,
                int *cpus, char *err, size_t err_len);

/* Binds the calling process to one CPU (cpu < 0: leaves it unbound). */
int vp_pin_self(int cpu);

/* The CPUs the calling process may run on (its affinity: a container's cpuset), in
 * increasing order: up to cap of them into cpus (may be NULL with cap 0). Returns how
 * many there are, 0 when the affinity cannot be read. */
unsigned vp_allowed_cpus(int *cpus, unsigned cap);

/* The calling process's CPU affinity as read back from the kernel, as a list "0,2-3". */
void vp_affinity_text(char *buf, size_t len);

#endif
