/* The guests' domains through libvirt's C API (see domain.h), the library loaded when a
 * run first connects (core/loaded.h: linked, it cost every virtperf command 36 ms of
 * loading here); without libvirt at build, every call says what to install. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/domain.h"
#include "vp_features.h" /* VP_HAVE_LIBVIRT */

#ifdef VP_HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "core/loaded.h"

struct vp_domain {
    virDomainPtr handle;
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
} lib;

static virConnectPtr connection;

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

struct vp_domain *vp_domain_start(const char *xml, char *err, size_t err_len)
{
    /* destroyed by libvirt when this connection closes: a virtperf killed leaves none */
    virDomainPtr handle = lib.create_xml(connection, xml, VIR_DOMAIN_START_AUTODESTROY);
    if (!handle) {
        last_error("libvirt refused the domain", err, err_len);
        return NULL;
    }
    struct vp_domain *domain = malloc(sizeof *domain);
    if (!domain)
        abort();
    domain->handle = handle;
    return domain;
}

bool vp_domain_running(struct vp_domain *domain)
{
    return lib.is_active(domain->handle) == 1;
}

char *vp_domain_running_xml(struct vp_domain *domain)
{
    return lib.xml_desc(domain->handle, 0);
}

/* QEMU's pid, from the pid file libvirt keeps for the domain. */
pid_t vp_domain_pid(struct vp_domain *domain)
{
    char path[VP_GUEST_PATH_LEN];
    snprintf(path, sizeof path, "/run/libvirt/qemu/%s.pid", lib.name(domain->handle));
    FILE *file = fopen(path, "r");
    long pid = 0;
    if (file && fscanf(file, "%ld", &pid) != 1)
        pid = 0;
    if (file)
        fclose(file);
    return (pid_t)pid;
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
    free(domain);
}

void vp_domains_disconnect(void)
{
    if (connection)
        lib.connect_close(connection);
    connection = NULL;
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

struct vp_domain *vp_domain_start(const char *xml, char *err, size_t err_len)
{
    (void)xml;
    snprintf(err, err_len, "built without libvirt");
    return NULL;
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
