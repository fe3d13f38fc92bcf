/* A study's own figures, kept in a plan file beside the steps that rerun it, so that its
 * tables can show then and now side by side:
 *   then.BENCH.METRIC[@JOBS] = VALUE UNIT      what the study measured ("0.32 Gb/s",
 *                                              "45min", "36 s"), in any unit of the
 *                                              metric's kind
 *   then-penalty.BENCH.METRIC[@JOBS] = PCT%    the penalty it reported (positive: worse)
 * @JOBS ties the figure to one job count (the study's VMs or processes); without it the
 * figure stands beside every job count of the step. */
#ifndef VP_REFERENCE_H
#define VP_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

struct vp_reference {
    char bench[64], metric[64], unit[16]; /* unit: the metric's base unit */
    unsigned jobs;  /* 0: any job count */
    bool penalty;   /* a then-penalty: value is a percentage */
    double value;   /* in the metric's base unit (B/s, s, B...), or percent */
};

/* Whether a plan key is one of the two forms above (then. or then-penalty.). */
bool vp_reference_key(const char *key);

/* Parses one key = value; 0, or -1 with err saying what was wrong and what is accepted
 * (the benchmark and metric must exist, the unit must be one of the metric's kind). */
int vp_reference_parse(const char *key, const char *value, struct vp_reference *reference,
                       char *err, size_t err_len);

#endif
