/* `virtperf sysinfo [--json]`: the environment fingerprint and its advisories. */
#include <stdio.h>
#include <string.h>

#include "cmd/common.h"
#include "core/sysinfo.h"
#include "core/units.h"
#include "core/result.h"

static const char sysinfo_usage[] =
    "usage: virtperf sysinfo [--json]\n"
    "\n"
    "Prints the fingerprint stored with every run (host, kernel, CPU, topology, memory,\n"
    "clocksource, hypervisor, container, NICs, disks) and advisories that explain likely\n"
    "virtualization penalties. --json prints {\"fingerprint\", \"advisories\"}.\n";

static void print_human(const json_t *fingerprint, const json_t *advisories)
{
    const json_t *cpu = json_object_get(fingerprint, "cpu");
    const json_t *hypervisor = json_object_get(fingerprint, "hypervisor");
    const json_t *container = json_object_get(fingerprint, "container");
    char memory[32];
    vp_format_bytes(json_number_value(json_object_get(json_object_get(fingerprint, "memory"),
                                                      "total_bytes")), memory, sizeof memory);
    printf("host          %s\nkernel        %s (%s)\ndistribution  %s\n", vp_json_text(fingerprint, "hostname"),
           vp_json_text(fingerprint, "kernel"), vp_json_text(fingerprint, "arch"),
           vp_json_text(fingerprint, "distribution"));
    printf("cpu           %s\ntopology      %lld packages, %lld cores, %lld threads, %lld NUMA nodes\n",
           vp_json_text(cpu, "model"), (long long)json_integer_value(json_object_get(cpu, "packages")),
           (long long)json_integer_value(json_object_get(cpu, "cores")),
           (long long)json_integer_value(json_object_get(cpu, "threads")),
           (long long)json_integer_value(json_object_get(cpu, "numa_nodes")));
    printf("memory        %s\nclocksource   %s\n", memory,
           vp_json_text(json_object_get(fingerprint, "clock"), "clocksource"));
    printf("hypervisor    %s (cpuid '%s')\ncontainer     %s\n", vp_json_text(hypervisor, "name"),
           vp_json_text(hypervisor, "cpuid_signature"), vp_json_text(container, "kind"));
    size_t i;
    const json_t *item;
    json_array_foreach(json_object_get(fingerprint, "nics"), i, item)
        printf("nic           %s driver %s\n", vp_json_text(item, "name"), vp_json_text(item, "driver"));
    json_array_foreach(json_object_get(fingerprint, "disks"), i, item)
        printf("disk          %s driver %s scheduler %s\n", vp_json_text(item, "name"),
               vp_json_text(item, "driver"), vp_json_text(item, "scheduler"));
    printf("steal         %.2f%% since boot\n",
           json_number_value(json_object_get(fingerprint, "steal_percent_since_boot")));
    printf("\nadvisories:%s\n", json_array_size(advisories) ? "" : " none");
    json_array_foreach(advisories, i, item)
        printf("  - %s\n", json_string_value(item));
}

int cmd_sysinfo(int argc, char **argv)
{
    int as_json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            as_json = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(sysinfo_usage, stdout);
            return 0;
        } else
            vp_usage_error("sysinfo: unknown argument '%s'; accepted: --json, --help", argv[i]);
    }
    char err[VP_ERROR_LEN];
    struct vp_topology *topology;
    if (vp_topology_load(&topology, NULL, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *fingerprint = vp_sysinfo_collect(topology);
    json_t *advisories = vp_sysinfo_advisories(fingerprint);
    if (as_json) {
        json_t *document = json_pack("{s:O,s:O}", "fingerprint", fingerprint, "advisories",
                                     advisories);
        json_dumpf(document, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(document);
    } else {
        print_human(fingerprint, advisories);
    }
    json_decref(fingerprint);
    json_decref(advisories);
    vp_topology_free(topology);
    return 0;
}
