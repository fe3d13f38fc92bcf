/* A fileset: the files the data benchmarks read from a store, as its manifest
 * (virtperf-manifest.json) lists them: name, size and SHA-256 of each. A fileset laid
 * out by `virtperf data prepare` also names the seed of its content, in which every
 * 8-byte word is a function of (seed, file, word offset): any range read from anywhere
 * can be checked without the rest of the file. The manifest is outside input (it is
 * read from the store): parsing checks every field and names what was wrong. */
#ifndef VP_FILESET_H
#define VP_FILESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VP_FILESET_MANIFEST "virtperf-manifest.json"
#define VP_FILESET_FORMAT "virtperf fileset"
#define VP_FILESET_MAX_FILES 100000
#define VP_FILESET_NAME_LEN 256
#define VP_FILESET_MAX_FILE_SIZE 17592186044416.0 /* 16 TiB */
#define VP_FILESET_MAX_MANIFEST (64u << 20)

struct vp_fileset_file {
    char name[VP_FILESET_NAME_LEN]; /* relative to the source: [A-Za-z0-9._-/], no ".." */
    uint64_t size;
    char sha256[65]; /* lower-case hex */
};

struct vp_fileset {
    bool generated; /* laid out by virtperf: content follows seed */
    uint64_t seed;
    size_t count;
    struct vp_fileset_file *files;
};

/* Parses a manifest; on error a one-line reason naming the field and what is accepted.
 * The set is empty (nothing to free) on error. */
int vp_fileset_parse(const char *text, size_t len, struct vp_fileset *set, char *err,
                     size_t err_len);
/* The manifest's JSON text (malloc'd, ends in a newline). */
char *vp_fileset_dump(const struct vp_fileset *set);
void vp_fileset_free(struct vp_fileset *set);

/* Whether name may stand in a manifest (and be joined to a source path or URL). */
bool vp_fileset_name_ok(const char *name);

/* The generated content of file (its index in the set) at offset, len bytes. */
void vp_fileset_fill(uint64_t seed, size_t file, uint64_t offset, unsigned char *buf, size_t len);
/* Offset within buf of the first byte that is not the generated content, or -1. */
int64_t vp_fileset_mismatch(uint64_t seed, size_t file, uint64_t offset,
                            const unsigned char *buf, size_t len);

#endif
