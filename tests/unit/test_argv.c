/* Unit tests for splitting app's --cmd into argv (core/argv.c): blanks, both quotes,
 * backslashes as sh reads them, empty words, and every malformed text refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/argv.h"

static char *words[16];
static char storage[256];
static char err[256];

static int split(const char *text)
{
    return vp_split_command(text, words, 16, storage, sizeof storage, err, sizeof err);
}

static void words_split_as_sh_would(void **state)
{
    (void)state;
    assert_int_equal(split("  gauss  -n 100\t"), 3);
    assert_string_equal(words[0], "gauss");
    assert_string_equal(words[2], "100");
    assert_null(words[3]);
    assert_int_equal(split("echo 'a  b' \"c \\\"d\\\" \\$e\" f\\ g ''"), 5);
    assert_string_equal(words[1], "a  b");
    assert_string_equal(words[2], "c \"d\" $e");
    assert_string_equal(words[3], "f g");
    assert_string_equal(words[4], "");
    assert_int_equal(split("say 'it''s' \"\\n\""), 3);
    assert_string_equal(words[1], "its");
    assert_string_equal(words[2], "\\n"); /* only " \\ $ ` are escaped inside "..." */
}

static void malformed_commands_are_refused(void **state)
{
    (void)state;
    assert_int_equal(split("   "), -1);
    assert_non_null(strstr(err, "no command"));
    assert_int_equal(split("echo 'open"), -1);
    assert_non_null(strstr(err, "a ' quote is not closed"));
    assert_int_equal(split("echo \"open"), -1);
    assert_int_equal(split("echo \\"), -1);
    assert_non_null(strstr(err, "backslash ends"));
    assert_int_equal(split("a b c d e f g h i j k l m n o p q"), -1);
    assert_non_null(strstr(err, "more than 15 words"));
    char long_text[600];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    assert_int_equal(split(long_text), -1);
    assert_non_null(strstr(err, "longer than"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(words_split_as_sh_would),
        cmocka_unit_test(malformed_commands_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
