/* virtperf: what does this virtualization layer cost my work? The subcommand table. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/units.h"

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    { "run", cmd_run, "run benchmarks with N synchronized, pinned jobs; store the results" },
    { "list", cmd_list, "list benchmarks, or one benchmark's options and metrics" },
    { "sysinfo", cmd_sysinfo, "print this environment's fingerprint and advisories" },
    { "results", cmd_results, "list, show, export, import or delete stored runs" },
    { "compare", cmd_compare, "penalties of candidate runs against a base, with 95% intervals" },
    { "scaling", cmd_scaling, "a --jobs sweep: efficiency, fairness, the knee, CPU saturation" },
    { "plan", cmd_plan, "hosts and savings for N workloads from a per-host capacity or knee" },
    { "report", cmd_report, "a self-contained HTML report with charts" },
    { "matrix", cmd_matrix, "net results from many hosts as source x destination tables" },
    { "plan-check", cmd_plan_check, "check a plan file (run --plan) without running it" },
    { "data", cmd_data, "lay out, index or remove a fileset for the data benchmarks" },
    { "serve", cmd_serve, "serve the net benchmarks' clients (port 7310)" },
    { "guest-agent", cmd_guest_agent, "(in the guests run --guests starts) take the host's steps" },
};
#define SUBCOMMAND_COUNT (sizeof subcommands / sizeof subcommands[0])

static void print_usage(FILE *out)
{
    fprintf(out, "usage: virtperf COMMAND [options]   (virtperf COMMAND --help for more)\n\n");
    for (size_t i = 0; i < SUBCOMMAND_COUNT; i++)
        fprintf(out, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out, "\n  --version  print the version\n"
                 "  --units S  with any command: how byte rates and sizes are shown: field\n"
                 "             (network in bits, disk in SI bytes, the rest in IEC), iec, si or\n"
                 "             bits  [field]; the JSON stays in bytes\n");
}

/* What was printed must have reached stdout (a full disk, a closed pipe): else exit 1. */
static int output_written(int status)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "virtperf: cannot write to standard output: %s\n", strerror(errno));
    return status ? status : 1;
}

/* --units STYLE (or --units=STYLE), which every command takes, before or after the
 * command's name: sets how byte rates and amounts are shown and leaves the other words.
 * Returns the new argc. */
static int take_units(int argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (strcmp(argv[i], "--units") == 0)
            value = i + 1 < argc ? argv[++i] : "";
        else if (strncmp(argv[i], "--units=", 8) == 0)
            value = argv[i] + 8;
        else {
            argv[kept++] = argv[i];
            continue;
        }
        enum vp_unit_style style;
        if (vp_units_parse(value, &style) != 0)
            vp_usage_error("--units: '%s' is not valid; accepted: field (bits for network, SI "
                           "bytes for disk, IEC for the rest), iec, si or bits", value);
        vp_cli_set_units(style);
    }
    argv[kept] = NULL;
    return kept;
}

int main(int argc, char **argv)
{
    /* virtperf's documents are millions of small JSON values at 20,000 results; with
     * glibc's fastbins every larger allocation (each SQLite page read) first consolidated
     * the freed ones: a quarter of a compare's time. tcache still serves small ones. */
    mallopt(M_MXFAST, 0);
    argc = take_units(argc, argv);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return argc < 2 ? VP_EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("virtperf %s\n", VP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < SUBCOMMAND_COUNT; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return output_written(subcommands[i].run(argc - 1, argv + 1));
    char names[256] = "";
    for (size_t i = 0, used = 0; i < SUBCOMMAND_COUNT && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 subcommands[i].name);
    vp_usage_error("unknown command '%s'; accepted: %s (see 'virtperf --help')", argv[1], names);
}
