/* `virtperf data index` and `data remove` with --source URL (nfs://, root://...): the same
 * work as on a directory, through the URL's library. index lists the directory, reads each
 * regular file whole for its SHA-256 and writes the manifest beside them; remove deletes a
 * file only where the store says it is a regular file of the manifest's size holding the
 * seeded content at both ends (a URL has no owner to check), then the manifest. */
#define _GNU_SOURCE
#include "run/fileset_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/data_source.h"
#include "core/fileset_files.h"
#include "core/options.h" /* VP_ERROR_LEN */
#include "run/cli.h"
#include "run/fileset_prepare.h"

#define URL_LEN (VP_TEXT_LEN + VP_FILESET_NAME_LEN + 40)

/* The names a listing gave, grown as they come. */
struct names {
    struct vp_fileset set;
    size_t capacity;
    bool over; /* more than a fileset holds */
};

static void take_name(void *arg, const char *name)
{
    struct names *names = arg;
    if (!vp_fileset_name_ok(name) || strstr(name, VP_FILESET_TEMP_SUFFIX) ||
        strcmp(name, VP_FILESET_MANIFEST) == 0)
        return;
    if (names->set.count == VP_FILESET_MAX_FILES) {
        names->over = true;
        return;
    }
    if (names->set.count == names->capacity) {
        names->capacity = names->capacity ? names->capacity * 2 : 64;
        names->set.files = realloc(names->set.files, names->capacity * sizeof *names->set.files);
        if (!names->set.files)
            abort();
    }
    snprintf(names->set.files[names->set.count++].name, VP_FILESET_NAME_LEN, "%s", name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct vp_fileset_file *)a)->name,
                  ((const struct vp_fileset_file *)b)->name);
}

/* A client for source, or the command ended: a scheme this build cannot read exits 2. */
static void client_for(struct data_client *client, const char *action, const char *source)
{
    char err[VP_ERROR_LEN];
    if (data_scheme_check(source, err, sizeof err) != 0)
        vp_usage_error("data %s: %s", action, err);
    if (data_client_init(client, source, 30, err, sizeof err) != 0 ||
        data_client_attach(client, source, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: data %s: %s\n", action, err);
        exit(1);
    }
}

/* Keeps the names that are regular files, with their sizes; 0, or -1 with err. */
static int keep_regular(struct data_client *client, const char *source, struct names *names,
                        char *err, size_t err_len)
{
    size_t kept = 0;
    for (size_t i = 0; i < names->set.count; i++) {
        char url[URL_LEN];
        data_join(source, names->set.files[i].name, url, sizeof url);
        bool regular = false;
        int there = data_url_stat(client, url, &names->set.files[i].size, &regular, err,
                                  err_len);
        if (there < 0)
            return -1;
        if (there > 0 && regular)
            names->set.files[kept++] = names->set.files[i];
    }
    names->set.count = kept;
    return 0;
}

int vp_data_index_url(const char *source)
{
    struct data_client client;
    client_for(&client, "index", source);
    char err[VP_ERROR_LEN + URL_LEN], url[URL_LEN];
    data_join(source, VP_FILESET_MANIFEST, url, sizeof url);
    int there = data_url_stat(&client, url, NULL, NULL, err, sizeof err);
    if (there > 0)
        vp_usage_error("data: %s already holds a fileset (%s); choose another directory, or "
                       "delete the manifest", source, VP_FILESET_MANIFEST);
    struct names names = { .set = { 0 } };
    int status = there < 0 ? -1 : data_url_list(&client, source, take_name, &names, err,
                                                sizeof err);
    if (status == 0)
        status = keep_regular(&client, source, &names, err, sizeof err);
    if (status == 0 && names.set.count == 0) {
        data_client_free(&client);
        vp_usage_error("data index: %s holds no regular file named with A-Z a-z 0-9 . _ -",
                       source);
    }
    if (names.over)
        fprintf(stderr, "virtperf: data index: %s holds over %d files; the first %d by the "
                "listing's order are indexed\n", source, VP_FILESET_MAX_FILES,
                VP_FILESET_MAX_FILES);
    if (names.set.count)
        qsort(names.set.files, names.set.count, sizeof *names.set.files, by_name);
    vp_data_catch_interrupts();
    for (size_t i = 0; i < names.set.count && status == 0; i++) {
        fprintf(stderr, "\rvirtperf: checksumming file %zu of %zu", i + 1, names.set.count);
        struct vp_fileset_file *file = &names.set.files[i];
        uint64_t listed = file->size;
        data_join(source, file->name, url, sizeof url);
        status = vp_data_url_sha256(&client, url, file->sha256, &file->size, err, sizeof err);
        if (status == 0 && file->size != listed)
            status = -1, snprintf(err, sizeof err, "%.300s: %llu bytes read where the store "
                                  "said %llu (changing while indexed?)", url,
                                  (unsigned long long)file->size, (unsigned long long)listed);
    }
    if (names.set.count)
        fputc('\n', stderr);
    if (status == 0) {
        char *text = vp_fileset_dump(&names.set);
        data_join(source, VP_FILESET_MANIFEST, url, sizeof url);
        status = vp_data_put_text(&client, url, text, err, sizeof err);
        free(text);
    }
    if (status == 0)
        printf("indexed %zu files under %s; manifest %s\n", names.set.count, source, url);
    else
        fprintf(stderr, "virtperf: data index: %s; no manifest written\n", err);
    data_client_free(&client);
    vp_fileset_free(&names.set);
    return status == 0 ? 0 : vp_data_stop_asked ? VP_EXIT_INTERRUPTED : 1;
}

/* Whether [offset, offset + len) of the open file holds set's seeded content for index. */
static bool seeded_at(struct data_client *client, struct data_handle *handle,
                      const struct vp_fileset *set, size_t index, uint64_t offset, size_t len)
{
    unsigned char buffer[65536];
    char ignored[VP_ERROR_LEN];
    if (len > sizeof buffer)
        len = sizeof buffer;
    return data_pread(client, handle, buffer, len, offset, ignored, sizeof ignored) ==
               (ssize_t)len &&
           vp_fileset_mismatch(set->seed, index, offset, buffer, len) < 0;
}

/* Removes set's file index (with suffix: an unfinished prepare's temporary name, which
 * may be shorter) when it is provably laid out, as vp_data_remove_laid_out does for a
 * directory. */
static enum vp_removal remove_laid_out(struct data_client *client, const char *source,
                                       const struct vp_fileset *set, size_t index,
                                       const char *suffix, char *why, size_t why_len)
{
    char name[VP_FILESET_NAME_LEN + 32], url[URL_LEN];
    snprintf(name, sizeof name, "%s%s", set->files[index].name, suffix);
    data_join(source, name, url, sizeof url);
    uint64_t size = 0, want = set->files[index].size;
    bool regular = false, partial = suffix[0] != '\0';
    int there = data_url_stat(client, url, &size, &regular, why, why_len);
    if (there == 0)
        return VP_ABSENT;
    if (there < 0)
        return VP_KEPT;
    if (!regular) {
        snprintf(why, why_len, "%s: not a regular file", name);
        return VP_KEPT;
    }
    if (partial ? size > want : size != want) {
        snprintf(why, why_len, "%s: %llu bytes, the manifest says %llu", name,
                 (unsigned long long)size, (unsigned long long)want);
        return VP_KEPT;
    }
    struct data_handle handle = { .fd = -1 };
    if (data_open(client, url, &handle, why, why_len) != 0)
        return VP_KEPT;
    size_t probe = size < 65536 ? (size_t)size : 65536;
    bool seeded = seeded_at(client, &handle, set, index, 0, probe) &&
                  seeded_at(client, &handle, set, index, size - probe, probe);
    char ignored[VP_ERROR_LEN];
    data_close(client, &handle, ignored, sizeof ignored);
    if (!seeded) {
        snprintf(why, why_len, "%s: not the content prepare laid out (seed %llu)", name,
                 (unsigned long long)set->seed);
        return VP_KEPT;
    }
    return data_url_unlink(client, url, why, why_len) == 0 ? VP_REMOVED : VP_KEPT;
}

int vp_data_remove_url(const char *source, struct vp_removal_count *count)
{
    char err[VP_ERROR_LEN + URL_LEN], url[URL_LEN];
    data_join(source, VP_FILESET_MANIFEST, url, sizeof url);
    char *text = NULL;
    size_t len = 0;
    struct vp_fileset set;
    if (data_scheme_check(source, err, sizeof err) != 0)
        vp_usage_error("data remove: %s", err);
    if (data_fetch(url, 30, VP_FILESET_MAX_MANIFEST, &text, &len, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: data remove: %s; nothing removed\n", err);
        return 1;
    }
    int parsed = vp_fileset_parse(text, len, &set, err, sizeof err);
    free(text);
    if (parsed != 0)
        vp_usage_error("data remove: %s: %s; nothing removed", url, err);
    if (!set.generated) {
        vp_fileset_free(&set);
        vp_usage_error("data remove: %s indexes files virtperf did not lay out; nothing "
                       "removed (delete the manifest yourself to forget them)", url);
    }
    struct data_client client;
    client_for(&client, "remove", source);
    *count = (struct vp_removal_count){ .listed = set.count };
    for (size_t i = 0; i < set.count; i++)
        for (int temp = 0; temp < 2; temp++) {
            char why[VP_ERROR_LEN + URL_LEN];
            switch (remove_laid_out(&client, source, &set, i, temp ? VP_FILESET_TEMP_SUFFIX : "",
                                    why, sizeof why)) {
            case VP_REMOVED: count->removed++; break;
            case VP_ABSENT: break;
            case VP_KEPT:
                fprintf(stderr, "virtperf: kept %s\n", why);
                count->kept++;
                break;
            }
        }
    int status = 0;
    if (count->kept == 0 && data_url_unlink(&client, url, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: data remove: %s\n", err);
        status = 1;
    }
    data_client_free(&client);
    vp_fileset_free(&set);
    return status;
}
