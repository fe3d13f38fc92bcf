/* The vector unit the memory benchmarks' kernels run on: the widest this CPU has, chosen
 * at run time (mem.stream's kernels and mem.write's wide stores are built once per target,
 * mem.write's non-temporal stores once per width), and the result part "kernels" that
 * names it. virtperf is built for baseline x86-64 (16-byte SSE2): without this a memory
 * benchmark would measure the compiler's target, not the memory. */
#ifndef VP_VECTOR_KERNELS_H
#define VP_VECTOR_KERNELS_H

#include <jansson.h>

#include "bench/bench.h"

/* A kernel built for AVX-512F, AVX2 and the baseline, the widest the CPU has chosen when
 * the binary loads (its resolver), never turned into a call to memcpy or memset (GCC does
 * so with a copy or fill loop at -O2 without the optimize attribute). Called through the
 * resolver, so never inlined (clang refuses noinline beside target_clones). */
#define VP_KERNEL                                                                           \
    __attribute__((optimize("no-tree-loop-distribute-patterns"),                           \
                   target_clones("avx512f", "avx2", "default")))

/* The clone this CPU runs: "avx512f", "avx2" or "sse2" (the baseline), as the resolver
 * picks: the first of VP_KERNEL's targets it supports. */
const char *vp_kernel_target(void);

/* "kernels": {"target": vp_kernel_target()} into result. */
void vp_kernels_annotate(json_t *result);

extern const struct vp_result_part vp_kernels_part;

#endif
