/* What a rank tells rank 0 of how it ends, on its liveness connection (liveness.h): 'D'
 * done or 'I' interrupted as it goes; and where it dies otherwise, from a handler, 'L'
 * with the last line it wrote to stderr and a newline, then 'S' and the number of the
 * fatal signal (SIGSEGV, SIGBUS, SIGABRT...) or 'E' and the status of an exit that said
 * neither 'D' nor 'I' (an error deep inside). */
#ifndef VP_LAST_WORDS_H
#define VP_LAST_WORDS_H

/* Speaks on fd from now on: catches SIGINT and SIGTERM (the engine stops its jobs, 'I'),
 * the fatal signals (said before the handler that was there, a sanitizer's or the
 * default, takes them) and exit, and keeps the last line written to stderr. */
void vp_last_words_start(int fd);

/* SIGINT and SIGTERM caught again as vp_last_words_start does, after code that took
 * them for the engine alone (the fleet's, starting a rank's members). */
void vp_last_words_catch_interrupts(void);

/* 'D' or 'I'. Async-signal-safe. */
void vp_last_words_say(char word);

#endif
