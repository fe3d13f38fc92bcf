/* Unit tests for the guests' domain XML (env/domain_xml.c) and the frames of their
 * channel (env/channel.c): what libvirt is asked for, escaped; headers refused as a
 * hostile guest could send them; frames across a socket pair, a wrong kind, a deadline
 * passed, a closed channel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/limits.h"
#include "env/channel.h"
#include "env/domain.h"

static const struct vp_guest_config config = {
    .cpus = 2, .memory_mib = 768, .kernel = "/boot/vmlinuz-6.1.0-57-cloud-amd64",
    .initrd = "/var/cache/virtperf/guest-0123.img",
};

static void tcg_domain_without_nic_or_disk(void **state)
{
    (void)state;
    struct vp_guest_spec spec = { .name = "virtperf-1-1", .channel_path = "/tmp/w/c.sock",
                                  .console_path = "/tmp/w/c.console" };
    char *xml = vp_domain_xml(&config, &spec);
    assert_non_null(strstr(xml, "<domain type='qemu'>"));
    assert_non_null(strstr(xml, "<memory unit='MiB'>768</memory>"));
    assert_non_null(strstr(xml, "<vcpu placement='static'>2</vcpu>"));
    assert_non_null(strstr(xml, "<target type='virtio' name='org.virtperf.control'/>"));
    assert_non_null(strstr(xml, "<source mode='bind' path='/tmp/w/c.sock'/>"));
    assert_non_null(strstr(xml, "virtperf.name=virtperf-1-1</cmdline>"));
    assert_non_null(strstr(xml, "<on_poweroff>destroy</on_poweroff>"));
    assert_non_null(strstr(xml, "<acpi/>")); /* without it the guest halts, never powers off */
    assert_null(strstr(xml, "<interface"));
    assert_null(strstr(xml, "<disk"));
    assert_null(strstr(xml, "host-passthrough"));
    assert_null(strstr(xml, "<cputune>"));
    assert_null(strstr(xml, "<description>")); /* no owner: libvirt destroys it with us */
    free(xml);
    spec.owner = "12 345 a<b"; /* a guest to migrate says which run owns it, escaped */
    xml = vp_domain_xml(&config, &spec);
    assert_non_null(strstr(xml, "<description>virtperf owner 12 345 a&lt;b</description>"));
    free(xml);
}

static void kvm_domain_with_nic_disk_and_pins(void **state)
{
    (void)state;
    struct vp_guest_config with = config;
    with.bridge = "br'<x>";
    with.nic = vp_guest_device_find(VP_GUEST_NIC, "virtio");
    with.disk_bus = vp_guest_device_find(VP_GUEST_DISK_BUS, "ide");
    const int pins[] = { 1, 0 };
    struct vp_guest_spec spec = { .name = "g&1", .kvm = true, .channel_path = "/c",
                                  .console_path = "/k", .disk_path = "/d/g.img",
                                  .address = "198.18.0.2/24", .gateway = "198.18.0.1",
                                  .pin_cpus = pins };
    char *xml = vp_domain_xml(&with, &spec);
    assert_non_null(strstr(xml, "<domain type='kvm'>"));
    assert_non_null(strstr(xml, "<cpu mode='host-passthrough'/>"));
    assert_non_null(strstr(xml, "<name>g&amp;1</name>"));
    assert_non_null(strstr(xml, "<source bridge='br&apos;&lt;x&gt;'/><model type='virtio'/>"));
    assert_non_null(strstr(xml, "<target dev='hda' bus='ide'/>"));
    /* the init loads the disks' modules only when told there is a disk */
    assert_non_null(strstr(xml, "virtperf.address=198.18.0.2/24 virtperf.gateway=198.18.0.1 "
                                "virtperf.disk=1</cmdline>"));
    assert_non_null(strstr(xml, "<vcpupin vcpu='0' cpuset='1'/>"));
    assert_non_null(strstr(xml, "<vcpupin vcpu='1' cpuset='0'/>"));
    /* a CPU cap is set once the guest is ready (vp_domain_cap_vcpus), never at its boot */
    assert_null(strstr(xml, "<quota>"));
    free(xml);
}

/* Each NIC model and disk bus as libvirt takes it, and which need the generic kernel. */
static void emulated_devices_in_the_domain(void **state)
{
    (void)state;
    struct vp_guest_config with = config;
    with.bridge = "vpbr0";
    struct vp_guest_spec spec = { .name = "g", .channel_path = "/c", .console_path = "/k",
                                  .disk_path = "/d/g.img" };
    const char *const nics[][2] = { { "e1000", "<model type='e1000'/>" },
                                    { "e1000e", "<model type='e1000e'/>" },
                                    { "rtl8139", "<model type='rtl8139'/>" } };
    const char *const buses[][2] = { { "sata", "<target dev='sda' bus='sata'/>" },
                                     { "scsi", "<target dev='sda' bus='scsi'/>" },
                                     { "virtio", "<target dev='vda' bus='virtio'/>" } };
    for (int i = 0; i < 3; i++) {
        with.nic = vp_guest_device_find(VP_GUEST_NIC, nics[i][0]);
        with.disk_bus = vp_guest_device_find(VP_GUEST_DISK_BUS, buses[i][0]);
        assert_non_null(with.nic);
        assert_non_null(with.disk_bus);
        assert_true(with.nic->generic_kernel); /* no emulated NIC in the cloud kernel */
        char *xml = vp_domain_xml(&with, &spec);
        assert_non_null(strstr(xml, nics[i][1]));
        assert_non_null(strstr(xml, buses[i][1]));
        /* a SCSI disk on the paravirtual controller, whose driver the cloud kernel has */
        assert_int_equal(strstr(xml, "model='virtio-scsi'") != NULL, i == 1);
        free(xml);
    }
    assert_string_equal(vp_guest_device_find(VP_GUEST_NIC, "rtl8139")->driver, "8139cp");
    assert_false(vp_guest_device_find(VP_GUEST_NIC, "virtio")->generic_kernel);
    assert_true(vp_guest_device_find(VP_GUEST_DISK_BUS, "sata")->generic_kernel);
    assert_null(vp_guest_device_find(VP_GUEST_NIC, "ne2k_pci"));
    char names[128];
    vp_guest_device_names(VP_GUEST_NIC, names, sizeof names);
    assert_string_equal(names, "virtio, e1000, e1000e or rtl8139");
}

static void put32(unsigned char *at, uint32_t value)
{
    for (int i = 0; i < 4; i++)
        at[i] = (unsigned char)(value >> (8 * i));
}

static void headers_refused_and_taken(void **state)
{
    (void)state;
    unsigned char header[VP_CHANNEL_HEADER];
    uint32_t kind, len;
    char err[128];
    put32(header, 0);
    put32(header + 4, 0);
    assert_int_equal(vp_channel_header_parse(header, &kind, &len, err, sizeof err), -1);
    assert_non_null(strstr(err, "a frame of kind 0: accepted: 1 to"));
    put32(header, VP_CHANNEL_KIND_COUNT);
    assert_int_equal(vp_channel_header_parse(header, &kind, &len, err, sizeof err), -1);
    put32(header, VP_CHANNEL_RESULT);
    put32(header + 4, VP_RESULT_MOST + 1);
    assert_int_equal(vp_channel_header_parse(header, &kind, &len, err, sizeof err), -1);
    assert_non_null(strstr(err, "a result frame of"));
    put32(header + 4, VP_RESULT_MOST);
    assert_int_equal(vp_channel_header_parse(header, &kind, &len, err, sizeof err), 0);
    assert_int_equal(kind, VP_CHANNEL_RESULT);
    assert_int_equal(len, VP_RESULT_MOST);
    /* a hello is a fingerprint: 20 MiB of one is refused before any of it is read */
    put32(header, VP_CHANNEL_HELLO);
    put32(header + 4, 20u << 20);
    assert_int_equal(vp_channel_header_parse(header, &kind, &len, err, sizeof err), -1);
    assert_non_null(strstr(err, "a hello frame of 20971520 bytes: accepted: at most 1048576"));
    for (uint32_t k = 1; k < VP_CHANNEL_KIND_COUNT; k++)
        assert_true(vp_channel_most(k) <= VP_CHANNEL_MAX);
}

static void frames_across_a_socket_pair(void **state)
{
    (void)state;
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    char err[128];
    int64_t soon = vp_now_ns() + 1000000000LL;
    assert_int_equal(vp_channel_send(pair[0], VP_CHANNEL_HELLO, "{\"a\":1}", 7, err, sizeof err), 0);
    assert_int_equal(vp_channel_send(pair[0], VP_CHANNEL_QUIT, NULL, 0, err, sizeof err), 0);
    void *data;
    size_t len;
    assert_int_equal(vp_channel_expect(pair[1], VP_CHANNEL_HELLO, &data, &len, 0, soon, err,
                                     sizeof err), 0);
    assert_int_equal(len, 7);
    assert_string_equal(data, "{\"a\":1}"); /* one byte more, zeroed */
    free(data);
    assert_int_equal(vp_channel_expect(pair[1], VP_CHANNEL_CLOCK, &data, &len, 8, soon, err,
                                     sizeof err), -1);
    assert_non_null(strstr(err, "a quit frame of 0 bytes where a clock frame"));
    /* nothing more comes: the deadline passes */
    int64_t began = vp_now_ns();
    assert_int_equal(vp_channel_expect(pair[1], VP_CHANNEL_CLOCK, &data, &len, 8,
                                     vp_now_ns() + 100000000LL, err, sizeof err), -1);
    assert_string_equal(err, "no answer in time");
    assert_true(vp_now_ns() - began < 1000000000LL);
    /* the other end closed: said at once, sending too (no SIGPIPE) */
    close(pair[0]);
    assert_int_equal(vp_channel_expect(pair[1], VP_CHANNEL_CLOCK, &data, &len, 8, soon, err,
                                     sizeof err), -1);
    assert_string_equal(err, "the channel: closed");
    assert_int_equal(vp_channel_send(pair[1], VP_CHANNEL_CLOCK, &began, sizeof began, err,
                                   sizeof err), -1);
    close(pair[1]);
}

/* A frame longer than the receiver knows an honest sender sends is refused by its header:
 * its payload is never waited for (here it never comes). */
static void a_frame_over_what_is_due_refused_unread(void **state)
{
    (void)state;
    int pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    unsigned char header[VP_CHANNEL_HEADER];
    put32(header, VP_CHANNEL_REGION);
    put32(header + 4, 1u << 20);
    assert_int_equal(write(pair[0], header, sizeof header), (ssize_t)sizeof header);
    char err[128];
    void *data;
    size_t len;
    int64_t began = vp_now_ns();
    assert_int_equal(vp_channel_expect_within(pair[1], VP_CHANNEL_REGION, 4096, &data, &len,
                                              began + 5000000000LL, err, sizeof err), -1);
    assert_string_equal(err, "a region frame of 1048576 bytes: accepted: at most 4096");
    assert_true(vp_now_ns() - began < 1000000000LL);
    /* and one of a fixed size that is not it, as early */
    put32(header, VP_CHANNEL_CLOCK);
    put32(header + 4, 7);
    assert_int_equal(write(pair[0], header, sizeof header), (ssize_t)sizeof header);
    assert_int_equal(vp_channel_expect(pair[1], VP_CHANNEL_CLOCK, &data, &len, 8,
                                       began + 5000000000LL, err, sizeof err), -1);
    assert_string_equal(err, "a clock frame of 7 bytes: accepted: 8 bytes");
    assert_true(vp_now_ns() - began < 1000000000LL);
    close(pair[0]);
    close(pair[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcg_domain_without_nic_or_disk),
        cmocka_unit_test(kvm_domain_with_nic_disk_and_pins),
        cmocka_unit_test(emulated_devices_in_the_domain),
        cmocka_unit_test(headers_refused_and_taken),
        cmocka_unit_test(frames_across_a_socket_pair),
        cmocka_unit_test(a_frame_over_what_is_due_refused_unread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
