/* Unit tests for fileset manifests and seeded content (core/fileset.c): names that stay
 * under their source, every malformed field refused with its name, a manifest written
 * and read back unchanged, content that any range of reproduces and a changed byte
 * that is found where it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileset.h"

static char err[256];
static struct vp_fileset set;

#define ZERO_SUM "0000000000000000000000000000000000000000000000000000000000000000"

static int parse(const char *text)
{
    return vp_fileset_parse(text, strlen(text), &set, err, sizeof err);
}

static void names_stay_under_the_source(void **state)
{
    (void)state;
    assert_true(vp_fileset_name_ok("file-00000.dat"));
    assert_true(vp_fileset_name_ok("run2/evts..v2.root"));
    const char *refused[] = { "", "/etc/passwd", "..", "../x", "a/../b", "a/..", "./a", "a//b",
                              "a/", "a b", "a\nb", "a%2f", "root://x" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        assert_false(vp_fileset_name_ok(refused[i]));
    char long_name[VP_FILESET_NAME_LEN + 1];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_false(vp_fileset_name_ok(long_name));
}

static void each_malformed_field_is_named(void **state)
{
    (void)state;
    static const struct { const char *text, *reason; } cases[] = {
        { "{", "not JSON" },
        { "{\"format\": \"other\", \"version\": 1, \"files\": []}", "format: accepted" },
        { "{\"format\": \"virtperf fileset\", \"version\": 2, \"files\": []}", "version: accepted: 1" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"files\": []}", "files: accepted: an array of 1" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"seed\": -1, \"files\": [1]}", "seed: accepted" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"files\": [1]}", "files[0]: accepted: an object" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"files\": [{\"name\": \"../a\", \"size\": 1, \"sha256\": \"" ZERO_SUM "\"}]}", "files[0].name" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"files\": [{\"name\": \"a\", \"size\": -1, \"sha256\": \"" ZERO_SUM "\"}]}", "files[0].size" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"files\": [{\"name\": \"a\", \"size\": 1, \"sha256\": \"ABC\"}]}", "files[0].sha256" },
        { "{\"format\": \"virtperf fileset\", \"version\": 1, \"files\": [{\"name\": \"a\", \"size\": 1, \"sha256\": \"" ZERO_SUM "\"}, {\"name\": \"a\", \"size\": 2, \"sha256\": \"" ZERO_SUM "\"}]}", "\"a\" is listed twice" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = '\0';
        assert_int_equal(parse(cases[i].text), -1);
        if (!strstr(err, cases[i].reason))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].reason);
        assert_int_equal(set.count, 0);
    }
}

static void a_manifest_reads_back_as_written(void **state)
{
    (void)state;
    struct vp_fileset written = { .generated = true, .seed = 42, .count = 2 };
    written.files = calloc(2, sizeof *written.files);
    snprintf(written.files[0].name, VP_FILESET_NAME_LEN, "file-00000.dat");
    snprintf(written.files[1].name, VP_FILESET_NAME_LEN, "sub/file-00001.dat");
    written.files[0].size = 1;
    written.files[1].size = 1ULL << 40;
    memcpy(written.files[0].sha256, ZERO_SUM, 65);
    memcpy(written.files[1].sha256, "ab" ZERO_SUM, 64);
    written.files[1].sha256[64] = '\0';
    char *text = vp_fileset_dump(&written);
    assert_int_equal(parse(text), 0);
    assert_true(set.generated);
    assert_int_equal(set.seed, 42);
    assert_int_equal(set.count, 2);
    assert_string_equal(set.files[1].name, "sub/file-00001.dat");
    assert_int_equal(set.files[1].size, 1ULL << 40);
    assert_string_equal(set.files[1].sha256, written.files[1].sha256);
    vp_fileset_free(&set);
    written.generated = false; /* indexed files: no seed */
    free(text);
    text = vp_fileset_dump(&written);
    assert_null(strstr(text, "seed"));
    assert_int_equal(parse(text), 0);
    assert_false(set.generated);
    vp_fileset_free(&set);
    free(text);
    free(written.files);
}

static void any_range_reproduces_the_content(void **state)
{
    (void)state;
    unsigned char whole[10000], part[777];
    vp_fileset_fill(7, 3, 0, whole, sizeof whole);
    vp_fileset_fill(7, 3, 1234, part, sizeof part); /* unaligned start and length */
    assert_memory_equal(whole + 1234, part, sizeof part);
    assert_int_equal(vp_fileset_mismatch(7, 3, 0, whole, sizeof whole), -1);
    unsigned char other[64];
    vp_fileset_fill(7, 4, 0, other, sizeof other); /* another file, other bytes */
    assert_memory_not_equal(whole, other, sizeof other);
    vp_fileset_fill(8, 3, 0, other, sizeof other); /* another seed, other bytes */
    assert_memory_not_equal(whole, other, sizeof other);
    whole[5001] ^= 1;
    assert_int_equal(vp_fileset_mismatch(7, 3, 0, whole, sizeof whole), 5001);
    assert_int_equal(vp_fileset_mismatch(7, 3, 5000, whole + 5000, 100), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_stay_under_the_source),
        cmocka_unit_test(each_malformed_field_is_named),
        cmocka_unit_test(a_manifest_reads_back_as_written),
        cmocka_unit_test(any_range_reproduces_the_content),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
