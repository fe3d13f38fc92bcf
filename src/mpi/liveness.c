/* The connections that tell which rank died (see liveness.h). */
#define _GNU_SOURCE
#include "mpi/liveness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "mpi/last_words.h"

#define MAX_RANKS 4096

static int listen_fd = -1;
static int rank0_fd = -1;          /* on ranks other than 0 */
static struct pollfd *watched;     /* rank 0: one per other rank, by rank; others: rank 0 */
static int *watched_rank;
static int watched_count;
static atomic_int dead_rank = -1;
static int *connection_of;         /* rank 0: each rank's connection, by rank (-1: none) */
static int woken_fd = -1;          /* an eventfd: the watcher's nudge to a napping rank */

/* What rank 0 heard from each watched rank (last_words.h): whether it said how it ended
 * ('D' or 'I'), what it died of (a fatal signal's number, EXITED + an exit status, 0:
 * nothing said) and its last stderr line; a parse that spans reads. */
#define EXITED 256
enum hearing { WORDS, LINE, SIGNAL_CODE, EXIT_CODE };
struct heard {
    bool ended;
    int cause;
    char line[200];
    size_t line_len;
    enum hearing state;
};
static struct heard *heard;      /* one per watched rank */
static atomic_int dead_index = -1; /* heard[] of dead_rank, final once it is set */

int vp_liveness_dead(void)
{
    return atomic_load(&dead_rank);
}

void vp_liveness_wake(int rank)
{
    if (!connection_of || rank < 1 || rank > watched_count || connection_of[rank] < 0)
        return;
    if (send(connection_of[rank], "W", 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
        /* gone (its death is the watcher's to tell) or its buffer full of wakes: no matter */
    }
}

bool vp_liveness_nap(int64_t ns)
{
    struct timespec pause = { ns / 1000000000, ns % 1000000000 };
    if (woken_fd < 0) {
        nanosleep(&pause, NULL);
        return false;
    }
    struct pollfd woken = { .fd = woken_fd, .events = POLLIN };
    if (ppoll(&woken, 1, &pause, NULL) <= 0)
        return false;
    uint64_t count;
    return read(woken_fd, &count, sizeof count) == sizeof count;
}

void vp_liveness_death(char *buf, size_t len)
{
    int index = atomic_load(&dead_index);
    const struct heard *last = index >= 0 ? &heard[index] : NULL;
    int cause = last ? last->cause : 0;
    const char *name = cause > 0 && cause < EXITED ? sigabbrev_np(cause) : NULL;
    char line[260] = "";
    if (last && last->line[0])
        snprintf(line, sizeof line, "; its last error line: %.200s", last->line);
    if (name)
        snprintf(buf, len, "died of SIG%s (signal %d)%s", name, cause, line);
    else if (cause >= EXITED)
        snprintf(buf, len, "died: exited with status %d before the run ended%s", cause - EXITED,
                 line);
    else
        snprintf(buf, len, "died: its connection closed without a word (killed by SIGKILL, "
                 "the OOM killer's, or its host vanished)");
}

void vp_liveness_catch_signals(void)
{
    vp_last_words_start(rank0_fd);
}

int vp_liveness_listen(char *text, size_t text_len, char *err, size_t err_len)
{
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t len = sizeof address;
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(listen_fd, MAX_RANKS) != 0 ||
        getsockname(listen_fd, (struct sockaddr *)&address, &len) != 0) {
        snprintf(err, err_len, "rank 0: cannot listen for the other ranks: %s", strerror(errno));
        return -1;
    }
    snprintf(text, text_len, "%u", (unsigned)ntohs(address.sin_port));
    size_t used = strlen(text);
    if (vp_host_addresses(text + used, text_len - used) != 0) {
        snprintf(err, err_len, "rank 0: cannot list its addresses: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int vp_host_addresses(char *text, size_t text_len)
{
    struct ifaddrs *interfaces;
    if (getifaddrs(&interfaces) != 0)
        return -1;
    text[0] = '\0';
    for (int loopback = 0; loopback <= 1; loopback++) {
        for (struct ifaddrs *entry = interfaces; entry; entry = entry->ifa_next) {
            if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET)
                continue;
            const struct in_addr *ip = &((struct sockaddr_in *)entry->ifa_addr)->sin_addr;
            bool is_loopback = (ntohl(ip->s_addr) >> 24) == 127;
            if (is_loopback != (bool)loopback)
                continue;
            char name[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, ip, name, sizeof name);
            if (strlen(text) + strlen(name) + 2 < text_len)
                strcat(strcat(text, " "), name);
        }
    }
    freeifaddrs(interfaces);
    return 0;
}

/* Ends the main thread's nap (a wake word came, or a rank died). */
static void nudge(void)
{
    uint64_t one = 1;
    if (write(woken_fd, &one, sizeof one) < 0) {
        /* the counter is full: a nudge is already waiting */
    }
}

/* One byte of what a watched rank says. */
static void hear_byte(struct heard *rank, char byte)
{
    switch (rank->state) {
    case LINE:
        if (byte == '\n')
            rank->state = WORDS;
        else if (rank->line_len + 1 < sizeof rank->line && byte != '\r') {
            rank->line[rank->line_len++] = byte;
            rank->line[rank->line_len] = '\0';
        }
        return;
    case SIGNAL_CODE:
    case EXIT_CODE:
        if (!rank->cause)
            rank->cause = (rank->state == EXIT_CODE ? EXITED : 0) + (unsigned char)byte;
        rank->state = WORDS;
        return;
    case WORDS:
        if (byte == 'W')
            nudge();
        rank->ended = rank->ended || byte == 'D' || byte == 'I';
        rank->state = byte == 'L' ? LINE : byte == 'S' ? SIGNAL_CODE : byte == 'E' ? EXIT_CODE
                                                                                : WORDS;
        if (byte == 'L')
            rank->line_len = 0, rank->line[0] = '\0';
        return;
    }
}

/* Reads what a watched rank says; on a close without 'D' or 'I', marks it dead. */
static void hear(int index)
{
    char words[256];
    ssize_t got = read(watched[index].fd, words, sizeof words);
    if (got > 0) {
        for (ssize_t i = 0; i < got; i++)
            hear_byte(&heard[index], words[i]);
        return;
    }
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (!heard[index].ended) {
        int expected = -1;
        if (atomic_compare_exchange_strong(&dead_rank, &expected, watched_rank[index]))
            atomic_store(&dead_index, index);
        nudge();
    }
    /* Left open: rank 0's main thread may still write a wake word to it (the peer gone,
     * the write just fails), and a closed number could be another file's by then. */
    watched[index].fd = -1; /* poll ignores it from now on */
}

static void *watch(void *unused)
{
    (void)unused;
    for (;;) {
        if (poll(watched, (nfds_t)watched_count, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < watched_count; i++)
            if (watched[i].fd >= 0 && watched[i].revents)
                hear(i);
    }
    return NULL;
}

static int start_watching(char *err, size_t err_len)
{
    heard = calloc((size_t)(watched_count ? watched_count : 1), sizeof *heard);
    if (!heard)
        abort();
    woken_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (woken_fd < 0) {
        snprintf(err, err_len, "cannot make the liveness eventfd: %s", strerror(errno));
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* signals go to the main thread */
    pthread_t thread;
    int status = pthread_create(&thread, NULL, watch, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (status != 0) {
        snprintf(err, err_len, "cannot start the liveness thread: %s", strerror(status));
        return -1;
    }
    pthread_detach(thread);
    return 0;
}

static int accept_ranks(int size, double timeout_s, char *err, size_t err_len)
{
    watched_count = size - 1;
    watched = calloc((size_t)(watched_count ? watched_count : 1), sizeof *watched);
    watched_rank = calloc((size_t)(watched_count ? watched_count : 1), sizeof *watched_rank);
    connection_of = malloc((size_t)size * sizeof *connection_of);
    if (!watched || !watched_rank || !connection_of)
        abort();
    for (int rank = 0; rank < size; rank++)
        connection_of[rank] = -1;
    int64_t deadline = vp_now_ns() + (int64_t)(timeout_s * 1e9);
    for (int accepted = 0; accepted < watched_count; accepted++) {
        struct pollfd waiting = { .fd = listen_fd, .events = POLLIN };
        int64_t left_ms = (deadline - vp_now_ns()) / 1000000;
        if (left_ms <= 0 || poll(&waiting, 1, (int)left_ms) <= 0) {
            snprintf(err, err_len, "rank 0: only %d of the %d other ranks connected within "
                     "%.0f s (a firewall between the hosts?)", accepted, watched_count, timeout_s);
            return -1;
        }
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        int32_t rank = -1;
        if (fd < 0 || recv(fd, &rank, sizeof rank, MSG_WAITALL) != sizeof rank || rank < 1 ||
            rank >= size) {
            snprintf(err, err_len, "rank 0: a rank's liveness connection failed or said no "
                     "valid rank");
            return -1;
        }
        watched[accepted] = (struct pollfd){ .fd = fd, .events = POLLIN };
        watched_rank[accepted] = rank;
        connection_of[rank] = fd;
    }
    close(listen_fd);
    return start_watching(err, err_len);
}

static int connect_to_rank0(int rank, const char *text, char *err, size_t err_len)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", text);
    char *save, *port = strtok_r(copy, " ", &save), *name;
    while ((name = strtok_r(NULL, " ", &save))) {
        struct sockaddr_in address = { .sin_family = AF_INET,
                                       .sin_port = htons((uint16_t)atoi(port)) };
        if (inet_pton(AF_INET, name, &address.sin_addr) != 1)
            continue;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct timeval limit = { 3, 0 }; /* an address another host cannot reach */
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        int32_t said = rank;
        if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
            write(fd, &said, sizeof said) == sizeof said) {
            rank0_fd = fd;
            watched_count = 1;
            watched = calloc(1, sizeof *watched);
            watched_rank = calloc(1, sizeof *watched_rank);
            if (!watched || !watched_rank)
                abort();
            watched[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
            watched_rank[0] = 0;
            return start_watching(err, err_len);
        }
        if (fd >= 0)
            close(fd);
    }
    snprintf(err, err_len, "rank %d: cannot reach rank 0 at any of its addresses (port %s)",
             rank, port ? port : "?");
    return -1;
}

int vp_liveness_start(int rank, int size, const char *text, double timeout_s, char *err,
                      size_t err_len)
{
    if (size > MAX_RANKS) {
        snprintf(err, err_len, "%d ranks; accepted: at most %d", size, MAX_RANKS);
        return -1;
    }
    return rank == 0 ? accept_ranks(size, timeout_s, err, err_len)
                     : connect_to_rank0(rank, text, err, err_len);
}
