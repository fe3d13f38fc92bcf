/* Frames over a socket: whole reads and writes with timeouts, sending and receiving
 * checked frames, discarding payloads in bounded chunks, the /proc/stat CPU snapshot
 * both ends report, and which host a datagram came from. */
#ifndef VP_WIRE_H
#define VP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "net/protocol.h"

/* Every blocking read and write on fd gives up after seconds without progress, and a
 * whole frame (its header and payload together, from its first byte; a frame sent, from
 * the call) after seconds in all. */
void vp_wire_set_timeout(int fd, double seconds);

/* The error of a read that met the end of the connection. */
#define VP_WIRE_CLOSED "the peer closed the connection"


int vp_wire_send(int fd, uint8_t type, const void *payload, uint32_t len, char *err,
                 size_t err_len);
/* Sends an ERROR frame with text, best effort (the peer may be gone). */
void vp_wire_send_error(int fd, const char *text);

int vp_wire_recv_header(int fd, struct vp_frame_header *header, char *err, size_t err_len);
/* Receives a frame expected to carry len bytes of payload into payload, header and
 * payload in one receive where they arrived together (a round trip then costs one system
 * call each way). The frame's header tells what came: of length len, its payload is read;
 * shorter (an END, an ERROR), its min(length, len) bytes are in payload; longer, the rest
 * is still to be read. Safe where the peer sends frames of len bytes or waits after a
 * shorter one; bytes read past a shorter frame are refused as a protocol error. */
int vp_wire_recv_sized(int fd, struct vp_frame_header *header, void *payload, uint32_t len,
                       char *err, size_t err_len);
/* Reads len bytes of header's frame's payload, within the frame's deadline. */
int vp_wire_read_payload(int fd, const struct vp_frame_header *header, void *buf, size_t len,
                         char *err, size_t err_len);
/* Reads and drops header's frame's payload in chunks of at most 64 KiB. */
int vp_wire_discard(int fd, const struct vp_frame_header *header, char *err, size_t err_len);

/* Receives one frame of type want whose payload fits in cap bytes (its length in *len).
 * An ERROR frame from the peer becomes "peer: TEXT"; another type is refused. */
int vp_wire_expect(int fd, uint8_t want, void *payload, uint32_t cap, uint32_t *len, char *err,
                   size_t err_len);

/* The machine's CPU time from /proc/stat, in ticks (protocol order). Returns 0, or -1
 * with every tick 0 when /proc/stat cannot be read or parsed. */
int vp_cpu_snapshot(uint64_t ticks[VP_CPU_FIELDS]);

/* Whether two socket addresses are of the same host (the port aside): a test's datagrams
 * are taken only from the host of its control connection. */
bool vp_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

#endif
