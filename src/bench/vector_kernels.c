/* The memory kernels' vector unit and the result part that names it (vector_kernels.h). */
#include "bench/vector_kernels.h"

#include <stdio.h>

#include "core/json_check.h"

const char *vp_kernel_target(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? "avx512f"
           : __builtin_cpu_supports("avx2") ? "avx2" : "sse2";
}

void vp_kernels_annotate(json_t *result)
{
    json_object_set_new(result, "kernels", json_pack("{s:s}", "target", vp_kernel_target()));
}

static int check_kernels(struct vp_check *checker, const json_t *value, const char *path)
{
    static const char *const targets[] = { "avx512f", "avx2", "sse2", NULL };
    char at[256];
    snprintf(at, sizeof at, "%s.kernels", path);
    if (!json_is_object(value))
        return vp_check_fail(checker, "%s: accepted: an object", at);
    return vp_check_choice(checker, value, at, "target", targets, 1);
}

static void print_kernels(FILE *out, const json_t *value, enum vp_unit_style style)
{
    (void)style;
    fprintf(out, "  kernels: %s (the widest vector unit of this CPU, chosen at run time)\n",
            json_string_value(json_object_get(value, "target")));
}

const struct vp_result_part vp_kernels_part = { "kernels", check_kernels, print_kernels };
