/* Reads that fail whole: every prepare and step of a read is checked, the first failure
 * kept in the store until the read's end reports it with the database's own diagnosis
 * (PRAGMA integrity_check's first line). A damaged file read as if whole gave runs of 39
 * results out of 5,000 and nan% figures, exit 0. */
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "store/store_db.h"

void vp_store_note_damage(struct vp_store *store, const char *what)
{
    if (!store->read_failure[0])
        snprintf(store->read_failure, sizeof store->read_failure, "%s", what);
}

int vp_store_prepare(struct vp_store *store, const char *sql, sqlite3_stmt **statement)
{
    int status = sqlite3_prepare_v2(store->db, sql, -1, statement, NULL);
    if (status != SQLITE_OK) {
        vp_store_note_damage(store, sqlite3_errmsg(store->db));
        *statement = NULL;
    }
    return status;
}

int vp_store_step(struct vp_store *store, sqlite3_stmt *statement)
{
    int status = sqlite3_step(statement);
    if (status != SQLITE_ROW && status != SQLITE_DONE)
        vp_store_note_damage(store, sqlite3_errmsg(store->db));
    return status;
}

json_t *vp_store_column_json(struct vp_store *store, sqlite3_stmt *statement, int index,
                             size_t flags, const char *what)
{
    const char *text = (const char *)sqlite3_column_text(statement, index);
    if (!text)
        return NULL;
    json_t *value = json_loads(text, flags, NULL);
    if (!value) {
        char why[160];
        snprintf(why, sizeof why, "%s holds text that is not the JSON stored there", what);
        vp_store_note_damage(store, why);
    }
    return value;
}

/* The first line PRAGMA integrity_check gives ("ok" when it finds nothing). */
static void integrity_first_line(struct vp_store *store, char *line, size_t len)
{
    sqlite3_stmt *statement;
    snprintf(line, len, "could not run");
    if (sqlite3_prepare_v2(store->db, "PRAGMA integrity_check(1)", -1, &statement, NULL) !=
        SQLITE_OK)
        return;
    int status = sqlite3_step(statement);
    if (status == SQLITE_ROW && sqlite3_column_text(statement, 0))
        snprintf(line, len, "%s", (const char *)sqlite3_column_text(statement, 0));
    else if (status != SQLITE_DONE)
        snprintf(line, len, "%s", sqlite3_errmsg(store->db));
    sqlite3_finalize(statement);
    for (char *c = line; *c; c++) /* one line: its report may span several */
        if (*c == '\n')
            *c = ' ';
}

int vp_store_check_reads(struct vp_store *store, char *err, size_t err_len)
{
    if (!store->read_failure[0])
        return 0;
    char integrity[200];
    integrity_first_line(store, integrity, sizeof integrity);
    snprintf(err, err_len, "database %s: %s (PRAGMA integrity_check: %s); nothing read from it "
             "is shown", store->path, store->read_failure, integrity);
    return -1;
}

bool vp_store_damaged(const struct vp_store *store)
{
    return store->read_failure[0] != '\0';
}
