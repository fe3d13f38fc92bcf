/* Parsing and listing a subcommand's flags by its table (command_flags.h). */
#include "core/command_flags.h"

#include <stdio.h>
#include <string.h>

/* The row called name (name_len bytes of it), or NULL. */
static const struct vp_command_flag *flag_named(const struct vp_command_table *table,
                                                const char *name, size_t name_len)
{
    for (size_t i = 0; i < table->count; i++)
        if (strlen(table->flags[i].name) == name_len &&
            memcmp(table->flags[i].name, name, name_len) == 0)
            return &table->flags[i];
    return NULL;
}

static const struct vp_command_flag *flag_lettered(const struct vp_command_table *table,
                                                   char letter)
{
    for (size_t i = 0; i < table->count; i++)
        if (table->flags[i].letter && table->flags[i].letter == letter)
            return &table->flags[i];
    return NULL;
}

/* "--a, --b, ..., --help" into buf. */
static void accepted_flags(const struct vp_command_table *table, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < table->count && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "--%s, ", table->flags[i].name);
    if (used < len)
        snprintf(buf + used, len - used, "--help");
}

/* Takes flag with inline (the text after '=' or after the letter, or NULL) or else the
 * next word; *at is moved past what was used. */
static int take_flag(const struct vp_command_table *table, const struct vp_command_flag *flag,
                     const char *inline_value, int argc, char **argv, int *at, void *settings,
                     char *err, size_t err_len)
{
    const char *value = NULL;
    if (!flag->argument) {
        if (inline_value) {
            snprintf(err, err_len, "%s: --%s takes no value; accepted: --%s alone",
                     table->command, flag->name, flag->name);
            return -1;
        }
    } else if (inline_value) {
        value = inline_value;
    } else if (*at + 1 < argc) {
        value = argv[++*at];
    } else {
        snprintf(err, err_len, "%s: --%s needs a value; accepted: --%s %s", table->command,
                 flag->name, flag->name, flag->argument);
        return -1;
    }
    char why[1024] = "";
    if (flag->take(settings, value, why, sizeof why) == 0)
        return 0;
    snprintf(err, err_len, "%s: %s", table->command, why);
    return -1;
}

int vp_command_parse(const struct vp_command_table *table, void *settings, int argc,
                     char **argv, char **operands, size_t *operand_count, bool *help,
                     char *err, size_t err_len)
{
    *operand_count = 0;
    *help = false;
    bool flags_ended = false;
    for (int at = 1; at < argc; at++) {
        const char *word = argv[at];
        if (flags_ended || word[0] != '-' || word[1] == '\0') {
            operands[(*operand_count)++] = argv[at];
            continue;
        }
        if (strcmp(word, "--") == 0) {
            flags_ended = true;
            continue;
        }
        if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) {
            *help = true;
            continue;
        }
        const struct vp_command_flag *flag;
        const char *inline_value = NULL;
        if (word[1] == '-') {
            const char *name = word + 2, *equals = strchr(name, '=');
            flag = flag_named(table, name, equals ? (size_t)(equals - name) : strlen(name));
            inline_value = equals ? equals + 1 : NULL;
        } else {
            flag = flag_lettered(table, word[1]);
            inline_value = word[2] ? word + 2 : NULL;
        }
        if (!flag) {
            char accepted[1024];
            accepted_flags(table, accepted, sizeof accepted);
            snprintf(err, err_len, "%s: unknown option '%.64s'; accepted: %s",
                     table->command, word, accepted);
            return -1;
        }
        if (take_flag(table, flag, inline_value, argc, argv, &at, settings, err, err_len) != 0)
            return -1;
    }
    return 0;
}

/* The column where a flag's help starts. */
enum { HELP_COLUMN = 21 };

void vp_command_print_flags(FILE *out, const struct vp_command_table *table)
{
    for (size_t i = 0; i <= table->count; i++) {
        const struct vp_command_flag *flag = i < table->count ? &table->flags[i] : NULL;
        char head[128];
        int width;
        if (!flag)
            width = snprintf(head, sizeof head, "  --help");
        else if (flag->letter)
            width = snprintf(head, sizeof head, "  -%c, --%s%s%s", flag->letter, flag->name,
                             flag->argument ? " " : "", flag->argument ? flag->argument : "");
        else
            width = snprintf(head, sizeof head, "  --%s%s%s", flag->name,
                             flag->argument ? " " : "", flag->argument ? flag->argument : "");
        const char *help = flag ? flag->help : "this text";
        fputs(head, out);
        /* a head too wide for the column puts the help on the next line */
        if (width >= HELP_COLUMN - 1)
            fprintf(out, "\n%*s", HELP_COLUMN, "");
        else
            fprintf(out, "%*s", HELP_COLUMN - width, "");
        for (const char *line = help; *line;) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            fprintf(out, "%.*s\n", (int)len, line);
            line += len;
            if (*line == '\n' && *++line)
                fprintf(out, "%*s", HELP_COLUMN, "");
        }
    }
}
