/* Matching results across runs for compare (compare.c): what must agree for two results
 * to be compared (a result's match key), each run's results indexed by it, and the
 * labels that say where a result's jobs ran and which variant of its benchmark it is.
 * Internal to compare. */
#ifndef VP_ANALYSIS_COMPARE_MATCH_H
#define VP_ANALYSIS_COMPARE_MATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* What the comparison asks of one run, built once so that matching stays linear in
 * the number of results: its ok results by match key (a later repeat replaces an
 * earlier one), and per benchmark the params whose values differ among its results. */
struct vp_run_index {
    const json_t *run;
    json_t *by_key;   /* key -> result */
    json_t *by_total; /* total-jobs key -> result, or null where two results share it */
    json_t *varying;  /* bench -> {param: true} */
};

/* " ranks=N 0>1,2>0" of a result of many hosts (virtperf-mpi): how many hosts ran jobs
 * and, with a topology, which rank talked to which; "" for one host. */
void vp_match_hosts_text(const json_t *result, char *buf, size_t len);

/* Where a result's jobs ran: "8 jobs on 1 host", "1 job on each of 8 hosts", "12 jobs
 * on 3 hosts" (uneven), with a network round's topology. */
void vp_match_layout_text(const json_t *result, char *buf, size_t len);

/* bench|params|jobs|hosts: what must agree for two results to be compared; vary names
 * the param left out (NULL: none), the one the comparison sets values of against each
 * other. by_total: bench|params|total jobs, whatever hosts they ran on, to pair J jobs on
 * one host with J jobs spread over J hosts (the IHEP study's 8 processes against 8 VMs). */
char *vp_match_key(const json_t *result, const char *vary, bool by_total);

/* Marks in varying every param of a whose value b does not share. */
void vp_match_mark_differences(json_t *varying, const json_t *a, const json_t *b);

/* Indexes run's ok results by their match key (vary: the param left out of it). */
void vp_match_index_run(struct vp_run_index *index, const json_t *run, const char *vary);
void vp_match_free_index(struct vp_run_index *index);
/* The result of index with match key key, or NULL. */
const json_t *vp_match_find(const struct vp_run_index *index, const char *key);

/* result's match in index by its total job count when its own layout has none, where
 * the match ran on other hosts than result (one host against many, or many against
 * another many) and no other result of index has that total. */
const json_t *vp_match_find_by_total(const struct vp_run_index *index, const json_t *result,
                                     const char *vary);

/* The params that tell result apart from the other results of its benchmark in the run,
 * as "name=value name=value" into buf ("" when nothing does): time.read's
 * clock=monotonic, a disk sweep's bs=4096. */
void vp_match_variant_text(const struct vp_run_index *index, const json_t *result, char *buf,
                           size_t len);

/* "bench variant jobs=N" of a result of the indexed run, for lists of what did not match. */
void vp_match_result_label(const struct vp_run_index *index, const json_t *result, char *buf,
                           size_t len);

#endif
