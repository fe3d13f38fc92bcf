/* A library reading (and writing) a data source's URLs behind data_source.c: gfal2 for
 * root://, http(s):// and dav(s)://, libnfs for nfs://. Each is optional at build and
 * loaded when first used; every error it gives reads "URL: what: the library's reason". A
 * client's state is the backend's own. */
#ifndef VP_DATA_BACKEND_H
#define VP_DATA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct data_handle;  /* data_source.h */
struct vp_path_set;  /* core/path_set.h */

struct data_backend {
    /* A client for source's URLs in *state, or -1 with why (the library or its plugin for
     * the scheme missing); timeout_s bounds connecting and each request. */
    int (*init)(const char *source, double timeout_s, void **state, char *err, size_t err_len);
    void (*free)(void *state);
    /* Optional: readies the client for the files of the directory dir_url before any read
     * of them is timed (libnfs mounts it: a worker node's NFS mount outlives its jobs'
     * files). 0, or -1 with the library's reason. */
    int (*attach)(void *state, const char *dir_url, char *err, size_t err_len);
    /* url opened to read, or (create) made anew to write, in handle: 0 or -1 + err. */
    int (*open)(void *state, const char *url, bool create, struct data_handle *handle,
                char *err, size_t err_len);
    ssize_t (*read)(void *state, struct data_handle *handle, void *buf, size_t len, char *err,
                    size_t err_len);
    ssize_t (*pread)(void *state, struct data_handle *handle, void *buf, size_t len,
                     uint64_t offset, char *err, size_t err_len);
    ssize_t (*write)(void *state, struct data_handle *handle, const void *buf, size_t len,
                     char *err, size_t err_len);
    /* 0 for a handle already closed. */
    int (*close)(void *state, struct data_handle *handle, char *err, size_t err_len);
    /* 1 when url names something (its size and whether it is a regular file in *size and
     * *regular, either may be NULL), 0 when it names nothing, or -1 with err. */
    int (*stat)(void *state, const char *url, uint64_t *size, bool *regular, char *err,
                size_t err_len);
    /* each(arg, name) for every name in the directory dir_url but . and ..: 0, or -1 with
     * err. */
    int (*list)(void *state, const char *dir_url, void (*each)(void *arg, const char *name),
                void *arg, char *err, size_t err_len);
    int (*rename)(void *state, const char *from, const char *to, char *err, size_t err_len);
    int (*unlink)(void *state, const char *url, char *err, size_t err_len);
    /* Adds what a guest or container needs of this host to read source through it. */
    int (*member_files)(const char *source, struct vp_path_set *files, char *err,
                        size_t err_len);
};

extern const struct data_backend data_gfal2_backend; /* data_gfal2.c */
extern const struct data_backend data_nfs_backend;   /* data_nfs.c */

#endif
