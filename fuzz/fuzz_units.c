/* libFuzzer target: every parser of command-line values (sizes, durations, counts,
 * job specs, CPU lists, app's --cmd splitting, option values of every benchmark) and of
 * a plan file's study figures (KEY=VALUE split at the first '=') on arbitrary text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

#include "analysis/reference.h"
#include "bench/bench.h"
#include "core/argv.h"
#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    uint64_t number;
    double seconds;
    unsigned counts[64];
    int cpus[64];
    size_t n;
    vp_parse_size(text, &number);
    vp_parse_count(text, &number);
    if (vp_parse_duration(text, &seconds) == 0 && !(seconds >= 0))
        __builtin_trap();
    if (vp_parse_jobs_spec(text, 1024, counts, 64, &n) == 0)
        for (size_t i = 0; i < n; i++)
            if (counts[i] < 1 || counts[i] > 1024 || (i > 0 && counts[i] <= counts[i - 1]))
                __builtin_trap();
    if (vp_parse_cpu_list(text, 4095, cpus, 64, &n) == 0)
        for (size_t i = 0; i < n; i++)
            if (cpus[i] < 0 || cpus[i] > 4095)
                __builtin_trap();
    char *words[64], storage[4096], err_text[256];
    int count = vp_split_command(text, words, 64, storage, sizeof storage, err_text, sizeof err_text);
    if (count > 63 || (count >= 0 && (count == 0 || words[count] != NULL)))
        __builtin_trap();
    for (size_t b = 0; b < vp_bench_count; b++) {
        for (size_t o = 0; o < vp_benches[b]->option_count; o++) {
            struct vp_param_value value;
            char err[VP_ERROR_LEN];
            vp_option_parse(&vp_benches[b]->options[o], text, &value, err, sizeof err);
        }
    }
    char *equals = strchr(text, '=');
    if (equals) {
        *equals = '\0';
        struct vp_reference figure;
        char err[1024];
        if (vp_reference_parse(text, equals + 1, &figure, err, sizeof err) == 0 &&
            (!vp_bench_find(figure.bench) || !isfinite(figure.value) ||
             (!figure.penalty && figure.value < 0)))
            __builtin_trap();
    }
    free(text);
    return 0;
}
