/* What a figure is shown as, decided once where a result or an analysis is put together,
 * so that render only formats: the unit style a benchmark declares for its byte rates,
 * the params in which a result differs from its benchmark's defaults, what its members
 * are called, each host's deviation from the others, a comparison row's label and
 * whether it is a headline. Render reads these and derives nothing by a benchmark's name. */
#ifndef VP_ANALYSIS_SHOWN_H
#define VP_ANALYSIS_SHOWN_H

#include <jansson.h>
#include <stddef.h>

/* Sets object's "units" to the unit style (vp_units_name) its "bench" declares. */
void vp_shown_units(json_t *object);

/* What result shows: {"units", "params": "size=256 MiB passes=200" (those not the
 * defaults, sizes and durations as read), "members"?: "hosts", "guests"... when it ran
 * on many ranks, "versus_others"?: per host of ranks.hosts, its mean of the result's
 * first metric over the median of the other hosts' means, minus 1 (-0.3: 30% below the
 * others), null where a mean is missing}. */
json_t *vp_result_shown(const json_t *result);

/* Each result of documents[0..count) given its "shown" (the pages drawn from loaded runs;
 * never a document that is stored afterwards). */
void vp_documents_shown(json_t *const *documents, size_t count);

/* A comparison row's "units", "label" ("bench variant" and the varied param's base
 * value) and "headline" (its benchmark's first metric, or the one with a latency
 * distribution, as scaling picks them: the others are folded away in the report). */
void vp_shown_comparison_row(json_t *row);

/* " key=value ..." for the params of params that differ from those of any sibling
 * (objects with "bench" and "params") of the same benchmark: what tells one result or
 * group from the others. */
void vp_distinguishing_params(const json_t *siblings, const json_t *bench, const json_t *params,
                              char *out, size_t len);

#endif
