/* The one database interface the store is written against, with two implementations:
 * SQLite (a file: store/db_sqlite.c) and PostgreSQL (a postgresql:// URL, a site store
 * shared by many hosts: store/db_postgresql.c, built when libpq is found). The store's
 * SQL is written once, in the subset both engines read: '?' and '?N' parameters,
 * COALESCE, RETURNING, window functions. What differs is each driver's: the schema
 * version's home, how a writer takes the lock, the column types of the schema text
 * (vp_db_exec_schema), and the diagnosis of a failed read. */
#ifndef VP_DB_H
#define VP_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vp_db;
struct vp_db_statement;

enum vp_db_step { VP_DB_ERROR = -1, VP_DB_DONE = 0, VP_DB_ROW = 1 };
enum vp_db_type { VP_DB_NULL, VP_DB_INTEGER, VP_DB_FLOAT, VP_DB_TEXT };

/* What vp_db_open's -1 was: a target this virtperf cannot use as given (a path it cannot
 * create, a malformed URL, a URL with a password in it, no PostgreSQL support built in),
 * or a store that is there but down or refusing (a server not answering, a wrong
 * password, no such database). */
enum vp_db_refusal { VP_DB_BAD_TARGET, VP_DB_UNAVAILABLE };

/* True when target names a PostgreSQL server (postgresql:// or postgres://). */
bool vp_db_is_url(const char *target);

/* target as it may be printed or kept: a URL's password (user:PASSWORD@, ?password=)
 * replaced by "***"; a path as it is. */
void vp_db_shown_target(const char *target, char *buf, size_t len);

/* Opens target (a file path or a URL); on error -1, a one-line message in err (never a
 * password) and why in *refusal. */
int vp_db_open(const char *target, struct vp_db **db, enum vp_db_refusal *refusal, char *err,
               size_t err_len);
void vp_db_close(struct vp_db *db);
/* "SQLite" or "PostgreSQL". */
const char *vp_db_engine(const struct vp_db *db);

/* Runs sql (one statement or several), no rows wanted; 0 or -1 (vp_db_message says why). */
int vp_db_exec(struct vp_db *db, const char *sql);
/* Runs schema text (CREATE/ALTER, in SQLite's type names: INTEGER PRIMARY KEY, INTEGER,
 * REAL, TEXT), each driver reading the types as its own. */
int vp_db_exec_schema(struct vp_db *db, const char *sql);
/* A write transaction that holds the store's one writer lock until commit or rollback,
 * so writers on many hosts take turns as processes on one host do. Inside it a statement
 * that gives nothing back (INSERT, UPDATE, DELETE without RETURNING) may be sent without
 * waiting for its answer (PostgreSQL's pipeline: one round trip for many rows), its step
 * saying VP_DB_DONE at once; a failure of it is told by the next statement that waits
 * (a read, a RETURNING, the commit), which then fails, and the transaction with it. */
int vp_db_begin_write(struct vp_db *db);
int vp_db_commit(struct vp_db *db);
void vp_db_rollback(struct vp_db *db);

/* The schema version stored in the database (0 for a new one), -1 when unreadable,
 * VP_DB_FOREIGN when it has no version but a table virtperf would make (runs): another
 * program's database; set inside the migration's transaction. */
#define VP_DB_FOREIGN (-2)
int vp_db_schema_version(struct vp_db *db);
int vp_db_set_schema_version(struct vp_db *db, int version);

/* The engine's last error, one line; a writer lock held by someone else past the wait
 * says so and names VIRTPERF_DB_TIMEOUT. */
const char *vp_db_message(struct vp_db *db);
/* A second opinion on a failed read: SQLite's integrity check's first line, or the
 * server's state; one line. */
void vp_db_diagnose(struct vp_db *db, char *line, size_t len);
/* True when the database can no longer be reached (a server's connection gone); a file
 * never is. */
bool vp_db_lost(struct vp_db *db);

int vp_db_prepare(struct vp_db *db, const char *sql, struct vp_db_statement **statement);
/* index counts from 1, as in the SQL's ?N */
void vp_db_bind_int64(struct vp_db_statement *statement, int index, int64_t value);
void vp_db_bind_double(struct vp_db_statement *statement, int index, double value);
void vp_db_bind_text(struct vp_db_statement *statement, int index, const char *text);
void vp_db_bind_null(struct vp_db_statement *statement, int index);
enum vp_db_step vp_db_step(struct vp_db_statement *statement);
int vp_db_column_count(struct vp_db_statement *statement);
const char *vp_db_column_name(struct vp_db_statement *statement, int index);
enum vp_db_type vp_db_column_type(struct vp_db_statement *statement, int index);
int64_t vp_db_column_int64(struct vp_db_statement *statement, int index);
double vp_db_column_double(struct vp_db_statement *statement, int index);
/* NULL for NULL; valid until the next step or finalize. */
const char *vp_db_column_text(struct vp_db_statement *statement, int index);
void vp_db_finalize(struct vp_db_statement *statement);

/* The driver behind struct vp_db: each implementation fills one (store/db_*.c). */
struct vp_db_driver {
    const char *engine;
    int (*open)(const char *target, struct vp_db **db, enum vp_db_refusal *refusal,
                char *err, size_t err_len);
    void (*close)(struct vp_db *db);
    int (*exec)(struct vp_db *db, const char *sql);
    int (*exec_schema)(struct vp_db *db, const char *sql);
    int (*begin_write)(struct vp_db *db);
    int (*commit)(struct vp_db *db);
    void (*rollback)(struct vp_db *db);
    int (*schema_version)(struct vp_db *db);
    int (*set_schema_version)(struct vp_db *db, int version);
    const char *(*message)(struct vp_db *db);
    void (*diagnose)(struct vp_db *db, char *line, size_t len);
    bool (*lost)(struct vp_db *db);
    int (*prepare)(struct vp_db *db, const char *sql, struct vp_db_statement **statement);
    void (*bind_int64)(struct vp_db_statement *statement, int index, int64_t value);
    void (*bind_double)(struct vp_db_statement *statement, int index, double value);
    void (*bind_text)(struct vp_db_statement *statement, int index, const char *text);
    void (*bind_null)(struct vp_db_statement *statement, int index);
    enum vp_db_step (*step)(struct vp_db_statement *statement);
    int (*column_count)(struct vp_db_statement *statement);
    const char *(*column_name)(struct vp_db_statement *statement, int index);
    enum vp_db_type (*column_type)(struct vp_db_statement *statement, int index);
    int64_t (*column_int64)(struct vp_db_statement *statement, int index);
    double (*column_double)(struct vp_db_statement *statement, int index);
    const char *(*column_text)(struct vp_db_statement *statement, int index);
    void (*finalize)(struct vp_db_statement *statement);
};

#define VP_DB_DEFAULT_TIMEOUT_S 60
/* For the drivers: the seconds a writer waits for the lock, $VIRTPERF_DB_TIMEOUT (0..3600,
 * default 60); -1 with err when it is not one. */
int vp_db_timeout_s(char *err, size_t err_len);

/* Every struct vp_db and vp_db_statement of a driver begins with this. */
struct vp_db_base {
    const struct vp_db_driver *driver;
};

extern const struct vp_db_driver vp_db_sqlite;
extern const struct vp_db_driver vp_db_postgresql; /* built with libpq (vp_features.h) */

#endif
