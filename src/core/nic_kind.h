/* What each network interface is (a physical NIC, a bridge, a bridge's port, a veth, a
 * tap, a VLAN, loopback), read from sysfs, and which of them face the outside: the ones
 * whose counters add up to a host's network input and output with each packet counted
 * once. On a hypervisor host a packet from outside crosses the NIC, the bridge and a
 * guest's tap: summing every interface counted it two or three times, and the NIC alone
 * misses everything between the host and its guests. */
#ifndef VP_NIC_KIND_H
#define VP_NIC_KIND_H

#include <stdbool.h>
#include <stddef.h>

enum vp_nic_kind {
    VP_NIC_LOOPBACK,
    VP_NIC_PHYSICAL, /* has a device behind it: a PCI NIC, virtio-net in a guest */
    VP_NIC_BRIDGE,
    VP_NIC_PORT,     /* a virtual interface enslaved to a bridge (a guest's tap, a veth) */
    VP_NIC_TAP,      /* tun/tap outside a bridge */
    VP_NIC_VLAN,     /* its traffic is its parent's too */
    VP_NIC_VIRTUAL,  /* veth, macvlan, dummy...: a container's or a namespace's interface */
};

/* The kind of interface name, read under sysfs_net (normally "/sys/class/net"). */
enum vp_nic_kind vp_nic_kind_of(const char *sysfs_net, const char *name);

const char *vp_nic_kind_name(enum vp_nic_kind kind);

/* Which interfaces are counted, into counted[]: the edges of this host's network, where
 * each packet is counted once in each direction it crosses them. The physical NICs (bridge
 * ports or not) carry what comes from and goes outside; a bridge's ports that are not
 * physical (a guest's tap, a container's veth) and taps outside a bridge carry what the
 * host and its guests or containers exchange, guest to guest included. A bridge is never
 * counted: what it brings up to this host crossed one of its ports too, and what it
 * forwards it never counts. Where there is no physical NIC (a container, a network
 * namespace), the virtual interfaces outside a bridge (a veth to the next namespace) are
 * its uplink and counted too; with a physical NIC they are not (an ifb or a macvlan
 * repeats its parent's traffic). Loopback and VLANs (their parent's traffic) never. */
void vp_nic_counted(const enum vp_nic_kind *kinds, size_t count, bool *counted);

#endif
