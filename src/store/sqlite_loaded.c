/* SQLite loaded on first use (sqlite_loaded.h, core/loaded.h). */
#include "store/sqlite_loaded.h"

#include <stdbool.h>

#include "core/loaded.h"

const struct vp_sqlite *vp_sqlite_load(char *err, size_t err_len)
{
    static struct vp_sqlite loaded;
    static bool done; /* stores are opened by one thread only */
    struct vp_sqlite *l = &loaded;
    const struct vp_loaded_symbol symbols[] = {
        { "sqlite3_bind_double", &l->bind_double },
        { "sqlite3_bind_int64", &l->bind_int64 },
        { "sqlite3_bind_null", &l->bind_null },
        { "sqlite3_bind_text", &l->bind_text },
        { "sqlite3_busy_timeout", &l->busy_timeout },
        { "sqlite3_close", &l->close },
        { "sqlite3_column_count", &l->column_count },
        { "sqlite3_column_double", &l->column_double },
        { "sqlite3_column_int", &l->column_int },
        { "sqlite3_column_int64", &l->column_int64 },
        { "sqlite3_column_name", &l->column_name },
        { "sqlite3_column_text", &l->column_text },
        { "sqlite3_column_type", &l->column_type },
        { "sqlite3_errcode", &l->errcode },
        { "sqlite3_errmsg", &l->errmsg },
        { "sqlite3_exec", &l->exec },
        { "sqlite3_finalize", &l->finalize },
        { "sqlite3_open_v2", &l->open_v2 },
        { "sqlite3_prepare_v2", &l->prepare_v2 },
        { "sqlite3_step", &l->step },
    };
    /* libsqlite3-0's SONAME, the one built against */
    if (!done && vp_library_load("libsqlite3.so.0", symbols, sizeof symbols / sizeof symbols[0],
                                 "scripts/deps.sh build installs libsqlite3-0", err,
                                 err_len) == 0)
        done = true;
    return done ? &loaded : NULL;
}
