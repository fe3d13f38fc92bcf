/* Data sources: POSIX paths, and URLs through the library that reads their scheme
 * (data_backend.h), behind one small interface (data_source.h). */
#define _GNU_SOURCE
#include "bench/data_source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/data_backend.h"
#include "core/clock.h"
#include "core/options.h" /* VP_ERROR_LEN */
#include "core/safe_open.h"
#include "vp_features.h" /* VP_HAVE_GFAL2, VP_HAVE_LIBNFS */

#ifdef VP_HAVE_GFAL2
#define GFAL2 &data_gfal2_backend
#else
#define GFAL2 NULL
#endif
#ifdef VP_HAVE_LIBNFS
#define LIBNFS &data_nfs_backend
#else
#define LIBNFS NULL
#endif
#define GFAL2_INSTALL(plugin) "scripts/deps.sh data installs libgfal2-dev and " plugin

/* Each URL scheme, the library that reads it and what installs that library (a NULL
 * backend: this build has it not). */
static const struct {
    const char *prefix, *name, *library, *install;
    const struct data_backend *backend;
} schemes[] = {
    { "root://", "root", "gfal2", GFAL2_INSTALL("gfal2-plugin-xrootd"), GFAL2 },
    { "http://", "http", "gfal2", GFAL2_INSTALL("gfal2-plugin-http"), GFAL2 },
    { "https://", "https", "gfal2", GFAL2_INSTALL("gfal2-plugin-http"), GFAL2 },
    { "dav://", "dav", "gfal2", GFAL2_INSTALL("gfal2-plugin-http"), GFAL2 },
    { "davs://", "davs", "gfal2", GFAL2_INSTALL("gfal2-plugin-http"), GFAL2 },
    { "nfs://", "nfs", "libnfs", "scripts/deps.sh nfs installs libnfs-dev", LIBNFS },
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

/* The backend reading source (a URL), or NULL with why: a scheme not known, or one this
 * build has no library for. */
static const struct data_backend *backend_of(const char *source, char *err, size_t err_len)
{
    int index = scheme_index(source);
    if (index < 0) {
        snprintf(err, err_len, "--source %.200s: accepted: a directory, or a root://, "
                 "http://, https://, dav://, davs:// or nfs:// URL", source);
        return NULL;
    }
    if (!schemes[index].backend)
        snprintf(err, err_len, "--source %.200s: this virtperf was built without %s, which "
                 "reads %s URLs (%s; then rebuild)", source, schemes[index].library,
                 schemes[index].prefix, schemes[index].install);
    return schemes[index].backend;
}

int data_scheme_check(const char *source, char *err, size_t err_len)
{
    return !data_is_url(source) || backend_of(source, err, err_len) ? 0 : -1;
}

int data_member_files(const char *source, struct vp_path_set *files, char *err, size_t err_len)
{
    if (!data_is_url(source))
        return 0; /* a directory is the member's own */
    const struct data_backend *backend = backend_of(source, err, err_len);
    return backend ? backend->member_files(source, files, err, err_len) : -1;
}

void data_join(const char *source, const char *name, char *out, size_t len)
{
    /* a URL's query (nfs://.../set?version=4) stays at its end */
    size_t path_len = data_is_url(source) ? strcspn(source, "?") : strlen(source);
    bool slash = path_len > 0 && source[path_len - 1] == '/';
    snprintf(out, len, "%.*s%s%s%s", (int)path_len, source, slash ? "" : "/", name,
             source + path_len);
}

int data_client_init(struct data_client *client, const char *source, double timeout_s,
                     char *err, size_t err_len)
{
    *client = (struct data_client){ .backend = NULL };
    if (!data_is_url(source))
        return 0;
    const struct data_backend *backend = backend_of(source, err, err_len);
    if (!backend || backend->init(source, timeout_s, &client->state, err, err_len) != 0)
        return -1;
    client->backend = backend;
    return 0;
}

int data_client_attach(struct data_client *client, const char *source, char *err,
                       size_t err_len)
{
    if (!client->backend || !client->backend->attach)
        return 0;
    return client->backend->attach(client->state, source, err, err_len);
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
    if (client->backend)
        client->backend->free(client->state);
    client->backend = NULL;
}

/* A URL through the client's backend (NULL: one of another scheme than its source's). */
static const struct data_backend *url_backend(struct data_client *client, const char *url,
                                              char *err, size_t err_len)
{
    if (client->backend && scheme_index(url) >= 0 &&
        schemes[scheme_index(url)].backend == client->backend)
        return client->backend;
    snprintf(err, err_len, "%.150s: not read by this client (another scheme than its "
             "source's)", url);
    return NULL;
}

static int open_unwatched(struct data_client *client, const char *url, bool create,
                          struct data_handle *handle, char *err, size_t err_len)
{
    snprintf(handle->url, sizeof handle->url, "%s", url);
    handle->fd = -1;
    handle->file = NULL;
    handle->remote = data_is_url(url);
    if (!handle->remote) {
        handle->fd = vp_open_regular(AT_FDCWD, url, 0, NULL, err, err_len);
        return handle->fd < 0 ? -1 : 0;
    }
    const struct data_backend *backend = url_backend(client, url, err, err_len);
    return backend ? backend->open(client->state, url, create, handle, err, err_len) : -1;
}

static ssize_t read_unwatched(struct data_client *client, struct data_handle *handle, void *buf,
                              size_t len, char *err, size_t err_len)
{
    if (handle->remote)
        return client->backend->read(client->state, handle, buf, len, err, err_len);
    ssize_t got;
    do
        got = read(handle->fd, buf, len);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        snprintf(err, err_len, "%.300s: read: %s", handle->url, strerror(errno));
    return got;
}

static ssize_t pread_unwatched(struct data_client *client, struct data_handle *handle, void *buf,
                               size_t len, uint64_t offset, char *err, size_t err_len)
{
    if (handle->remote)
        return client->backend->pread(client->state, handle, buf, len, offset, err, err_len);
    ssize_t got;
    do
        got = pread(handle->fd, buf, len, (off_t)offset);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        snprintf(err, err_len, "%.300s: read at %llu: %s", handle->url,
                 (unsigned long long)offset, strerror(errno));
    return got;
}

static int close_unwatched(struct data_client *client, struct data_handle *handle, char *err,
                           size_t err_len)
{
    if (handle->remote)
        return client->backend->close(client->state, handle, err, err_len);
    if (handle->fd < 0)
        return 0;
    int fd = handle->fd;
    handle->fd = -1;
    if (close(fd) == 0)
        return 0;
    snprintf(err, err_len, "%.300s: close: %s", handle->url, strerror(errno));
    return -1;
}

int data_open(struct data_client *client, const char *url, struct data_handle *handle, char *err,
              size_t err_len)
{
    watched(client, url, "open");
    int status = open_unwatched(client, url, false, handle, err, err_len);
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


int data_url_create(struct data_client *client, const char *url, struct data_handle *handle,
                    char *err, size_t err_len)
{
    return open_unwatched(client, url, true, handle, err, err_len);
}

ssize_t data_url_write(struct data_client *client, struct data_handle *handle, const void *buf,
                       size_t len, char *err, size_t err_len)
{
    ssize_t done = client->backend->write(client->state, handle, buf, len, err, err_len);
    if (done >= 0 && (size_t)done != len)
        snprintf(err, err_len, "%.300s: write: %zd of %zu bytes taken", handle->url, done, len);
    return done;
}

int data_url_stat(struct data_client *client, const char *url, uint64_t *size, bool *regular,
                  char *err, size_t err_len)
{
    const struct data_backend *backend = url_backend(client, url, err, err_len);
    return backend ? backend->stat(client->state, url, size, regular, err, err_len) : -1;
}

int data_url_list(struct data_client *client, const char *dir_url,
                  void (*each)(void *arg, const char *name), void *arg, char *err,
                  size_t err_len)
{
    const struct data_backend *backend = url_backend(client, dir_url, err, err_len);
    return backend ? backend->list(client->state, dir_url, each, arg, err, err_len) : -1;
}

int data_url_rename(struct data_client *client, const char *from, const char *to, char *err,
                    size_t err_len)
{
    const struct data_backend *backend = url_backend(client, from, err, err_len);
    return backend && url_backend(client, to, err, err_len)
               ? backend->rename(client->state, from, to, err, err_len)
               : -1;
}

int data_url_unlink(struct data_client *client, const char *url, char *err, size_t err_len)
{
    const struct data_backend *backend = url_backend(client, url, err, err_len);
    return backend ? backend->unlink(client->state, url, err, err_len) : -1;
}

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
