/* libFuzzer target: what a hostile member (a guest's or a container's agent) sends the
 * host after its frames are read (fuzz_channel's part): its agreement words and its jobs'
 * region. Whatever the bytes, an agreement the check passes moves no instant past int64
 * (UBSan), and a region the check passes (engine/shared_check.h) is read by the result
 * assembly and moved onto the host's clock without reading past it (ASan) or an
 * overflow. The bytes: a selector (its upper bits fill the region up to the records), a
 * 2-byte length n, n bytes laid at the region's start (control, start instants, the
 * job's slot), the rest at its first record (the slot's 64 KiB detail lies between). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "core/clock.h"
#include "core/options.h"
#include "engine/result.h"
#include "engine/shared_check.h"
#include "engine/together.h"
#include "engine/window.h"

#define REPS 3
#define EARLIEST 1000000000LL
#define LATEST 9000000000LL

static void agreement(const uint8_t *data, size_t size)
{
    int64_t words[2 + VP_WINDOW_WORDS];
    char why[256];
    if (size < sizeof words)
        return;
    memcpy(words, data, sizeof words);
    if (vp_together_check_agreement(words, 2 + VP_WINDOW_WORDS, why, sizeof why) != 0)
        return;
    volatile int64_t instant = vp_now_ns() + words[1] + 1000000000LL; /* the leader's */
    (void)instant;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    agreement(data, size);
    if (size < 3)
        return 0;
    const struct vp_bench *bench = vp_bench_find(data[0] & 1 ? "net.rr" : "cpu");
    size_t head = (size_t)data[1] | (size_t)data[2] << 8;
    data += 3;
    size -= 3;
    head = head < size ? head : size;
    struct vp_params params;
    vp_params_init(&params, bench->options, bench->option_count);
    struct vp_shared view, moved;
    size_t region_size = vp_shared_layout(&view, bench, &params, 1, REPS, 1.0);
    char *region = calloc(1, region_size), *copy = calloc(1, region_size);
    if (!region || !copy)
        abort();
    vp_shared_attach(&view, region);
    size_t records_at = (size_t)((char *)vp_shared_record(&view, 0, 0) - region);
    memset(region, data[-3] >> 1, records_at); /* strings that run on run into it */
    memcpy(region, data, head < records_at ? head : records_at);
    size_t tail = size - head;
    memcpy(region + records_at, data + head,
           tail < region_size - records_at ? tail : region_size - records_at);
    char why[256];
    if (vp_shared_check(&view, EARLIEST, LATEST, why, sizeof why) == 0) {
        struct vp_run_settings settings = { .reps = REPS - 1, .warmup = 1 };
        json_t *result = vp_result_start(bench, &params, 1, &settings);
        double rates[2 * REPS] = { 0 };
        vp_result_add_measurements(result, bench, &view, 1, rates, rates + REPS);
        free(json_dumps(result, 0));
        json_decref(result);
        vp_shared_layout(&moved, bench, &params, 1, REPS, 1.0);
        vp_shared_attach(&moved, copy);
        vp_shared_copy_job(&moved, 0, &view, 0, -VP_INSTANT_LIMIT); /* the farthest offset */
    }
    free(region);
    free(copy);
    return 0;
}
