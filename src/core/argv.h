/* Splitting a command given as one text (app's --cmd) into argv, without a shell, by the
 * quoting rules of sh: words are separated by blanks; '...' keeps everything inside as
 * it is; "..." keeps it but a backslash there escapes " \ $ and `; outside quotes a
 * backslash escapes the next character. Nothing is expanded: no variables, globbing,
 * pipes or redirections (--shell is for those). */
#ifndef VP_ARGV_H
#define VP_ARGV_H

#include <stddef.h>

/* Splits text into argv (at most cap - 1 words and a NULL), the words' bytes in storage.
 * Returns the word count, or -1 with err (an open quote, a trailing backslash, no word,
 * too many words or too long). */
int vp_split_command(const char *text, char **argv, size_t cap, char *storage,
                     size_t storage_len, char *err, size_t err_len);

#endif
