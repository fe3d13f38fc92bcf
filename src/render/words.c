/* How a count of members reads (words.h). */
#include "render/words.h"

#include <stdio.h>
#include <string.h>

void vp_members_counted(const char *word, long long count, bool where, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%lld %.*s", where ? (strcmp(word, "hosts") == 0 ? "on" : "in") : "",
             where ? " " : "", count, (int)strlen(word) - (count == 1), word);
}
