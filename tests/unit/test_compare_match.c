/* Unit tests for what pairs two results in a comparison (analysis/compare_match.c): a
 * peer counts by its host, so two runs of guests against this host's server (a free port
 * each run) pair, and two hosts never do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_match.h"

/* Whether results of net.stream against peers a and b pair. */
static bool pair(const char *a, const char *b)
{
    json_t *first = json_pack("{s:s,s:{s:s,s:I},s:i}", "bench", "net.stream", "params", "peer",
                              a, "size", (json_int_t)131072, "jobs", 1);
    json_t *second = json_pack("{s:s,s:{s:s,s:I},s:i}", "bench", "net.stream", "params", "peer",
                               b, "size", (json_int_t)131072, "jobs", 1);
    char *first_key = vp_match_key(first, NULL, false);
    char *second_key = vp_match_key(second, NULL, false);
    bool same = strcmp(first_key, second_key) == 0;
    free(first_key);
    free(second_key);
    json_decref(first);
    json_decref(second);
    return same;
}

static void a_peer_pairs_by_its_host(void **state)
{
    (void)state;
    assert_true(pair("198.18.0.1:35741", "198.18.0.1:44679"));
    assert_true(pair("198.18.0.1:7310", "198.18.0.1"));
    assert_true(pair("[fd00::1]:7310", "[fd00::1]:7311"));
    assert_false(pair("198.18.0.1:7310", "198.18.0.2:7310"));
    assert_false(pair("fd00::1", "fd00::2")); /* bare IPv6: no port to leave out */
    assert_true(pair("matrix", "matrix"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_peer_pairs_by_its_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
