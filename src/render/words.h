/* How a count of hosts, guests, containers or UML instances reads in tables and pages. */
#ifndef VP_RENDER_WORDS_H
#define VP_RENDER_WORDS_H

#include <stdbool.h>
#include <stddef.h>

/* "COUNT WORD" for a plural word ("hosts", "guests"...), singular for 1 ("1 guest",
 * "4 hosts"), after the preposition it takes ("on" hosts, "in" the others) when where. */
void vp_members_counted(const char *word, long long count, bool where, char *buf, size_t len);

#endif
