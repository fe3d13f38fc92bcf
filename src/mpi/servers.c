/* Each rank's server for the network topologies (see servers.h). */
#include "mpi/servers.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/net_peer.h"
#include "mpi/liveness.h"

#define KEY_TIMEOUT_S 10.0

struct contact {
    char address[64];
    int port; /* 0: this rank's server did not start */
};

int vp_servers_start(const struct vp_world *world, const char *key_file, struct vp_servers *servers,
                     char *err, size_t err_len)
{
    *servers = (struct vp_servers){ .own = -1 };
    struct vp_peer keyed;
    struct contact own = { "127.0.0.1", 0 };
    uint16_t port = 0;
    char addresses[1024];
    if (vp_peer_from_options("127.0.0.1", key_file ? key_file : "none", KEY_TIMEOUT_S, &keyed, err,
                             err_len) == 0 &&
        (servers->own = vp_net_spawn_server(NULL, &keyed, &port, err, err_len)) > 0)
        own.port = port;
    if (vp_host_addresses(addresses, sizeof addresses) == 0 && addresses[0]) {
        char *first = addresses + 1, *space = strchr(first, ' ');
        if (space)
            *space = '\0';
        snprintf(own.address, sizeof own.address, "%.63s", first);
    }
    struct contact *all = calloc((size_t)world->size, sizeof *all);
    servers->peer = calloc((size_t)world->size, sizeof *servers->peer);
    servers->labels = calloc((size_t)world->size, sizeof *servers->labels);
    if (!all || !servers->peer || !servers->labels)
        abort();
    MPI_Allgather(&own, sizeof own, MPI_BYTE, all, sizeof own, MPI_BYTE, MPI_COMM_WORLD);
    int failed = -1;
    for (int r = 0; r < world->size; r++)
        all[r].address[sizeof all[r].address - 1] = '\0';
    for (int r = 0; r < world->size; r++) {
        snprintf(servers->peer[r], sizeof servers->peer[r], "%s:%d", all[r].address, all[r].port);
        bool shared = false; /* several ranks on one host: the rank tells them apart */
        for (int other = 0; other < world->size; other++)
            shared = shared || (other != r && strcmp(world->hosts[other], world->hosts[r]) == 0 &&
                                strcmp(all[other].address, all[r].address) == 0);
        char label[400];
        snprintf(label, sizeof label, shared ? "%s %s rank %d" : "%s %s", world->hosts[r],
                 all[r].address, r);
        servers->labels[r] = strdup(label);
        if (!servers->labels[r])
            abort();
        if (all[r].port == 0 && failed < 0)
            failed = r;
    }
    free(all);
    if (failed >= 0 && failed != world->rank)
        snprintf(err, err_len, "rank %d (%s): its server for --topology did not start", failed,
                 world->hosts[failed]);
    return failed >= 0 ? -1 : 0;
}

void vp_servers_stop(struct vp_servers *servers, int ranks)
{
    vp_net_stop_server(servers->own);
    for (int r = 0; servers->labels && r < ranks; r++)
        free(servers->labels[r]);
    free(servers->labels);
    free(servers->peer);
    *servers = (struct vp_servers){ .own = -1 };
}
