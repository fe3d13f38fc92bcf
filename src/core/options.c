/* Typed benchmark options: parse and validate values, defaults, typed accessors. */
#include "core/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

bool vp_option_is_flag(const struct vp_option *option)
{
    return option->type == VP_OPT_CHOICE && strcmp(option->choices, "off|on") == 0;
}

const char *vp_option_type_name(const struct vp_option *option)
{
    switch (option->type) {
    case VP_OPT_COUNT: return "count";
    case VP_OPT_SIZE: return "size";
    case VP_OPT_SIZE_LIST: return "size list";
    case VP_OPT_CHOICE: return vp_option_is_flag(option) ? "flag" : "choice";
    case VP_OPT_TEXT: return "text";
    case VP_OPT_DURATION: return "duration";
    case VP_OPT_CHOICE_LIST: return "choice list";
    }
    return "?";
}

static void describe_number(const struct vp_option *option, double value, char *buf,
                            size_t len)
{
    if (option->type == VP_OPT_COUNT)
        snprintf(buf, len, "%.0f", value);
    else
        vp_format_bytes(value, buf, len);
}

void vp_option_describe(const struct vp_option *option, char *buf, size_t len)
{
    if (option->type == VP_OPT_CHOICE) {
        snprintf(buf, len, vp_option_is_flag(option) ? "on or off (--%s alone: on)" : "one of %s",
                 vp_option_is_flag(option) ? option->name : option->choices);
        return;
    }
    if (option->type == VP_OPT_CHOICE_LIST) {
        snprintf(buf, len, "comma-separated words of %s, or all", option->choices);
        return;
    }
    if (option->type == VP_OPT_TEXT) {
        snprintf(buf, len, "text of 1 to %d bytes", VP_TEXT_LEN - 1);
        return;
    }
    char low[32], high[32];
    if (option->type == VP_OPT_DURATION) {
        vp_format_seconds(option->min, low, sizeof low);
        vp_format_seconds(option->max, high, sizeof high);
        snprintf(buf, len, "a duration such as 500ms or 2s, from %s to %s", low, high);
        return;
    }
    describe_number(option, option->min, low, sizeof low);
    describe_number(option, option->max, high, sizeof high);
    const char *form = option->type == VP_OPT_COUNT
        ? "a whole number (k, m, g = 10^3, 10^6, 10^9)"
        : option->type == VP_OPT_SIZE ? "a size in bytes (k, m, g, t = powers of 1024)"
                                      : "comma-separated sizes (k, m, g, t = powers of 1024)";
    snprintf(buf, len, "%s from %s to %s", form, low, high);
}

static int number_in_range(const struct vp_option *option, uint64_t value)
{
    return (double)value >= option->min && (double)value <= option->max;
}

/* The position of word (word_len bytes) among the '|'-separated choices, or -1. */
static int choice_position(const char *choices, const char *word, size_t word_len)
{
    const char *cursor = choices;
    for (int position = 0; *cursor; position++) {
        size_t len = strcspn(cursor, "|");
        if (len == word_len && strncmp(cursor, word, len) == 0)
            return position;
        cursor += len;
        if (*cursor == '|')
            cursor++;
    }
    return -1;
}

/* Copies the choice at position into text. */
static void choice_at(const char *choices, size_t position, char *text, size_t text_len)
{
    const char *cursor = choices;
    for (size_t i = 0; i < position; i++)
        cursor += strcspn(cursor, "|") + 1;
    snprintf(text, text_len, "%.*s", (int)strcspn(cursor, "|"), cursor);
}

static int parse_choice(const struct vp_option *option, const char *text,
                        struct vp_param_value *value)
{
    if (choice_position(option->choices, text, strlen(text)) < 0 || strlen(text) >= sizeof value->text)
        return -1;
    strcpy(value->text, text);
    return 0;
}

static int parse_choice_list(const struct vp_option *option, const char *text,
                             struct vp_param_value *value)
{
    const char *cursor = text;
    size_t count = 0;
    if (strcmp(text, "all") == 0) { /* every choice, in the table's order */
        for (const char *choice = option->choices; *choice && count < VP_MAX_LIST; count++) {
            value->list[count] = count;
            choice += strcspn(choice, "|");
            choice += *choice == '|';
        }
        value->list_len = count;
        vp_param_select(option, value, 0);
        return 0;
    }
    for (;;) {
        size_t len = strcspn(cursor, ",");
        int position = choice_position(option->choices, cursor, len);
        if (position < 0 || count == VP_MAX_LIST)
            return -1;
        value->list[count++] = (uint64_t)position;
        if (cursor[len] == '\0')
            break;
        cursor += len + 1;
    }
    value->list_len = count;
    vp_param_select(option, value, 0);
    return 0;
}

void vp_param_select(const struct vp_option *option, struct vp_param_value *value, size_t point)
{
    if (option->type == VP_OPT_CHOICE_LIST)
        choice_at(option->choices, value->list[point], value->text, sizeof value->text);
    else
        value->number = value->list[point];
}

static int parse_size_list(const struct vp_option *option, const char *text,
                           struct vp_param_value *value)
{
    char copy[512];
    if (strlen(text) >= sizeof copy || text[0] == '\0')
        return -1;
    strcpy(copy, text);
    size_t count = 0;
    char *saveptr = NULL;
    for (char *item = strtok_r(copy, ",", &saveptr); item; item = strtok_r(NULL, ",", &saveptr)) {
        uint64_t size;
        if (count == VP_MAX_LIST || vp_parse_size(item, &size) != 0 ||
            !number_in_range(option, size))
            return -1;
        value->list[count++] = size;
    }
    /* strtok_r skips empty items: refuse "1k,,2k" and trailing commas explicitly. */
    if (count == 0 || strstr(text, ",,") || text[strlen(text) - 1] == ',' || text[0] == ',')
        return -1;
    value->list_len = count;
    value->number = value->list[0];
    return 0;
}

int vp_option_parse(const struct vp_option *option, const char *text,
                    struct vp_param_value *value, char *err, size_t err_len)
{
    struct vp_param_value parsed = { 0 };
    int status = -1;
    switch (option->type) {
    case VP_OPT_COUNT:
        status = vp_parse_count(text, &parsed.number);
        break;
    case VP_OPT_SIZE:
        status = vp_parse_size(text, &parsed.number);
        break;
    case VP_OPT_SIZE_LIST:
        status = parse_size_list(option, text, &parsed);
        break;
    case VP_OPT_CHOICE:
        status = parse_choice(option, text, &parsed);
        break;
    case VP_OPT_CHOICE_LIST:
        status = parse_choice_list(option, text, &parsed);
        break;
    case VP_OPT_TEXT:
        status = text[0] && strlen(text) < sizeof parsed.text ? 0 : -1;
        if (status == 0)
            strcpy(parsed.text, text);
        break;
    case VP_OPT_DURATION: {
        double seconds;
        status = vp_parse_duration(text, &seconds) == 0 && seconds >= option->min &&
                         seconds <= option->max && seconds < 1.8e10 /* fits in ns */ ? 0 : -1;
        parsed.number = status == 0 ? (uint64_t)(seconds * 1e9 + 0.5) : 0;
        break;
    }
    }
    if (status == 0 && (option->type == VP_OPT_COUNT || option->type == VP_OPT_SIZE) &&
        !number_in_range(option, parsed.number))
        status = -1;
    if (status != 0) {
        char accepted[160];
        vp_option_describe(option, accepted, sizeof accepted);
        snprintf(err, err_len, "--%s: '%s' is not valid; accepted: %s", option->name, text,
                 accepted);
        return -1;
    }
    *value = parsed;
    return 0;
}

void vp_params_init(struct vp_params *params, const struct vp_option *options, size_t count)
{
    if (count > VP_MAX_OPTIONS)
        abort();
    memset(params, 0, sizeof *params);
    params->options = options;
    params->count = count;
    for (size_t i = 0; i < count; i++) {
        char err[VP_ERROR_LEN];
        if (options[i].type == VP_OPT_CHOICE_LIST && options[i].default_text[0] == '\0')
            continue; /* an empty list: the sweep is not asked for (app without --preset) */
        if (vp_option_parse(&options[i], options[i].default_text, &params->values[i], err,
                            sizeof err) != 0) {
            fprintf(stderr, "virtperf: internal error: default of %s\n", err);
            abort();
        }
    }
}

int vp_params_find(const struct vp_params *params, const char *name)
{
    for (size_t i = 0; i < params->count; i++)
        if (strcmp(params->options[i].name, name) == 0)
            return (int)i;
    return -1;
}

int vp_params_set(struct vp_params *params, const char *name, const char *text, char *err,
                  size_t err_len)
{
    int at = vp_params_find(params, name);
    if (at < 0 || !text)
        return 0;
    return vp_option_parse(&params->options[at], text, &params->values[at], err, err_len);
}

static const struct vp_param_value *require(const struct vp_params *params, const char *name)
{
    int index = vp_params_find(params, name);
    if (index < 0) {
        fprintf(stderr, "virtperf: internal error: no option '%s'\n", name);
        abort();
    }
    return &params->values[index];
}

uint64_t vp_param_number(const struct vp_params *params, const char *name)
{
    return require(params, name)->number;
}

double vp_param_seconds(const struct vp_params *params, const char *name)
{
    return (double)require(params, name)->number / 1e9;
}

const char *vp_param_text(const struct vp_params *params, const char *name)
{
    return require(params, name)->text;
}

bool vp_param_on(const struct vp_params *params, const char *name)
{
    return strcmp(require(params, name)->text, "on") == 0;
}
