/* The CPU a guest's QEMU process used, split as the SPring-8 study's hypervisor view
 * needs it: its vCPU threads (named "CPU N/KVM" or "CPU N/TCG") and the rest (device
 * emulation, I/O threads, the main loop), in seconds: the vCPU threads' from
 * /proc/PID/task/N/stat, the rest as the process's whole (/proc/PID/stat, which keeps
 * the time of threads that have exited: QEMU's worker threads come and go) less them. */
#ifndef VP_GUEST_QEMU_CPU_H
#define VP_GUEST_QEMU_CPU_H

#include <sys/types.h>

struct vp_qemu_cpu {
    double vcpu_s, other_s;
};

/* 0, or -1 when the process is gone. */
int vp_qemu_cpu_read(pid_t pid, struct vp_qemu_cpu *cpu);

#endif
