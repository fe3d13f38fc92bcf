/* Reads that fail whole: every prepare and step of a read is checked, the first failure
 * kept in the store until the read's end reports it with the database's own diagnosis
 * (SQLite's integrity check's first line, or whether the server still answers). A
 * damaged file read as if whole gave runs of 39 results out of 5,000 and nan% figures,
 * exit 0. */
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "store/store_db.h"

void vp_store_note_damage(struct vp_store *store, const char *what)
{
    if (!store->read_failure[0])
        snprintf(store->read_failure, sizeof store->read_failure, "%s", what);
}

int vp_store_prepare(struct vp_store *store, const char *sql, struct vp_db_statement **statement)
{
    int status = vp_db_prepare(store->db, sql, statement);
    if (status != 0)
        vp_store_note_damage(store, vp_db_message(store->db));
    return status;
}

enum vp_db_step vp_store_step(struct vp_store *store, struct vp_db_statement *statement)
{
    enum vp_db_step status = vp_db_step(statement);
    if (status == VP_DB_ERROR)
        vp_store_note_damage(store, vp_db_message(store->db));
    return status;
}

json_t *vp_store_column_json(struct vp_store *store, struct vp_db_statement *statement,
                             int index, size_t flags, const char *what)
{
    const char *text = vp_db_column_text(statement, index);
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

int vp_store_check_reads(struct vp_store *store, char *err, size_t err_len)
{
    if (!store->read_failure[0])
        return 0;
    char diagnosis[200];
    vp_db_diagnose(store->db, diagnosis, sizeof diagnosis);
    snprintf(err, err_len, "database %s: %s (%s); nothing read from it is shown", store->path,
             store->read_failure, diagnosis);
    return -1;
}

bool vp_store_damaged(const struct vp_store *store)
{
    return store->read_failure[0] != '\0';
}
