/* Run's flags, declared once: each flag's name, argument, scope, help and manual text and
 * the function that takes its value. The one table drives getopt for `virtperf run` and
 * virtperf-mpi, `run --help`, the keys a plan file accepts where, and the manual's RUN
 * OPTIONS section. The parser fills err and returns -1 on bad input; only the command
 * layer exits. */
#ifndef VP_CMD_RUN_FLAGS_H
#define VP_CMD_RUN_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/scaling.h" /* struct vp_qos: --qos */
#include "run/kinds.h"
#include "engine/plan.h"
#include "core/limits.h"

#define VP_RUN_MAX_WATCH 8
#define VP_RUN_MAX_WORDS 64 /* benchmarks named on one command line, with --background */
#define VP_RUN_MAX_SETS 64

/* Where a flag is taken (a bit each). */
enum vp_run_scope {
    VP_SCOPE_SESSION = 1, /* the whole run: a command line, or a plan's [global] */
    VP_SCOPE_STEP = 2,    /* each step: a command line, or any section of a plan */
    VP_SCOPE_MPI = 4,     /* virtperf-mpi's: its command line, or any section of a plan */
    VP_SCOPE_PLAN = 8,    /* beside --plan FILE, on the command line only */
    VP_SCOPE_COMMAND = 16, /* a command line without a plan only */
    VP_SCOPE_FLEET = 32    /* a command line, between this host and its guests or containers */
};
#define VP_SCOPES_COMMAND_LINE (VP_SCOPE_SESSION | VP_SCOPE_STEP | VP_SCOPE_COMMAND | \
                                VP_SCOPE_FLEET)
#define VP_SCOPES_WITH_PLAN (VP_SCOPE_SESSION | VP_SCOPE_PLAN)

/* The members a run starts (--guests SPEC, --containers SPEC: kind and spec, NULL: none)
 * and the settings of them (the --guest-* and --container-* flags). */
struct vp_guests_request {
    const struct vp_env_kind *kind;
    const char *spec, *accel, *uri, *bridge, *nic, *disk_dir, *disk_bus;
    const char *container_engine, *container_runtime, *container_net;
    const char *pin; /* --guest-pin: the guests' vCPUs onto this host's CPUs */
    const char *programs; /* --guest-programs: this host's paths the members' image carries */
    const char *mount;    /* --guest-mount: an NFS export each guest mounts */
    const char *migrate_to; /* --migrate-to: the libvirt the first guest is migrated to */
    double migrate_at_s;    /* --migrate-at: after each point's first measured start, 0: 1 s */
    bool migrate_back;      /* --migrate-back: and back as long after it arrived */
    unsigned cpus, memory_mib, timeout_s;
    unsigned cpu_cap_pct, cpu_cap_guest; /* --guest-cpu-cap PCT[@N]; guest 0: every one */
    uint64_t disk_bytes;
    bool and_host; /* --and-host: the host's jobs too, repetitions alternating */
    struct vp_qos qos;  /* --qos: what a fill's counts must meet (given: qos.given) */
    uint64_t keep_free; /* --keep-free: the memory a fill leaves this host, 0: not given */
    const char *groups[VP_MAX_GROUPS]; /* each --group's words (run/groups.h reads them) */
    size_t group_count;
};

/* What one command line (or one step of a plan) asks. */
struct vp_run_request {
    struct vp_plan_request plan;
    const char *label, *db, *json;
    double monitor_hz;
    char *watch[VP_RUN_MAX_WATCH];
    size_t watch_count;
    bool quiet, help;
    const char *background; /* --background: a watch beside the others (net.probe) */
    char *words[VP_RUN_MAX_WORDS + 1]; /* the benchmark words, --background's last */
    const char *plan_path;             /* --plan, and what goes with it */
    const char *sets[VP_RUN_MAX_SETS];
    size_t set_count;
    bool dry_run, here;
    bool no_guests; /* --no-guests: a plan's guests, containers and and-host keys left out */
    const char *ranks, *topology, *start_with; /* virtperf-mpi's */
    struct vp_guests_request guests;
};

struct vp_run_flag {
    const char *name;
    const char *argument; /* "SPEC", "N"...; NULL: a switch */
    unsigned scope;       /* enum vp_run_scope bits */
    /* run --help's lines ("\n" between); {quick}, {per-cpu}, {watch} and {max-reps} stand
     * for what the benchmark table says */
    const char *help;
    const char *manual; /* the manual's paragraph, roff; NULL: the help text */
    int (*take)(struct vp_run_request *request, const char *value, char *err, size_t err_len);
};
/* The members' rows (member_flags.c); the rest of the table is run_flags.c's. */
extern const struct vp_run_flag vp_member_flags[];
extern const size_t vp_member_flag_count;

/* For a flag's take function: err made of format, returns -1. */
__attribute__((format(printf, 3, 4))) int vp_run_flag_refuse(char *err, size_t err_len,
                                                             const char *format, ...);
/* A flag's whole number from min to max into *value; -1 with err naming flag. */
int vp_run_flag_whole(const char *flag, const char *text, unsigned min, unsigned max,
                      unsigned *value, char *err, size_t err_len);

/* The flag called name, or NULL. */
const struct vp_run_flag *vp_run_flag_find(const char *name);
/* "PREFIXa, PREFIXb, ..." for the flags of scopes ("--" on a command line, "" in a plan). */
void vp_run_flag_names(unsigned scopes, const char *prefix, char *buf, size_t len);
/* Parses argv[1..] (argv[0], "run" or "plan-check", names the command in messages),
 * taking the flags of scopes and, with VP_SCOPE_STEP, the benchmarks' options; the other
 * words are the benchmark words. Returns 0, or -1 with err naming the bad word and what
 * is accepted. request->help set: --help was given. The request points into argv. */
int vp_run_parse(struct vp_run_request *request, int argc, char **argv, unsigned scopes,
                 char *err, size_t err_len);
/* argv's words without the flags scope alone takes, and their values, into out (room
 * for argc + 1, NULL-ended; the words are argv's); how many. */
int vp_run_words_without(int argc, char **argv, unsigned scope, char **out);
/* Takes one flag's value as the plan gives it (a switch: "on", "true"; else left off). */
int vp_run_take(struct vp_run_request *request, const struct vp_run_flag *flag,
                const char *value, char *err, size_t err_len);
/* The --guest-* and --container-* flags asked for checked against the kind the run starts
 * (running; NULL: none): a setting that kind does not take is refused, never ignored. 0,
 * or -1 with err naming the flag and what is accepted. */
int vp_run_members_check(const struct vp_guests_request *asked,
                         const struct vp_env_kind *running, char *err, size_t err_len);
/* The --and-host, --guest-* and --container-* flags asked gives, into flags (room for
 * VP_RUN_MEMBER_SETTINGS); how many. */
#define VP_RUN_MEMBER_SETTINGS 24
size_t vp_run_members_given(const struct vp_guests_request *asked, const char **flags);
/* Whether a plan's key (or a flag without "--") is a setting of members. */
bool vp_run_member_setting(const char *key);
/* The flags of scopes as --help lists them, those also of a scope in listed left out
 * (listed already). */
void vp_run_print_flags(FILE *out, unsigned scopes, unsigned listed);
/* `virtperf run --help`, the flags of a scope in listed left out. */
void vp_run_print_usage(FILE *out, unsigned listed);
/* The manual's RUN OPTIONS section (roff). */
void vp_run_print_manual(FILE *out);

#endif
