/* data.copy's --to: where each job's copies go. A local directory gets a private scratch
 * directory for the result (core/scratch.h), removed after it; a URL's directory on a
 * server (nfs://, root://, dav://...) gets each copy under a name of this run's own
 * (virtperf-copy-PID-RANDOM-jobJ-N.dat: pids repeat across hosts and guests writing to one
 * server), written through the URL's library in the timed span as a local copy is, and
 * removed after each repetition. */
#ifndef VP_COPY_TARGET_H
#define VP_COPY_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/data_source.h"

/* The parent's, before anything runs: to is an existing, writable local directory with
 * room for needed bytes, or a URL this build can write. 0, or -1 with err. */
int vp_copy_target_check(const char *to, double needed, char *err, size_t err_len);
/* The parent's, per result, after vp_copy_target_remove of the last one: readies to (a
 * local scratch directory made; a URL's names chosen). 0, or -1 with err. */
int vp_copy_target_make(const char *to, char *err, size_t err_len);
/* The parent's, after the result: what a killed job left in a local scratch directory, and
 * the directory (a URL's copies are each job's to remove). */
void vp_copy_target_remove(void);

/* One job's writer; off when the copies are discarded (no --to). */
struct copy_target {
    bool on;
    unsigned job;
    struct data_client client; /* a URL's */
};
int vp_copy_target_start(struct copy_target *target, const char *to, unsigned job,
                         double timeout_s, char *err, size_t err_len);
void vp_copy_target_stop(struct copy_target *target);

/* One copy being written. */
struct copy_out {
    int fd;                    /* a local file's, or -1 */
    struct data_handle handle; /* a URL's */
    bool open;
};
/* Makes the job's n-th copy: 0 (nothing made when the target is off), or -1 with err. */
int vp_copy_out_create(struct copy_target *target, size_t n, struct copy_out *out, char *err,
                       size_t err_len);
int vp_copy_out_write(struct copy_target *target, struct copy_out *out, const void *buf,
                      size_t len, char *err, size_t err_len);
/* Ends the copy; a failed one (failed true, or its close failing) is removed. */
int vp_copy_out_close(struct copy_target *target, struct copy_out *out, size_t n, bool failed,
                      char *err, size_t err_len);
/* Removes the job's n-th copy (after a repetition). */
void vp_copy_out_discard(struct copy_target *target, size_t n);

#endif
