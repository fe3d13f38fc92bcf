/* Unit tests for core/guest_mount.c: --guest-mount's spec into the kernel's mount words
 * (v3 with the options a guest without rpcbind needs, v4 as it is), and every spec that
 * would break the guest's command line or shell, or mount over its own directories,
 * refused naming what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/guest_mount.h"

static void versions_three_and_four(void **state)
{
    (void)state;
    struct vp_guest_mount mount;
    char err[256], word[700];
    assert_int_equal(vp_guest_mount_parse("nfs://198.18.0.1/srv/set:/mnt/store", &mount, err,
                                          sizeof err), 0);
    assert_string_equal(mount.source, "198.18.0.1:/srv/set");
    assert_string_equal(mount.dir, "/mnt/store");
    assert_string_equal(mount.type, "nfs");
    vp_guest_mount_word(&mount, word, sizeof word);
    assert_string_equal(word, "virtperf.mount=nfs;198.18.0.1:/srv/set;/mnt/store;"
                              "vers=3,nolock,proto=tcp,mountproto=tcp");
    assert_int_equal(vp_guest_mount_parse("nfs://store.example/export?version=4:/data", &mount,
                                          err, sizeof err), 0);
    assert_string_equal(mount.source, "store.example:/export");
    assert_string_equal(mount.type, "nfs4");
    assert_string_equal(mount.options, "");
    assert_int_equal(vp_guest_mount_parse("nfs://s/e?version=3:/d", &mount, err, sizeof err), 0);
    assert_string_equal(mount.type, "nfs");
}

static void refused(const char *spec, const char *said)
{
    struct vp_guest_mount mount;
    char err[512] = "";
    assert_int_equal(vp_guest_mount_parse(spec, &mount, err, sizeof err), -1);
    if (!strstr(err, said))
        fail_msg("'%s' refused as '%s', want '%s'", spec, err, said);
    assert_non_null(strstr(err, "accepted: "));
}

static void bad_specs_refused(void **state)
{
    (void)state;
    refused("root://s/e:/d", "is not valid");
    refused("nfs://s/e", "is not valid");
    refused("nfs://s/e:d", "is not valid");
    refused("nfs://s:/d", "is not valid");
    refused("nfs://s/e:/d x", "letters, digits");
    refused("nfs://s/e;x:/d", "letters, digits");
    refused("nfs://s/e:/d;reboot", "letters, digits");
    refused("nfs://s$(x)/e:/d", "letters, digits");
    refused("nfs://[::1]/e:/d", "letters, digits");
    refused("nfs://s/e?version=2:/d", "?version=3 or ?version=4");
    refused("nfs://s/e:/", "cannot be mounted over");
    refused("nfs://s/e:/proc/x", "cannot be mounted over");
    refused("nfs://s/e:/dev", "cannot be mounted over");
    refused("nfs://s/e:/bin", "cannot be mounted over");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions_three_and_four),
        cmocka_unit_test(bad_specs_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
