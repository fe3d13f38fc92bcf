/* The servers of a network topology: every rank forks a `virtperf serve` on every
 * address (with the run's --key-file, if any) for the whole run, and every rank learns
 * where each one listens: its host's first IPv4 address that is not loopback (loopback
 * when it has none) and its port. The matrix names each rank "HOST ADDRESS", with its
 * rank when several ranks share that. */
#ifndef VP_SERVERS_H
#define VP_SERVERS_H

#include <sys/types.h>

#include "mpi/world.h"

struct vp_servers {
    pid_t own;            /* this rank's server */
    char (*peer)[320];    /* by rank: "ADDRESS:PORT" for --peer */
    char **labels;        /* by rank: "HOST ADDRESS", the matrix's row and column names */
};

/* Collective over every rank. Returns 0, or -1 with err (this rank's server did not
 * start: every rank learns it through the exchange and fails the same way). */
int vp_servers_start(const struct vp_world *world, const char *key_file, struct vp_servers *servers,
                     char *err, size_t err_len);
void vp_servers_stop(struct vp_servers *servers, int ranks);

#endif
