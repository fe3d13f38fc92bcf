/* The launch's ranks and waits that give up (see world.h). */
#define _GNU_SOURCE
#include "mpi/world.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/procfs.h"
#include "engine/engine.h"
#include "mpi/last_words.h"
#include "mpi/liveness.h"

#define CONNECT_TIMEOUT_S 30
#define ABANDON_WAIT_NS 10000000000LL
#define SPIN_NS 200000          /* a wait spins this long, then polls this soon... */
#define POLL_FIRST_NS 20000
#define POLL_LONGEST_NS 2000000 /* ...and at most this far apart (idle ranks stay quiet) */

static _Noreturn void fail_init(const struct vp_world *world, const char *message)
{
    fprintf(stderr, "virtperf-mpi: rank %d (%s): %s\n", world->rank,
            world->hosts ? world->hosts[world->rank] : "?", message);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Two 64-bit FNV-1a hashes of some text (a clash of both is beyond reach). */
struct view {
    uint64_t hash[2];
};

static void fold(struct view *view, const char *text)
{
    for (; *text; text++)
        for (int h = 0; h < 2; h++)
            view->hash[h] = (view->hash[h] ^ (unsigned char)*text) * 0x100000001b3ULL;
}

static void fold_namespace(struct view *view, const char *kind)
{
    char path[64], text[96];
    struct stat namespace;
    snprintf(path, sizeof path, "/proc/self/ns/%s", kind);
    snprintf(text, sizeof text, " %s:%llu", kind,
             stat(path, &namespace) == 0 ? (unsigned long long)namespace.st_ino : 0ULL);
    fold(view, text);
}

/* What this process sees of its machine: the clock it reads (its boot and time
 * namespace) and what a fingerprint taken by it would hold (the clock's, every other
 * namespace it is in, its cgroup). Two ranks with the same clock view share offsets;
 * with the same machine view they would fingerprint alike. */
struct views {
    struct view clock, machine;
};

static struct views own_views(void)
{
    struct views views = { .clock = { { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL } } };
    static const char *const kinds[] = { "cgroup", "ipc", "mnt", "net", "pid", "user", "uts" };
    char text[4096] = "";
    if (vp_read_text_file("/proc/sys/kernel/random/boot_id", text, sizeof text) >= 0)
        fold(&views.clock, text);
    fold_namespace(&views.clock, "time");
    views.machine = views.clock;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        fold_namespace(&views.machine, kinds[i]);
    if (vp_read_text_file("/proc/self/cgroup", text, sizeof text) >= 0)
        fold(&views.machine, text);
    return views;
}

/* What each rank tells every other at the start: its host name, views and its machine's
 * CPUs. */
struct rank_card {
    char host[256];
    struct views views;
    int32_t cpus;
};

/* Every rank's card, and which of its views is compared. */
struct view_order {
    const struct rank_card *cards;
    size_t offset; /* of the view in struct rank_card */
};

static const struct view *view_of(const struct view_order *order, int rank)
{
    return (const struct view *)((const char *)&order->cards[rank] + order->offset);
}

/* For qsort_r: ranks by their view, then by rank. */
static int by_view(const void *a, const void *b, void *arg)
{
    int left = *(const int *)a, right = *(const int *)b;
    int order = memcmp(view_of(arg, left), view_of(arg, right), sizeof(struct view));
    return order ? order : (left > right) - (left < right);
}

/* By rank, the first rank whose view (at offset in each card) equals its own: sorted, so
 * that thousands of ranks each on a machine of its own cost no more than a sort. */
static int *firsts(const struct rank_card *cards, size_t count, size_t offset)
{
    int *first_of = calloc(count, sizeof *first_of), *sorted = malloc(count * sizeof *sorted);
    if (!first_of || !sorted)
        abort();
    for (size_t i = 0; i < count; i++)
        sorted[i] = (int)i;
    struct view_order order = { .cards = cards, .offset = offset };
    qsort_r(sorted, count, sizeof *sorted, by_view, &order);
    for (size_t i = 0, first = 0; i < count; i++) {
        if (memcmp(view_of(&order, sorted[i]), view_of(&order, sorted[first]),
                   sizeof(struct view)) != 0)
            first = i;
        first_of[sorted[i]] = sorted[first];
    }
    free(sorted);
    return first_of;
}

/* The most ranks one machine runs beyond its CPUs. */
static int crowding_of(const struct vp_world *world, const struct rank_card *cards)
{
    int *ranks_on = calloc((size_t)world->size, sizeof *ranks_on), most = 0;
    if (!ranks_on)
        abort();
    for (int rank = 0; rank < world->size; rank++) /* by each machine's first rank */
        ranks_on[world->machine_first[rank]]++;
    for (int first = 0; first < world->size; first++)
        if (ranks_on[first] - cards[first].cpus > most)
            most = ranks_on[first] - cards[first].cpus;
    free(ranks_on);
    return most;
}

/* Every rank's host name, machine_first and clock_first, in one gathering. */
static void know_ranks(struct vp_world *world)
{
    struct rank_card own = { .views = own_views(), .cpus = (int32_t)sysconf(_SC_NPROCESSORS_ONLN) };
    gethostname(own.host, sizeof own.host - 1);
    struct rank_card *cards = calloc((size_t)world->size, sizeof *cards);
    world->hosts = calloc((size_t)world->size, sizeof *world->hosts);
    if (!cards || !world->hosts)
        abort();
    MPI_Allgather(&own, sizeof own, MPI_BYTE, cards, sizeof own, MPI_BYTE, MPI_COMM_WORLD);
    for (int rank = 0; rank < world->size; rank++) {
        memcpy(world->hosts[rank], cards[rank].host, sizeof world->hosts[rank]);
        world->hosts[rank][sizeof world->hosts[rank] - 1] = '\0';
    }
    size_t count = (size_t)world->size;
    world->machine_first = firsts(cards, count, offsetof(struct rank_card, views.machine));
    world->clock_first = firsts(cards, count, offsetof(struct rank_card, views.clock));
    world->crowding = crowding_of(world, cards);
    free(cards);
}

void vp_world_init(struct vp_world *world, int *argc, char ***argv)
{
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "virtperf-mpi: MPI_Init failed (started by mpirun or srun?)\n");
        exit(1);
    }
    *world = (struct vp_world){ 0 };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* a failure is ours to report */
    MPI_Comm_rank(MPI_COMM_WORLD, &world->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world->size);
    know_ranks(world);

    char contact[1024] = "", err[512] = "";
    if (world->rank == 0 && vp_liveness_listen(contact, sizeof contact, err, sizeof err) != 0)
        fail_init(world, err);
    MPI_Bcast(contact, sizeof contact, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (vp_liveness_start(world->rank, world->size, contact, CONNECT_TIMEOUT_S, err,
                          sizeof err) != 0)
        fail_init(world, err);
    vp_liveness_catch_signals();
    vp_world_meet(world);
}

void vp_world_exit(struct vp_world *world, int status)
{
    vp_last_words_say('D');
    if (!vp_engine_interrupted()) /* (a signal: straight on, as before) */
        vp_world_meet(world); /* the others nap while rank 0 stores the run */
    MPI_Finalize();
    free(world->hosts);
    free(world->machine_first);
    free(world->clock_first);
    exit(status);
}

void vp_world_abandon(const struct vp_world *world, int status)
{
    fflush(NULL);
    /* A rank that ends without MPI_Finalize makes Open MPI kill the others at once: the
     * others wait until rank 0, which records the run, has gone (or for long enough). */
    int64_t deadline = vp_now_ns() + ABANDON_WAIT_NS;
    while (world->rank != 0 && vp_liveness_dead() != 0 && vp_now_ns() < deadline) {
        struct timespec pause = { 0, 10000000 };
        nanosleep(&pause, NULL);
    }
    _exit(status);
}

int vp_world_wait(const struct vp_world *world, MPI_Request *request, char *reason,
                  size_t reason_len)
{
    int64_t pause_ns = POLL_FIRST_NS, spin_until = vp_now_ns() + SPIN_NS;
    for (;;) {
        /* Asked first: once a rank is gone, touching MPI can end this process before it
         * has recorded why. */
        int dead = vp_liveness_dead();
        if (dead >= 0) {
            char death[160];
            vp_liveness_death(death, sizeof death);
            snprintf(reason, reason_len, "rank %d (%s) %s", dead, world->hosts[dead], death);
            return -1;
        }
        if (vp_engine_interrupted()) {
            snprintf(reason, reason_len, "interrupted by a signal");
            return -1;
        }
        int done = 0;
        if (MPI_Test(request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            snprintf(reason, reason_len, "MPI failed: a rank or its link is gone");
            return -1;
        }
        if (done)
            return 0;
        if (vp_now_ns() < spin_until)
            continue; /* an answer due at once (a clock exchange) is not held up by a sleep */
        if (vp_liveness_nap(pause_ns)) { /* rank 0 turned to this rank: its words come now */
            pause_ns = POLL_FIRST_NS;
            spin_until = vp_now_ns() + SPIN_NS;
            continue;
        }
        pause_ns = pause_ns * 2 < POLL_LONGEST_NS ? pause_ns * 2 : POLL_LONGEST_NS;
    }
}

void vp_world_await(const struct vp_world *world, MPI_Request *request)
{
    char reason[256];
    if (vp_world_wait(world, request, reason, sizeof reason) == 0)
        return;
    if (world->rank == 0)
        fprintf(stderr, "virtperf-mpi: %s\n", reason);
    vp_world_abandon(world, 1);
}

void vp_world_meet(const struct vp_world *world)
{
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    vp_world_await(world, &request);
}

void vp_world_ranks_of(MPI_Comm comm, int count, const int *ranks, int *in_world)
{
    if (comm == MPI_COMM_WORLD) {
        memcpy(in_world, ranks, (size_t)count * sizeof *in_world);
        return;
    }
    MPI_Group group, world_group;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_translate_ranks(group, count, ranks, world_group, in_world);
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
}

void vp_world_turn_to(const struct vp_world *world, MPI_Comm comm, int peer)
{
    static int turned_to = -1; /* rank 0 talks with one rank at a time */
    if (world->rank != 0)
        return;
    int in_world;
    vp_world_ranks_of(comm, 1, &peer, &in_world);
    if (in_world == turned_to || in_world == MPI_UNDEFINED)
        return;
    turned_to = in_world;
    vp_liveness_wake(in_world);
}

/* Messages go in pieces MPI's int counts can hold. */
#define PIECE ((size_t)1 << 30)

int vp_world_send(const struct vp_world *world, const void *data, size_t len, int peer,
                  MPI_Comm comm, char *reason, size_t reason_len)
{
    uint64_t header = len;
    MPI_Request request;
    vp_world_turn_to(world, comm, peer);
    MPI_Isend(&header, 1, MPI_UINT64_T, peer, VP_WORLD_TAG, comm, &request);
    if (vp_world_wait(world, &request, reason, reason_len) != 0)
        return -1;
    for (size_t sent = 0; sent < len; sent += PIECE) {
        size_t piece = len - sent < PIECE ? len - sent : PIECE;
        MPI_Isend((const char *)data + sent, (int)piece, MPI_BYTE, peer, VP_WORLD_TAG, comm,
                  &request);
        if (vp_world_wait(world, &request, reason, reason_len) != 0)
            return -1;
    }
    return 0;
}

int vp_world_receive(const struct vp_world *world, size_t most, void **data, size_t *len,
                     int peer, MPI_Comm comm, char *reason, size_t reason_len)
{
    uint64_t header;
    MPI_Request request;
    vp_world_turn_to(world, comm, peer);
    MPI_Irecv(&header, 1, MPI_UINT64_T, peer, VP_WORLD_TAG, comm, &request);
    if (vp_world_wait(world, &request, reason, reason_len) != 0)
        return -1;
    if (header > most) {
        snprintf(reason, reason_len, "rank %d sent %llu bytes: accepted: at most %zu", peer,
                 (unsigned long long)header, most);
        return -1;
    }
    char *buffer = calloc(1, (size_t)header + 1);
    if (!buffer) {
        snprintf(reason, reason_len, "out of memory for %llu bytes from rank %d",
                 (unsigned long long)header, peer);
        return -1;
    }
    for (size_t got = 0; got < header; got += PIECE) {
        size_t piece = header - got < PIECE ? header - got : PIECE;
        MPI_Irecv(buffer + got, (int)piece, MPI_BYTE, peer, VP_WORLD_TAG, comm, &request);
        if (vp_world_wait(world, &request, reason, reason_len) != 0) {
            free(buffer);
            return -1;
        }
    }
    *data = buffer;
    *len = header;
    return 0;
}
