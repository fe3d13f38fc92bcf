/* A fill's decisions: which count of members next, and when it is done (fill.h). */
#include "run/fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number from 1 to cap at text, up to end; -1 when not one. */
static long count_in(const char *text, const char *end, unsigned cap)
{
    if (end == text || end - text > 6 || strspn(text, "0123456789") < (size_t)(end - text))
        return -1;
    long value = strtol(text, NULL, 10);
    return value >= 1 && value <= (long)cap ? value : -1;
}

int vp_fill_parse(const char *flag, const char *spec, unsigned cap, unsigned *first,
                  unsigned *most, char *err, size_t err_len)
{
    const char *dots = strstr(spec, "..auto");
    if (!dots)
        return 0;
    long from = count_in(spec, dots, cap), to = (long)cap;
    const char *after = dots + strlen("..auto");
    if (*after == ':')
        to = count_in(after + 1, after + strlen(after), cap);
    else if (*after != '\0')
        to = -1;
    if (from < 0 || to < 0 || from > to) {
        snprintf(err, err_len, "%s: '%s' is not valid; accepted: A..auto or A..auto:MOST (a "
                 "fill from A members up to MOST, 1 <= A <= MOST <= %u)", flag, spec, cap);
        return -1;
    }
    *first = (unsigned)from;
    *most = (unsigned)to;
    return 1;
}

void vp_fill_begin(struct vp_fill *fill, unsigned first, unsigned most)
{
    *fill = (struct vp_fill){ .first = first, .most = most };
}

void vp_fill_judged(struct vp_fill *fill, enum vp_fill_stop verdict)
{
    if (verdict == VP_FILL_GOING) {
        if (fill->last > fill->good)
            fill->good = fill->last;
        return;
    }
    if (!fill->bad || fill->last < fill->bad) {
        if (!fill->bad)
            fill->why = verdict; /* what ended the growth */
        fill->bad = fill->last;
    }
}

unsigned vp_fill_next(struct vp_fill *fill, unsigned room)
{
    unsigned next;
    if (fill->bad) { /* halve the gap; none below the first count */
        next = fill->good && fill->bad - fill->good > 1 ? fill->good + (fill->bad - fill->good) / 2
                                                         : 0;
    } else if (!fill->last) {
        next = room ? fill->first : 0;
    } else if (fill->good >= fill->most) {
        fill->why = VP_FILL_MOST;
        next = 0;
    } else {
        next = 2 * fill->good < fill->most ? 2 * fill->good : fill->most;
        if (room != -1u && next > fill->good + room)
            next = fill->good + room;
        if (next <= fill->good)
            next = 0;
    }
    if (!next && !fill->bad && fill->why == VP_FILL_GOING)
        fill->why = VP_FILL_MEMORY; /* no room for one more */
    fill->last = next ? next : fill->last;
    return next;
}

const char *vp_fill_stop_name(enum vp_fill_stop why)
{
    static const char *const names[] = { "nothing", "the QoS rule", "the host's CPUs",
                                          "--keep-free", "the most SPEC allows" };
    return names[why];
}

const char *vp_fill_stop_key(enum vp_fill_stop why)
{
    static const char *const keys[] = { "none", "rule", "cpu", "memory", "most" };
    return keys[why];
}
