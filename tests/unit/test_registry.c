/* Unit tests for the benchmark registry: every table the registry lists is consistent
 * (defaults parse, names unique, sweeps, distributions and metric slots name what they
 * should), and an option name means one type across all benchmarks, since one
 * --NAME=VALUE on the command line is given to every selected benchmark that has it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/list.h"
#include "bench/presets.h"

static bool has_metric(const struct vp_bench *bench, const char *name)
{
    for (size_t m = 0; m < bench->metric_count; m++)
        if (strcmp(bench->metrics[m].name, name) == 0)
            return true;
    return false;
}

/* Every registered benchmark's defaults parse (vp_params_init aborts otherwise), its
 * names are unique, and a sweep option names a list option. */
static void every_bench_table_is_consistent(void **state)
{
    (void)state;
    assert_true(vp_bench_count >= 4);
    for (size_t b = 0; b < vp_bench_count; b++) {
        const struct vp_bench *bench = vp_benches[b];
        struct vp_params params;
        vp_params_init(&params, bench->options, bench->option_count);
        assert_ptr_equal(vp_bench_find(bench->name), bench);
        assert_true(bench->metric_count >= 1 && bench->metric_count <= VP_MAX_METRICS);
        assert_non_null(bench->measure);
        assert_non_null(bench->summary);
        assert_non_null(bench->description);
        for (size_t i = 0; i < bench->option_count; i++)
            for (size_t j = i + 1; j < bench->option_count; j++)
                assert_string_not_equal(bench->options[i].name, bench->options[j].name);
        for (size_t m = 0; m < bench->metric_count; m++) {
            assert_non_null(bench->metrics[m].name); /* a slot left empty has no name */
            for (size_t n = m + 1; n < bench->metric_count; n++)
                assert_string_not_equal(bench->metrics[m].name, bench->metrics[n].name);
        }
        if (bench->sweep_option) {
            int index = vp_params_find(&params, bench->sweep_option);
            assert_true(index >= 0);
            assert_true(bench->options[index].type == VP_OPT_SIZE_LIST ||
                        bench->options[index].type == VP_OPT_CHOICE_LIST);
            assert_non_null(bench->sweep_param);
        }
        if (bench->distribution_metric && !has_metric(bench, bench->distribution_metric))
            fail_msg("%s: distribution_metric '%s' is not one of its metrics", bench->name,
                     bench->distribution_metric);
    }
    assert_null(vp_bench_find("no.such"));
}

/* The same option name in two benchmarks is the same type, so one value given on the
 * command line means the same to both. */
static void options_sharing_a_name_share_a_type(void **state)
{
    (void)state;
    for (size_t a = 0; a < vp_bench_count; a++)
        for (size_t b = a; b < vp_bench_count; b++)
            for (size_t i = 0; i < vp_benches[a]->option_count; i++)
                for (size_t j = 0; j < vp_benches[b]->option_count; j++) {
                    const struct vp_option *x = &vp_benches[a]->options[i];
                    const struct vp_option *y = &vp_benches[b]->options[j];
                    if (strcmp(x->name, y->name) == 0 && x->type != y->type)
                        fail_msg("--%s is a %s in %s but a %s in %s", x->name,
                                 vp_option_type_name(x), vp_benches[a]->name,
                                 vp_option_type_name(y), vp_benches[b]->name);
                }
}

/* list.h has one line per table entry, and every preset names registered benchmarks. */
static void the_list_is_the_table(void **state)
{
    (void)state;
#define VP_COUNT_BENCH(file, name) +1
    assert_int_equal(vp_bench_count, 0 VP_BENCHES(VP_COUNT_BENCH));
    for (size_t p = 0; p < vp_preset_count; p++)
        for (size_t b = 0; vp_presets[p].benches[b]; b++)
            assert_non_null(vp_bench_find(vp_presets[p].benches[b]));
    const struct vp_bench *null_bench = vp_bench_find("null");
    assert_non_null(null_bench);
    assert_true(null_bench->hidden && !null_bench->in_quick_suite);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_bench_table_is_consistent),
        cmocka_unit_test(options_sharing_a_name_share_a_type),
        cmocka_unit_test(the_list_is_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
