/* virtperf-mpi's liveness connections (src/mpi/liveness.c) between two processes of one
 * test, rank 0 and rank 1 over loopback: a rank napping between polls of MPI wakes when
 * rank 0 turns to it, or when rank 0 dies, and sleeps its nap out otherwise. Each case
 * runs both ranks in children of its own (the connections are a process's globals). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "mpi/liveness.h"

#define LONG_NAP_NS (30 * 1000000000LL) /* far beyond a wake's way over loopback */

enum rank0_does { WAKES, DIES, STAYS };

/* Rank 0: listens, tells its contact through contact_fd, accepts rank 1, waits for its
 * word on go_fd, then wakes it, dies at once (no word said), or stays until told. */
static _Noreturn void rank0(int contact_fd, int go_fd, enum rank0_does does)
{
    char contact[1024], err[256];
    if (vp_liveness_listen(contact, sizeof contact, err, sizeof err) != 0 ||
        write(contact_fd, contact, sizeof contact) != sizeof contact ||
        vp_liveness_start(0, 2, contact, 10, err, sizeof err) != 0)
        _exit(10);
    char go;
    if (read(go_fd, &go, 1) != 1)
        _exit(11);
    if (does == WAKES) {
        vp_liveness_wake(5); /* no such rank: nothing */
        vp_liveness_wake(1);
    }
    if (does != DIES && read(go_fd, &go, 1) != 1) /* held until rank 1 is done */
        _exit(12);
    _exit(0);
}

/* Rank 1: connects, says go, naps nap_ns. Whether it was woken, how long it slept, the
 * rank it saw die (-1: none), and whether it could connect at all. */
struct napped {
    bool connected, woken;
    int64_t slept_ns;
    int dead;
};

static struct napped rank1(int contact_fd, int go_fd, int64_t nap_ns)
{
    char contact[1024], err[256];
    if (read(contact_fd, contact, sizeof contact) != sizeof contact ||
        vp_liveness_start(1, 2, contact, 10, err, sizeof err) != 0)
        return (struct napped){ .connected = false };
    int64_t began = vp_now_ns();
    if (write(go_fd, "g", 1) != 1)
        return (struct napped){ .connected = false };
    bool woken = vp_liveness_nap(nap_ns);
    return (struct napped){ .connected = true, .woken = woken,
                            .slept_ns = vp_now_ns() - began, .dead = vp_liveness_dead() };
}

/* Both ranks, each in a child, rank 1 reporting through a pipe; both exits checked. */
static struct napped nap_beside(enum rank0_does does, int64_t nap_ns)
{
    int contact[2], go[2], report[2];
    assert_int_equal(pipe(contact), 0);
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(report), 0);
    pid_t zero = fork();
    assert_true(zero >= 0);
    if (zero == 0)
        rank0(contact[1], go[0], does);
    pid_t one = fork();
    assert_true(one >= 0);
    if (one == 0) {
        struct napped napped = rank1(contact[0], go[1], nap_ns);
        _exit(write(report[1], &napped, sizeof napped) == sizeof napped ? 0 : 1);
    }
    close(report[1]);
    struct napped napped;
    assert_int_equal(read(report[0], &napped, sizeof napped), sizeof napped);
    int status;
    assert_int_equal(waitpid(one, &status, 0), one);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(napped.connected);
    if (does != DIES)
        assert_int_equal(write(go[1], "e", 1), 1); /* rank 0 may end now */
    assert_int_equal(waitpid(zero, &status, 0), zero);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(contact[0]), close(contact[1]), close(go[0]), close(go[1]), close(report[0]);
    return napped;
}

static void test_a_napping_rank_wakes_when_rank0_turns_to_it(void **state)
{
    (void)state;
    struct napped napped = nap_beside(WAKES, LONG_NAP_NS);
    assert_true(napped.woken);
    assert_true(napped.slept_ns < LONG_NAP_NS);
    assert_int_equal(napped.dead, -1);
}

static void test_a_napping_rank_wakes_when_rank0_dies(void **state)
{
    (void)state;
    struct napped napped = nap_beside(DIES, LONG_NAP_NS);
    assert_true(napped.woken);
    assert_true(napped.slept_ns < LONG_NAP_NS);
    assert_int_equal(napped.dead, 0);
}

static void test_a_nap_without_a_wake_is_slept_out(void **state)
{
    (void)state;
    int64_t nap_ns = 50000000;
    struct napped napped = nap_beside(STAYS, nap_ns);
    assert_false(napped.woken);
    assert_true(napped.slept_ns >= nap_ns);
    assert_int_equal(napped.dead, -1);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_napping_rank_wakes_when_rank0_turns_to_it),
        cmocka_unit_test(test_a_napping_rank_wakes_when_rank0_dies),
        cmocka_unit_test(test_a_nap_without_a_wake_is_slept_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
