/* Roff for the manual's benchmark and preset sections (see roff.h). */
#include "render/roff.h"

#include <string.h>

#include "bench/bench.h"
#include "bench/presets.h"

/* Text as roff prints it: '-' and '\' escaped, a '.' or '\'' that starts a line made
 * literal. */
static void roff_text(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if ((c == text || c[-1] == '\n') && (*c == '.' || *c == '\''))
            fputs("\\&", out);
        if (*c == '-')
            fputs("\\-", out);
        else if (*c == '\\')
            fputs("\\e", out);
        else
            fputc(*c, out);
    }
}

static void flag_head(FILE *out, const char *name, const char *argument)
{
    fputs(".TP\n\\fB\\-\\-", out);
    roff_text(out, name);
    fputs("\\fR", out);
    if (argument) {
        fputs(" \\fI", out);
        roff_text(out, argument);
        fputs("\\fR", out);
    }
    fputc('\n', out);
}

void vp_roff_flag(FILE *out, const char *name, const char *argument, const char *roff)
{
    flag_head(out, name, argument);
    fprintf(out, "%s\n", roff);
}

void vp_roff_flag_text(FILE *out, const char *name, const char *argument, const char *text)
{
    flag_head(out, name, argument);
    roff_text(out, text);
    fputc('\n', out);
}

static void roff_option(FILE *out, const struct vp_option *option)
{
    char accepted[200];
    vp_option_describe(option, accepted, sizeof accepted);
    fputs(".TP\n\\fB\\-\\-", out);
    roff_text(out, option->name);
    fputs("\\fR \\fI", out);
    roff_text(out, vp_option_type_name(option));
    fputs("\\fR (default ", out);
    roff_text(out, option->default_text);
    fputs(")\n", out);
    roff_text(out, option->help);
    fputs("; accepted: ", out);
    roff_text(out, accepted);
    fputs(".\n", out);
}

static void roff_bench(FILE *out, const struct vp_bench *bench)
{
    fputs(".TP\n.B ", out);
    roff_text(out, bench->name);
    fputs("\n", out);
    roff_text(out, bench->description);
    fputs("\n.RS\n", out);
    for (size_t i = 0; i < bench->option_count; i++)
        roff_option(out, &bench->options[i]);
    if (bench->uses_duration)
        fputs(".TP\n\\fB\\-\\-duration\\fR (run option)\nhonoured: time per repetition.\n", out);
    fputs(".PP\nMetrics:\n", out);
    for (size_t i = 0; i < bench->metric_count; i++) {
        const struct vp_metric *metric = &bench->metrics[i];
        fputs(i ? ";\n\\fB" : "\\fB", out);
        roff_text(out, metric->name);
        fputs("\\fR (", out);
        roff_text(out, metric->unit);
        fputs(", ", out);
        roff_text(out, metric->better == VP_ZERO_IS_BETTER ? "closer to zero"
                                                           : vp_better_name(metric->better));
        fputs(" is better): ", out);
        roff_text(out, metric->help);
    }
    fputs(".\n.RE\n", out);
}

void vp_roff_benchmarks(FILE *out)
{
    fputs(".SH BENCHMARKS\n", out);
    for (size_t b = 0; b < vp_bench_count; b++)
        if (!vp_benches[b]->hidden)
            roff_bench(out, vp_benches[b]);
    fputs(".SH PRESETS\n", out);
    for (size_t p = 0; p < vp_preset_count; p++) {
        const struct vp_preset *preset = &vp_presets[p];
        fputs(".TP\n.B ", out);
        roff_text(out, preset->name);
        fputs("\n", out);
        roff_text(out, preset->summary);
        fputs(":", out);
        for (size_t b = 0; preset->benches[b]; b++) {
            fputs(" ", out);
            roff_text(out, preset->benches[b]);
        }
        for (size_t o = 0; preset->options[o].name; o++) {
            fputs(" \\fB\\-\\-", out);
            roff_text(out, preset->options[o].name);
            fputs("=", out);
            roff_text(out, preset->options[o].value);
            fputs("\\fR", out);
        }
        fputs(".\n", out);
    }
}
