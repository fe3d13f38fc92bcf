/* Who does what in each result of a virtperf-mpi run. A step is one plan point on a set
 * of ranks: each rank runs jobs (RUN), stays in step without jobs (WAIT: a server of
 * the network topology, or rank 0, which gathers every step), or sits it out (OFF).
 * --ranks k: the first k ranks run. A network benchmark with --topology:
 *   matrix   each ordered pair alone: the first runs jobs against the second's server
 *   pairs    rank i against rank i + k/2, all at once (k even)
 *   fan-in   ranks 1..k-1 against rank 0 at once (k >= 2)
 *   fan-out  the same connections, the data flowing from rank 0 (--reverse)
 * An external end (a server of a host that runs no part of the run, `--peer HOST` beside a
 * matrix) is one more rank that never runs jobs: every other rank's jobs connect to it,
 * and where the benchmark can reverse (net.stream) its server also sends to each of them,
 * so that it is a source of the matrix too.
 * Pure logic, no MPI: virtperf-mpi carries it out between ranks, `run --guests` between this
 * host (rank 0) and its guests (ranks 1..k); the unit tests check it. */
#ifndef VP_LAYOUT_H
#define VP_LAYOUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/plan.h"

enum vp_role { VP_ROLE_OFF, VP_ROLE_WAIT, VP_ROLE_RUN };
/* How a link names this host's end in a run of guests or containers ("this-host ADDRESS")
 * and an external end ("external HOST[:PORT]"), which `virtperf matrix` reads back. */
#define VP_LINK_THIS_HOST "this-host"
#define VP_LINK_EXTERNAL "external"
/* OUTSIDE: rank 0 the client of each other rank's server in turn (a guest measured from
 * the host, whose clock keeps going while the guest's stops). */
enum vp_topology_kind { VP_TOPOLOGY_NONE, VP_TOPOLOGY_MATRIX, VP_TOPOLOGY_PAIRS,
                        VP_TOPOLOGY_FAN_IN, VP_TOPOLOGY_FAN_OUT, VP_TOPOLOGY_OUTSIDE };

struct vp_step {
    size_t point;          /* index into the plan's points */
    enum vp_role *roles;   /* per rank */
    int *peers;            /* per rank: the rank whose server its jobs use, or -1 */
    bool reverse;          /* fan-out: the servers send */
};

struct vp_layout {
    struct vp_step *steps;
    size_t count;
    enum vp_topology_kind topology;
    int external;          /* the external end's rank, -1: none */
};

/* "matrix", "pairs", "fan-in", "fan-out", "outside" (NULL: none). Returns 0, or -1 with err. */
int vp_topology_parse(const char *text, enum vp_topology_kind *kind, char *err, size_t err_len);
const char *vp_topology_name(enum vp_topology_kind kind);
/* every topology's name, NULL-terminated (what a stored result may say) */
const char *const *vp_topology_choices(void);

/* The steps of plan over ranks ranks, for each count of rank_counts. A network
 * benchmark (one with a --peer option) follows the topology; others, and every
 * benchmark without a topology, run on the first k ranks. Returns 0, or -1 with err
 * when nothing would run (pairs on an odd count only, a topology on one rank). external:
 * the rank of an external end (matrix only), -1: none. */
int vp_layout_build(const struct vp_plan *plan, int ranks, const unsigned *rank_counts,
                    size_t rank_count_n, enum vp_topology_kind topology, int external,
                    struct vp_layout *layout, char *err, size_t err_len);
void vp_layout_free(struct vp_layout *layout);

/* Whether bench talks to a peer (follows the topology). */
bool vp_layout_is_network(const struct vp_bench *bench);

/* The links of step over ranks ranks, [{"from", "to", "from_label", "to_label"}], in the
 * direction the data flows: from the rank that connects to its server, or (fan-out: the
 * servers send) from the server to the rank that connected; labels: each rank's name. */
json_t *vp_layout_links(const struct vp_step *step, int ranks, char *const *labels);
/* Marks result (the step's combined result of a network benchmark) with its topology and
 * links under "ranks", as `virtperf matrix` reads them. */
void vp_layout_mark(json_t *result, enum vp_topology_kind topology, const struct vp_step *step,
                    int ranks, char *const *labels);

#endif
