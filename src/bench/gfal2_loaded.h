/* gfal2, loaded on first use: a process that reads no URL pays nothing for the library
 * and the thirty it pulls in (glib, davix, XRootD's client, LDAP, GnuTLS...). Linked
 * outright, their loading is paid by every rank and every virtperf command: a plain MPI
 * program linked with gfal2 took 0.5 s longer to launch at 32 ranks on 2 CPUs. Only in builds
 * with gfal2's headers (VP_HAVE_GFAL2); the types are checked against them. */
#ifndef VP_GFAL2_LOADED_H
#define VP_GFAL2_LOADED_H

#include <stddef.h>

#include <gfal_api.h>

/* The calls data_source.c makes, each typed as the headers declare it. */
struct vp_gfal2 {
    __typeof__(gfal2_context_new) *context_new;
    __typeof__(gfal2_context_free) *context_free;
    __typeof__(gfal2_set_opt_integer) *set_opt_integer;
    __typeof__(gfal2_get_plugin_names) *get_plugin_names;
    __typeof__(gfal2_open) *open;
    __typeof__(gfal2_read) *read;
    __typeof__(gfal2_pread) *pread;
    __typeof__(gfal2_write) *write;
    __typeof__(gfal2_close) *close;
    __typeof__(gfal2_stat) *stat;
    __typeof__(gfal2_rename) *rename;
    __typeof__(gfal2_unlink) *unlink;
    __typeof__(gfal2_opendir) *opendir;
    __typeof__(gfal2_readdir) *readdir;
    __typeof__(gfal2_closedir) *closedir;
    __typeof__(g_clear_error) *clear_error;
    __typeof__(g_strfreev) *strfreev;
};

/* The library's calls (loaded once per process), or NULL with what to install in err. */
const struct vp_gfal2 *vp_gfal2_load(char *err, size_t err_len);

#endif
