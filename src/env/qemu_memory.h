/* The memory a guest's QEMU process holds beyond the guest's own RAM: what each guest
 * costs the host in memory (the density question: how many fit), as Firecracker measures
 * its VMM's overhead. From /proc/PID/smaps: every mapping's Rss and Pss summed, and those
 * of the guest's RAM (the anonymous read-write mappings of exactly the guest's memory
 * size) apart; the overhead is the rest (device emulation, QEMU's heap and libraries, and
 * under TCG its translation buffer). */
#ifndef VP_ENV_QEMU_MEMORY_H
#define VP_ENV_QEMU_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vp_qemu_memory {
    uint64_t rss_bytes, pss_bytes;         /* the whole process */
    uint64_t ram_rss_bytes, ram_pss_bytes; /* the guest's RAM */
    bool ram_found;                        /* a mapping of the guest's memory size was seen */
};

/* Sums smaps text (a /proc/PID/smaps) for a guest of ram_bytes; 0, or -1 when it holds
 * no mapping with Rss and Pss. */
int vp_qemu_memory_parse(const char *smaps, uint64_t ram_bytes, struct vp_qemu_memory *memory);
/* The same of process pid; -1 when it is gone or its smaps cannot be read. */
int vp_qemu_memory_read(pid_t pid, uint64_t ram_bytes, struct vp_qemu_memory *memory);

#endif
