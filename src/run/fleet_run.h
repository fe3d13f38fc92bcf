/* What the fleet's files share (fleet_run.c: the members' lifecycle and the steps;
 * fleet_links.c: the servers and a topology's links; fleet_point.c: one point): the run's
 * state and the functions one calls of another. Internal to the fleet runner. */
#ifndef VP_CMD_FLEET_RUN_H
#define VP_CMD_FLEET_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "run/fleet.h"
#include "core/clock.h"
#include "core/monitor.h"
#include "engine/layout.h"

#define DEFAULT_TIMEOUT_S 300
#define SERVER_KEY_BYTES 32
#define MEMBER_KEY_PATH "/tmp/virtperf-host.key" /* where each member keeps the server's key */

/* One set of the run's members: the run's own (its kind, SPEC's counts), or a --group's
 * (its kind and settings, its count). */
struct fleet_group {
    const char *name;                      /* the --group's; NULL: the run's own members */
    struct vp_fleet_kind kind;             /* with a state of its own */
    const struct vp_guests_request *asked; /* its settings */
    size_t first;                          /* its members: first .. first + count - 1 */
    unsigned count;
};

struct fleet_run {
    const struct vp_fleet_kind *kind; /* the first group's: its kind names the run's members */
    struct fleet_group groups[VP_MAX_GROUPS];
    size_t group_count;
    const char *spec;
    int argc;
    char **argv;               /* the command's words, sent to every member */
    unsigned most, timeout_s;
    struct vp_member members[VP_MAX_GUESTS];
    size_t started;
    char work[256];
    double monitor_hz;
    char *const *watch;
    size_t watch_count;
    struct vp_monitor *monitor; /* this host's, while a point is measured */
    pid_t server;               /* the net benchmarks' server on this host, 0: none */
    char server_peer[96];       /* ADDRESS:PORT the members reach it at */
    char key_hex[2 * SERVER_KEY_BYTES + 1];
    char **words;               /* argv with the server's --peer and --key-file */
    int word_count;
    char *sets[2 * VP_RUN_MAX_STEPS]; /* a plan's: --set STEP.peer=..., STEP.key-file=... */
    size_t set_count;
    bool of_plan;               /* the steps are a plan's (--no-guests runs them here) */
    const char *host_dir;       /* where they work (--guest-disk), NULL: here */
    /* each step's --topology: this host rank 0, member m rank m + 1 */
    enum vp_topology_kind topology[VP_RUN_MAX_STEPS];
    bool linked;                /* some step has one */
    char member_peer[VP_MAX_GUESTS][96]; /* ADDRESS:PORT of each member's own server */
    char label_text[VP_MAX_GUESTS + 1][128];
    char *labels[VP_MAX_GUESTS + 1];     /* each rank's name in a link */
    /* the linked point being run: its ends' names, and its external end (--peer HOST
     * beside a matrix: rank count + 1, -1: none) with that host's key file */
    char *const *link_labels;
    int link_ends, external_rank;
    const char *external_peer, *external_key;
    json_t *host_fingerprint;   /* this host's, for its part of a link's result */
    struct fleet_migration *migration; /* --migrate-to's, while a point runs; NULL: none */
    const char *migrate_to;     /* where the steps that migrate move the first member */
    const char *migrate_step;   /* a plan's step that says so, NULL: a command line */
    struct vp_path_set files;   /* this host's, carried in the members' image */
    /* virtperf-mpi's (fleet.h vp_fleet_here_point), NULL: a run of this host alone: the
     * point above whose agreements and instants this host's members take, and where the
     * point's parts and rates are kept for rank 0 */
    const struct vp_together_above *above;
    struct vp_fleet_point *kept;
    unsigned initial;           /* the members started before the run: the most a count
                                 * asks, or a fill's first count */
    const char *server_address; /* where the members reach this host's server, NULL: none */
    unsigned neighbours;        /* virtperf-mpi's ranks before this one on this machine,
                                 * whose members take a bridge's addresses first */
};

/* The kind of member m, with its group's state. */
static inline const struct vp_fleet_kind *vp_fleet_kind_of(const struct fleet_run *run, size_t m)
{
    return &run->groups[run->members[m].group].kind;
}

static inline int64_t after_seconds(unsigned seconds)
{
    return vp_now_ns() + (int64_t)seconds * 1000000000LL;
}

/* fleet_run.c */
/* A flag the members cannot share: each would decide alone. */
int vp_fleet_refuse(char *err, size_t err_len, const char *flag, const char *what,
                    const char *accepted);
/* The counts of members step runs in (*n 0: none, it runs on this host alone); -1 with
 * err when its SPEC is not valid. */
int vp_fleet_step_counts(const struct fleet_run *run, const struct vp_run_step *step,
                         unsigned *counts, size_t *n, char *err, size_t err_len);
/* Whether step fills the host (SPEC A..auto[:MOST]): its first count and most. */
bool vp_fleet_step_fill(const struct fleet_run *run, const struct vp_run_step *step,
                        unsigned *first, unsigned *most);
/* The run's own members up to the count-th started, heard, given the steps and paused
 * (a fill's next count); -1 with err. */
int vp_fleet_start_more(struct fleet_run *run, const struct vp_run_steps *steps, unsigned count,
                        char *err, size_t err_len);
/* Whether step runs in members (not on this host alone). */
bool vp_fleet_in_members(const struct fleet_run *run, const struct vp_run_step *step);
/* Whether step runs on this host too, beside its members, alternating. */
bool vp_fleet_with_host_side(const struct fleet_run *run, const struct vp_run_steps *steps,
                             const struct vp_run_step *step);
/* The first count members running, the others paused. */
void vp_fleet_set_running(struct fleet_run *run, unsigned count);
/* Why member index was lost: its channel's failure, and whether it is gone. */
void vp_fleet_lost_reason(const struct fleet_run *run, int index, const char *why, char *reason,
                          size_t len);

/* fleet_migrate.c */
/* --migrate-to: begins moving the first member (its channel at slot in the point's lead,
 * NULL: not a rank of it) as asked (the point's step's settings) for a point whose first
 * measured start is instant_ns; nothing when it asks no migration or one has begun. */
void vp_fleet_migration_begin(struct fleet_run *run, const struct vp_guests_request *asked,
                              int64_t instant_ns, int *slot);
/* Once the member whose channel is at slot is not moving, the channel to use: to send,
 * that one; to receive, the oldest of its channels not known to have ended (ended: one
 * that just did, -1: none), so that what it sent from each QEMU is read in order (a guest
 * that moved there and back before its word was read left it on the middle one). -1
 * with why when its move failed. */
int vp_fleet_migration_gate(struct fleet_run *run, const int *slot, bool receive, int ended,
                            char *reason, size_t reason_len);
/* Ends the point's migration (one not begun by now never begins): every move made, as
 * the result keeps them (a new array), why with why one failed (""); NULL: none begun. */
json_t *vp_fleet_migration_end(struct fleet_run *run, char *why, size_t why_len);
/* The moves into result as "migrations", each with the longest gap net.probe's timelines
 * in result show from its start to a second after its end (probe_gap_s), and that gap
 * beyond libvirt's downtime (gap_beyond_downtime_s). */
void vp_fleet_migration_mark(json_t *result, json_t *moves);

/* fleet_fill.c */
/* Step index as a fill from first up to most members (run/fill.h): each count measured
 * and judged, its results kept marked; whether the run stopped. */
bool vp_fleet_fill_step(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                        struct vp_run_session *session, struct vp_progress *progress,
                        unsigned first, unsigned most);

/* fleet_links.c */
/* Whether a step talks to this host's server: a net point with no --peer, or linked. */
bool vp_fleet_wants_server(const struct fleet_run *run, const struct vp_run_steps *steps);
/* The net benchmarks' server on this host at address, where the members reach it (once
 * they run: an engine's bridge may have its address only then), keyed by a fresh key each
 * member gets over its channel; the members' words then name it. */
int vp_fleet_start_server(struct fleet_run *run, const struct vp_run_steps *steps,
                          const char *address, char *err, size_t err_len);
/* --topology between this host and the members: each net point's jobs connect where the
 * topology says, so the point names no --peer of its own, --and-host (this host is one
 * end already) does not go with it, and pairs needs an even count of ends. */
int vp_fleet_take_topology(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                           size_t err_len);
/* A step in members with no --topology, no --and-host, and only network benchmarks that
 * are measured from outside (net.probe) at the run's server, where the members have
 * addresses of their own: laid out outside, this host the client of each member's server,
 * so that a paused member's outage is timed on a clock that did not stop with it. */
void vp_fleet_take_outside(struct fleet_run *run, const struct vp_run_steps *steps);
/* The topology of the run's steps whose servers include the members' own (pairs,
 * matrix, outside), NONE: this host serves alone. */
enum vp_topology_kind vp_fleet_members_serve(const struct fleet_run *run, size_t step_count);
/* Each rank's name in a link: this host, then each member, with its address. */
void vp_fleet_name_ranks(struct fleet_run *run);
/* Asks every member to serve on its own address (the run's key) and keeps where. */
int vp_fleet_start_member_servers(struct fleet_run *run, enum vp_topology_kind topology,
                                  char *err, size_t err_len);
/* A net point at count members under the topology: each step of its layout (this host
 * rank 0, the members ranks 1..count, an external end count + 1 when the point names a
 * --peer) in turn, one result each. */
void vp_fleet_run_linked_point(struct fleet_run *run, const struct vp_run_steps *steps,
                               size_t index, size_t point_index, unsigned count,
                               struct vp_run_settings *settings, struct vp_run_session *session,
                               bool *stopped);

/* fleet_point.c */
/* One point on the first count members (with groups: every member), or on the ranks link
 * (a topology's step) runs: results[1 + g] each group's combined result (one group: the
 * run's members); with --and-host results[0] the host's (NULL without). *stopped: a member
 * was lost or a signal came. */
void vp_fleet_run_point(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                        size_t point_index, unsigned count, const struct vp_step *link,
                        struct vp_run_settings *settings, bool with_host, json_t **results,
                        bool *stopped);
/* The result(s) of one point to the session, marked with the plan's step. */
void vp_fleet_keep_results(struct vp_run_session *session, const struct vp_run_step *step,
                           json_t *const *results, size_t count);

#endif
