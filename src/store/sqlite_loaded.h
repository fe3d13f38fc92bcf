/* SQLite, loaded on first use (core/loaded.h): a process that opens no store (every
 * virtperf-mpi rank but rank 0, a guest's agent, a container's job) pays nothing for it;
 * linked, its relocations alone kept 1.3 MB resident in each rank. The types are checked
 * against SQLite's own header. */
#ifndef VP_SQLITE_LOADED_H
#define VP_SQLITE_LOADED_H

#include <stddef.h>

#include <sqlite3.h>

/* The calls db_sqlite.c makes, each typed as the header declares it, named without their
 * sqlite3_. */
struct vp_sqlite {
    __typeof__(sqlite3_bind_double) *bind_double;
    __typeof__(sqlite3_bind_int64) *bind_int64;
    __typeof__(sqlite3_bind_null) *bind_null;
    __typeof__(sqlite3_bind_text) *bind_text;
    __typeof__(sqlite3_busy_timeout) *busy_timeout;
    __typeof__(sqlite3_close) *close;
    __typeof__(sqlite3_column_count) *column_count;
    __typeof__(sqlite3_column_double) *column_double;
    __typeof__(sqlite3_column_int) *column_int;
    __typeof__(sqlite3_column_int64) *column_int64;
    __typeof__(sqlite3_column_name) *column_name;
    __typeof__(sqlite3_column_text) *column_text;
    __typeof__(sqlite3_column_type) *column_type;
    __typeof__(sqlite3_errcode) *errcode;
    __typeof__(sqlite3_errmsg) *errmsg;
    __typeof__(sqlite3_exec) *exec;
    __typeof__(sqlite3_finalize) *finalize;
    __typeof__(sqlite3_open_v2) *open_v2;
    __typeof__(sqlite3_prepare_v2) *prepare_v2;
    __typeof__(sqlite3_step) *step;
};

/* SQLite's calls, loaded by the first call that succeeds (stores are opened by one
 * thread); NULL with "cannot load libsqlite3.so.0: why (what to install)" in err. */
const struct vp_sqlite *vp_sqlite_load(char *err, size_t err_len);

#endif
