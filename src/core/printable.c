/* Outside text made printable (see printable.h). */
#include "core/printable.h"

const char *vp_printable(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    for (; text && text[n] && n + 1 < len; n++) {
        unsigned char byte = (unsigned char)text[n];
        buf[n] = byte >= 0x20 && byte < 0x7f ? (char)byte : '?';
    }
    if (len)
        buf[n] = '\0';
    return buf;
}
