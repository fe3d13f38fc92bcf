/* A rank's last words to rank 0 (last_words.h): its stderr recorded line by line through
 * a stream of our own, and the handlers of its signals and its exit. */
#define _GNU_SOURCE
#include "mpi/last_words.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"

static int speak_fd = -1;
static pid_t rank_pid;                 /* the rank's own process: its jobs inherit all this */
static volatile sig_atomic_t said_end; /* 'D' or 'I' said: an exit after it is no death */
static volatile sig_atomic_t said_cause;
static char last_line[200], current_line[200];
static size_t current_len;

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction before_ours[FATAL_COUNT];

void vp_last_words_say(char word)
{
    said_end = 1;
    if (speak_fd >= 0)
        (void)!write(speak_fd, &word, 1);
}

/* 'L' + the last line + '\n', then the cause and its code: once, from the rank itself. */
static void say_cause(char cause, int code)
{
    if (said_cause || said_end || speak_fd < 0 || getpid() != rank_pid)
        return;
    said_cause = 1;
    char words[sizeof last_line + 4];
    size_t len = strnlen(last_line, sizeof last_line);
    words[0] = 'L';
    memcpy(words + 1, last_line, len);
    words[len + 1] = '\n';
    words[len + 2] = cause;
    words[len + 3] = (char)(code & 0xff);
    (void)!write(speak_fd, words, len + 4);
}

static void say_exit(int status, void *unused)
{
    (void)unused;
    say_cause('E', status);
}

static void on_signal(int signo)
{
    (void)signo;
    vp_engine_note_interrupt();
    vp_last_words_say('I');
}

/* A fatal signal: said to rank 0, then given to the handler that was there before. */
static void on_fatal(int signo)
{
    say_cause('S', signo); /* the first: a sanitizer's report ends in a SIGABRT too */
    for (size_t i = 0; i < FATAL_COUNT; i++)
        if (fatal_signals[i] == signo)
            sigaction(signo, &before_ours[i], NULL);
    raise(signo); /* taken once this handler returns (a fault also recurs at once) */
}

/* stderr's writes: to the real stderr, and each complete line not blank kept as the last. */
static ssize_t record_stderr(void *unused, const char *buf, size_t size)
{
    (void)unused;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n' || buf[i] == '\r') {
            if (current_len > 0) {
                memcpy(last_line, current_line, current_len);
                last_line[current_len] = '\0';
            }
            current_len = 0;
        } else if (current_len + 1 < sizeof current_line) {
            current_line[current_len++] = buf[i];
        }
    }
    size_t written = 0;
    while (written < size) {
        ssize_t n = write(STDERR_FILENO, buf + written, size - written);
        if (n <= 0)
            return written ? (ssize_t)written : -1;
        written += (size_t)n;
    }
    return (ssize_t)size;
}

void vp_last_words_catch_interrupts(void)
{
    struct sigaction action = { .sa_handler = on_signal };
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

void vp_last_words_start(int fd)
{
    speak_fd = fd;
    rank_pid = getpid();
    vp_last_words_catch_interrupts();
    signal(SIGPIPE, SIG_IGN);
    on_exit(say_exit, NULL);
    struct sigaction fatal = { .sa_handler = on_fatal };
    sigemptyset(&fatal.sa_mask);
    for (size_t i = 0; i < FATAL_COUNT; i++)
        sigaction(fatal_signals[i], &fatal, &before_ours[i]);
    FILE *recorded = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = record_stderr });
    if (recorded) {
        setvbuf(recorded, NULL, _IONBF, 0);
        fflush(stderr);
        stderr = recorded;
    }
}
