/* The words a stored result uses for the members a run started (its guests part): the
 * engine that started them ("libvirt", "podman", "docker", "uml") and what they are
 * called ("guests", "containers", "UML instances"). One table, below everything that
 * reads results, so that the import check and the wording of a result read it and name no
 * kind: each kind of run/kinds.c has its line here too (a stored document must be checkable
 * without the code that starts members). */
#ifndef VP_CORE_MEMBER_ENGINES_H
#define VP_CORE_MEMBER_ENGINES_H

#include <stdbool.h>
#include <stddef.h>

struct vp_member_engine {
    const char *engine;  /* guests.engine */
    const char *members; /* guests.members, side.members: the plural the words use */
};

/* The engine called name, or NULL. */
const struct vp_member_engine *vp_member_engine_find(const char *name);

/* The engines' names (members false) or their members' words, each once (true), into
 * choices, NULL-ended (room for most, the NULL included), as vp_check_choice takes them. */
void vp_member_engine_choices(bool members, const char **choices, size_t most);

#endif
