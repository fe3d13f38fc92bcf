/* A region for JSON documents read whole and only read afterwards (a stored run loaded by
 * compare, scaling, matrix, report): while it is open, jansson's values come from large
 * mapped chunks by bumping a pointer, and freeing one of them costs nothing; the chunks
 * go back at once when the command is done with its documents. At 20,000 results a run is
 * millions of small values: malloc's headers, free lists and one fault a page were most
 * of a compare's time. Values made outside the region (or by another thread) come from
 * malloc as ever, and either kind may hold the other. Builds with AddressSanitizer keep
 * malloc throughout, so its leak and use-after-free checks still see every value. */
#ifndef VP_JSON_ARENA_H
#define VP_JSON_ARENA_H

#include <jansson.h>
#include <stddef.h>

/* From now on this thread's new JSON values come from the region (until the end). While
 * it is open, nothing jansson hands over to be freed with free() may be made on this
 * thread: only values, freed by json_decref (text: vp_json_arena_dumps, not json_dumps). */
void vp_json_arena_begin(void);
/* This thread's new JSON values come from malloc again; the region's values stay. */
void vp_json_arena_end(void);
/* json_dumps(value, flags), its text from malloc whether the region is open or not. */
char *vp_json_arena_dumps(const json_t *value, size_t flags);
/* The bytes the region handed out since it was last released (0: no region in this
 * build, or none used). */
size_t vp_json_arena_used(void);
/* Gives the region's chunks back: every value made in it must have been released by then
 * (json_decref), none may be used after. */
void vp_json_arena_release(void);

#endif
