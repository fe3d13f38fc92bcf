/* `virtperf run` and `virtperf plan-check`: a command line becomes a one-step run, a plan
 * file (--plan) the steps its compiler makes; both are checked before anything starts and
 * run by the executor on this host (the local runner below: every point here, a
 * --background watch beside them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/background.h"
#include "cmd/commands.h"
#include "run/executor.h"
#include "run/fleet.h"
#include "run/groups.h"
#include "run/kinds.h"
#include "run/run_flags.h"
#include "run/run_plan.h"
#include "core/copy_speed.h"


static _Noreturn void refused(const char *err)
{
    fprintf(stderr, "virtperf: %s\n", err);
    exit(VP_EXIT_USAGE);
}

/* A step this machine cannot run: a plan's is named by its file and step. */
static _Noreturn void refuse_here(const struct vp_run_request *command,
                                  const struct vp_run_steps *steps, const char *err)
{
    if (steps->step[0].name)
        fprintf(stderr, "virtperf: %s: %s\n", command->plan_path, err);
    else
        fprintf(stderr, "virtperf: %s\n", err);
    exit(VP_EXIT_USAGE);
}

/* A command line as a one-step run. */
static void steps_of_command_line(struct vp_run_steps *steps, int argc, char **argv)
{
    char err[VP_PATH_ERROR_LEN];
    if (vp_run_steps_of_command_line(steps, argc, argv, VP_SCOPES_COMMAND_LINE, err,
                                     sizeof err) != 0)
        refused(err);
    if (steps->step[0].request.help) {
        vp_run_print_usage(stdout, 0);
        exit(0);
    }
}

/* `run --plan FILE ...` or `plan-check FILE ...`: the command's own flags and the plan's
 * steps compiled from its file. */
static void steps_of_plan(struct vp_run_request *command, struct vp_run_steps *steps,
                          int argc, char **argv)
{
    char err[VP_PATH_ERROR_LEN];
    if (vp_plan_command(command, argc, argv, err, sizeof err) != 0)
        refused(err);
    char *text = vp_plan_read_text(command->plan_path, err, sizeof err);
    if (!text)
        refused(err);
    int compiled = vp_plan_compile(command, text, false, steps, err, sizeof err);
    free(text);
    if (compiled != 0)
        refused(err);
}

/* The local runner: every point of every step on this host. */
struct here {
    struct vp_background background;
};

static void begin_here(void *context, const struct vp_run_steps *steps,
                       struct vp_progress *progress)
{
    struct here *here = context;
    vp_engine_catch_signals();
    if (here->background.pid == 0 && steps->step[0].request.background) {
        struct vp_run_settings settings =
            vp_run_settings_of(&steps->step[0], steps->topology, progress);
        vp_background_start(&here->background, &settings);
    }
}

static bool run_step_here(void *context, const struct vp_run_steps *steps, size_t index,
                          struct vp_run_session *session, struct vp_progress *progress)
{
    (void)context;
    return vp_run_step_here(steps, index, session, progress);
}

static void finish_here(void *context, struct vp_run_session *session)
{
    struct here *here = context;
    if (here->background.pid <= 0)
        return;
    json_t *result = vp_background_finish(&here->background);
    vp_run_session_add(session, result);
    json_decref(result);
}

static int run_here(struct vp_run_steps *steps, int argc, char **argv)
{
    struct here here = { .background = { .pid = 0 } };
    if (steps->count == 1 && steps->step[0].request.background)
        vp_background_take(&here.background, steps->step[0].request.background,
                           &steps->step[0].plan);
    const struct vp_runner runner = {
        .program = "virtperf run", .keeps_session = true, .context = &here,
        .begin = begin_here, .run_step = run_step_here, .finish = finish_here,
    };
    vp_copy_speed_settle(); /* alone on this machine, before the run starts anything */
    int status = vp_run_execute(&runner, steps, argc, argv);
    vp_run_steps_free(steps);
    return status;
}

/* Where a plan's step runs, for --dry-run: "" on this host alone. */
static void print_where(const struct vp_run_steps *steps, const struct vp_run_step *step)
{
    const struct vp_guests_request *run = &steps->guests;
    const char *spec = step->members_spec ? step->members_spec : run->spec;
    if (!spec)
        return;
    const struct vp_env_kind *kind = step->members_spec ? step->members_kind : run->kind;
    printf(" in %s %s%s", kind->name, spec,
           vp_run_step_and_host(steps, step) ? ", and on this host, alternating" : "");
}

static void print_notes(const struct vp_run_steps *steps)
{
    for (size_t n = 0; n < steps->note_count; n++)
        printf("note: %s\n", steps->notes[n]);
}

int cmd_run(int argc, char **argv)
{
    static struct vp_run_steps steps;
    char err[VP_PATH_ERROR_LEN];
    struct vp_run_request command;
    if (vp_run_words_want_plan(argc, argv))
        steps_of_plan(&command, &steps, argc, argv);
    else
        steps_of_command_line(&steps, argc, argv);
    if (vp_run_words_want_plan(argc, argv) && command.here)
        refused("--here: for virtperf plan-check FILE --here, which checks a plan against "
                "this machine without running it (run checks it before its first step); "
                "accepted with run --plan: --set, --dry-run, --no-guests");
    bool dry_run = vp_run_words_want_plan(argc, argv) && command.dry_run;
    if (!vp_run_words_want_plan(argc, argv) && vp_run_steps_build(&steps, err, sizeof err) != 0)
        refused(err);
    if (dry_run) {
        for (size_t s = 0; s < steps.count; s++) {
            printf("# [%s]", steps.step[s].name);
            print_where(&steps, &steps.step[s]);
            printf("\nvirtperf");
            for (int i = 0; i < steps.step[s].argc; i++)
                printf(" %s", steps.step[s].argv[i]);
            putchar('\n');
        }
        print_notes(&steps);
        vp_run_steps_free(&steps);
        return 0;
    }
    if (vp_run_steps_check_here(&steps, VP_CHECK_THIS_HOSTS, err, sizeof err) != 0)
        refuse_here(&command, &steps, err);
    /* the kind of members the run starts: its own, or its plan's steps' (one kind, which
     * the plan compiler checked) */
    const struct vp_guests_request *fleet = &steps.guests;
    const struct vp_env_kind *kind = fleet->kind;
    for (size_t s = 0; s < steps.count && !kind; s++)
        kind = steps.step[s].members_kind;
    static struct vp_member_group groups[VP_MAX_GROUPS];
    size_t group_count;
    if (vp_member_groups_of(fleet, groups, &group_count, err, sizeof err) != 0)
        refused(err);
    if (group_count > 0)
        return vp_run_fleet(NULL, groups, group_count, &steps, argc, argv);
    if (fleet->and_host && !kind)
        refused("--and-host: only beside the guests or containers of a run; accepted: "
                "--guests SPEC --and-host or --containers SPEC --and-host");
    if (vp_run_members_check(fleet, kind, err, sizeof err) != 0)
        refused(err);
    if (steps.step[0].request.topology && !kind)
        refused("--topology: between this host and the guests or containers of a run, or "
                "between ranks; accepted: --guests SPEC --topology T, --containers SPEC "
                "--topology T, or mpirun -np N virtperf-mpi run ... --topology T");
    if (kind)
        return vp_run_fleet(kind, NULL, 0, &steps, argc, argv);
    return run_here(&steps, argc, argv);
}

int cmd_plan_check(int argc, char **argv)
{
    static struct vp_run_steps steps;
    struct vp_run_request command;
    steps_of_plan(&command, &steps, argc, argv);
    char err[VP_PATH_ERROR_LEN];
    if (command.here && vp_run_steps_check_here(&steps, VP_CHECK_EVERY_STEP, err, sizeof err) != 0)
        refuse_here(&command, &steps, err);
    size_t points = 0;
    for (size_t s = 0; s < steps.count; s++)
        points += steps.step[s].plan.count;
    printf("%s: %zu step%s, %zu result%s: ok%s\n", command.plan_path, steps.count,
           steps.count == 1 ? "" : "s", points, points == 1 ? "" : "s",
           command.here ? ", and runnable here" : " (--here also checks this machine: "
                                                  "sources, paths, peers, CPUs)");
    print_notes(&steps);
    vp_run_steps_free(&steps);
    return 0;
}
