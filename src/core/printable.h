/* Text from outside (a guest's console, a member's verdict or error, an imported
 * result's warnings) made safe to show on a terminal: no escape sequence, bell or line
 * break of its own can clear the screen, set a title or fake a line of virtperf's. */
#ifndef VP_PRINTABLE_H
#define VP_PRINTABLE_H

#include <stddef.h>

/* text (NULL: "") into buf, every byte outside printable ASCII (controls, DEL, bytes of
 * 0x80 and above, which include the 8-bit controls) as '?'; buf, cut to len - 1 bytes. */
const char *vp_printable(const char *text, char *buf, size_t len);

#endif
