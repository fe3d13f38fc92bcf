/* Data sources: POSIX paths and gfal2 URLs behind one small interface (data_source.h). */
#define _GNU_SOURCE
#include "bench/data_source.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/options.h" /* VP_ERROR_LEN */
#include "core/safe_open.h"
#include "vp_features.h" /* VP_HAVE_GFAL2 */

#ifdef VP_HAVE_GFAL2
#include "bench/gfal2_loaded.h"

static const struct vp_gfal2 *gfal2; /* loaded by the first client that reads a URL */
#endif

static const struct {
    const char *prefix, *name, *plugin, *package;
} schemes[] = {
    { "root://", "root", "xrootd", "gfal2-plugin-xrootd" },
    { "http://", "http", "http", "gfal2-plugin-http" },
    { "https://", "https", "http", "gfal2-plugin-http" },
    { "dav://", "dav", "http", "gfal2-plugin-http" },
    { "davs://", "davs", "http", "gfal2-plugin-http" },
};

bool data_is_url(const char *source)
{
    return strstr(source, "://") != NULL;
}

static int scheme_index(const char *source)
{
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (strncmp(source, schemes[i].prefix, strlen(schemes[i].prefix)) == 0)
            return (int)i;
    return -1;
}

const char *data_scheme(const char *source)
{
    if (!data_is_url(source))
        return "posix";
    int index = scheme_index(source);
    return index >= 0 ? schemes[index].name : NULL;
}

int data_scheme_check(const char *source, char *err, size_t err_len)
{
    if (!data_is_url(source))
        return 0;
    int index = scheme_index(source);
    if (index < 0) {
        snprintf(err, err_len, "--source %.200s: accepted: a directory, or a root://, "
                 "http://, https://, dav:// or davs:// URL", source);
        return -1;
    }
#ifndef VP_HAVE_GFAL2
    snprintf(err, err_len, "--source %.200s: this virtperf was built without gfal2, which "
             "reads %s URLs (scripts/deps.sh data installs libgfal2-dev and %s; then "
             "rebuild)", source, schemes[index].prefix, schemes[index].package);
    return -1;
#else
    return 0;
#endif
}

/* gfal2 in a guest or container is this host's: the library (its libraries come with it),
 * the plugin of source's scheme from gfal2's plugin directory beside it (Debian's
 * default; GFAL_PLUGIN_DIR is not carried) and its configuration. A store that asks for
 * authentication needs the member to hold credentials and XRootD's security plugins,
 * which the user gives with --guest-programs. */
int data_member_files(const char *source, struct vp_path_set *files, char *err, size_t err_len)
{
    int index = data_is_url(source) ? scheme_index(source) : -1;
    if (index < 0)
        return 0; /* a directory is the member's own; validate refuses an unknown scheme */
#ifdef VP_HAVE_GFAL2
    const struct vp_gfal2 *library = vp_gfal2_load(err, err_len);
    Dl_info where;
    char real[PATH_MAX];
    if (!library)
        return -1;
    if (!dladdr((void *)library->open, &where) || !where.dli_fname ||
        !realpath(where.dli_fname, real)) {
        snprintf(err, err_len, "--source %.200s: cannot tell where gfal2 was loaded from, "
                 "which the members' image must carry", source);
        return -1;
    }
    vp_path_set_add(files, where.dli_fname);
    char *library_dir = dirname(real), plugin[PATH_MAX + 64];
    snprintf(plugin, sizeof plugin, "%s/gfal2-plugins/libgfal_plugin_%s.so", library_dir,
             schemes[index].plugin);
    if (access(plugin, R_OK) != 0) {
        snprintf(err, err_len, "--source %.200s: no %s here for the members to carry "
                 "(install %s: scripts/deps.sh data)", source, plugin, schemes[index].package);
        return -1;
    }
    vp_path_set_add(files, plugin);
    if (access("/etc/gfal2.d", R_OK) == 0)
        vp_path_set_add(files, "/etc/gfal2.d");
    return 0;
#else
    (void)files;
    return data_scheme_check(source, err, err_len);
#endif
}

void data_join(const char *source, const char *name, char *out, size_t len)
{
    size_t source_len = strlen(source);
    bool slash = source_len > 0 && source[source_len - 1] == '/';
    snprintf(out, len, "%s%s%s", source, slash ? "" : "/", name);
}

#ifdef VP_HAVE_GFAL2
/* "URL: the library's text", and the error freed. */
static void gfal_reason(GError **error, const char *url, const char *what, char *err,
                        size_t err_len)
{
    snprintf(err, err_len, "%.300s: %s: %s", url, what,
             *error ? (*error)->message : "failed without a reason");
    gfal2->clear_error(error);
}

/* The plugin reading source's scheme is loaded, else what to install. */
static int plugin_present(gfal2_context_t context, const char *source, char *err, size_t err_len)
{
    int index = scheme_index(source);
    gchar **names = gfal2->get_plugin_names(context);
    bool found = false;
    for (size_t i = 0; names && names[i] && !found; i++)
        found = strncmp(names[i], schemes[index].plugin, strlen(schemes[index].plugin)) == 0;
    gfal2->strfreev(names);
    if (!found)
        snprintf(err, err_len, "%.300s: gfal2 has no %s plugin (install %s: scripts/deps.sh "
                 "data)", source, schemes[index].plugin, schemes[index].package);
    return found ? 0 : -1;
}
#endif

int data_client_init(struct data_client *client, const char *source, double timeout_s,
                     char *err, size_t err_len)
{
    client->gfal = NULL;
    client->watch = NULL;
    if (!data_is_url(source))
        return 0;
#ifdef VP_HAVE_GFAL2
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
        gfal_reason(&error, source, "gfal2 cannot start", err, err_len);
        return -1;
    }
    gfal2->set_opt_integer(context, "HTTP PLUGIN", "OPERATION_TIMEOUT", atoi(seconds), NULL);
    gfal2->set_opt_integer(context, "CORE", "NAMESPACE_TIMEOUT", atoi(seconds), NULL);
    if (plugin_present(context, source, err, err_len) != 0) {
        gfal2->context_free(context);
        return -1;
    }
    client->gfal = context;
    return 0;
#else
    (void)timeout_s;
    return data_scheme_check(source, err, err_len);
#endif
}

struct data_watch {
    double timeout_s;
    void (*stalled)(const char *reason);
    atomic_llong started_ns;      /* when the request under way began; 0: none */
    _Atomic(const char *) url;    /* its URL or path (its handle's, alive meanwhile) */
    _Atomic(const char *) action; /* "open", "read", "close" */
    atomic_bool ending;
    pthread_t thread;
};

static void *watch_requests(void *arg)
{
    struct data_watch *watch = arg;
    int64_t limit_ns = (int64_t)(watch->timeout_s * 1e9);
    struct timespec period = { 0, limit_ns / 10 < 200000000 ? limit_ns / 10 : 200000000 };
    while (!atomic_load(&watch->ending)) {
        nanosleep(&period, NULL);
        int64_t started = atomic_load(&watch->started_ns);
        if (started && vp_now_ns() - started > limit_ns) {
            char reason[VP_ERROR_LEN + 400];
            snprintf(reason, sizeof reason, "%.300s: %s: no answer within --timeout %g s (a "
                     "request blocked in the kernel: the job was ended)",
                     atomic_load(&watch->url), atomic_load(&watch->action), watch->timeout_s);
            watch->stalled(reason);
        }
    }
    return NULL;
}

int data_client_watch(struct data_client *client, double timeout_s,
                      void (*stalled)(const char *reason))
{
    struct data_watch *watch = calloc(1, sizeof *watch);
    if (!watch)
        abort();
    watch->timeout_s = timeout_s;
    watch->stalled = stalled;
    if (pthread_create(&watch->thread, NULL, watch_requests, watch) != 0) {
        free(watch);
        return -1;
    }
    client->watch = watch;
    return 0;
}

/* The request on url begins, or ends (action NULL). */
static void watched(struct data_client *client, const char *url, const char *action)
{
    struct data_watch *watch = client->watch;
    if (!watch)
        return;
    if (action) {
        atomic_store(&watch->url, url);
        atomic_store(&watch->action, action);
    }
    atomic_store(&watch->started_ns, action ? vp_now_ns() : 0);
}

void data_client_free(struct data_client *client)
{
    if (client->watch) {
        atomic_store(&client->watch->ending, true);
        pthread_join(client->watch->thread, NULL);
        free(client->watch);
        client->watch = NULL;
    }
#ifdef VP_HAVE_GFAL2
    if (client->gfal)
        gfal2->context_free(client->gfal);
#endif
    client->gfal = NULL;
}

static int open_unwatched(struct data_client *client, const char *url, struct data_handle *handle,
                          char *err, size_t err_len)
{
    snprintf(handle->url, sizeof handle->url, "%s", url);
    handle->remote = data_is_url(url);
    if (!handle->remote) {
        handle->fd = vp_open_regular(AT_FDCWD, url, 0, NULL, err, err_len);
        return handle->fd < 0 ? -1 : 0;
    }
#ifdef VP_HAVE_GFAL2
    GError *error = NULL;
    handle->fd = gfal2->open(client->gfal, url, O_RDONLY, &error);
    if (handle->fd < 0)
        gfal_reason(&error, url, "open", err, err_len);
    return handle->fd < 0 ? -1 : 0;
#else
    (void)client;
    return data_scheme_check(url, err, err_len);
#endif
}

static ssize_t read_unwatched(struct data_client *client, struct data_handle *handle, void *buf,
                              size_t len, char *err, size_t err_len)
{
    ssize_t got;
    if (!handle->remote) {
        do
            got = read(handle->fd, buf, len);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            snprintf(err, err_len, "%.300s: read: %s", handle->url, strerror(errno));
        return got;
    }
#ifdef VP_HAVE_GFAL2
    GError *error = NULL;
    got = gfal2->read(client->gfal, handle->fd, buf, len, &error);
    if (got < 0)
        gfal_reason(&error, handle->url, "read", err, err_len);
    return got;
#else
    (void)client;
    return -1;
#endif
}

static ssize_t pread_unwatched(struct data_client *client, struct data_handle *handle, void *buf,
                               size_t len, uint64_t offset, char *err, size_t err_len)
{
    ssize_t got;
    if (!handle->remote) {
        do
            got = pread(handle->fd, buf, len, (off_t)offset);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            snprintf(err, err_len, "%.300s: read at %llu: %s", handle->url,
                     (unsigned long long)offset, strerror(errno));
        return got;
    }
#ifdef VP_HAVE_GFAL2
    GError *error = NULL;
    got = gfal2->pread(client->gfal, handle->fd, buf, len, (off_t)offset, &error);
    if (got < 0)
        gfal_reason(&error, handle->url, "read", err, err_len);
    return got;
#else
    (void)client;
    return -1;
#endif
}

static int close_unwatched(struct data_client *client, struct data_handle *handle, char *err,
                           size_t err_len)
{
    if (handle->fd < 0)
        return 0;
    int fd = handle->fd;
    handle->fd = -1;
    if (!handle->remote) {
        if (close(fd) == 0)
            return 0;
        snprintf(err, err_len, "%.300s: close: %s", handle->url, strerror(errno));
        return -1;
    }
#ifdef VP_HAVE_GFAL2
    GError *error = NULL;
    if (gfal2->close(client->gfal, fd, &error) == 0)
        return 0;
    gfal_reason(&error, handle->url, "close", err, err_len);
#else
    (void)client;
#endif
    return -1;
}

/* Reads all of url into the descriptor out: 0, or -1 with the reason in err. */
int data_open(struct data_client *client, const char *url, struct data_handle *handle, char *err,
              size_t err_len)
{
    watched(client, url, "open");
    int status = open_unwatched(client, url, handle, err, err_len);
    watched(client, url, NULL);
    return status;
}

ssize_t data_read(struct data_client *client, struct data_handle *handle, void *buf, size_t len,
                  char *err, size_t err_len)
{
    watched(client, handle->url, "read");
    ssize_t got = read_unwatched(client, handle, buf, len, err, err_len);
    watched(client, handle->url, NULL);
    return got;
}

ssize_t data_pread(struct data_client *client, struct data_handle *handle, void *buf, size_t len,
                   uint64_t offset, char *err, size_t err_len)
{
    watched(client, handle->url, "read");
    ssize_t got = pread_unwatched(client, handle, buf, len, offset, err, err_len);
    watched(client, handle->url, NULL);
    return got;
}

int data_close(struct data_client *client, struct data_handle *handle, char *err, size_t err_len)
{
    watched(client, handle->url, "close");
    int status = close_unwatched(client, handle, err, err_len);
    watched(client, handle->url, NULL);
    return status;
}

#ifdef VP_HAVE_GFAL2
int data_url_create(struct data_client *client, const char *url, struct data_handle *handle,
                    char *err, size_t err_len)
{
    GError *error = NULL;
    snprintf(handle->url, sizeof handle->url, "%s", url);
    handle->remote = true;
    handle->fd = gfal2->open(client->gfal, url, O_WRONLY | O_CREAT | O_TRUNC, &error);
    if (handle->fd < 0)
        gfal_reason(&error, url, "create", err, err_len);
    return handle->fd < 0 ? -1 : 0;
}

ssize_t data_url_write(struct data_client *client, struct data_handle *handle, const void *buf,
                       size_t len, char *err, size_t err_len)
{
    GError *error = NULL;
    ssize_t done = gfal2->write(client->gfal, handle->fd, buf, len, &error);
    if (done < 0)
        gfal_reason(&error, handle->url, "write", err, err_len);
    else if ((size_t)done != len)
        snprintf(err, err_len, "%.300s: write: %zd of %zu bytes taken", handle->url, done, len);
    return done;
}

int data_url_exists(struct data_client *client, const char *url, char *err, size_t err_len)
{
    GError *error = NULL;
    struct stat info;
    if (gfal2->stat(client->gfal, url, &info, &error) == 0)
        return 1;
    if (error && error->code == ENOENT) {
        gfal2->clear_error(&error);
        return 0;
    }
    gfal_reason(&error, url, "stat", err, err_len);
    return -1;
}

int data_url_rename(struct data_client *client, const char *from, const char *to, char *err,
                    size_t err_len)
{
    GError *error = NULL;
    if (gfal2->rename(client->gfal, from, to, &error) == 0)
        return 0;
    gfal_reason(&error, from, "rename", err, err_len);
    return -1;
}

void data_url_unlink(struct data_client *client, const char *url)
{
    GError *error = NULL;
    gfal2->unlink(client->gfal, url, &error);
    gfal2->clear_error(&error);
}
#else
/* Never reached: data_scheme_check refuses every URL in a build without gfal2. */
int data_url_create(struct data_client *client, const char *url, struct data_handle *handle,
                    char *err, size_t err_len)
{
    (void)client, (void)handle;
    return data_scheme_check(url, err, err_len);
}

ssize_t data_url_write(struct data_client *client, struct data_handle *handle, const void *buf,
                       size_t len, char *err, size_t err_len)
{
    (void)client, (void)buf, (void)len;
    return data_scheme_check(handle->url, err, err_len);
}

int data_url_exists(struct data_client *client, const char *url, char *err, size_t err_len)
{
    (void)client;
    return data_scheme_check(url, err, err_len);
}

int data_url_rename(struct data_client *client, const char *from, const char *to, char *err,
                    size_t err_len)
{
    (void)client, (void)to;
    return data_scheme_check(from, err, err_len);
}

void data_url_unlink(struct data_client *client, const char *url)
{
    (void)client, (void)url;
}
#endif

static int copy_out(const char *url, double timeout_s, size_t max, int out, char *err,
                    size_t err_len)
{
    struct data_client client;
    struct data_handle handle = { .fd = -1 };
    if (data_client_init(&client, url, timeout_s, err, err_len) != 0)
        return -1;
    int status = data_open(&client, url, &handle, err, err_len);
    char buf[65536];
    size_t total = 0;
    while (status == 0) {
        ssize_t got = data_read(&client, &handle, buf, sizeof buf, err, err_len);
        if (got <= 0) {
            status = got < 0 ? -1 : 0;
            break;
        }
        total += (size_t)got;
        if (total > max) {
            snprintf(err, err_len, "%.300s: larger than %zu bytes", url, max);
            status = -1;
        } else if (write(out, buf, (size_t)got) != got) {
            snprintf(err, err_len, "%.300s: cannot pass it on: %s", url, strerror(errno));
            status = -1;
        }
    }
    char ignored[64];
    data_close(&client, &handle, status == 0 ? err : ignored,
               status == 0 ? err_len : sizeof ignored);
    data_client_free(&client);
    return status;
}

int data_fetch(const char *url, double timeout_s, size_t max, char **text, size_t *len, char *err,
               size_t err_len)
{
    int content[2], reason[2];
    if (pipe2(content, O_CLOEXEC) != 0)
        return snprintf(err, err_len, "pipe: %s", strerror(errno)), -1;
    if (pipe2(reason, O_CLOEXEC) != 0) {
        close(content[0]);
        close(content[1]);
        return snprintf(err, err_len, "pipe: %s", strerror(errno)), -1;
    }
    fflush(NULL);
    pid_t helper = fork();
    if (helper == 0) {
        close(content[0]);
        close(reason[0]);
        char why[512] = "";
        int status = copy_out(url, timeout_s, max, content[1], why, sizeof why);
        if (status != 0 && write(reason[1], why, strlen(why)) < 0)
            _exit(2);
        _exit(status == 0 ? 0 : 1);
    }
    close(content[1]);
    close(reason[1]);
    size_t used = 0, capacity = 65536;
    char *data = malloc(capacity + 1);
    if (!data)
        abort();
    for (;;) {
        if (used == capacity) {
            capacity *= 2;
            if (!(data = realloc(data, capacity + 1)))
                abort();
        }
        ssize_t got = read(content[0], data + used, capacity - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    char why[512];
    ssize_t why_len = read(reason[0], why, sizeof why - 1);
    close(content[0]);
    close(reason[0]);
    int status = -1;
    if (helper > 0)
        while (waitpid(helper, &status, 0) < 0 && errno == EINTR)
            ;
    if (helper < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (helper < 0)
            snprintf(err, err_len, "cannot fork to read %.300s: %s", url, strerror(errno));
        else if (why_len > 0)
            snprintf(err, err_len, "%.*s", (int)why_len, why);
        else
            snprintf(err, err_len, "%.300s: the reader stopped (status %d)", url, status);
        free(data);
        return -1;
    }
    data[used] = '\0';
    *text = data;
    *len = used;
    return 0;
}
