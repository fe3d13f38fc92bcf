/* libFuzzer target: the --db target as it is shown (store/db.h's vp_db_shown_target) on
 * arbitrary text. A URL's password never shows: whatever lies between the user's ':' and
 * the '@' of the authority is "***", and ?password= / &password= values are "***". */
#include <string.h>

#include "fuzz_input.h"

#include "store/db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char shown[4096];
    vp_db_shown_target(text, shown, sizeof shown);
    if (strlen(shown) >= sizeof shown)
        __builtin_trap();
    if (vp_db_is_url(shown)) {
        const char *authority = strstr(shown, "://") + 3;
        size_t authority_len = strcspn(authority, "/?");
        const char *at = memchr(authority, '@', authority_len);
        const char *colon = at ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
        if (colon && (at - colon != 4 || strncmp(colon + 1, "***", 3) != 0))
            __builtin_trap();
        for (const char *key = strstr(authority + authority_len, "password="); key;
             key = strstr(key + 1, "password="))
            if ((key[-1] == '?' || key[-1] == '&') && strlen(key + 9) >= 3 && /* not cut off */
                strncmp(key + 9, "***", 3) != 0)
                __builtin_trap();
    }
    free(text);
    return 0;
}
