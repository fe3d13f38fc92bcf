/* Unit tests for core/scratch.c: a scratch directory is removed whole, even a tree far
 * deeper than the levels held open at once (a container's /work 300 levels deep was
 * left for good), and no link in it is followed out of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/owner.h"
#include "core/scratch.h"

static void deep_trees_go_whole(void **state)
{
    (void)state;
    char parent[] = "/tmp/vp-unit-scratch.XXXXXX", made[512], err[256];
    assert_non_null(mkdtemp(parent));
    assert_int_equal(vp_scratch_make(parent, "virtperf-unit", made, sizeof made, err, sizeof err), 0);
    int at = open(made, O_RDONLY | O_DIRECTORY);
    for (int level = 0; level < 300; level++) { /* deeper than any path can name */
        close(openat(at, "file", O_WRONLY | O_CREAT, 0600));
        assert_int_equal(mkdirat(at, "d", 0700), 0);
        int next = openat(at, "d", O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        close(at);
        at = next;
    }
    close(at);
    /* a link out of the tree: followed, it would take the outside file with it */
    char outside[600], link_path[600];
    snprintf(outside, sizeof outside, "%s/outside", parent);
    snprintf(link_path, sizeof link_path, "%s/out", made);
    close(open(outside, O_WRONLY | O_CREAT, 0600));
    assert_int_equal(symlink(parent, link_path), 0);
    vp_scratch_remove(made);
    struct stat info;
    assert_int_equal(stat(made, &info), -1);
    assert_int_equal(stat(outside, &info), 0);
    unlink(outside);
    assert_int_equal(rmdir(parent), 0);
}

/* An owner mark names this process until it is gone, on this machine's boot only. */
static void owner_marks_tell_a_process_from_a_later_one(void **state)
{
    (void)state;
    char mine[VP_OWNER_MARK_LEN], other[VP_OWNER_MARK_LEN + 16];
    assert_int_equal(vp_owner_mark(mine, sizeof mine), 0);
    assert_false(vp_owner_gone(mine));
    assert_true(vp_owner_here(mine));
    long pid;
    unsigned long long start;
    char boot[64];
    assert_int_equal(sscanf(mine, "%ld %llu %63s", &pid, &start, boot), 3);
    snprintf(other, sizeof other, "%ld %llu %s", pid, start + 1, boot); /* a later one */
    assert_true(vp_owner_gone(other));
    snprintf(other, sizeof other, "%ld %llu not-this-boot", pid, start);
    assert_false(vp_owner_here(other));
    assert_true(vp_owner_gone(other));
    assert_false(vp_owner_gone("not a mark")); /* nothing said of it: never reclaimed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deep_trees_go_whole),
        cmocka_unit_test(owner_marks_tell_a_process_from_a_later_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
