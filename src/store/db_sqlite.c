/* The database interface over SQLite (store/db.h): a file, created with its directories
 * on first use; the schema version in PRAGMA user_version; BEGIN IMMEDIATE as the
 * writer lock, waiting $VIRTPERF_DB_TIMEOUT seconds for another process's. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/db.h"
#include "store/sqlite_loaded.h"

struct vp_db {
    struct vp_db_base base;
    sqlite3 *handle;
    int timeout_s;
    char message[320];
};

struct vp_db_statement {
    struct vp_db_base base;
    sqlite3_stmt *handle;
    struct vp_db *db;
};

/* mkdir -p of the directory part of path. */
static const struct vp_sqlite *sqlite; /* loaded by the first open */

static int make_parent_directories(const char *path)
{
    char copy[4096];
    if (strlen(path) >= sizeof copy)
        return -1;
    strcpy(copy, path);
    char *slash = strrchr(copy, '/');
    if (!slash || slash == copy)
        return 0;
    *slash = '\0';
    for (char *cursor = copy + 1; *cursor; cursor++) {
        if (*cursor != '/')
            continue;
        *cursor = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST)
            return -1;
        *cursor = '/';
    }
    return mkdir(copy, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void sqlite_close(struct vp_db *db)
{
    sqlite->close(db->handle);
    free(db);
}

static int sqlite_open(const char *path, struct vp_db **db, enum vp_db_refusal *refusal,
                       char *err, size_t err_len)
{
    *refusal = VP_DB_BAD_TARGET;
    if (!sqlite && !(sqlite = vp_sqlite_load(err, err_len)))
        return -1;
    int timeout_s = vp_db_timeout_s(err, err_len);
    if (timeout_s < 0)
        return -1;
    if (make_parent_directories(path) != 0) {
        snprintf(err, err_len, "cannot create its directory: %s", strerror(errno));
        return -1;
    }
    struct vp_db *opened = calloc(1, sizeof *opened);
    if (!opened)
        abort();
    opened->base.driver = &vp_db_sqlite;
    opened->timeout_s = timeout_s;
    if (sqlite->open_v2(path, &opened->handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        snprintf(err, err_len, "cannot open: %s", sqlite->errmsg(opened->handle));
        sqlite_close(opened);
        return -1;
    }
    sqlite->busy_timeout(opened->handle, timeout_s * 1000);
    if (sqlite->exec(opened->handle, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, err_len, "%s", sqlite->errmsg(opened->handle));
        sqlite_close(opened);
        return -1;
    }
    *db = opened;
    return 0;
}

static const char *sqlite_message(struct vp_db *db)
{
    int code = sqlite->errcode(db->handle);
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        snprintf(db->message, sizeof db->message, "the database stayed locked by another "
                 "process for more than %d s (VIRTPERF_DB_TIMEOUT sets the wait)", db->timeout_s);
    else
        snprintf(db->message, sizeof db->message, "%s", sqlite->errmsg(db->handle));
    return db->message;
}

static int sqlite_exec(struct vp_db *db, const char *sql)
{
    return sqlite->exec(db->handle, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* BEGIN IMMEDIATE takes the write lock at once: it fails on a read-only database, which
 * is how an unwritable --db is refused before any benchmark starts. */
static int sqlite_begin_write(struct vp_db *db)
{
    return sqlite_exec(db, "BEGIN IMMEDIATE");
}

static int sqlite_commit(struct vp_db *db)
{
    return sqlite_exec(db, "COMMIT");
}

static void sqlite_rollback(struct vp_db *db)
{
    sqlite_exec(db, "ROLLBACK");
}

static int sqlite_schema_version(struct vp_db *db)
{
    sqlite3_stmt *statement;
    int version = -1;
    if (sqlite->prepare_v2(db->handle, "PRAGMA user_version", -1, &statement, NULL) == SQLITE_OK &&
        sqlite->step(statement) == SQLITE_ROW)
        version = sqlite->column_int(statement, 0);
    sqlite->finalize(statement);
    if (version == 0 &&
        sqlite->prepare_v2(db->handle, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                           "name = 'runs'", -1, &statement, NULL) == SQLITE_OK) {
        if (sqlite->step(statement) == SQLITE_ROW)
            version = VP_DB_FOREIGN;
        sqlite->finalize(statement);
    }
    return version;
}

static int sqlite_set_schema_version(struct vp_db *db, int version)
{
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version);
    return sqlite_exec(db, pragma);
}

static bool sqlite_lost(struct vp_db *db)
{
    (void)db;
    return false;
}

/* The first line PRAGMA integrity_check gives ("ok" when it finds nothing). */
static void sqlite_diagnose(struct vp_db *db, char *line, size_t len)
{
    sqlite3_stmt *statement;
    snprintf(line, len, "PRAGMA integrity_check: could not run");
    if (sqlite->prepare_v2(db->handle, "PRAGMA integrity_check(1)", -1, &statement, NULL) !=
        SQLITE_OK)
        return;
    int status = sqlite->step(statement);
    if (status == SQLITE_ROW && sqlite->column_text(statement, 0))
        snprintf(line, len, "PRAGMA integrity_check: %s",
                 (const char *)sqlite->column_text(statement, 0));
    else if (status != SQLITE_DONE)
        snprintf(line, len, "PRAGMA integrity_check: %s", sqlite->errmsg(db->handle));
    sqlite->finalize(statement);
    for (char *c = line; *c; c++) /* one line: its report may span several */
        if (*c == '\n')
            *c = ' ';
}

static int sqlite_prepare(struct vp_db *db, const char *sql, struct vp_db_statement **statement)
{
    sqlite3_stmt *handle;
    *statement = NULL;
    if (sqlite->prepare_v2(db->handle, sql, -1, &handle, NULL) != SQLITE_OK)
        return -1;
    struct vp_db_statement *made = calloc(1, sizeof *made);
    if (!made)
        abort();
    made->base.driver = &vp_db_sqlite;
    made->handle = handle;
    made->db = db;
    *statement = made;
    return 0;
}

static void sqlite_bind_int64(struct vp_db_statement *statement, int index, int64_t value)
{
    sqlite->bind_int64(statement->handle, index, value);
}

static void sqlite_bind_double(struct vp_db_statement *statement, int index, double value)
{
    sqlite->bind_double(statement->handle, index, value);
}

static void sqlite_bind_text(struct vp_db_statement *statement, int index, const char *text)
{
    sqlite->bind_text(statement->handle, index, text, -1, SQLITE_TRANSIENT);
}

static void sqlite_bind_null(struct vp_db_statement *statement, int index)
{
    sqlite->bind_null(statement->handle, index);
}

static enum vp_db_step sqlite_step(struct vp_db_statement *statement)
{
    int status = sqlite->step(statement->handle);
    return status == SQLITE_ROW ? VP_DB_ROW : status == SQLITE_DONE ? VP_DB_DONE : VP_DB_ERROR;
}

static int sqlite_column_count(struct vp_db_statement *statement)
{
    return sqlite->column_count(statement->handle);
}

static const char *sqlite_column_name(struct vp_db_statement *statement, int index)
{
    return sqlite->column_name(statement->handle, index);
}

static enum vp_db_type sqlite_column_type(struct vp_db_statement *statement, int index)
{
    switch (sqlite->column_type(statement->handle, index)) {
    case SQLITE_INTEGER: return VP_DB_INTEGER;
    case SQLITE_FLOAT: return VP_DB_FLOAT;
    case SQLITE_NULL: return VP_DB_NULL;
    default: return VP_DB_TEXT;
    }
}

static int64_t sqlite_column_int64(struct vp_db_statement *statement, int index)
{
    return sqlite->column_int64(statement->handle, index);
}

static double sqlite_column_double(struct vp_db_statement *statement, int index)
{
    return sqlite->column_double(statement->handle, index);
}

static const char *sqlite_column_text(struct vp_db_statement *statement, int index)
{
    return (const char *)sqlite->column_text(statement->handle, index);
}

static void sqlite_finalize(struct vp_db_statement *statement)
{
    sqlite->finalize(statement->handle);
    free(statement);
}

const struct vp_db_driver vp_db_sqlite = {
    .engine = "SQLite",
    .open = sqlite_open,
    .close = sqlite_close,
    .exec = sqlite_exec,
    .exec_schema = sqlite_exec,
    .begin_write = sqlite_begin_write,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .schema_version = sqlite_schema_version,
    .set_schema_version = sqlite_set_schema_version,
    .message = sqlite_message,
    .diagnose = sqlite_diagnose,
    .lost = sqlite_lost,
    .prepare = sqlite_prepare,
    .bind_int64 = sqlite_bind_int64,
    .bind_double = sqlite_bind_double,
    .bind_text = sqlite_bind_text,
    .bind_null = sqlite_bind_null,
    .step = sqlite_step,
    .column_count = sqlite_column_count,
    .column_name = sqlite_column_name,
    .column_type = sqlite_column_type,
    .column_int64 = sqlite_column_int64,
    .column_double = sqlite_column_double,
    .column_text = sqlite_column_text,
    .finalize = sqlite_finalize,
};
