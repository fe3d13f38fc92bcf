/* What several subcommands take alike: their shared flag rows (--db, --json, compare's
 * and report's matching flags), parsing by a table, and loading a run. */
#ifndef VP_RUN_SHARED_FLAGS_H
#define VP_RUN_SHARED_FLAGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"
#include "core/command_flags.h"
#include "store/store.h"

/* What several subcommands take alike, first in each one's settings so that the rows
 * below find it: --db PATH|URL, --json FILE|-, and compare's and report's --margin PCT,
 * --vary PARAM, --metric NAME (repeatable), --normalize clock, --clock-ghz GHZ,GHZ... */
#define VP_MAX_METRIC_FLAGS 32
struct vp_compare_flags {
    struct vp_compare_options options;
    const char *metrics[VP_MAX_METRIC_FLAGS];
    double clock_ghz[64];
};
struct vp_shared_settings {
    const char *db, *json;
    struct vp_compare_flags compare;
};
#define VP_SHARED_SETTINGS_DEFAULT { .compare = { .options = { .margin = 0.02 } } }

int vp_take_db(void *settings, const char *value, char *err, size_t err_len);
int vp_take_json(void *settings, const char *value, char *err, size_t err_len);
int vp_take_margin(void *settings, const char *value, char *err, size_t err_len);
int vp_take_vary(void *settings, const char *value, char *err, size_t err_len);
int vp_take_metrics(void *settings, const char *value, char *err, size_t err_len);
int vp_take_normalize(void *settings, const char *value, char *err, size_t err_len);
int vp_take_clock_ghz(void *settings, const char *value, char *err, size_t err_len);

#define VP_DB_FLAG                                                                          \
    { "db", 0, "PATH|URL", "the store: a SQLite file or postgresql://[USER@]HOST[:PORT]/DB\n"  \
      "[$VIRTPERF_DB, else ~/.local/share/virtperf/results.db]", vp_take_db }
#define VP_JSON_FLAG(what)                                                                  \
    { "json", 0, "FILE|-", "also write " what " as JSON (- for standard output)",          \
      vp_take_json }
#define VP_COMPARE_FLAGS                                                                    \
    { "margin", 0, "PCT", "differences inside +-PCT count as none  [2]", vp_take_margin },  \
    { "vary", 0, "PARAM", "match results that differ only in PARAM and set its values\n"     \
      "against each other: --vary bs (4k reads against 512k), --vary\n"                     \
      "path (GPFS against local disk), --vary peer", vp_take_vary },                        \
    { "metric", 0, "NAME", "only this metric (repeatable)", vp_take_metrics },       \
    { "normalize", 0, "clock", "times (app's wall_time, time_per_event...) scaled by the\n"  \
      "ratio of the runs' effective clocks (app's ghz), as the CNAF\n"                      \
      "study divided by the ratio of clock frequencies; said per row.\n"                   \
      "Where a run has no effective clock, both runs' nominal clocks:\n"                    \
      "--clock-ghz's, or the one a CPU model's name states\n"                               \
      "(X5570 @ 2.93GHz)", vp_take_normalize },                                             \
    { "clock-ghz", 0, "G,G...", "each run's nominal clock in GHz, the base's first (the\n"   \
      "CNAF study's 2.93,2.00); implies --normalize clock", vp_take_clock_ghz }

/* A subcommand's flags parsed by its table (see core/command_flags.h): --help prints
 * usage and the table's flags and exits 0, a bad flag exits 2 naming it. Returns the
 * operands (the caller frees the array, not the words), *operand_count of them. */
char **vp_cmd_parse(const struct vp_command_table *table, const char *usage, void *settings,
                    int argc, char **argv, size_t *operand_count);
/* For a command that takes flags only: exits 2 naming the first of operands, if any;
 * frees operands. */
void vp_cmd_flags_only(const struct vp_command_table *table, char **operands, size_t count);

/* Reads a run's document (id, uuid, label or latest) from store, whole or in summaries
 * (store/store.h), or exits (vp_cli_store_refusal, its line after refusal_prefix). Its
 * values are made in the JSON region (core/json_arena.h): once every document is
 * released, vp_json_arena_release(). */
json_t *vp_cli_read_run(struct vp_store *store, const char *ref, enum vp_export_detail detail,
                        const char *refusal_prefix);
/* vp_cli_read_run from the store at db, opened and closed for it. */
json_t *vp_cli_load_run(const char *db, const char *ref, enum vp_export_detail detail);

#endif
