/* `virtperf sysinfo [--json] [--db PATH|URL]`: the environment fingerprint, its advisories,
 * and the advisories that this host's stored results explain. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "analysis/advice.h"
#include "core/copy_speed.h"
#include "core/sysinfo.h"
#include "core/json.h"
#include "render/sysinfo_table.h"

static const char sysinfo_usage[] =
    "usage: virtperf sysinfo [--json] [--db PATH|URL]\n"
    "\n"
    "Prints the fingerprint stored with every run (host, kernel, CPU, topology, memory,\n"
    "clocksource, hypervisor, container, NICs, disks) and advisories that explain likely\n"
    "virtualization penalties: from the fingerprint, and from the newest stored result of\n"
    "each benchmark configuration run on this host (late timers, lost ticks, clock steps\n"
    "and drift, slow clock reads, dear cross-CPU wake-ups). --json prints\n"
    "{\"fingerprint\", \"advisories\", \"result_advisories\"}.\n";

struct sysinfo_settings {
    struct vp_shared_settings shared; /* first: the shared rows take into it */
    bool as_json;
};

static int take_json(void *settings, const char *value, char *err, size_t err_len)
{
    (void)value, (void)err, (void)err_len;
    ((struct sysinfo_settings *)settings)->as_json = true;
    return 0;
}

static const struct vp_command_flag sysinfo_rows[] = {
    { "json", 0, NULL, "the fingerprint and advisories as JSON", take_json },
    VP_DB_FLAG,
};
const struct vp_command_table vp_sysinfo_flags = {
    "sysinfo", sysinfo_rows, sizeof sysinfo_rows / sizeof sysinfo_rows[0]
};

#define RECENT_RUNS 50

/* The newest result of each benchmark and parameter set among this host's recent runs,
 * and what they explain. A store that does not exist yet explains nothing (and is not
 * created by looking). */
static json_t *stored_result_advisories(const char *db_flag, const char *hostname)
{
    json_t *advisories = json_array();
    char path[4096];
    if (db_flag)
        snprintf(path, sizeof path, "%s", db_flag);
    else if (vp_store_default_path(path, sizeof path) != 0)
        return advisories;
    if (!vp_store_names_server(path) && access(path, F_OK) != 0)
        return advisories;
    struct vp_store *store = vp_cli_open_store(path);
    json_t *newest;
    char err[VP_ERROR_LEN];
    if (vp_store_newest_results(store, hostname, RECENT_RUNS, &newest, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        vp_store_close(store);
        return advisories;
    }
    vp_result_advisories(newest, advisories);
    json_decref(newest);
    vp_store_close(store);
    return advisories;
}

int cmd_sysinfo(int argc, char **argv)
{
    struct sysinfo_settings settings = { .shared = VP_SHARED_SETTINGS_DEFAULT };
    size_t count;
    char **operands = vp_cmd_parse(&vp_sysinfo_flags, sysinfo_usage, &settings, argc, argv, &count);
    vp_cmd_flags_only(&vp_sysinfo_flags, operands, count);
    const char *db = settings.shared.db;
    char err[VP_ERROR_LEN];
    struct vp_topology *topology;
    if (vp_topology_load(&topology, NULL, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    vp_copy_speed_settle();
    json_t *fingerprint = vp_sysinfo_collect(topology);
    json_t *advisories = vp_sysinfo_advisories(fingerprint);
    json_t *from_results = stored_result_advisories(db, vp_json_text(fingerprint, "hostname"));
    if (settings.as_json) {
        json_t *document = json_pack("{s:O,s:O,s:O}", "fingerprint", fingerprint, "advisories",
                                     advisories, "result_advisories", from_results);
        json_dumpf(document, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(document);
    } else {
        vp_print_sysinfo(stdout, fingerprint, advisories, from_results);
    }
    json_decref(fingerprint);
    json_decref(advisories);
    json_decref(from_results);
    vp_topology_free(topology);
    return 0;
}
