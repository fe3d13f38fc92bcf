/* libFuzzer target: a plan file's text through every check plan-check makes without the
 * machine (inih, the sections and keys, each value through run's parser and the plan
 * builder, the study's figures). A refused plan ends in the usage-error hook, which jumps
 * back here: what the refused plan had allocated is left behind, unreachable, so leak
 * checks are off for this target (the value parsers it calls are leak-checked in
 * fuzz_units). */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

#include "cmd/common.h"
#include "cmd/run_plan.h"

static jmp_buf refused;

static void refuse(const char *message)
{
    (void)message;
    longjmp(refused, 1);
}

int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *text;
    free(text); /* the last input's: the plan kept pointing into it until now */
    text = fuzz_text(data, size);
    char run[] = "run", plan[] = "--plan", path[] = "fuzz.ini";
    char *argv[] = { run, plan, path, NULL };
    struct vp_plan_steps steps;
    vp_set_usage_error_hook(refuse);
    if (setjmp(refused) != 0)
        return 0;
    vp_plan_steps_build(3, argv, text, refuse, &steps);
    /* accepted: at least one step, each a command line starting with run and a benchmark */
    if (steps.count == 0 || steps.count > VP_PLAN_MAX_STEPS || !steps.kept_text)
        __builtin_trap();
    for (size_t s = 0; s < steps.count; s++)
        if (steps.argc[s] < 2 || strcmp(steps.argv[s][0], "run") != 0 || !steps.names[s][0])
            __builtin_trap();
    free(steps.kept_text);
    return 0;
}
