/* The one writer of the HTML report and its SVG charts: a growing buffer and a printf
 * whose format is trusted markup and whose every %s argument is text, escaped (&, <, >,
 * quotes) on the way in. A label, a hostname or an imported document's field can hold
 * anything; passed as %s it can only ever be text. */
#ifndef VP_MARKUP_H
#define VP_MARKUP_H

#include <stddef.h>

struct vp_markup {
    char *data;
    size_t len, cap;
};

/* Conversions: %s (escaped), %c (escaped), %d %i %u %x with h, l, ll, z; %f %g %e with
 * flags, width and precision; %%. Anything else is a programming error (abort). */
void vp_markup_printf(struct vp_markup *out, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends text escaped for HTML and SVG. */
void vp_markup_text(struct vp_markup *out, const char *text);
/* <td>TEXT</td>, the text escaped. */
void vp_markup_cell(struct vp_markup *out, const char *text);

#endif
