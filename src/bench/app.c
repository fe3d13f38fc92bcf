/* app: the user's own program as a benchmark (the CNAF study's seconds per event of a
 * simulation, the IHEP study's real programs). Every job runs --cmd as a fresh process in
 * each repetition, started at the common instant and pinned like any job; the figures are
 * the process's own: wall time, user and system CPU, max RSS, faults and context switches
 * (wait4's rusage), seconds per event (--events N, or the number --events-regex captures
 * from its output), and from perf events its effective clock and instructions per cycle
 * where the hypervisor exposes the hardware counters (a warning says when it does not).
 * A non-zero exit, a signal or --timeout fails the result with the end of its stderr.
 * --preset runs a workload that ships with virtperf instead (app_workload.c): its input
 * generated before the jobs start, its output checked after every run, and a score
 * against the reference machine's time.
 * The command runs in a process group of its own that dies with its job and is killed
 * at the end of every result, Ctrl-C included. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/app_process.h"
#include "bench/app_workload.h"
#include "bench/bench.h"
#include "core/argv.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/scratch.h"

#define MAX_WORDS 256

static const struct vp_option app_options[] = {
    { "preset", VP_OPT_CHOICE_LIST, "", 0, 0, VP_WORKLOAD_CHOICES,
      "instead of --cmd, workloads that ship with virtperf (all: every one), each a "
      "result: generated input, checked output, a score against a reference machine" },
    { "cmd", VP_OPT_TEXT, "none", 0, 0, NULL,
      "the program and its arguments, split on blanks ('...' and \"...\" keep blanks, \\ "
      "escapes); no shell unless --shell" },
    { "shell", VP_OPT_CHOICE, "off", 0, 0, "off|on", "run --cmd with /bin/sh -c" },
    { "cwd", VP_OPT_TEXT, ".", 0, 0, NULL, "directory the program runs in" },
    { "env", VP_OPT_TEXT, "none", 0, 0, NULL,
      "K=V settings added to its environment, separated by blanks" },
    { "events", VP_OPT_COUNT, "0", 0, 1000000000000ULL, NULL,
      "events one run of the program processes (0: none; gives time_per_event)" },
    { "events-regex", VP_OPT_TEXT, "none", 0, 0, NULL,
      "an extended regex with one capture group: the number of events, read from the "
      "last match in the program's output" },
    { "timeout", VP_OPT_DURATION, "0", 0, 86400, NULL,
      "kill the program (its whole process group) after this long and fail (0: never)" },
};

enum app_metric {
    APP_WALL, APP_USER, APP_SYSTEM, APP_MAX_RSS, APP_MAJOR_FAULTS, APP_MINOR_FAULTS,
    APP_VOLUNTARY, APP_INVOLUNTARY, APP_PER_EVENT, APP_GHZ, APP_IPC, APP_SCORE, APP_METRIC_COUNT
};

static const struct vp_metric app_metrics[] = {
    [APP_WALL] = { "wall_time", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                   "start to exit of the program" },
    [APP_USER] = { "cpu_user", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN, "user CPU time (rusage)" },
    [APP_SYSTEM] = { "cpu_system", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                     "system CPU time (rusage)" },
    [APP_MAX_RSS] = { "max_rss", "B", VP_LOWER_IS_BETTER, VP_AGG_MAX, "largest resident set" },
    [APP_MAJOR_FAULTS] = { "major_faults", "faults", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                           "page faults that read from storage" },
    [APP_MINOR_FAULTS] = { "minor_faults", "faults", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                           "page faults served from memory" },
    [APP_VOLUNTARY] = { "ctxsw_voluntary", "switches", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                        "context switches it asked for (waiting)" },
    [APP_INVOLUNTARY] = { "ctxsw_involuntary", "switches", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                          "context switches forced on it (preempted)" },
    [APP_PER_EVENT] = { "time_per_event", "s", VP_LOWER_IS_BETTER, VP_AGG_MEAN,
                        "wall time over the events (--events or --events-regex)" },
    [APP_GHZ] = { "ghz", "GHz", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
                  "effective clock: cycles over task-clock time (perf events)" },
    [APP_IPC] = { "ipc", "instr/cycle", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
                  "instructions per cycle (perf events)" },
    [APP_SCORE] = { "score", "x", VP_HIGHER_IS_BETTER, VP_AGG_MEAN,
                    "--preset: the reference machine's one-job time over this wall time" },
};
_Static_assert(sizeof app_metrics / sizeof app_metrics[0] == APP_METRIC_COUNT,
               "one app metric per slot");

/* Each job's running process group, in memory the parent shares with the jobs, so
 * teardown kills what a killed job left (its grandchildren outlive PR_SET_PDEATHSIG). */
static pid_t *running_groups;
static unsigned group_slots;

/* The --preset workload's inputs, made by setup in the parent and inherited by the jobs;
 * each job works in its own directory under it. */
static char workload_dir[PATH_MAX];

static const struct vp_workload *workload_of(const struct vp_params *params)
{
    return vp_workload_find(vp_param_text(params, "preset"));
}

static void job_dir_of(const struct vp_job *job, char *buf, size_t len)
{
    snprintf(buf, len, "%.4000s/job%u", workload_dir, job->index);
}

/* The command's argv (words[0] is the program), from --cmd, for --shell sh -c, or the
 * workload's; and the files its stdin and stdout are, where not /dev/null and the pipe. */
struct command {
    char *words[MAX_WORDS];
    char storage[VP_TEXT_LEN + 8];
    struct vp_workload_command workload;
    const char *stdin_path, *stdout_path;
};

static int command_of(const struct vp_params *params, const char *job_dir,
                      struct command *command, char *err, size_t err_len)
{
    const char *text = vp_param_text(params, "cmd");
    command->stdin_path = command->stdout_path = NULL;
    const struct vp_workload *workload = workload_of(params);
    if (workload) {
        workload->command(workload_dir, job_dir, &command->workload);
        memcpy(command->words, command->workload.words, sizeof command->workload.words);
        command->stdin_path = command->workload.stdin_path[0] ? command->workload.stdin_path : NULL;
        command->stdout_path = command->workload.stdout_path[0] ? command->workload.stdout_path : NULL;
        return 0;
    }
    if (strcmp(text, "none") == 0) {
        snprintf(err, err_len, "app needs --cmd: the program to run, such as --cmd "
                 "'gauss -n 100', or --preset %s|all", VP_WORKLOAD_CHOICES);
        return -1;
    }
    if (vp_param_on(params, "shell")) {
        command->words[0] = "/bin/sh";
        command->words[1] = "-c";
        command->words[2] = (char *)text;
        command->words[3] = NULL;
        return 0;
    }
    return vp_split_command(text, command->words, MAX_WORDS, command->storage,
                            sizeof command->storage, err, err_len) < 0 ? -1 : 0;
}

/* Where program runs from: itself when it names a path, else the first executable of that
 * name in the directories of search (a PATH). 0 with it in found, else -1. */
static int find_program(const char *program, const char *search, char *found, size_t len)
{
    if (strchr(program, '/')) {
        snprintf(found, len, "%s", program);
        return access(program, X_OK) == 0 ? 0 : -1;
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", search);
    char *save, *dir;
    for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(found, len, "%s/%s", *dir ? dir : ".", program);
        if (access(found, X_OK) == 0)
            return 0;
    }
    return -1;
}

static const char *search_path(void)
{
    const char *path = getenv("PATH");
    return path ? path : "/usr/bin:/bin";
}

static int app_validate(const struct vp_params *params, unsigned max_jobs, char *err,
                        size_t err_len)
{
    (void)max_jobs;
    const struct vp_workload *workload = workload_of(params);
    if (workload) {
        if (strcmp(vp_param_text(params, "cmd"), "none") != 0 || vp_param_on(params, "shell") ||
            vp_param_number(params, "events") || strcmp(vp_param_text(params, "events-regex"), "none") != 0) {
            snprintf(err, err_len, "--preset %s: accepted without --cmd, --shell, --events and "
                     "--events-regex (a workload is its own command)", workload->name);
            return -1;
        }
        if (access(workload->program, X_OK) != 0) {
            snprintf(err, err_len, "--preset %s: %s is not installed; accepted: install Debian's "
                     "%s (scripts/deps.sh presets)", workload->name, workload->program,
                     workload->package);
            return -1;
        }
        return 0;
    }
    struct command command;
    if (command_of(params, ".", &command, err, err_len) != 0)
        return -1;
    char found[PATH_MAX];
    if (!vp_param_on(params, "shell") &&
        find_program(command.words[0], search_path(), found, sizeof found) != 0) {
        snprintf(err, err_len, "--cmd: '%s' is not an executable file or a program in PATH",
                 command.words[0]);
        return -1;
    }
    struct stat info;
    const char *cwd = vp_param_text(params, "cwd");
    if (stat(cwd, &info) != 0 || !S_ISDIR(info.st_mode)) {
        snprintf(err, err_len, "--cwd %s: no such directory; accepted: an existing directory",
                 cwd);
        return -1;
    }
    const char *regex_text = vp_param_text(params, "events-regex");
    if (strcmp(regex_text, "none") != 0) {
        regex_t regex;
        bool compiled = regcomp(&regex, regex_text, REG_EXTENDED) == 0;
        bool one_group = compiled && regex.re_nsub == 1;
        if (compiled)
            regfree(&regex);
        if (!one_group) {
            snprintf(err, err_len, "--events-regex: '%s' is not valid; accepted: an extended "
                     "regex with exactly one capture group, such as 'events: ([0-9]+)'",
                     regex_text);
            return -1;
        }
    }
    const char *env = vp_param_text(params, "env");
    if (strcmp(env, "none") != 0) {
        char copy[VP_TEXT_LEN], *save, *setting;
        snprintf(copy, sizeof copy, "%s", env);
        for (setting = strtok_r(copy, " ", &save); setting; setting = strtok_r(NULL, " ", &save)) {
            if (!strchr(setting, '=') || setting[0] == '=') {
                snprintf(err, err_len, "--env: '%s' is not valid; accepted: K=V settings "
                         "separated by blanks", setting);
                return -1;
            }
        }
    }
    return 0;
}

/* A member runs the workload's files, or --cmd's program, as the host does: its image
 * carries them at their paths here (--shell's text is the member's own sh's). */
static int app_member_files(const struct vp_params *params, struct vp_path_set *files, char *err,
                            size_t err_len)
{
    const struct vp_workload *workload = workload_of(params);
    if (workload) {
        vp_path_set_add(files, workload->program);
        for (const char *const *pattern = workload->files; pattern && *pattern; pattern++) {
            glob_t found;
            if (glob(*pattern, 0, NULL, &found) != 0) {
                snprintf(err, err_len, "--preset %s: nothing here is %s, which its program "
                         "needs in a guest or container; accepted: Debian's %s installed "
                         "(scripts/deps.sh presets)", workload->name, *pattern,
                         workload->package);
                return -1;
            }
            for (size_t i = 0; i < found.gl_pathc; i++)
                vp_path_set_add(files, found.gl_pathv[i]);
            globfree(&found);
        }
        return 0;
    }
    struct command command;
    if (vp_param_on(params, "shell") || command_of(params, ".", &command, err, err_len) != 0)
        return vp_param_on(params, "shell") ? 0 : -1;
    const char *program = command.words[0];
    char here[PATH_MAX], there[PATH_MAX];
    if (program[0] != '/' && strchr(program, '/')) {
        snprintf(err, err_len, "--cmd: '%s' is a path from this host's working directory, "
                 "which guests and containers do not share; accepted: its absolute path",
                 program);
        return -1;
    }
    if (find_program(program, search_path(), here, sizeof here) != 0)
        return 0; /* validate refuses it */
    if (find_program(program, VP_MEMBER_PATH, there, sizeof there) != 0 ||
        strcmp(here, there) != 0) {
        snprintf(err, err_len, "--cmd: '%s' is %s here, but a guest or container looks for "
                 "it in %s; accepted: --cmd with its absolute path", program, here,
                 VP_MEMBER_PATH);
        return -1;
    }
    vp_path_set_add(files, here);
    return 0;
}

/* Removes the workload's directory and everything the jobs left in it. */
static void remove_workload_dir(void)
{
    if (workload_dir[0])
        vp_scratch_remove(workload_dir);
    workload_dir[0] = '\0';
}

static int app_setup(const struct vp_params *params, char *err, size_t err_len)
{
    const struct vp_workload *workload = workload_of(params);
    if (workload) {
        const char *tmp = getenv("TMPDIR");
        char why[VP_ERROR_LEN];
        if (vp_scratch_make(tmp && *tmp ? tmp : "/tmp", "virtperf-app", workload_dir,
                            sizeof workload_dir, why, sizeof why) != 0) {
            snprintf(err, err_len, "app --preset: in %s: %s", tmp && *tmp ? tmp : "/tmp", why);
            return -1;
        }
        if (workload->generate(workload_dir, err, err_len) != 0)
            return -1;
    }
    group_slots = VP_MAX_JOBS;
    running_groups = mmap(NULL, group_slots * sizeof *running_groups, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (running_groups == MAP_FAILED) {
        running_groups = NULL;
        snprintf(err, err_len, "app: cannot map the process-group table");
        return -1;
    }
    return 0;
}

static void app_teardown(const struct vp_params *params, unsigned jobs)
{
    (void)params;
    (void)jobs;
    if (running_groups) {
        for (unsigned i = 0; i < group_slots; i++)
            if (running_groups[i] > 0)
                kill(-running_groups[i], SIGKILL);
        munmap(running_groups, group_slots * sizeof *running_groups);
        running_groups = NULL;
    }
    remove_workload_dir();
}

/* The program's environment: ours with --env's settings over it, built before vfork
 * (the child shares this process's memory until it execs: it must not allocate). */
struct environment {
    char **entries;
    char storage[VP_TEXT_LEN];
};

static void environment_build(const struct vp_params *params, struct environment *environment)
{
    extern char **environ;
    size_t count = 0;
    while (environ[count])
        count++;
    environment->entries = calloc(count + VP_TEXT_LEN / 2 + 1, sizeof *environment->entries);
    if (!environment->entries)
        abort();
    size_t used = 0;
    const char *env = vp_param_text(params, "env");
    if (strcmp(env, "none") != 0) {
        snprintf(environment->storage, sizeof environment->storage, "%s", env);
        char *save, *setting;
        for (setting = strtok_r(environment->storage, " ", &save); setting;
             setting = strtok_r(NULL, " ", &save))
            environment->entries[used++] = setting;
    }
    size_t settings = used;
    for (size_t i = 0; i < count; i++) {
        size_t key = strcspn(environ[i], "=");
        bool overridden = false;
        for (size_t s = 0; s < settings && !overridden; s++)
            overridden = strncmp(environment->entries[s], environ[i], key + 1) == 0;
        if (!overridden)
            environment->entries[used++] = environ[i];
    }
    environment->entries[used] = NULL;
}

/* In the vfork child: its own process group that dies with the job, the directory, the
 * pipes or files, then exec. Only system calls: it runs in the job's memory. */
static _Noreturn void run_child(const struct vp_params *params, struct command *command,
                                char **environment, int out, int err_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(err_fd, STDERR_FILENO);
    int output = command->stdout_path
        ? open(command->stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600) : out;
    int input = open(command->stdin_path ? command->stdin_path : "/dev/null", O_RDONLY);
    if (output < 0 || input < 0) {
        dprintf(STDERR_FILENO, "app: cannot open %s: %s\n", output < 0 ? command->stdout_path
                : command->stdin_path, strerror(errno));
        _exit(126);
    }
    dup2(output, STDOUT_FILENO);
    dup2(input, STDIN_FILENO);
    if (chdir(vp_param_text(params, "cwd")) != 0) {
        dprintf(STDERR_FILENO, "app: cannot enter --cwd %s: %s\n", vp_param_text(params, "cwd"),
                strerror(errno));
        _exit(126);
    }
    execvpe(command->words[0], command->words, environment);
    dprintf(STDERR_FILENO, "app: cannot run %s: %s\n", command->words[0], strerror(errno));
    _exit(127);
}

/* The events the program reported: the capture of the last match in its stdout. */
static double events_from_output(const struct vp_params *params, const char *output)
{
    const char *regex_text = vp_param_text(params, "events-regex");
    double events = (double)vp_param_number(params, "events");
    if (strcmp(regex_text, "none") == 0)
        return events > 0 ? events : NAN;
    regex_t regex;
    if (regcomp(&regex, regex_text, REG_EXTENDED) != 0)
        return NAN;
    regmatch_t match[2];
    double found = NAN;
    for (const char *at = output; regexec(&regex, at, 2, match, at == output ? 0 : REG_NOTBOL) == 0;
         at += match[0].rm_eo > 0 ? match[0].rm_eo : 1) {
        char number[64];
        int len = (int)(match[1].rm_eo - match[1].rm_so);
        snprintf(number, sizeof number, "%.*s", len < 63 ? len : 63, at + match[1].rm_so);
        char *end;
        double value = strtod(number, &end);
        if (end != number && value > 0)
            found = value;
        if (!*at)
            break;
    }
    regfree(&regex);
    return found;
}

/* --preset: each job's own directory for what its program writes. */
static int app_prepare(struct vp_job *job)
{
    if (!workload_of(job->params))
        return 0;
    char job_dir[PATH_MAX];
    job_dir_of(job, job_dir, sizeof job_dir);
    if (mkdir(job_dir, 0700) != 0 && errno != EEXIST) {
        snprintf(job->error, sizeof job->error, "app --preset: cannot make %.150s: %s", job_dir,
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* --preset: what the program wrote goes, so that every repetition starts the same. */
static int app_after_rep(struct vp_job *job)
{
    if (!workload_of(job->params))
        return 0;
    char job_dir[PATH_MAX], path[PATH_MAX + 300];
    job_dir_of(job, job_dir, sizeof job_dir);
    DIR *dir = opendir(job_dir);
    struct dirent *entry;
    while (dir && (entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", job_dir, entry->d_name);
            unlink(path);
        }
    if (dir)
        closedir(dir);
    return 0;
}

static int app_measure(struct vp_job *job, double *values)
{
    struct command command;
    char job_dir[PATH_MAX];
    job_dir_of(job, job_dir, sizeof job_dir);
    if (command_of(job->params, job_dir, &command, job->error, sizeof job->error) != 0)
        return -1;
    int out[2], err_pipe[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        snprintf(job->error, sizeof job->error, "app: cannot make pipes: %s", strerror(errno));
        return -1;
    }
    struct environment environment;
    environment_build(job->params, &environment);
    /* Counters on this process, disabled, inherited by the child and enabled in it by its
     * exec: what they read after it exits is the program's and its children's alone. */
    struct vp_app_counters counters;
    vp_app_open_counters(0, &counters);
    /* vfork: no copy of this process's page tables (fork's cost, 0.3 ms here, would be
     * timed); this process waits until the program has started. */
    int64_t started = vp_now_ns();
    pid_t child = vfork();
    if (child == 0)
        run_child(job->params, &command, environment.entries, out[1], err_pipe[1]);
    free(environment.entries);
    close(out[1]);
    close(err_pipe[1]);
    if (child < 0) {
        snprintf(job->error, sizeof job->error, "app: cannot start a process: %s", strerror(errno));
        vp_app_close_counters(&counters);
        return -1;
    }
    setpgid(child, child); /* as the child did */
    if (running_groups && job->index < group_slots)
        running_groups[job->index] = child;

    static struct vp_app_tail stdout_tail, stderr_tail;
    stdout_tail.len = stderr_tail.len = 0;
    stdout_tail.data[0] = stderr_tail.data[0] = '\0';
    uint64_t timeout_ns = vp_param_number(job->params, "timeout");
    bool in_time = vp_app_drain(out[0], err_pipe[0], &stdout_tail, &stderr_tail,
                         timeout_ns ? started + (int64_t)timeout_ns : 0);
    if (!in_time)
        kill(-child, SIGKILL);
    int status;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR)
        ;
    int64_t ended = vp_now_ns();
    kill(-child, SIGKILL); /* what it left running in its group */
    if (running_groups && job->index < group_slots)
        running_groups[job->index] = 0;
    close(out[0]);
    close(err_pipe[0]);
    double task_clock_ns = vp_app_read_counter(counters.task_clock);
    double cycles = vp_app_read_counter(counters.cycles);
    double instructions = vp_app_read_counter(counters.instructions);
    vp_app_close_counters(&counters);

    char line[160];
    vp_app_last_line(stderr_tail.data, line, sizeof line);
    if (!in_time) {
        snprintf(job->error, sizeof job->error, "app: killed after --timeout %.3g s (its "
                 "process group); its last stderr line: %.150s", (double)timeout_ns / 1e9,
                 line[0] ? line : "(none)");
        return -1;
    }
    if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0) {
        char how[64];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
        else
            snprintf(how, sizeof how, "exited %d", WEXITSTATUS(status));
        snprintf(job->error, sizeof job->error, "app: the command %s; its last stderr line: %.150s",
                 how, line[0] ? line : "(none)");
        return -1;
    }
    const struct vp_workload *workload = workload_of(job->params);
    if (workload && workload->check(workload_dir, job_dir, stdout_tail.data, job->error,
                                    sizeof job->error) != 0)
        return -1;
    double wall = (double)(ended - started) / 1e9;
    values[APP_WALL] = wall;
    values[APP_USER] = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6;
    values[APP_SYSTEM] = (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
    values[APP_MAX_RSS] = (double)usage.ru_maxrss * 1024;
    values[APP_MAJOR_FAULTS] = (double)usage.ru_majflt;
    values[APP_MINOR_FAULTS] = (double)usage.ru_minflt;
    values[APP_VOLUNTARY] = (double)usage.ru_nvcsw;
    values[APP_INVOLUNTARY] = (double)usage.ru_nivcsw;
    double events = events_from_output(job->params, stdout_tail.data);
    values[APP_PER_EVENT] = isfinite(events) ? wall / events : NAN;
    values[APP_GHZ] = task_clock_ns > 0 && isfinite(cycles) ? cycles / task_clock_ns : NAN;
    values[APP_IPC] = cycles > 0 && isfinite(instructions) ? instructions / cycles : NAN;
    values[APP_SCORE] = workload && workload->reference_seconds > 0
                            ? workload->reference_seconds / wall : NAN;
    return 0;
}

/* Says once when the effective clock could not be measured, and why that matters. */
static void app_annotate(const struct vp_params *params, unsigned jobs, json_t *result)
{
    (void)params;
    (void)jobs;
    if (!json_object_get(json_object_get(result, "metrics"), "ghz"))
        vp_result_warn(result, "ghz and ipc not measured: hardware counters (cycles, "
                       "instructions) are not exposed here, by this hypervisor or by "
                       "perf_event_paranoid: itself a finding when comparing a guest");
    const char *regex_text = vp_param_text(params, "events-regex");
    if (strcmp(regex_text, "none") != 0 &&
        !json_object_get(json_object_get(result, "metrics"), "time_per_event"))
        vp_result_warn(result, "time_per_event not measured: --events-regex '%s' matched no "
                       "positive number in the program's output", regex_text);
}

const struct vp_bench vp_bench_app = {
    .name = "app",
    .summary = "your own program N-wide: wall and CPU time, RSS, faults, seconds per event, GHz",
    .description = "Each job runs --cmd as a fresh process every repetition, started at the "
                   "common instant and pinned like any job. Timed from fork to exit; CPU, "
                   "memory, faults and switches from wait4's rusage; seconds per event from "
                   "--events or --events-regex; effective GHz and IPC from perf events where "
                   "the hardware counters are exposed. A non-zero exit, a signal or --timeout "
                   "fails the result with its last stderr line. --preset runs workloads that "
                   "ship with virtperf instead, one result each: xz compressing generated "
                   "text, gcc compiling a generated C file, sqlite3 loading and querying a "
                   "database, python3 running an interpreter loop; each output is checked "
                   "after every run and score is the reference machine's time over this one.",
    .options = app_options,
    .option_count = sizeof app_options / sizeof app_options[0],
    .metrics = app_metrics,
    .metric_count = APP_METRIC_COUNT,
    .sweep_option = "preset",
    .sweep_param = "preset",
    .validate = app_validate,
    .setup = app_setup,
    .member_files = app_member_files,
    .prepare = app_prepare,
    .measure = app_measure,
    .after_rep = app_after_rep,
    .annotate = app_annotate,
    .teardown = app_teardown,
};
