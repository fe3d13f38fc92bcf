/* Unit tests for nic_kind.c: interfaces told apart from a sysfs tree laid out as Linux
 * lays out /sys/class/net, and the ones counted as facing the outside: a hypervisor
 * host (a NIC on a bridge with a guest's tap), a network namespace (a bridge and its
 * veth port), a container (one veth). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/nic_kind.h"

static char root[64];

/* An interface directory under root, with each entry (a directory) and its uevent. */
static void interface(const char *name, const char *entries[], const char *uevent)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, name);
    assert_int_equal(mkdir(path, 0755), 0);
    for (size_t i = 0; entries && entries[i]; i++) {
        snprintf(path, sizeof path, "%s/%s/%s", root, name, entries[i]);
        assert_int_equal(mkdir(path, 0755), 0);
    }
    snprintf(path, sizeof path, "%s/%s/uevent", root, name);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "INTERFACE=%s\n%s", name, uevent ? uevent : "");
    fclose(file);
}

static int make_root(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/vp-unit-sysfs-%d", (int)getpid());
    return mkdir(root, 0755);
}

static int remove_root(void **state)
{
    (void)state;
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    return system(command) == 0 ? 0 : -1;
}

static void kinds_are_read_from_sysfs(void **state)
{
    (void)state;
    interface("lo", NULL, NULL);
    interface("eth0", (const char *[]){ "device", "brport", NULL }, NULL);
    interface("br0", (const char *[]){ "bridge", NULL }, "DEVTYPE=bridge\n");
    interface("vnet0", (const char *[]){ "brport", "tun_flags", NULL }, NULL);
    interface("tap1", (const char *[]){ "tun_flags", NULL }, NULL);
    interface("eth0.10", NULL, "DEVTYPE=vlan\n");
    interface("veth9", NULL, NULL);
    assert_int_equal(vp_nic_kind_of(root, "lo"), VP_NIC_LOOPBACK);
    assert_int_equal(vp_nic_kind_of(root, "eth0"), VP_NIC_PHYSICAL);
    assert_int_equal(vp_nic_kind_of(root, "br0"), VP_NIC_BRIDGE);
    assert_int_equal(vp_nic_kind_of(root, "vnet0"), VP_NIC_PORT);
    assert_int_equal(vp_nic_kind_of(root, "tap1"), VP_NIC_TAP);
    assert_int_equal(vp_nic_kind_of(root, "eth0.10"), VP_NIC_VLAN);
    assert_int_equal(vp_nic_kind_of(root, "veth9"), VP_NIC_VIRTUAL);
    assert_int_equal(vp_nic_kind_of(root, "gone"), VP_NIC_VIRTUAL);
    assert_string_equal(vp_nic_kind_name(VP_NIC_PORT), "port");
    assert_string_equal(vp_nic_kind_name(VP_NIC_PHYSICAL), "physical");
}

/* A hypervisor host: its NIC (outside traffic) and its guests' ports and taps (host to
 * guest, guest to guest), never the bridge that repeats them nor a VLAN or ifb that
 * repeats the NIC. */
static void a_hypervisor_host_counts_its_nic_and_its_guests_ports(void **state)
{
    (void)state;
    const enum vp_nic_kind kinds[] = { VP_NIC_LOOPBACK, VP_NIC_PHYSICAL, VP_NIC_BRIDGE,
                                       VP_NIC_PORT,     VP_NIC_VLAN,     VP_NIC_VIRTUAL,
                                       VP_NIC_TAP };
    bool counted[7];
    vp_nic_counted(kinds, 7, counted);
    const bool want[] = { false, true, false, true, false, false, true };
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(counted[i], want[i]);
}

/* A namespace or container with no physical NIC: its uplink veth and its bridge's ports,
 * not the bridge. */
static void a_namespace_counts_its_uplink_and_ports_not_the_bridge(void **state)
{
    (void)state;
    const enum vp_nic_kind kinds[] = { VP_NIC_LOOPBACK, VP_NIC_BRIDGE, VP_NIC_PORT, VP_NIC_TAP,
                                       VP_NIC_VIRTUAL };
    bool counted[5];
    vp_nic_counted(kinds, 5, counted);
    const bool want[] = { false, false, true, true, true };
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(counted[i], want[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(kinds_are_read_from_sysfs, make_root, remove_root),
        cmocka_unit_test(a_hypervisor_host_counts_its_nic_and_its_guests_ports),
        cmocka_unit_test(a_namespace_counts_its_uplink_and_ports_not_the_bridge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
