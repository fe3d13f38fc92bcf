/* Source x destination matrices of network results gathered from many hosts (each run's
 * host is a source, each result's peer a destination), as the CNAF 2007 study's netperf tables. */
#ifndef VP_MATRIX_H
#define VP_MATRIX_H

#include <jansson.h>
#include <stddef.h>

/* {"matrices": [{"bench", "params", "metric", "unit", "better", "jobs", "sources":
 *  [...], "destinations": [...], "values": [[mean or null, ...], ...]}], "notes": [...]}:
 * one per benchmark, params (the peer left out), metric and job count among results that
 * carry a peer (or a virtperf-mpi matrix link). Sources are the runs' hosts by identity;
 * a destination is named after the run host that has the peer's address. A later result
 * for the same cell replaces an earlier one and a note says so. "matrices" is empty when
 * no result carries a peer. */
json_t *vp_matrices(json_t *const *documents, size_t count);

#endif
