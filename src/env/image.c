/* The guests' kernel and cached initramfs (see image.h). */
#define _GNU_SOURCE /* strverscmp, nftw's FTW_ACTIONRETVAL */
#include "env/image.h"

#include "core/program.h"
#include "core/scratch.h"
#include "core/sha256.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The helpers' directory: the source tree's scripts when this binary was built there and
 * they are still there, else where `meson install` put them. */
static const char *helper_dir(void)
{
    static const char *const candidates[] = { VP_SOURCE_SCRIPTS, VP_INSTALLED_HELPERS };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/guest_agent_image.sh", candidates[i]);
        if (access(path, R_OK) == 0)
            return candidates[i];
    }
    return NULL;
}

/* The newest of Debian's cloud kernels, or (generic) of its generic ones, into path. */
static int newest_kernel(bool generic, char *path, size_t len)
{
    glob_t found;
    if (glob(generic ? "/boot/vmlinuz-*-amd64" : "/boot/vmlinuz-*-cloud-amd64", 0, NULL,
             &found) != 0)
        return -1;
    const char *newest = NULL;
    for (size_t i = 0; i < found.gl_pathc; i++) {
        const char *name = found.gl_pathv[i];
        if (generic && (strstr(name, "-cloud-") || strstr(name, "-rt-")))
            continue;
        if (!newest || strverscmp(name, newest) > 0)
            newest = name;
    }
    if (newest)
        snprintf(path, len, "%s", newest);
    globfree(&found);
    return newest ? 0 : -1;
}

static int hash_file(struct vp_sha256 *context, const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return -1;
    char buffer[1 << 16];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, file)) > 0)
        vp_sha256_add(context, buffer, n);
    fclose(file);
    return 0;
}

/* What a carried file or directory entry adds to the key: its path, and its size, time
 * and mode (what it leads to, for a link), so that an upgraded program makes a new image
 * without every byte being read at each run. */
static struct vp_sha256 *walked_context;

static int hash_entry(const char *path, const struct stat *info, int type, struct FTW *where)
{
    (void)type, (void)where;
    struct stat followed;
    if (stat(path, &followed) == 0)
        info = &followed;
    vp_sha256_add(walked_context, path, strlen(path) + 1);
    long long meta[4] = { (long long)info->st_size, (long long)info->st_mtim.tv_sec,
                          (long long)info->st_mtim.tv_nsec, (long long)info->st_mode };
    vp_sha256_add(walked_context, meta, sizeof meta);
    return 0;
}

/* The hex SHA-256 of what the image is made from. */
static int content_key(const char *binary, const char *helpers, const char *kernel,
                       const struct vp_path_set *files, char *key)
{
    struct vp_sha256 *context = vp_sha256_new();
    char helper[512], library[512];
    snprintf(helper, sizeof helper, "%s/guest_agent_image.sh", helpers);
    snprintf(library, sizeof library, "%s/guest_image.sh", helpers);
    int status = hash_file(context, binary) | hash_file(context, helper) |
                 hash_file(context, library);
    vp_sha256_add(context, kernel, strlen(kernel));
    walked_context = context;
    for (size_t i = 0; files && i < files->count; i++)
        if (nftw(files->paths[i], hash_entry, 16, FTW_PHYS) != 0)
            status = -1;
    vp_sha256_hex(context, key);
    vp_sha256_free(context);
    return status;
}

/* Runs the helper: binary packed into out (as_root: a directory) with the files listed in
 * list (NULL: none); -1 with its exit status. */
static int run_helper(const char *helpers, const char *binary, const char *kernel,
                      const char *out, bool as_root, const char *list, char *err, size_t err_len)
{
    char helper[512];
    snprintf(helper, sizeof helper, "%s/guest_agent_image.sh", helpers);
    char *argv[10] = { "bash", helper, (char *)binary, (char *)out, "--kernel", (char *)kernel };
    int argc = 6;
    if (as_root)
        argv[argc++] = "--root";
    if (list) {
        argv[argc++] = "--files";
        argv[argc++] = (char *)list;
    }
    argv[argc] = NULL;
    if (vp_run_program(argv, false, NULL, 0) != 0) {
        snprintf(err, err_len, "--guests: %s could not make the guests' initramfs (its "
                 "messages are above); it needs busybox-static, cpio, kmod and the kernel's "
                 "modules (%s): scripts/deps.sh guests", helper, kernel);
        return -1;
    }
    return 0;
}

/* The files' paths, one a line, into path; -1 when it cannot be written. */
static int write_list(const char *path, const struct vp_path_set *files)
{
    FILE *list = fopen(path, "wx");
    if (!list)
        return -1;
    for (size_t i = 0; i < files->count; i++)
        fprintf(list, "%s\n", files->paths[i]);
    return fclose(list);
}

/* The image (as_root: its root directory), found in the cache or made. */
static int find(struct vp_guest_image *image, bool as_root, bool generic,
                const struct vp_path_set *files, char *err, size_t err_len)
{
    if (newest_kernel(generic, image->kernel, sizeof image->kernel) != 0) {
        snprintf(err, err_len, generic
                 ? "--guests: an emulated device (--guest-nic, --guest-disk-bus sata) needs "
                   "Debian's generic kernel, which drives it: no /boot/vmlinuz-*-amd64 but the "
                   "cloud one; install linux-image-amd64 (scripts/deps.sh guests)"
                 : "--guests: no /boot/vmlinuz-*-cloud-amd64, the guests' kernel; install "
                   "linux-image-cloud-amd64 (scripts/deps.sh guests)");
        return -1;
    }
    const char *helpers = helper_dir();
    if (!helpers) {
        snprintf(err, err_len, "--guests: guest_agent_image.sh, the helper that makes the "
                 "guests' initramfs, is in neither %s nor %s", VP_SOURCE_SCRIPTS,
                 VP_INSTALLED_HELPERS);
        return -1;
    }
    char binary[512];
    /* VIRTPERF_MEMBER_BINARY: what the members run in place of this virtperf (the tests'
     * hostile member); the image's key is its content, so it is cached apart */
    const char *member_binary = getenv("VIRTPERF_MEMBER_BINARY");
    if (member_binary && *member_binary) {
        snprintf(binary, sizeof binary, "%s", member_binary);
    } else {
        ssize_t n = readlink("/proc/self/exe", binary, sizeof binary - 1);
        binary[n > 0 ? n : 0] = '\0';
        size_t len = strlen(binary), suffix = strlen("/virtperf-mpi");
        if (len > suffix && strcmp(binary + len - suffix, "/virtperf-mpi") == 0)
            binary[len - 4] = '\0'; /* a hypervisor rank's members run virtperf beside it,
                                     * which needs no MPI */
    }
    if (!binary[0] || access(binary, X_OK) != 0) {
        snprintf(err, err_len, "--guests: cannot find the members' virtperf binary %s: %s",
                 binary, strerror(errno));
        return -1;
    }
    const char *cache = getenv("VIRTPERF_CACHE");
    cache = cache && *cache ? cache : "/var/cache/virtperf";
    if (mkdir(cache, 0755) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "--guests: cannot make the image cache %s: %s", cache,
                 strerror(errno));
        return -1;
    }
    char key[65];
    if (content_key(binary, helpers, image->kernel, files, key) != 0) {
        snprintf(err, err_len, "--guests: cannot read %s, its helpers or the files the guests "
                 "need", binary);
        return -1;
    }
    snprintf(image->initrd, sizeof image->initrd, as_root ? "%s/root-%.16s" : "%s/guest-%.16s.img",
             cache, key);
    image->cached = access(image->initrd, R_OK) == 0;
    if (image->cached)
        return 0;
    char partial[600];
    snprintf(partial, sizeof partial, "%s.%ld.part", image->initrd, (long)getpid());
    char list[640];
    snprintf(list, sizeof list, "%s.files", partial);
    bool listed = files && files->count > 0;
    if (listed && write_list(list, files) != 0) {
        snprintf(err, err_len, "--guests: cannot write %s: %s", list, strerror(errno));
        unlink(list);
        return -1;
    }
    int made = run_helper(helpers, binary, image->kernel, partial, as_root, listed ? list : NULL,
                          err, err_len);
    if (listed)
        unlink(list);
    if (made != 0) {
        unlink(partial);
        return -1;
    }
    chmod(partial, as_root ? 0755 : 0644);
    if (rename(partial, image->initrd) != 0) {
        int why = errno;
        vp_scratch_remove(partial); /* a file, or a root's tree */
        if (why == ENOTEMPTY || why == EEXIST)
            return 0; /* another virtperf kept the same content first (ranks of one host) */
        snprintf(err, err_len, "--guests: cannot keep the image as %s: %s", image->initrd,
                 strerror(why));
        return -1;
    }
    return 0;
}

int vp_guest_image_find(struct vp_guest_image *image, bool generic,
                        const struct vp_path_set *files, char *err, size_t err_len)
{
    return find(image, false, generic, files, err, err_len);
}

int vp_guest_root_find(struct vp_guest_image *image, const struct vp_path_set *files,
                       char *err, size_t err_len)
{
    return find(image, true, false, files, err, err_len);
}
