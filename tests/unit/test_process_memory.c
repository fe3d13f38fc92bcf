/* Unit tests for env/process_memory.c: a QEMU process's smaps summed, the guest's RAM (an
 * anonymous read-write mapping of exactly its size) apart from the rest; a file-backed or
 * read-only mapping of that size is not the RAM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "env/process_memory.h"

#define MIB (1024ull * 1024)

static const char smaps[] =
    "55d0c0000000-55d0c0a00000 r-xp 00000000 08:01 1234   /usr/bin/qemu-system-x86_64\n"
    "Size:              10240 kB\n"
    "Rss:                6000 kB\n"
    "Pss:                3000 kB\n"
    "AnonHugePages:         0 kB\n"
    "VmFlags: rd ex mr mw me dw\n"
    "7fa61be00000-7fa63be00000 rw-p 00000000 00:00 0 \n"
    "Size:             524288 kB\n"
    "Rss:              141312 kB\n"
    "Pss:              141312 kB\n"
    "7fa63c000000-7fa67bfff000 rwxp 00000000 00:00 0\n"
    "Size:            1048572 kB\n"
    "Rss:               55296 kB\n"
    "Pss:               55296 kB\n"
    "7fa700000000-7fa720000000 rw-s 00000000 00:05 77     /memfd:shared (deleted)\n"
    "Size:             524288 kB\n"
    "Rss:                1024 kB\n"
    "Pss:                 512 kB\n"
    "7fa800000000-7fa820000000 r--p 00000000 00:00 0\n"
    "Size:             524288 kB\n"
    "Rss:                 100 kB\n"
    "Pss:                 100 kB\n";

static void the_guests_ram_is_counted_apart(void **state)
{
    (void)state;
    struct vp_process_memory memory;
    assert_int_equal(vp_process_memory_parse(smaps, 512 * MIB, &memory), 0);
    assert_true(memory.ram_found);
    assert_int_equal(memory.rss_bytes, (6000 + 141312 + 55296 + 1024 + 100) * 1024ull);
    assert_int_equal(memory.pss_bytes, (3000 + 141312 + 55296 + 512 + 100) * 1024ull);
    assert_int_equal(memory.ram_rss_bytes, 141312 * 1024ull);
    assert_int_equal(memory.ram_pss_bytes, 141312 * 1024ull);
}

static void no_mapping_of_the_rams_size_is_said(void **state)
{
    (void)state;
    struct vp_process_memory memory;
    assert_int_equal(vp_process_memory_parse(smaps, 1024 * MIB, &memory), 0);
    assert_false(memory.ram_found);
    assert_int_equal(memory.ram_pss_bytes, 0);
    assert_int_equal(vp_process_memory_parse("", 512 * MIB, &memory), -1);
    assert_int_equal(vp_process_memory_parse("not smaps at all\n", 512 * MIB, &memory), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_guests_ram_is_counted_apart),
        cmocka_unit_test(no_mapping_of_the_rams_size_is_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
