/* The file work of `virtperf data`: SHA-256 over files, manifests written whole or not at
 * all, and the proof that a file is one prepare laid out before anything deletes it
 * (under the source directory, no link in any part of its name, a regular file owned by
 * the caller, the manifest's size, the seeded content at both ends). */
#ifndef VP_CORE_FILESET_FILES_H
#define VP_CORE_FILESET_FILES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fileset.h"
#include "core/sha256.h"

/* Where prepare keeps the plan of the fileset it is laying out, until the manifest is
 * written: what lets a later prepare or remove clear (or resume) what a killed one left. */
#define VP_FILESET_PLAN ".virtperf-prepare.json"
/* The suffix of a file being written, until it is complete and takes its name. */
#define VP_FILESET_TEMP_SUFFIX ".virtperf-tmp"

extern volatile sig_atomic_t vp_data_stop_asked; /* Ctrl-C or SIGTERM */
void vp_data_catch_interrupts(void);

/* A 1 MiB buffer and a SHA-256 being computed over what passes through it. */
struct vp_hasher {
    unsigned char *buffer;
    struct vp_sha256 *digest;
};
enum { VP_HASHER_CHUNK = 1 << 20 };
void vp_hasher_start(struct vp_hasher *hasher);
/* The digest in hex (65 bytes with the NUL), and the hasher freed. */
void vp_hasher_finish(struct vp_hasher *hasher, char *hex);

/* The SHA-256 and size of the regular file name under dir_fd (no link followed); with
 * set, it must also hold set's seeded content for file index throughout. */
int vp_data_checksum(int dir_fd, const char *name, const struct vp_fileset *set, size_t index,
                     uint64_t *size, char *hex, char *err, size_t err_len);

/* Writes set's JSON as dir_fd/name: under a temporary name, synced, then renamed to name
 * (replacing an older one only when replace). */
int vp_data_write_set(int dir_fd, const char *name, const struct vp_fileset *set, bool replace,
                      char *err, size_t err_len);
/* Reads and parses dir_fd/name (no link followed); 0, or -1 with err (ENOENT in errno when
 * there is no such file). */
int vp_data_read_set(int dir_fd, const char *name, struct vp_fileset *set, char *err,
                     size_t err_len);

enum vp_removal { VP_REMOVED, VP_ABSENT, VP_KEPT };
/* Removes set's file index (with suffix appended to its name, "" for the file itself)
 * when it is provably one prepare laid out; a partial one (the temporary file) may be
 * shorter than the manifest says. VP_KEPT names why in why. */
enum vp_removal vp_data_remove_laid_out(int dir_fd, const struct vp_fileset *set, size_t index,
                                        const char *suffix, char *why, size_t why_len);

#endif
