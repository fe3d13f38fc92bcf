/* The server's side of the probe test (probe.h), run by the serve loop (server.c). */
#ifndef VP_PROBE_SERVER_H
#define VP_PROBE_SERVER_H

#include "net/probe.h"

/* Echoes the client's probes from udp_fd and sends its own every period until END
 * arrives on control_fd; fails when nothing at all arrives for idle_timeout_s. Fills the
 * report of the client's probes' arrivals (up to the last one) and the result's
 * counts (transactions: echoes sent). */
int vp_probe_serve(int control_fd, int udp_fd, const struct vp_test_request *request,
                   double idle_timeout_s, struct vp_probe_report *report,
                   struct vp_test_result *result, char *err, size_t err_len);

#endif
