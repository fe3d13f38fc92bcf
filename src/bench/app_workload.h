/* The workloads that ship with virtperf for `app --preset`: real programs from Debian
 * packages (xz, gcc, sqlite3, python3) on inputs generated from a fixed seed, each output
 * checked, each with the one-job wall time of a reference machine so that a run can be
 * scored as speed relative to it (the way HEPscore and SPEC combine workloads). */
#ifndef VP_APP_WORKLOAD_H
#define VP_APP_WORKLOAD_H

#include <limits.h>
#include <stddef.h>

#define VP_WORKLOAD_CHOICES "xz|gcc|sqlite|python"
#define VP_WORKLOAD_MAX_WORDS 16

/* One run of a workload's program: argv, and where its stdin and stdout go. */
struct vp_workload_command {
    char *words[VP_WORKLOAD_MAX_WORDS];
    char storage[3 * PATH_MAX];
    char stdin_path[PATH_MAX];  /* "" : /dev/null */
    char stdout_path[PATH_MAX]; /* "" : the pipe the app benchmark keeps */
};

struct vp_workload {
    const char *name;
    const char *program; /* absolute path: Debian's program, not one earlier in PATH */
    const char *package;
    /* What else of this host the program needs in a guest or container, as glob patterns
     * (NULL-terminated; NULL: the program and its libraries are enough). */
    const char *const *files;
    const char *stresses; /* what it exercises, for `virtperf list app` and the docs */
    /* Median one-job wall time on the reference machine (docs/app-workloads.md says which):
     * score = reference_seconds / measured wall time. */
    double reference_seconds;
    /* Untimed, once per result in the parent: writes the inputs into dir (which exists)
     * and keeps what a correct output is. 0, or -1 with err. */
    int (*generate)(const char *dir, char *err, size_t err_len);
    /* The command a job runs; job_dir is its own empty directory under dir. */
    void (*command)(const char *dir, const char *job_dir, struct vp_workload_command *command);
    /* After the program exited 0: whether its output is right (output: the end of its
     * stdout). 0, or -1 with what was wrong in err. */
    int (*check)(const char *dir, const char *job_dir, const char *output, char *err,
                 size_t err_len);
};

extern const struct vp_workload vp_workloads[];
extern const size_t vp_workload_count;

/* The workload called name, or NULL. */
const struct vp_workload *vp_workload_find(const char *name);

#endif
