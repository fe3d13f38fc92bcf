/* `virtperf results list|show|export|import|delete|push`: the stored runs. */
#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "analysis/study.h"
#include "render/study.h"
#include "render/table.h"
#include "analysis/shown.h"

#define MAX_IMPORT_BYTES (256L * 1024 * 1024)

static const char results_usage[] =
    "usage: virtperf results list              [--db PATH|URL]\n"
    "       virtperf results show RUN          [--db PATH|URL]\n"
    "       virtperf results export RUN [-o FILE|-] [--format json|csv] [--db PATH|URL]\n"
    "       virtperf results import FILE|-     [--db PATH|URL]\n"
    "       virtperf results delete RUN        [--db PATH|URL]\n"
    "       virtperf results push [RUN...] --to URL [--db PATH|URL]\n"
    "\n"
    "RUN is a run id, a run uuid, a label (its latest run) or 'latest'. export writes the\n"
    "virtperf/1 JSON document (stdout by default), or with --format csv one row per\n"
    "result and metric for spreadsheets; import reads a JSON document back, checking every\n"
    "field first: a malformed document is refused and nothing is written. push copies runs\n"
    "(every run when none is named) into a site store, postgresql://[USER@]HOST[:PORT]/DB,\n"
    "one transaction per run: a run already there (by its uuid) is left as it is, so\n"
    "pushing twice, or from two hosts, adds nothing. --db also takes such a URL.\n";

struct results_settings {
    struct vp_shared_settings shared; /* first: the shared rows take into it */
    const char *output, *to;
    bool csv, export_flag_given;
};

static int take_output(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len; /* the output's opening checks it */
    struct results_settings *results = settings;
    results->output = value;
    results->export_flag_given = true;
    return 0;
}

static int take_format(void *settings, const char *value, char *err, size_t err_len)
{
    struct results_settings *results = settings;
    if (strcmp(value, "csv") != 0 && strcmp(value, "json") != 0) {
        snprintf(err, err_len, "--format: '%s' is not valid; accepted: json, csv", value);
        return -1;
    }
    results->csv = strcmp(value, "csv") == 0;
    results->export_flag_given = true;
    return 0;
}

static int take_to(void *settings, const char *value, char *err, size_t err_len)
{
    (void)err, (void)err_len; /* the site store's opening checks it */
    ((struct results_settings *)settings)->to = value;
    return 0;
}

static const struct vp_command_flag results_flags[] = {
    { "output", 'o', "FILE|-", "export's file  [- : standard output]", take_output },
    { "format", 0, "json|csv", "export's form  [json]", take_format },
    { "to", 0, "URL", "push's site store: postgresql://[USER@]HOST[:PORT]/DB or a SQLite\n"
      "file", take_to },
    VP_DB_FLAG,
};
const struct vp_command_table vp_results_flags = {
    "results", results_flags, sizeof results_flags / sizeof results_flags[0]
};

static void print_run_row(const struct vp_run_row *row, void *context)
{
    (void)context;
    char started[64], label[160], status[32], host[160], uuid[80];
    printf("%-5lld %-20s %-12s %-11s %-7d %-16s %s\n", (long long)row->id,
           vp_printable(row->started_at, started, sizeof started),
           row->label[0] ? vp_printable(row->label, label, sizeof label) : "-",
           vp_printable(row->status, status, sizeof status), row->result_count,
           vp_printable(row->hostname, host, sizeof host), vp_printable(row->uuid, uuid, sizeof uuid));
}

static void count_run(const struct vp_run_row *row, void *context)
{
    (void)row;
    ++*(int *)context;
}

static int results_list(struct vp_store *store)
{
    int runs = 0;
    char err[VP_ERROR_LEN + 256];
    if (vp_store_list_runs(store, count_run, &runs, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        return 1;
    }
    if (runs == 0) {
        printf("no runs stored yet: 'virtperf run' stores one, 'virtperf results import' "
               "brings one from another host\n");
        return 0;
    }
    printf("%-5s %-20s %-12s %-11s %-7s %-16s %s\n", "id", "started (UTC)", "label", "status",
           "results", "host", "uuid");
    if (vp_store_list_runs(store, print_run_row, NULL, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "virtperf: %s\n", err);
    return 1;
}

static int64_t resolve_or_exit(struct vp_store *store, const char *ref)
{
    int64_t run_id;
    char err[VP_ERROR_LEN + 256];
    if (vp_store_resolve_run(store, ref, &run_id, err, sizeof err) != 0)
        vp_cli_store_refusal(store, "", err);
    return run_id;
}

static json_t *export_or_exit(struct vp_store *store, int64_t run_id)
{
    json_t *document;
    char err[VP_ERROR_LEN + 256];
    if (vp_store_export_run(store, run_id, VP_EXPORT_WHOLE, &document, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        exit(1);
    }
    return document;
}

static int results_show(struct vp_store *store, const char *ref)
{
    json_t *document = export_or_exit(store, resolve_or_exit(store, ref));
    const json_t *run = json_object_get(document, "run");
    const char *label = json_string_value(json_object_get(run, "label"));
    char id[80], started[64], label_text[160], status[32], host[160];
    printf("run %s  started %s  label %s  status %s  host %s\n\n",
           vp_printable(json_string_value(json_object_get(run, "id")), id, sizeof id),
           vp_printable(json_string_value(json_object_get(run, "started_at")), started,
                        sizeof started),
           label ? vp_printable(label, label_text, sizeof label_text) : "-",
           vp_printable(json_string_value(json_object_get(run, "status")), status, sizeof status),
           vp_printable(json_string_value(json_object_get(json_object_get(run, "host"), "hostname")),
                        host, sizeof host));
    size_t i;
    const json_t *result;
    json_array_foreach(json_object_get(document, "results"), i, result) {
        json_t *shown = vp_result_shown(result);
        vp_print_result(stdout, result, shown, vp_cli_units());
        json_decref(shown);
    }
    json_t *study = vp_study(document, NULL, 0);
    if (study)
        vp_print_study(stdout, study, vp_cli_units());
    json_decref(study);
    const char *plan = json_string_value(json_object_get(run, "plan"));
    if (plan) { /* the plan file the run was made from, line by line, as it was read */
        printf("plan:\n");
        for (const char *line = plan; *line;) {
            size_t len = strcspn(line, "\n");
            char shown_line[512];
            char *copy = strndup(line, len < 500 ? len : 500);
            printf("  %s\n", vp_printable(copy ? copy : "", shown_line, sizeof shown_line));
            free(copy);
            line += len + (line[len] == '\n');
        }
    }
    json_decref(document);
    return 0;
}

/* A CSV field, quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *out, const char *text, int last)
{
    if (strpbrk(text, ",\"\n")) {
        fputc('"', out);
        for (const char *c = text; *c; c++) {
            if (*c == '"')
                fputc('"', out);
            fputc(*c, out);
        }
        fputc('"', out);
    } else {
        fputs(text, out);
    }
    fputc(last ? '\n' : ',', out);
}

static void csv_number(FILE *out, const json_t *value, int last)
{
    char text[64] = "";
    if (json_is_number(value))
        snprintf(text, sizeof text, "%.17g", json_number_value(value));
    csv_field(out, text, last);
}

/* One CSV row: the result's columns, then the figures of stats (its count_key as n, mean,
 * stddev, min, max, p50) and what they were taken over. */
static void csv_row(FILE *out, const json_t *run, const json_t *result, const char *params,
                    const char *name, const json_t *metric, const char *over,
                    const char *count_key, const json_t *stats)
{
    const char *label = json_string_value(json_object_get(run, "label"));
    char jobs[16], ranks[16] = "", machines[16] = "";
    snprintf(jobs, sizeof jobs, "%lld", (long long)json_integer_value(json_object_get(result, "jobs")));
    const json_t *across = json_object_get(result, "ranks");
    if (across) { /* virtperf-mpi: the ranks measured and the machines they ran on */
        size_t i, distinct = 0;
        const json_t *host;
        json_array_foreach(json_object_get(across, "hosts"), i, host) {
            const json_t *machine = json_object_get(host, "machine");
            distinct += !machine || json_equal(machine, json_object_get(host, "rank"));
        }
        snprintf(ranks, sizeof ranks, "%lld", (long long)json_integer_value(json_object_get(across, "count")));
        snprintf(machines, sizeof machines, "%zu", distinct);
    }
    csv_field(out, json_string_value(json_object_get(run, "id")), 0);
    csv_field(out, label ? label : "", 0);
    csv_field(out, json_string_value(json_object_get(result, "bench")), 0);
    csv_field(out, params, 0);
    csv_field(out, jobs, 0);
    csv_field(out, ranks, 0);
    csv_field(out, machines, 0);
    csv_field(out, json_string_value(json_object_get(result, "status")), 0);
    csv_field(out, name, 0);
    csv_field(out, json_string_value(json_object_get(metric, "unit")) ?: "", 0);
    csv_field(out, json_string_value(json_object_get(metric, "better")) ?: "", 0);
    csv_field(out, over, 0);
    csv_number(out, json_object_get(stats, count_key), 0);
    csv_number(out, json_object_get(stats, "mean"), 0);
    csv_number(out, json_object_get(stats, "stddev"), 0);
    csv_number(out, json_object_get(stats, "min"), 0);
    csv_number(out, json_object_get(stats, "max"), 0);
    csv_number(out, json_object_get(stats, "p50"), 1);
}

/* One row per result and metric over its repetitions: run, label, bench, params, jobs,
 * ranks and hosts (of a virtperf-mpi result: the ranks measured, the machines they ran
 * on; empty on one host), status, metric, unit, better, over, n, mean, stddev, min, max, p50; and for a metric
 * with a latency distribution a second row over the individual requests (operations):
 * the SPring-8 study's min/max/avg/SD of every request. */
static void write_csv(FILE *out, const json_t *document)
{
    const json_t *run = json_object_get(document, "run");
    fputs("run,label,bench,params,jobs,ranks,hosts,status,metric,unit,better,over,n,mean,stddev,"
          "min,max,p50\n", out);
    size_t i;
    const json_t *result;
    json_array_foreach(json_object_get(document, "results"), i, result) {
        char *params = json_dumps(json_object_get(result, "params"), JSON_COMPACT | JSON_SORT_KEYS);
        const char *name;
        const json_t *metric;
        json_t *metrics = json_object_get(result, "metrics");
        json_t *none = json_pack("{s:{}}", "-");
        json_object_foreach(json_object_size(metrics) ? metrics : none, name, metric) {
            const char *shown = json_object_size(metrics) ? name : "";
            csv_row(out, run, result, params, shown, metric, "repetitions", "n", metric);
            const json_t *distribution = json_object_get(metric, "distribution");
            if (distribution)
                csv_row(out, run, result, params, shown, metric, "requests", "count",
                        distribution);
        }
        json_decref(none);
        free(params);
    }
}

static int results_export(struct vp_store *store, const char *ref, const char *output_path,
                          int csv)
{
    int64_t run_id = resolve_or_exit(store, ref);
    struct vp_json_output output;
    char err[VP_PATH_ERROR_LEN];
    if (vp_json_output_open(&output, "-o", output_path, err, sizeof err) != 0)
        vp_usage_error("%s", err);
    json_t *document = export_or_exit(store, run_id);
    int rc;
    if (csv) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        if (!out)
            abort();
        write_csv(out, document);
        fclose(out);
        rc = vp_output_commit_text(&output, text, len, err, sizeof err);
        free(text);
    } else {
        rc = vp_json_output_commit(&output, document, err, sizeof err);
    }
    json_decref(document);
    if (rc != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        return 1;
    }
    return 0;
}

/* Reads at most MAX_IMPORT_BYTES; a larger file is refused, not truncated. */
static char *read_input(const char *path, size_t *len)
{
    struct stat info;
    if (strcmp(path, "-") != 0 && stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        vp_usage_error("import: '%s' is a directory; accepted: a virtperf/1 JSON file or -", path);
    FILE *file = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!file)
        vp_usage_error("import: cannot read '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, used = 0;
    char *text = malloc(cap);
    if (!text)
        abort();
    size_t got;
    while ((got = fread(text + used, 1, cap - used, file)) > 0) {
        used += got;
        if (used == cap) {
            if (cap >= (size_t)MAX_IMPORT_BYTES)
                vp_usage_error("import: '%s' is larger than %ld MiB; accepted: a virtperf/1 "
                               "document up to that size", path, MAX_IMPORT_BYTES >> 20);
            cap *= 2;
            text = realloc(text, cap);
            if (!text)
                abort();
        }
    }
    if (file != stdin)
        fclose(file);
    *len = used;
    return text;
}

static int results_import(struct vp_store *store, const char *path)
{
    size_t len;
    char *text = read_input(path, &len);
    json_error_t parse_error;
    json_t *document = json_loadb(text, len, JSON_REJECT_DUPLICATES, &parse_error);
    free(text);
    if (!document)
        vp_usage_error("import: '%s' is not valid JSON: line %d column %d: %s; accepted: a "
                       "virtperf/1 document", path, parse_error.line, parse_error.column,
                       parse_error.text);
    int64_t run_id;
    char err[VP_ERROR_LEN + 512];
    if (vp_store_import(store, document, &run_id, err, sizeof err) != 0) {
        json_decref(document);
        vp_usage_error("import: %s: %s (nothing was stored)", path, err);
    }
    json_decref(document);
    printf("imported as run %lld\n", (long long)run_id);
    return 0;
}

/* push: each run of the local store copied into a site store (a PostgreSQL server, or
 * another SQLite file) as its virtperf/1 document, in one transaction per run, so that a
 * failed push leaves no half run there. A run is the same run wherever it is pushed from:
 * its uuid decides, so a second push, or the same run pushed from another host, adds
 * nothing. A run still running is left for later. */
struct run_list {
    int64_t *ids;
    size_t count, capacity;
};

static void add_run(const struct vp_run_row *row, void *context)
{
    struct run_list *list = context;
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 64;
        list->ids = realloc(list->ids, list->capacity * sizeof *list->ids);
        if (!list->ids)
            abort();
    }
    list->ids[list->count++] = row->id;
}

/* The local runs to push: those refs name, else every run, oldest first; exits on a
 * reference that names none. */
static struct run_list runs_to_push(struct vp_store *local, char **refs, int count)
{
    struct run_list list = { 0 };
    char err[VP_ERROR_LEN + 256];
    if (count == 0) {
        if (vp_store_list_runs(local, add_run, &list, err, sizeof err) != 0)
            vp_cli_store_refusal(local, "push: ", err);
        return list;
    }
    for (int i = 0; i < count; i++) {
        struct vp_run_row row = { 0 };
        if (vp_store_resolve_run(local, refs[i], &row.id, err, sizeof err) != 0)
            vp_cli_store_refusal(local, "push: ", err);
        add_run(&row, &list);
    }
    return list;
}

/* Pushes one run; 0 when the site store has it afterwards, VP_STORE_UNAVAILABLE when the
 * site store went away meanwhile, else -1. */
static int push_run(struct vp_store *local, struct vp_store *site, int64_t run_id, const char *to)
{
    json_t *document;
    char err[VP_ERROR_LEN + 256];
    if (vp_store_export_run(local, run_id, VP_EXPORT_WHOLE, &document, err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: push: run %lld: %s\n", (long long)run_id, err);
        return -1;
    }
    const json_t *run = json_object_get(document, "run");
    const char *uuid = json_string_value(json_object_get(run, "id"));
    const char *status = json_string_value(json_object_get(run, "status"));
    int rc = 0;
    int64_t site_id;
    if (strcmp(status, "running") == 0) {
        fprintf(stderr, "virtperf: push: run %lld (%s) is still running: push it when it ends\n",
                (long long)run_id, uuid);
        rc = -1;
    } else {
        int imported = vp_store_import(site, document, &site_id, err, sizeof err);
        if (imported == 0)
            printf("pushed run %lld (%s, %zu results) to %s as run %lld\n", (long long)run_id,
                   uuid, json_array_size(json_object_get(document, "results")), to,
                   (long long)site_id);
        else if (imported == VP_STORE_ALREADY_THERE)
            printf("run %lld (%s) is in %s already: nothing added\n", (long long)run_id, uuid, to);
        else {
            fprintf(stderr, "virtperf: push: run %lld (%s) not pushed, nothing of it kept there: "
                    "%s\n", (long long)run_id, uuid, err);
            rc = imported == VP_STORE_UNAVAILABLE ? VP_STORE_UNAVAILABLE : -1;
        }
    }
    json_decref(document);
    fflush(stdout); /* each run's line as it is pushed, through a pipe or into a file too */
    return rc;
}

static int results_push(struct vp_store *local, char **refs, int count, const char *to)
{
    struct run_list list = runs_to_push(local, refs, count);
    struct vp_store *site = vp_cli_open_store(to);
    size_t failed = 0;
    for (size_t i = 0; i < list.count; i++) {
        int rc = push_run(local, site, list.ids[i], to);
        failed += rc != 0;
        if (rc == VP_STORE_UNAVAILABLE && i + 1 < list.count) { /* the rest would fail alike */
            fprintf(stderr, "virtperf: push: %s can no longer be reached: stopped, the %zu "
                    "run(s) after that one not tried\n", to, list.count - i - 1);
            failed += list.count - i - 1;
            break;
        }
    }
    if (list.count == 0)
        printf("no runs to push: the local store holds none\n");
    else if (failed)
        fprintf(stderr, "virtperf: push: %zu of %zu run(s) not pushed (above); pushing again "
                "adds only what is missing\n", failed, list.count);
    vp_store_close(site);
    free(list.ids);
    return failed ? 1 : 0;
}

int cmd_results(int argc, char **argv)
{
    struct results_settings settings = { .shared = VP_SHARED_SETTINGS_DEFAULT, .output = "-" };
    size_t count;
    char **words = vp_cmd_parse(&vp_results_flags, results_usage, &settings, argc, argv, &count);
    int rest = (int)count;
    const char *db = settings.shared.db, *to = settings.to;
    if (rest == 0)
        vp_usage_error("results: missing action; accepted: list, show, export, import, delete, "
                       "push");
    const char *action = words[0];
    int wants_argument = strcmp(action, "list") != 0;
    if (strcmp(action, "list") && strcmp(action, "show") && strcmp(action, "export") &&
        strcmp(action, "import") && strcmp(action, "delete") && strcmp(action, "push"))
        vp_usage_error("results: unknown action '%s'; accepted: list, show, export, import, "
                       "delete, push", action);
    if (settings.export_flag_given && strcmp(action, "export") != 0)
        vp_usage_error("results %s: -o and --format are export's alone", action);
    if ((to != NULL) != (strcmp(action, "push") == 0))
        vp_usage_error("results %s: %s", action, to ? "--to is push's alone"
                       : "--to URL is missing: the site store to push to, such as "
                         "postgresql://USER@HOST/DATABASE");
    if (strcmp(action, "push") == 0) {
        struct vp_store *local = vp_cli_open_store(db);
        int pushed = results_push(local, words + 1, rest - 1, to);
        vp_store_close(local);
        free(words);
        return pushed;
    }
    if (rest != 1 + wants_argument)
        vp_usage_error("results %s: %s", action,
                       wants_argument ? "takes one argument (see 'virtperf results --help')"
                                      : "takes no argument");
    struct vp_store *store = vp_cli_open_store(db);
    int rc;
    if (strcmp(action, "list") == 0)
        rc = results_list(store);
    else if (strcmp(action, "show") == 0)
        rc = results_show(store, words[1]);
    else if (strcmp(action, "export") == 0)
        rc = results_export(store, words[1], settings.output, settings.csv);
    else if (strcmp(action, "import") == 0)
        rc = results_import(store, words[1]);
    else {
        char err[VP_ERROR_LEN];
        int64_t run_id = resolve_or_exit(store, words[1]);
        rc = vp_store_delete_run(store, run_id, err, sizeof err) == 0 ? 0 : 1;
        if (rc == 0)
            printf("deleted run %lld\n", (long long)run_id);
        else
            fprintf(stderr, "virtperf: %s\n", err);
    }
    vp_store_close(store);
    free(words);
    return rc;
}
