/* What the plan compiler's files share (run_plan.c: reading a plan, judging its keys and
 * making its steps; plan_places.c: where each step runs): the entries read, the
 * compiler's state, a step's words, and the functions one calls of the other. Internal
 * to the plan compiler. */
#ifndef VP_CMD_PLAN_COMPILER_H
#define VP_CMD_PLAN_COMPILER_H

#include <stdbool.h>
#include <stddef.h>

#include "run/executor.h"
#include "run/run_flags.h"

#define MAX_ENTRIES 512
#define MAX_WORDS (VP_RUN_MAX_WORDS + MAX_ENTRIES + 4)

struct entry {
    char *section, *key, *value;
    int line; /* 0: given with --set */
};

/* What the compiler works on: the file's entries, and where it says what went wrong. */
struct compiler {
    const char *path;
    const char *text;
    struct entry entries[MAX_ENTRIES];
    size_t count;
    bool for_mpi;
    bool no_members; /* --no-guests or virtperf-mpi: the guests keys left out */
    bool members_given; /* --guests or --containers on the command line: every step in them */
    char *err;
    size_t err_len;
};

/* A step's command line, as words. */
struct command {
    char *argv[MAX_WORDS + 1];
    int argc;
};

/* run_plan.c */
/* A copy of text ("" for NULL); aborts when memory runs out. */
char *plan_copy(const char *text);
/* An error at entry's line, or in section when there is no entry to blame; returns -1. */
__attribute__((format(printf, 4, 5))) int plan_error(struct compiler *c,
                                                     const struct entry *entry,
                                                     const char *section, const char *format,
                                                     ...);
/* The entry key of section, or NULL. */
const struct entry *plan_find(const struct compiler *c, const char *section, const char *key);
/* Whether key is a run flag of one of scopes. */
bool plan_in_scope(const char *key, unsigned scopes);
/* Whether key is a flag of the whole run (a command line's or [global]'s). */
bool plan_session_key(const char *key);
/* Whether value is a switch's (on, off, true, false); *on: which. */
bool plan_switch_value(const char *value, bool *on);
/* --KEY=VALUE (a switch: --KEY when on, nothing when off) onto command. */
void plan_add_flag(struct command *command, const char *key, const char *value);
/* Keeps note (taken) among the run's notes, or frees it when they are full. */
void plan_keep_note(struct vp_run_steps *notes, char *note);

/* plan_places.c */
/* Whether key says where a step runs (a kind's key, and-host): the run's keys a step may
 * also say for itself. */
bool plan_members_key(const char *key);
/* Whether key is migrate-to, migrate-at or migrate-back: a step's own setting of its
 * guests. */
bool plan_migration_key(const char *key);
/* Such a line (the step's own, or [global]'s for each step in guests) into the step's
 * command where it runs in guests; left out with a note without members (--no-guests,
 * virtperf-mpi); -1 with err on a step of this host alone (a [global] line: where no step
 * runs in guests). */
int plan_place_migration(struct compiler *c, const char *step, const struct entry *entry,
                         struct command *command, struct vp_run_steps *notes);
/* On one host: ranks 1..N become --jobs 1..N and topology and start-with are left out,
 * each with a note when notes is given. Returns whether entry was one of them. */
bool plan_one_host_fallback(struct command *command, const struct entry *entry,
                            struct vp_run_steps *notes);
/* The members line (a kind's key) a step runs by: its own, else [global]'s; NULL. */
const struct entry *plan_members_entry(const struct compiler *c, const char *step);
/* With the members left out, what the step runs instead (ranks, or jobs here). -1. */
int plan_members_as_jobs(struct compiler *c, const char *step, const struct entry *members,
                         struct command *command, struct vp_run_steps *notes);
/* Whether step runs in members: the plan's, or the command line's. */
bool plan_runs_in_members(const struct compiler *c, const char *step);
/* The run's own flags: the command line's, else [global]'s. */
void plan_session_flags(const struct compiler *c, const struct vp_run_request *command,
                        struct vp_run_steps *steps);
/* Where a step runs: its own members and and-host lines, or left out with a note. -1. */
int plan_place_step(struct compiler *c, const char *name, struct vp_run_step *step,
                    struct vp_run_steps *steps);
/* One kind of member for the whole run, and and-host only where a step runs in them. */
int plan_check_members(struct compiler *c, const struct vp_run_steps *steps);

#endif
