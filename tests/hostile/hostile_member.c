/* A hostile member for the tests (tests/system/test_hostile.sh): booted in a container in
 * place of virtperf (VIRTPERF_MEMBER_BINARY), started as `virtperf guest-agent --socket
 * PATH` (or in a guest as `virtperf guest-agent`, on its virtio-serial port), it tries what a member that wants the host should not be able to do, and says
 * what it found in its verdict, which the host shows (made printable):
 * - it writes the run's engine configuration and a file beside its channel, lists the
 *   other members' channels it can see, plants a setuid file in /work, and calls itself
 *   another member (virtperf-1-1);
 * - it wraps its findings in escape sequences, a bell and a fake line of virtperf's.
 * Given a run whose label holds "hostile-lead" it agrees to the steps instead, answers
 * the clock rounds and then asks for a lead of INT64_MAX; with "hostile-clock" it
 * answers the clock rounds with INT64_MIN; with "hostile-huge" it answers with a verdict
 * of 20 MiB (what a verdict may hold is 64 KiB); with "hostile-region" the real agent
 * (this program links virtperf's) runs the steps behind a relay that passes every frame
 * both ways but writes 'A' over all 64 bytes of job 1's affinity in the region it sends
 * back (a string with no end inside its array); with "hostile-long" the relay sends a
 * region of 64 MiB instead (what a region may be is what the point lays out).
 * Before the run's words come (its hello), its mode is one the test appended to this
 * binary's file ("\nhostile-mode:NAME\n" as its last bytes; ELF runs the same): with
 * "huge-hello" it writes escape sequences, a bell and a fake line of virtperf's to its
 * console (stderr) and answers with a hello of 20 MiB (a hello may hold 1 MiB). */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "core/clock.h"
#include "core/topology.h"
#include "engine/shared.h"
#include "engine/window.h"
#include "env/channel.h"

#define FOREVER_NS (600 * 1000000000LL)

static int connect_socket(const char *path)
{
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether path could be made and written. */
static const char *try_write(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0)
        return strerror(errno);
    ssize_t n = write(fd, "#!/bin/sh\nid\n", 13);
    close(fd);
    return n == 13 ? "WRITTEN" : "short";
}

/* What this member could do to its host, as one line. */
static void probe_host(const char *own_socket, char *out, size_t len)
{
    int other_sockets = 0;
    DIR *dir = opendir("/run/virtperf");
    struct dirent *entry;
    while (dir && (entry = readdir(dir)))
        if (strstr(entry->d_name, ".sock") && !strstr(own_socket, entry->d_name))
            other_sockets++;
    if (dir)
        closedir(dir);
    const char *conf = try_write("/run/virtperf/containers.conf");
    const char *beside = try_write("/run/virtperf/planted");
    const char *suid = try_write("/work/vp-suid");
    bool setuid_kept = false;
    struct stat info;
    if (chmod("/work/vp-suid", 04755) == 0 && stat("/work/vp-suid", &info) == 0)
        setuid_kept = (info.st_mode & S_ISUID) != 0;
    struct statvfs work;
    bool nosuid = statvfs("/work", &work) == 0 && (work.f_flag & ST_NOSUID);
    snprintf(out, len, "hostile: containers.conf %s; beside the channel %s; other channels "
             "seen %d; /work/vp-suid %s, setuid %s, /work %s", conf, beside, other_sockets,
             suid, setuid_kept ? "kept" : "lost", nosuid ? "nosuid" : "suid-capable");
}

static int expect(int fd, uint32_t want, int64_t *value)
{
    char err[256];
    void *data;
    size_t len;
    if (vp_channel_expect(fd, want, &data, &len, 0, vp_now_ns() + FOREVER_NS, err, sizeof err) != 0)
        return -1;
    if (value && len == sizeof *value)
        memcpy(value, data, sizeof *value);
    free(data);
    return 0;
}

/* The follower's clock rounds, its own clock answered (or a lie), then its offset. */
static int clock_rounds(int fd, bool lie)
{
    char err[256];
    for (int round = 0; round < VP_CLOCK_ROUNDS; round++) {
        int64_t theirs, own = lie ? INT64_MIN : vp_now_ns();
        if (expect(fd, VP_CHANNEL_CLOCK, &theirs) != 0 ||
            vp_channel_send(fd, VP_CHANNEL_CLOCK, &own, sizeof own, err, sizeof err) != 0)
            return -1;
    }
    return expect(fd, VP_CHANNEL_OFFSET, NULL);
}

/* A frame of kind of 20 MiB (the channel's sender does not bound what it sends; the
 * receiver's header check does). */
static void send_huge(int fd, uint32_t kind)
{
    size_t huge = 20u << 20;
    char *bytes = malloc(huge), err[256];
    if (!bytes)
        return;
    memset(bytes, 'A', huge);
    vp_channel_send(fd, kind, bytes, huge, err, sizeof err);
    free(bytes);
}

/* Job 1's affinity in a region the engine of this machine wrote: the slot whose state is
 * FINISHED and whose affinity is this machine's, NUL-padded (the slot is 8-byte aligned),
 * overwritten with 'A'. Whether it was found. */
static bool spoil_affinity(unsigned char *region, size_t len)
{
    char own[64] = "";
    vp_affinity_text(own, sizeof own);
    size_t at = offsetof(struct vp_job_slot, affinity), text = strlen(own);
    for (size_t slot = 0; slot + sizeof(struct vp_job_slot) <= len; slot += 8) {
        struct vp_job_slot *job = (struct vp_job_slot *)(region + slot);
        unsigned char *field = region + slot + at;
        bool padded = true;
        for (size_t i = text; i < sizeof job->affinity; i++)
            padded = padded && field[i] == 0;
        if (padded && memcmp(field, own, text) == 0 && atomic_load(&job->state) == JOB_FINISHED) {
            memset(field, 'A', sizeof job->affinity);
            return true;
        }
    }
    return false;
}

/* The region a relay passes on: job 1's affinity without its end, or (lengthen) 64 MiB
 * that begin with it. */
static void spoil_region(void **data, size_t *len, bool lengthen)
{
    if (!lengthen) {
        if (!spoil_affinity(*data, *len))
            fprintf(stderr, "hostile: no affinity of this machine's in the region\n");
        return;
    }
    size_t longer = 64u << 20;
    unsigned char *bytes = realloc(*data, longer);
    if (!bytes)
        abort();
    memset(bytes + *len, 0, longer - *len);
    *data = bytes;
    *len = longer;
}

/* The real agent behind a relay: it runs the steps (given the host's first STEPS frame,
 * its own hello dropped, this member's said instead) and every frame passes both ways
 * but its region, spoiled (spoil_region). The agent's exit status. */
static int relay_with_spoiled_region(int host, const void *steps, size_t steps_len,
                                     bool lengthen)
{
    const char *path = "/work/hostile-relay.sock";
    unlink(path);
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(listener, 1) != 0)
        return 1;
    pid_t agent = fork();
    if (agent == 0) {
        char *args[] = { "guest-agent", "--socket", (char *)path, NULL };
        _exit(cmd_guest_agent(3, args));
    }
    int inner = accept(listener, NULL, NULL);
    close(listener);
    char err[256];
    uint32_t kind;
    void *data;
    size_t len;
    if (inner < 0 || expect(inner, VP_CHANNEL_HELLO, NULL) != 0 ||
        vp_channel_send(inner, VP_CHANNEL_STEPS, steps, steps_len, err, sizeof err) != 0)
        return 1;
    struct pollfd ends[2] = { { .fd = host, .events = POLLIN }, { .fd = inner, .events = POLLIN } };
    for (bool going = true; going && poll(ends, 2, -1) > 0;) {
        for (int from = 0; from < 2 && going; from++) {
            if (!(ends[from].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            going = vp_channel_receive(ends[from].fd, &kind, &data, &len,
                                       vp_now_ns() + FOREVER_NS, err, sizeof err) == 0;
            if (!going)
                break;
            if (from == 1 && kind == VP_CHANNEL_REGION)
                spoil_region(&data, &len, lengthen);
            going = vp_channel_send(ends[1 - from].fd, kind, data, len, err, sizeof err) == 0;
            free(data);
        }
    }
    close(inner);
    int status;
    waitpid(agent, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The mode a test appended to this binary's file, "" when none. */
static void appended_mode(char *mode, size_t len)
{
    char tail[64] = "";
    int fd = open("/proc/self/exe", O_RDONLY);
    off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    ssize_t n = end >= (off_t)sizeof tail - 1 ? pread(fd, tail, sizeof tail - 1,
                                                      end - (off_t)sizeof tail + 1) : 0;
    if (fd >= 0)
        close(fd);
    tail[n > 0 ? n : 0] = '\0';
    const char *marker = "\nhostile-mode:";
    const char *at = n > 0 ? memmem(tail, (size_t)n, marker, strlen(marker)) : NULL;
    snprintf(mode, len, "%s", at ? at + strlen(marker) : "");
    mode[strcspn(mode, "\n")] = '\0';
}

/* Escapes to its console, then a hello of 20 MiB. */
static int huge_hello(int fd)
{
    fprintf(stderr, "\033[2J\033]0;owned\007hostile console\nvirtperf: all results stored ok\n");
    tcdrain(STDERR_FILENO); /* on the host's side of the serial line before the hello */
    send_huge(fd, VP_CHANNEL_HELLO);
    pause();
    return 0;
}

int main(int argc, char **argv)
{
    bool in_guest = argc == 2;
    if ((argc != 4 && !in_guest) || strcmp(argv[1], "guest-agent") != 0 ||
        (!in_guest && strcmp(argv[2], "--socket") != 0))
        return 2;
    int fd = in_guest ? vp_channel_open_port() : connect_socket(argv[3]);
    if (fd < 0)
        return 1;
    char mode[32];
    appended_mode(mode, sizeof mode);
    if (strcmp(mode, "huge-hello") == 0)
        return huge_hello(fd);
    char findings[512], err[256];
    probe_host(in_guest ? "" : argv[3], findings, sizeof findings);
    const char *hello = "{\"hostname\":\"virtperf-1-1\"}";
    if (vp_channel_send(fd, VP_CHANNEL_HELLO, hello, strlen(hello), err, sizeof err) != 0)
        return 1;
    uint32_t kind;
    void *data;
    size_t len;
    if (vp_channel_receive(fd, &kind, &data, &len, vp_now_ns() + FOREVER_NS, err, sizeof err) != 0)
        return 1;
    bool lead = strstr(data, "hostile-lead") != NULL, clock = strstr(data, "hostile-clock");
    if (strstr(data, "hostile-region") || strstr(data, "hostile-long")) {
        int status = relay_with_spoiled_region(fd, data, len, strstr(data, "hostile-long"));
        free(data);
        return status;
    }
    if (strstr(data, "hostile-huge")) {
        free(data);
        send_huge(fd, VP_CHANNEL_VERDICT);
        return 0;
    }
    free(data);
    if (!lead && !clock) {
        char verdict[1024];
        snprintf(verdict, sizeof verdict, "\033[2J\033]0;owned\007%s\n"
                 "virtperf: all results stored ok", findings);
        vp_channel_send(fd, VP_CHANNEL_VERDICT, verdict, strlen(verdict), err, sizeof err);
        expect(fd, VP_CHANNEL_QUIT, NULL);
        return 0;
    }
    if (vp_channel_send(fd, VP_CHANNEL_VERDICT, "", 0, err, sizeof err) != 0 ||
        expect(fd, VP_CHANNEL_STEPS, NULL) != 0 || clock_rounds(fd, clock) != 0)
        return 1;
    int64_t words[2 + VP_WINDOW_WORDS] = { 0, INT64_MAX };
    vp_window_empty(words + 2);
    vp_channel_send(fd, VP_CHANNEL_READY, words, sizeof words, err, sizeof err);
    while (vp_channel_receive(fd, &kind, &data, &len, vp_now_ns() + FOREVER_NS, err,
                              sizeof err) == 0 && kind != VP_CHANNEL_QUIT)
        free(data);
    return 0;
}
