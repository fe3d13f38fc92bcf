/* A member's console log (a guest's serial console, a UML instance's): its last lines
 * shown when it did not answer, printable (a member's own bytes reach no terminal as
 * escapes). */
#ifndef VP_ENV_CONSOLE_H
#define VP_ENV_CONSOLE_H

/* The last five lines of the log at path, to stderr under "NAME's console ended with:";
 * nothing when it cannot be read. */
void vp_console_tail(const char *path, const char *name);

#endif
