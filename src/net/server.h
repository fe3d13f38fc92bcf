/* The `virtperf serve` endpoint: accepts many clients at once, one thread per session,
 * authenticates each before anything else, runs the test it asks for within hard caps,
 * and never opens files, runs commands or sends anything it was not asked for. */
#ifndef VP_SERVER_H
#define VP_SERVER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define VP_DEFAULT_PORT 7310

struct vp_serve_config {
    const char *bind;        /* address to listen on; NULL: every address */
    uint16_t port;           /* 0: any free port (reported through ready_fd) */
    unsigned max_sessions;
    const uint8_t *key;      /* shared secret, or NULL: no authentication */
    size_t key_len;
    double idle_timeout_s;   /* per read or write, and per whole frame, in every phase */
    int log;                 /* one line per session on stderr */
};

#define VP_SERVE_SPARE_FDS 16 /* beyond two a session: listener, log, /proc reads */

/* Makes room for max_sessions (raising the soft file-descriptor limit up to the hard
 * one); -1 with the accepted --max-sessions in err when the hard limit is too low. */
int vp_serve_check_fds(unsigned max_sessions, char *err, size_t err_len);

/* Serves until *stop becomes non-zero, then closes every session and returns 0. When
 * ready_fd >= 0, the bound port is written to it (2 bytes, big-endian) once listening.
 * Returns -1 with the reason when it cannot listen. */
int vp_serve(const struct vp_serve_config *config, volatile sig_atomic_t *stop, int ready_fd,
             char *err, size_t err_len);

#endif
