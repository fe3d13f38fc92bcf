/* `virtperf list [BENCH]`: the benchmarks, or one benchmark's options and metrics;
 * `virtperf list --man`: the manual's RUN OPTIONS, COMMAND OPTIONS, BENCHMARKS and
 * PRESETS sections in roff. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/presets.h"
#include "cmd/commands.h"
#include "run/run_flags.h"
#include "core/json.h"
#include "render/roff.h"

static const char list_usage[] =
    "usage: virtperf list [BENCH | --man]\n"
    "\n"
    "Without BENCH: every benchmark with its summary. With BENCH: what it measures and\n"
    "what its timing includes, its options (type, default, accepted range) and its metrics\n"
    "(unit, which direction is better, how jobs combine).\n";

static int take_man(void *settings, const char *value, char *err, size_t err_len)
{
    (void)value, (void)err, (void)err_len;
    *(bool *)settings = true;
    return 0;
}

static const struct vp_command_flag list_rows[] = {
    { "man", 0, NULL, "the manual page's generated sections (the commands' options, the\n"
      "benchmarks and presets) in roff, as docs/virtperf.1 holds them", take_man },
};
const struct vp_command_table vp_list_flags = { "list", list_rows, 1 };

static void describe_bench(const struct vp_bench *bench)
{
    printf("%s: %s\n\n%s\n\noptions (give as --NAME=VALUE to 'virtperf run'):\n", bench->name,
           bench->summary, bench->description);
    for (size_t i = 0; i < bench->option_count; i++) {
        const struct vp_option *option = &bench->options[i];
        char accepted[160];
        vp_option_describe(option, accepted, sizeof accepted);
        printf("  --%-10s %-9s default %-16s %s\n  %13s accepted: %s\n", option->name,
               vp_option_type_name(option), option->default_text, option->help, "",
               accepted);
    }
    if (bench->uses_duration)
        printf("  --duration   (run option) honoured: time per repetition\n");
    if (bench->sweep_option)
        printf("\n--%s is a sweep: one result per value, stored as param '%s'.\n",
               bench->sweep_option, bench->sweep_param);
    printf("\nmetrics:\n");
    for (size_t i = 0; i < bench->metric_count; i++) {
        const struct vp_metric *metric = &bench->metrics[i];
        printf("  %-12s %-6s %-6s is better, jobs combine by %-4s  %s\n", metric->name,
               metric->unit, metric->better == VP_ZERO_IS_BETTER ? "closer to zero"
                                                                 : vp_better_name(metric->better),
               vp_aggregate_name(metric->across_jobs), metric->help);
    }
}

/* The manual's COMMAND OPTIONS section: each subcommand's flag table. */
static void print_command_options(FILE *out)
{
    static const struct vp_command_table *const tables[] = {
        &vp_compare_flags, &vp_report_flags, &vp_scaling_flags, &vp_plan_flags,
        &vp_matrix_flags, &vp_results_flags, &vp_data_flags, &vp_serve_flags, &vp_sysinfo_flags,
        &vp_list_flags,
    };
    fputs(".SH COMMAND OPTIONS\nThe flags of the other commands, as their \\fB\\-\\-help\\fR "
          "lists them.\n", out);
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        fprintf(out, ".SS %s\n", tables[t]->command);
        for (size_t f = 0; f < tables[t]->count; f++)
            vp_roff_flag_text(out, tables[t]->flags[f].name, tables[t]->flags[f].argument,
                              tables[t]->flags[f].help);
    }
}

int cmd_list(int argc, char **argv)
{
    bool man = false;
    size_t count;
    char **words = vp_cmd_parse(&vp_list_flags, list_usage, &man, argc, argv, &count);
    const char *asked = count == 1 ? words[0] : NULL;
    free(words);
    if (count > 1 || (man && count > 0))
        vp_usage_error("list: too many arguments; accepted: virtperf list [BENCH | --man]");
    if (man) {
        vp_run_print_manual(stdout);
        print_command_options(stdout);
        vp_roff_benchmarks(stdout);
        return 0;
    }
    if (asked) {
        const struct vp_bench *bench = vp_bench_find(asked);
        if (!bench)
            vp_usage_error("list: unknown benchmark '%s'; 'virtperf list' shows them all",
                           asked);
        describe_bench(bench);
        return 0;
    }
    int width = 0; /* the longest name, benchmark or preset */
    for (size_t i = 0; i < vp_bench_count; i++)
        if (!vp_benches[i]->hidden && (int)strlen(vp_benches[i]->name) > width)
            width = (int)strlen(vp_benches[i]->name);
    for (size_t i = 0; i < vp_preset_count; i++)
        if ((int)strlen(vp_presets[i].name) > width)
            width = (int)strlen(vp_presets[i].name);
    for (size_t i = 0; i < vp_bench_count; i++)
        if (!vp_benches[i]->hidden)
            printf("%-*s %s%s\n", width, vp_benches[i]->name, vp_benches[i]->summary,
                   vp_benches[i]->in_quick_suite ? "  [quick suite]" : "");
    printf("\npresets (virtperf run PRESET; given options override the preset's):\n");
    for (size_t i = 0; i < vp_preset_count; i++) {
        const struct vp_preset *preset = &vp_presets[i];
        printf("%-*s %s\n%-*s", width, preset->name, preset->summary, width, "");
        for (size_t b = 0; preset->benches[b]; b++)
            printf(" %s", preset->benches[b]);
        for (size_t o = 0; preset->options[o].name; o++)
            printf(" --%s=%s", preset->options[o].name, preset->options[o].value);
        printf("\n");
    }
    return 0;
}
