/* The report's escaping writer (see markup.h). */
#include "render/markup.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(struct vp_markup *out, const char *bytes, size_t len)
{
    if (out->len + len + 1 > out->cap) {
        out->cap = (out->len + len + 1) * 2;
        out->data = realloc(out->data, out->cap);
        if (!out->data)
            abort();
    }
    memcpy(out->data + out->len, bytes, len);
    out->len += len;
    out->data[out->len] = '\0';
}

static void append_escaped_char(struct vp_markup *out, char c)
{
    switch (c) {
    case '&': append(out, "&amp;", 5); break;
    case '<': append(out, "&lt;", 4); break;
    case '>': append(out, "&gt;", 4); break;
    case '"': append(out, "&quot;", 6); break;
    default: append(out, &c, 1);
    }
}

void vp_markup_text(struct vp_markup *out, const char *text)
{
    for (; *text; text++)
        append_escaped_char(out, *text);
}

/* One numeric conversion, spec being "%...X" as written in the format. */
static void append_number(struct vp_markup *out, const char *spec, char conversion,
                          const char *length, va_list *args)
{
    char buf[128];
    int n;
    if (strchr("feg", conversion))
        n = snprintf(buf, sizeof buf, spec, va_arg(*args, double));
    else if (strcmp(length, "ll") == 0)
        n = snprintf(buf, sizeof buf, spec, va_arg(*args, long long));
    else if (strcmp(length, "l") == 0)
        n = snprintf(buf, sizeof buf, spec, va_arg(*args, long));
    else if (strcmp(length, "z") == 0)
        n = snprintf(buf, sizeof buf, spec, va_arg(*args, size_t));
    else
        n = snprintf(buf, sizeof buf, spec, va_arg(*args, int));
    if (n < 0 || (size_t)n >= sizeof buf)
        abort();
    append(out, buf, (size_t)n);
}

void vp_markup_printf(struct vp_markup *out, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    for (const char *at = format; *at;) {
        const char *percent = strchr(at, '%');
        if (!percent) {
            append(out, at, strlen(at));
            break;
        }
        append(out, at, (size_t)(percent - at));
        if (percent[1] == '%') {
            append(out, "%", 1);
            at = percent + 2;
            continue;
        }
        /* flags, width, precision, length, conversion */
        const char *c = percent + 1 + strspn(percent + 1, "-+ #0");
        c += strspn(c, "0123456789");
        if (*c == '.')
            c += 1 + strspn(c + 1, "0123456789");
        size_t length_len = strspn(c, "hlz");
        char length[4] = "";
        if (length_len > 2)
            abort();
        memcpy(length, c, length_len);
        char conversion = c[length_len];
        char spec[32];
        size_t spec_len = (size_t)(c + length_len + 1 - percent);
        if (!conversion || spec_len >= sizeof spec)
            abort();
        memcpy(spec, percent, spec_len);
        spec[spec_len] = '\0';
        if (conversion == 's') {
            const char *text = va_arg(args, const char *);
            vp_markup_text(out, text ? text : "(null)");
        } else if (conversion == 'c') {
            append_escaped_char(out, (char)va_arg(args, int));
        } else if (strchr("diuxfeg", conversion)) {
            append_number(out, spec, conversion, length, &args);
        } else {
            abort(); /* a conversion this writer does not know: fix the caller */
        }
        at = c + length_len + 1;
    }
    va_end(args);
}

void vp_markup_cell(struct vp_markup *out, const char *text)
{
    vp_markup_printf(out, "<td>");
    vp_markup_text(out, text);
    vp_markup_printf(out, "</td>");
}
