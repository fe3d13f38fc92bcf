/* What the store's files share and nothing else sees: the open database, the optional
 * result parts kept whole as JSON (in their columns' order: from 19 on insert, 17 on
 * export), and the error message helper. */
#ifndef VP_STORE_DB_H
#define VP_STORE_DB_H

#include <sqlite3.h>
#include <stddef.h>

struct vp_store {
    sqlite3 *db;
};

#define VP_STORE_ANNOTATION_COUNT 10
extern const char *const vp_store_annotations[VP_STORE_ANNOTATION_COUNT];

/* "what: SQLite's message" in err; returns -1. */
int vp_store_error(char *err, size_t err_len, const char *what, sqlite3 *db);

#endif
