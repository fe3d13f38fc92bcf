/* Unit tests for run's flag table (run/run_flags.c): the words a hypervisor rank of
 * virtperf-mpi sends its guests, without the flags only virtperf-mpi takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "run/run_flags.h"

static void words_without_a_scopes_own_flags(void **state)
{
    (void)state;
    char *argv[] = { "run", "cpu", "--ranks", "2", "--jobs", "2", "--start-with=instant",
                     "--guests", "1", "--topology", "matrix", "--duration=1s", NULL };
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    char *out[sizeof argv / sizeof argv[0]];
    int count = vp_run_words_without(argc, argv, VP_SCOPE_MPI, out);
    /* --ranks and --start-with are virtperf-mpi's alone, in both spellings; --topology is
     * also the fleet's, so it stays */
    const char *kept[] = { "run", "cpu", "--jobs", "2", "--guests", "1", "--topology",
                           "matrix", "--duration=1s" };
    assert_int_equal(count, (int)(sizeof kept / sizeof kept[0]));
    for (int i = 0; i < count; i++)
        assert_string_equal(out[i], kept[i]);
    assert_null(out[count]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(words_without_a_scopes_own_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
