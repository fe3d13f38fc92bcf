/* The executor's runner for environments virtperf starts on this host and runs together:
 * guests (guests.c, libvirt) and containers (containers.c, podman or docker), each a kind
 * of member behind the hooks below. The runner (fleet_run.c, fleet_links.c, fleet_point.c,
 * sharing fleet_run.h) is the same for every kind:
 * before anything is stored, the most members SPEC asks for are started, each says hello
 * over its channel with its fingerprint and checks the run's steps (one refusal stops
 * the run, exit 2, every member gone); then for each count k of SPEC and each point, the
 * first k members run it (the others paused), started together (engine/together.c), and
 * their results and jobs' regions are combined into one result of virtperf-mpi's shape
 * (engine/combine.c), with this host's own monitor as the result's monitor and what each
 * member cost the host under "guests". With --topology, a net point follows
 * engine/layout.h with this host as rank 0 and the members as ranks 1..k: each of its
 * steps runs the ranks it names against the servers it names (this host's, or the
 * members' own), and its result carries the links, as virtperf-mpi's does. Every member
 * and file the run made is removed when it ends, fails or is interrupted. */
#ifndef VP_CMD_FLEET_H
#define VP_CMD_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "run/executor.h"
#include "engine/gather.h"
#include "run/kinds.h"
#include "core/limits.h"
#include "core/path_set.h"
#include "env/domain.h"

/* One guest or container, as the runner sees it. */
struct vp_member {
    char name[VP_GUEST_NAME_LEN]; /* virtperf-PID-N */
    unsigned group;               /* its group's index (0: a run without --group) */
    int fd;                       /* its channel; -1 while there is none */
    json_t *fingerprint;          /* its hello, with what its kind adds */
    bool paused;
    int64_t started_ns;           /* when its start began */
    double ready_s;               /* from then to its hello */
    void *own;                    /* the kind's state of it */
};

/* What every member of a run shares. */
struct vp_fleet_setup {
    const struct vp_guests_request *asked; /* the --guest-* / --container-* flags */
    const char *work;                      /* a directory for the run's files, no member's */
    unsigned most;                         /* members to start */
    unsigned first;                        /* members of earlier groups (a bridge's
                                            * addresses they take come first) */
    const struct vp_path_set *files;       /* this host's, their image carries */
    const char *migrate_to;                /* the libvirt some step moves the first member
                                            * to (--migrate-to), NULL: none */
};

struct vp_fleet_kind {
    const struct vp_env_kind *env; /* its entry in the kinds table: name, noun, flag */
    /* Whether the run's directory (struct vp_fleet_setup's work) is open to other users
     * (libvirt's QEMU user makes its sockets there); else it is this host's alone (0700),
     * and no member may see it. */
    bool shared_work;
    /* the directories each member has its own of, over what its image carries (no file
     * of this host's may be carried there), NULL-ended */
    const char *const *own_dirs;
    /* what gives its members an address of their own, for a --topology between them
     * ("--container-net host"); NULL: nothing to say */
    const char *own_address_hint;
    void *state;
    /* Everything the members need, checked before any starts; -1 with what to do. */
    int (*prepare)(void *state, const struct vp_fleet_setup *setup, char *err, size_t err_len);
    /* Starts member index; -1 with why. */
    int (*start)(void *state, struct vp_member *member, size_t index, char *err, size_t err_len);
    /* Opens member's channel before deadline_ns (member->fd); -1 with why. */
    int (*connect)(void *state, struct vp_member *member, int64_t deadline_ns, char *err,
                   size_t err_len);
    bool (*alive)(void *state, struct vp_member *member);
    int (*pause)(void *state, struct vp_member *member, bool pause);
    /* After its hello, before describe: what its kind does to a member only once it is
     * ready (guests: the vCPU cap, which would slow its boot); NULL: nothing. -1 with why. */
    int (*once_ready)(void *state, struct vp_member *member, char *err, size_t err_len);
    /* After its hello: what its kind says of it, into its fingerprint; and what happened
     * when it did not answer or is gone (its console, to stderr). */
    void (*describe)(void *state, struct vp_member *member);
    void (*silent)(void *state, struct vp_member *member);
    /* What the member cost this host over a point: begin, then its entry under "guests". */
    void (*cost_begin)(void *state, struct vp_member *member);
    json_t *(*cost_end)(void *state, struct vp_member *member, double seconds);
    /* The address on this host the members reach it at, for the server the net benchmarks
     * talk to (NULL with why in err: they cannot reach this host). */
    const char *(*server_address)(void *state, char *err, size_t err_len);
    /* The address member index's own server listens on, for a --topology whose servers
     * are members (pairs, matrix); NULL: it has none of its own. */
    const char *(*member_address)(void *state, size_t index);
    /* Live-migrates member to the hypervisor at uri (NULL: back to the run's own); its
     * channel is then at a path of its own there, which connect opens anew; what the
     * hypervisor says of the move into moved. NULL: its kind cannot. -1 with why (the
     * member still where it was, or gone). */
    int (*migrate)(void *state, struct vp_member *member, const char *uri, json_t *moved,
                   char *err, size_t err_len);
    /* Aborts member's migration under way (from another thread): migrate then fails. */
    void (*abort_migration)(void *state, struct vp_member *member);
    /* The run's part of "guests" (engine, accel...), a new object. */
    json_t *(*summary)(void *state);
    void (*remove)(void *state, struct vp_member *member);
    void (*finish)(void *state);
};

/* Where a net point's jobs connect, when the host says (a topology, the run's server):
 * peer ADDRESS:PORT, the key file its server takes (NULL: the point's own), and whether
 * the server sends (fan-out). */
struct vp_agent_link {
    const char *peer, *key_file;
    bool reverse;
};

/* A member's side of a point (fleet_point.c): point point_index of step index with jobs
 * jobs (0: the point's own), its jobs aimed by link (NULL: as the words say), run when
 * the host's word comes over fd and sent back there (engine/gather.h's follower over
 * env/transport.h). The agent in a guest, container or UML instance runs it, and so does
 * the process of this host's own side beside them (--and-host). 0, or -1 with why when
 * the channel failed or link does not parse. */
int vp_agent_run_point(int fd, const struct vp_run_steps *steps, size_t index,
                       size_t point_index, unsigned jobs, const struct vp_agent_link *link,
                       char *err, size_t err_len);

/* The hello of member, heard before timeout_s: its fingerprint (then kind->describe).
 * For a kind that tries a start another way when the first does not answer. */
int vp_fleet_hear(const struct vp_fleet_kind *kind, struct vp_member *member, unsigned timeout_s,
                  char *err, size_t err_len);

/* Runs steps (built and checked here) in the members of kind that SPEC (the run's or each
 * step's) asks for, or with groups (count of them: run/groups.h) in every group's members
 * at once; the executor's exit status. */
struct vp_member_group;
int vp_run_fleet(const struct vp_env_kind *kind, const struct vp_member_group *groups,
                 size_t count, struct vp_run_steps *steps, int argc, char **argv);

/* A hypervisor of virtperf-mpi (mpi/members.h): this host's members of a run whose
 * points every rank runs at once, each member starting at rank 0's instant. */
struct fleet_run;
/* What vp_run_fleet does before a run begins, on this host, in two halves so that every
 * host can refuse before any starts a member: everything the members of kind need,
 * checked and made ready (kind's, or with groups each of count groups' of its own, as
 * vp_run_fleet takes them; argv: the words they will take; neighbours: the ranks before
 * this one on this machine, whose members' addresses on a bridge come first; NULL with
 * err, nothing left);
 * then the most members the steps' SPEC asks for started, heard and agreeing to the
 * steps (-1 with err: vp_fleet_here_close removes what started). */
struct fleet_run *vp_fleet_here_prepare(const struct vp_env_kind *kind,
                                        const struct vp_member_group *groups, size_t count,
                                        struct vp_run_steps *steps, int argc, char **argv,
                                        unsigned neighbours, char *err, size_t err_len);
int vp_fleet_here_start(struct fleet_run *run, const struct vp_run_steps *steps, char *err,
                        size_t err_len);
/* The counts of members step index runs at (its SPEC's), into counts; how many. */
size_t vp_fleet_here_counts(const struct fleet_run *run, const struct vp_run_steps *steps,
                            size_t index, unsigned *counts);
/* What a point on this host's members brought back. */
struct vp_fleet_point {
    json_t *results[VP_MAX_GROUPS]; /* this host's aggregate of each group (one: the run's
                               * members): its members' figures without the rates across
                               * hosts, its monitor, what they cost it */
    size_t group_count;
    struct vp_gathered parts; /* each member's result and region, its clock offset and
                               * bound this host's to it */
    double *stonewall, *span; /* each measured repetition's rates across every host */
};
/* Point point_index of step index on this host's first count members, its agreements
 * and instants above's. *stopped: a member was lost or a signal came. */
void vp_fleet_here_point(struct fleet_run *run, const struct vp_run_steps *steps, size_t index,
                         size_t point_index, unsigned count, struct vp_run_settings *settings,
                         const struct vp_together_above *above, struct vp_fleet_point *out,
                         bool *stopped);
void vp_fleet_point_free(struct vp_fleet_point *point);
/* Every member and file of this host's gone. */
void vp_fleet_here_close(struct fleet_run *run);

#endif
