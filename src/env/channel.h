/* The channel between virtperf on the host and the agent in each guest it started: a
 * virtio-serial port (a unix socket on the host that only root can open, a character
 * device in the guest), so the control traffic is keyed by the machine itself and never
 * crosses the network being measured. Messages are frames: a 4-byte kind, a 4-byte
 * length (little-endian), then that many bytes (at most VP_CHANNEL_MAX). Every wait has a
 * deadline and gives up on a signal that stops the run. */
#ifndef VP_GUEST_CHANNEL_H
#define VP_GUEST_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define VP_CHANNEL_HEADER 8
#define VP_CHANNEL_MAX (256u << 20)      /* the largest frame of any kind */

enum vp_channel_kind {
    VP_CHANNEL_HELLO = 1,   /* guest: its fingerprint (JSON) */
    VP_CHANNEL_STEPS,       /* host: the run's words and which point to check or run (JSON) */
    VP_CHANNEL_VERDICT,     /* guest: "" when it can run the steps, else why not */
    VP_CHANNEL_CLOCK,       /* host: its clock (int64); the guest answers with its own */
    VP_CHANNEL_OFFSET,      /* host: the guest's offset (int64), the clock rounds done */
    VP_CHANNEL_READY,       /* each way: ok, lead, the last repetition's window (int64 x 6),
                               the guest's, then the largest of each across guests */
    VP_CHANNEL_BYTES,       /* each way: bytes in that window (double x 3), then their sums */
    VP_CHANNEL_START,       /* host: the instant on its clock (int64), or stop: -1 */
    VP_CHANNEL_RESULT,      /* guest: a point's result (JSON) */
    VP_CHANNEL_REGION,      /* guest: its jobs' shared region */
    VP_CHANNEL_QUIT,        /* host: power off */
    VP_CHANNEL_SERVING,     /* guest: its server's port, {"port": N}, or {"error": why} */
    VP_CHANNEL_KIND_COUNT
};

/* The most bytes a frame of kind may hold (0 for a kind not known). */
uint32_t vp_channel_most(uint32_t kind);

/* A frame's header checked: 0 and its kind and length, or -1 with why (a kind not known,
 * a length over what its kind may hold). */
int vp_channel_header_parse(const unsigned char *header, uint32_t *kind, uint32_t *len,
                          char *err, size_t err_len);

/* A guest's end of the channel: the virtio-serial port named VP_GUEST_CHANNEL
 * (env/domain.h), opened read-write; -1 when there is none. */
int vp_channel_open_port(void);

/* A connection to the unix socket at path (a container's channel, a guest QEMU's
 * chardev); -1 with errno when there is none (yet). */
int vp_channel_connect(const char *path);

/* Sends one frame; 0, or -1 with why. */
int vp_channel_send(int fd, uint32_t kind, const void *data, size_t len, char *err,
                  size_t err_len);
/* Receives one frame before deadline_ns (CLOCK_MONOTONIC): a malloc'd payload (one byte
 * more, zeroed, so text ends) in *data. -1 with why: closed, too late, a bad header, a
 * signal that stops the run. */
int vp_channel_receive(int fd, uint32_t *kind, void **data, size_t *len, int64_t deadline_ns,
                     char *err, size_t err_len);
/* Receives one frame that must be of kind want and (want_len > 0) exactly want_len long;
 * one that is not is refused by its header, before its payload is read. */
int vp_channel_expect(int fd, uint32_t want, void **data, size_t *len, size_t want_len,
                    int64_t deadline_ns, char *err, size_t err_len);
/* The same for a frame of kind want of at most most bytes (what the receiver knows an
 * honest sender sends, below what the kind may hold). */
int vp_channel_expect_within(int fd, uint32_t want, size_t most, void **data, size_t *len,
                             int64_t deadline_ns, char *err, size_t err_len);

#endif
