/* Typed benchmark options tables: parsing, validation with the accepted form in the
 * error, defaults, and typed access. One table per benchmark drives --help,
 * `virtperf list BENCH`, validation and the params stored with each result. */
#ifndef VP_OPTIONS_H
#define VP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VP_MAX_OPTIONS 16
#define VP_MAX_LIST 32
#define VP_ERROR_LEN 256
/* An error that names a path (up to PATH_MAX, 4096) as well as what was wrong. */
#define VP_PATH_ERROR_LEN (VP_ERROR_LEN + 4200)

enum vp_option_type {
    VP_OPT_COUNT,     /* whole number, k/m/g = 10^3/10^6/10^9 */
    VP_OPT_SIZE,      /* bytes, k/m/g/t = powers of 1024 */
    VP_OPT_SIZE_LIST, /* comma-separated sizes; a sweep: one result per value */
    VP_OPT_CHOICE,    /* one word of a '|'-separated list; "off|on" is a flag:
                         --NAME alone means on */
    VP_OPT_TEXT,      /* free text such as a path, 1 to VP_TEXT_LEN - 1 bytes */
    VP_OPT_DURATION,  /* seconds with s/ms/us suffixes; number holds nanoseconds and
                         min/max are in seconds */
    VP_OPT_CHOICE_LIST, /* comma-separated words of choices; a sweep: one result per word
                           (list holds the words' positions, text the current word) */
};

#define VP_TEXT_LEN 1024

struct vp_option {
    const char *name;
    enum vp_option_type type;
    const char *default_text;
    double min, max;     /* inclusive range for numbers (each list element) */
    const char *choices; /* VP_OPT_CHOICE and VP_OPT_CHOICE_LIST: "byte|wide|nt" */
    const char *help;
};

struct vp_param_value {
    uint64_t number;          /* COUNT, SIZE; for SIZE_LIST the current sweep point */
    char text[VP_TEXT_LEN];   /* CHOICE, TEXT; for CHOICE_LIST the current sweep point */
    uint64_t list[VP_MAX_LIST];
    size_t list_len;
    bool given;               /* set from the command line, not a default */
};

struct vp_params {
    const struct vp_option *options;
    size_t count;
    struct vp_param_value values[VP_MAX_OPTIONS];
};

/* Parses text for one option. On error writes a one-line message naming the option,
 * the rejected text and the accepted form into err and returns -1. */
int vp_option_parse(const struct vp_option *option, const char *text,
                    struct vp_param_value *value, char *err, size_t err_len);

/* Makes point (0 .. list_len - 1) of a list option its current value. */
void vp_param_select(const struct vp_option *option, struct vp_param_value *value, size_t point);

/* Fills params with each option's default (defaults are checked by the unit tests). */
void vp_params_init(struct vp_params *params, const struct vp_option *options, size_t count);

/* Index of the option called name, or -1. */
int vp_params_find(const struct vp_params *params, const char *name);
/* The option called name set to text, when params has it and text is given (else
 * nothing): 0, or -1 with why when text is not a value of it. */
int vp_params_set(struct vp_params *params, const char *name, const char *text, char *err,
                  size_t err_len);

/* Typed accessors; asking for an option the table lacks is a programming error (abort). */
uint64_t vp_param_number(const struct vp_params *params, const char *name);
double vp_param_seconds(const struct vp_params *params, const char *name);
const char *vp_param_text(const struct vp_params *params, const char *name);
/* A flag ("off|on" choice) is on. */
bool vp_param_on(const struct vp_params *params, const char *name);
/* An "off|on" choice: given alone on the command line, it means on. */
bool vp_option_is_flag(const struct vp_option *option);

/* Describes the accepted form of an option ("a size such as 64k or 1g, 4k..64g"). */
void vp_option_describe(const struct vp_option *option, char *buf, size_t len);

/* Type name for listings: "count", "size", "size list", "choice", "choice list", "flag",
 * "text", "duration". */
const char *vp_option_type_name(const struct vp_option *option);

#endif
