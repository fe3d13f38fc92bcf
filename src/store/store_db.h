/* What the store's files share and nothing else sees: the open database, the statement
 * and insert helpers, the error message helper, and the reads that remember a failed
 * step. */
#ifndef VP_STORE_DB_H
#define VP_STORE_DB_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct vp_store {
    sqlite3 *db;
    char path[4096];
    /* The first read that failed (a malformed page, an I/O error, a stored text that is
     * not the JSON written there), kept until vp_store_check_reads reports it. */
    char read_failure[256];
};

/* Binds a json_t number (integer or real), or NULL when value is not one. */
void vp_store_bind_optional(sqlite3_stmt *statement, int index, const json_t *value);
/* Prepares sql, binds the arguments described by types ('i' int64, 'd' double, 't' text
 * or NULL, 'j' a json_t number, or NULL for a missing one) and steps once; 0 when it ran
 * to SQLITE_DONE. */
int vp_store_run_statement(struct vp_store *store, const char *sql, const char *types, ...);
/* Inserts result as the next of run_id's, without a transaction of its own (the caller
 * brackets it); 0, or -1 (SQLite's error on the handle). */
int vp_store_insert_result(struct vp_store *store, int64_t run_id, const json_t *result);

/* "what: SQLite's message" in err; returns -1. */
int vp_store_error(char *err, size_t err_len, const char *what, sqlite3 *db);

/* sqlite3_prepare_v2 and sqlite3_step for reads: an outcome other than a statement, a
 * row or the end is remembered in store, so the read that made them fails whole. */
int vp_store_prepare(struct vp_store *store, const char *sql, sqlite3_stmt **statement);
int vp_store_step(struct vp_store *store, sqlite3_stmt *statement);
/* Remembers a failed read (the first one counts). */
void vp_store_note_damage(struct vp_store *store, const char *what);
/* A stored JSON column's value; text that does not parse is remembered as a failure
 * (what names the column). NULL for NULL. */
json_t *vp_store_column_json(struct vp_store *store, sqlite3_stmt *statement, int index,
                             size_t flags, const char *what);

#endif
