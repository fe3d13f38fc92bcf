/* A run of both sides (`run --guests N --and-host`: the host's own jobs and the
 * guests', repetitions alternating) as one document per side, so that `compare RUN`
 * pairs them as it pairs two runs: the host's J jobs against one job in each of J guests,
 * the IHEP 2010 study's processes on the hypervisor against its VMs. */
#ifndef VP_ANALYSIS_SIDES_H
#define VP_ANALYSIS_SIDES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A copy of the exported run document holding only the results of side ("host" or
 * "guests"), its label "LABEL (host)", "LABEL (guests)" or "LABEL (containers)"; NULL
 * when the run has none of that side. */
json_t *vp_run_side(const json_t *document, const char *side);

/* Each run of both sides among documents[0..count) replaced, in its place, by its two
 * sides: the host's, then the guests' (vp_run_side), so that compare and report list
 * both and never pair a run's guests with another run's host side unsaid. Takes the
 * documents it replaces; returns the new count, or 0 (documents untouched) when they would
 * be more than most. */
size_t vp_runs_by_side(json_t **documents, size_t count, size_t most);

/* What a result's ranks are, as words say it: "guests" (libvirt), "containers" (podman,
 * docker) or "hosts" (virtperf-mpi's ranks, or one host). */
const char *vp_members_word(const json_t *result);

#endif
