/* `virtperf run BENCH... --uml SPEC`: the User-Mode Linux kind of the fleet runner
 * (fleet.h), the third kind beside guests and containers (the SPring-8 2005 study put
 * UML beside Xen, VMware and Solaris containers). Each instance is Debian's UML kernel
 * (`linux`, package user-mode-linux) run as a tree of this host's processes, booting the
 * containers' root directory (env/image.h) read-only through hostfs; the image's init
 * runs `virtperf guest-agent --tty /dev/ttyS1`. Its channel is a socketpair of this
 * host's whose other end is the instance's second serial line (ssl1=fd:N), made 8-bit
 * clean by the agent. Its working directory, home and database are its own tmpfs, in
 * its memory (--guest-memory, mem=); UML keeps that memory in a file of the run's
 * directory. An instance is untrusted: it sees the root directory only, read-only, and
 * this host reads nothing of it but its channel (bounded as every member's) and its
 * console log (a printable tail). Its process group dies with this run, a SIGKILLed one
 * too (each instance's kernel process is told to). What an instance costs the host is
 * its processes' CPU. It has no network here yet: the net benchmarks are refused. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/program.h"
#include "env/console.h"
#include "env/image.h"
#include "run/fleet.h"
#include "run/kinds.h"

#define DEFAULT_MEMORY_MIB 256
#define CHANNEL_FD 3 /* the instance's end of the channel, in its kernel's process */

struct instance {
    pid_t pid;                          /* its kernel's process, the leader of its group */
    char console[VP_GUEST_PATH_LEN];    /* its console's log */
    unsigned long long before_ticks;    /* its group's CPU at a point's start */
};

struct umls {
    const char *work;
    unsigned memory_mib;
    struct vp_guest_image root;
    struct instance own[VP_MAX_GUESTS];
};

static int prepare(void *state, const struct vp_fleet_setup *setup, char *err, size_t err_len)
{
    struct umls *umls = state;
    umls->work = setup->work;
    umls->memory_mib = setup->asked->memory_mib ? setup->asked->memory_mib : DEFAULT_MEMORY_MIB;
    if (!vp_program_installed("linux")) {
        snprintf(err, err_len, "--uml: the UML kernel (linux) is not installed; install it "
                 "(scripts/deps.sh uml)");
        return -1;
    }
    return vp_guest_root_find(&umls->root, setup->files, err, err_len);
}

/* In the child: its own process group, dying with this run; the console to its log; the
 * channel at CHANNEL_FD; then the kernel. */
static _Noreturn void exec_kernel(const struct umls *umls, const struct vp_member *member,
                                  const struct instance *instance, int channel, pid_t run)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != run) /* the run ended before the death signal was asked for */
        _exit(127);
    int console = open(instance->console, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int nothing = open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* dup2 onto itself keeps close-on-exec: the channel already at CHANNEL_FD is cleared */
    bool kept = channel == CHANNEL_FD ? fcntl(channel, F_SETFD, 0) == 0
                                      : dup2(channel, CHANNEL_FD) == CHANNEL_FD;
    if (console < 0 || nothing < 0 || dup2(nothing, STDIN_FILENO) < 0 ||
        dup2(console, STDOUT_FILENO) < 0 || dup2(console, STDERR_FILENO) < 0 || !kept ||
        chdir(umls->work) != 0)
        _exit(127);
    char memory[32], root[VP_GUEST_PATH_LEN + 16], line[32], name[VP_GUEST_NAME_LEN + 16];
    snprintf(memory, sizeof memory, "mem=%uM", umls->memory_mib);
    snprintf(root, sizeof root, "rootflags=%s", umls->root.initrd);
    snprintf(line, sizeof line, "ssl1=fd:%d", CHANNEL_FD);
    snprintf(name, sizeof name, "virtperf.name=%s", member->name);
    char *argv[] = { "linux", memory, "root=/dev/root", "rootfstype=hostfs", root, "ro",
                     "init=/init", "con0=fd:0,fd:1", "con=null", "ssl=null", line,
                     "virtperf.tty=/dev/ttyS1", name, "quiet", NULL };
    setenv("TMPDIR", umls->work, 1); /* where UML keeps the instance's memory */
    execvp(argv[0], argv);
    _exit(127);
}

static int start_instance(void *state, struct vp_member *member, size_t index, char *err,
                          size_t err_len)
{
    struct umls *umls = state;
    struct instance *instance = &umls->own[index];
    member->own = instance;
    snprintf(instance->console, sizeof instance->console, "%.400s/%.60s.console", umls->work,
             member->name);
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        snprintf(err, err_len, "--uml: cannot make %s's channel: %s", member->name,
                 strerror(errno));
        return -1;
    }
    pid_t run = getpid();
    instance->pid = fork();
    if (instance->pid == 0)
        exec_kernel(umls, member, instance, ends[1], run);
    close(ends[1]);
    if (instance->pid < 0) {
        snprintf(err, err_len, "--uml: cannot start %s: %s", member->name, strerror(errno));
        close(ends[0]);
        return -1;
    }
    setpgid(instance->pid, instance->pid); /* both sides: no race with the child's own */
    member->fd = ends[0];
    return 0;
}

/* The channel is open from the start: the hello over it says the instance is up. */
static int connect_instance(void *state, struct vp_member *member, int64_t deadline_ns,
                            char *err, size_t err_len)
{
    (void)state, (void)deadline_ns;
    if (member->fd >= 0)
        return 0;
    snprintf(err, err_len, "%s: it has no channel", member->name);
    return -1;
}

static bool instance_alive(void *state, struct vp_member *member)
{
    (void)state;
    struct instance *instance = member->own;
    /* not reaped (WNOWAIT): its pid stays its group's until remove_instance kills it */
    siginfo_t ended = { .si_pid = 0 };
    return instance->pid > 0 &&
           waitid(P_PID, (id_t)instance->pid, &ended, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           ended.si_pid == 0;
}

static int pause_instance(void *state, struct vp_member *member, bool pause)
{
    (void)state, (void)member, (void)pause;
    return 0; /* an idle agent waits on its line; an idle UML kernel sleeps */
}

static void describe_instance(void *state, struct vp_member *member)
{
    struct umls *umls = state;
    struct instance *instance = member->own;
    json_object_set_new(member->fingerprint, "uml",
                        json_pack("{s:s,s:i,s:i,s:s}", "name", member->name, "pid",
                                  (int)instance->pid, "memory_mib", (int)umls->memory_mib,
                                  "root", umls->root.initrd));
}

static void silent_instance(void *state, struct vp_member *member)
{
    (void)state;
    struct instance *instance = member->own;
    vp_console_tail(instance->console, member->name);
}

/* The CPU ticks (user and system) of every process in group, with those of the ones it
 * reaped (each process in the instance is a host process; the job processes a point
 * forks have ended by its end, their time in their reaper's). */
static unsigned long long group_ticks(pid_t group)
{
    DIR *proc = opendir("/proc");
    unsigned long long total = 0;
    struct dirent *entry;
    while (proc && (entry = readdir(proc))) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
            continue;
        char path[64], text[1024];
        snprintf(path, sizeof path, "/proc/%.20s/stat", entry->d_name);
        FILE *stat = fopen(path, "r");
        size_t got = stat ? fread(text, 1, sizeof text - 1, stat) : 0;
        if (stat)
            fclose(stat);
        text[got] = '\0';
        const char *after = strrchr(text, ')'); /* the name may hold spaces and parens */
        long long pgrp;
        unsigned long long user, system, reaped_user, reaped_system;
        if (after && sscanf(after + 2, "%*c %*d %lld %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu "
                            "%llu %llu", &pgrp, &user, &system, &reaped_user,
                            &reaped_system) == 5 && pgrp == group)
            total += user + system + reaped_user + reaped_system;
    }
    if (proc)
        closedir(proc);
    return total;
}

static void cost_begin(void *state, struct vp_member *member)
{
    (void)state;
    struct instance *instance = member->own;
    instance->before_ticks = group_ticks(instance->pid);
}

static json_t *cost_end(void *state, struct vp_member *member, double seconds)
{
    (void)state;
    struct instance *instance = member->own;
    json_t *entry = json_pack("{s:s}", "name", member->name);
    unsigned long long after = group_ticks(instance->pid);
    long hz = sysconf(_SC_CLK_TCK);
    if (seconds > 0 && hz > 0 && after >= instance->before_ticks)
        json_object_set_new(entry, "cpu_pct",
                            json_real(100.0 * (double)(after - instance->before_ticks) /
                                      (double)hz / seconds));
    return entry;
}

static const char *server_address(void *state, char *err, size_t err_len)
{
    (void)state;
    snprintf(err, err_len, "--uml: a net benchmark talks to a server on this host, and UML "
             "instances have no network here yet; accepted: --uml with benchmarks that need "
             "none, or --guests with --guest-net BRIDGE");
    return NULL;
}

static const char *member_address(void *state, size_t index)
{
    (void)state, (void)index;
    return NULL;
}

static json_t *summary(void *state)
{
    struct umls *umls = state;
    /* UML runs one CPU per instance */
    return json_pack("{s:s,s:s+,s:{s:i,s:i}}", "engine", "uml", "members", vp_uml_kind.noun,
                     "s", "settings", "cpus", 1, "memory_mib", (int)umls->memory_mib);
}

static void remove_instance(void *state, struct vp_member *member)
{
    (void)state;
    struct instance *instance = member->own;
    if (!instance || instance->pid <= 0)
        return;
    kill(-instance->pid, SIGKILL);
    kill(instance->pid, SIGKILL);
    waitpid(instance->pid, NULL, 0);
    instance->pid = 0;
    unlink(instance->console);
}

static const char *const own_dirs[] = { "/tmp", "/proc", "/sys", "/dev", "/run", NULL };

static struct vp_fleet_kind fleet_of_uml(void)
{
    struct umls *umls = calloc(1, sizeof *umls);
    if (!umls)
        abort();
    return (struct vp_fleet_kind){
        .env = &vp_uml_kind, .own_dirs = own_dirs, .state = umls, .prepare = prepare,
        .start = start_instance, .connect = connect_instance, .alive = instance_alive,
        .pause = pause_instance, .describe = describe_instance, .silent = silent_instance,
        .cost_begin = cost_begin, .cost_end = cost_end, .server_address = server_address,
        .member_address = member_address, .summary = summary, .remove = remove_instance,
    };
}

static const char *const uml_settings[] = {
    "--and-host", "--guest-memory", "--guest-programs", "--guest-timeout", "--qos",
    "--keep-free", NULL,
};

const struct vp_env_kind vp_uml_kind = {
    .name = "uml", .flag = "--uml", .noun = "UML instance", .settings = uml_settings,
    .fleet = fleet_of_uml,
};
