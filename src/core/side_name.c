/* A result's side's name (side_name.h). */
#include "core/side_name.h"

#include <ctype.h>
#include <string.h>

bool vp_side_name_valid(const char *name)
{
    size_t length = strlen(name);
    return length > 0 && length <= VP_SIDE_NAME_MOST && isalnum((unsigned char)name[0]) &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
               length;
}
