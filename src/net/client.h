/* The client side of the protocol: parse a peer, connect with a timeout, authenticate,
 * and request a test. */
#ifndef VP_CLIENT_H
#define VP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "net/auth.h"
#include "net/protocol.h"

struct vp_peer {
    char host[256];
    uint16_t port;
    uint8_t key[VP_KEY_MAX];
    size_t key_len;       /* 0: no key */
    double timeout_s;     /* connect and every read or write */
    uint32_t window;      /* SO_SNDBUF and SO_RCVBUF before connecting; 0: the kernel's */
};

/* "host", "host:port", "[v6addr]:port" (default port when absent). */
int vp_peer_parse(const char *text, uint16_t default_port, struct vp_peer *peer, char *err,
                  size_t err_len);

/* The peer of --peer TEXT and --key-file PATH ("none": no key): key read, address parsed
 * and resolvable, every read and write given up after timeout_s. */
int vp_peer_from_options(const char *where, const char *key_file, double timeout_s,
                         struct vp_peer *peer, char *err, size_t err_len);

/* A TCP connection to the peer, connected within the timeout, TCP_NODELAY set; the time
 * connect() took goes to *connect_s when not NULL. Returns the fd or -1. */
int vp_client_connect(const struct vp_peer *peer, double *connect_s, char *err, size_t err_len);

/* How often a client whose handshake the server closed (it made room for another's)
 * tries, pausing 50 ms, 100 ms, ... (each plus up to as much again) between tries, within
 * its timeout. */
#define VP_CLIENT_ATTEMPTS 6
#define VP_CLIENT_FIRST_PAUSE_NS 50000000LL

/* HELLO, CHALLENGE, AUTH, WELCOME on a connected fd. */
int vp_client_handshake(int fd, const struct vp_peer *peer, char *err, size_t err_len);

/* Sends TEST and waits for READY. */
int vp_client_request(int fd, const struct vp_test_request *request, struct vp_test_ready *ready,
                      char *err, size_t err_len);

/* Waits for the server's RESULT. */
int vp_client_result(int fd, struct vp_test_result *result, char *err, size_t err_len);

/* connect + handshake + request in one, the connection and handshake tried again when
 * the server closed it before its WELCOME (VP_CLIENT_ATTEMPTS). Returns the fd or -1. */
int vp_client_open_test(const struct vp_peer *peer, const struct vp_test_request *request,
                        struct vp_test_ready *ready, char *err, size_t err_len);

#endif
