/* Knowing at once which rank died. Open MPI (before ULFM) cannot tell a surviving rank
 * that another one died: mpirun just stops them all, a second later. So each rank holds
 * one TCP connection to rank 0 and says on it how it ends (last_words.h: done,
 * interrupted, or, dying, its fatal signal or exit status with its last error line); a
 * connection that closes without a word is a rank that was killed (SIGKILL: the OOM
 * killer, a user) or whose host vanished (the kernel closes it as the process goes),
 * noticed before mpirun's teardown reaches rank 0. Rank 0's death is seen the same way
 * by the others. Rank 0 also says 'W' on a rank's connection when it turns to that rank, so
 * a rank napping between polls of MPI (world.h) wakes at once rather than at its next
 * poll. */
#ifndef VP_LIVENESS_H
#define VP_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rank 0: listens on every address, port chosen by the kernel; text receives
 * "PORT ADDRESS..." (this host's IPv4 addresses, loopback last) for the other ranks.
 * Returns 0, or -1 with err. */
int vp_liveness_listen(char *text, size_t text_len, char *err, size_t err_len);
/* " ADDRESS ADDRESS ...": this host's IPv4 addresses, loopback last. 0, or -1 (errno). */
int vp_host_addresses(char *text, size_t text_len);
/* Rank 0: accepts the other size - 1 ranks (each says its rank) within timeout_s and
 * starts watching them. Other ranks: connects to rank 0 through text and starts
 * watching it. Returns 0, or -1 with err. */
int vp_liveness_start(int rank, int size, const char *text, double timeout_s, char *err,
                      size_t err_len);
/* A rank that died (its connection closed without a word), or -1. On ranks other than
 * 0, only rank 0 is watched. */
int vp_liveness_dead(void);
/* Rank 0: tells rank, napping in a wait, that a message for it comes now ('W' on its
 * connection). Elsewhere, or for a rank gone, nothing. */
void vp_liveness_wake(int rank);
/* Sleeps ns, or less: true when a wake word came (or a rank died) meanwhile. */
bool vp_liveness_nap(int64_t ns);
/* How that rank died, as words for after its name: "died of SIGSEGV (signal 11); its
 * last error line: ...", "died: exited with status 2 before the run ended; ...", or
 * "died: its connection closed without a word (...)". */
void vp_liveness_death(char *buf, size_t len);
/* From now on this rank's end is told to rank 0, however it comes (last_words.h). */
void vp_liveness_catch_signals(void);

#endif
