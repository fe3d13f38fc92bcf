/* --guest-mount's words (guest_mount.h). */
#include "core/guest_mount.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ACCEPTED "accepted: nfs://SERVER/EXPORT[?version=4]:DIR, DIR an absolute path"

/* Letters, digits and . _ - + / only: what a path may hold here (the kernel's command
 * line and the guest's shell take it as is). */
static bool plain_path(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-' || c == '+' || c == '/';
        if (!ok)
            return false;
    }
    return len > 0;
}

/* A host name or IPv4 address: letters, digits, '.', '-'. */
static bool plain_host(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-'))
            return false;
    }
    return len > 0 && len < 254;
}

static bool under(const char *dir, const char *top)
{
    size_t len = strlen(top);
    return strncmp(dir, top, len) == 0 && (dir[len] == '\0' || dir[len] == '/');
}

int vp_guest_mount_parse(const char *spec, struct vp_guest_mount *mount, char *err,
                         size_t err_len)
{
    static const char scheme[] = "nfs://";
    bool nfs = strncmp(spec, scheme, strlen(scheme)) == 0;
    const char *dir = nfs ? strstr(spec + strlen(scheme), ":/") : NULL;
    if (!dir) {
        snprintf(err, err_len, "--guest-mount: '%.200s' is not valid; " ACCEPTED, spec);
        return -1;
    }
    const char *host = spec + strlen(scheme), *export_path = strchr(host, '/');
    const char *query = strchr(host, '?');
    const char *url_end = query && query < dir ? query : dir;
    int version = 3;
    if (query && query < dir) {
        if ((size_t)(dir - query) == strlen("?version=4") &&
            strncmp(query, "?version=4", (size_t)(dir - query)) == 0)
            version = 4;
        else if (!((size_t)(dir - query) == strlen("?version=3") &&
                   strncmp(query, "?version=3", (size_t)(dir - query)) == 0)) {
            snprintf(err, err_len, "--guest-mount: '%.*s' is not valid; accepted: ?version=3 "
                     "or ?version=4 after the export", (int)(dir - query), query);
            return -1;
        }
    }
    dir += 1; /* past ':' */
    if (!export_path || export_path > url_end ||
        !plain_host(host, (size_t)(export_path - host)) ||
        !plain_path(export_path, (size_t)(url_end - export_path)) ||
        !plain_path(dir, strlen(dir))) {
        snprintf(err, err_len, "--guest-mount: '%.200s' is not valid (a name of letters, digits "
                 "and . _ - + / only); " ACCEPTED, spec);
        return -1;
    }
    if (strcmp(dir, "/") == 0 || under(dir, "/proc") || under(dir, "/sys") || under(dir, "/dev") ||
        under(dir, "/bin") || strlen(dir) >= sizeof mount->dir ||
        (size_t)(url_end - host) >= sizeof mount->source) {
        snprintf(err, err_len, "--guest-mount: %.200s cannot be mounted over (it is /, too long, "
                 "or the guest's own /proc, /sys, /dev or /bin); " ACCEPTED, dir);
        return -1;
    }
    snprintf(mount->source, sizeof mount->source, "%.*s:%.*s", (int)(export_path - host), host,
             (int)(url_end - export_path), export_path);
    snprintf(mount->dir, sizeof mount->dir, "%s", dir);
    /* no rpcbind or lock daemon in a guest: v3 names its ports' protocol and locks
     * locally; v4 needs neither */
    mount->type = version == 4 ? "nfs4" : "nfs";
    mount->options = version == 4 ? "" : "vers=3,nolock,proto=tcp,mountproto=tcp";
    return 0;
}

static char published[1024]; /* the run's spec, "" before guests with one are prepared */

void vp_guest_mount_publish(const char *spec)
{
    snprintf(published, sizeof published, "%s", spec);
}

int vp_guest_mount_url_of(const char *path, char *url, size_t len)
{
    struct vp_guest_mount mount;
    char ignored[256];
    if (!published[0] || vp_guest_mount_parse(published, &mount, ignored, sizeof ignored) != 0 ||
        !under(path, mount.dir))
        return -1;
    size_t server_len = strcspn(mount.source, ":");
    snprintf(url, len, "nfs://%.*s%s%s%s", (int)server_len, mount.source,
             mount.source + server_len + 1, path + strlen(mount.dir),
             strcmp(mount.type, "nfs4") == 0 ? "?version=4" : "");
    return 0;
}

void vp_guest_mount_word(const struct vp_guest_mount *mount, char *out, size_t len)
{
    snprintf(out, len, "virtperf.mount=%s;%s;%s;%s", mount->type, mount->source, mount->dir,
             mount->options);
}
