/* `virtperf run BENCH... --guests SPEC`: the executor's runner for guests virtperf starts
 * itself. Before anything is stored, the most guests SPEC asks for are booted as
 * transient libvirt domains (guest/domain.h) from the cached image (guest/image.h), each
 * says hello over its channel with its fingerprint and checks the run's steps; one
 * refusal stops the run (exit 2) and every guest is gone. Then, for each count k of SPEC
 * and each point, the first k guests run it (the others paused), started together
 * (guest/together.c); their results and jobs' regions come back and are combined into
 * one result of the shape virtperf-mpi stores (engine/combine.c: each guest under
 * ranks.hosts, the start skew across guests with its bound), with the host's own
 * monitor as the result's monitor (the hypervisor seen from outside, as the SPring-8
 * study drew it) and each guest's QEMU CPU (vCPU threads and the rest) under
 * "guests". Every domain, socket, console file and disk image the run made is removed
 * when it ends, fails or is interrupted. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/common.h"
#include "cmd/executor.h"
#include "cmd/guests.h"
#include "core/clock.h"
#include "core/monitor.h"
#include "core/units.h"
#include "engine/combine.h"
#include "engine/result.h"
#include "guest/channel.h"
#include "guest/domain.h"
#include "guest/image.h"
#include "guest/qemu_cpu.h"
#include "guest/together.h"

extern char **environ;

#define KVM_PROBE_TIMEOUT_S 30
#define DEFAULT_CPUS 1
#define DEFAULT_MEMORY_MIB 512
#define DEFAULT_TIMEOUT_S 300
#define DEFAULT_DISK_BYTES (1ull << 30)

struct guest {
    char name[VP_GUEST_NAME_LEN];
    char channel[VP_GUEST_PATH_LEN], console[VP_GUEST_PATH_LEN], disk[VP_GUEST_PATH_LEN];
    char address[64];
    struct vp_domain *domain;
    int fd;
    json_t *fingerprint; /* its hello, with the domain libvirt ran */
    pid_t qemu;
    bool paused;
    struct vp_qemu_cpu before;
};

struct guests_run {
    int argc;
    char **argv;                /* the command's words, sent to every guest */
    struct vp_guest_config config;
    struct vp_guest_image image;
    unsigned counts[VP_GUESTS_MAX];
    size_t count_n;
    unsigned most;
    struct guest guests[VP_GUESTS_MAX];
    size_t started;
    char work[256];
    bool kvm;
    char accel_note[256];       /* why kvm was not used where auto would have */
    char gateway[64];           /* the host's address on --guest-net's bridge */
    double monitor_hz;
    char *const *watch;
    size_t watch_count;
    struct vp_monitor *monitor; /* the host's, while a point is measured */
};

/* ---- making and removing the guests ---- */

static void remove_guest(struct guest *guest)
{
    if (guest->fd >= 0) {
        char ignored[64];
        vp_frame_send(guest->fd, VP_FRAME_QUIT, NULL, 0, ignored, sizeof ignored);
        close(guest->fd);
    }
    vp_domain_destroy(guest->domain);
    guest->domain = NULL;
    guest->fd = -1;
    unlink(guest->channel);
    unlink(guest->console);
    if (guest->disk[0])
        unlink(guest->disk);
    guest->disk[0] = '\0';
    json_decref(guest->fingerprint);
    guest->fingerprint = NULL;
}

static void remove_guests(struct guests_run *run)
{
    for (size_t g = 0; g < run->started; g++)
        remove_guest(&run->guests[g]);
    run->started = 0;
}

static void remove_all(struct guests_run *run)
{
    remove_guests(run);
    if (run->work[0])
        rmdir(run->work);
    run->work[0] = '\0';
    vp_domains_disconnect();
}

/* The bridge's IPv4 address and prefix; guest g gets the g-th address after it. */
static int bridge_addresses(struct guests_run *run, char *err, size_t err_len)
{
    const char *bridge = run->config.bridge;
    char path[300];
    snprintf(path, sizeof path, "/sys/class/net/%s/bridge", bridge);
    if (strchr(bridge, '/') || access(path, F_OK) != 0) {
        snprintf(err, err_len, "--guest-net: '%s' is not a bridge on this host; accepted: an "
                 "existing bridge with an IPv4 address (ip link add NAME type bridge)", bridge);
        return -1;
    }
    struct ifaddrs *all, *entry;
    uint32_t host = 0, mask = 0;
    if (getifaddrs(&all) != 0)
        return -1;
    for (entry = all; entry; entry = entry->ifa_next)
        if (entry->ifa_addr && entry->ifa_addr->sa_family == AF_INET &&
            strcmp(entry->ifa_name, bridge) == 0 && host == 0) {
            host = ntohl(((struct sockaddr_in *)entry->ifa_addr)->sin_addr.s_addr);
            mask = ntohl(((struct sockaddr_in *)entry->ifa_netmask)->sin_addr.s_addr);
        }
    freeifaddrs(all);
    int prefix = __builtin_popcount(mask);
    if (host == 0 || (uint64_t)(~mask) < run->most + 2u) {
        snprintf(err, err_len, "--guest-net: bridge '%s' has %s; accepted: a bridge with an "
                 "IPv4 address whose subnet holds %u more", bridge,
                 host ? "too small a subnet" : "no IPv4 address", run->most);
        return -1;
    }
    struct in_addr own = { htonl(host) };
    inet_ntop(AF_INET, &own, run->gateway, sizeof run->gateway);
    uint32_t next = host;
    for (unsigned g = 0; g < run->most; g++) {
        do
            next = (next & mask) | ((next + 1) & ~mask);
        while ((next & ~mask) == 0 || (next & ~mask) == ~mask || next == host);
        struct in_addr address = { htonl(next) };
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &address, text, sizeof text);
        snprintf(run->guests[g].address, sizeof run->guests[g].address, "%s/%d", text, prefix);
    }
    return 0;
}

/* An ext4 image of the configured size at guest->disk; -1 with why. */
static int make_disk(const struct guests_run *run, struct guest *guest, char *err, size_t err_len)
{
    char path[VP_GUEST_PATH_LEN];
    snprintf(path, sizeof path, "%s/%s.img", run->config.disk_dir, guest->name);
    memcpy(guest->disk, path, sizeof path);
    int fd = open(guest->disk, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)run->config.disk_bytes) != 0) {
        snprintf(err, err_len, "--guest-disk: cannot make %s: %s", guest->disk, strerror(errno));
        if (fd >= 0)
            close(fd);
        guest->disk[0] = fd >= 0 ? guest->disk[0] : '\0';
        return -1;
    }
    close(fd);
    char *argv[] = { "mkfs.ext4", "-q", "-F", guest->disk, NULL };
    pid_t pid;
    int status = 0;
    if (posix_spawnp(&pid, "mkfs.ext4", NULL, NULL, argv, environ) != 0 ||
        waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, err_len, "--guest-disk: mkfs.ext4 failed on %s (is e2fsprogs installed, "
                 "is %s full?)", guest->disk, run->config.disk_dir);
        return -1;
    }
    return 0;
}

static int check_disk_room(const struct guests_run *run, char *err, size_t err_len)
{
    struct statvfs room;
    if (statvfs(run->config.disk_dir, &room) != 0) {
        snprintf(err, err_len, "--guest-disk: '%s': %s; accepted: a writable directory",
                 run->config.disk_dir, strerror(errno));
        return -1;
    }
    uint64_t free_bytes = (uint64_t)room.f_bavail * room.f_frsize;
    uint64_t needed = run->config.disk_bytes * run->most;
    if (free_bytes < needed) {
        snprintf(err, err_len, "--guest-disk: %s has %.1f GiB free, and %u guests' disks need "
                 "%.1f GiB; accepted: a smaller --guest-disk-size, or fewer guests",
                 run->config.disk_dir, (double)free_bytes / (1 << 30), run->most,
                 (double)needed / (1 << 30));
        return -1;
    }
    return 0;
}

/* Connects to the guest's channel socket once QEMU has made it, before deadline. */
static int connect_channel(struct guest *guest, int64_t deadline_ns, char *err, size_t err_len)
{
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(guest->channel) >= sizeof address.sun_path)
        return -1;
    memcpy(address.sun_path, guest->channel, strlen(guest->channel) + 1);
    while (vp_now_ns() < deadline_ns && !vp_engine_interrupted()) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) == 0) {
            guest->fd = fd;
            return 0;
        }
        if (fd >= 0)
            close(fd);
        if (!vp_domain_running(guest->domain))
            break;
        usleep(50000);
    }
    snprintf(err, err_len, "%s: its channel never opened%s", guest->name,
             vp_engine_interrupted() ? " (interrupted)" : "");
    return -1;
}

/* Starts guest g (its domain), under kvm or not. */
static int start_guest(struct guests_run *run, size_t g, bool kvm, char *err, size_t err_len)
{
    struct guest *guest = &run->guests[g];
    char name[VP_GUEST_NAME_LEN], path[VP_GUEST_PATH_LEN];
    snprintf(name, sizeof name, "virtperf-%ld-%zu", (long)getpid(), g + 1);
    memcpy(guest->name, name, sizeof name);
    snprintf(path, sizeof path, "%.200s/%.60s.sock", run->work, name);
    memcpy(guest->channel, path, sizeof path);
    snprintf(path, sizeof path, "%.200s/%.60s.console", run->work, name);
    memcpy(guest->console, path, sizeof path);
    guest->fd = -1;
    if (run->config.disk_dir && !guest->disk[0] && make_disk(run, guest, err, err_len) != 0)
        return -1;
    struct vp_guest_spec spec = {
        .name = guest->name, .kvm = kvm, .channel_path = guest->channel,
        .console_path = guest->console, .disk_path = guest->disk[0] ? guest->disk : NULL,
        .address = guest->address[0] ? guest->address : NULL,
        .gateway = run->gateway[0] ? run->gateway : NULL,
    };
    char *xml = vp_domain_xml(&run->config, &spec);
    guest->domain = vp_domain_start(xml, err, err_len);
    free(xml);
    if (!guest->domain)
        return -1;
    guest->qemu = vp_domain_pid(guest->domain);
    return 0;
}

/* The last lines of a guest's serial console, to stderr: why it did not answer. */
static void print_console_tail(const struct guest *guest)
{
    FILE *console = fopen(guest->console, "r");
    if (!console)
        return;
    char lines[5][200];
    size_t count = 0;
    while (fgets(lines[count % 5], sizeof lines[0], console))
        count++;
    fclose(console);
    fprintf(stderr, "virtperf: %s's console ended with:\n", guest->name);
    for (size_t i = count > 5 ? count - 5 : 0; i < count; i++)
        fprintf(stderr, "  %s", lines[i % 5]);
}

/* Waits for guest's hello; keeps its fingerprint with the domain libvirt runs. */
static int hear_hello(struct guests_run *run, struct guest *guest, unsigned timeout_s, char *err,
                      size_t err_len)
{
    int64_t deadline = vp_now_ns() + (int64_t)timeout_s * 1000000000LL;
    char why[256];
    void *data;
    size_t len;
    if (connect_channel(guest, deadline, err, err_len) != 0)
        return -1;
    if (vp_frame_expect(guest->fd, VP_FRAME_HELLO, &data, &len, 0, deadline, why,
                        sizeof why) != 0) {
        snprintf(err, err_len, "%s did not boot and answer within %u s (%s%s)", guest->name,
                 timeout_s, why, vp_domain_running(guest->domain) ? "" : ", the domain stopped");
        print_console_tail(guest);
        return -1;
    }
    guest->fingerprint = json_loads(data, 0, NULL);
    free(data);
    if (!json_is_object(guest->fingerprint)) {
        json_decref(guest->fingerprint);
        guest->fingerprint = json_object();
    }
    char *xml = vp_domain_running_xml(guest->domain);
    json_object_set_new(guest->fingerprint, "domain",
                        json_pack("{s:s,s:s,s:s}", "name", guest->name, "type",
                                  run->kvm ? "kvm" : "tcg", "xml", xml ? xml : ""));
    free(xml);
    (void)run;
    return 0;
}

/* auto: the first guest under kvm; one that does not answer is destroyed and every guest
 * runs under TCG, the reason kept. */
static int choose_accel(struct guests_run *run, char *err, size_t err_len)
{
    bool kvm_here = access("/dev/kvm", R_OK | W_OK) == 0 && vp_domains_offer_kvm();
    if (run->config.accel == VP_ACCEL_TCG) {
        run->kvm = false;
        return 0;
    }
    if (run->config.accel == VP_ACCEL_KVM && !kvm_here) {
        snprintf(err, err_len, "--guest-accel kvm: this host offers no KVM (/dev/kvm, libvirt's "
                 "kvm domain type); accepted here: --guest-accel tcg or auto");
        return -1;
    }
    if (!kvm_here) {
        run->kvm = false;
        snprintf(run->accel_note, sizeof run->accel_note, "no KVM on this host: TCG");
        return 0;
    }
    run->kvm = true;
    if (run->config.accel == VP_ACCEL_KVM)
        return 0;
    char why[512];
    run->started = 1;
    if (start_guest(run, 0, true, why, sizeof why) == 0) {
        if (hear_hello(run, &run->guests[0], KVM_PROBE_TIMEOUT_S, why, sizeof why) == 0)
            return 0;
    }
    remove_guests(run);
    run->kvm = false;
    snprintf(run->accel_note, sizeof run->accel_note,
             "a guest under kvm did not answer in %d s: fell back to TCG", KVM_PROBE_TIMEOUT_S);
    fprintf(stderr, "virtperf: %s\n", run->accel_note);
    return vp_engine_interrupted() ? -1 : 0;
}

/* The run's words (and a plan's text) to every guest; each says whether it can run them. */
static int send_steps(struct guests_run *run, const struct vp_run_steps *steps, char *err,
                      size_t err_len)
{
    json_t *words = json_array();
    for (int i = 0; i < run->argc; i++)
        json_array_append_new(words, json_string(run->argv[i]));
    json_t *message = json_pack("{s:o}", "words", words);
    if (steps->kept_text)
        json_object_set_new(message, "plan", json_string(steps->kept_text));
    char *text = json_dumps(message, JSON_COMPACT);
    json_decref(message);
    int status = 0;
    for (size_t g = 0; g < run->started && status == 0; g++) {
        struct guest *guest = &run->guests[g];
        char why[VP_PATH_ERROR_LEN];
        void *verdict;
        size_t len;
        if (vp_frame_send(guest->fd, VP_FRAME_STEPS, text, strlen(text), why, sizeof why) != 0 ||
            vp_frame_expect(guest->fd, VP_FRAME_VERDICT, &verdict, &len, 0,
                            vp_now_ns() + (int64_t)run->config.timeout_s * 1000000000LL, why,
                            sizeof why) != 0) {
            snprintf(err, err_len, "%s: %s", guest->name, why);
            status = -1;
        } else if (len > 0) {
            snprintf(err, err_len, "in guest %s: %s", guest->name, (char *)verdict);
            status = -1;
        }
        if (status == 0)
            free(verdict);
        else if (len > 0)
            free(verdict);
    }
    free(text);
    return status;
}

static int refuse(char *err, size_t err_len, const char *text)
{
    snprintf(err, err_len, "%s", text);
    return -1;
}

/* libvirt's QEMU runs as its own user: every directory above the image must let others
 * through. */
static int readable_by_qemu(const char *path, char *err, size_t err_len)
{
    char dir[VP_GUEST_PATH_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strrchr(dir, '/'); slash && slash != dir; slash = strrchr(dir, '/')) {
        *slash = '\0';
        struct stat info;
        if (stat(dir, &info) == 0 && !(info.st_mode & S_IXOTH)) {
            snprintf(err, err_len, "--guests: libvirt's QEMU user cannot reach the guests' image "
                     "%s (%s is not open to others); accepted: VIRTPERF_CACHE set to a "
                     "directory others can reach (default /var/cache/virtperf)", path, dir);
            return -1;
        }
    }
    return 0;
}

/* Boots the most guests SPEC asks for, each heard from and agreeing to the steps. */
static int open_guests(void *context, struct vp_run_steps *steps, char *err, size_t err_len)
{
    struct guests_run *run = context;
    const struct vp_guests_request *asked = &steps->step[0].request.guests;
    if (vp_parse_jobs_spec(asked->spec, VP_GUESTS_MAX, run->counts, VP_GUESTS_MAX,
                           &run->count_n) != 0) {
        snprintf(err, err_len, "--guests: '%s' is not valid; accepted: a count, a list such as "
                 "1,2,4 or a range such as 1..4, each from 1 to %d", asked->spec, VP_GUESTS_MAX);
        return -1;
    }
    for (size_t c = 0; c < run->count_n; c++)
        run->most = run->counts[c] > run->most ? run->counts[c] : run->most;
    for (size_t s = 0; s < steps->count; s++) {
        if (steps->step[s].request.plan.reps_auto)
            return refuse(err, err_len, "--reps auto: not with --guests (every guest would have "
                          "to agree when to stop); accepted: --reps N");
        if (steps->step[s].request.background)
            return refuse(err, err_len, "--background: not with --guests yet; accepted: "
                          "net.probe as a benchmark of its own");
    }
    run->config = (struct vp_guest_config){
        .uri = asked->uri, .cpus = asked->cpus ? asked->cpus : DEFAULT_CPUS,
        .memory_mib = asked->memory_mib ? asked->memory_mib : DEFAULT_MEMORY_MIB,
        .timeout_s = asked->timeout_s ? asked->timeout_s : DEFAULT_TIMEOUT_S,
        .bridge = asked->bridge, .disk_dir = asked->disk_dir,
        .disk_bus = asked->disk_bus ? asked->disk_bus : "virtio",
        .disk_bytes = asked->disk_bytes ? asked->disk_bytes : DEFAULT_DISK_BYTES,
        .accel = !asked->accel || strcmp(asked->accel, "auto") == 0 ? VP_ACCEL_AUTO
                 : strcmp(asked->accel, "kvm") == 0 ? VP_ACCEL_KVM : VP_ACCEL_TCG,
    };
    run->monitor_hz = steps->step[0].request.monitor_hz;
    run->watch = steps->step[0].request.watch;
    run->watch_count = steps->step[0].request.watch_count;
    if (run->config.bridge && bridge_addresses(run, err, err_len) != 0)
        return -1;
    if (run->config.disk_dir && check_disk_room(run, err, err_len) != 0)
        return -1;
    if (vp_domains_connect(run->config.uri, err, err_len) != 0)
        return -1;
    if (vp_guest_image_find(&run->image, err, err_len) != 0)
        return -1;
    if (readable_by_qemu(run->image.initrd, err, err_len) != 0)
        return -1;
    run->config.kernel = run->image.kernel;
    run->config.initrd = run->image.initrd;
    snprintf(run->work, sizeof run->work, "/tmp/virtperf-guests.XXXXXX");
    if (!mkdtemp(run->work)) {
        snprintf(err, err_len, "--guests: cannot make a directory in /tmp: %s", strerror(errno));
        run->work[0] = '\0';
        return -1;
    }
    chmod(run->work, 0755); /* libvirt's QEMU user makes the channel sockets there */
    vp_engine_catch_signals();
    if (choose_accel(run, err, err_len) != 0)
        return -1;
    for (size_t g = run->started; g < run->most; g++) {
        run->started = g + 1; /* removed with the others even when it does not start */
        if (start_guest(run, g, run->kvm, err, err_len) != 0)
            return -1;
    }
    for (size_t g = 0; g < run->started; g++)
        if (!run->guests[g].fingerprint &&
            hear_hello(run, &run->guests[g], run->config.timeout_s, err, err_len) != 0)
            return -1;
    if (send_steps(run, steps, err, err_len) != 0)
        return -1;
    for (size_t g = 0; g < run->started; g++)
        run->guests[g].paused = vp_domain_pause(run->guests[g].domain, true) == 0;
    return 0;
}

/* A refusal: every guest gone first; 130 when it was Ctrl-C. */
static void settle_guests(void *context, const char *refusal)
{
    struct guests_run *run = context;
    if (!refusal)
        return;
    remove_all(run);
    fprintf(stderr, "virtperf: %s\n", refusal);
    exit(vp_engine_interrupted() ? VP_EXIT_INTERRUPTED : VP_EXIT_USAGE);
}

static void start_monitor(void *context)
{
    struct guests_run *run = context;
    char ignored[256];
    run->monitor = vp_monitor_start(run->monitor_hz, run->watch, run->watch_count, NULL, ignored,
                                    sizeof ignored);
}

/* The first count guests running, the others paused. */
static void set_running(struct guests_run *run, unsigned count)
{
    for (size_t g = 0; g < run->started; g++) {
        bool pause = g >= count;
        if (run->guests[g].paused != pause && vp_domain_pause(run->guests[g].domain, pause) == 0)
            run->guests[g].paused = pause;
    }
}

/* Whether the guest's domain is gone; libvirt may take a moment to see QEMU's end after
 * the channel closed. */
static bool domain_gone(const struct guest *guest)
{
    for (int tries = 0; tries < 20; tries++) {
        if (!vp_domain_running(guest->domain))
            return true;
        usleep(50000);
    }
    return false;
}

/* What a guest that was not heard from gets: its channel's failure, or the run's stop. */
static json_t *silent_result(const struct guest *guest, bool lost, const char *why)
{
    char error[600];
    if (lost)
        snprintf(error, sizeof error, "%s: %s%s", guest->name, why,
                 domain_gone(guest) ? " (the domain is gone: destroyed or crashed)" : "");
    return json_pack("{s:s,s:s}", "status", lost ? "failed" : "interrupted", "error",
                     lost ? error : "not heard from: the run stopped");
}

/* Each guest's QEMU CPU over the point, % of one host CPU. */
static json_t *hypervisor_json(const struct guests_run *run, unsigned count, double seconds)
{
    json_t *guests = json_array();
    for (unsigned g = 0; g < count; g++) {
        const struct guest *guest = &run->guests[g];
        struct vp_qemu_cpu after;
        json_t *entry = json_pack("{s:s,s:i}", "name", guest->name, "qemu_pid", (int)guest->qemu);
        if (seconds > 0 && vp_qemu_cpu_read(guest->qemu, &after) == 0) {
            json_object_set_new(entry, "qemu_vcpu_cpu_pct",
                                json_real(100 * (after.vcpu_s - guest->before.vcpu_s) / seconds));
            json_object_set_new(entry, "qemu_other_cpu_pct",
                                json_real(100 * (after.other_s - guest->before.other_s) / seconds));
        }
        json_array_append_new(guests, entry);
    }
    json_t *hypervisor = json_pack("{s:i,s:s,s:o}", "count", (int)count, "accel",
                                   run->kvm ? "kvm" : "tcg", "hosts", guests);
    if (run->accel_note[0])
        json_object_set_new(hypervisor, "accel_note", json_string(run->accel_note));
    return hypervisor;
}

/* One point on the first count guests: their combined result. *stopped: a guest was lost
 * or a signal came. */
static json_t *run_point(struct guests_run *run, const struct vp_run_step *step, size_t index,
                         size_t point_index, unsigned count, struct vp_run_settings *settings,
                         bool *stopped)
{
    const struct vp_plan_point *point = &step->plan.points[point_index];
    set_running(run, count);
    struct vp_guest_member members[VP_GUESTS_MAX];
    unsigned measured = point->reps ? point->reps : 1;
    double *stonewall = calloc(measured, sizeof *stonewall), *span = calloc(measured, sizeof *span);
    if (!stonewall || !span)
        abort();
    struct vp_guests_point together = {
        .members = members, .count = count, .op_log = point->bench->ops_per_rep != NULL,
        .warmup = point->warmup, .total_reps = point->warmup + point->reps,
        .timeout_s = run->config.timeout_s, .stonewall = stonewall, .span = span,
        .measuring = start_monitor, .context = run, .lost = -1,
    };
    char message[64], err[256];
    snprintf(message, sizeof message, "{\"run\":[%zu,%zu]}", index, point_index);
    for (unsigned g = 0; g < count; g++) {
        members[g] = (struct vp_guest_member){ .fd = run->guests[g].fd, .name = run->guests[g].name };
        vp_qemu_cpu_read(run->guests[g].qemu, &run->guests[g].before);
        if (together.lost < 0 &&
            vp_frame_send(members[g].fd, VP_FRAME_STEPS, message, strlen(message), err,
                          sizeof err) != 0) {
            together.lost = (int)g;
            snprintf(together.reason, sizeof together.reason, "%s", err);
        }
    }
    int64_t began = vp_now_ns();
    bool held = together.lost < 0 && vp_guests_time(&together) == 0 &&
                vp_guests_together(&together) == 0;
    double seconds = (double)(vp_now_ns() - began) / 1e9;
    json_t *monitor = run->monitor ? vp_monitor_stop(run->monitor) : NULL;
    run->monitor = NULL;
    json_t *hypervisor = hypervisor_json(run, count, seconds);

    struct vp_host_part parts[VP_GUESTS_MAX];
    struct vp_shared views[VP_GUESTS_MAX];
    void *regions[VP_GUESTS_MAX] = { NULL };
    double duration = settings->duration > 0 ? settings->duration : point->bench->default_duration;
    for (unsigned g = 0; g < count; g++) {
        struct guest *guest = &run->guests[g];
        parts[g] = (struct vp_host_part){ .rank = (int)g + 1, .fingerprint = guest->fingerprint,
                                          .clock_offset_ns = members[g].offset_ns,
                                          .offset_bound_ns = members[g].bound_ns };
        void *text = NULL;
        size_t len, region_len;
        int64_t deadline = vp_now_ns() + (int64_t)run->config.timeout_s * 1000000000LL;
        if (held && vp_frame_expect(guest->fd, VP_FRAME_RESULT, &text, &len, 0, deadline, err,
                                    sizeof err) == 0 &&
            vp_frame_expect(guest->fd, VP_FRAME_REGION, &regions[g], &region_len, 0, deadline,
                            err, sizeof err) == 0) {
            parts[g].result = json_loads(text, 0, NULL);
            json_int_t jobs = json_integer_value(json_object_get(parts[g].result, "jobs"));
            parts[g].shared = vp_shared_view(&views[g], point->bench, &point->params, jobs,
                                             point->warmup + point->reps, duration, regions[g],
                                             region_len);
        } else if (held) {
            held = false;
            together.lost = (int)g;
            snprintf(together.reason, sizeof together.reason, "%s", err);
        }
        free(text);
        if (!json_is_object(parts[g].result)) {
            json_decref(parts[g].result);
            parts[g].result = silent_result(guest, together.lost == (int)g, together.reason);
        }
    }
    json_t *result = vp_combine_hosts(point->bench, &point->params, point->jobs, settings, parts,
                                      count, stonewall, span);
    if (together.lost >= 0) {
        const struct guest *lost = &run->guests[together.lost];
        char cause[700];
        snprintf(cause, sizeof cause, "guest %d (%s): %s%s", together.lost + 1, lost->name,
                 together.reason,
                 domain_gone(lost) ? " (the domain is gone: destroyed or crashed)" : "");
        vp_result_finish(result, vp_engine_interrupted() ? "interrupted" : "failed", cause);
        *stopped = true;
    }
    if (monitor)
        json_object_set_new(result, "monitor", monitor);
    json_object_set_new(result, "guests", hypervisor);
    for (unsigned g = 0; g < count; g++) {
        json_decref(parts[g].result);
        free(regions[g]);
    }
    free(stonewall);
    free(span);
    *stopped = *stopped || vp_engine_interrupted();
    return result;
}

/* Every count of SPEC, every point of the step. */
static bool run_step_in_guests(void *context, const struct vp_run_steps *steps, size_t index,
                               struct vp_run_session *session, struct vp_progress *progress)
{
    struct guests_run *run = context;
    const struct vp_run_step *step = &steps->step[index];
    struct vp_run_settings settings = vp_run_settings_of(step, steps->topology, progress);
    bool stopped = false;
    for (size_t c = 0; c < run->count_n && !stopped; c++) {
        for (size_t p = 0; p < step->plan.count && !stopped; p++) {
            const struct vp_plan_point *point = &step->plan.points[p];
            settings.pin_spec = point->pin;
            settings.reps = point->reps;
            settings.warmup = point->warmup;
            json_t *result = run_point(run, step, index, p, run->counts[c], &settings, &stopped);
            if (step->name)
                json_object_set_new(result, "step", json_string(step->name));
            vp_run_session_add(session, result);
            json_decref(result);
        }
    }
    return stopped;
}

static unsigned guests_repetitions(void *context, const struct vp_run_steps *steps)
{
    (void)context, (void)steps;
    return 0; /* the guests' repetitions are not seen here */
}

static int close_guests(void *context, int status, bool stopped)
{
    (void)stopped;
    remove_all(context);
    return status;
}

int vp_run_guests(struct vp_run_steps *steps, int argc, char **argv)
{
    static struct guests_run run;
    run = (struct guests_run){ .argc = argc, .argv = argv };
    const struct vp_runner runner = {
        .program = "virtperf run", .keeps_session = true, .context = &run,
        .settle = settle_guests, .open = open_guests, .repetitions = guests_repetitions,
        .run_step = run_step_in_guests, .close = close_guests,
    };
    int status = vp_run_execute(&runner, steps, argc, argv);
    vp_run_steps_free(steps);
    return status;
}
