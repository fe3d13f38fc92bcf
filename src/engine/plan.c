/* Building and checking the run plan (see plan.h). */
#include "engine/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/presets.h"
#include "core/limits.h"
#include "core/units.h"

/* What the request selects, presets expanded: benchmarks and options (a preset's go
 * before the user's, so the user's override them). */
struct selection {
    const struct vp_bench *benches[VP_PLAN_MAX_BENCHES];
    size_t bench_count;
    struct vp_plan_option options[VP_PLAN_MAX_OPTIONS];
    size_t option_count;
    unsigned counts[VP_MAX_JOBS];
    size_t count_count;
};

static int fail(char *err, size_t err_len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t err_len, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(err, err_len, format, args);
    va_end(args);
    return -1;
}

static void add_bench(struct selection *selection, const struct vp_bench *bench)
{
    if (selection->bench_count < VP_PLAN_MAX_BENCHES)
        selection->benches[selection->bench_count++] = bench;
}

static int apply_preset(struct selection *selection, const struct vp_preset *preset, char *err,
                        size_t err_len)
{
    size_t added = 0;
    while (preset->options[added].name)
        added++;
    if (selection->option_count + added > VP_PLAN_MAX_OPTIONS)
        return fail(err, err_len, "run: too many benchmark options (at most %d)",
                    VP_PLAN_MAX_OPTIONS);
    memmove(selection->options + added, selection->options,
            selection->option_count * sizeof *selection->options);
    for (size_t i = 0; i < added; i++)
        selection->options[i] = (struct vp_plan_option){ preset->options[i].name,
                                                         preset->options[i].value };
    selection->option_count += added;
    for (size_t b = 0; preset->benches[b]; b++)
        add_bench(selection, vp_bench_find(preset->benches[b]));
    return 0;
}

static int unknown_bench(const char *word, char *err, size_t err_len)
{
    char known[1024] = "";
    for (size_t b = 0; b < vp_bench_count; b++) {
        if (vp_benches[b]->hidden)
            continue;
        strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, vp_benches[b]->name, sizeof known - strlen(known) - 1);
    }
    char presets[256] = "";
    for (size_t p = 0; p < vp_preset_count; p++) {
        strncat(presets, p ? ", " : "", sizeof presets - strlen(presets) - 1);
        strncat(presets, vp_presets[p].name, sizeof presets - strlen(presets) - 1);
    }
    return fail(err, err_len, "unknown benchmark '%s'; accepted: %s, a family such as mem or "
                "vcost.*, or a preset (%s)", word, known, presets);
}

/* A name selects its benchmark (hidden ones too); "mem" or "mem.*" every listed one of
 * the family; a preset its benchmarks and options. */
static int select_word(struct selection *selection, const char *word, char *err, size_t err_len)
{
    const struct vp_preset *preset = vp_preset_find(word);
    if (preset)
        return apply_preset(selection, preset, err, err_len);
    size_t before = selection->bench_count;
    size_t word_len = strlen(word);
    if (word_len > 2 && strcmp(word + word_len - 2, ".*") == 0)
        word_len -= 2; /* "vcost.*" is the family vcost */
    for (size_t b = 0; b < vp_bench_count; b++) {
        const char *name = vp_benches[b]->name;
        bool family = !vp_benches[b]->hidden && strncmp(name, word, word_len) == 0 &&
                      name[word_len] == '.';
        bool exact = strlen(name) == word_len && strncmp(name, word, word_len) == 0;
        if (exact || family)
            add_bench(selection, vp_benches[b]);
    }
    return selection->bench_count == before ? unknown_bench(word, err, err_len) : 0;
}

static int select_all(const struct vp_plan_request *request, struct selection *selection,
                      char *err, size_t err_len)
{
    memcpy(selection->options, request->options, request->option_count * sizeof *request->options);
    selection->option_count = request->option_count;
    for (size_t i = 0; i < request->word_count; i++)
        if (select_word(selection, request->words[i], err, err_len) != 0)
            return -1;
    if (request->word_count == 0)
        for (size_t b = 0; b < vp_bench_count; b++)
            if (vp_benches[b]->in_quick_suite)
                add_bench(selection, vp_benches[b]);
    const char *jobs_text = request->jobs_text ? request->jobs_text : "1";
    if (vp_parse_jobs_spec(jobs_text, VP_MAX_JOBS, selection->counts, VP_MAX_JOBS,
                           &selection->count_count) != 0)
        return fail(err, err_len, "--jobs: '%s' is not valid; accepted: N, a list 1,2,4 or a "
                    "range 1..8 (increasing, 1 to %d)", jobs_text, VP_MAX_JOBS);
    return 0;
}

static bool some_bench_has(const struct selection *selection, const char *option)
{
    for (size_t b = 0; b < selection->bench_count; b++)
        for (size_t o = 0; o < selection->benches[b]->option_count; o++)
            if (strcmp(selection->benches[b]->options[o].name, option) == 0)
                return true;
    return false;
}

/* A benchmark's params: its defaults, then every given option it has, in order. */
static int bench_params(const struct selection *selection, const struct vp_bench *bench,
                        struct vp_params *params, char *err, size_t err_len)
{
    vp_params_init(params, bench->options, bench->option_count);
    for (size_t g = 0; g < selection->option_count; g++) {
        int index = vp_params_find(params, selection->options[g].name);
        if (index < 0)
            continue;
        char reason[VP_ERROR_LEN];
        if (vp_option_parse(&bench->options[index], selection->options[g].value,
                            &params->values[index], reason, sizeof reason) != 0)
            return fail(err, err_len, "%s (%s)", reason, bench->name);
        params->values[index].given = true;
    }
    return 0;
}

/* The job counts, pin, repetitions and warm-ups of one benchmark. One that measures
 * each CPU (one_job_per_cpu) runs, unless told otherwise, one job on each CPU this run
 * may use, pinned to them; one that watches (one_observation) one repetition without a
 * warm-up unless told otherwise; the rest take --jobs, --pin, --reps, --warmup. */
struct bench_shape {
    const unsigned *counts;
    size_t count_count;
    unsigned per_cpu_count;
    const char *pin;
    char per_cpu_pin[VP_PLAN_PIN_LEN];
    unsigned reps, warmup;
    double reps_target;
};

static void shape_bench(const struct vp_plan_request *request, const struct selection *selection,
                        const struct vp_bench *bench, struct bench_shape *shape)
{
    shape->counts = selection->counts;
    shape->count_count = selection->count_count;
    shape->pin = request->pin ? request->pin : "none";
    unsigned reps = request->reps_given ? request->reps : 5;
    unsigned warmup = request->warmup_given ? request->warmup : 1;
    shape->reps = bench->one_observation && !request->reps_given ? 1 : reps;
    shape->warmup = bench->one_observation && !request->warmup_given ? 0 : warmup;
    shape->reps_target = request->reps_auto && !bench->one_observation
                             ? (request->reps_target > 0 ? request->reps_target : 0.02)
                             : 0;
    if (!bench->one_job_per_cpu)
        return;
    vp_affinity_text(shape->per_cpu_pin, sizeof shape->per_cpu_pin);
    unsigned cpus = vp_allowed_cpus(NULL, 0);
    if (!shape->per_cpu_pin[0] || cpus == 0)
        return; /* the affinity cannot be read: as given */
    shape->per_cpu_count = cpus < VP_MAX_JOBS ? cpus : VP_MAX_JOBS;
    if (!request->jobs_text && !request->pin) {
        shape->counts = &shape->per_cpu_count;
        shape->count_count = 1;
    }
    if (!request->pin)
        shape->pin = shape->per_cpu_pin;
}

static size_t sweep_length(const struct vp_bench *bench, const struct vp_params *params)
{
    if (!bench->sweep_option)
        return 1;
    size_t points = params->values[vp_params_find(params, bench->sweep_option)].list_len;
    return points ? points : 1; /* an optional sweep not asked for: one result without it */
}

/* Appends the points of one benchmark: every sweep value at every job count. */
static void add_points(struct vp_plan *plan, size_t step, const struct vp_bench *bench,
                       const struct vp_params *params, const struct bench_shape *shape)
{
    int sweep = bench->sweep_option ? vp_params_find(params, bench->sweep_option) : -1;
    size_t values = sweep_length(bench, params);
    for (size_t v = 0; v < values; v++) {
        for (size_t j = 0; j < shape->count_count; j++) {
            struct vp_plan_point *point = &plan->points[plan->count++];
            point->bench = bench;
            point->step = step;
            point->params = *params;
            if (sweep >= 0 && point->params.values[sweep].list_len)
                vp_param_select(&params->options[sweep], &point->params.values[sweep], v);
            point->jobs = shape->counts[j];
            point->reps = shape->reps;
            point->warmup = shape->warmup;
            point->reps_target = shape->reps_target;
            snprintf(point->pin, sizeof point->pin, "%s", shape->pin);
            plan->total_reps += shape->reps + shape->warmup;
        }
    }
}

/* Checks the given options and builds every benchmark's params (kept in params[]). */
static int build_params(const struct vp_plan_request *request, const struct selection *selection,
                        struct vp_params *params, char *err, size_t err_len)
{
    for (size_t g = 0; g < selection->option_count; g++)
        if (!some_bench_has(selection, selection->options[g].name))
            return fail(err, err_len, "--%s: not an option of the selected benchmarks; see "
                        "'virtperf list BENCH'", selection->options[g].name);
    bool timed = false;
    for (size_t b = 0; b < selection->bench_count; b++) {
        if (bench_params(selection, selection->benches[b], &params[b], err, err_len) != 0)
            return -1;
        timed = timed || selection->benches[b]->uses_duration;
    }
    if (request->duration > 0 && !timed) {
        char bound[512] = "";
        for (size_t b = 0; b < vp_bench_count; b++) {
            if (!vp_benches[b]->uses_duration || vp_benches[b]->hidden)
                continue;
            strncat(bound, bound[0] ? ", " : "", sizeof bound - strlen(bound) - 1);
            strncat(bound, vp_benches[b]->name, sizeof bound - strlen(bound) - 1);
        }
        return fail(err, err_len, "--duration: none of the selected benchmarks is time-bound "
                    "(these are: %s)", bound);
    }
    return 0;
}

int vp_plan_build(const struct vp_plan_request *request, struct vp_plan *plan, char *err,
                  size_t err_len)
{
    *plan = (struct vp_plan){ .duration = request->duration };
    struct selection *selection = calloc(1, sizeof *selection);
    struct vp_params *params = calloc(VP_PLAN_MAX_BENCHES, sizeof *params);
    struct bench_shape *shape = malloc(sizeof *shape);
    if (!selection || !params || !shape)
        abort();
    int status = select_all(request, selection, err, err_len);
    if (status == 0 && request->reps_target > 0 && !request->reps_auto)
        status = -1, snprintf(err, err_len, "--target: goes with --reps auto (it says when "
                              "auto repetitions may stop)");
    if (status == 0)
        status = build_params(request, selection, params, err, err_len);
    size_t total = 0;
    for (size_t b = 0; status == 0 && b < selection->bench_count; b++) {
        shape_bench(request, selection, selection->benches[b], shape);
        total += sweep_length(selection->benches[b], &params[b]) * shape->count_count;
    }
    if (status == 0) {
        plan->points = calloc(total ? total : 1, sizeof *plan->points);
        if (!plan->points)
            abort();
        for (size_t b = 0; b < selection->bench_count; b++) {
            shape_bench(request, selection, selection->benches[b], shape);
            add_points(plan, b, selection->benches[b], &params[b], shape);
        }
    }
    free(selection);
    free(params);
    free(shape);
    return status;
}

int vp_plan_check(const struct vp_plan *plan, const struct vp_topology *topology, char *err,
                  size_t err_len)
{
    for (size_t first = 0; first < plan->count;) {
        const struct vp_plan_point *point = &plan->points[first];
        unsigned max_jobs = 0;
        size_t next = first;
        for (; next < plan->count && plan->points[next].step == point->step; next++)
            max_jobs = plan->points[next].jobs > max_jobs ? plan->points[next].jobs : max_jobs;
        char reason[VP_ERROR_LEN + 1200];
        if (point->bench->validate &&
            point->bench->validate(&point->params, max_jobs, reason, sizeof reason) != 0)
            return fail(err, err_len, "%s (%s)", reason, point->bench->name);
        if (vp_pin_check(topology, point->pin, err, err_len) != 0)
            return -1;
        first = next;
    }
    return 0;
}

void vp_plan_free(struct vp_plan *plan)
{
    free(plan->points);
    *plan = (struct vp_plan){ 0 };
}
