/* Presets: named sets of benchmarks and option values that rerun a study's tool
 * exactly (dd, iozone). `virtperf run PRESET` expands them; options given on the
 * command line override the preset's. */
#ifndef VP_PRESETS_H
#define VP_PRESETS_H

#include <stddef.h>

struct vp_preset_option {
    const char *name, *value;
};

struct vp_preset {
    const char *name;
    const char *summary;
    const char *const *benches;           /* NULL-terminated */
    const struct vp_preset_option *options; /* NULL-name-terminated */
};

extern const struct vp_preset vp_presets[];
extern const size_t vp_preset_count;
const struct vp_preset *vp_preset_find(const char *name);

#endif
