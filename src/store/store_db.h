/* What the store's files share and nothing else sees: the open database (store/db.h's
 * interface, SQLite or PostgreSQL), the statement and insert helpers, the error message
 * helper, and the reads that remember a failed step. */
#ifndef VP_STORE_DB_H
#define VP_STORE_DB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

struct vp_store {
    struct vp_db *db;
    char path[4096]; /* the --db target as given (a URL carries no password) */
    /* The first read that failed (a malformed page, an I/O error, a lost connection, a
     * stored text that is not the JSON written there), kept until vp_store_check_reads
     * reports it. */
    char read_failure[256];
};

/* Binds a json_t number (integer or real), or NULL when value is not one. */
void vp_store_bind_optional(struct vp_db_statement *statement, int index, const json_t *value);
/* Prepares sql, binds the arguments described by types ('i' int64, 'd' double, 't' text
 * or NULL, 'j' a json_t number, or NULL for a missing one) and steps once; 0 when it ran
 * to its end. */
int vp_store_run_statement(struct vp_store *store, const char *sql, const char *types, ...);
/* Like vp_store_run_statement for a statement that gives one number back (INSERT ...
 * RETURNING id, DELETE ... RETURNING id): 1 with *number set, 0 when it gave no row, -1
 * on an error. */
int vp_store_run_returning(struct vp_store *store, int64_t *number, const char *sql,
                           const char *types, ...);
/* Inserts result as the next of run_id's, without a transaction of its own (the caller
 * brackets it); 0, or -1 (the database's error in vp_db_message). */
int vp_store_insert_result(struct vp_store *store, int64_t run_id, const json_t *result);

/* "what: the database's message" in err; returns -1. */
int vp_store_error(char *err, size_t err_len, const char *what, struct vp_store *store);

/* vp_db_prepare and vp_db_step for reads: an outcome other than a statement, a row or the
 * end is remembered in store, so the read that made them fails whole. */
int vp_store_prepare(struct vp_store *store, const char *sql, struct vp_db_statement **statement);
enum vp_db_step vp_store_step(struct vp_store *store, struct vp_db_statement *statement);
/* Remembers a failed read (the first one counts). */
void vp_store_note_damage(struct vp_store *store, const char *what);
/* A stored JSON column's value; text that does not parse is remembered as a failure
 * (what names the column). NULL for NULL. */
json_t *vp_store_column_json(struct vp_store *store, struct vp_db_statement *statement,
                             int index, size_t flags, const char *what);

#endif
