/* Where the data benchmarks read from: a mounted path (POSIX open/read/pread), a root://,
 * http(s):// or dav(s):// URL through gfal2, the grid's multi-protocol client library
 * (optional at build: VP_HAVE_GFAL2), or an nfs:// URL through libnfs (VP_HAVE_LIBNFS).
 * Every error names the path or URL and carries the library's own text. A URL's client
 * (gfal2 and XRootD's under it start threads) is only ever made in a job process or a
 * short-lived helper, never in the parent that forks the jobs. */
#ifndef VP_DATA_SOURCE_H
#define VP_DATA_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/path_set.h"

/* "posix", "root", "http", "https", "dav", "davs", or NULL for a scheme no plugin reads. */
const char *data_scheme(const char *source);
bool data_is_url(const char *source);

/* Checks, before anything runs, that this build can read source's scheme; else -1 and
 * what to install. */
int data_scheme_check(const char *source, char *err, size_t err_len);

/* Adds to files what a guest or container needs of this host to read source's URLs (the
 * library, its plugin for the scheme, their configuration): 0, or -1 with what to install. A
 * directory adds nothing: a member reads its own. */
int data_member_files(const char *source, struct vp_path_set *files, char *err, size_t err_len);

/* source joined with a fileset name: "DIR/NAME" or "URL/NAME". */
void data_join(const char *source, const char *name, char *out, size_t len);

/* One job's client: its backend's (data_backend.h) when it reads URLs. timeout_s bounds
 * connecting and each request (the library's own timeouts). */
struct data_backend;
struct data_client {
    const struct data_backend *backend; /* NULL for POSIX */
    void *state;                        /* the backend's */
    struct data_watch *watch;           /* the requests' deadline, or NULL */
};
int data_client_init(struct data_client *client, const char *source, double timeout_s,
                     char *err, size_t err_len);
/* Gives every request (open, read, close; a path or a URL) a deadline: a thread checks
 * the request under way, and one that has taken longer than timeout_s (blocked in the
 * kernel on a hung mount, which no timeout of a system call ends) makes it call
 * stalled("URL: read: no answer within ..."), which must not return (vp_job.fail_now).
 * data_client_free stops it. Returns 0, or -1 when no thread could be started. */
/* Readies a URL client for the files of its source directory before any read is timed (an
 * nfs:// client mounts it); nothing for a path or a library that connects per file. 0,
 * or -1 with the library's reason. */
int data_client_attach(struct data_client *client, const char *source, char *err,
                       size_t err_len);
int data_client_watch(struct data_client *client, double timeout_s,
                      void (*stalled)(const char *reason));
void data_client_free(struct data_client *client);

struct data_handle {
    int fd;     /* a path's, or a backend's own number for its file */
    void *file; /* or a backend's own handle */
    bool remote;
    char url[1400];
};
int data_open(struct data_client *client, const char *url, struct data_handle *handle, char *err,
              size_t err_len);
/* The next bytes (0 at the end), or -1 with the URL and the library's reason. */
ssize_t data_read(struct data_client *client, struct data_handle *handle, void *buf, size_t len,
                  char *err, size_t err_len);
ssize_t data_pread(struct data_client *client, struct data_handle *handle, void *buf, size_t len,
                   uint64_t offset, char *err, size_t err_len);
int data_close(struct data_client *client, struct data_handle *handle, char *err, size_t err_len);

/* Writing to and keeping a URL's directory (data prepare, index and remove --source URL,
 * data.copy --to URL): a new file (replacing one there: the caller checks first), its
 * bytes, what a name is (1 with its size and whether it is a regular file, either pointer
 * may be NULL; 0 for nothing there; -1 with err), a directory's names, a rename, and a
 * removal. data_close ends a written file too, and its failure is the write's. */
int data_url_create(struct data_client *client, const char *url, struct data_handle *handle,
                    char *err, size_t err_len);
ssize_t data_url_write(struct data_client *client, struct data_handle *handle, const void *buf,
                       size_t len, char *err, size_t err_len);
int data_url_stat(struct data_client *client, const char *url, uint64_t *size, bool *regular,
                  char *err, size_t err_len);
int data_url_list(struct data_client *client, const char *dir_url,
                  void (*each)(void *arg, const char *name), void *arg, char *err,
                  size_t err_len);
int data_url_rename(struct data_client *client, const char *from, const char *to, char *err,
                    size_t err_len);
int data_url_unlink(struct data_client *client, const char *url, char *err, size_t err_len);

/* Reads a whole small file (at most max bytes) from a path or URL; URLs are read by a
 * helper process, so the caller never starts a library's threads. *text is malloc'd and
 * NUL-terminated. */
int data_fetch(const char *url, double timeout_s, size_t max, char **text, size_t *len, char *err,
               size_t err_len);

#endif
