/* Frames on the host's and the guests' channel (see channel.h). */
#include "env/channel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/limits.h"
#include "engine/engine.h"
#include "env/domain.h"

static const char *const kind_names[VP_CHANNEL_KIND_COUNT] = {
    [VP_CHANNEL_HELLO] = "hello", [VP_CHANNEL_STEPS] = "steps", [VP_CHANNEL_VERDICT] = "verdict",
    [VP_CHANNEL_CLOCK] = "clock", [VP_CHANNEL_OFFSET] = "offset", [VP_CHANNEL_READY] = "ready",
    [VP_CHANNEL_BYTES] = "bytes", [VP_CHANNEL_START] = "start",
    [VP_CHANNEL_RESULT] = "result", [VP_CHANNEL_REGION] = "region", [VP_CHANNEL_QUIT] = "quit",
    [VP_CHANNEL_SERVING] = "serving",
};

/* The most each kind of frame may hold: what the protocol needs, so a member cannot make
 * this host hold (or jansson parse) more. A region is raw bytes, checked field by field
 * (engine/shared_check.h): its bound is the largest region a point lays out. */
static const uint32_t most_of[VP_CHANNEL_KIND_COUNT] = {
    [VP_CHANNEL_HELLO] = VP_FINGERPRINT_MOST, [VP_CHANNEL_STEPS] = 16u << 20,
    [VP_CHANNEL_VERDICT] = 64u << 10, [VP_CHANNEL_CLOCK] = 8, [VP_CHANNEL_OFFSET] = 8,
    [VP_CHANNEL_READY] = 64, [VP_CHANNEL_BYTES] = 64, [VP_CHANNEL_START] = 8,
    [VP_CHANNEL_RESULT] = VP_RESULT_MOST, [VP_CHANNEL_REGION] = VP_CHANNEL_MAX,
    [VP_CHANNEL_QUIT] = 0, [VP_CHANNEL_SERVING] = 4u << 10,
};

uint32_t vp_channel_most(uint32_t kind)
{
    return kind > 0 && kind < VP_CHANNEL_KIND_COUNT ? most_of[kind] : 0;
}

/* The virtio-serial port this process opened (a guest's agent), -1: none. */
static int virtio_port = -1;

int vp_channel_open_port(void)
{
    DIR *ports = opendir("/sys/class/virtio-ports");
    struct dirent *entry;
    int fd = -1;
    while (ports && fd < 0 && (entry = readdir(ports))) {
        char path[512], name[128] = "";
        snprintf(path, sizeof path, "/sys/class/virtio-ports/%s/name", entry->d_name);
        FILE *file = fopen(path, "r");
        if (!file)
            continue;
        if (fgets(name, sizeof name, file))
            name[strcspn(name, "\n")] = '\0';
        fclose(file);
        snprintf(path, sizeof path, "/dev/%s", entry->d_name);
        if (strcmp(name, VP_GUEST_CHANNEL) == 0)
            fd = open(path, O_RDWR | O_CLOEXEC);
    }
    if (ports)
        closedir(ports);
    virtio_port = fd;
    return fd;
}

int vp_channel_connect(const char *path)
{
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(address.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int why = errno;
        close(fd);
        errno = why;
        fd = -1;
    }
    return fd;
}

static uint32_t get32(const unsigned char *at)
{
    return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

static void put32(unsigned char *at, uint32_t value)
{
    for (int i = 0; i < 4; i++)
        at[i] = (unsigned char)(value >> (8 * i));
}

int vp_channel_header_parse(const unsigned char *header, uint32_t *kind, uint32_t *len,
                          char *err, size_t err_len)
{
    *kind = get32(header);
    *len = get32(header + 4);
    if (*kind == 0 || *kind >= VP_CHANNEL_KIND_COUNT) {
        snprintf(err, err_len, "a frame of kind %u: accepted: 1 to %d", *kind,
                 VP_CHANNEL_KIND_COUNT - 1);
        return -1;
    }
    if (*len > most_of[*kind]) {
        snprintf(err, err_len, "a %s frame of %u bytes: accepted: at most %u", kind_names[*kind],
                 *len, most_of[*kind]);
        return -1;
    }
    return 0;
}

/* Moves past n bytes done by read or write; -1 with why when there were none. */
static int advance(ssize_t n, const unsigned char **at, size_t *len, char *err, size_t err_len)
{
    if (n <= 0) {
        snprintf(err, err_len, "the channel: %s", n < 0 ? strerror(errno) : "closed");
        return -1;
    }
    *at += n;
    *len -= (size_t)n;
    return 0;
}

static int write_all(int fd, const void *data, size_t len, char *err, size_t err_len)
{
    const unsigned char *at = data;
    while (len > 0) {
        ssize_t n = send(fd, at, len, MSG_NOSIGNAL); /* a guest gone is an error, not SIGPIPE */
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, at, len);
        if (n < 0 && errno == EINTR && !vp_engine_interrupted())
            continue;
        if (advance(n, &at, &len, err, err_len) != 0)
            return -1;
    }
    return 0;
}

int vp_channel_send(int fd, uint32_t kind, const void *data, size_t len, char *err,
                  size_t err_len)
{
    unsigned char header[VP_CHANNEL_HEADER];
    put32(header, kind);
    put32(header + 4, (uint32_t)len);
    if (write_all(fd, header, sizeof header, err, err_len) != 0)
        return -1;
    return len ? write_all(fd, data, len, err, err_len) : 0;
}

/* Whether fd is the guest's virtio-serial port (vp_channel_open_port), which reads nothing
 * while its host end is away (the guest migrating between two QEMUs: the new one's end
 * opens once the host connects to it) and poll says so at once: the member waits for it,
 * till its deadline, rather than take it for the host gone. Any other channel's end of
 * file is the end (a socket's; a UML instance's serial line, whose host hung up). */
static bool host_away(int fd)
{
    return fd >= 0 && fd == virtio_port;
}

/* Reads len bytes before deadline_ns. */
static int read_all(int fd, void *data, size_t len, int64_t deadline_ns, char *err,
                    size_t err_len)
{
    const unsigned char *at = data;
    while (len > 0) {
        if (vp_engine_interrupted()) {
            snprintf(err, err_len, "interrupted by a signal");
            return -1;
        }
        int64_t left_ms = (deadline_ns - vp_now_ns()) / 1000000;
        if (left_ms < 0) {
            snprintf(err, err_len, "no answer in time");
            return -1;
        }
        struct pollfd ready = { .fd = fd, .events = POLLIN };
        int polled = poll(&ready, 1, left_ms > 200 ? 200 : (int)left_ms + 1);
        if (polled < 0 && errno != EINTR) {
            snprintf(err, err_len, "the channel: %s", strerror(errno));
            return -1;
        }
        if (polled <= 0)
            continue;
        ssize_t n = read(fd, (unsigned char *)at, len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n == 0 && host_away(fd)) {
            usleep(20000);
            continue;
        }
        if (advance(n, &at, &len, err, err_len) != 0)
            return -1;
    }
    return 0;
}

/* One frame whose header says kind want (0: any) and a length from least to most,
 * checked before its payload is read or anything allocated for it. */
static int receive_within(int fd, uint32_t want, size_t least, size_t most, uint32_t *kind,
                          void **data, size_t *len, int64_t deadline_ns, char *err,
                          size_t err_len)
{
    unsigned char header[VP_CHANNEL_HEADER];
    uint32_t payload;
    if (read_all(fd, header, sizeof header, deadline_ns, err, err_len) != 0 ||
        vp_channel_header_parse(header, kind, &payload, err, err_len) != 0)
        return -1;
    if (want && *kind != want) {
        snprintf(err, err_len, "a %s frame of %u bytes where a %s frame was due",
                 kind_names[*kind], payload, kind_names[want]);
        return -1;
    }
    if (payload < least || payload > most) {
        if (least == most)
            snprintf(err, err_len, "a %s frame of %u bytes: accepted: %zu bytes",
                     kind_names[*kind], payload, least);
        else
            snprintf(err, err_len, "a %s frame of %u bytes: accepted: at most %zu",
                     kind_names[*kind], payload, most);
        return -1;
    }
    char *buffer = malloc((size_t)payload + 1);
    if (!buffer)
        abort();
    if (read_all(fd, buffer, payload, deadline_ns, err, err_len) != 0) {
        free(buffer);
        return -1;
    }
    buffer[payload] = '\0';
    *data = buffer;
    *len = payload;
    return 0;
}

int vp_channel_receive(int fd, uint32_t *kind, void **data, size_t *len, int64_t deadline_ns,
                     char *err, size_t err_len)
{
    return receive_within(fd, 0, 0, VP_CHANNEL_MAX, kind, data, len, deadline_ns, err, err_len);
}

int vp_channel_expect(int fd, uint32_t want, void **data, size_t *len, size_t want_len,
                    int64_t deadline_ns, char *err, size_t err_len)
{
    uint32_t kind;
    return receive_within(fd, want, want_len, want_len ? want_len : VP_CHANNEL_MAX, &kind, data,
                          len, deadline_ns, err, err_len);
}

int vp_channel_expect_within(int fd, uint32_t want, size_t most, void **data, size_t *len,
                             int64_t deadline_ns, char *err, size_t err_len)
{
    uint32_t kind;
    return receive_within(fd, want, 0, most, &kind, data, len, deadline_ns, err, err_len);
}
