/* Unit tests for bench/data_source.c's naming: a fileset's names joined to a directory or a
 * URL (a URL's query, nfs's ?version=4, stays at its end), each scheme named, and a URL no
 * library reads refused with what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/data_source.h"

static void names_join_before_a_query(void **state)
{
    (void)state;
    char out[256];
    data_join("/srv/set", "file-00001.dat", out, sizeof out);
    assert_string_equal(out, "/srv/set/file-00001.dat");
    data_join("root://store:1094//srv/set/", "file-00001.dat", out, sizeof out);
    assert_string_equal(out, "root://store:1094//srv/set/file-00001.dat");
    data_join("nfs://store/export/set?version=4", "file-00001.dat", out, sizeof out);
    assert_string_equal(out, "nfs://store/export/set/file-00001.dat?version=4");
    data_join("nfs://store/export/set/?version=4", "m.json", out, sizeof out);
    assert_string_equal(out, "nfs://store/export/set/m.json?version=4");
    /* a path's '?' is a name's, not a query */
    data_join("/srv/what?", "f", out, sizeof out);
    assert_string_equal(out, "/srv/what?/f");
}

static void schemes_named_and_unknown_refused(void **state)
{
    (void)state;
    assert_string_equal(data_scheme("/srv/set"), "posix");
    assert_string_equal(data_scheme("root://store//set"), "root");
    assert_string_equal(data_scheme("nfs://store/set?version=4"), "nfs");
    assert_null(data_scheme("ftp://store/set"));
    char err[512] = "";
    assert_int_equal(data_scheme_check("ftp://store/set", err, sizeof err), -1);
    assert_non_null(strstr(err, "--source ftp://store/set: accepted: a directory, or a root://"));
    assert_non_null(strstr(err, "nfs:// URL"));
    assert_int_equal(data_scheme_check("/srv/set", err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_join_before_a_query),
        cmocka_unit_test(schemes_named_and_unknown_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
