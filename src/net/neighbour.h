/* This host's neighbour (ARP) entries for the addresses a run hands its guests. A guest
 * gets the address a guest of the last run had, with a new MAC; an entry the kernel still
 * holds for the old MAC sends this host's first packets to no one, and a link from this
 * host to the guest times out before the entry is probed again. */
#ifndef VP_NEIGHBOUR_H
#define VP_NEIGHBOUR_H

#include <stddef.h>

/* Removes device's neighbour entry for the IPv4 address (dotted), so the next packet to
 * it asks anew. Returns 0, also when there was no entry; -1 with why in err. */
int vp_neighbour_forget(const char *device, const char *address, char *err, size_t err_len);

#endif
