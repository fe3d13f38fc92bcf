/* A fill (--guests A..auto, --containers A..auto, any kind's SPEC): the counts of members a
 * run grows through, doubling from A, until a count breaks a rule (the QoS rule, the
 * host's CPUs, --keep-free) or no more may start (--keep-free, the most); then halving
 * the gap between the largest count that held and the smallest that broke, so the
 * optimum is found to one member. The decisions alone, from verdicts given them; the
 * fleet runner (fleet_fill.c) measures and judges each count. */
#ifndef VP_RUN_FILL_H
#define VP_RUN_FILL_H

#include <stdbool.h>
#include <stddef.h>

/* What ended the growth. */
enum vp_fill_stop {
    VP_FILL_GOING,  /* nothing yet; as a count's verdict: it held */
    VP_FILL_RULE,   /* a count broke the QoS rule */
    VP_FILL_CPU,    /* at a count the host's CPUs had no idle time left */
    VP_FILL_MEMORY, /* a count left less free memory than --keep-free, or another would */
    VP_FILL_MOST,   /* the most members SPEC allows held */
};

struct vp_fill {
    unsigned first, most; /* SPEC's: from first, never more than most */
    unsigned good;        /* the largest count that held (0: none yet) */
    unsigned bad;         /* the smallest count that broke (0: none) */
    enum vp_fill_stop why; /* what ended the growth: the first broken count's reason, or
                             * that no more could start */
    unsigned last;         /* the count asked for last (0: none yet) */
};

/* SPEC "A..auto" or "A..auto:MOST" (1 <= A <= MOST <= cap, MOST cap when not given): 1
 * with *first and *most; 0 when SPEC is not a fill; -1 with err naming flag when it is
 * one but not valid. */
int vp_fill_parse(const char *flag, const char *spec, unsigned cap, unsigned *first,
                  unsigned *most, char *err, size_t err_len);
void vp_fill_begin(struct vp_fill *fill, unsigned first, unsigned most);
/* The verdict on the count asked for last: VP_FILL_GOING when it held, else the reason
 * it broke. */
void vp_fill_judged(struct vp_fill *fill, enum vp_fill_stop verdict);
/* The next count to measure, 0 when the fill is done. room: how many members more than
 * the largest count that held may start (memory); -1u: no limit. */
unsigned vp_fill_next(struct vp_fill *fill, unsigned room);
/* "the QoS rule", "the host's CPUs", "--keep-free", "the most SPEC allows" */
const char *vp_fill_stop_name(enum vp_fill_stop why);
/* The result's word for it: "rule", "cpu", "memory", "most". */
const char *vp_fill_stop_key(enum vp_fill_stop why);

#endif
