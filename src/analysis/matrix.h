/* Source x destination matrices of network results gathered from many hosts (each run's
 * host is a source, each result's peer a destination), as the CNAF 2007 study's netperf tables. */
#ifndef VP_MATRIX_H
#define VP_MATRIX_H

#include <jansson.h>
#include <stddef.h>

/* {"matrices": [{"bench", "metric", "unit", "better", "jobs", "sources": [...],
 *  "destinations": [...], "values": [[mean or null, ...], ...]}]}: one per benchmark,
 * metric and job count among results that carry a peer; a later result for the same
 * cell replaces an earlier one. The "matrices" array is empty when none carries a peer. */
json_t *vp_matrices(json_t *const *documents, size_t count);

#endif
