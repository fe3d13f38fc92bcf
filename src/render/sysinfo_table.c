/* sysinfo's table (sysinfo_table.h). */
#include "render/sysinfo_table.h"

#include <string.h>

#include "core/idle.h"
#include "core/json.h"
#include "core/units.h"

void vp_print_sysinfo(FILE *out, const json_t *fingerprint, const json_t *advisories,
                      const json_t *from_results)
{
    const json_t *cpu = json_object_get(fingerprint, "cpu");
    const json_t *hypervisor = json_object_get(fingerprint, "hypervisor");
    const json_t *container = json_object_get(fingerprint, "container");
    char memory[32];
    vp_format_bytes(json_number_value(json_object_get(json_object_get(fingerprint, "memory"),
                                                      "total_bytes")), memory, sizeof memory);
    char addresses[512] = "";
    size_t i;
    const json_t *item;
    json_array_foreach(json_object_get(fingerprint, "addresses"), i, item) {
        size_t used = strlen(addresses);
        snprintf(addresses + used, sizeof addresses - used, "%s%s", i ? " " : "",
                 json_string_value(item));
    }
    fprintf(out, "host          %s (id %s; %s)\nkernel        %s (%s)\ndistribution  %s\n",
           vp_json_text(fingerprint, "hostname"), vp_json_text(fingerprint, "host_id"),
           addresses[0] ? addresses : "no address", vp_json_text(fingerprint, "kernel"),
           vp_json_text(fingerprint, "arch"), vp_json_text(fingerprint, "distribution"));
    fprintf(out, "cpu           %s\ntopology      %lld packages, %lld cores, %lld threads, %lld NUMA nodes\n",
           vp_json_text(cpu, "model"), (long long)json_integer_value(json_object_get(cpu, "packages")),
           (long long)json_integer_value(json_object_get(cpu, "cores")),
           (long long)json_integer_value(json_object_get(cpu, "threads")),
           (long long)json_integer_value(json_object_get(cpu, "numa_nodes")));
    fprintf(out, "memory        %s\nclocksource   %s\n", memory,
           vp_json_text(json_object_get(fingerprint, "clock"), "clocksource"));
    fprintf(out, "hypervisor    %s (cpuid '%s')\ncontainer     %s\n", vp_json_text(hypervisor, "name"),
           vp_json_text(hypervisor, "cpuid_signature"), vp_json_text(container, "kind"));
    json_array_foreach(json_object_get(fingerprint, "nics"), i, item)
        fprintf(out, "nic           %s driver %s\n", vp_json_text(item, "name"), vp_json_text(item, "driver"));
    json_array_foreach(json_object_get(fingerprint, "disks"), i, item)
        fprintf(out, "disk          %s driver %s scheduler %s\n", vp_json_text(item, "name"),
               vp_json_text(item, "driver"), vp_json_text(item, "scheduler"));
    const json_t *steal = json_object_get(fingerprint, "steal_percent_since_boot");
    if (json_is_number(steal))
        fprintf(out, "steal         %.2f%% since boot\n", json_number_value(steal));
    else
        fprintf(out, "steal         unknown (/proc/stat could not be read or parsed)\n");
    char policy[160];
    vp_idle_describe(json_object_get(fingerprint, "idle"), policy, sizeof policy);
    fprintf(out, "idle          %s\n", policy);
    fprintf(out, "\nadvisories:%s\n", json_array_size(advisories) ? "" : " none");
    char line[1024]; /* a member's advisory names what its guest said: shown printable */
    json_array_foreach(advisories, i, item)
        fprintf(out, "  - %s\n", vp_printable(json_string_value(item), line, sizeof line));
    fprintf(out, "\nfrom this host's stored results:%s\n", json_array_size(from_results) ? "" : " none");
    json_array_foreach(from_results, i, item)
        fprintf(out, "  - %s\n", vp_printable(json_string_value(item), line, sizeof line));
}
