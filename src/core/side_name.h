/* The name of a result's side (its "side": {"name": ...}): "host" and "guests", the two
 * sides of `run --and-host`, or the name of a `run --group` (letters, digits, _ . -, a
 * letter or digit first, at most VP_SIDE_NAME_MOST bytes). Both the group's flag and the
 * check of a stored or imported result go by this. */
#ifndef VP_CORE_SIDE_NAME_H
#define VP_CORE_SIDE_NAME_H

#include <stdbool.h>

#define VP_SIDE_NAME_MOST 32

/* Whether name is spelled as a side's name may be (which names a --group may not take is
 * the flag's to say). */
bool vp_side_name_valid(const char *name);

#endif
