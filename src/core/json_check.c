/* Checks of values in documents from outside (json_check.h). */
#include "core/json_check.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int vp_check_fail(struct vp_check *checker, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(checker->err, checker->err_len, format, args);
    va_end(args);
    return -1;
}

/* A name: 1..VP_CHECK_NAME_LEN of [A-Za-z0-9._-]. */
int vp_check_is_name(const char *text)
{
    size_t len = strlen(text);
    if (len == 0 || len > VP_CHECK_NAME_LEN)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)text[i]) && !strchr("._-", text[i]))
            return 0;
    return 1;
}

int vp_check_string(struct vp_check *checker, const json_t *parent, const char *path,
                        const char *key, size_t max_len, int required)
{
    const json_t *value = json_object_get(parent, key);
    if (!value)
        return required ? vp_check_fail(checker, "%s.%s: missing; accepted: a string", path, key) : 0;
    if (!json_is_string(value) || json_string_length(value) > max_len ||
        strlen(json_string_value(value)) != json_string_length(value))
        return vp_check_fail(checker, "%s.%s: accepted: a string of at most %zu bytes without NUL", path,
                    key, max_len);
    return 0;
}

int vp_check_choice(struct vp_check *checker, const json_t *parent, const char *path,
                        const char *key, const char *const *choices, int required)
{
    const json_t *value = json_object_get(parent, key);
    if (!value && !required)
        return 0;
    const char *text = json_string_value(value);
    for (size_t i = 0; text && choices[i]; i++)
        if (strcmp(text, choices[i]) == 0)
            return 0;
    char accepted[128] = "";
    for (size_t i = 0; choices[i]; i++) {
        strncat(accepted, i ? ", " : "", sizeof accepted - strlen(accepted) - 1);
        strncat(accepted, choices[i], sizeof accepted - strlen(accepted) - 1);
    }
    return vp_check_fail(checker, "%s.%s: %s; accepted: %s", path, key, value ? "not accepted" : "missing",
                accepted);
}

int vp_check_number(struct vp_check *checker, const json_t *parent, const char *path,
                        const char *key, double min, double max, int required)
{
    const json_t *value = json_object_get(parent, key);
    if (!value)
        return required ? vp_check_fail(checker, "%s.%s: missing; accepted: a number", path, key) : 0;
    double number = json_number_value(value);
    if (!json_is_number(value) || !isfinite(number) || number < min || number > max)
        return vp_check_fail(checker, "%s.%s: accepted: a number from %g to %g", path, key, min, max);
    return 0;
}

int vp_check_integer(struct vp_check *checker, const json_t *parent, const char *path,
                         const char *key, json_int_t min, json_int_t max, int required)
{
    const json_t *value = json_object_get(parent, key);
    if (!value)
        return required ? vp_check_fail(checker, "%s.%s: missing; accepted: a whole number", path, key)
                        : 0;
    if (!json_is_integer(value) || json_integer_value(value) < min ||
        json_integer_value(value) > max)
        return vp_check_fail(checker, "%s.%s: accepted: a whole number from %lld to %lld", path, key,
                    (long long)min, (long long)max);
    return 0;
}

/* An array of at most max finite numbers; count receives its length. */
int vp_check_number_array(struct vp_check *checker, const json_t *array, const char *path,
                              size_t max, size_t *count)
{
    if (!json_is_array(array) || json_array_size(array) > max)
        return vp_check_fail(checker, "%s: accepted: an array of at most %zu numbers", path, max);
    size_t i;
    const json_t *item;
    json_array_foreach(array, i, item) {
        if (!json_is_number(item) || !isfinite(json_number_value(item)))
            return vp_check_fail(checker, "%s[%zu]: accepted: a finite number", path, i);
    }
    *count = json_array_size(array);
    return 0;
}
