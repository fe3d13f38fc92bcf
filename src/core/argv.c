/* A command text split into words without a shell (see argv.h). */
#include "core/argv.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int vp_split_command(const char *text, char **argv, size_t cap, char *storage,
                     size_t storage_len, char *err, size_t err_len)
{
    size_t words = 0, used = 0;
    const char *at = text;
    for (;;) {
        while (*at == ' ' || *at == '\t' || *at == '\n')
            at++;
        if (!*at)
            break;
        if (words + 1 >= cap) {
            snprintf(err, err_len, "--cmd: more than %zu words", cap - 1);
            return -1;
        }
        argv[words++] = storage + used;
        char quote = 0;
        while (*at && (quote || (*at != ' ' && *at != '\t' && *at != '\n'))) {
            char c = *at++;
            if (quote == '\'' && c == '\'') {
                quote = 0;
                continue;
            }
            if (quote == '"' && c == '"') {
                quote = 0;
                continue;
            }
            if (!quote && (c == '\'' || c == '"')) {
                quote = c;
                continue;
            }
            bool escapes = c == '\\' && (!quote || (quote == '"' && *at && strchr("\"\\$`", *at)));
            if (escapes) {
                if (!*at) {
                    snprintf(err, err_len, "--cmd: a backslash ends the command; accepted: "
                             "\\ before the character it keeps");
                    return -1;
                }
                c = *at++;
            }
            if (used + 2 > storage_len) {
                snprintf(err, err_len, "--cmd: longer than %zu bytes", storage_len - 1);
                return -1;
            }
            storage[used++] = c;
        }
        if (quote) {
            snprintf(err, err_len, "--cmd: a %c quote is not closed", quote);
            return -1;
        }
        storage[used++] = '\0';
    }
    if (words == 0) {
        snprintf(err, err_len, "--cmd: no command; accepted: a program and its arguments, "
                 "such as --cmd 'gauss -n 100'");
        return -1;
    }
    argv[words] = NULL;
    return (int)words;
}
