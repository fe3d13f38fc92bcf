/* A guest's libvirt domain XML (see domain.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/domain.h"

/* text with XML's five special characters as entities. */
static void put_escaped(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*text, out);
        }
    }
}

static void put_element(FILE *out, const char *open, const char *text, const char *close)
{
    fputs(open, out);
    put_escaped(out, text);
    fputs(close, out);
}

char *vp_domain_xml(const struct vp_guest_config *config, const struct vp_guest_spec *spec)
{
    char *xml = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&xml, &len);
    if (!out)
        abort();
    fprintf(out, "<domain type='%s'>\n", spec->kvm ? "kvm" : "qemu");
    put_element(out, "  <name>", spec->name, "</name>\n");
    if (spec->owner)
        put_element(out, "  <description>" VP_GUEST_OWNER, spec->owner, "</description>\n");
    fprintf(out, "  <memory unit='MiB'>%u</memory>\n  <vcpu placement='static'>%u</vcpu>\n",
            config->memory_mib, config->cpus);
    if (spec->pin_cpus) {
        fputs("  <cputune>\n", out);
        for (unsigned v = 0; v < config->cpus; v++)
            fprintf(out, "    <vcpupin vcpu='%u' cpuset='%d'/>\n", v, spec->pin_cpus[v]);
        fputs("  </cputune>\n", out);
    }
    fputs("  <os>\n    <type arch='x86_64' machine='pc'>hvm</type>\n", out);
    put_element(out, "    <kernel>", config->kernel, "</kernel>\n");
    put_element(out, "    <initrd>", config->initrd, "</initrd>\n");
    fputs("    <cmdline>console=ttyS0 rdinit=/init panic=-1 quiet virtperf.name=", out);
    put_escaped(out, spec->name);
    if (spec->address) {
        fputs(" virtperf.address=", out);
        put_escaped(out, spec->address);
    }
    if (spec->gateway) {
        fputs(" virtperf.gateway=", out);
        put_escaped(out, spec->gateway);
    }
    if (spec->disk_path) /* the init loads the disks' modules only then */
        fputs(" virtperf.disk=1", out);
    if (config->mount_word) {
        fputc(' ', out);
        put_escaped(out, config->mount_word);
    }
    fputs("</cmdline>\n  </os>\n", out);
    if (spec->kvm)
        fputs("  <cpu mode='host-passthrough'/>\n", out);
    fputs("  <features><acpi/></features>\n  <clock offset='utc'/>\n"
          "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
          "  <on_crash>destroy</on_crash>\n  <devices>\n", out);
    put_element(out, "    <serial type='file'><source path='", spec->console_path,
                "'/><target port='0'/></serial>\n");
    fputs("    <controller type='virtio-serial' index='0'/>\n", out);
    put_element(out, "    <channel type='unix'><source mode='bind' path='", spec->channel_path,
                "'/><target type='virtio' name='" VP_GUEST_CHANNEL "'/></channel>\n");
    if (config->bridge) {
        put_element(out, "    <interface type='bridge'><source bridge='", config->bridge, "'/>");
        fprintf(out, "<model type='%s'/></interface>\n", config->nic->model);
    }
    if (spec->disk_path) {
        if (strcmp(config->disk_bus->model, "scsi") == 0)
            fputs("    <controller type='scsi' index='0' model='virtio-scsi'/>\n", out);
        put_element(out, "    <disk type='file' device='disk'><driver name='qemu' type='raw' "
                    "cache='none'/><source file='", spec->disk_path, "'/>");
        fprintf(out, "<target dev='%s' bus='%s'/></disk>\n", config->disk_bus->target,
                config->disk_bus->model);
    }
    /* a hardware generator, its rate bounded: the guest's kernel has random numbers at once */
    fputs("    <rng model='virtio'><rate period='1000' bytes='4096'/>"
          "<backend model='random'>/dev/urandom</backend></rng>\n", out);
    fputs("    <memballoon model='none'/>\n  </devices>\n</domain>\n", out);
    fclose(out);
    return xml;
}
