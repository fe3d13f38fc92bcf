/* nfs:// sources through libnfs, NFS's client as a library (data_backend.h): no kernel
 * client, no mount on this machine, each job its own connection. libnfs is loaded on first
 * use. A client mounts the fileset's directory when attached to it (a job, before its
 * timed reads), else the directory holding the first file it is asked for (its manifest,
 * prepare's temporary names), and names every later file from there: nfs://SERVER/DIR/FILE, v3 by default (libnfs's default; DIR is the
 * export's real path or a directory under it), ?version=4 at the URL's end for v4 (DIR the
 * export's pseudo path). A read of --read-size bytes is one READ on the wire up to the
 * server's largest, as a root:// read is one request. */
#include "bench/data_backend.h"
#include "bench/data_source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h> /* before libnfs.h, which uses struct timeval */

#include <nfsc/libnfs.h>

#include "core/loaded.h"

/* The calls this file makes, each typed as libnfs's header declares it. */
static struct {
    __typeof__(nfs_init_context) *init_context;
    __typeof__(nfs_destroy_context) *destroy_context;
    __typeof__(nfs_set_timeout) *set_timeout;
    __typeof__(nfs_parse_url_dir) *parse_url_dir;
    __typeof__(nfs_destroy_url) *destroy_url;
    __typeof__(nfs_mount) *mount;
    __typeof__(nfs_get_error) *get_error;
    __typeof__(nfs_open) *open;
    __typeof__(nfs_create) *create;
    __typeof__(nfs_read) *read;
    __typeof__(nfs_pread) *pread;
    __typeof__(nfs_write) *write;
    __typeof__(nfs_close) *close;
    __typeof__(nfs_lstat64) *lstat64;
    __typeof__(nfs_rename) *rename;
    __typeof__(nfs_unlink) *unlink;
    __typeof__(nfs_opendir) *opendir;
    __typeof__(nfs_readdir) *readdir;
    __typeof__(nfs_closedir) *closedir;
} libnfs;

static int load(char *err, size_t err_len)
{
    static int status = 1; /* 1: not tried; a job process loads it once */
    static char why[512];
    if (status == 1) {
        const struct vp_loaded_symbol symbols[] = {
            { "nfs_init_context", &libnfs.init_context },
            { "nfs_destroy_context", &libnfs.destroy_context },
            { "nfs_set_timeout", &libnfs.set_timeout },
            { "nfs_parse_url_dir", &libnfs.parse_url_dir },
            { "nfs_destroy_url", &libnfs.destroy_url }, { "nfs_mount", &libnfs.mount },
            { "nfs_get_error", &libnfs.get_error }, { "nfs_open", &libnfs.open },
            { "nfs_create", &libnfs.create }, { "nfs_read", &libnfs.read },
            { "nfs_pread", &libnfs.pread }, { "nfs_write", &libnfs.write },
            { "nfs_close", &libnfs.close }, { "nfs_lstat64", &libnfs.lstat64 },
            { "nfs_rename", &libnfs.rename }, { "nfs_unlink", &libnfs.unlink },
            { "nfs_opendir", &libnfs.opendir }, { "nfs_readdir", &libnfs.readdir },
            { "nfs_closedir", &libnfs.closedir },
        };
        status = vp_library_load("libnfs.so.13", symbols, sizeof symbols / sizeof symbols[0],
                                 "scripts/deps.sh nfs installs libnfs", why, sizeof why);
    }
    if (status != 0)
        snprintf(err, err_len, "%s", why);
    return status;
}

struct nfs_client {
    struct nfs_context *nfs;
    char mounted[1400]; /* the URL of the directory mounted, "" before the first file */
};

/* A file URL's path without its query ("?version=4"), in out. */
static void without_query(const char *url, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(url, "?"), url);
}

/* Mounts the directory whose URL is base's first dir_len bytes (its query, such as
 * ?version=4, after them); url names what was asked for in a refusal. */
static int mount_dir(struct nfs_client *client, const char *base, size_t dir_len,
                     const char *query, const char *url, char *err, size_t err_len)
{
    if (dir_len <= strlen("nfs://")) {
        snprintf(err, err_len, "%.300s: accepted: nfs://SERVER/DIRECTORY/FILE", url);
        return -1;
    }
    char dir[1700];
    snprintf(dir, sizeof dir, "%.*s%s", (int)dir_len, base, query);
    struct nfs_url *parsed = libnfs.parse_url_dir(client->nfs, dir);
    if (!parsed) {
        snprintf(err, err_len, "%.300s: %s", url, libnfs.get_error(client->nfs));
        return -1;
    }
    int status = libnfs.mount(client->nfs, parsed->server, parsed->path);
    libnfs.destroy_url(parsed);
    if (status != 0) {
        snprintf(err, err_len, "%.300s: mount: %s", url, libnfs.get_error(client->nfs));
        return -1;
    }
    snprintf(client->mounted, sizeof client->mounted, "%.*s", (int)dir_len, base);
    return 0;
}

/* url's path within the client's mount ("/NAME") into path, mounting the directory
 * holding it first when nothing is; -1 with why for a URL outside it or a mount refused. */
static int path_of(struct nfs_client *client, const char *url, char *path, size_t path_len,
                   char *err, size_t err_len)
{
    char base[1400];
    without_query(url, base, sizeof base);
    const char *file = strrchr(base, '/');
    if (!client->mounted[0] &&
        (!file[1] || mount_dir(client, base, (size_t)(file - base), url + strlen(base), url,
                               err, err_len) != 0)) {
        if (!file[1])
            snprintf(err, err_len, "%.300s: accepted: nfs://SERVER/DIRECTORY/FILE", url);
        return -1;
    }
    size_t mounted_len = strlen(client->mounted);
    if (strncmp(url, client->mounted, mounted_len) != 0 || url[mounted_len] != '/') {
        snprintf(err, err_len, "%.300s: outside %s, which this client mounted", url,
                 client->mounted);
        return -1;
    }
    without_query(url + mounted_len, path, path_len);
    return 0;
}

static int via_libnfs_init(const char *source, double timeout_s, void **state, char *err,
                           size_t err_len)
{
    if (load(err, err_len) != 0)
        return -1;
    struct nfs_client *client = calloc(1, sizeof *client);
    if (!client)
        abort();
    if (!(client->nfs = libnfs.init_context())) {
        snprintf(err, err_len, "%.300s: libnfs cannot start", source);
        free(client);
        return -1;
    }
    libnfs.set_timeout(client->nfs, timeout_s < 1 ? 1000 : (int)(timeout_s * 1000));
    *state = client;
    return 0;
}

/* A directory's URL without its query and trailing slashes, into base: its length. */
static size_t directory_of(const char *dir_url, char *base, size_t len)
{
    without_query(dir_url, base, len);
    size_t dir_len = strlen(base);
    while (dir_len > 0 && base[dir_len - 1] == '/')
        base[--dir_len] = '\0';
    return dir_len;
}

/* The fileset's directory mounted before the jobs' reads are timed. */
static int via_libnfs_attach(void *state, const char *dir_url, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    char base[1400];
    size_t dir_len = directory_of(dir_url, base, sizeof base);
    return client->mounted[0] ? 0
                              : mount_dir(client, base, dir_len,
                                          dir_url + strcspn(dir_url, "?"), dir_url, err,
                                          err_len);
}

static void via_libnfs_free(void *state)
{
    struct nfs_client *client = state;
    libnfs.destroy_context(client->nfs);
    free(client);
}

/* "URL: what: libnfs's reason" */
static void reason(struct nfs_client *client, const char *url, const char *what, char *err,
                   size_t err_len)
{
    snprintf(err, err_len, "%.300s: %s: %s", url, what, libnfs.get_error(client->nfs));
}

static int via_libnfs_open_url(void *state, const char *url, bool create,
                               struct data_handle *handle, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    char path[1400];
    struct nfsfh *file = NULL;
    if (path_of(client, url, path, sizeof path, err, err_len) != 0)
        return -1;
    int status = create ? libnfs.create(client->nfs, path, O_WRONLY | O_CREAT | O_TRUNC, 0644,
                                        &file)
                        : libnfs.open(client->nfs, path, O_RDONLY, &file);
    if (status != 0) {
        reason(client, url, create ? "create" : "open", err, err_len);
        return -1;
    }
    handle->file = file;
    return 0;
}

/* A call's count as it is, or its failure named "URL: what: libnfs's reason". */
static ssize_t said(struct nfs_client *client, const struct data_handle *handle, int got,
                    const char *what, char *err, size_t err_len)
{
    if (got < 0)
        reason(client, handle->url, what, err, err_len);
    return got;
}

static ssize_t via_libnfs_read_next(void *state, struct data_handle *handle, void *buf,
                                    size_t len, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    return said(client, handle, libnfs.read(client->nfs, handle->file, len, buf), "read", err,
                err_len);
}

static ssize_t via_libnfs_read_at(void *state, struct data_handle *handle, void *buf,
                                  size_t len, uint64_t offset, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    return said(client, handle, libnfs.pread(client->nfs, handle->file, offset, len, buf),
                "read", err, err_len);
}

static ssize_t via_libnfs_write_next(void *state, struct data_handle *handle, const void *buf,
                                     size_t len, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    return said(client, handle, libnfs.write(client->nfs, handle->file, len, buf), "write",
                err, err_len);
}

static int via_libnfs_close_file(void *state, struct data_handle *handle, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    struct nfsfh *file = handle->file;
    handle->file = NULL;
    if (!file || libnfs.close(client->nfs, file) == 0)
        return 0;
    reason(client, handle->url, "close", err, err_len);
    return -1;
}

static int via_libnfs_stat(void *state, const char *url, uint64_t *size, bool *regular,
                           char *err, size_t err_len)
{
    struct nfs_client *client = state;
    char path[1400];
    struct nfs_stat_64 info;
    if (path_of(client, url, path, sizeof path, err, err_len) != 0)
        return -1;
    int status = libnfs.lstat64(client->nfs, path, &info);
    if (status == -ENOENT)
        return 0;
    if (status != 0) {
        reason(client, url, "stat", err, err_len);
        return -1;
    }
    if (size)
        *size = info.nfs_size;
    if (regular)
        *regular = S_ISREG(info.nfs_mode);
    return 1;
}

/* The directory dir_url's entries: the directory mounted when nothing is, else a path
 * within the mount. */
static int via_libnfs_list(void *state, const char *dir_url,
                           void (*each)(void *arg, const char *name), void *arg, char *err,
                           size_t err_len)
{
    struct nfs_client *client = state;
    if (via_libnfs_attach(state, dir_url, err, err_len) != 0)
        return -1;
    char base[1400], path[1400] = "/";
    directory_of(dir_url, base, sizeof base);
    if (strcmp(base, client->mounted) != 0 &&
        path_of(client, dir_url, path, sizeof path, err, err_len) != 0)
        return -1;
    struct nfsdir *dir = NULL;
    if (libnfs.opendir(client->nfs, path, &dir) != 0) {
        reason(client, dir_url, "list", err, err_len);
        return -1;
    }
    struct nfsdirent *entry;
    while ((entry = libnfs.readdir(client->nfs, dir)))
        if (strcmp(entry->name, ".") != 0 && strcmp(entry->name, "..") != 0)
            each(arg, entry->name);
    libnfs.closedir(client->nfs, dir);
    return 0;
}

static int via_libnfs_rename_url(void *state, const char *from, const char *to, char *err,
                                 size_t err_len)
{
    struct nfs_client *client = state;
    char from_path[1400], to_path[1400];
    if (path_of(client, from, from_path, sizeof from_path, err, err_len) != 0 ||
        path_of(client, to, to_path, sizeof to_path, err, err_len) != 0)
        return -1;
    if (libnfs.rename(client->nfs, from_path, to_path) == 0)
        return 0;
    reason(client, from, "rename", err, err_len);
    return -1;
}

static int via_libnfs_unlink_url(void *state, const char *url, char *err, size_t err_len)
{
    struct nfs_client *client = state;
    char path[1400];
    if (path_of(client, url, path, sizeof path, err, err_len) != 0)
        return -1;
    if (libnfs.unlink(client->nfs, path) == 0)
        return 0;
    reason(client, url, "remove", err, err_len);
    return -1;
}

/* libnfs in a guest or container is this host's (its libraries come with it). */
static int via_libnfs_member_files(const char *source, struct vp_path_set *files, char *err,
                                   size_t err_len)
{
    if (load(err, err_len) != 0)
        return -1;
    const char *file = vp_library_file((const void *)libnfs.open);
    if (!file) {
        snprintf(err, err_len, "--source %.200s: cannot tell where libnfs was loaded from, "
                 "which the members' image must carry", source);
        return -1;
    }
    vp_path_set_add(files, file);
    return 0;
}

const struct data_backend data_nfs_backend = {
    .init = via_libnfs_init,
    .free = via_libnfs_free,
    .attach = via_libnfs_attach,
    .open = via_libnfs_open_url,
    .read = via_libnfs_read_next,
    .pread = via_libnfs_read_at,
    .write = via_libnfs_write_next,
    .close = via_libnfs_close_file,
    .stat = via_libnfs_stat,
    .list = via_libnfs_list,
    .rename = via_libnfs_rename_url,
    .unlink = via_libnfs_unlink_url,
    .member_files = via_libnfs_member_files,
};
