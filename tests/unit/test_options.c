/* Unit tests for options.c: parsing, validation, defaults, sweeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/options.h"

static const struct vp_option table[] = {
    { "size", VP_OPT_SIZE, "256m", 4096, 1073741824.0, NULL, "bytes" },
    { "passes", VP_OPT_COUNT, "2", 1, 1000, NULL, "passes" },
    { "mode", VP_OPT_CHOICE, "byte", 0, 0, "byte|wide|nt", "mode" },
    { "sizes", VP_OPT_SIZE_LIST, "16k,1m", 4096, 1073741824.0, NULL, "sweep" },
};

static void defaults_fill_params(void **state)
{
    (void)state;
    struct vp_params params;
    vp_params_init(&params, table, 4);
    assert_int_equal(vp_param_number(&params, "size"), 268435456);
    assert_int_equal(vp_param_number(&params, "passes"), 2);
    assert_string_equal(vp_param_text(&params, "mode"), "byte");
    int sweep = vp_params_find(&params, "sizes");
    assert_int_equal(params.values[sweep].list_len, 2);
    assert_int_equal(params.values[sweep].list[1], 1048576);
    assert_int_equal(vp_params_find(&params, "nope"), -1);
}

/* One option of a copy set by name: taken when valid, nothing without the option or text. */
static void one_option_set_by_name(void **state)
{
    (void)state;
    struct vp_params params;
    char err[VP_ERROR_LEN];
    vp_params_init(&params, table, 4);
    assert_int_equal(vp_params_set(&params, "mode", "wide", err, sizeof err), 0);
    assert_string_equal(vp_param_text(&params, "mode"), "wide");
    assert_int_equal(vp_params_set(&params, "passes", NULL, err, sizeof err), 0);
    assert_int_equal(vp_param_number(&params, "passes"), 2);
    assert_int_equal(vp_params_set(&params, "peer", "198.18.0.1:5201", err, sizeof err), 0);
    assert_int_equal(vp_params_set(&params, "passes", "0", err, sizeof err), -1);
    assert_non_null(strstr(err, "from 1 to 1000"));
    assert_int_equal(vp_param_number(&params, "passes"), 2);
}

static void values_are_validated_with_the_accepted_form(void **state)
{
    (void)state;
    struct vp_param_value value;
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_option_parse(&table[0], "1k", &value, err, sizeof err), -1);
    assert_non_null(strstr(err, "--size: '1k' is not valid"));
    assert_non_null(strstr(err, "from 4 KiB to 1 GiB"));
    assert_int_equal(vp_option_parse(&table[1], "0", &value, err, sizeof err), -1);
    assert_non_null(strstr(err, "from 1 to 1000"));
    assert_int_equal(vp_option_parse(&table[2], "fast", &value, err, sizeof err), -1);
    assert_non_null(strstr(err, "one of byte|wide|nt"));
    assert_int_equal(vp_option_parse(&table[2], "by", &value, err, sizeof err), -1);
    assert_int_equal(vp_option_parse(&table[2], "nt", &value, err, sizeof err), 0);
    assert_string_equal(value.text, "nt");
    const char *bad_lists[] = { "", ",", "16k,", ",16k", "16k,,1m", "1k", "16k,2g" };
    for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++)
        assert_int_equal(vp_option_parse(&table[3], bad_lists[i], &value, err, sizeof err), -1);
    assert_int_equal(vp_option_parse(&table[3], "4k,8k,1g", &value, err, sizeof err), 0);
    assert_int_equal(value.list_len, 3);
}

/* A choice list is a sweep of words: each point selects its word as the text. */
static void choice_lists_select_each_word(void **state)
{
    (void)state;
    const struct vp_option clocks = { "clock", VP_OPT_CHOICE_LIST, "a,c", 0, 0, "a|bb|c", "sweep" };
    struct vp_param_value value;
    char err[VP_ERROR_LEN];
    assert_int_equal(vp_option_parse(&clocks, "c,bb,a", &value, err, sizeof err), 0);
    assert_int_equal(value.list_len, 3);
    assert_string_equal(value.text, "c");
    vp_param_select(&clocks, &value, 1);
    assert_string_equal(value.text, "bb");
    vp_param_select(&clocks, &value, 2);
    assert_string_equal(value.text, "a");
    const char *refused[] = { "", "a,", ",a", "a,,c", "b", "a,d", "bb c" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(vp_option_parse(&clocks, refused[i], &value, err, sizeof err), -1);
        assert_non_null(strstr(err, "accepted: comma-separated words of a|bb|c"));
    }
    assert_string_equal(vp_option_type_name(&clocks), "choice list");
    /* all: every word, in the table's order */
    assert_int_equal(vp_option_parse(&clocks, "all", &value, err, sizeof err), 0);
    assert_int_equal(value.list_len, 3);
    assert_string_equal(value.text, "a");
    vp_param_select(&clocks, &value, 2);
    assert_string_equal(value.text, "c");
    assert_int_equal(vp_option_parse(&clocks, "all,a", &value, err, sizeof err), -1);
}

/* A choice list whose default is empty is an optional sweep: no point until asked. */
static void an_empty_choice_list_default_is_no_sweep(void **state)
{
    (void)state;
    const struct vp_option optional[] = {
        { "preset", VP_OPT_CHOICE_LIST, "", 0, 0, "x|y", "optional sweep" },
        { "n", VP_OPT_COUNT, "3", 1, 9, NULL, "a count" },
    };
    struct vp_params params;
    vp_params_init(&params, optional, 2);
    assert_int_equal(params.values[0].list_len, 0);
    assert_string_equal(params.values[0].text, "");
    assert_int_equal(vp_param_number(&params, "n"), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_fill_params),
        cmocka_unit_test(an_empty_choice_list_default_is_no_sweep),
        cmocka_unit_test(values_are_validated_with_the_accepted_form),
        cmocka_unit_test(choice_lists_select_each_word),
        cmocka_unit_test(one_option_set_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
