/* The server's side of the UDP tests (stream to the server, request-response): a UDP
 * socket beside the session's TCP connection, datagrams only from the session's host
 * counted or answered, until END arrives on the connection. */
#ifndef VP_NET_SERVER_UDP_H
#define VP_NET_SERVER_UDP_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

/* A UDP socket on control_fd's local address and a free port (*port), buffers of window
 * bytes when not 0; -1 when it cannot be made. */
int vp_udp_open(int control_fd, uint32_t window, uint32_t *port);
/* Runs request's test on udp_fd until END on control_fd (or idle_timeout_s of silence),
 * filling result; 0, or -1 with err. */
int vp_udp_test_run(int control_fd, double idle_timeout_s, int udp_fd,
                    const struct vp_test_request *request, struct vp_test_result *result,
                    char *err, size_t err_len);

#endif
