/* `virtperf data prepare|index|remove`: the filesets the data benchmarks read. prepare
 * lays out files of seeded, incompressible content and their manifest; index writes a
 * manifest for files that are already there (never changing them); remove deletes only
 * what it can prove prepare laid out (core/fileset_files.h); prepare is run/fileset_prepare.c,
 * index and remove at a URL run/fileset_url.c. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/data_source.h"
#include "cmd/commands.h"
#include "core/fileset_files.h"
#include "run/fileset_prepare.h"
#include "run/fileset_url.h"
#include "core/fileset.h"
#include "core/units.h"

static const char data_usage[] =
    "usage: virtperf data prepare --source DIR|URL --files N --file-size SIZE[:MAX] [--seed N]\n"
    "       virtperf data index --source DIR|URL\n"
    "       virtperf data remove --source DIR|URL\n"
    "\n"
    "The filesets data.copy and data.read read. prepare lays out N files of seeded,\n"
    "incompressible content under DIR, made when missing (file-00000.dat ...; SIZE:MAX\n"
    "draws each size between the two) and writes DIR/" VP_FILESET_MANIFEST " with each\n"
    "file's size and SHA-256. Serve DIR over XRootD or HTTP and the benchmarks read it\n"
    "by URL too (xrootd, started as root, takes -R nobody: see docs/disk-and-data.md);\n"
    "prepare --source URL (root://, https://, dav://, nfs:// over NFSv3) lays it out\n"
    "through the server, reading each file back to check its SHA-256; index and\n"
    "remove take the same URLs (over a URL, remove checks the type, size and content\n"
    "of each file, as the store has no owner to check).\n"
    "index writes a manifest for the regular files already in DIR, reading them to\n"
    "checksum them and changing none. remove deletes the files it can prove prepare\n"
    "laid out (no link in any part of the name, the caller's own regular file, the\n"
    "manifest's size, the seeded content) and then the manifest; it names and keeps\n"
    "anything else, and never removes a fileset indexed from files virtperf did not\n"
    "make. A prepare killed part way is resumed by the same prepare, or cleared by\n"
    "another one or by remove.\n";

struct data_flags {
    const char *source;
    uint64_t files, size_min, size_max, seed;
    bool files_given, size_given, seed_given;
};

static int take_source(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len; /* checked once the action is known (check_source) */
    ((struct data_flags *)settings)->source = value;
    return 0;
}

static int take_files(void *settings, const char *value, char *err, size_t err_len)
{
    struct data_flags *flags = settings;
    if (vp_parse_count(value, &flags->files) != 0 || flags->files < 1 ||
        flags->files > VP_FILESET_MAX_FILES) {
        snprintf(err, err_len, "--files '%s': accepted: a count, 1 to %d", value,
                 VP_FILESET_MAX_FILES);
        return -1;
    }
    flags->files_given = true;
    return 0;
}

static int take_file_size(void *settings, const char *value, char *err, size_t err_len)
{
    struct data_flags *flags = settings;
    char first[64];
    const char *colon = strchr(value, ':');
    snprintf(first, sizeof first, "%.*s", colon ? (int)(colon - value) : 63, value);
    bool good = vp_parse_size(first, &flags->size_min) == 0 &&
                (!colon || vp_parse_size(colon + 1, &flags->size_max) == 0);
    if (!colon)
        flags->size_max = flags->size_min;
    if (!good || flags->size_min < 1 || flags->size_max < flags->size_min ||
        (double)flags->size_max > VP_FILESET_MAX_FILE_SIZE) {
        snprintf(err, err_len, "--file-size '%s': accepted: a size such as 64m or 1g, or "
                 "MIN:MAX (MIN <= MAX), 1 byte to 16t", value);
        return -1;
    }
    flags->size_given = true;
    return 0;
}

static int take_seed(void *settings, const char *value, char *err, size_t err_len)
{
    struct data_flags *flags = settings;
    if (vp_parse_count(value, &flags->seed) != 0 || flags->seed > (uint64_t)1e18) {
        snprintf(err, err_len, "--seed '%s': accepted: a whole number, 0 to 10^18", value);
        return -1;
    }
    flags->seed_given = true;
    return 0;
}

static const struct vp_command_flag data_flags_table[] = {
    { "source", 0, "DIR|URL", "the fileset's directory, or its root://, https://,\n"
      "dav:// or nfs:// URL", take_source },
    { "files", 0, "N", "prepare's file count, 1..100000", take_files },
    { "file-size", 0, "SIZE[:MAX]", "prepare's file size, or each drawn between SIZE and MAX",
      take_file_size },
    { "seed", 0, "N", "prepare's seed for the content and drawn sizes  [1]", take_seed },
};
const struct vp_command_table vp_data_flags = {
    "data", data_flags_table, sizeof data_flags_table / sizeof data_flags_table[0]
};

/* --source checked: a URL (checked when its library is loaded), a directory, or one
 * prepare will make. */
static void check_source(const char *action, const struct data_flags *flags)
{
    if (!flags->source)
        vp_usage_error("data: --source DIR|URL is required (a local or mounted directory, or "
                       "a root://, https://, dav:// or nfs:// URL)");
    if (strstr(flags->source, "://"))
        return;
    struct stat info;
    bool made_by_prepare = strcmp(action, "prepare") == 0 && lstat(flags->source, &info) != 0 &&
                           errno == ENOENT;
    if (!made_by_prepare && (stat(flags->source, &info) != 0 || !S_ISDIR(info.st_mode)))
        vp_usage_error("data: --source %s: no such directory", flags->source);
}

static int compare_files(const void *a, const void *b)
{
    return strcmp(((const struct vp_fileset_file *)a)->name,
                  ((const struct vp_fileset_file *)b)->name);
}

static int data_index(const struct data_flags *flags)
{
    DIR *dir = opendir(flags->source);
    if (!dir)
        vp_usage_error("data index: --source %s: %s", flags->source, strerror(errno));
    int dir_fd = dirfd(dir);
    struct stat info;
    if (fstatat(dir_fd, VP_FILESET_MANIFEST, &info, AT_SYMLINK_NOFOLLOW) == 0)
        vp_usage_error("data: %s already holds a fileset (%s); choose another directory, or "
                       "delete the manifest", flags->source, VP_FILESET_MANIFEST);
    struct vp_fileset set = { 0 };
    size_t capacity = 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (fstatat(dir_fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(info.st_mode) || !vp_fileset_name_ok(entry->d_name) ||
            strstr(entry->d_name, VP_FILESET_TEMP_SUFFIX))
            continue;
        if (set.count == VP_FILESET_MAX_FILES)
            break;
        if (set.count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            if (!(set.files = realloc(set.files, capacity * sizeof *set.files)))
                abort();
        }
        snprintf(set.files[set.count++].name, VP_FILESET_NAME_LEN, "%s", entry->d_name);
    }
    if (set.count == 0)
        vp_usage_error("data index: %s holds no regular file named with A-Z a-z 0-9 . _ -",
                       flags->source);
    qsort(set.files, set.count, sizeof *set.files, compare_files);
    vp_data_catch_interrupts();
    char err[PATH_MAX + 256];
    int status = 0;
    for (size_t i = 0; i < set.count && status == 0; i++) {
        fprintf(stderr, "\rvirtperf: checksumming file %zu of %zu", i + 1, set.count);
        status = vp_data_checksum(dir_fd, set.files[i].name, NULL, i, &set.files[i].size,
                                  set.files[i].sha256, err, sizeof err);
    }
    fputc('\n', stderr);
    if (status == 0)
        status = vp_data_write_set(dir_fd, VP_FILESET_MANIFEST, &set, false, err, sizeof err);
    closedir(dir);
    if (status == 0)
        printf("indexed %zu files under %s; manifest %s/%s\n", set.count, flags->source,
               flags->source, VP_FILESET_MANIFEST);
    else
        fprintf(stderr, "virtperf: data index: %s; no manifest written\n", err);
    free(set.files);
    return status == 0 ? 0 : vp_data_stop_asked ? VP_EXIT_INTERRUPTED : 1;
}

/* remove's summary: what it removed of what listing (a manifest or a plan, at where)
 * listed; 1 when it kept any. */
static int report_removal(const char *listing, const char *where,
                          const struct vp_removal_count *count)
{
    printf("removed %zu of the %zu files %s listed%s\n", count->removed, count->listed, listing,
           count->kept ? "" : ", and it");
    if (count->kept)
        fprintf(stderr, "virtperf: data remove: kept %zu files it cannot prove prepare laid "
                "out (named above), and %s\n", count->kept, where);
    return count->kept ? 1 : 0;
}

/* Removes the files of the fileset in DIR (or at a URL) that prepare provably laid out,
 * and the manifest once none is left; or what an interrupted prepare left, by its plan. */
static int data_remove(const struct data_flags *flags)
{
    struct vp_removal_count count = { 0 };
    char where[PATH_MAX + 64];
    if (strstr(flags->source, "://")) {
        int status = vp_data_remove_url(flags->source, &count);
        data_join(flags->source, VP_FILESET_MANIFEST, where, sizeof where);
        return status != 0 ? status : report_removal(VP_FILESET_MANIFEST, where, &count);
    }
    int dir_fd = open(flags->source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        vp_usage_error("data remove: --source %s: %s", flags->source, strerror(errno));
    const char *listing = VP_FILESET_MANIFEST;
    struct vp_fileset set;
    char err[PATH_MAX + 256];
    int read = vp_data_read_set(dir_fd, listing, &set, err, sizeof err);
    if (read != 0 && errno == ENOENT) {
        listing = VP_FILESET_PLAN;
        read = vp_data_read_set(dir_fd, listing, &set, err, sizeof err);
        if (read != 0 && errno == ENOENT)
            vp_usage_error("data remove: %s/%s: no such file (no fileset there)", flags->source,
                           VP_FILESET_MANIFEST);
    }
    if (read != 0)
        vp_usage_error("data remove: %s/%s; nothing removed", flags->source, err);
    if (!set.generated) {
        vp_fileset_free(&set);
        vp_usage_error("data remove: %s/%s indexes files virtperf did not lay out; nothing "
                       "removed (delete the manifest yourself to forget them)", flags->source,
                       listing);
    }
    count.listed = set.count;
    count.kept = vp_data_clear_plan(dir_fd, &set, &count.removed);
    if (count.kept == 0)
        unlinkat(dir_fd, listing, 0);
    vp_fileset_free(&set);
    close(dir_fd);
    snprintf(where, sizeof where, "%s/%s", flags->source, listing);
    return report_removal(listing, where, &count);
}

int cmd_data(int argc, char **argv)
{
    if (argc < 2) {
        fputs(data_usage, stderr);
        return VP_EXIT_USAGE;
    }
    struct data_flags flags = { .seed = 1 };
    const char *action = argv[1];
    size_t count;
    /* the flags follow the action's word (--help may stand for it) */
    bool help_alone = strcmp(action, "--help") == 0 || strcmp(action, "-h") == 0;
    char **operands = vp_cmd_parse(&vp_data_flags, data_usage, &flags, argc - !help_alone,
                                   argv + !help_alone, &count);
    if (strcmp(action, "prepare") != 0 && strcmp(action, "index") != 0 &&
        strcmp(action, "remove") != 0)
        vp_usage_error("data: unknown action '%s'; accepted: prepare, index, remove", action);
    if (count > 0)
        vp_usage_error("data: unexpected argument '%s'; see 'virtperf data --help'", operands[0]);
    free(operands);
    check_source(action, &flags);
    if (strcmp(action, "prepare") == 0) {
        if (!flags.files_given || !flags.size_given)
            vp_usage_error("data prepare: --files N and --file-size SIZE are required");
        struct vp_prepare_request request = { .source = flags.source, .files = flags.files,
                                              .size_min = flags.size_min,
                                              .size_max = flags.size_max, .seed = flags.seed };
        return vp_data_prepare(&request);
    }
    if (flags.files_given || flags.size_given || flags.seed_given)
        vp_usage_error("data %s: --files, --file-size and --seed are prepare's; %s takes "
                       "--source only", action, action);
    if (strcmp(action, "index") == 0)
        return strstr(flags.source, "://") ? vp_data_index_url(flags.source) : data_index(&flags);
    return data_remove(&flags);
}
