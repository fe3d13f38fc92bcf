/* Unit tests for a subcommand's flag table (core/command_flags.c): flags anywhere among
 * the operands in every spelling, -- ending them, and each malformed word refused naming
 * it and what is accepted; --help lists every row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/command_flags.h"

struct settings {
    const char *output, *level;
    int quiet;
};

static int take_output(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len;
    ((struct settings *)settings)->output = value;
    return 0;
}

static int take_level(void *settings, const char *value, char *err, size_t err_len)
{
    if (strcmp(value, "low") != 0 && strcmp(value, "high") != 0) {
        snprintf(err, err_len, "--level: '%s' is not valid; accepted: low, high", value);
        return -1;
    }
    ((struct settings *)settings)->level = value;
    return 0;
}

static int take_quiet(void *settings, const char *value, char *err, size_t err_len)
{
    (void)value, (void)err, (void)err_len;
    ((struct settings *)settings)->quiet++;
    return 0;
}

static const struct vp_command_flag flags[] = {
    { "output", 'o', "FILE", "where to write", take_output },
    { "level", 0, "low|high", "how much\nsecond line", take_level },
    { "quiet", 0, NULL, "say less", take_quiet },
};
static const struct vp_command_table table = { "try", flags, 3 };

static struct settings settings;
static char *operands[16];
static size_t count;
static bool help;
static char err[1024];

static int parse(int argc, char **argv)
{
    settings = (struct settings){ 0 };
    return vp_command_parse(&table, &settings, argc, argv, operands, &count, &help, err,
                            sizeof err);
}

static void flags_are_taken_anywhere_in_every_spelling(void **state)
{
    (void)state;
    char *argv[] = { "try", "a", "--output", "x", "b", "--level=high", "-oy", "--quiet",
                     "-", "--", "--quiet", NULL };
    assert_int_equal(parse(11, argv), 0);
    assert_string_equal(settings.output, "y"); /* the last given wins */
    assert_string_equal(settings.level, "high");
    assert_int_equal(settings.quiet, 1);       /* the one after -- is an operand */
    assert_int_equal(count, 4);
    assert_string_equal(operands[0], "a");
    assert_string_equal(operands[1], "b");
    assert_string_equal(operands[2], "-");
    assert_string_equal(operands[3], "--quiet");
    assert_false(help);
    char *with_help[] = { "try", "-o", "z", "--help", NULL };
    assert_int_equal(parse(4, with_help), 0);
    assert_true(help);
    assert_string_equal(settings.output, "z");
}

/* Each bad argv is refused and err holds each of the expected texts. */
static void refused(int argc, char **argv, const char *first, const char *second)
{
    err[0] = '\0';
    assert_int_equal(parse(argc, argv), -1);
    if (!strstr(err, first) || !strstr(err, second))
        fail_msg("'%s' lacks '%s' or '%s'", err, first, second);
    assert_null(strchr(err, '\n'));
}

static void malformed_words_are_refused_naming_them(void **state)
{
    (void)state;
    refused(2, (char *[]){ "try", "--outptu", NULL }, "unknown option '--outptu'",
            "accepted: --output, --level, --quiet, --help");
    refused(2, (char *[]){ "try", "-x", NULL }, "unknown option '-x'", "--output");
    refused(2, (char *[]){ "try", "--output", NULL }, "--output needs a value",
            "accepted: --output FILE");
    refused(2, (char *[]){ "try", "--quiet=yes", NULL }, "--quiet takes no value",
            "--quiet alone");
    refused(3, (char *[]){ "try", "--level", "mid", NULL }, "try: --level: 'mid'",
            "accepted: low, high");
    refused(2, (char *[]){ "try", "--out=x", NULL }, "unknown option '--out=x'", "--output");
}

static void help_lists_every_row(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    vp_command_print_flags(out, &table);
    fclose(out);
    assert_non_null(strstr(text, "  -o, --output FILE  where to write\n"));
    assert_non_null(strstr(text, "  --level low|high   how much\n                     second line\n"));
    assert_non_null(strstr(text, "  --quiet            say less\n"));
    assert_non_null(strstr(text, "  --help             this text\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_are_taken_anywhere_in_every_spelling),
        cmocka_unit_test(malformed_words_are_refused_naming_them),
        cmocka_unit_test(help_lists_every_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
