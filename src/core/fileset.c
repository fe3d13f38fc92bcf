/* Fileset manifests (parse, check, write) and the seeded content of laid-out files. */
#include "core/fileset.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool vp_fileset_name_ok(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= VP_FILESET_NAME_LEN || name[0] == '/' || name[len - 1] == '/')
        return false;
    for (const char *c = name; *c; c++) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-' ||
                     *c == '/';
        if (!plain || (c[0] == '/' && c[1] == '/'))
            return false;
    }
    /* no "." or ".." component: a name stays under its source */
    for (const char *part = name; part; part = strchr(part, '/') ? strchr(part, '/') + 1 : NULL) {
        size_t part_len = strcspn(part, "/");
        if ((part_len == 1 && part[0] == '.') || (part_len == 2 && strncmp(part, "..", 2) == 0))
            return false;
    }
    return true;
}

static bool hex_digest_ok(const char *text)
{
    if (strlen(text) != 64)
        return false;
    for (const char *c = text; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

static int parse_file(const json_t *entry, size_t index, struct vp_fileset_file *file,
                      char *err, size_t err_len)
{
    const json_t *name = json_object_get(entry, "name");
    const json_t *size = json_object_get(entry, "size");
    const json_t *digest = json_object_get(entry, "sha256");
    if (!json_is_object(entry)) {
        snprintf(err, err_len, "files[%zu]: accepted: an object {\"name\", \"size\", \"sha256\"}",
                 index);
        return -1;
    }
    if (!json_is_string(name) || !vp_fileset_name_ok(json_string_value(name))) {
        snprintf(err, err_len, "files[%zu].name: accepted: a relative path of 1 to %d "
                 "characters A-Z a-z 0-9 . _ - /, without '.' or '..' parts", index,
                 VP_FILESET_NAME_LEN - 1);
        return -1;
    }
    if (!json_is_integer(size) || json_integer_value(size) < 0 ||
        (double)json_integer_value(size) > VP_FILESET_MAX_FILE_SIZE) {
        snprintf(err, err_len, "files[%zu].size: accepted: a whole number of bytes, 0 to 16 TiB",
                 index);
        return -1;
    }
    if (!json_is_string(digest) || !hex_digest_ok(json_string_value(digest))) {
        snprintf(err, err_len, "files[%zu].sha256: accepted: 64 lower-case hex digits", index);
        return -1;
    }
    snprintf(file->name, sizeof file->name, "%s", json_string_value(name));
    file->size = (uint64_t)json_integer_value(size);
    memcpy(file->sha256, json_string_value(digest), 65);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp((*(const struct vp_fileset_file *const *)a)->name,
                  (*(const struct vp_fileset_file *const *)b)->name);
}

static int check_names_unique(const struct vp_fileset *set, char *err, size_t err_len)
{
    const struct vp_fileset_file **sorted = malloc(set->count * sizeof *sorted);
    if (!sorted)
        abort();
    for (size_t i = 0; i < set->count; i++)
        sorted[i] = &set->files[i];
    qsort(sorted, set->count, sizeof *sorted, compare_names);
    int status = 0;
    for (size_t i = 1; i < set->count && status == 0; i++)
        if (strcmp(sorted[i]->name, sorted[i - 1]->name) == 0) {
            snprintf(err, err_len, "files: \"%s\" is listed twice", sorted[i]->name);
            status = -1;
        }
    free(sorted);
    return status;
}

int vp_fileset_parse(const char *text, size_t len, struct vp_fileset *set, char *err,
                     size_t err_len)
{
    memset(set, 0, sizeof *set);
    json_error_t parse_error;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &parse_error);
    if (!root) {
        snprintf(err, err_len, "not JSON (line %d: %s)", parse_error.line, parse_error.text);
        return -1;
    }
    int status = -1;
    const json_t *format = json_object_get(root, "format");
    const json_t *version = json_object_get(root, "version");
    const json_t *seed = json_object_get(root, "seed");
    const json_t *files = json_object_get(root, "files");
    if (!json_is_string(format) || strcmp(json_string_value(format), VP_FILESET_FORMAT) != 0)
        snprintf(err, err_len, "format: accepted: \"%s\"", VP_FILESET_FORMAT);
    else if (!json_is_integer(version) || json_integer_value(version) != 1)
        snprintf(err, err_len, "version: accepted: 1");
    else if (seed && !(json_is_integer(seed) && json_integer_value(seed) >= 0))
        snprintf(err, err_len, "seed: accepted: a whole number from 0, or no seed (files "
                 "virtperf did not lay out)");
    else if (!json_is_array(files) || json_array_size(files) == 0 ||
             json_array_size(files) > VP_FILESET_MAX_FILES)
        snprintf(err, err_len, "files: accepted: an array of 1 to %d files", VP_FILESET_MAX_FILES);
    else
        status = 0;
    if (status == 0) {
        set->generated = seed != NULL;
        set->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
        set->count = json_array_size(files);
        set->files = calloc(set->count, sizeof *set->files);
        if (!set->files)
            abort();
        for (size_t i = 0; i < set->count && status == 0; i++)
            status = parse_file(json_array_get(files, i), i, &set->files[i], err, err_len);
        if (status == 0)
            status = check_names_unique(set, err, err_len);
    }
    json_decref(root);
    if (status != 0)
        vp_fileset_free(set);
    return status;
}

char *vp_fileset_dump(const struct vp_fileset *set)
{
    json_t *files = json_array();
    for (size_t i = 0; i < set->count; i++)
        json_array_append_new(files, json_pack("{s:s,s:I,s:s}", "name", set->files[i].name,
                                               "size", (json_int_t)set->files[i].size,
                                               "sha256", set->files[i].sha256));
    json_t *root = json_pack("{s:s,s:i,s:o}", "format", VP_FILESET_FORMAT, "version", 1,
                             "files", files);
    if (set->generated)
        json_object_set_new(root, "seed", json_integer((json_int_t)set->seed));
    char *body = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!body)
        abort();
    size_t len = strlen(body);
    char *text = realloc(body, len + 2);
    if (!text)
        abort();
    memcpy(text + len, "\n", 2);
    return text;
}

void vp_fileset_free(struct vp_fileset *set)
{
    free(set->files);
    memset(set, 0, sizeof *set);
}

/* One 8-byte word of content: splitmix64's finalizer over (seed, file, word). */
static uint64_t content_word(uint64_t key, uint64_t word)
{
    uint64_t z = key + word * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t content_key(uint64_t seed, size_t file)
{
    return content_word(seed * 0xd1b54a32d192ed03ULL, (uint64_t)file + 1);
}

void vp_fileset_fill(uint64_t seed, size_t file, uint64_t offset, unsigned char *buf, size_t len)
{
    uint64_t key = content_key(seed, file);
    size_t done = 0;
    while (done < len) {
        uint64_t at = offset + done;
        uint64_t word = content_word(key, at / 8);
        unsigned char bytes[8];
        for (int b = 0; b < 8; b++)
            bytes[b] = (unsigned char)(word >> (8 * b));
        size_t skip = at % 8, take = 8 - skip;
        if (take > len - done)
            take = len - done;
        memcpy(buf + done, bytes + skip, take);
        done += take;
    }
}

int64_t vp_fileset_mismatch(uint64_t seed, size_t file, uint64_t offset,
                            const unsigned char *buf, size_t len)
{
    unsigned char expected[4096];
    for (size_t done = 0; done < len;) {
        size_t chunk = len - done < sizeof expected ? len - done : sizeof expected;
        vp_fileset_fill(seed, file, offset + done, expected, chunk);
        if (memcmp(expected, buf + done, chunk) != 0) {
            for (size_t i = 0; i < chunk; i++)
                if (expected[i] != buf[done + i])
                    return (int64_t)(done + i);
        }
        done += chunk;
    }
    return -1;
}
