/* The report's interruptions section: for each result with a timeline (net.probe), the
 * round trip over time with every gap drawn as a box as long as it lasted, and a table of
 * the gaps with their direction and wall-clock start. */
#ifndef VP_TIMELINE_H
#define VP_TIMELINE_H

#include <jansson.h>
#include <stddef.h>

#include "render/markup.h"

/* name(document) says which run a result is from. Writes nothing when no result has a
 * timeline. */
void vp_report_timelines(struct vp_markup *out, json_t *const *documents, size_t count,
                         const char *(*name)(const json_t *document));

#endif
