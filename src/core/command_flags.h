/* A subcommand's flags as one table, as run's are: each row names its flag, its value's
 * form and help, and the function that takes it. One parser walks argv by the table
 * (flags anywhere among the operands, --NAME VALUE, --NAME=VALUE, a row's one-letter
 * form, -- ends the flags) and one printer writes the table's part of --help, so a flag
 * cannot be parsed without being listed, nor listed without being parsed. */
#ifndef VP_COMMAND_FLAGS_H
#define VP_COMMAND_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct vp_command_flag {
    const char *name;     /* without "--" */
    char letter;          /* its one-letter form (-o), or 0 */
    const char *argument; /* its value's form in --help ("PCT", "FILE|-"); NULL: a switch */
    const char *help;     /* --help's text, "\n" between lines */
    /* Takes the flag's value (NULL for a switch) into the command's settings: 0, or -1
     * with err saying what was wrong and what is accepted. */
    int (*take)(void *settings, const char *value, char *err, size_t err_len);
};

struct vp_command_table {
    const char *command; /* "compare", "results": names it in messages */
    const struct vp_command_flag *flags;
    size_t count;
};

/* Walks argv[1..argc-1]: each flag of table taken into settings, --help (and -h) sets
 * *help, the other words are put in operands (in order; there is room for argc) and
 * counted into *operand_count. 0, or -1 with err naming the word and what is accepted. */
int vp_command_parse(const struct vp_command_table *table, void *settings, int argc,
                     char **argv, char **operands, size_t *operand_count, bool *help,
                     char *err, size_t err_len);

/* The table's flags as --help lists them, "  --help" last. */
void vp_command_print_flags(FILE *out, const struct vp_command_table *table);

#endif
