/* Unit tests for run/groups.c: each --group's words become its members' request, the
 * run's settings under the group's own; every way the words can be wrong is refused
 * with the group named and what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "run/groups.h"

static struct vp_member_group groups[VP_MAX_GROUPS];

/* The groups of a run given texts (NULL-ended) over run's settings; refusals into err. */
static int groups_of(struct vp_guests_request run, const char *const *texts, size_t *count,
                     char *err, size_t err_len)
{
    for (run.group_count = 0; texts[run.group_count]; run.group_count++)
        run.groups[run.group_count] = texts[run.group_count];
    err[0] = '\0';
    return vp_member_groups_of(&run, groups, count, err, err_len);
}

static void each_group_takes_the_runs_settings_under_its_own(void **state)
{
    (void)state;
    const char *texts[] = { "pv:guests=2", "emu:guests=1,guest-nic=e1000,guest-memory=768",
                            "boxes:containers=3", NULL };
    struct vp_guests_request run = { .bridge = "vpbr0", .nic = "virtio", .memory_mib = 512,
                                     .container_engine = "podman" };
    size_t count;
    char err[512];
    assert_int_equal(groups_of(run, texts, &count, err, sizeof err), 0);
    assert_int_equal(count, 3);
    assert_string_equal(groups[0].name, "pv");
    assert_ptr_equal(groups[0].asked.kind, &vp_guests_kind);
    assert_int_equal(groups[0].count, 2);
    assert_string_equal(groups[0].asked.nic, "virtio");
    assert_string_equal(groups[1].name, "emu");
    assert_string_equal(groups[1].asked.nic, "e1000");
    assert_int_equal(groups[1].asked.memory_mib, 768);
    assert_string_equal(groups[1].asked.bridge, "vpbr0");
    assert_ptr_equal(groups[2].asked.kind, &vp_containers_kind);
    assert_int_equal(groups[2].count, 3);
    assert_int_equal(groups[2].asked.group_count, 0);
}

static void refused(struct vp_guests_request run, const char *const *texts, const char *want)
{
    size_t count = 99;
    char err[512];
    assert_int_equal(groups_of(run, texts, &count, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
}

static void wrong_words_are_refused_naming_the_group(void **state)
{
    (void)state;
    struct vp_guests_request none = { .kind = NULL };
    refused(none, (const char *[]){ "a:guests=1", NULL }, "--group: one group; accepted: 2 to 8");
    refused(none, (const char *[]){ "a:guests=1", "a:guests=1", NULL }, "--group a: given twice");
    refused(none, (const char *[]){ "a:guests=1", "host:guests=1", NULL },
            "--group host: a name results already use");
    refused(none, (const char *[]){ "a:guests=1", "guests:guests=1", NULL },
            "--group guests: a name results already use");
    refused(none, (const char *[]){ "a:guests=1", "-b:guests=1", NULL },
            "'-b' is not a group's name; accepted: NAME:KIND=N");
    refused(none, (const char *[]){ "a:guests=1", ":guests=1", NULL }, "is not a group's name");
    refused(none, (const char *[]){ "a:guests=1", "b", NULL }, "--group b: no kind; accepted:");
    refused(none, (const char *[]){ "a:guests=1", "b:guests=1,containers=1", NULL },
            "--group b: guests and containers; accepted: one kind per group");
    refused(none, (const char *[]){ "a:guests=1", "b:guests=0", NULL },
            "--group b guests: '0' is not valid; accepted: a whole number from 1 to 32");
    refused(none, (const char *[]){ "a:guests=1", "b:guests=1,guest-nic", NULL },
            "--group b: 'guest-nic' is not SETTING=VALUE");
    refused(none, (const char *[]){ "a:guests=1", "b:guests=1,guest-pin=compact", NULL },
            "--group b: 'guest-pin' is not a setting of a group; accepted: guest-cpus");
    refused(none, (const char *[]){ "a:guests=1", "b:guests=1,guest-timeout=30", NULL },
            "or container-net (it is the run's: --guest-timeout VALUE)");
    refused(none, (const char *[]){ "a:guests=1", "b:guests=1,guest-nic=ne2k", NULL },
            "--group b: --guest-nic: 'ne2k' is not valid");
    refused(none, (const char *[]){ "a:guests=1", "b:containers=1,guest-nic=e1000", NULL },
            "--group b: guest-nic is not a setting of containers");
    refused(none, (const char *[]){ "a:guests=20", "b:guests=13", NULL },
            "--group: 33 members in all; accepted: at most 32");
    refused((struct vp_guests_request){ .kind = &vp_guests_kind, .spec = "2" },
            (const char *[]){ "a:guests=1", "b:guests=1", NULL }, "--group: not with --guests SPEC");
    refused((struct vp_guests_request){ .and_host = true },
            (const char *[]){ "a:guests=1", "b:guests=1", NULL }, "--group: not with --and-host yet");
    refused((struct vp_guests_request){ .container_engine = "docker" },
            (const char *[]){ "a:guests=1", "b:guests=1", NULL },
            "--container-engine: no group's kind takes it");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_group_takes_the_runs_settings_under_its_own),
        cmocka_unit_test(wrong_words_are_refused_naming_the_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
