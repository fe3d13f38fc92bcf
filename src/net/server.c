/* The serve loop: listening, session threads, handshake, and the tests (the probe
 * test's own loop is probe_server.c). */
#define _GNU_SOURCE
#include "net/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "net/admission.h"
#include "net/auth.h"
#include "net/cpu_span.h"
#include "net/probe_server.h"
#include "net/server_udp.h"
#include "net/wire.h"

#define ERROR_LEN 256

struct server {
    const struct vp_serve_config *config;
    pthread_mutex_t lock;
    pthread_cond_t idle;
    struct vp_admission admission; /* the session slots, under lock */
    atomic_bool stopping; /* vp_serve is ending every session */
    /* Each slot's session thread, joined before its slot is reused and at shutdown, so
     * no thread (and none of the OpenSSL state it holds) outlives vp_serve. Only the
     * accepting thread touches these. */
    pthread_t *threads;
    bool *joinable;
};

struct session {
    struct server *server;
    int fd;
    unsigned slot;
    bool said_hello; /* the peer sent its first frame */
    char peer[INET6_ADDRSTRLEN + 8];
};

static void log_line(const struct server *server, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void log_line(const struct server *server, const char *format, ...)
{
    if (!server->config->log)
        return;
    char stamp[32];
    vp_utc_timestamp(stamp, sizeof stamp);
    va_list args;
    va_start(args, format);
    flockfile(stderr);
    fprintf(stderr, "%s virtperf serve: ", stamp);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(args);
}

/* HELLO, CHALLENGE, AUTH, WELCOME: nothing else is accepted before. */
static int handshake(struct session *session, char *err, size_t err_len)
{
    const struct vp_serve_config *config = session->server->config;
    struct vp_frame_header header;
    if (vp_wire_recv_header(session->fd, &header, err, err_len) != 0)
        return -1;
    session->said_hello = true;
    pthread_mutex_lock(&session->server->lock);
    vp_admission_progress(&session->server->admission, session->slot, vp_now_ns());
    pthread_mutex_unlock(&session->server->lock);
    if (header.type != VP_FRAME_HELLO) {
        snprintf(err, err_len, "expected HELLO, received %s", vp_frame_type_name(header.type));
        return -1;
    }
    uint8_t challenge[VP_NONCE_BYTES + 1];
    if (vp_auth_nonce(challenge) != 0) {
        snprintf(err, err_len, "no random nonce available");
        return -1;
    }
    challenge[VP_NONCE_BYTES] = config->key != NULL;
    uint8_t mac[VP_MAC_BYTES];
    if (vp_wire_send(session->fd, VP_FRAME_CHALLENGE, challenge, sizeof challenge, err, err_len) != 0 ||
        vp_wire_expect(session->fd, VP_FRAME_AUTH, mac, sizeof mac, NULL, err, err_len) != 0)
        return -1;
    if (config->key) {
        uint8_t want[VP_MAC_BYTES];
        vp_auth_mac(config->key, config->key_len, challenge, want);
        if (!vp_auth_equal(mac, want)) {
            snprintf(err, err_len, "authentication failed: wrong key (see --key-file)");
            return -1;
        }
    }
    return vp_wire_send(session->fd, VP_FRAME_WELCOME, NULL, 0, err, err_len);
}

static int64_t deadline_after(uint32_t ms)
{
    return vp_now_ns() + (int64_t)ms * 1000000;
}

/* Counts DATA until END; bytes before omit_ms are not counted. */
static int receive_stream(struct session *session, const struct vp_test_request *request,
                          struct vp_test_result *result, char *err, size_t err_len)
{
    struct vp_cpu_span span = { 0 };
    int64_t omit_until = 0;
    for (;;) {
        struct vp_frame_header header;
        if (vp_wire_recv_header(session->fd, &header, err, err_len) != 0)
            return -1;
        int64_t now = vp_now_ns();
        if (header.type == VP_FRAME_END)
            break;
        if (header.type != VP_FRAME_DATA) {
            snprintf(err, err_len, "expected DATA or END, received %s",
                     vp_frame_type_name(header.type));
            return -1;
        }
        if (!omit_until)
            omit_until = now + (int64_t)request->omit_ms * 1000000;
        if (vp_wire_discard(session->fd, &header, err, err_len) != 0)
            return -1;
        if (now >= omit_until) {
            if (!span.from)
                vp_cpu_span_start(&span);
            result->bytes += header.length;
        }
    }
    vp_cpu_span_finish(&span, result);
    return 0;
}

/* Sends DATA for omit + duration, then END. */
static int send_stream(struct session *session, const struct vp_test_request *request,
                       struct vp_test_result *result, char *err, size_t err_len)
{
    uint8_t *message = calloc(1, request->message_size);
    if (!message) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    struct vp_cpu_span span = { 0 };
    int64_t omit_until = deadline_after(request->omit_ms);
    int64_t end = deadline_after(request->omit_ms + request->duration_ms);
    int status = 0;
    for (int64_t now = vp_now_ns(); now < end && status == 0; now = vp_now_ns()) {
        if (now >= omit_until && !span.from)
            vp_cpu_span_start(&span);
        status = vp_wire_send(session->fd, VP_FRAME_DATA, message, request->message_size, err,
                              err_len);
        if (status == 0 && span.from)
            result->bytes += request->message_size;
    }
    free(message);
    if (status != 0 || vp_wire_send(session->fd, VP_FRAME_END, NULL, 0, err, err_len) != 0)
        return -1;
    vp_cpu_span_finish(&span, result);
    return 0;
}

/* Answers one frame of the type a request/response loop expects, its payload read. */
typedef int (*frame_answer)(struct session *session, const struct vp_frame_header *header,
                            const uint8_t *payload, void *context, struct vp_test_result *result,
                            char *err, size_t err_len);

/* Reads frames until END, each of type want with a payload of size bytes (header and
 * payload in one receive, into buffer) answered by answer; anything else ends the test
 * with an error naming it. The result's span covers the whole loop. */
static int answer_until_end(struct session *session, uint8_t want, uint32_t size,
                            uint8_t *buffer, frame_answer answer, void *context,
                            struct vp_test_result *result, char *err, size_t err_len)
{
    struct vp_cpu_span span;
    vp_cpu_span_start(&span);
    int status = 0;
    for (;;) {
        struct vp_frame_header header;
        if ((status = vp_wire_recv_sized(session->fd, &header, buffer, size, err, err_len)) != 0)
            break;
        if (header.type == VP_FRAME_END && header.length == 0)
            break;
        if (header.type != want || header.length != size) {
            snprintf(err, err_len, "expected %s of %u bytes or END, received %s of %u",
                     vp_frame_type_name(want), size, vp_frame_type_name(header.type),
                     header.length);
            status = -1;
            break;
        }
        if ((status = answer(session, &header, buffer, context, result, err, err_len)) != 0)
            break;
        result->transactions++;
    }
    vp_cpu_span_finish(&span, result);
    return status;
}

struct response {
    const uint8_t *bytes;
    uint32_t size;
};

/* A REQUEST: a RESPONSE of the asked size sent. */
static int answer_request(struct session *session, const struct vp_frame_header *header,
                          const uint8_t *payload, void *context, struct vp_test_result *result,
                          char *err, size_t err_len)
{
    (void)payload;
    const struct response *response = context;
    if (vp_wire_send(session->fd, VP_FRAME_RESPONSE, response->bytes, response->size, err,
                     err_len) != 0)
        return -1;
    result->bytes += header->length + response->size;
    return 0;
}

/* Answers each REQUEST of message_size bytes with a RESPONSE of response_size bytes
 * until END. */
static int answer_requests(struct session *session, const struct vp_test_request *request,
                           struct vp_test_result *result, char *err, size_t err_len)
{
    uint8_t *bytes = calloc(1, request->response_size ? request->response_size : 1);
    uint8_t *received = malloc(request->message_size ? request->message_size : 1);
    if (!bytes || !received) {
        free(bytes);
        free(received);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    struct response response = { bytes, request->response_size };
    int status = answer_until_end(session, VP_FRAME_REQUEST, request->message_size, received,
                                  answer_request, &response, result, err, err_len);
    free(bytes);
    free(received);
    return status;
}

/* A TIME_QUERY: this machine's wall-clock time when it came (its frame just read) and
 * when the reply leaves, the reference side of time.drift. */
static int answer_time_query(struct session *session, const struct vp_frame_header *header,
                             const uint8_t *query, void *context, struct vp_test_result *result,
                             char *err, size_t err_len)
{
    (void)header;
    (void)context;
    (void)result;
    struct vp_time_reply answer = { .received_ns = vp_clock_ns(CLOCK_REALTIME) };
    uint8_t reply[VP_TIME_REPLY_BYTES];
    vp_time_query_decode(query, VP_TIME_QUERY_BYTES, &answer.sequence);
    answer.sent_ns = vp_clock_ns(CLOCK_REALTIME);
    vp_time_reply_encode(&answer, reply);
    return vp_wire_send(session->fd, VP_FRAME_TIME_REPLY, reply, sizeof reply, err, err_len);
}

/* Answers each TIME_QUERY until END. */
static int answer_time_queries(struct session *session, struct vp_test_result *result, char *err,
                               size_t err_len)
{
    uint8_t query[VP_TIME_QUERY_BYTES];
    return answer_until_end(session, VP_FRAME_TIME_QUERY, sizeof query, query, answer_time_query,
                            NULL, result, err, err_len);
}

static void apply_window(int fd, uint32_t window, struct vp_test_ready *ready)
{
    if (window) {
        int size = (int)window;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    int value = 0;
    socklen_t len = sizeof value;
    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, &len);
    ready->send_buffer = (uint32_t)value;
    len = sizeof value;
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, &len);
    ready->receive_buffer = (uint32_t)value;
}

static int run_test(struct session *session, char *err, size_t err_len, char *summary,
                    size_t summary_len)
{
    uint8_t payload[VP_TEST_REQUEST_BYTES];
    uint32_t len;
    struct vp_test_request request;
    if (vp_wire_expect(session->fd, VP_FRAME_TEST, payload, sizeof payload, &len, err, err_len) != 0 ||
        vp_test_request_decode(payload, len, &request, err, err_len) != 0)
        return -1;
    struct vp_test_ready ready = { 0 };
    int udp_fd = -1;
    if (request.transport == VP_TRANSPORT_UDP) {
        udp_fd = vp_udp_open(session->fd, request.window, &ready.udp_port);
        if (udp_fd < 0) {
            snprintf(err, err_len, "cannot open a UDP socket: %s", strerror(errno));
            return -1;
        }
        apply_window(udp_fd, 0, &ready);
    } else {
        apply_window(session->fd, request.window, &ready);
    }
    uint8_t encoded_ready[VP_TEST_READY_BYTES];
    vp_test_ready_encode(&ready, encoded_ready);
    struct vp_test_result result = { .ticks_per_second = (uint32_t)sysconf(_SC_CLK_TCK) };
    int status = vp_wire_send(session->fd, VP_FRAME_READY, encoded_ready, sizeof encoded_ready,
                              err, err_len);
    struct vp_probe_report report;
    if (status == 0 && request.kind == VP_TEST_PROBE) {
        status = vp_probe_serve(session->fd, udp_fd, &request, session->server->config->idle_timeout_s,
                                &report, &result, err, err_len);
        uint8_t encoded_report[VP_PROBE_REPORT_MAX_BYTES];
        size_t report_len = vp_probe_report_encode(&report, encoded_report);
        if (status == 0)
            status = vp_wire_send(session->fd, VP_FRAME_PROBE_REPORT, encoded_report,
                                  (uint32_t)report_len, err, err_len);
    } else if (status == 0 && udp_fd >= 0)
        status = vp_udp_test_run(session->fd, session->server->config->idle_timeout_s, udp_fd,
                                 &request, &result, err, err_len);
    else if (status == 0 && request.kind == VP_TEST_STREAM_TO_SERVER)
        status = receive_stream(session, &request, &result, err, err_len);
    else if (status == 0 && request.kind == VP_TEST_STREAM_FROM_SERVER)
        status = send_stream(session, &request, &result, err, err_len);
    else if (status == 0 && request.kind == VP_TEST_RR)
        status = answer_requests(session, &request, &result, err, err_len);
    else if (status == 0 && request.kind == VP_TEST_TIME)
        status = answer_time_queries(session, &result, err, err_len);
    /* CONNECT: the result at once */
    if (udp_fd >= 0)
        close(udp_fd);
    if (status != 0)
        return -1;
    uint8_t encoded[VP_TEST_RESULT_BYTES];
    vp_test_result_encode(&result, encoded);
    snprintf(summary, summary_len, "test %u%s: %llu bytes, %llu transactions in %.3f s",
             request.kind, udp_fd >= 0 ? " (udp)" : "", (unsigned long long)result.bytes,
             (unsigned long long)result.transactions, (double)result.elapsed_ns / 1e9);
    return vp_wire_send(session->fd, VP_FRAME_RESULT, encoded, sizeof encoded, err, err_len);
}

static void release_session(struct session *session)
{
    struct server *server = session->server;
    pthread_mutex_lock(&server->lock);
    vp_admission_release(&server->admission, session->slot);
    pthread_cond_broadcast(&server->idle);
    pthread_mutex_unlock(&server->lock);
    close(session->fd);
    free(session);
}

/* Returns whether the handshake was evicted to make room for a newer one. */
static bool handshake_done(struct server *server, unsigned slot)
{
    pthread_mutex_lock(&server->lock);
    bool evicted = vp_admission_handshake_done(&server->admission, slot);
    pthread_mutex_unlock(&server->lock);
    return evicted;
}

static void *session_thread(void *arg)
{
    struct session *session = arg;
    char err[ERROR_LEN] = "", summary[160] = "";
    vp_wire_set_timeout(session->fd, session->server->config->idle_timeout_s);
    int one = 1;
    setsockopt(session->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int shaken = handshake(session, err, sizeof err);
    bool evicted = handshake_done(session->server, session->slot);
    if (shaken != 0 || run_test(session, err, sizeof err, summary, sizeof summary) != 0) {
        vp_wire_send_error(session->fd, err);
        if (evicted)
            log_line(session->server, "%s: evicted: its handshake made room for another "
                     "when every handshake slot was taken", session->peer);
        else if (atomic_load(&session->server->stopping))
            log_line(session->server, "%s: ended: the server is stopping", session->peer);
        else if (!session->said_hello && strcmp(err, VP_WIRE_CLOSED) == 0)
            log_line(session->server, "%s: closed without a test (a port or route check)",
                     session->peer);
        else
            log_line(session->server, "%s: refused or failed: %s", session->peer, err);
    } else {
        log_line(session->server, "%s: %s", session->peer, summary);
    }
    release_session(session);
    return NULL;
}

static int listen_on(const struct vp_serve_config *config, char *err, size_t err_len)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
    struct addrinfo *found = NULL;
    char port[8];
    snprintf(port, sizeof port, "%u", config->port);
    int rc = getaddrinfo(config->bind ? config->bind : "::", port, &hints, &found);
    if (rc != 0 && !config->bind)
        rc = getaddrinfo("0.0.0.0", port, &hints, &found); /* no IPv6 here */
    if (rc != 0) {
        snprintf(err, err_len, "--bind %s: %s", config->bind ? config->bind : "(all)", gai_strerror(rc));
        return -1;
    }
    int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1, zero = 0;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (found->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    }
    if (fd < 0 || bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, 256) != 0) {
        snprintf(err, err_len, "cannot listen on %s port %u: %s",
                 config->bind ? config->bind : "all addresses", config->port, strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(found);
    return fd;
}

static void describe_peer(const struct sockaddr_storage *address, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
    getnameinfo((const struct sockaddr *)address, sizeof *address, host, sizeof host, port,
                sizeof port, NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(buf, len, "%s:%s", host, port);
}

static void refuse(int fd, const char *text)
{
    vp_wire_set_timeout(fd, 1);
    vp_wire_send_error(fd, text);
    close(fd);
}

#define SLOT_WAIT_NS 1000000000 /* how long a connection waits for an evicted slot */

/* Starts a session thread for fd, or refuses it when every slot is taken by a session
 * that is not ending (an evicted one is waited for: it ends at once). */
static void start_session(struct server *server, int fd, const struct sockaddr_storage *from)
{
    const void *address = from->ss_family == AF_INET6
                              ? (const void *)&((const struct sockaddr_in6 *)from)->sin6_addr
                              : (const void *)&((const struct sockaddr_in *)from)->sin_addr;
    uint64_t source = vp_admission_source(address, from->ss_family == AF_INET6 ? 16 : 4);
    pthread_mutex_lock(&server->lock);
    int taken = vp_admission_take(&server->admission, fd, source, vp_now_ns());
    if (taken < 0 && server->admission.ending > 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += SLOT_WAIT_NS / 1000000000;
        while (taken < 0 && server->admission.ending > 0 &&
               pthread_cond_timedwait(&server->idle, &server->lock, &until) == 0)
            taken = vp_admission_take(&server->admission, fd, source, vp_now_ns());
    }
    pthread_mutex_unlock(&server->lock);
    if (taken < 0) {
        char text[96];
        snprintf(text, sizeof text, "server busy: %u sessions running (--max-sessions)",
                 server->config->max_sessions);
        refuse(fd, text);
        return;
    }
    unsigned slot = (unsigned)taken;
    if (server->joinable[slot]) { /* the slot's last session has released it: it is ending */
        pthread_join(server->threads[slot], NULL);
        server->joinable[slot] = false;
    }
    struct session *session = calloc(1, sizeof *session);
    if (!session)
        abort();
    *session = (struct session){ .server = server, .fd = fd, .slot = slot };
    describe_peer(from, session->peer, sizeof session->peer);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    if (pthread_create(&server->threads[slot], &attributes, session_thread, session) == 0) {
        server->joinable[slot] = true;
    } else {
        handshake_done(server, slot);
        release_session(session);
    }
    pthread_attr_destroy(&attributes);
}

int vp_serve_check_fds(unsigned max_sessions, char *err, size_t err_len)
{
    rlim_t needed = 2 * (rlim_t)max_sessions + VP_SERVE_SPARE_FDS;
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed)
        return 0;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
        snprintf(err, err_len, "--max-sessions %u needs %llu file descriptors (two a session, "
                 "%d spare); this process may open %llu (ulimit -n): accepted here: "
                 "--max-sessions up to %llu", max_sessions, (unsigned long long)needed,
                 VP_SERVE_SPARE_FDS, (unsigned long long)limit.rlim_max,
                 (unsigned long long)((limit.rlim_max - VP_SERVE_SPARE_FDS) / 2));
        return -1;
    }
    limit.rlim_cur = needed;
    return setrlimit(RLIMIT_NOFILE, &limit) == 0 ? 0 : -1;
}

int vp_serve(const struct vp_serve_config *config, volatile sig_atomic_t *stop, int ready_fd,
             char *err, size_t err_len)
{
    if (vp_serve_check_fds(config->max_sessions, err, err_len) != 0)
        return -1;
    int listener = listen_on(config, err, err_len);
    if (listener < 0)
        return -1;
    struct sockaddr_storage bound;
    socklen_t bound_len = sizeof bound;
    getsockname(listener, (struct sockaddr *)&bound, &bound_len);
    uint16_t port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                      : ((struct sockaddr_in *)&bound)->sin_port);
    if (ready_fd >= 0) {
        uint8_t encoded[2] = { (uint8_t)(port >> 8), (uint8_t)port };
        if (write(ready_fd, encoded, 2) != 2) {
            close(listener);
            snprintf(err, err_len, "cannot report the port");
            return -1;
        }
    }
    struct server server = { .config = config, .lock = PTHREAD_MUTEX_INITIALIZER,
                             .idle = PTHREAD_COND_INITIALIZER };
    vp_admission_init(&server.admission, config->max_sessions);
    server.threads = calloc(config->max_sessions, sizeof *server.threads);
    server.joinable = calloc(config->max_sessions, sizeof *server.joinable);
    if (!server.threads || !server.joinable)
        abort();
    log_line(&server, "listening on %s port %u (%s, at most %u sessions)",
             config->bind ? config->bind : "all addresses", port,
             config->key ? "key required" : "no key", config->max_sessions);
    bool out_of_fds_logged = false;
    while (!*stop) {
        struct pollfd waiting = { .fd = listener, .events = POLLIN };
        if (poll(&waiting, 1, 200) <= 0)
            continue;
        struct sockaddr_storage from;
        socklen_t from_len = sizeof from;
        int fd = accept4(listener, (struct sockaddr *)&from, &from_len, SOCK_CLOEXEC);
        if (fd >= 0) {
            start_session(&server, fd, &from);
        } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            /* The connection waits in the backlog; polling again at once would spin. */
            if (!out_of_fds_logged)
                log_line(&server, "cannot accept: %s; waiting for sessions to end",
                         strerror(errno));
            out_of_fds_logged = true;
            poll(NULL, 0, 100);
        }
    }
    close(listener);
    /* Ends every session: their blocked reads and writes return at once. */
    atomic_store(&server.stopping, true);
    pthread_mutex_lock(&server.lock);
    for (unsigned i = 0; i < config->max_sessions; i++)
        if (server.admission.slots[i].fd >= 0)
            shutdown(server.admission.slots[i].fd, SHUT_RDWR);
    while (server.admission.active > 0)
        pthread_cond_wait(&server.idle, &server.lock);
    pthread_mutex_unlock(&server.lock);
    for (unsigned i = 0; i < config->max_sessions; i++)
        if (server.joinable[i])
            pthread_join(server.threads[i], NULL);
    vp_admission_free(&server.admission);
    free(server.threads);
    free(server.joinable);
    log_line(&server, "stopped");
    return 0;
}
