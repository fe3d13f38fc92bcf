/* The statements the store's files run (store_db.h): binding, stepping once, a number
 * back, and the database's message in an error. store.c, result_rows.c and export.c
 * stand on these; none of them on another. */
#include <stdarg.h>
#include <stdio.h>

#include "store/store_db.h"

int vp_store_error(char *err, size_t err_len, const char *what, struct vp_store *store)
{
    snprintf(err, err_len, "%s: %s", what, vp_db_message(store->db));
    return -1;
}

/* Optional numbers go in as NULL when absent. */
void vp_store_bind_optional(struct vp_db_statement *statement, int index, const json_t *value)
{
    if (json_is_integer(value))
        vp_db_bind_int64(statement, index, json_integer_value(value));
    else if (json_is_number(value))
        vp_db_bind_double(statement, index, json_number_value(value));
    else
        vp_db_bind_null(statement, index);
}

/* Binds the arguments described by types ('i' int64, 'd' double, 't' text or NULL, 'j' a
 * json_t number, or NULL for a missing one). */
static void bind_arguments(struct vp_db_statement *statement, const char *types, va_list args)
{
    for (int i = 0; types[i]; i++) {
        switch (types[i]) {
        case 'i': vp_db_bind_int64(statement, i + 1, va_arg(args, int64_t)); break;
        case 'd': vp_db_bind_double(statement, i + 1, va_arg(args, double)); break;
        case 't': {
            const char *text = va_arg(args, const char *);
            if (text)
                vp_db_bind_text(statement, i + 1, text);
            else
                vp_db_bind_null(statement, i + 1);
            break;
        }
        default: vp_store_bind_optional(statement, i + 1, va_arg(args, const json_t *)); break;
        }
    }
}

/* Prepares sql, binds args as types says and steps once; the first column of a row it
 * gives goes to *number (when number is not NULL). */
static enum vp_db_step step_once(struct vp_store *store, int64_t *number, const char *sql,
                                 const char *types, va_list args)
{
    struct vp_db_statement *statement;
    if (vp_db_prepare(store->db, sql, &statement) != 0)
        return VP_DB_ERROR;
    bind_arguments(statement, types, args);
    enum vp_db_step status = vp_db_step(statement);
    if (status == VP_DB_ROW && number)
        *number = vp_db_column_int64(statement, 0);
    vp_db_finalize(statement);
    return status;
}

int vp_store_run_statement(struct vp_store *store, const char *sql, const char *types, ...)
{
    va_list args;
    va_start(args, types);
    enum vp_db_step status = step_once(store, NULL, sql, types, args);
    va_end(args);
    return status == VP_DB_DONE ? 0 : -1;
}

/* Like vp_store_run_statement for a statement that gives one number back (INSERT ...
 * RETURNING id, DELETE ... RETURNING id): 1 with *number set, 0 when it gave no row, -1
 * on an error. */
int vp_store_run_returning(struct vp_store *store, int64_t *number, const char *sql,
                         const char *types, ...)
{
    va_list args;
    va_start(args, types);
    enum vp_db_step status = step_once(store, number, sql, types, args);
    va_end(args);
    return status == VP_DB_ROW ? 1 : status == VP_DB_DONE ? 0 : -1;
}
