/* libFuzzer target: a plan file's text through every check plan-check makes without the
 * machine (inih, the sections and keys, each value through run's parser and the plan
 * builder, the study's figures), compiled for one host and for virtperf-mpi. The
 * compiler returns its refusals, so leak checks stay on: a refused plan must leave
 * nothing behind. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

#include "run/run_plan.h"

/* Accepted: at least one named step, each a command line starting with run and a
 * benchmark, built into a plan of at least one point, and the text kept. */
static void check_steps(const struct vp_run_steps *steps)
{
    if (steps->count == 0 || steps->count > VP_RUN_MAX_STEPS || !steps->kept_text)
        __builtin_trap();
    for (size_t s = 0; s < steps->count; s++) {
        const struct vp_run_step *step = &steps->step[s];
        if (step->argc < 2 || strcmp(step->argv[0], "run") != 0 || !step->name ||
            !step->name[0] || step->plan.count == 0)
            __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct vp_run_request command = { .plan_path = "fuzz.ini" };
    static struct vp_run_steps steps;
    char err[VP_PATH_ERROR_LEN];
    for (int for_mpi = 0; for_mpi <= 1; for_mpi++) {
        if (vp_plan_compile(&command, text, for_mpi, &steps, err, sizeof err) != 0) {
            if (!err[0] || steps.count != 0)
                __builtin_trap(); /* a refusal says why and leaves no steps */
            continue;
        }
        check_steps(&steps);
        vp_run_steps_free(&steps);
    }
    free(text);
    return 0;
}
