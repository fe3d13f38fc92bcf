/* virtperf-mpi run --guests SPEC | --containers SPEC: every rank a hypervisor. Each rank
 * starts its own members before the run begins (run/fleet.h, as `virtperf run` does on
 * one host: the most SPEC asks for, heard, agreeing to the steps, paused), once every
 * rank has checked it can (one that cannot refuses, named, before any starts one). Each
 * point of each count k of SPEC runs on the first k members of every running rank: each
 * rank leads its members from above (engine/together.h), so every member of every host
 * starts each repetition at rank 0's instant; then every rank sends rank 0 what its
 * members brought back (each one's result and jobs' region, with its clock offset and
 * bound to its host) and its own aggregate of them (its monitor, what they cost it), and
 * rank 0 combines every member of every host into one result (engine/combine.h): the
 * members under "ranks", each with its "hypervisor" (the rank that started it) and its
 * offset composed (its own to its host plus its host's to rank 0, the bounds likewise),
 * the aggregate over all, and each host's aggregate under "hypervisors". */
#ifndef VP_MPI_MEMBERS_H
#define VP_MPI_MEMBERS_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/gather.h"
#include "engine/together.h"
#include "mpi/world.h"
#include "run/executor.h"
#include "run/fleet.h"
#include "run/groups.h"

struct vp_mpi_members {
    struct fleet_run *fleet; /* this rank's members; NULL: none started */
    char **words;            /* the command's words as they take them */
    struct vp_member_group groups[VP_MAX_GROUPS]; /* --group's, every rank alike */
    size_t group_count;                           /* 0: the run's one kind */
};

/* What the members of virtperf-mpi do not take yet (a kind the kinds table does not let
 * run there, --topology, --and-host, a fill, --migrate-to, --start-with barrier), and
 * --group's words checked and kept in members, one line naming it and what is accepted;
 * 0 when steps asks none of it. */
int vp_mpi_members_refused(struct vp_mpi_members *members, const struct vp_run_steps *steps,
                           char *err, size_t err_len);
/* This rank's members made ready for steps (argv: the command's words), none started, their
 * addresses on a bridge after those of the ranks before it on its host (by host name): -1
 * with err, nothing left; then, once no rank refused, started: -1 with err (what started
 * goes with vp_mpi_members_close). */
int vp_mpi_members_prepare(const struct vp_world *world, struct vp_mpi_members *members,
                           struct vp_run_steps *steps, int argc, char **argv, char *err,
                           size_t err_len);
int vp_mpi_members_start(struct vp_mpi_members *members, const struct vp_run_steps *steps,
                         char *err, size_t err_len);
/* The counts of members per host step index runs at, into counts; how many. */
size_t vp_mpi_members_counts(const struct vp_mpi_members *members,
                             const struct vp_run_steps *steps, size_t index, unsigned *counts);
/* Point point_index of step index on count members of every rank of the step's
 * communicator (together: begun over it; ranks: the world ranks in the communicator's
 * order). Rank 0 returns the combined results (a JSON array: one, or one per --group, each
 * its members of every host, its "side" the group), the others NULL. *stopped: a member
 * or a rank was lost, or a signal came. */
json_t *vp_mpi_members_point(const struct vp_world *world, struct vp_mpi_members *members,
                             const struct vp_run_steps *steps, size_t index,
                             size_t point_index, unsigned count,
                             struct vp_run_settings *settings, struct vp_together *together,
                             const int *ranks, size_t rank_count, int64_t began_ns,
                             bool *stopped);
/* Every member of this rank gone. */
void vp_mpi_members_close(struct vp_mpi_members *members);

#endif
