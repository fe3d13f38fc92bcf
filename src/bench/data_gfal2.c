/* root://, http(s):// and dav(s):// sources through gfal2, the grid's multi-protocol client
 * (data_backend.h). gfal2 and XRootD's client under it start threads, so a client is only
 * ever made in a job process or a short-lived helper. */
#define _GNU_SOURCE
#include "bench/data_backend.h"
#include "bench/data_source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/gfal2_loaded.h"
#include "core/loaded.h"

static const struct vp_gfal2 *gfal2; /* loaded by the first client */

/* The plugin reading each scheme, and its package. */
static const struct {
    const char *prefix, *plugin, *package;
} plugins[] = {
    { "root://", "xrootd", "gfal2-plugin-xrootd" }, { "http://", "http", "gfal2-plugin-http" },
    { "https://", "http", "gfal2-plugin-http" },    { "dav://", "http", "gfal2-plugin-http" },
    { "davs://", "http", "gfal2-plugin-http" },
};

static size_t plugin_of(const char *source)
{
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++)
        if (strncmp(source, plugins[i].prefix, strlen(plugins[i].prefix)) == 0)
            return i;
    return 0; /* data_source.c gives this backend only the schemes above */
}

/* "URL: what: the library's text", and the error freed. */
static void reason(GError **error, const char *url, const char *what, char *err, size_t err_len)
{
    snprintf(err, err_len, "%.300s: %s: %s", url, what,
             *error ? (*error)->message : "failed without a reason");
    gfal2->clear_error(error);
}

/* The plugin reading source's scheme is loaded, else what to install. */
static int plugin_present(gfal2_context_t context, const char *source, char *err, size_t err_len)
{
    size_t index = plugin_of(source);
    gchar **names = gfal2->get_plugin_names(context);
    bool found = false;
    for (size_t i = 0; names && names[i] && !found; i++)
        found = strncmp(names[i], plugins[index].plugin, strlen(plugins[index].plugin)) == 0;
    gfal2->strfreev(names);
    if (!found)
        snprintf(err, err_len, "%.300s: gfal2 has no %s plugin (install %s: scripts/deps.sh "
                 "data)", source, plugins[index].plugin, plugins[index].package);
    return found ? 0 : -1;
}

static int via_gfal2_init(const char *source, double timeout_s, void **state, char *err,
                          size_t err_len)
{
    /* XRootD's client reads these once, when it starts: one connection attempt within
     * the timeout, and no request waits longer (its defaults retry for minutes). */
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%d", timeout_s < 1 ? 1 : (int)timeout_s);
    setenv("XRD_CONNECTIONRETRY", "1", 0);
    setenv("XRD_CONNECTIONWINDOW", seconds, 0);
    setenv("XRD_REQUESTTIMEOUT", seconds, 0);
    setenv("XRD_STREAMTIMEOUT", seconds, 0);
    if (!(gfal2 = vp_gfal2_load(err, err_len)))
        return -1;
    GError *error = NULL;
    gfal2_context_t context = gfal2->context_new(&error);
    if (!context) {
        reason(&error, source, "gfal2 cannot start", err, err_len);
        return -1;
    }
    gfal2->set_opt_integer(context, "HTTP PLUGIN", "OPERATION_TIMEOUT", atoi(seconds), NULL);
    gfal2->set_opt_integer(context, "CORE", "NAMESPACE_TIMEOUT", atoi(seconds), NULL);
    if (plugin_present(context, source, err, err_len) != 0) {
        gfal2->context_free(context);
        return -1;
    }
    *state = context;
    return 0;
}

static void via_gfal2_free(void *state)
{
    gfal2->context_free(state);
}

static int via_gfal2_open(void *state, const char *url, bool create, struct data_handle *handle,
                          char *err, size_t err_len)
{
    GError *error = NULL;
    handle->fd = gfal2->open(state, url, create ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY,
                             &error);
    if (handle->fd < 0)
        reason(&error, url, create ? "create" : "open", err, err_len);
    return handle->fd < 0 ? -1 : 0;
}

static ssize_t via_gfal2_read(void *state, struct data_handle *handle, void *buf, size_t len,
                              char *err, size_t err_len)
{
    GError *error = NULL;
    ssize_t got = gfal2->read(state, handle->fd, buf, len, &error);
    if (got < 0)
        reason(&error, handle->url, "read", err, err_len);
    return got;
}

static ssize_t via_gfal2_pread(void *state, struct data_handle *handle, void *buf, size_t len,
                               uint64_t offset, char *err, size_t err_len)
{
    GError *error = NULL;
    ssize_t got = gfal2->pread(state, handle->fd, buf, len, (off_t)offset, &error);
    if (got < 0)
        reason(&error, handle->url, "read", err, err_len);
    return got;
}

static ssize_t via_gfal2_write(void *state, struct data_handle *handle, const void *buf,
                               size_t len, char *err, size_t err_len)
{
    GError *error = NULL;
    ssize_t done = gfal2->write(state, handle->fd, buf, len, &error);
    if (done < 0)
        reason(&error, handle->url, "write", err, err_len);
    return done;
}

static int via_gfal2_close(void *state, struct data_handle *handle, char *err, size_t err_len)
{
    if (handle->fd < 0)
        return 0;
    int fd = handle->fd;
    handle->fd = -1;
    GError *error = NULL;
    if (gfal2->close(state, fd, &error) == 0)
        return 0;
    reason(&error, handle->url, "close", err, err_len);
    return -1;
}

static int via_gfal2_stat(void *state, const char *url, uint64_t *size, bool *regular,
                          char *err, size_t err_len)
{
    GError *error = NULL;
    struct stat info;
    if (gfal2->stat(state, url, &info, &error) == 0) {
        if (size)
            *size = (uint64_t)info.st_size;
        if (regular)
            *regular = S_ISREG(info.st_mode);
        return 1;
    }
    if (error && error->code == ENOENT) {
        gfal2->clear_error(&error);
        return 0;
    }
    reason(&error, url, "stat", err, err_len);
    return -1;
}

static int via_gfal2_list(void *state, const char *dir_url,
                          void (*each)(void *arg, const char *name), void *arg, char *err,
                          size_t err_len)
{
    GError *error = NULL;
    DIR *dir = gfal2->opendir(state, dir_url, &error);
    if (!dir) {
        reason(&error, dir_url, "list", err, err_len);
        return -1;
    }
    struct dirent *entry;
    while ((entry = gfal2->readdir(state, dir, &error)))
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            each(arg, entry->d_name);
    int status = error ? -1 : 0;
    if (error)
        reason(&error, dir_url, "list", err, err_len);
    gfal2->closedir(state, dir, &error);
    gfal2->clear_error(&error);
    return status;
}

static int via_gfal2_rename(void *state, const char *from, const char *to, char *err,
                            size_t err_len)
{
    GError *error = NULL;
    if (gfal2->rename(state, from, to, &error) == 0)
        return 0;
    reason(&error, from, "rename", err, err_len);
    return -1;
}

static int via_gfal2_unlink(void *state, const char *url, char *err, size_t err_len)
{
    GError *error = NULL;
    if (gfal2->unlink(state, url, &error) == 0)
        return 0;
    reason(&error, url, "remove", err, err_len);
    return -1;
}

/* gfal2 in a guest or container is this host's: the library (its libraries come with it),
 * the plugin of source's scheme from gfal2's plugin directory beside it (Debian's
 * default; GFAL_PLUGIN_DIR is not carried) and its configuration. A store that asks for
 * authentication needs the member to hold credentials and XRootD's security plugins,
 * which the user gives with --guest-programs. */
static int via_gfal2_member_files(const char *source, struct vp_path_set *files, char *err,
                                  size_t err_len)
{
    const struct vp_gfal2 *library = vp_gfal2_load(err, err_len);
    if (!library)
        return -1;
    const char *file = vp_library_file((const void *)library->open);
    char real[PATH_MAX];
    if (!file || !realpath(file, real)) {
        snprintf(err, err_len, "--source %.200s: cannot tell where gfal2 was loaded from, "
                 "which the members' image must carry", source);
        return -1;
    }
    vp_path_set_add(files, file);
    size_t index = plugin_of(source);
    char plugin[PATH_MAX + 64];
    snprintf(plugin, sizeof plugin, "%s/gfal2-plugins/libgfal_plugin_%s.so", dirname(real),
             plugins[index].plugin);
    if (access(plugin, R_OK) != 0) {
        snprintf(err, err_len, "--source %.200s: no %s here for the members to carry "
                 "(install %s: scripts/deps.sh data)", source, plugin, plugins[index].package);
        return -1;
    }
    vp_path_set_add(files, plugin);
    if (access("/etc/gfal2.d", R_OK) == 0)
        vp_path_set_add(files, "/etc/gfal2.d");
    return 0;
}

const struct data_backend data_gfal2_backend = {
    .init = via_gfal2_init,
    .free = via_gfal2_free,
    .open = via_gfal2_open,
    .read = via_gfal2_read,
    .pread = via_gfal2_pread,
    .write = via_gfal2_write,
    .close = via_gfal2_close,
    .stat = via_gfal2_stat,
    .list = via_gfal2_list,
    .rename = via_gfal2_rename,
    .unlink = via_gfal2_unlink,
    .member_files = via_gfal2_member_files,
};
