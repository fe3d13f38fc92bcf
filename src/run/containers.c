/* `virtperf run BENCH... --containers SPEC`: the containers kind of the fleet runner
 * (fleet.h). Each container runs `virtperf guest-agent` from a root directory of the same
 * contents as the guests' image (env/image.h; no registry), through podman
 * (`--rootfs DIR:O`, an overlay so the containers share the directory unchanged) or
 * docker (which takes only images: the directory imported once as the local image
 * virtperf-root:HASH, kept as a cache like the directory), on the host's network or the
 * engine's bridge. Each works in a private directory of this host's bind-mounted at
 * /work (in --guest-disk DIR, else the current directory: where this host's own jobs
 * work), so a disk benchmark in a container writes to the disk the host's jobs do, not to
 * the container's memory; its home and database are a tmpfs. Its channel is a unix
 * socket this host listens on in a directory of its own (0700, in the run's directory,
 * which holds the engine's configuration and is never mounted), bind-mounted read-only
 * into that container alone. A container is untrusted: what it can write (its /work,
 * mounted nosuid, nodev and noexec under podman, in a 0700 directory under either engine)
 * this host never reads or runs, and no other member can reach its channel. An idle
 * container's agent waits on its socket and costs nothing, so containers beyond the
 * count are left as they are. What a container costs the host is its cgroup's CPU
 * (cpuacct). */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "run/kinds.h"
#include "run/fleet.h"
#include "core/clock.h"
#include "core/program.h"
#include "core/scratch.h"
#include "engine/engine.h"
#include "env/image.h"
#include "env/process_memory.h"

struct container {
    char channel_dir[VP_GUEST_PATH_LEN]; /* its alone, in the run's directory: its socket */
    char socket[VP_GUEST_PATH_LEN];
    int listener;
    pid_t pid;            /* its first process, as the engine says */
    char cgroup[VP_GUEST_PATH_LEN]; /* its cpuacct.usage */
    char memory_cgroup[VP_GUEST_PATH_LEN]; /* its memory.usage_in_bytes, "": not found */
    char address[64];     /* its address on the engine's network ("": the host's network) */
    char box[VP_GUEST_PATH_LEN];  /* its scratch directory on this host, "": not made */
    char work[VP_GUEST_PATH_LEN]; /* in it, what it sees as /work */
    uint64_t before_ns;
};

struct containers {
    const char *engine, *runtime, *network, *work;
    const char *disk_dir; /* where the containers' /work directories are made */
    bool docker;          /* docker's command line, else podman's */
    char image[64];       /* docker: the root's image */
    char gateway[64];     /* this host's address on the engine's network, once asked */
    struct vp_guest_image root;
    struct container own[VP_MAX_GUESTS];
};

/* podman's default ulimits are above what its runtime may set on some hosts ("error
 * setting rlimit"): the containers keep the limits they inherit instead. The file is the
 * run's; only the podman this run starts reads it. */
static int podman_conf(const struct containers *containers, char *err, size_t err_len)
{
    char conf[VP_GUEST_PATH_LEN];
    snprintf(conf, sizeof conf, "%.400s/containers.conf", containers->work);
    FILE *file = fopen(conf, "w");
    if (!file || fputs("[containers]\ndefault_ulimits = []\n", file) < 0 || fclose(file) != 0) {
        snprintf(err, err_len, "--containers: cannot write %s: %s", conf, strerror(errno));
        return -1;
    }
    setenv("CONTAINERS_CONF", conf, 1);
    return 0;
}

/* docker's image of the root directory, imported from a tar of it unless docker has it
 * already (the tag is the directory's content hash). */
static int docker_image(struct containers *containers, char *err, size_t err_len)
{
    const char *hash = strrchr(containers->root.initrd, '-');
    snprintf(containers->image, sizeof containers->image, "virtperf-root:%.16s",
             hash ? hash + 1 : "unnamed");
    char *inspect[] = { "docker", "image", "inspect", containers->image, NULL };
    if (vp_run_program(inspect, true, NULL, 0) == 0)
        return 0;
    char tar_path[VP_GUEST_PATH_LEN], said[1024] = "";
    snprintf(tar_path, sizeof tar_path, "%.400s/root.tar", containers->work);
    char *tar[] = { "tar", "-C", containers->root.initrd, "-cf", tar_path, ".", NULL };
    char *import[] = { "docker", "import", tar_path, containers->image, NULL };
    int status = vp_run_program(tar, true, said, sizeof said);
    if (status == 0)
        status = vp_run_program(import, true, said, sizeof said);
    unlink(tar_path);
    if (status != 0) {
        said[strcspn(said, "\n")] = '\0';
        snprintf(err, err_len, "--container-engine docker: cannot import %s as %s: %s",
                 containers->root.initrd, containers->image, said[0] ? said : "tar failed");
        return -1;
    }
    return 0;
}

static int prepare(void *state, const struct vp_fleet_setup *setup, char *err, size_t err_len)
{
    struct containers *containers = state;
    const struct vp_guests_request *asked = setup->asked;
    containers->work = setup->work;
    containers->disk_dir = asked->disk_dir ? asked->disk_dir : ".";
    containers->engine = asked->container_engine ? asked->container_engine : "podman";
    containers->network = asked->container_net ? asked->container_net : "host";
    containers->docker = strcmp(containers->engine, "docker") == 0;
    if (!vp_program_installed(containers->engine)) {
        snprintf(err, err_len, "--containers: %s is not installed; install it "
                 "(scripts/deps.sh containers)", containers->engine);
        return -1;
    }
    char said[1024] = "";
    char *info[] = { "docker", "info", "-f", "{{.ServerVersion}}", NULL };
    if (containers->docker && vp_run_program(info, true, said, sizeof said) != 0) {
        said[strcspn(said, "\n")] = '\0';
        snprintf(err, err_len, "--container-engine docker: the Docker daemon does not answer "
                 "(%s); start it (systemctl start docker, or dockerd where systemd does not "
                 "run)", said[0] ? said : "docker info failed");
        return -1;
    }
    /* crun refuses the hybrid cgroup hierarchies some hosts have; runc runs there (docker
     * runs its own default unless told) */
    containers->runtime = asked->container_runtime ? asked->container_runtime
                          : !containers->docker && vp_program_installed("runc") ? "runc" : NULL;
    if (!containers->docker && podman_conf(containers, err, err_len) != 0)
        return -1;
    if (vp_guest_root_find(&containers->root, setup->files, err, err_len) != 0)
        return -1;
    return containers->docker ? docker_image(containers, err, err_len) : 0;
}

static void finish(void *state)
{
    struct containers *containers = state;
    if (!containers->work)
        return; /* refused before it was prepared */
    char conf[VP_GUEST_PATH_LEN];
    snprintf(conf, sizeof conf, "%.400s/containers.conf", containers->work);
    unlink(conf);
}

static int start_container(void *state, struct vp_member *member, size_t index, char *err,
                           size_t err_len)
{
    struct containers *containers = state;
    struct container *container = &containers->own[index];
    member->own = container;
    container->listener = -1;
    snprintf(container->channel_dir, sizeof container->channel_dir, "%.200s/%.60s",
             containers->work, member->name);
    if (mkdir(container->channel_dir, 0700) != 0) {
        snprintf(err, err_len, "--containers: cannot make %s: %s", container->channel_dir,
                 strerror(errno));
        container->channel_dir[0] = '\0';
        return -1;
    }
    snprintf(container->socket, sizeof container->socket, "%.200s/%.60s/%.60s.sock",
             containers->work, member->name, member->name);
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    size_t socket_len = strlen(container->socket);
    if (socket_len >= sizeof address.sun_path) {
        snprintf(err, err_len, "--containers: the socket path %s is longer than a unix socket "
                 "takes (%zu bytes)", container->socket,
                 sizeof address.sun_path - 1);
        return -1;
    }
    memcpy(address.sun_path, container->socket, socket_len + 1);
    container->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (container->listener < 0 ||
        bind(container->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(container->listener, 1) != 0) {
        snprintf(err, err_len, "--containers: cannot listen on %s: %s", container->socket,
                 strerror(errno));
        return -1;
    }
    char made[VP_GUEST_PATH_LEN], work[VP_GUEST_PATH_LEN + 32];
    if (vp_scratch_make(containers->disk_dir, "virtperf-box", made, sizeof made, err,
                        err_len) != 0)
        return -1;
    /* the box's owner file stays out of the container's reach: it sees box/work */
    char *absolute = realpath(made, NULL);
    if (!absolute || strlen(absolute) + 6 >= sizeof container->work) {
        snprintf(err, err_len, "--containers: %s: %s", made,
                 absolute ? "its path is too long" : strerror(errno));
        free(absolute);
        vp_scratch_remove(made);
        return -1;
    }
    snprintf(container->box, sizeof container->box, "%s", absolute);
    snprintf(container->work, sizeof container->work, "%s/work", absolute);
    free(absolute);
    if (mkdir(container->work, 0700) != 0) {
        snprintf(err, err_len, "--containers: cannot make %s: %s", container->work,
                 strerror(errno));
        return -1;
    }
    /* docker's -v takes no mount flags: there the 0700 directories keep others out */
    const char *flags = containers->docker ? "" : ",nosuid,nodev,noexec";
    snprintf(work, sizeof work, "%s:/work:rw%s", container->work, flags);
    char volume[VP_GUEST_PATH_LEN + 48], rootfs[VP_GUEST_PATH_LEN + 8], inside[128];
    char network[64];
    snprintf(volume, sizeof volume, "%s:/run/virtperf:ro%s", container->channel_dir, flags);
    snprintf(rootfs, sizeof rootfs, "%s:O", containers->root.initrd);
    snprintf(inside, sizeof inside, "/run/virtperf/%s.sock", member->name);
    snprintf(network, sizeof network, "--network=%s", containers->network);
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)containers->engine;
    if (containers->runtime && !containers->docker) {
        argv[n++] = "--runtime";
        argv[n++] = (char *)containers->runtime;
    }
    char *options[] = { "run", "-d", "--rm", "--name", member->name, network, "-v", volume,
                        "-v", work, "--tmpfs", "/tmp", "--workdir", "/work", "-e", "HOME=/tmp",
                        "-e", "VIRTPERF_DB=/tmp/results.db", "--hostname", member->name, NULL };
    for (size_t i = 0; options[i]; i++)
        argv[n++] = options[i];
    if (containers->runtime && containers->docker) {
        argv[n++] = "--runtime";
        argv[n++] = (char *)containers->runtime;
    }
    if (containers->docker) {
        argv[n++] = containers->image;
    } else {
        argv[n++] = "--rootfs";
        argv[n++] = rootfs;
    }
    char *agent[] = { "/bin/virtperf", "guest-agent", "--socket", inside, NULL };
    for (size_t i = 0; agent[i]; i++)
        argv[n++] = agent[i];
    argv[n] = NULL;
    char said[1024];
    if (vp_run_program(argv, true, said, sizeof said) != 0) {
        said[strcspn(said, "\n")] = '\0';
        snprintf(err, err_len, "%s could not start %s: %s", containers->engine, member->name,
                 said);
        return -1;
    }
    return 0;
}

/* The engine's answer to argv, its first word (an address, a pid) in out. */
static int ask_engine(char **argv, char *out, size_t out_len)
{
    out[0] = '\0';
    int status = vp_run_program(argv, true, out, out_len);
    out[strcspn(out, " \n")] = '\0';
    return status == 0 && out[0] ? 0 : -1;
}

/* The name of the engine's network that --container-net names. */
static const char *network_name(const struct containers *containers)
{
    if (strcmp(containers->network, "bridge") == 0)
        return containers->docker ? "bridge" : "podman";
    return containers->network;
}

/* The container's pid and cpuacct cgroup, once it runs; its address on the engine's
 * network. */
static void find_process(const struct containers *containers, struct vp_member *member,
                         struct container *container)
{
    char *address[] = { (char *)containers->engine, "inspect", "-f",
                        "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}",
                        member->name, NULL };
    if (strcmp(containers->network, "host") != 0)
        ask_engine(address, container->address, sizeof container->address);
    char pid[32];
    char *inspect_pid[] = { (char *)containers->engine, "inspect", "-f", "{{.State.Pid}}",
                            member->name, NULL };
    if (ask_engine(inspect_pid, pid, sizeof pid) == 0)
        container->pid = (pid_t)atol(pid);
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/cgroup", (long)container->pid);
    FILE *cgroups = container->pid > 0 ? fopen(path, "r") : NULL;
    while (cgroups && fgets(line, sizeof line, cgroups)) {
        char *controllers = strchr(line, ':'), *where = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!where)
            continue;
        *where++ = '\0';
        where[strcspn(where, "\n")] = '\0';
        if (strstr(controllers + 1, "cpuacct"))
            snprintf(container->cgroup, sizeof container->cgroup,
                     "/sys/fs/cgroup/%.100s%.300s/cpuacct.usage", controllers + 1, where);
        if (strcmp(controllers + 1, "memory") == 0)
            snprintf(container->memory_cgroup, sizeof container->memory_cgroup,
                     "/sys/fs/cgroup/memory%.300s/memory.usage_in_bytes", where);
    }
    if (cgroups)
        fclose(cgroups);
}

/* Accepts the container's connection before deadline. */
static int connect_container(void *state, struct vp_member *member, int64_t deadline_ns,
                             char *err, size_t err_len)
{
    struct container *container = member->own;
    while (vp_now_ns() < deadline_ns && !vp_engine_interrupted()) {
        struct pollfd ready = { .fd = container->listener, .events = POLLIN };
        if (poll(&ready, 1, 100) == 1) {
            member->fd = accept4(container->listener, NULL, NULL, SOCK_CLOEXEC);
            if (member->fd >= 0) {
                find_process(state, member, container);
                return 0;
            }
        }
    }
    snprintf(err, err_len, "%s: its agent never connected%s", member->name,
             vp_engine_interrupted() ? " (interrupted)" : "");
    return -1;
}

static bool container_alive(void *state, struct vp_member *member)
{
    (void)state;
    struct container *container = member->own;
    return container->pid > 0 && kill(container->pid, 0) == 0;
}

static int pause_container(void *state, struct vp_member *member, bool pause)
{
    (void)state, (void)member, (void)pause;
    return 0; /* an idle agent waits on its socket: nothing to stop */
}

static void describe_container(void *state, struct vp_member *member)
{
    struct containers *containers = state;
    struct container *container = member->own;
    json_object_set_new(member->fingerprint, "container",
                        json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "name", member->name, "engine",
                                  containers->engine, "runtime",
                                  containers->runtime ? containers->runtime : "default",
                                  "network", containers->network, "pid", (int)container->pid,
                                  "work", container->work));
}

static void silent_container(void *state, struct vp_member *member)
{
    (void)state, (void)member; /* podman run -d said what went wrong, or the agent did */
}

static uint64_t cgroup_cpu_ns(const struct container *container)
{
    FILE *usage = container->cgroup[0] ? fopen(container->cgroup, "r") : NULL;
    unsigned long long ns = 0;
    if (usage && fscanf(usage, "%llu", &ns) != 1)
        ns = 0;
    if (usage)
        fclose(usage);
    return ns;
}

static void cost_begin(void *state, struct vp_member *member)
{
    (void)state;
    struct container *container = member->own;
    container->before_ns = cgroup_cpu_ns(container);
}

/* The process that started pid (its /proc stat's ppid), 0: none read. */
static pid_t parent_of(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *file = pid > 0 ? fopen(path, "r") : NULL;
    size_t n = file ? fread(text, 1, sizeof text - 1, file) : 0;
    if (file)
        fclose(file);
    text[n] = '\0';
    const char *after_name = strrchr(text, ')'); /* the command name may hold anything */
    long parent = 0;
    if (!after_name || sscanf(after_name + 1, " %*c %ld", &parent) != 1)
        return 0;
    return (pid_t)parent;
}

/* Its memory at the point's end: its cgroup's (what its processes hold) and its engine's
 * shim's Pss (conmon, containerd-shim: the parent of its first process), what one more
 * container costs the host beside what runs in it. */
static void memory_cost(const struct container *container, json_t *entry)
{
    FILE *usage = container->memory_cgroup[0] ? fopen(container->memory_cgroup, "r") : NULL;
    unsigned long long bytes;
    if (usage && fscanf(usage, "%llu", &bytes) == 1)
        json_object_set_new(entry, "cgroup_memory_bytes", json_integer((json_int_t)bytes));
    if (usage)
        fclose(usage);
    struct vp_process_memory shim;
    pid_t parent = parent_of(container->pid);
    if (parent > 1 && vp_process_memory_read(parent, 0, &shim) == 0)
        json_object_set_new(entry, "shim_pss_bytes", json_integer((json_int_t)shim.pss_bytes));
}

static json_t *cost_end(void *state, struct vp_member *member, double seconds)
{
    (void)state;
    struct container *container = member->own;
    json_t *entry = json_pack("{s:s}", "name", member->name);
    uint64_t after = cgroup_cpu_ns(container);
    if (seconds > 0 && after >= container->before_ns && container->cgroup[0])
        json_object_set_new(entry, "cpu_pct",
                            json_real(100 * (double)(after - container->before_ns) / 1e9 / seconds));
    memory_cost(container, entry);
    return entry;
}

/* A subnet's (IPv4 A.B.C.D/N) first address in place of it; an address stays as it is.
 * -1 when it is neither. */
static int first_address(char *text)
{
    char *slash = strchr(text, '/');
    if (slash)
        *slash = '\0';
    struct in_addr address;
    if (inet_pton(AF_INET, text, &address) != 1)
        return -1;
    if (slash) {
        address.s_addr = htonl(ntohl(address.s_addr) + 1);
        inet_ntop(AF_INET, &address, text, INET_ADDRSTRLEN);
    }
    return 0;
}

/* Where the containers reach this host: the loopback they share on the host's network,
 * else this host's address on the engine's network (its gateway). */
static const char *server_address(void *state, char *err, size_t err_len)
{
    struct containers *containers = state;
    if (strcmp(containers->network, "host") == 0)
        return "127.0.0.1";
    char *podman[] = { "podman", "network", "inspect", "-f",
                       "{{range .Subnets}}{{.Gateway}} {{end}}", (char *)network_name(containers),
                       NULL };
    /* docker names a gateway only when told one: else the bridge takes the subnet's first */
    char *docker[] = { "docker", "network", "inspect", "-f",
                       "{{range .IPAM.Config}}{{if .Gateway}}{{.Gateway}}{{else}}{{.Subnet}}"
                       "{{end}} {{end}}", (char *)network_name(containers), NULL };
    if (ask_engine(containers->docker ? docker : podman, containers->gateway,
                   sizeof containers->gateway) == 0 && first_address(containers->gateway) == 0)
        return containers->gateway;
    snprintf(err, err_len, "--container-net %s: %s knows no gateway of a network %s; accepted: "
             "host, or a network with a subnet (%s network create --subnet ...)",
             containers->network, containers->engine, network_name(containers),
             containers->engine);
    return NULL;
}

/* A container's own server listens on the loopback it shares on the host's network (a
 * port of its own), else on its address on the engine's network. */
static const char *member_address(void *state, size_t index)
{
    struct containers *containers = state;
    if (strcmp(containers->network, "host") == 0)
        return "127.0.0.1";
    return containers->own[index].address[0] ? containers->own[index].address : NULL;
}

static json_t *summary(void *state)
{
    struct containers *containers = state;
    return json_pack("{s:s}", "engine", containers->engine);
}

static void remove_container(void *state, struct vp_member *member)
{
    struct containers *containers = state;
    struct container *container = member->own;
    if (!container)
        return;
    char *engine = (char *)containers->engine;
    char *podman_rm[] = { engine, "rm", "-f", "-t", "0", member->name, NULL };
    char *docker_rm[] = { engine, "rm", "-f", member->name, NULL };
    char *exists[] = { engine, "container", "inspect", member->name, NULL };
    /* the engine's own clean-up of an exited --rm container may still hold it: until gone */
    for (int tries = 0; tries < 50 && vp_run_program(exists, true, NULL, 0) == 0; tries++) {
        vp_run_program(containers->docker ? docker_rm : podman_rm, true, NULL, 0);
        usleep(100000);
    }
    if (container->listener >= 0)
        close(container->listener);
    container->listener = -1;
    if (container->channel_dir[0])
        vp_scratch_remove(container->channel_dir);
    container->channel_dir[0] = '\0';
    if (container->box[0])
        vp_scratch_remove(container->box);
    container->box[0] = '\0';
}

/* what a container has its own of (its /work: the run's, or --guest-disk's) */
static const char *const own_dirs[] = { "/tmp", "/proc", "/sys", "/dev", "/run", "/work", NULL };

static struct vp_fleet_kind fleet_of_containers(void)
{
    struct containers *containers = calloc(1, sizeof *containers);
    if (!containers)
        abort();
    return (struct vp_fleet_kind){
        .env = &vp_containers_kind, .own_dirs = own_dirs,
        .own_address_hint = "--container-net host", .state = containers, .prepare = prepare,
        .start = start_container, .connect = connect_container, .alive = container_alive,
        .pause = pause_container, .describe = describe_container, .silent = silent_container,
        .cost_begin = cost_begin, .cost_end = cost_end, .server_address = server_address,
        .member_address = member_address, .summary = summary, .remove = remove_container, .finish = finish,
    };
}

static const char *const container_settings[] = {
    "--and-host", "--guest-disk", "--guest-programs", "--guest-timeout", "--container-engine",
    "--container-runtime", "--container-net", "--qos", "--keep-free", NULL,
};

const struct vp_env_kind vp_containers_kind = {
    .name = "containers", .flag = "--containers", .noun = "container",
    .settings = container_settings, .fleet = fleet_of_containers, .under_mpi = true,
};
