/* Unit tests for the files a member's image carries: the set keeps each path once, sorted
 * (core/path_set.c), and app says what it needs of this host (bench/app.c's member_files):
 * a preset's program and files, --cmd's program where a member's PATH finds the same one,
 * nothing for --shell, and a refusal for a program a member would look for elsewhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/path_set.h"

static void paths_are_kept_once_in_order(void **state)
{
    (void)state;
    struct vp_path_set set = { 0 };
    const char *added[] = { "/usr/bin/xz", "/opt/a", "/usr/bin/xz", "/usr/lib/python3.11", "/opt/a" };
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
        vp_path_set_add(&set, added[i]);
    assert_int_equal(set.count, 3);
    assert_string_equal(set.paths[0], "/opt/a");
    assert_string_equal(set.paths[1], "/usr/bin/xz");
    assert_string_equal(set.paths[2], "/usr/lib/python3.11");
    vp_path_set_free(&set);
    assert_int_equal(set.count, 0);
    assert_null(set.paths);
}

/* app's member_files with one option set; its return, the set and err. */
static int app_files(const char *option, const char *value, struct vp_path_set *set, char *err,
                     size_t err_len)
{
    const struct vp_bench *app = vp_bench_find("app");
    struct vp_params params;
    vp_params_init(&params, app->options, app->option_count);
    char why[256];
    assert_int_equal(vp_params_set(&params, option, value, why, sizeof why), 0);
    return app->member_files(&params, set, err, err_len);
}

static void app_names_what_a_member_needs(void **state)
{
    (void)state;
    struct vp_path_set set = { 0 };
    char err[512] = "";
    setenv("PATH", "/usr/bin:/bin", 1);
    assert_int_equal(app_files("cmd", "sh -c true", &set, err, sizeof err), 0);
    assert_int_equal(set.count, 1);
    assert_string_equal(set.paths[0], "/usr/bin/sh");
    vp_path_set_free(&set);
    assert_int_equal(app_files("cmd", "/bin/true", &set, err, sizeof err), 0);
    assert_string_equal(set.paths[0], "/bin/true");
    vp_path_set_free(&set);
    /* found earlier in this host's PATH than where a member looks: refused, named */
    setenv("PATH", "/bin:/usr/bin", 1);
    assert_int_equal(app_files("cmd", "sh", &set, err, sizeof err), -1);
    assert_non_null(strstr(err, "'sh' is /bin/sh here, but a guest or container looks for it"));
    assert_int_equal(app_files("cmd", "./run.sh", &set, err, sizeof err), -1);
    assert_non_null(strstr(err, "from this host's working directory"));
    assert_int_equal(set.count, 0);
    /* --shell: the member's own sh runs the text */
    setenv("PATH", "/usr/bin:/bin", 1);
    const struct vp_bench *app = vp_bench_find("app");
    struct vp_params params;
    vp_params_init(&params, app->options, app->option_count);
    assert_int_equal(vp_params_set(&params, "cmd", "true | true", err, sizeof err), 0);
    assert_int_equal(vp_params_set(&params, "shell", "on", err, sizeof err), 0);
    assert_int_equal(app->member_files(&params, &set, err, sizeof err), 0);
    assert_int_equal(set.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_are_kept_once_in_order),
        cmocka_unit_test(app_names_what_a_member_needs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
