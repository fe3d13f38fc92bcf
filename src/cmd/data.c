/* `virtperf data prepare|index|remove`: the filesets the data benchmarks read. prepare
 * lays out files of seeded, incompressible content and their manifest; index writes a
 * manifest for files that are already there (never changing them); remove deletes only
 * what prepare laid out. A file appears under its name only once complete, and the
 * manifest last, so an interrupted prepare leaves nothing behind. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/common.h"
#include "core/fileset.h"
#include "core/random.h"
#include "core/units.h"

static const char data_usage[] =
    "usage: virtperf data prepare --source DIR --files N --file-size SIZE[:MAX] [--seed N]\n"
    "       virtperf data index --source DIR\n"
    "       virtperf data remove --source DIR\n"
    "\n"
    "The filesets data.copy and data.read read. prepare lays out N files of seeded,\n"
    "incompressible content under DIR (file-00000.dat ...; SIZE:MAX draws each size\n"
    "between the two) and writes DIR/" VP_FILESET_MANIFEST " with each file's size and\n"
    "SHA-256. Serve DIR over XRootD or HTTP and the benchmarks read it by URL too.\n"
    "index writes a manifest for the regular files already in DIR, reading them to\n"
    "checksum them and changing none. remove deletes the files prepare laid out and\n"
    "their manifest; a fileset indexed from files virtperf did not make is never removed.\n";

static volatile sig_atomic_t stop_asked;

static void on_interrupt(int signal_number)
{
    (void)signal_number;
    stop_asked = 1;
}

struct data_flags {
    const char *source;
    uint64_t files, size_min, size_max, seed;
    bool files_given, size_given;
};

static void parse_file_size(const char *text, struct data_flags *flags)
{
    char first[64];
    const char *colon = strchr(text, ':');
    snprintf(first, sizeof first, "%.*s", colon ? (int)(colon - text) : 63, text);
    bool good = vp_parse_size(first, &flags->size_min) == 0 &&
                (!colon || vp_parse_size(colon + 1, &flags->size_max) == 0);
    if (!colon)
        flags->size_max = flags->size_min;
    if (!good || flags->size_min < 1 || flags->size_max < flags->size_min ||
        (double)flags->size_max > VP_FILESET_MAX_FILE_SIZE)
        vp_usage_error("data: --file-size '%s': accepted: a size such as 64m or 1g, or MIN:MAX "
                       "(MIN <= MAX), 1 byte to 16t", text);
    flags->size_given = true;
}

static void parse_flags(int argc, char **argv, struct data_flags *flags)
{
    static const struct option options[] = {
        { "source", required_argument, NULL, 's' }, { "files", required_argument, NULL, 'f' },
        { "file-size", required_argument, NULL, 'z' }, { "seed", required_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 2;
    int option;
    flags->seed = 1;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 's': flags->source = optarg; break;
        case 'f':
            if (vp_parse_count(optarg, &flags->files) != 0 || flags->files < 1 ||
                flags->files > VP_FILESET_MAX_FILES)
                vp_usage_error("data: --files '%s': accepted: a count, 1 to %d", optarg,
                               VP_FILESET_MAX_FILES);
            flags->files_given = true;
            break;
        case 'z': parse_file_size(optarg, flags); break;
        case 'e':
            if (vp_parse_count(optarg, &flags->seed) != 0 || flags->seed > (uint64_t)1e18)
                vp_usage_error("data: --seed '%s': accepted: a whole number, 0 to 10^18", optarg);
            break;
        case 'h': fputs(data_usage, stdout); exit(0);
        default:
            vp_usage_error("data: unknown or incomplete option '%s'; see 'virtperf data --help'",
                           argv[optind - 1]);
        }
    }
    if (optind < argc)
        vp_usage_error("data: unexpected argument '%s'; see 'virtperf data --help'", argv[optind]);
    if (!flags->source)
        vp_usage_error("data: --source DIR is required (a local or mounted directory)");
    if (strstr(flags->source, "://"))
        vp_usage_error("data: --source %s: accepted: a directory (lay the fileset out where the "
                       "server exports it, then read it by URL)", flags->source);
    struct stat info;
    if (stat(flags->source, &info) != 0 || !S_ISDIR(info.st_mode))
        vp_usage_error("data: --source %s: no such directory", flags->source);
}

/* Writes the reason into err and returns -1. */
__attribute__((format(printf, 3, 4))) static int failed(char *err, size_t err_len,
                                                      const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(err, err_len, format, args);
    va_end(args);
    return -1;
}

/* A 1 MiB buffer and a SHA-256 being computed over what passes through it. */
struct hasher {
    unsigned char *buffer;
    EVP_MD_CTX *digest;
};
enum { HASHER_CHUNK = 1 << 20 };

static void hasher_start(struct hasher *hasher)
{
    hasher->buffer = malloc(HASHER_CHUNK);
    hasher->digest = EVP_MD_CTX_new();
    if (!hasher->buffer || !hasher->digest)
        abort();
    EVP_DigestInit_ex(hasher->digest, EVP_sha256(), NULL);
}

/* The digest in hex, and the hasher freed. */
static void hasher_finish(struct hasher *hasher, char *hex)
{
    unsigned char sum[EVP_MAX_MD_SIZE];
    EVP_DigestFinal_ex(hasher->digest, sum, NULL);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    EVP_MD_CTX_free(hasher->digest);
    free(hasher->buffer);
}

/* Writes one file of generated content under a temporary name, then gives it its name
 * (never replacing anything there). */
static int lay_out_file(const char *dir, const struct vp_fileset *set, size_t index, char *err,
                        size_t err_len)
{
    const struct vp_fileset_file *file = &set->files[index];
    char path[PATH_MAX], temp[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, file->name);
    snprintf(temp, sizeof temp, "%s.virtperf-tmp", path);
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return snprintf(err, err_len, "%s: %s", temp, strerror(errno)), -1;
    struct hasher hasher;
    hasher_start(&hasher);
    int status = 0;
    for (uint64_t done = 0; done < file->size && status == 0;) {
        size_t chunk = file->size - done < HASHER_CHUNK ? (size_t)(file->size - done)
                                                        : HASHER_CHUNK;
        vp_fileset_fill(set->seed, index, done, hasher.buffer, chunk);
        EVP_DigestUpdate(hasher.digest, hasher.buffer, chunk);
        if (stop_asked)
            status = failed(err, err_len, "interrupted");
        else if (write(fd, hasher.buffer, chunk) != (ssize_t)chunk)
            status = failed(err, err_len, "%s: write: %s", temp,
                              errno ? strerror(errno) : "disk full");
        done += chunk;
    }
    hasher_finish(&hasher, set->files[index].sha256);
    if (status == 0 && fsync(fd) != 0)
        status = failed(err, err_len, "%s: fsync: %s", temp, strerror(errno));
    if (close(fd) != 0 && status == 0)
        status = failed(err, err_len, "%s: close: %s", temp, strerror(errno));
    if (status == 0 && renameat2(AT_FDCWD, temp, AT_FDCWD, path, RENAME_NOREPLACE) != 0)
        status = failed(err, err_len, "%s: %s (a fileset is laid out only where none of "
                          "its names exists)", path, strerror(errno));
    if (status != 0)
        unlink(temp);
    return status;
}

/* The manifest under a temporary name, then its own (never replacing one). */
static int write_manifest(const char *dir, const struct vp_fileset *set, char *err,
                          size_t err_len)
{
    char path[PATH_MAX], temp[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, VP_FILESET_MANIFEST);
    snprintf(temp, sizeof temp, "%s.virtperf-tmp", path);
    char *text = vp_fileset_dump(set);
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    size_t len = strlen(text);
    int status = fd >= 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0 ? 0 : -1;
    if (status != 0)
        snprintf(err, err_len, "%s: %s", temp, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && status == 0)
        status = failed(err, err_len, "%s: close: %s", temp, strerror(errno));
    if (status == 0 && renameat2(AT_FDCWD, temp, AT_FDCWD, path, RENAME_NOREPLACE) != 0)
        status = failed(err, err_len, "%s: %s", path, strerror(errno));
    if (status != 0)
        unlink(temp);
    free(text);
    return status;
}

static void refuse_existing_manifest(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, VP_FILESET_MANIFEST);
    if (access(path, F_OK) == 0)
        vp_usage_error("data: %s already holds a fileset (%s); 'virtperf data remove --source "
                       "%s' first, or choose another directory", dir, VP_FILESET_MANIFEST, dir);
}

static int data_prepare(const struct data_flags *flags)
{
    if (!flags->files_given || !flags->size_given)
        vp_usage_error("data prepare: --files N and --file-size SIZE are required");
    refuse_existing_manifest(flags->source);
    struct vp_fileset set = { .generated = true, .seed = flags->seed, .count = flags->files };
    set.files = calloc(set.count, sizeof *set.files);
    if (!set.files)
        abort();
    uint64_t random = flags->seed * 2654435761u + 1, total = 0;
    for (size_t i = 0; i < set.count; i++) {
        uint64_t span = flags->size_max - flags->size_min;
        uint64_t size = flags->size_min + (span ? vp_xorshift64(&random) % (span + 1) : 0);
        if (span && size > 4096)
            size -= size % 4096;
        snprintf(set.files[i].name, sizeof set.files[i].name, "file-%05zu.dat", i);
        set.files[i].size = size;
        total += size;
    }
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    char err[PATH_MAX + 256];
    size_t made = 0;
    int status = 0;
    for (; made < set.count && status == 0; made++) {
        fprintf(stderr, "\rvirtperf: laying out file %zu of %zu", made + 1, set.count);
        if (lay_out_file(flags->source, &set, made, err, sizeof err) != 0) {
            status = -1;
            break;
        }
    }
    fputc('\n', stderr);
    if (status == 0 && write_manifest(flags->source, &set, err, sizeof err) != 0)
        status = -1;
    if (status != 0) { /* nothing half-made stays: the files laid out so far go */
        for (size_t i = 0; i < made; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", flags->source, set.files[i].name);
            unlink(path);
        }
        fprintf(stderr, "virtperf: data prepare: %s; nothing was left in %s\n", err,
                flags->source);
        free(set.files);
        return stop_asked ? VP_EXIT_INTERRUPTED : 1;
    }
    char amount[32];
    vp_format_bytes((double)total, amount, sizeof amount);
    printf("laid out %zu files, %s, under %s (seed %llu); manifest %s/%s\n", set.count, amount,
           flags->source, (unsigned long long)flags->seed, flags->source, VP_FILESET_MANIFEST);
    free(set.files);
    return 0;
}

/* The SHA-256 of a file already there, read in 1 MiB pieces. */
static int checksum_file(const char *path, uint64_t *size, char *hex, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return snprintf(err, err_len, "%s: %s", path, strerror(errno)), -1;
    struct hasher hasher;
    hasher_start(&hasher);
    ssize_t got;
    *size = 0;
    while ((got = read(fd, hasher.buffer, HASHER_CHUNK)) > 0 && !stop_asked) {
        EVP_DigestUpdate(hasher.digest, hasher.buffer, (size_t)got);
        *size += (uint64_t)got;
    }
    hasher_finish(&hasher, hex);
    int status = got < 0 || stop_asked ? -1 : 0;
    if (status != 0)
        snprintf(err, err_len, "%s: %s", path, stop_asked ? "interrupted" : strerror(errno));
    close(fd);
    return status;
}

static int compare_files(const void *a, const void *b)
{
    return strcmp(((const struct vp_fileset_file *)a)->name,
                  ((const struct vp_fileset_file *)b)->name);
}

static int data_index(const struct data_flags *flags)
{
    if (flags->files_given || flags->size_given)
        vp_usage_error("data index: --files and --file-size are prepare's; index takes the "
                       "files that are there");
    refuse_existing_manifest(flags->source);
    DIR *dir = opendir(flags->source);
    if (!dir)
        vp_usage_error("data index: --source %s: %s", flags->source, strerror(errno));
    struct vp_fileset set = { 0 };
    size_t capacity = 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        char path[PATH_MAX];
        struct stat info;
        snprintf(path, sizeof path, "%s/%s", flags->source, entry->d_name);
        if (lstat(path, &info) != 0 || !S_ISREG(info.st_mode) ||
            !vp_fileset_name_ok(entry->d_name) || strstr(entry->d_name, ".virtperf-tmp"))
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
    closedir(dir);
    if (set.count == 0)
        vp_usage_error("data index: %s holds no regular file named with A-Z a-z 0-9 . _ -",
                       flags->source);
    qsort(set.files, set.count, sizeof *set.files, compare_files);
    signal(SIGINT, on_interrupt);
    char err[PATH_MAX + 256];
    int status = 0;
    for (size_t i = 0; i < set.count && status == 0; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", flags->source, set.files[i].name);
        fprintf(stderr, "\rvirtperf: checksumming file %zu of %zu", i + 1, set.count);
        status = checksum_file(path, &set.files[i].size, set.files[i].sha256, err, sizeof err);
    }
    fputc('\n', stderr);
    if (status == 0)
        status = write_manifest(flags->source, &set, err, sizeof err);
    if (status == 0)
        printf("indexed %zu files under %s; manifest %s/%s\n", set.count, flags->source,
               flags->source, VP_FILESET_MANIFEST);
    else
        fprintf(stderr, "virtperf: data index: %s; no manifest written\n", err);
    free(set.files);
    return status == 0 ? 0 : stop_asked ? VP_EXIT_INTERRUPTED : 1;
}

static int data_remove(const struct data_flags *flags)
{
    char path[PATH_MAX], err[VP_ERROR_LEN];
    snprintf(path, sizeof path, "%s/%s", flags->source, VP_FILESET_MANIFEST);
    FILE *in = fopen(path, "r");
    if (!in)
        vp_usage_error("data remove: %s: %s", path, strerror(errno));
    char *text = malloc(VP_FILESET_MAX_MANIFEST + 1);
    if (!text)
        abort();
    size_t len = fread(text, 1, VP_FILESET_MAX_MANIFEST + 1, in);
    fclose(in);
    struct vp_fileset set;
    int parsed = len <= VP_FILESET_MAX_MANIFEST ? vp_fileset_parse(text, len, &set, err, sizeof err)
                                                : (snprintf(err, sizeof err, "over 64 MiB"), -1);
    free(text);
    if (parsed != 0)
        vp_usage_error("data remove: %s: %s; nothing removed", path, err);
    if (!set.generated) {
        vp_fileset_free(&set);
        vp_usage_error("data remove: %s indexes files virtperf did not lay out; nothing "
                       "removed (delete the manifest yourself to forget them)", path);
    }
    size_t removed = 0;
    for (size_t i = 0; i < set.count; i++) {
        char file[PATH_MAX];
        struct stat info;
        snprintf(file, sizeof file, "%s/%s", flags->source, set.files[i].name);
        if (lstat(file, &info) == 0 && S_ISREG(info.st_mode) && unlink(file) == 0)
            removed++;
    }
    unlink(path);
    printf("removed %zu of the %zu files the manifest listed, and the manifest\n", removed,
           set.count);
    vp_fileset_free(&set);
    return 0;
}

int cmd_data(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(data_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? VP_EXIT_USAGE : 0;
    }
    struct data_flags flags = { 0 };
    const char *action = argv[1];
    if (strcmp(action, "prepare") != 0 && strcmp(action, "index") != 0 &&
        strcmp(action, "remove") != 0)
        vp_usage_error("data: unknown action '%s'; accepted: prepare, index, remove", action);
    parse_flags(argc, argv, &flags);
    if (strcmp(action, "prepare") == 0)
        return data_prepare(&flags);
    if (strcmp(action, "index") == 0)
        return data_index(&flags);
    if (flags.files_given || flags.size_given)
        vp_usage_error("data remove: takes --source only");
    return data_remove(&flags);
}
