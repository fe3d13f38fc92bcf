/* Client connection, authentication and test requests. */
#define _GNU_SOURCE
#include "net/client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "net/server.h"
#include "net/wire.h"

int vp_peer_parse(const char *text, uint16_t default_port, struct vp_peer *peer, char *err,
                  size_t err_len)
{
    const char *host = text, *port_text = NULL;
    size_t host_len = strlen(text);
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || (close[1] && close[1] != ':'))
            goto bad;
        host = text + 1;
        host_len = (size_t)(close - host);
        port_text = close[1] ? close + 2 : NULL;
    } else if (strchr(text, ':') == strrchr(text, ':') && strchr(text, ':')) {
        host_len = (size_t)(strchr(text, ':') - text);
        port_text = strchr(text, ':') + 1;
    }
    if (host_len == 0 || host_len >= sizeof peer->host)
        goto bad;
    memcpy(peer->host, host, host_len);
    peer->host[host_len] = '\0';
    peer->port = default_port;
    if (port_text) {
        char *end;
        long port = strtol(port_text, &end, 10);
        if (!*port_text || *end || port < 1 || port > 65535)
            goto bad;
        peer->port = (uint16_t)port;
    }
    return 0;
bad:
    snprintf(err, err_len, "--peer: '%s' is not valid; accepted: HOST, HOST:PORT or [IPV6]:PORT",
             text);
    return -1;
}

int vp_peer_from_options(const char *where, const char *key_file, double timeout_s,
                         struct vp_peer *peer, char *err, size_t err_len)
{
    memset(peer, 0, sizeof *peer);
    peer->timeout_s = timeout_s;
    if (strcmp(key_file, "none") != 0 &&
        vp_auth_load_key(key_file, peer->key, &peer->key_len, err, err_len) != 0)
        return -1;
    if (vp_peer_parse(where, VP_DEFAULT_PORT, peer, err, err_len) != 0)
        return -1;
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *found = NULL;
    int rc = getaddrinfo(peer->host, NULL, &hints, &found);
    if (rc != 0) {
        snprintf(err, err_len, "--peer %s: cannot resolve: %s", peer->host, gai_strerror(rc));
        return -1;
    }
    freeaddrinfo(found);
    return 0;
}

static int connect_within(int fd, const struct sockaddr *address, socklen_t len, double timeout_s)
{
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc = connect(fd, address, len);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd waiting = { .fd = fd, .events = POLLOUT };
        rc = poll(&waiting, 1, (int)(timeout_s * 1000));
        if (rc == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        int error = 0;
        socklen_t error_len = sizeof error;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_len);
        errno = error;
        rc = error ? -1 : 0;
    }
    fcntl(fd, F_SETFL, flags);
    return rc;
}

int vp_client_connect(const struct vp_peer *peer, double *connect_s, char *err, size_t err_len)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV };
    struct addrinfo *found = NULL;
    char port[8];
    snprintf(port, sizeof port, "%u", peer->port);
    int rc = getaddrinfo(peer->host, port, &hints, &found);
    if (rc != 0) {
        snprintf(err, err_len, "cannot resolve %s: %s", peer->host, gai_strerror(rc));
        return -1;
    }
    int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && peer->window) { /* before connecting: window scaling is agreed then */
        int size = (int)peer->window;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    int64_t start = vp_now_ns();
    if (fd < 0 || connect_within(fd, found->ai_addr, found->ai_addrlen, peer->timeout_s) != 0) {
        snprintf(err, err_len, "cannot connect to %s port %u: %s", peer->host, peer->port,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(found);
        return -1;
    }
    if (connect_s)
        *connect_s = (double)(vp_now_ns() - start) / 1e9;
    freeaddrinfo(found);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    vp_wire_set_timeout(fd, peer->timeout_s);
    return fd;
}

int vp_client_handshake(int fd, const struct vp_peer *peer, char *err, size_t err_len)
{
    uint8_t challenge[VP_NONCE_BYTES + 1], mac[VP_MAC_BYTES] = { 0 };
    if (vp_wire_send(fd, VP_FRAME_HELLO, NULL, 0, err, err_len) != 0 ||
        vp_wire_expect(fd, VP_FRAME_CHALLENGE, challenge, sizeof challenge, NULL, err, err_len) != 0)
        return -1;
    if (challenge[VP_NONCE_BYTES] && peer->key_len == 0) {
        snprintf(err, err_len, "the server requires a key: give the same --key-file");
        return -1;
    }
    if (peer->key_len)
        vp_auth_mac(peer->key, peer->key_len, challenge, mac);
    return vp_wire_send(fd, VP_FRAME_AUTH, mac, sizeof mac, err, err_len) != 0 ||
                   vp_wire_expect(fd, VP_FRAME_WELCOME, NULL, 0, NULL, err, err_len) != 0
               ? -1 : 0;
}

int vp_client_request(int fd, const struct vp_test_request *request, struct vp_test_ready *ready,
                      char *err, size_t err_len)
{
    uint8_t encoded[VP_TEST_REQUEST_BYTES], answer[VP_TEST_READY_BYTES];
    vp_test_request_encode(request, encoded);
    uint32_t len;
    if (vp_wire_send(fd, VP_FRAME_TEST, encoded, sizeof encoded, err, err_len) != 0 ||
        vp_wire_expect(fd, VP_FRAME_READY, answer, sizeof answer, &len, err, err_len) != 0)
        return -1;
    if (vp_test_ready_decode(answer, len, ready) != 0) {
        snprintf(err, err_len, "malformed READY from the peer");
        return -1;
    }
    return 0;
}

int vp_client_result(int fd, struct vp_test_result *result, char *err, size_t err_len)
{
    uint8_t encoded[VP_TEST_RESULT_BYTES];
    uint32_t len;
    if (vp_wire_expect(fd, VP_FRAME_RESULT, encoded, sizeof encoded, &len, err, err_len) != 0)
        return -1;
    if (vp_test_result_decode(encoded, len, result) != 0) {
        snprintf(err, err_len, "malformed RESULT from the peer");
        return -1;
    }
    return 0;
}

/* A connection and its handshake: the fd, or -1. */
static int connect_and_shake(const struct vp_peer *peer, char *err, size_t err_len)
{
    int fd = vp_client_connect(peer, NULL, err, err_len);
    if (fd >= 0 && vp_client_handshake(fd, peer, err, err_len) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int vp_client_open_test(const struct vp_peer *peer, const struct vp_test_request *request,
                        struct vp_test_ready *ready, char *err, size_t err_len)
{
    int64_t began = vp_now_ns(), budget = (int64_t)(peer->timeout_s * 1e9);
    int fd = connect_and_shake(peer, err, err_len);
    unsigned attempt = 1;
    /* closed before its WELCOME: its handshake made room for another's (a flood, perhaps
     * from this very address: serve ends the oldest of the busiest source's) */
    for (; fd < 0 && strcmp(err, VP_WIRE_CLOSED) == 0 && attempt < VP_CLIENT_ATTEMPTS;
         attempt++) {
        int64_t pause_ns = (VP_CLIENT_FIRST_PAUSE_NS << (attempt - 1));
        pause_ns += vp_now_ns() % pause_ns; /* apart from other clients evicted with it */
        if (vp_now_ns() - began + pause_ns > budget)
            break;
        struct timespec pause = { pause_ns / 1000000000, pause_ns % 1000000000 };
        nanosleep(&pause, NULL);
        fd = connect_and_shake(peer, err, err_len);
    }
    if (fd < 0) {
        if (attempt > 1 && strcmp(err, VP_WIRE_CLOSED) == 0)
            snprintf(err, err_len, "%s during the handshake, %u times", VP_WIRE_CLOSED, attempt);
        return -1;
    }
    if (vp_client_request(fd, request, ready, err, err_len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}
