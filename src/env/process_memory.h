/* The memory a process holds, and for a guest's QEMU process what it holds beyond the
 * guest's own RAM: what each guest costs the host in memory (the density question: how
 * many fit), as Firecracker measures its VMM's overhead; a container engine's shim is
 * read alike. From /proc/PID/smaps: every mapping's Rss and Pss summed, and those of the
 * guest's RAM (the anonymous read-write mappings of exactly the guest's memory size)
 * apart; the overhead is the rest (device emulation, QEMU's heap and libraries, and
 * under TCG its translation buffer). */
#ifndef VP_ENV_PROCESS_MEMORY_H
#define VP_ENV_PROCESS_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vp_process_memory {
    uint64_t rss_bytes, pss_bytes;         /* the whole process */
    uint64_t ram_rss_bytes, ram_pss_bytes; /* the guest's RAM */
    bool ram_found;                        /* a mapping of the guest's memory size was seen */
};

/* Sums smaps text (a /proc/PID/smaps) for a guest of ram_bytes (0: no guest's); 0, or -1
 * when it holds no mapping with Rss and Pss. */
int vp_process_memory_parse(const char *smaps, uint64_t ram_bytes, struct vp_process_memory *memory);
/* The same of process pid; -1 when it is gone or its smaps cannot be read. */
int vp_process_memory_read(pid_t pid, uint64_t ram_bytes, struct vp_process_memory *memory);

#endif
