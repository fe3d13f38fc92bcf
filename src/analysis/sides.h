/* A run of sides as one document per side, so that `compare RUN` pairs them as it pairs
 * two runs: `run --guests N --and-host` (the host's own jobs and the guests', repetitions
 * alternating: the host's J jobs against one job in each of J guests, the IHEP 2010
 * study's processes on the hypervisor against its VMs), or `run --group A:... --group
 * B:...` (the groups' members at once, each group a side: the CNAF 2007 study's
 * paravirtual against emulated NIC). */
#ifndef VP_ANALYSIS_SIDES_H
#define VP_ANALYSIS_SIDES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A copy of the exported run document holding only the results of side ("host",
 * "guests" or a group's name), its label "LABEL (host)", "LABEL (guests)", "LABEL
 * (containers)" or "LABEL (NAME)"; NULL when the run has none of that side. */
json_t *vp_run_side(const json_t *document, const char *side);

/* Each run of two or more sides among documents[0..count) replaced, in its place, by its
 * sides in the order its results first give them: the host's, then the guests'; or each
 * group's (vp_run_side), so that compare and report list every side and never pair a
 * run's side with another run's unsaid. Takes the documents it replaces; returns the new
 * count, or 0 (documents untouched) when they would be more than most. */
#define VP_RUN_MOST_SIDES 16
size_t vp_runs_by_side(json_t **documents, size_t count, size_t most);

/* What a result's ranks are, as words say it: "guests" (libvirt), "containers" (podman,
 * docker) or "hosts" (virtperf-mpi's ranks, or one host). */
const char *vp_members_word(const json_t *result);

#endif
