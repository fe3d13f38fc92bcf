/* vcost.*: operations that exit to a hypervisor or hurt in a guest, in seconds per
 * operation: a trivial system call, CPUID, first touch of anonymous pages, fork+exit+wait,
 * a pipe ping-pong context switch on one CPU or across two (the cross-CPU wake-up IPI),
 * and a permission change that must shoot down another CPU's TLB. Tiny operations run in calibrated loops with the loop overhead subtracted. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __x86_64__
#include <cpuid.h>
#endif

#include "bench/bench.h"
#include "bench/conditions.h"
#include "core/calibrate.h"
#include "core/clock.h"
#include "core/json.h"

enum cost_metric { COST_PER_OP, COST_METRIC_COUNT };

static const struct vp_metric cost_metric[] = {
    [COST_PER_OP] = { "cost", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "seconds per operation" },
};
_Static_assert(sizeof cost_metric / sizeof cost_metric[0] == COST_METRIC_COUNT,
               "one metric per slot");

#define COST_METRICS .metrics = cost_metric, .metric_count = COST_METRIC_COUNT

/* ---- vcost.syscall, vcost.cpuid ---- */

static void raw_syscall(void *context)
{
    (void)context;
    syscall(SYS_getppid); /* no vDSO, no glibc cache: a real kernel entry */
}

static int syscall_measure(struct vp_job *job, double *values)
{
    (void)job;
    uint64_t iterations;
    values[COST_PER_OP] = vp_cost_per_op(raw_syscall, NULL, &iterations);
    return 0;
}

#ifdef __x86_64__
static void cpuid_instruction(void *context)
{
    unsigned a, b, c, d;
    __cpuid(0, a, b, c, d);
    __asm__ volatile("" : : "r"(a), "r"(b), "r"(c), "r"(d), "r"(context));
}
#endif

static int cpuid_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                          size_t err_len)
{
    (void)params;
    (void)max_jobs;
#ifdef __x86_64__
    (void)err;
    (void)err_len;
    return 0;
#else
    snprintf(err, err_len, "vcost.cpuid: not available on this architecture (x86-64 only)");
    return -1;
#endif
}

static int cpuid_measure(struct vp_job *job, double *values)
{
#ifdef __x86_64__
    (void)job;
    uint64_t iterations;
    values[COST_PER_OP] = vp_cost_per_op(cpuid_instruction, NULL, &iterations);
    return 0;
#else
    (void)values; /* validate refuses this bench here; never invent a figure */
    snprintf(job->error, sizeof job->error, "vcost.cpuid: x86-64 only");
    return -1;
#endif
}

/* ---- vcost.pagefault ---- */

static const struct vp_option fault_options[] = {
    { "page", VP_OPT_CHOICE, "4k", 0, 0, "4k|2m",
      "4k: base pages; 2m: transparent huge pages (madvise), where the kernel has them" },
    { "size", VP_OPT_SIZE, "64m", 4194304.0, 17179869184.0, NULL, "bytes touched per repetition" },
};

static int fault_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                          size_t err_len)
{
    (void)max_jobs;
    if (strcmp(vp_param_text(params, "page"), "2m") != 0)
        return 0;
    char mode[64] = "";
    FILE *file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (file) {
        if (!fgets(mode, sizeof mode, file))
            mode[0] = '\0';
        fclose(file);
    }
    if (!strstr(mode, "[always]") && !strstr(mode, "[madvise]")) {
        snprintf(err, err_len, "vcost.pagefault --page=2m: transparent huge pages are off here "
                 "(%s); accepted here: --page=4k", mode[0] ? "never" : "not available");
        return -1;
    }
    return 0;
}

/* Seconds per page to fault in fresh anonymous memory, one store per page. */
static int fault_measure(struct vp_job *job, double *values)
{
    int huge = strcmp(vp_param_text(job->params, "page"), "2m") == 0;
    size_t page = huge ? 2u << 20 : (size_t)sysconf(_SC_PAGESIZE);
    size_t size = vp_param_number(job->params, "size") / page * page;
    /* Map one page more so the region can start on a page-size boundary. */
    char *mapping = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    if (mapping == MAP_FAILED) {
        snprintf(job->error, sizeof job->error, "vcost.pagefault: cannot map %zu bytes", size);
        return -1;
    }
    volatile char *region = (char *)(((uintptr_t)mapping + page - 1) & ~(uintptr_t)(page - 1));
    madvise((void *)region, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    int64_t start = vp_now_ns();
    for (size_t offset = 0; offset < size; offset += page)
        region[offset] = 1;
    int64_t elapsed = vp_now_ns() - start;
    munmap(mapping, size + page);
    values[COST_PER_OP] = (double)elapsed / 1e9 / (double)(size / page);
    return 0;
}

/* ---- vcost.fork ---- */

static const struct vp_option fork_options[] = {
    { "count", VP_OPT_COUNT, "200", 10, 1e6, NULL, "fork, exit and wait cycles per repetition" },
};

static int fork_measure(struct vp_job *job, double *values)
{
    uint64_t count = vp_param_number(job->params, "count");
    int64_t start = vp_now_ns();
    for (uint64_t i = 0; i < count; i++) {
        pid_t child = fork();
        if (child == 0)
            _exit(0);
        if (child < 0 || waitpid(child, NULL, 0) != child) {
            snprintf(job->error, sizeof job->error, "vcost.fork: %s", strerror(errno));
            return -1;
        }
    }
    values[COST_PER_OP] = (double)(vp_now_ns() - start) / 1e9 / (double)count;
    return 0;
}

/* ---- vcost.ctxswitch ---- */

static const struct vp_option switch_options[] = {
    { "placement", VP_OPT_CHOICE, "same", 0, 0, "same|cross",
      "same: both ends on this job's CPU; cross: the partner on another CPU" },
    { "round-trips", VP_OPT_COUNT, "20k", 100, 1e9, NULL, "ping-pongs per repetition" },
    VP_HOLD_LATENCY_OPTION,
};

struct partner {
    pid_t pid;
    int to_partner, from_partner;
};

static int current_cpu_other(int cpu)
{
    cpu_set_t allowed;
    if (sched_getaffinity(getppid(), sizeof allowed, &allowed) != 0) /* virtperf, unpinned */
        return -1;
    for (int other = 0; other < CPU_SETSIZE; other++)
        if (other != cpu && CPU_ISSET(other, &allowed))
            return other;
    return -1;
}

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* A partner process that echoes every byte back; the job pins itself to its current
 * CPU, the partner to the same one or to another allowed CPU. */
static int switch_prepare(struct vp_job *job)
{
    int cpu = sched_getcpu();
    int cross = strcmp(vp_param_text(job->params, "placement"), "cross") == 0;
    int partner_cpu = cross ? current_cpu_other(cpu) : cpu;
    if (partner_cpu < 0) {
        snprintf(job->error, sizeof job->error, "vcost.ctxswitch --placement=cross: needs a "
                 "second CPU this job may use");
        return -1;
    }
    int there[2], back[2];
    if (pipe(there) != 0 || pipe(back) != 0 || pin_to(cpu) != 0) {
        snprintf(job->error, sizeof job->error, "vcost.ctxswitch: %s", strerror(errno));
        return -1;
    }
    struct partner *partner = calloc(1, sizeof *partner);
    if (!partner)
        abort();
    partner->pid = fork();
    if (partner->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(there[1]); /* or the job's close would never read as end of file here */
        close(back[0]);
        pin_to(partner_cpu);
        char byte;
        while (read(there[0], &byte, 1) == 1 && write(back[1], &byte, 1) == 1)
            ;
        _exit(0);
    }
    close(there[0]);
    close(back[1]);
    partner->to_partner = there[1];
    partner->from_partner = back[0];
    job->state = partner;
    return partner->pid > 0 ? 0 : -1;
}

/* Half a round trip: one switch to the partner and (with the reply) one back. */
static int switch_measure(struct vp_job *job, double *values)
{
    struct partner *partner = job->state;
    uint64_t trips = vp_param_number(job->params, "round-trips");
    char byte = 'x';
    int64_t start = vp_now_ns();
    for (uint64_t i = 0; i < trips; i++) {
        if (write(partner->to_partner, &byte, 1) != 1 || read(partner->from_partner, &byte, 1) != 1) {
            snprintf(job->error, sizeof job->error, "vcost.ctxswitch: the partner is gone");
            return -1;
        }
    }
    values[COST_PER_OP] = (double)(vp_now_ns() - start) / 1e9 / (double)trips / 2;
    return 0;
}

static void switch_release(struct vp_job *job)
{
    struct partner *partner = job->state;
    if (!partner)
        return;
    close(partner->to_partner); /* the partner reads end of file and leaves */
    close(partner->from_partner);
    waitpid(partner->pid, NULL, 0);
    free(partner);
}

/* ---- vcost.tlb ---- */

static const struct vp_option tlb_options[] = {
    { "placement", VP_OPT_CHOICE, "cross", 0, 0, "none|cross",
      "cross: a second thread of the job keeps writing the process's memory on another CPU, "
      "so every flush must reach it (an IPI); none: no other thread, a local flush only" },
};

struct shootdown {
    char *page;          /* the page whose write permission flips */
    volatile char *busy; /* the page the other thread keeps writing */
    size_t page_size;
    int other_cpu;
    pthread_t thread;
    bool has_thread;
    atomic_bool stop;
};

static void *keep_mapping_in_use(void *context)
{
    struct shootdown *shootdown = context;
    pin_to(shootdown->other_cpu);
    while (!atomic_load_explicit(&shootdown->stop, memory_order_relaxed))
        shootdown->busy[0]++;
    return NULL;
}

/* A write makes the page's entry writable and cached; taking write away must flush it
 * from every CPU running this process; giving it back needs no flush. */
static void flip_write_permission(void *context)
{
    struct shootdown *shootdown = context;
    shootdown->page[0]++;
    mprotect(shootdown->page, shootdown->page_size, PROT_READ);
    mprotect(shootdown->page, shootdown->page_size, PROT_READ | PROT_WRITE);
}

static int tlb_prepare(struct vp_job *job)
{
    struct shootdown *shootdown = calloc(1, sizeof *shootdown);
    if (!shootdown)
        abort();
    job->state = shootdown;
    shootdown->page_size = (size_t)sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * shootdown->page_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int cpu = sched_getcpu();
    if (pages == MAP_FAILED || pin_to(cpu) != 0) {
        snprintf(job->error, sizeof job->error, "vcost.tlb: %s", strerror(errno));
        return -1;
    }
    shootdown->page = pages;
    shootdown->busy = pages + shootdown->page_size;
    if (strcmp(vp_param_text(job->params, "placement"), "none") == 0)
        return 0;
    shootdown->other_cpu = current_cpu_other(cpu);
    if (shootdown->other_cpu < 0) {
        snprintf(job->error, sizeof job->error, "vcost.tlb --placement=cross: needs a second "
                 "CPU this job may use; accepted here: --placement=none");
        return -1;
    }
    if (pthread_create(&shootdown->thread, NULL, keep_mapping_in_use, shootdown) != 0) {
        snprintf(job->error, sizeof job->error, "vcost.tlb: cannot start the second thread");
        return -1;
    }
    shootdown->has_thread = true;
    return 0;
}

static int tlb_measure(struct vp_job *job, double *values)
{
    uint64_t iterations;
    values[COST_PER_OP] = vp_cost_per_op(flip_write_permission, job->state, &iterations);
    return 0;
}

static void tlb_release(struct vp_job *job)
{
    struct shootdown *shootdown = job->state;
    if (!shootdown)
        return;
    if (shootdown->has_thread) {
        atomic_store(&shootdown->stop, true);
        pthread_join(shootdown->thread, NULL);
    }
    if (shootdown->page)
        munmap(shootdown->page, 2 * shootdown->page_size);
    free(shootdown);
}

const struct vp_bench vp_bench_vcost_syscall = {
    .name = "vcost.syscall",
    .summary = "a trivial raw system call (getppid), s per call",
    .description = "Calls syscall(SYS_getppid) in a calibrated loop (span >= 1000x the clock "
                   "read cost and >= 1 ms, empty-loop overhead subtracted). In a guest this "
                   "is a kernel entry, no exit, unless the hypervisor traps it.",
    COST_METRICS,
    .measure = syscall_measure,
};

const struct vp_bench vp_bench_vcost_cpuid = {
    .name = "vcost.cpuid",
    .summary = "the CPUID instruction (always an exit under hardware virtualization)",
    .description = "Executes CPUID leaf 0 in a calibrated loop. Under VT-x/AMD-V every CPUID "
                   "exits to the hypervisor: the cost is the round trip of an exit. x86-64 only.",
    COST_METRICS,
    .validate = cpuid_validate,
    .measure = cpuid_measure,
};

const struct vp_bench vp_bench_vcost_pagefault = {
    .name = "vcost.pagefault",
    .summary = "first touch of fresh anonymous memory, s per page (4k or 2m)",
    .description = "Maps --size of anonymous memory and writes one byte per page, timing the "
                   "faults; --page=2m asks for transparent huge pages (madvise). With nested "
                   "or shadow paging each fault costs the hypervisor work.",
    .options = fault_options,
    .option_count = sizeof fault_options / sizeof fault_options[0],
    COST_METRICS,
    .validate = fault_validate,
    .measure = fault_measure,
};

const struct vp_bench vp_bench_vcost_fork = {
    .name = "vcost.fork",
    .summary = "fork, exit and wait of a child, s per cycle",
    .description = "Forks a child that exits at once and waits for it, --count times.",
    .options = fork_options,
    .option_count = sizeof fork_options / sizeof fork_options[0],
    COST_METRICS,
    .measure = fork_measure,
};

#define WAKEUP_RATIO_HIGH 4.0 /* cross-CPU over same-CPU switch cost */

/* Cross-CPU wake-ups far dearer than same-CPU switches: the newest of each placement. */
static void switch_advise(const json_t *results, json_t *advisories)
{
    double same = NAN, cross = NAN;
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result) {
        bool is_cross = strcmp(vp_json_text(json_object_get(result, "params"), "placement"),
                               "cross") == 0;
        *(is_cross ? &cross : &same) = vp_metric_mean(result, "cost");
    }
    if (cross / same > WAKEUP_RATIO_HIGH)
        vp_advise(advisories, "cross-CPU wake-ups cost %.1fx a same-CPU switch "
                  "(vcost.ctxswitch): each is an IPI, in a guest an exit; halt polling or "
                  "posted interrupts help", cross / same);
}

const struct vp_bench vp_bench_vcost_ctxswitch = {
    .name = "vcost.ctxswitch",
    .summary = "pipe ping-pong context switch, same CPU or across CPUs, s per switch",
    .description = "The job and a partner process pass one byte back and forth over two "
                   "pipes; cost is half a round trip. --placement=same pins both to the job's "
                   "CPU; cross puts the partner on another CPU, so every switch is a "
                   "cross-CPU wake-up (an IPI, which guests without halt polling pay dearly).",
    .options = switch_options,
    .option_count = sizeof switch_options / sizeof switch_options[0],
    COST_METRICS,
    .prepare = switch_prepare,
    .setup = vp_conditions_setup,
    .measure = switch_measure,
    .release = switch_release,
    .annotate = vp_conditions_annotate,
    .parts = vp_condition_parts,
    .teardown = vp_conditions_teardown,
    .advise = switch_advise,
};

const struct vp_bench vp_bench_vcost_tlb = {
    .name = "vcost.tlb",
    .summary = "a TLB shootdown: taking write permission away, s per change",
    .description = "Writes a page, mprotects it read-only and back, in a calibrated loop. "
                   "--placement=cross keeps a second thread writing the process's memory on "
                   "another CPU, so each read-only change sends it a flush IPI (an exit in "
                   "most guests); none measures the same change with a local flush only.",
    .options = tlb_options,
    .option_count = sizeof tlb_options / sizeof tlb_options[0],
    COST_METRICS,
    .prepare = tlb_prepare,
    .measure = tlb_measure,
    .release = tlb_release,
};
