/* The presets: dd (the CNAF 2007 study) and iozone -Mce -I -+r -r 256k -i0 -i1 -i2 (the IHEP 2010
 * study). */
#include "bench/presets.h"

#include <string.h>

static const char *const dd_benches[] = { "disk.write", "disk.read", NULL };
/* dd if=/dev/zero of=F bs=64k; dd if=F of=/dev/null bs=64k: buffered, sequential, the
 * end-to-end rate (throughput). conv=fsync is kept on so the write is on the disk when
 * the rate is taken, and the page cache is dropped before the read. dd writes a new
 * file, so the write allocates its blocks as it goes (no --preallocate). */
static const struct vp_preset_option dd_options[] = {
    { "bs", "64k" }, { "direct", "off" }, { "fsync", "on" }, { "preallocate", "off" },
    { NULL, NULL },
};

static const char *const iozone_benches[] = {
    "disk.write", "disk.rewrite", "disk.read", "disk.reread", "disk.randread",
    "disk.randwrite", NULL,
};
/* -I O_DIRECT, -+r O_RSYNC|O_SYNC, -e fsync timed, -c close timed (always),
 * -r 256k record size, -s from --size, -i0 -i1 -i2 the six tests, -M the fingerprint.
 * iozone's write test creates its file, so it allocates (no --preallocate); its rewrite
 * is disk.rewrite. */
static const struct vp_preset_option iozone_options[] = {
    { "bs", "256k" }, { "direct", "on" }, { "sync", "on" }, { "fsync", "on" },
    { "preallocate", "off" }, { NULL, NULL },
};

const struct vp_preset vp_presets[] = {
    { "dd", "dd-style sequential write then read, bs 64k (CNAF 2007)", dd_benches, dd_options },
    { "iozone", "iozone -Mce -I -+r -r 256k -i0 -i1 -i2 (IHEP 2010; size from --size)",
      iozone_benches, iozone_options },
};
const size_t vp_preset_count = sizeof vp_presets / sizeof vp_presets[0];

const struct vp_preset *vp_preset_find(const char *name)
{
    for (size_t i = 0; i < vp_preset_count; i++)
        if (strcmp(vp_presets[i].name, name) == 0)
            return &vp_presets[i];
    return NULL;
}
