/* net/admission.c: which handshake makes room when half the session slots are
 * handshaking. Descriptors here are socketpairs, so the eviction's shutdown is real and
 * seen by the other end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "net/admission.h"

enum { SLOTS = 8, FLOODER = 1, CLIENT = 2 };

struct fixture {
    struct vp_admission admission;
    int ends[SLOTS + 4][2];
    unsigned opened;
};

/* Takes a slot for a new connection from source at time now; returns the slot. */
static int connect_from(struct fixture *fixture, uint64_t source, int64_t now)
{
    int *pair = fixture->ends[fixture->opened++];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    return vp_admission_take(&fixture->admission, pair[0], source, now);
}

/* Whether the connection in slot was shut down (its far end reads end of file). */
static bool was_shut(struct fixture *fixture, unsigned connection)
{
    char byte;
    return recv(fixture->ends[connection][1], &byte, 1, MSG_DONTWAIT) == 0;
}

static void finish(struct fixture *fixture)
{
    for (unsigned i = 0; i < fixture->opened; i++) {
        close(fixture->ends[i][0]);
        close(fixture->ends[i][1]);
    }
    vp_admission_free(&fixture->admission);
}

static void a_flood_from_many_sources_evicts_the_longest_silent(void **state)
{
    (void)state;
    struct fixture fixture = { 0 };
    vp_admission_init(&fixture.admission, SLOTS); /* 4 handshake slots */
    int client = connect_from(&fixture, CLIENT, 10);
    for (int64_t t = 20; t < 23; t++) /* silent, one connection per address */
        assert_true(connect_from(&fixture, CLIENT + (uint64_t)t, t) >= 0);
    vp_admission_progress(&fixture.admission, (unsigned)client, 25); /* its HELLO */
    /* Full: the new connection ends the handshake silent longest, not the client's. */
    assert_true(connect_from(&fixture, CLIENT + 99, 30) >= 0);
    assert_false(was_shut(&fixture, 0));
    assert_true(was_shut(&fixture, 1));
    assert_int_equal(fixture.admission.ending, 1);
    assert_int_equal(fixture.admission.handshaking, 4);
    finish(&fixture);
}

static void a_flood_from_one_source_evicts_itself_before_others(void **state)
{
    (void)state;
    struct fixture fixture = { 0 };
    vp_admission_init(&fixture.admission, SLOTS);
    int client = connect_from(&fixture, CLIENT, 10); /* the oldest, and it said HELLO */
    vp_admission_progress(&fixture.admission, (unsigned)client, 11);
    for (int64_t t = 20; t < 23; t++) { /* a flood that says HELLO and stalls */
        int slot = connect_from(&fixture, FLOODER, t);
        vp_admission_progress(&fixture.admission, (unsigned)slot, t);
    }
    assert_true(connect_from(&fixture, FLOODER, 30) >= 0);
    assert_false(was_shut(&fixture, 0)); /* the client's source holds one handshake */
    assert_true(was_shut(&fixture, 1));  /* the flooder's oldest */
    finish(&fixture);
}

static void a_hello_flood_spares_a_client_whose_hello_is_not_read_yet(void **state)
{
    (void)state;
    struct fixture fixture = { 0 };
    vp_admission_init(&fixture.admission, SLOTS);
    for (int64_t t = 1; t < 4; t++) { /* HELLO sent, then stalling at AUTH */
        int slot = connect_from(&fixture, FLOODER, t);
        vp_admission_progress(&fixture.admission, (unsigned)slot, t);
    }
    assert_true(connect_from(&fixture, CLIENT, 5) >= 0); /* its thread has not read yet */
    assert_true(connect_from(&fixture, FLOODER, 6) >= 0);
    assert_false(was_shut(&fixture, 3));
    assert_true(was_shut(&fixture, 0));
    finish(&fixture);
}

static void a_finished_handshake_is_never_evicted_and_full_slots_refuse(void **state)
{
    (void)state;
    struct fixture fixture = { 0 };
    vp_admission_init(&fixture.admission, 4); /* 2 handshake slots */
    for (int64_t t = 1; t <= 2; t++) { /* two sessions past their handshake */
        int slot = connect_from(&fixture, CLIENT, t);
        assert_false(vp_admission_handshake_done(&fixture.admission, (unsigned)slot));
    }
    assert_true(connect_from(&fixture, FLOODER, 3) >= 0);
    assert_true(connect_from(&fixture, FLOODER, 4) >= 0);
    /* Every slot taken: the oldest handshake is evicted, but its slot is not free until
     * its session ends, so this one is refused; the sessions are untouched. */
    assert_int_equal(connect_from(&fixture, FLOODER, 5), -1);
    assert_false(was_shut(&fixture, 0));
    assert_false(was_shut(&fixture, 1));
    assert_true(was_shut(&fixture, 2));
    assert_int_equal(fixture.admission.ending, 1);
    /* The evicted session ends: its slot goes to the next connection. */
    assert_true(vp_admission_handshake_done(&fixture.admission, 2));
    vp_admission_release(&fixture.admission, 2);
    assert_int_equal(fixture.admission.ending, 0);
    assert_int_equal(connect_from(&fixture, FLOODER, 6), 2);
    assert_int_equal(fixture.admission.active, 4);
    finish(&fixture);
}

static void sources_hash_by_address(void **state)
{
    (void)state;
    unsigned char a[4] = { 127, 0, 0, 1 }, b[4] = { 127, 0, 0, 2 };
    assert_true(vp_admission_source(a, 4) != vp_admission_source(b, 4));
    assert_true(vp_admission_source(a, 4) == vp_admission_source(a, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_flood_from_many_sources_evicts_the_longest_silent),
        cmocka_unit_test(a_flood_from_one_source_evicts_itself_before_others),
        cmocka_unit_test(a_hello_flood_spares_a_client_whose_hello_is_not_read_yet),
        cmocka_unit_test(a_finished_handshake_is_never_evicted_and_full_slots_refuse),
        cmocka_unit_test(sources_hash_by_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
