/* Checks of the values in a JSON document that comes from outside (an imported run, a
 * result part a benchmark declares): each names the value's path and what is accepted in
 * the checker's err, and returns -1; 0 when the value is accepted. A key that is absent
 * passes unless required. */
#ifndef VP_JSON_CHECK_H
#define VP_JSON_CHECK_H

#include <jansson.h>
#include <stddef.h>

#define VP_CHECK_NAME_LEN 64
#define VP_CHECK_TEXT_LEN 1024

struct vp_check {
    char *err;
    size_t err_len;
};

/* Says why in err; returns -1. */
int vp_check_fail(struct vp_check *checker, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* A name: 1..VP_CHECK_NAME_LEN of [A-Za-z0-9._-] (1), else 0. */
int vp_check_is_name(const char *text);
/* parent's key: a string of at most max_len bytes without NUL. */
int vp_check_string(struct vp_check *checker, const json_t *parent, const char *path,
                    const char *key, size_t max_len, int required);
/* parent's key: one of choices (NULL-terminated). */
int vp_check_choice(struct vp_check *checker, const json_t *parent, const char *path,
                    const char *key, const char *const *choices, int required);
/* parent's key: a finite number from min to max. */
int vp_check_number(struct vp_check *checker, const json_t *parent, const char *path,
                    const char *key, double min, double max, int required);
/* parent's key: a whole number from min to max. */
int vp_check_integer(struct vp_check *checker, const json_t *parent, const char *path,
                     const char *key, json_int_t min, json_int_t max, int required);
/* array: at most max finite numbers; count receives its length. */
int vp_check_number_array(struct vp_check *checker, const json_t *array, const char *path,
                          size_t max, size_t *count);

#endif
