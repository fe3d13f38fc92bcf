/* gfal2 loaded on first use (gfal2_loaded.h, core/loaded.h). */
#include "bench/gfal2_loaded.h"

#include <pthread.h>
#include <stdio.h>

#include "core/loaded.h"

static struct vp_gfal2 loaded;
static int status = -1;
static char why[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    struct vp_gfal2 *g = &loaded;
    const struct vp_loaded_symbol symbols[] = {
        { "gfal2_context_new", &g->context_new }, { "gfal2_context_free", &g->context_free },
        { "gfal2_set_opt_integer", &g->set_opt_integer },
        { "gfal2_get_plugin_names", &g->get_plugin_names }, { "gfal2_open", &g->open },
        { "gfal2_read", &g->read }, { "gfal2_pread", &g->pread }, { "gfal2_write", &g->write },
        { "gfal2_close", &g->close }, { "gfal2_stat", &g->stat }, { "gfal2_rename", &g->rename },
        { "gfal2_unlink", &g->unlink }, { "gfal2_opendir", &g->opendir },
        { "gfal2_readdir", &g->readdir }, { "gfal2_closedir", &g->closedir },
        { "g_clear_error", &g->clear_error },
        { "g_strfreev", &g->strfreev },
    };
    /* libgfal2-2's SONAME, the one built against; glib's calls come through its needs */
    status = vp_library_load("libgfal2.so.2", symbols, sizeof symbols / sizeof symbols[0],
                             "scripts/deps.sh data installs gfal2", why, sizeof why);
}

const struct vp_gfal2 *vp_gfal2_load(char *err, size_t err_len)
{
    pthread_once(&once, load);
    if (status != 0)
        snprintf(err, err_len, "%s", why);
    return status == 0 ? &loaded : NULL;
}
