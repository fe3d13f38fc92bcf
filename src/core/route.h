/* The network interface this host's traffic to an address leaves by: the one whose
 * counters carry a benchmark's bytes to and from its peer or store, whatever else the
 * host's interfaces carry (a loopback peer's bytes are on lo alone). */
#ifndef VP_ROUTE_H
#define VP_ROUTE_H

#include <stddef.h>
#include <sys/socket.h>

/* The name of the interface holding address (IPv4 or IPv6), into name[len]. Returns 0,
 * or -1 when none does. */
int vp_interface_of_address(const struct sockaddr *address, char *name, size_t len);

/* The interface name for host (a name or a numeric address), into name[len]: "lo" for
 * this host's own addresses. Returns 0, or -1 when host does not resolve or no
 * interface holds the source address the kernel would use. */
int vp_route_interface(const char *host, char *name, size_t len);

#endif
