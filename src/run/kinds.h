/* The kinds of environment virtperf starts on this host and runs a run's steps in, one
 * entry each in kinds.c's table: guests (guests.c, libvirt), containers (containers.c,
 * podman or docker) and UML instances (uml.c, User-Mode Linux). A kind's entry is its name (its flag --NAME SPEC and its plan key
 * NAME = SPEC), its noun, the --guest-* / --container-* settings it takes, and what runs
 * a run's steps in its members (the fleet runner, with the kind's own hooks). The run's
 * flags, the plan compiler, run and the executor look a kind up here and never name one:
 * a new kind is its own file(s), an extern below and one line of the table. */
#ifndef VP_CMD_KINDS_H
#define VP_CMD_KINDS_H

#include <stdbool.h>
#include <stddef.h>

struct vp_fleet_kind;

struct vp_env_kind {
    const char *name; /* "guests": --guests SPEC, guests = SPEC, a result's "members" */
    const char *flag; /* "--guests" */
    const char *noun; /* "guest" */
    /* its own settings' flags, NULL-ended (those every kind takes are in run_flags.c) */
    const char *const *settings;
    /* Its hooks for the fleet runner (fleet.h), with a state of their own for one set of
     * its members (a run's, or one --group's): allocated here, freed by the runner with
     * free() once its finish hook ran. */
    struct vp_fleet_kind (*fleet)(void);
    /* Whether each rank of virtperf-mpi may start members of it (mpi/members.h): a kind
     * its tests have run there; the others are refused under virtperf-mpi, named. */
    bool under_mpi;
};

extern const struct vp_env_kind vp_guests_kind, vp_containers_kind, vp_uml_kind;

/* The table, NULL-ended. */
extern const struct vp_env_kind *const vp_env_kinds[];

/* The kind called name ("guests"; a plan's key or a flag without its "--"), or NULL. */
const struct vp_env_kind *vp_env_kind_find(const char *name);
/* Of two kinds, the one listed first in the table (messages name kinds in its order). */
const struct vp_env_kind *vp_env_kind_earlier(const struct vp_env_kind *a,
                                              const struct vp_env_kind *b);
/* Whether kind takes the setting flag ("--guest-cpus"). */
bool vp_env_kind_takes(const struct vp_env_kind *kind, const char *flag);
/* The kinds that take the setting flag taking (NULL: every kind), by their nouns:
 * "guests, containers or UML instances". */
void vp_env_kinds_list(const char *taking, char *buf, size_t len);

#endif
