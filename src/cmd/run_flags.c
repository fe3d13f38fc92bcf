/* Run's flag table and the parser it drives (run_flags.h). */
#include "cmd/run_flags.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "core/limits.h"
#include "core/units.h"
#include "engine/layout.h"
#include "render/roff.h"

__attribute__((format(printf, 3, 4))) static int refuse(char *err, size_t err_len,
                                                        const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(err, err_len, format, args);
    va_end(args);
    return -1;
}

static int take_whole(const char *flag, const char *text, unsigned min, unsigned max,
                      unsigned *value, char *err, size_t err_len)
{
    uint64_t parsed;
    if (vp_parse_count(text, &parsed) != 0 || parsed < min || parsed > max)
        return refuse(err, err_len, "%s: '%s' is not valid; accepted: a whole number from %u "
                      "to %u", flag, text, min, max);
    *value = (unsigned)parsed;
    return 0;
}

static int take_jobs(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->plan.jobs_text = value;
    return 0;
}

static int take_pin(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->plan.pin = value;
    return 0;
}

/* --reps N, or auto[:MAX]: repeat until the headline's 95% interval is within --target,
 * from VP_AUTO_REPS_MIN to MAX (VP_AUTO_REPS_MAX) repetitions. */
static int take_reps(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    request->plan.reps_given = true;
    request->plan.reps_auto = strncmp(value, "auto", 4) == 0 && (!value[4] || value[4] == ':');
    if (!request->plan.reps_auto)
        return take_whole("--reps", value, 1, VP_MAX_REPS, &request->plan.reps, err, len);
    request->plan.reps = VP_AUTO_REPS_MAX;
    if (value[4] && (take_whole("--reps auto:MAX", value + 5, VP_AUTO_REPS_MIN, VP_MAX_REPS,
                                &request->plan.reps, err, len) != 0))
        return -1;
    return 0;
}

static int take_target(struct vp_run_request *request, const char *value, char *err,
                       size_t len)
{
    char *end;
    double percent = strtod(value, &end);
    if (end == value || (*end && strcmp(end, "%") != 0) || !(percent >= 0.1 && percent <= 50))
        return refuse(err, len, "--target: '%s' is not valid; accepted: the 95%% interval's "
                      "half-width as a percentage of the mean, 0.1 to 50 (2 or 2%%)", value);
    request->plan.reps_target = percent / 100;
    return 0;
}

static int take_warmup(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    request->plan.warmup_given = true;
    return take_whole("--warmup", value, 0, VP_MAX_WARMUP, &request->plan.warmup, err, len);
}

static int take_duration(struct vp_run_request *request, const char *value, char *err,
                         size_t len)
{
    double *duration = &request->plan.duration;
    if (vp_parse_duration(value, duration) != 0 || *duration < 0.001 || *duration > 86400)
        return refuse(err, len, "--duration: '%s' is not valid; accepted: 1ms to 24h, such as "
                      "10s, 500ms or 2min", value);
    return 0;
}

static int take_label(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (!*value || strlen(value) > 128)
        return refuse(err, len, "--label: accepted: 1 to 128 characters");
    request->label = value;
    return 0;
}

static int take_db(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->db = value;
    return 0;
}

static int take_json(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->json = value;
    return 0;
}

static int take_monitor_hz(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    char *end;
    request->monitor_hz = strtod(value, &end);
    if (end == value || *end || !(request->monitor_hz >= 0.1 && request->monitor_hz <= 1000))
        return refuse(err, len, "--monitor-hz: '%s' is not valid; accepted: a rate from 0.1 "
                      "to 1000 samples per second", value);
    return 0;
}

static int take_watch(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (request->watch_count == VP_RUN_MAX_WATCH || !*value)
        return refuse(err, len, "--watch: accepted: up to %d non-empty process names",
                      VP_RUN_MAX_WATCH);
    request->watch[request->watch_count++] = (char *)value;
    return 0;
}

static int take_quiet(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)value, (void)err, (void)len;
    request->quiet = true;
    return 0;
}

static int take_background(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    (void)err, (void)len;
    request->background = value;
    return 0;
}

static int take_help(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)value, (void)err, (void)len;
    request->help = true;
    return 0;
}

static int take_plan(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)err, (void)len;
    request->plan_path = value;
    return 0;
}

static int take_set(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    if (request->set_count == VP_RUN_MAX_SETS)
        return refuse(err, len, "--set: at most %d", VP_RUN_MAX_SETS);
    request->sets[request->set_count++] = value;
    return 0;
}

static int take_dry_run(struct vp_run_request *request, const char *value, char *err,
                        size_t len)
{
    (void)value, (void)err, (void)len;
    request->dry_run = true;
    return 0;
}

static int take_here(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    (void)value, (void)err, (void)len;
    request->here = true;
    return 0;
}

static int take_no_guests(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    (void)value, (void)err, (void)len;
    request->no_guests = true;
    return 0;
}

/* --ranks SPEC: its shape here (how many ranks there are is known under mpirun only). */
static int take_ranks(struct vp_run_request *request, const char *value, char *err, size_t len)
{
    unsigned counts[VP_MAX_RANKS];
    size_t count_n;
    if (vp_parse_jobs_spec(value, VP_MAX_RANKS, counts, VP_MAX_RANKS, &count_n) != 0)
        return refuse(err, len, "--ranks: '%s' is not valid; accepted: N, a list 1,2,4 or a "
                      "range 1..8 (increasing, 1 to the ranks mpirun starts)", value);
    request->ranks = value;
    return 0;
}

static int take_topology(struct vp_run_request *request, const char *value, char *err,
                         size_t len)
{
    enum vp_topology_kind kind;
    if (vp_topology_parse(value, &kind, err, len) != 0)
        return -1;
    request->topology = value;
    return 0;
}

static int take_start_with(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    if (strcmp(value, "instant") != 0 && strcmp(value, "barrier") != 0)
        return refuse(err, len, "--start-with: '%s' is not valid; accepted: instant or barrier",
                      value);
    request->start_with = value;
    return 0;
}

/* --guests SPEC, --containers SPEC: the members the run starts, of one kind (SPEC is
 * checked where they start). */
static int take_members(const struct vp_env_kind *kind, struct vp_run_request *request,
                        const char *value, char *err, size_t len)
{
    const struct vp_env_kind *before = request->guests.kind;
    if (before && before != kind) {
        const struct vp_env_kind *one = vp_env_kind_earlier(before, kind);
        const struct vp_env_kind *other = one == kind ? before : kind;
        return refuse(err, len, "%s and %s: one of them; accepted: %s SPEC or %s SPEC",
                      one->flag, other->flag, one->flag, other->flag);
    }
    request->guests.kind = kind;
    request->guests.spec = value;
    return 0;
}

static int take_guests(struct vp_run_request *request, const char *value, char *err,
                       size_t len)
{
    return take_members(&vp_guests_kind, request, value, err, len);
}

static int take_guest_cpus(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    return take_whole("--guest-cpus", value, 1, 64, &request->guests.cpus, err, len);
}

static int take_guest_memory(struct vp_run_request *request, const char *value, char *err,
                             size_t len)
{
    return take_whole("--guest-memory", value, 256, 1 << 20, &request->guests.memory_mib, err,
                      len);
}

static int take_guest_accel(struct vp_run_request *request, const char *value, char *err,
                            size_t len)
{
    if (strcmp(value, "auto") != 0 && strcmp(value, "kvm") != 0 && strcmp(value, "tcg") != 0)
        return refuse(err, len, "--guest-accel: '%s' is not valid; accepted: auto, kvm or tcg",
                      value);
    request->guests.accel = value;
    return 0;
}

static int take_guest_timeout(struct vp_run_request *request, const char *value, char *err,
                              size_t len)
{
    return take_whole("--guest-timeout", value, 10, 86400, &request->guests.timeout_s, err, len);
}

static int take_libvirt_uri(struct vp_run_request *request, const char *value, char *err,
                            size_t len)
{
    (void)err, (void)len;
    request->guests.uri = value;
    return 0;
}

static int take_guest_net(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    (void)err, (void)len;
    request->guests.bridge = value; /* an existing bridge: checked where the guests start */
    return 0;
}

static int take_and_host(struct vp_run_request *request, const char *value, char *err,
                         size_t len)
{
    (void)value, (void)err, (void)len;
    request->guests.and_host = true;
    return 0;
}

static int take_guest_disk(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    (void)err, (void)len;
    request->guests.disk_dir = value;
    return 0;
}

static int take_guest_disk_size(struct vp_run_request *request, const char *value, char *err,
                                size_t len)
{
    uint64_t bytes;
    if (vp_parse_size(value, &bytes) != 0 || bytes < (64u << 20))
        return refuse(err, len, "--guest-disk-size: '%s' is not valid; accepted: a size of at "
                      "least 64M, such as 512M or 4G", value);
    request->guests.disk_bytes = bytes;
    return 0;
}

static int take_guest_disk_bus(struct vp_run_request *request, const char *value, char *err,
                               size_t len)
{
    if (strcmp(value, "virtio") != 0 && strcmp(value, "ide") != 0)
        return refuse(err, len, "--guest-disk-bus: '%s' is not valid; accepted: virtio or ide",
                      value);
    request->guests.disk_bus = value;
    return 0;
}

/* --guest-cpu-cap PCT[@N]: each vCPU of every guest (or of guest N) at most PCT% of a
 * host CPU, libvirt's <cputune> quota: a known cost to find in the results. */
static int take_guest_cpu_cap(struct vp_run_request *request, const char *value, char *err,
                              size_t len)
{
    unsigned pct = 0, guest = 0;
    char extra;
    int n = sscanf(value, "%u@%u%c", &pct, &guest, &extra);
    if (!((n == 1 && strchr(value, '@') == NULL) || n == 2) || pct < 1 || pct > 100 ||
        (n == 2 && (guest < 1 || guest > VP_MAX_GUESTS)) || value[0] < '0' || value[0] > '9')
        return refuse(err, len, "--guest-cpu-cap: '%s' is not valid; accepted: PCT from 1 to "
                      "100, or PCT@N for guest N only (1 to %d)", value, VP_MAX_GUESTS);
    request->guests.cpu_cap_pct = pct;
    request->guests.cpu_cap_guest = guest;
    return 0;
}

static int take_guest_pin(struct vp_run_request *request, const char *value, char *err,
                          size_t len)
{
    (void)err, (void)len;
    request->guests.pin = value; /* checked against this host's CPUs where the guests start */
    return 0;
}

/* --guest-programs PATH[,PATH...]: each an absolute path of a file or directory here. */
static int take_guest_programs(struct vp_run_request *request, const char *value, char *err,
                               size_t len)
{
    char copy[VP_TEXT_LEN], *save, *path;
    snprintf(copy, sizeof copy, "%s", value);
    struct stat info;
    for (path = strtok_r(copy, ",", &save); path; path = strtok_r(NULL, ",", &save))
        if (path[0] != '/' || stat(path, &info) != 0)
            return refuse(err, len, "--guest-programs: '%s' is not %s; accepted: absolute "
                          "paths of this host's programs, files or directories, comma-separated",
                          path, path[0] != '/' ? "an absolute path" : "here");
    if (strspn(value, ",") == strlen(value))
        return refuse(err, len, "--guest-programs: empty; accepted: absolute paths of this "
                      "host's programs, files or directories, comma-separated");
    request->guests.programs = value;
    return 0;
}

static int take_containers(struct vp_run_request *request, const char *value, char *err,
                           size_t len)
{
    return take_members(&vp_containers_kind, request, value, err, len);
}

static int take_container_engine(struct vp_run_request *request, const char *value, char *err,
                                 size_t len)
{
    if (strcmp(value, "podman") != 0 && strcmp(value, "docker") != 0)
        return refuse(err, len, "--container-engine: '%s' is not valid; accepted: podman or "
                      "docker", value);
    request->guests.container_engine = value;
    return 0;
}

static int take_container_runtime(struct vp_run_request *request, const char *value, char *err,
                                  size_t len)
{
    if (strcmp(value, "runc") != 0 && strcmp(value, "crun") != 0)
        return refuse(err, len, "--container-runtime: '%s' is not valid; accepted: runc or crun",
                      value);
    request->guests.container_runtime = value;
    return 0;
}

static int take_container_net(struct vp_run_request *request, const char *value, char *err,
                              size_t len)
{
    /* a network's name as podman and docker take them */
    size_t length = strlen(value);
    bool named = length > 0 && length < 64 && isalnum((unsigned char)value[0]) &&
                 strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_.-") == length;
    if (!named)
        return refuse(err, len, "--container-net: '%s' is not valid; accepted: host, bridge or "
                      "the name of a network of the engine (letters, digits, _ . -)", value);
    request->guests.container_net = value;
    return 0;
}

const struct vp_run_flag vp_run_flags[] = {
    { "jobs", "SPEC", VP_SCOPE_STEP, "job counts: 4, 1,2,4 or 1..8 (a list is a sweep)  [1]",
      "Job counts: \\fB4\\fR, \\fB1,2,4\\fR or \\fB1..8\\fR. A list is a sweep: one result "
      "per count. Default 1.", take_jobs },
    { "pin", "SPEC", VP_SCOPE_STEP,
      "none | compact | spread | CPU list such as 0,2,4-6  [none]\n"
      "({per-cpu}: one job on each CPU this run may use, pinned)",
      "\\fBnone\\fR (default), \\fBcompact\\fR (fill the cores of one package first),\n"
      "\\fBspread\\fR (round-robin over packages, then cores), or a CPU list such as\n"
      "\\fB0,2,4\\-6\\fR (one CPU per job, cycling). The binding is read back inside each job.",
      take_pin },
    { "reps", "N|auto[:MAX]", VP_SCOPE_STEP,
      "measured repetitions, 1..{max-reps}  [5; {watch}: 1]; auto: until the headline's\n"
      "95% interval is within --target, 5 to MAX [30] repetitions (one host only)",
      "Measured repetitions (default 5; comparisons need at least 5), after the warm-up.\n"
      "\\fBauto\\fR repeats until the 95% interval of the headline metric (the benchmark's\n"
      "first) is within \\fB\\-\\-target\\fR of its mean, at least 5 times and at most MAX\n"
      "(\\fBauto:50\\fR; default 30), as pbench and the Phoronix suite do; a result that\n"
      "did not get there says so. Not under virtperf\\-mpi.",
      take_reps },
    { "target", "PCT", VP_SCOPE_STEP,
      "with --reps auto: the 95% interval's half-width to reach, % of the mean  [2]",
      "With \\fB\\-\\-reps auto\\fR: the half-width of the 95% interval of the headline\n"
      "metric (the benchmark's first) to reach, as a percentage of its mean (default 2).",
      take_target },
    { "warmup", "N", VP_SCOPE_STEP, "unmeasured repetitions first, 0..100  [1; {watch}: 0]",
      "Unmeasured warm-up repetitions before the measured ones (default 1).", take_warmup },
    { "duration", "D", VP_SCOPE_STEP,
      "time per repetition for time-bound benchmarks (10s, 500ms)",
      "Time per repetition for time-bound benchmarks (those whose BENCHMARKS entry lists\n"
      "\\fB\\-\\-duration\\fR), such as \\fB10s\\fR or \\fB500ms\\fR.", take_duration },
    { "label", "L", VP_SCOPE_SESSION, "tag the run (bare, kvm, xen-pv ...)", NULL, take_label },
    { "db", "PATH|URL", VP_SCOPE_SESSION,
      "results database: a SQLite file or postgresql://USER@HOST/DB  [$VIRTPERF_DB or "
      "~/.local/share/virtperf/results.db]",
      "The results database: a SQLite file (made with its directories on first use), or a\n"
      "PostgreSQL site store, \fBpostgresql://\fR[\fIUSER\fR\fB@\fR]\fIHOST\fR[\fB:\fR\fIPORT\fR]\fB/\fR\fIDATABASE\fR,\n"
      "shared by many hosts (its password from ~/.pgpass, \fBPGPASSFILE\fR or \fBPGPASSWORD\fR,\n"
      "never in the URL). Default: \fB$VIRTPERF_DB\fR, else ~/.local/share/virtperf/results.db.", take_db },
    { "json", "FILE|-", VP_SCOPE_SESSION, "also write the run's JSON document (- for stdout)",
      "Also write the run's JSON document; \\fB\\-\\fR is stdout (tables then go to stderr).\n"
      "Files are written whole or not at all.", take_json },
    { "monitor-hz", "HZ", VP_SCOPE_STEP, "monitor sampling rate, 0.1..1000  [10]", NULL,
      take_monitor_hz },
    { "watch", "NAME", VP_SCOPE_STEP,
      "also monitor the CPU use of processes named NAME (repeatable)",
      "Also monitor the CPU use of processes whose command name is \\fINAME\\fR (repeatable).",
      take_watch },
    { "quiet", NULL, VP_SCOPE_SESSION, "no progress line", NULL, take_quiet },
    { "background", "BENCH", VP_SCOPE_COMMAND,
      "run BENCH (a watch: net.probe) beside all the others, from\n"
      "before the first to after the last (at most 1 h)",
      "Run \\fIBENCH\\fR, a watch that runs until stopped (\\fBnet.probe\\fR), in a process of\n"
      "its own beside every other benchmark of the run, from before the first to after the\n"
      "last (at most one hour, one job): an interruption measured while the machine is busy.\n"
      "It takes the run's benchmark options like the others and is stored as one result more.",
      take_background },
    { "plan", "FILE", VP_SCOPE_PLAN,
      "run a plan file instead (INI: [global] and one section per\n"
      "step, keys named as these flags; see plans/); with it:",
      "Run a plan file instead of a command line (see PLAN FILES); with it only\n"
      "\\fB\\-\\-set\\fR, \\fB\\-\\-dry\\-run\\fR, \\fB\\-\\-label\\fR, \\fB\\-\\-db\\fR, "
      "\\fB\\-\\-json\\fR\nand \\fB\\-\\-quiet\\fR are taken.", take_plan },
    { "set", "STEP.KEY=V", VP_SCOPE_PLAN, "override or add a key of the plan (repeatable)",
      "Override or add one key of the plan (\\fBglobal.reps=3\\fR, \\fBdisk.size=1g\\fR);\n"
      "repeatable; kept with the stored plan text.", take_set },
    { "dry-run", NULL, VP_SCOPE_PLAN, "print the command lines the plan stands for, run nothing",
      "Print the \\fBvirtperf run\\fR command line each step of the plan stands for, and run "
      "nothing.", take_dry_run },
    { "here", NULL, VP_SCOPE_PLAN,
      "(plan-check) also check the plan against this machine", NULL, take_here },
    { "no-guests", NULL, VP_SCOPE_PLAN,
      "run every step on this host: the plan's guests, containers and\n"
      "and-host keys left out (each said in a note)",
      "Run every step of the plan on this host as written: its \\fBguests\\fR, "
      "\\fBcontainers\\fR\nand \\fBand\\-host\\fR keys are left out, each said in a note, so a "
      "study plan\nruns where libvirt or podman does not.", take_no_guests },
    { "ranks", "SPEC", VP_SCOPE_MPI,
      "run on the first k ranks, for each k of SPEC (1..4, 1,2,4),\n"
      "the others idle  [every rank]", NULL, take_ranks },
    { "topology", "T", VP_SCOPE_MPI | VP_SCOPE_FLEET,
      "network benchmarks between ranks (virtperf-mpi) or between\n"
      "this host (rank 0) and its guests or containers (1..k):\n"
      "matrix (each ordered pair alone), pairs (rank i to i+k/2 at\n"
      "once), fan-in (every rank to rank 0 at once), fan-out (the\n"
      "same, rank 0 sending), outside (rank 0 to each rank in turn);\n"
      "with guests, matrix --peer HOST adds that host's server as\n"
      "one more end [mpi: each rank to its own loopback server;\n"
      "guests: fan-in, net.probe outside]", NULL, take_topology },
    { "start-with", "S", VP_SCOPE_MPI,
      "instant: each repetition at an instant rank 0 picks, on\n"
      "every rank's clock; barrier: when MPI_Barrier returns (for\n"
      "comparison; blind to a dead rank)  [instant]", NULL, take_start_with },
    { "guests", "SPEC", VP_SCOPE_SESSION,
      "run in guests virtperf starts (libvirt): 4, 1,2,4 or 1..8, one\n"
      "result per count, the guests started together  [none]",
      "Runs the benchmarks in throwaway guests virtperf starts through libvirt (one\n"
      "transient domain each, booted straight into virtperf), for each count of SPEC\n"
      "(\\fB4\\fR, \\fB1,2,4\\fR, \\fB1..8\\fR), every guest's jobs started at one instant;\n"
      "one result per count, with each guest under ranks.hosts and the host's own monitor\n"
      "and each guest's QEMU CPU. See GUESTS.", take_guests },
    { "guest-cpus", "N", VP_SCOPE_SESSION, "vCPUs per guest  [1]", NULL, take_guest_cpus },
    { "guest-memory", "MiB", VP_SCOPE_SESSION, "memory per guest, MiB  [512]", NULL,
      take_guest_memory },
    { "guest-accel", "A", VP_SCOPE_SESSION,
      "auto (kvm where it runs a guest, else tcg, said), kvm or tcg  [auto]", NULL,
      take_guest_accel },
    { "guest-timeout", "S", VP_SCOPE_SESSION,
      "seconds a guest may take to boot or to answer  [300]", NULL, take_guest_timeout },
    { "libvirt-uri", "URI", VP_SCOPE_SESSION, "libvirt's  [qemu:///system]", NULL,
      take_libvirt_uri },
    { "guest-cpu-cap", "PCT[@N]", VP_SCOPE_SESSION,
      "each vCPU of every guest (of guest N only) at most PCT% of a\n"
      "host CPU (libvirt's cputune quota)  [no cap]", NULL, take_guest_cpu_cap },
    { "guest-pin", "SPEC", VP_SCOPE_SESSION,
      "the guests' vCPUs onto this host's CPUs (libvirt's vcpupin), in\n"
      "guest order: compact, spread or a CPU list  [not pinned]", NULL, take_guest_pin },
    { "guest-programs", "PATHS", VP_SCOPE_SESSION,
      "this host's programs, files or directories (comma-separated,\n"
      "absolute) put in the guests' or containers' image at the same\n"
      "paths, a program with its libraries  [what the benchmarks need]",
      "Puts this host's programs, files or directories (absolute paths, comma-separated) into\n"
      "the image the guests boot or the containers run, at the same paths: a program with\n"
      "its libraries (and a script with its interpreter), a directory whole. What the\n"
      "benchmarks need is put in without it: \\fBapp \\-\\-preset\\fR's programs and their\n"
      "files, \\fBapp \\-\\-cmd\\fR's program; give here what \\fB\\-\\-cmd\\fR reads or starts.",
      take_guest_programs },
    { "guest-net", "BRIDGE", VP_SCOPE_SESSION,
      "a NIC on this existing bridge, each guest an address next\n"
      "to the bridge's own  [no NIC]", NULL, take_guest_net },
    { "guest-disk", "DIR", VP_SCOPE_SESSION,
      "a disk image per guest made in DIR (ext4, at /mnt/disk in\n"
      "the guest, its working directory), removed afterwards; a\n"
      "container's working directory /work is made there  [none; /work: here]", NULL,
      take_guest_disk },
    { "guest-disk-size", "SIZE", VP_SCOPE_SESSION, "each guest disk's size  [1G]", NULL,
      take_guest_disk_size },
    { "guest-disk-bus", "B", VP_SCOPE_SESSION, "virtio or ide (emulated)  [virtio]", NULL,
      take_guest_disk_bus },
    { "and-host", NULL, VP_SCOPE_SESSION,
      "with --guests or --containers: as many jobs on this host as\n"
      "there are guests, repetitions alternating host, guests (ABAB)",
      "Also runs each point on this host, with as many jobs as the count's guests or\n"
      "containers run in all, its repetitions alternating with theirs (host, guests, host,\n"
      "guests...), so that a drift of the machine becomes neither side's penalty: the\n"
      "IHEP 2010 study's processes on the hypervisor against its VMs. Each point gives\n"
      "two results, \\fBside\\fR host and guests; \\fBvirtperf compare RUN\\fR pairs them.\n"
      "With \\fB\\-\\-guest\\-disk\\fR DIR the host's jobs work in DIR. Not with net\n"
      "benchmarks yet.", take_and_host },
    { "containers", "SPEC", VP_SCOPE_SESSION,
      "run in containers virtperf starts (podman or docker): 4, 1,2,4 or 1..8,\n"
      "one result per count, started together  [none]",
      "Runs the benchmarks in containers virtperf starts through podman or docker, from a root\n"
      "directory of this virtperf and its libraries (no registry), for each count of SPEC,\n"
      "as \\fB\\-\\-guests\\fR does with guests. See GUESTS.", take_containers },
    { "container-engine", "E", VP_SCOPE_SESSION, "podman or docker  [podman]", NULL,
      take_container_engine },
    { "container-runtime", "R", VP_SCOPE_SESSION,
      "runc or crun  [runc where installed, else the engine's]", NULL, take_container_runtime },
    { "container-net", "N", VP_SCOPE_SESSION,
      "host (this host's network), bridge (the engine's default) or NETWORK (one made with\n"
      "podman/docker network create)  [host]", NULL, take_container_net },
    { "help", NULL, VP_SCOPE_COMMAND, "this text", NULL, take_help },
};
const size_t vp_run_flag_count = sizeof vp_run_flags / sizeof vp_run_flags[0];

/* The settings of members (every kind's; kinds.h says which kind takes which), and
 * whether each was given. */
#define MEMBER_SETTINGS 16
struct member_setting {
    const char *flag;
    bool given;
};

/* Fills settings (their flags in the order they are judged); returns how many. */
static size_t member_settings(const struct vp_guests_request *asked,
                              struct member_setting settings[static MEMBER_SETTINGS])
{
    const struct member_setting all[MEMBER_SETTINGS] = {
        { "--and-host", asked->and_host },
        { "--guest-cpus", asked->cpus }, { "--guest-memory", asked->memory_mib },
        { "--guest-accel", asked->accel }, { "--libvirt-uri", asked->uri },
        { "--guest-net", asked->bridge }, { "--guest-pin", asked->pin },
        { "--guest-cpu-cap", asked->cpu_cap_pct },
        { "--guest-disk-size", asked->disk_bytes },
        { "--guest-disk-bus", asked->disk_bus },
        { "--guest-disk", asked->disk_dir },
        { "--guest-programs", asked->programs },
        { "--guest-timeout", asked->timeout_s },
        { "--container-engine", asked->container_engine },
        { "--container-runtime", asked->container_runtime },
        { "--container-net", asked->container_net },
    };
    memcpy(settings, all, sizeof all);
    return MEMBER_SETTINGS;
}

bool vp_run_member_setting(const char *key)
{
    struct member_setting settings[MEMBER_SETTINGS];
    size_t count = member_settings(&(struct vp_guests_request){ .kind = NULL }, settings);
    for (size_t s = 0; s < count; s++)
        if (strcmp(settings[s].flag + 2, key) == 0)
            return true;
    return false;
}

int vp_run_members_check(const struct vp_guests_request *asked, bool members_here,
                         const struct vp_env_kind *running, char *err, size_t err_len)
{
    if (asked->kind && !members_here) {
        snprintf(err, err_len, "%s: virtperf-mpi starts no guests or containers yet; "
                 "accepted: virtperf run ... %s on one host", asked->kind->flag,
                 asked->kind->flag);
        return -1;
    }
    struct member_setting settings[MEMBER_SETTINGS];
    size_t count = member_settings(asked, settings);
    for (size_t f = 0; f < count; f++) {
        const char *flag = settings[f].flag;
        if (!settings[f].given || (members_here && running && vp_env_kind_takes(running, flag)))
            continue;
        if (!members_here) {
            snprintf(err, err_len, "%s: virtperf-mpi starts no guests or containers yet; "
                     "accepted: virtperf run ... %s on one host", flag, flag);
            return -1;
        }
        /* the kinds that take it: "guests" and --guests, or "guests or containers" */
        const struct vp_env_kind *taker = NULL;
        size_t takers = 0;
        for (size_t k = 0; vp_env_kinds[k]; k++)
            if (vp_env_kind_takes(vp_env_kinds[k], flag) && takers++ == 0)
                taker = vp_env_kinds[k];
        char names[128];
        if (takers == 1)
            snprintf(names, sizeof names, "%s", taker->name);
        else
            vp_env_kinds_list(false, names, sizeof names);
        snprintf(err, err_len, "%s: only for the %s of a run; accepted: %s SPEC %s ...", flag,
                 names, taker ? taker->flag : "--guests", flag);
        return -1;
    }
    return 0;
}

const struct vp_run_flag *vp_run_flag_find(const char *name)
{
    for (size_t i = 0; i < vp_run_flag_count; i++)
        if (strcmp(vp_run_flags[i].name, name) == 0)
            return &vp_run_flags[i];
    return NULL;
}

int vp_run_take(struct vp_run_request *request, const struct vp_run_flag *flag,
                const char *value, char *err, size_t err_len)
{
    if (!flag->argument && strcmp(value, "on") != 0 && strcmp(value, "true") != 0)
        return 0;
    return flag->take(request, value, err, err_len);
}

/* Every distinct option of every benchmark (by name), for getopt_long. */
static size_t collect_bench_options(const struct vp_option **found, size_t cap)
{
    size_t count = 0;
    for (size_t b = 0; b < vp_bench_count; b++) {
        for (size_t o = 0; o < vp_benches[b]->option_count; o++) {
            const struct vp_option *option = &vp_benches[b]->options[o];
            bool seen = false;
            for (size_t i = 0; i < count; i++)
                seen = seen || strcmp(found[i]->name, option->name) == 0;
            if (!seen && count < cap)
                found[count++] = option;
        }
    }
    return count;
}

void vp_run_flag_names(unsigned scopes, const char *prefix, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < vp_run_flag_count && used < len; i++)
        if (vp_run_flags[i].scope & scopes)
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "",
                                     prefix, vp_run_flags[i].name);
}

/* The refusal of a word getopt did not take. */
static int refuse_word(const char *command, const char *word, unsigned scopes, char *err,
                       size_t err_len)
{
    char name[64];
    snprintf(name, sizeof name, "%s", word + (strncmp(word, "--", 2) == 0 ? 2 : 0));
    name[strcspn(name, "=")] = '\0';
    const struct vp_run_flag *flag = vp_run_flag_find(name);
    if (!(scopes & VP_SCOPE_STEP)) {
        char accepted[400];
        vp_run_flag_names(scopes, "--", accepted, sizeof accepted);
        return refuse(err, err_len, "%s: '%s' is not taken with a plan; accepted: %s (the "
                      "rest goes in the plan)", command, word, accepted);
    }
    if (flag && flag->scope == VP_SCOPE_MPI)
        return refuse(err, err_len, "%s: --%s is virtperf-mpi's; accepted: mpirun -np N "
                      "virtperf-mpi run ... --%s, or a plan's %s key", command, name, name, name);
    if (flag && flag->scope == VP_SCOPE_PLAN)
        return refuse(err, err_len, "%s: --%s goes with --plan FILE only", command, name);
    return refuse(err, err_len, "%s: unknown or incomplete option '%s'; see 'virtperf run "
                  "--help' and 'virtperf list BENCH'", command, word);
}

#define FLAG_BASE 1000 /* getopt's codes: above any character it returns ('?', ':') */

int vp_run_parse(struct vp_run_request *request, int argc, char **argv, unsigned scopes,
                 char *err, size_t err_len)
{
    const struct vp_option *bench_options[VP_MAX_OPTIONS * 16];
    size_t bench_option_count = scopes & VP_SCOPE_STEP
                                    ? collect_bench_options(bench_options, VP_MAX_OPTIONS * 16)
                                    : 0;
    struct option *options = calloc(vp_run_flag_count + bench_option_count + 1, sizeof *options);
    if (!options)
        abort();
    size_t count = 0;
    for (size_t i = 0; i < vp_run_flag_count; i++)
        if (vp_run_flags[i].scope & scopes)
            options[count++] = (struct option){ vp_run_flags[i].name,
                                                vp_run_flags[i].argument ? required_argument
                                                                         : no_argument,
                                                NULL, FLAG_BASE + (int)i };
    int bench_base = FLAG_BASE + (int)vp_run_flag_count;
    for (size_t i = 0; i < bench_option_count; i++)
        options[count++] = (struct option){
            bench_options[i]->name,
            vp_option_is_flag(bench_options[i]) ? optional_argument : required_argument, NULL,
            bench_base + (int)i };

    *request = (struct vp_run_request){ .monitor_hz = 10 };
    struct vp_plan_request *plan = &request->plan;
    int status = 0;
    opterr = 0;
    optind = 0; /* a plan file parses one command line per step */
    int option;
    while (status == 0 && (option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (option == '?' || option == ':')
            status = refuse_word(argv[0], argv[optind - 1], scopes, err, err_len);
        else if (option < bench_base)
            status = vp_run_flags[option - FLAG_BASE].take(request, optarg, err, err_len);
        else if (plan->option_count == VP_PLAN_MAX_OPTIONS)
            status = refuse(err, err_len, "run: too many benchmark options (at most %d)",
                            VP_PLAN_MAX_OPTIONS);
        else
            plan->options[plan->option_count++] = (struct vp_plan_option){
                bench_options[option - bench_base]->name, optarg ? optarg : "on" };
    }
    free(options);
    if (status != 0)
        return -1;
    size_t words = (size_t)(argc - optind);
    if (words + (request->background != NULL) > VP_RUN_MAX_WORDS)
        return refuse(err, err_len, "%s: at most %d benchmarks on one command line", argv[0],
                      VP_RUN_MAX_WORDS - 1);
    memcpy(request->words, argv + optind, words * sizeof *request->words);
    if (request->background) /* its options are the run's: it joins the plan's words */
        request->words[words++] = (char *)request->background;
    plan->words = request->words;
    plan->word_count = words;
    return 0;
}

/* The benchmarks with a property, comma-separated ("time.timer, ..."). */
static void names_where(bool (*has)(const struct vp_bench *), char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t b = 0; b < vp_bench_count; b++) {
        if (vp_benches[b]->hidden || !has(vp_benches[b]))
            continue;
        strncat(buf, buf[0] ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, vp_benches[b]->name, len - strlen(buf) - 1);
    }
}

static bool per_cpu(const struct vp_bench *bench) { return bench->one_job_per_cpu; }
static bool watches(const struct vp_bench *bench) { return bench->one_observation; }
static bool quick(const struct vp_bench *bench) { return bench->in_quick_suite; }

/* text with {quick}, {per-cpu}, {watch} and {max-reps} replaced. */
static void expand(const char *text, FILE *out)
{
    static const char *const names[] = { "{quick}", "{per-cpu}", "{watch}", "{max-reps}" };
    static bool (*const lists[])(const struct vp_bench *) = { quick, per_cpu, watches, NULL };
    while (*text) {
        size_t n = 0;
        while (n < 4 && strncmp(text, names[n], strlen(names[n])) != 0)
            n++;
        if (n == 4) {
            fputc(*text++, out);
            continue;
        }
        char list[256];
        if (lists[n])
            names_where(lists[n], list, sizeof list);
        else
            snprintf(list, sizeof list, "%d", VP_MAX_REPS);
        fputs(list, out);
        text += strlen(names[n]);
    }
}

void vp_run_print_flags(FILE *out, unsigned scopes, unsigned listed)
{
    for (size_t i = 0; i < vp_run_flag_count; i++) {
        const struct vp_run_flag *flag = &vp_run_flags[i];
        if (!(flag->scope & scopes) || (flag->scope & listed))
            continue;
        char head[40];
        snprintf(head, sizeof head, "--%s%s%s", flag->name, flag->argument ? " " : "",
                 flag->argument ? flag->argument : "");
        fprintf(out, "  %-18s ", head);
        for (const char *line = flag->help; *line;) {
            size_t len = strcspn(line, "\n");
            char piece[200];
            snprintf(piece, sizeof piece, "%.*s", (int)len, line);
            expand(piece, out);
            fputc('\n', out);
            line += len + (line[len] == '\n');
            if (*line)
                fprintf(out, "%21s", "");
        }
    }
}

void vp_run_print_usage(FILE *out, unsigned listed)
{
    fputs("usage: virtperf run [BENCH...] [options] [--BENCH-OPTION=VALUE...]\n"
          "\n"
          "Runs each BENCH (a name such as mem.stream, a family such as mem, disk or vcost.*, a\n"
          "preset such as dd or iozone) at every job count of --jobs, stores each result and\n"
          "prints a table. No BENCH: the quick suite (", out);
    expand("{quick}", out);
    fputs(").\n'virtperf list BENCH' shows a benchmark's own options; 'virtperf list' the "
          "presets.\n\n", out);
    vp_run_print_flags(out, VP_SCOPE_SESSION | VP_SCOPE_STEP | VP_SCOPE_PLAN |
                                VP_SCOPE_COMMAND | VP_SCOPE_FLEET, listed);
}

void vp_run_print_manual(FILE *out)
{
    fputs(".SH RUN OPTIONS\n", out);
    for (size_t i = 0; i < vp_run_flag_count; i++) {
        const struct vp_run_flag *flag = &vp_run_flags[i];
        if (strcmp(flag->name, "help") == 0)
            continue;
        if (flag->manual) {
            vp_roff_flag(out, flag->name, flag->argument, flag->manual);
            continue;
        }
        char *help;
        size_t len;
        FILE *text = open_memstream(&help, &len);
        if (!text)
            abort();
        if (flag->scope == VP_SCOPE_MPI)
            fputs("virtperf-mpi run (and a plan's step): ", text);
        expand(flag->help, text);
        fclose(text);
        vp_roff_flag_text(out, flag->name, flag->argument, help);
        free(help);
    }
    fputs(".PP\nBenchmark options (\\fB\\-\\-size=256m\\fR, \\fB\\-\\-passes=200\\fR, "
          "\\fB\\-\\-mode=byte\\fR ...)\ncome from each benchmark's table: see \\fBvirtperf "
          "list\\fR \\fIBENCH\\fR. Sizes take\nk, m, g, t (powers of 1024); counts take k, m, g "
          "(powers of 1000).\n", out);
}
