/* The guests' domains through libvirt's C API (see domain.h), the library loaded when a
 * run first connects (core/loaded.h: linked, it cost every virtperf command 36 ms of
 * loading here); without libvirt at build, every call says what to install. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/domain.h"
#include "vp_features.h" /* VP_HAVE_LIBVIRT */

#ifdef VP_HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "core/loaded.h"
#include "core/owner.h"
#include "core/procfs.h"

#define MOST_MOVES 8 /* the handles a domain had before its migrations, kept till it goes */

struct vp_domain {
    virDomainPtr handle;
    /* where it ran before each migration: another thread may still be asking the old
     * handle whether it runs, so each is freed only with the domain */
    virDomainPtr earlier[MOST_MOVES];
    size_t moves;
};

/* The calls made here, typed as libvirt's headers declare them. */
static struct {
    __typeof__(virConnectOpen) *connect_open;
    __typeof__(virConnectClose) *connect_close;
    __typeof__(virConnectGetCapabilities) *capabilities;
    __typeof__(virDomainCreateXML) *create_xml;
    __typeof__(virDomainDestroy) *destroy;
    __typeof__(virDomainFree) *free;
    __typeof__(virDomainGetName) *name;
    __typeof__(virDomainGetXMLDesc) *xml_desc;
    __typeof__(virDomainIsActive) *is_active;
    __typeof__(virDomainSuspend) *suspend;
    __typeof__(virDomainResume) *resume;
    __typeof__(virDomainSetSchedulerParametersFlags) *set_scheduler;
    __typeof__(virGetLastErrorMessage) *last_error_message;
    __typeof__(virSetErrorFunc) *set_error_func;
    __typeof__(virDomainMigrate3) *migrate;
    __typeof__(virDomainGetJobStats) *job_stats;
    __typeof__(virTypedParamsFree) *params_free;
    __typeof__(virConnectListAllDomains) *list_domains;
    __typeof__(virDomainAbortJob) *abort_job;
} lib;

static virConnectPtr connection;
static virConnectPtr elsewhere;    /* the one other libvirt guests migrate to */
static char elsewhere_uri[VP_GUEST_PATH_LEN];

static int load_libvirt(char *err, size_t err_len)
{
    static bool loaded;
    const struct vp_loaded_symbol symbols[] = {
        { "virConnectOpen", &lib.connect_open }, { "virConnectClose", &lib.connect_close },
        { "virConnectGetCapabilities", &lib.capabilities },
        { "virDomainCreateXML", &lib.create_xml }, { "virDomainDestroy", &lib.destroy },
        { "virDomainFree", &lib.free }, { "virDomainGetName", &lib.name },
        { "virDomainGetXMLDesc", &lib.xml_desc }, { "virDomainIsActive", &lib.is_active },
        { "virDomainSuspend", &lib.suspend }, { "virDomainResume", &lib.resume },
        { "virDomainSetSchedulerParametersFlags", &lib.set_scheduler },
        { "virGetLastErrorMessage", &lib.last_error_message },
        { "virSetErrorFunc", &lib.set_error_func },
        { "virDomainMigrate3", &lib.migrate }, { "virDomainGetJobStats", &lib.job_stats },
        { "virTypedParamsFree", &lib.params_free },
        { "virConnectListAllDomains", &lib.list_domains },
        { "virDomainAbortJob", &lib.abort_job },
    };
    if (!loaded && vp_library_load("libvirt.so.0", symbols, sizeof symbols / sizeof symbols[0],
                                   "scripts/deps.sh guests installs libvirt", err,
                                   err_len) == 0)
        loaded = true;
    return loaded ? 0 : -1;
}

/* libvirt's own errors go into err, not to stderr. */
static void quiet(void *data, virErrorPtr error)
{
    (void)data, (void)error;
}

static void last_error(const char *what, char *err, size_t err_len)
{
    const char *message = lib.last_error_message();
    snprintf(err, err_len, "%s: %s", what, message ? message : "libvirt gave no reason");
}

bool vp_domains_supported(void)
{
    return true;
}

int vp_domains_connect(const char *uri, char *err, size_t err_len)
{
    char why[400];
    if (load_libvirt(why, sizeof why) != 0) {
        snprintf(err, err_len, "--guests: %s", why);
        return -1;
    }
    lib.set_error_func(NULL, quiet);
    const char *target = uri ? uri : "qemu:///system";
    connection = lib.connect_open(target);
    if (connection)
        return 0;
    last_error(target, why, sizeof why);
    snprintf(err, err_len, "--guests: cannot reach libvirt (%s); start libvirtd (systemctl "
             "start libvirtd, or where systemd does not run: libvirtd -d; virtlogd -d), or "
             "install it: scripts/deps.sh guests", why);
    return -1;
}

bool vp_domains_offer_kvm(void)
{
    char *caps = connection ? lib.capabilities(connection) : NULL;
    bool kvm = caps && strstr(caps, "<domain type='kvm'") != NULL;
    free(caps);
    return kvm;
}

struct vp_domain *vp_domain_start(const char *xml, bool migratable, char *err, size_t err_len)
{
    /* destroyed by libvirt when this connection closes: a virtperf killed leaves none;
     * libvirt migrates no such domain, so one to migrate is swept instead
     * (vp_domains_sweep) */
    virDomainPtr handle = lib.create_xml(connection, xml,
                                         migratable ? 0 : VIR_DOMAIN_START_AUTODESTROY);
    if (!handle) {
        last_error("libvirt refused the domain", err, err_len);
        return NULL;
    }
    struct vp_domain *domain = calloc(1, sizeof *domain);
    if (!domain)
        abort();
    domain->handle = handle;
    return domain;
}

/* The connection to uri: this run's, or the one other libvirt (opened once). */
static virConnectPtr connection_to(const char *uri, char *err, size_t err_len)
{
    if (!uri)
        return connection;
    if (elsewhere && strcmp(elsewhere_uri, uri) == 0)
        return elsewhere;
    if (elsewhere) {
        snprintf(err, err_len, "%.150s: a run migrates to one other libvirt (%.150s)", uri,
                 elsewhere_uri);
        return NULL;
    }
    elsewhere = lib.connect_open(uri);
    if (!elsewhere) {
        last_error(uri, err, err_len);
        return NULL;
    }
    snprintf(elsewhere_uri, sizeof elsewhere_uri, "%s", uri);
    return elsewhere;
}

int vp_domains_reach(const char *uri, char *err, size_t err_len)
{
    char why[400];
    if (connection_to(uri, why, sizeof why))
        return 0;
    snprintf(err, err_len, "--migrate-to: cannot reach libvirt there (%s); accepted: the URI "
             "of a libvirtd that runs QEMU (qemu+ssh://HOST/system, "
             "qemu:///system?socket=PATH)", why);
    return -1;
}

/* A completed migration's figures, from its job statistics on the destination. */
static void read_figures(virDomainPtr moved, struct vp_migration_figures *figures)
{
    int type = 0, count = 0;
    virTypedParameterPtr params = NULL;
    if (lib.job_stats(moved, &type, &params, &count, VIR_DOMAIN_JOB_STATS_COMPLETED) != 0)
        return;
    for (int i = 0; i < count; i++) {
        const virTypedParameter *p = &params[i];
        double value = p->type == VIR_TYPED_PARAM_ULLONG ? (double)p->value.ul
                       : p->type == VIR_TYPED_PARAM_LLONG ? (double)p->value.l : -1;
        if (value < 0)
            continue;
        if (strcmp(p->field, VIR_DOMAIN_JOB_TIME_ELAPSED) == 0)
            figures->total_ms = value;
        else if (strcmp(p->field, VIR_DOMAIN_JOB_DOWNTIME) == 0)
            figures->downtime_ms = value;
        else if (strcmp(p->field, VIR_DOMAIN_JOB_DATA_PROCESSED) == 0)
            figures->data_bytes = value;
        else if (strcmp(p->field, VIR_DOMAIN_JOB_MEMORY_ITERATION) == 0)
            figures->memory_iterations = value;
    }
    lib.params_free(params, count);
}

int vp_domain_migrate(struct vp_domain *domain, const char *uri, const char *xml,
                      struct vp_migration_figures *figures, char *err, size_t err_len)
{
    *figures = (struct vp_migration_figures){ .total_ms = -1, .downtime_ms = -1,
                                              .data_bytes = -1, .memory_iterations = -1 };
    if (domain->moves == MOST_MOVES) {
        snprintf(err, err_len, "migrated %d times already", MOST_MOVES);
        return -1;
    }
    virConnectPtr destination = connection_to(uri, err, err_len);
    if (!destination)
        return -1;
    virTypedParameter params[1] = {
        { .field = VIR_MIGRATE_PARAM_DEST_XML, .type = VIR_TYPED_PARAM_STRING,
          .value.s = (char *)xml },
    };
    virDomainPtr moved = lib.migrate(domain->handle, destination, params, 1, VIR_MIGRATE_LIVE);
    if (!moved) {
        last_error("libvirt", err, err_len);
        return -1;
    }
    domain->earlier[domain->moves++] = domain->handle;
    __atomic_store_n(&domain->handle, moved, __ATOMIC_RELEASE);
    read_figures(moved, figures);
    return 0;
}

void vp_domain_abort_migration(struct vp_domain *domain)
{
    lib.abort_job(__atomic_load_n(&domain->handle, __ATOMIC_ACQUIRE));
}

char *vp_domain_migratable_xml(struct vp_domain *domain)
{
    return lib.xml_desc(domain->handle, VIR_DOMAIN_XML_MIGRATABLE | VIR_DOMAIN_XML_SECURE);
}

/* Whether domain's description holds the owner mark of a virtperf of this machine that
 * is gone: what a run killed before it could remove its migratable guest left. */
static bool orphaned(virDomainPtr domain)
{
    const char *name = lib.name(domain);
    if (!name || strncmp(name, "virtperf-", 9) != 0)
        return false;
    char *xml = lib.xml_desc(domain, 0);
    const char *at = xml ? strstr(xml, "<description>" VP_GUEST_OWNER) : NULL;
    char mark[VP_OWNER_MARK_LEN] = "";
    if (at) {
        at += strlen("<description>" VP_GUEST_OWNER);
        snprintf(mark, sizeof mark, "%.*s", (int)strcspn(at, "<"), at);
    }
    free(xml);
    return mark[0] && vp_owner_here(mark) && vp_owner_gone(mark);
}

static void sweep(virConnectPtr conn)
{
    virDomainPtr *domains = NULL;
    int count = conn ? lib.list_domains(conn, &domains, VIR_CONNECT_LIST_DOMAINS_ACTIVE) : -1;
    for (int i = 0; i < count; i++) {
        if (orphaned(domains[i]))
            lib.destroy(domains[i]);
        lib.free(domains[i]);
    }
    free(domains);
}

void vp_domains_sweep(void)
{
    sweep(connection);
    sweep(elsewhere);
}

bool vp_domain_running(struct vp_domain *domain)
{
    return lib.is_active(__atomic_load_n(&domain->handle, __ATOMIC_ACQUIRE)) == 1;
}

char *vp_domain_running_xml(struct vp_domain *domain)
{
    return lib.xml_desc(domain->handle, 0);
}

/* The process on this machine whose command line names guest NAME (libvirt starts QEMU
 * with -name guest=NAME,...), 0: none here. */
static pid_t qemu_named(const char *name)
{
    char want[VP_GUEST_NAME_LEN + 16];
    size_t want_len = (size_t)snprintf(want, sizeof want, "guest=%s,", name);
    DIR *proc = opendir("/proc");
    struct dirent *entry;
    pid_t found = 0;
    while (proc && !found && (entry = readdir(proc))) {
        char path[300], line[4096];
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%.20s/cmdline", entry->d_name);
        long got = vp_read_text_file(path, line, sizeof line); /* NUL between arguments */
        for (long at = 0; !found && at + (long)want_len <= got; at += (long)strlen(line + at) + 1)
            if (strncmp(line + at, want, want_len) == 0)
                found = (pid_t)atol(entry->d_name);
    }
    if (proc)
        closedir(proc);
    return found;
}

/* QEMU's pid: from the pid file libvirt keeps for the domain, else (a libvirt of its own
 * /run on this machine, a migration's destination) by its command line. */
pid_t vp_domain_pid(struct vp_domain *domain)
{
    char path[VP_GUEST_PATH_LEN];
    const char *name = lib.name(domain->handle);
    snprintf(path, sizeof path, "/run/libvirt/qemu/%s.pid", name);
    FILE *file = fopen(path, "r");
    long pid = 0;
    if (file && fscanf(file, "%ld", &pid) != 1)
        pid = 0;
    if (file)
        fclose(file);
    return pid > 0 && domain->moves == 0 ? (pid_t)pid : qemu_named(name);
}

int vp_domain_cap_vcpus(struct vp_domain *domain, unsigned pct, char *err, size_t err_len)
{
    /* the quota is per vCPU, in microseconds of each period */
    virTypedParameter cap[2] = {
        { .field = VIR_DOMAIN_SCHEDULER_VCPU_PERIOD, .type = VIR_TYPED_PARAM_ULLONG,
          .value.ul = 100000 },
        { .field = VIR_DOMAIN_SCHEDULER_VCPU_QUOTA, .type = VIR_TYPED_PARAM_LLONG,
          .value.l = (long long)pct * 1000 },
    };
    if (lib.set_scheduler(domain->handle, cap, 2, VIR_DOMAIN_AFFECT_LIVE) == 0)
        return 0;
    last_error("libvirt could not cap its vCPUs", err, err_len);
    return -1;
}

int vp_domain_pause(struct vp_domain *domain, bool pause)
{
    return pause ? lib.suspend(domain->handle) : lib.resume(domain->handle);
}

void vp_domain_destroy(struct vp_domain *domain)
{
    if (!domain)
        return;
    lib.destroy(domain->handle);
    lib.free(domain->handle);
    for (size_t m = 0; m < domain->moves; m++)
        lib.free(domain->earlier[m]);
    free(domain);
}

void vp_domains_disconnect(void)
{
    if (connection)
        lib.connect_close(connection);
    if (elsewhere)
        lib.connect_close(elsewhere);
    connection = elsewhere = NULL;
}

#else

struct vp_domain {
    int none;
};

bool vp_domains_supported(void)
{
    return false;
}

int vp_domains_connect(const char *uri, char *err, size_t err_len)
{
    (void)uri;
    snprintf(err, err_len, "--guests: this virtperf was built without libvirt; install it "
             "(scripts/deps.sh guests) and build again");
    return -1;
}

bool vp_domains_offer_kvm(void)
{
    return false;
}

struct vp_domain *vp_domain_start(const char *xml, bool migratable, char *err, size_t err_len)
{
    (void)xml, (void)migratable;
    snprintf(err, err_len, "built without libvirt");
    return NULL;
}

int vp_domains_reach(const char *uri, char *err, size_t err_len)
{
    (void)uri;
    snprintf(err, err_len, "--migrate-to: built without libvirt");
    return -1;
}

int vp_domain_migrate(struct vp_domain *domain, const char *uri, const char *xml,
                      struct vp_migration_figures *figures, char *err, size_t err_len)
{
    (void)domain, (void)uri, (void)xml, (void)figures;
    snprintf(err, err_len, "built without libvirt");
    return -1;
}

void vp_domain_abort_migration(struct vp_domain *domain)
{
    (void)domain;
}

char *vp_domain_migratable_xml(struct vp_domain *domain)
{
    (void)domain;
    return NULL;
}

void vp_domains_sweep(void)
{
}

bool vp_domain_running(struct vp_domain *domain)
{
    (void)domain;
    return false;
}

char *vp_domain_running_xml(struct vp_domain *domain)
{
    (void)domain;
    return NULL;
}

pid_t vp_domain_pid(struct vp_domain *domain)
{
    (void)domain;
    return 0;
}

int vp_domain_cap_vcpus(struct vp_domain *domain, unsigned pct, char *err, size_t err_len)
{
    (void)domain, (void)pct;
    snprintf(err, err_len, "built without libvirt");
    return -1;
}

int vp_domain_pause(struct vp_domain *domain, bool pause)
{
    (void)domain, (void)pause;
    return -1;
}

void vp_domain_destroy(struct vp_domain *domain)
{
    (void)domain;
}

void vp_domains_disconnect(void)
{
}
#endif
