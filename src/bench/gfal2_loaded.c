/* gfal2 loaded with dlopen on first use (gfal2_loaded.h). */
#include "bench/gfal2_loaded.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#define GFAL2_LIBRARY "libgfal2.so.2" /* Debian's libgfal2-2, the SONAME built against */

static struct vp_gfal2 loaded;
static const struct vp_gfal2 *usable;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* symbol's address into *slot; false when the library lacks it */
static bool find(void *library, const char *symbol, void *slot)
{
    void *address = dlsym(library, symbol); /* glib's come through gfal2's own needs */
    if (!address)
        snprintf(why, sizeof why, "%s has no %s: %s", GFAL2_LIBRARY, symbol, dlerror());
    *(void **)slot = address;
    return address != NULL;
}

static void load(void)
{
    void *library = dlopen(GFAL2_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(why, sizeof why, "cannot load %s: %s (scripts/deps.sh data installs "
                 "gfal2)", GFAL2_LIBRARY, dlerror());
        return;
    }
    struct vp_gfal2 *g = &loaded;
    if (find(library, "gfal2_context_new", &g->context_new) &&
        find(library, "gfal2_context_free", &g->context_free) &&
        find(library, "gfal2_set_opt_integer", &g->set_opt_integer) &&
        find(library, "gfal2_get_plugin_names", &g->get_plugin_names) &&
        find(library, "gfal2_open", &g->open) && find(library, "gfal2_read", &g->read) &&
        find(library, "gfal2_pread", &g->pread) && find(library, "gfal2_write", &g->write) &&
        find(library, "gfal2_close", &g->close) && find(library, "gfal2_stat", &g->stat) &&
        find(library, "gfal2_rename", &g->rename) &&
        find(library, "gfal2_unlink", &g->unlink) &&
        find(library, "g_clear_error", &g->clear_error) &&
        find(library, "g_strfreev", &g->strfreev))
        usable = &loaded;
    /* never closed: gfal2's plugins and threads live as long as the process */
}

const struct vp_gfal2 *vp_gfal2_load(char *err, size_t err_len)
{
    pthread_once(&once, load);
    if (!usable)
        snprintf(err, err_len, "%s", why);
    return usable;
}
