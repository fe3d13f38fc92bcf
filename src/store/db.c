/* The database interface's dispatch (store/db.h): a file path opens SQLite, a
 * postgresql:// URL opens PostgreSQL; every call goes to the driver that opened it. */
#include "store/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_features.h" /* VP_HAVE_LIBPQ */

/* The driver of a connection or a statement: each begins with a struct vp_db_base. */
#define DRIVER(object) (((const struct vp_db_base *)(const void *)(object))->driver)

bool vp_db_is_url(const char *target)
{
    return strncmp(target, "postgresql://", 13) == 0 || strncmp(target, "postgres://", 11) == 0;
}

/* Appends n bytes of text to buf (len bytes, used so far), cutting what does not fit. */
static void append(char *buf, size_t len, size_t *used, const char *text, size_t n)
{
    size_t room = len - 1 - *used;
    n = n < room ? n : room;
    memcpy(buf + *used, text, n);
    *used += n;
    buf[*used] = '\0';
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Whether the query parameter at param is libpq's password, its key percent-decoded as
 * libpq decodes it (?pass%77ord=... is one too). */
static bool param_is_password(const char *param)
{
    const char *want = "password";
    const char *c = param;
    for (; *want; want++) {
        int decoded = (unsigned char)*c;
        if (*c == '%' && hex_value(c[1]) >= 0 && hex_value(c[2]) >= 0) {
            decoded = hex_value(c[1]) * 16 + hex_value(c[2]);
            c += 3;
        } else if (*c) {
            c++;
        }
        if (decoded != *want)
            return false;
    }
    return *c == '=';
}

void vp_db_shown_target(const char *target, char *buf, size_t len)
{
    if (len == 0)
        return;
    snprintf(buf, len, "%s", target);
    if (!vp_db_is_url(target))
        return;
    size_t used = 0;
    buf[0] = '\0';
    const char *c = target;
    const char *authority = strstr(target, "://") + 3;
    const char *authority_end = authority + strcspn(authority, "/?");
    const char *at = memchr(authority, '@', (size_t)(authority_end - authority));
    const char *colon = at ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
    while (*c && used + 1 < len) {
        if (colon && c == colon + 1) { /* user:PASSWORD@ */
            append(buf, len, &used, "***", 3);
            c = at;
        } else if (c > authority_end && (c[-1] == '?' || c[-1] == '&') &&
                   param_is_password(c)) {
            append(buf, len, &used, "password=***", 12);
            c += strcspn(c, "&");
        } else {
            append(buf, len, &used, c++, 1);
        }
    }
}

int vp_db_open(const char *target, struct vp_db **db, enum vp_db_refusal *refusal, char *err,
               size_t err_len)
{
    if (!vp_db_is_url(target))
        return vp_db_sqlite.open(target, db, refusal, err, err_len);
#ifdef VP_HAVE_LIBPQ
    return vp_db_postgresql.open(target, db, refusal, err, err_len);
#else
    *refusal = VP_DB_BAD_TARGET;
    snprintf(err, err_len, "this virtperf was built without PostgreSQL (libpq); "
             "accepted here: a file path for SQLite (scripts/deps.sh site installs libpq-dev, "
             "then rebuild)");
    return -1;
#endif
}

int vp_db_timeout_s(char *err, size_t err_len)
{
    const char *timeout = getenv("VIRTPERF_DB_TIMEOUT");
    if (!timeout || !*timeout)
        return VP_DB_DEFAULT_TIMEOUT_S;
    char *end;
    long seconds = strtol(timeout, &end, 10);
    if (*end || seconds < 0 || seconds > 3600) {
        snprintf(err, err_len, "VIRTPERF_DB_TIMEOUT: '%s' is not valid; accepted: whole "
                 "seconds from 0 to 3600", timeout);
        return -1;
    }
    return (int)seconds;
}

void vp_db_close(struct vp_db *db)
{
    if (db)
        DRIVER(db)->close(db);
}

const char *vp_db_engine(const struct vp_db *db) { return DRIVER(db)->engine; }
int vp_db_exec(struct vp_db *db, const char *sql) { return DRIVER(db)->exec(db, sql); }
int vp_db_exec_schema(struct vp_db *db, const char *sql) { return DRIVER(db)->exec_schema(db, sql); }
int vp_db_begin_write(struct vp_db *db) { return DRIVER(db)->begin_write(db); }
int vp_db_commit(struct vp_db *db) { return DRIVER(db)->commit(db); }
int vp_db_schema_version(struct vp_db *db) { return DRIVER(db)->schema_version(db); }
const char *vp_db_message(struct vp_db *db) { return DRIVER(db)->message(db); }

void vp_db_rollback(struct vp_db *db)
{
    DRIVER(db)->rollback(db);
}

int vp_db_set_schema_version(struct vp_db *db, int version)
{
    return DRIVER(db)->set_schema_version(db, version);
}

void vp_db_diagnose(struct vp_db *db, char *line, size_t len)
{
    DRIVER(db)->diagnose(db, line, len);
}

bool vp_db_lost(struct vp_db *db)
{
    return DRIVER(db)->lost(db);
}

int vp_db_prepare(struct vp_db *db, const char *sql, struct vp_db_statement **statement)
{
    return DRIVER(db)->prepare(db, sql, statement);
}

void vp_db_bind_int64(struct vp_db_statement *statement, int index, int64_t value)
{
    DRIVER(statement)->bind_int64(statement, index, value);
}

void vp_db_bind_double(struct vp_db_statement *statement, int index, double value)
{
    DRIVER(statement)->bind_double(statement, index, value);
}

void vp_db_bind_text(struct vp_db_statement *statement, int index, const char *text)
{
    DRIVER(statement)->bind_text(statement, index, text);
}

void vp_db_bind_null(struct vp_db_statement *statement, int index)
{
    DRIVER(statement)->bind_null(statement, index);
}

enum vp_db_step vp_db_step(struct vp_db_statement *statement)
{
    return DRIVER(statement)->step(statement);
}

int vp_db_column_count(struct vp_db_statement *statement)
{
    return DRIVER(statement)->column_count(statement);
}

const char *vp_db_column_name(struct vp_db_statement *statement, int index)
{
    return DRIVER(statement)->column_name(statement, index);
}

enum vp_db_type vp_db_column_type(struct vp_db_statement *statement, int index)
{
    return DRIVER(statement)->column_type(statement, index);
}

int64_t vp_db_column_int64(struct vp_db_statement *statement, int index)
{
    return DRIVER(statement)->column_int64(statement, index);
}

double vp_db_column_double(struct vp_db_statement *statement, int index)
{
    return DRIVER(statement)->column_double(statement, index);
}

const char *vp_db_column_text(struct vp_db_statement *statement, int index)
{
    return DRIVER(statement)->column_text(statement, index);
}

void vp_db_finalize(struct vp_db_statement *statement)
{
    if (statement)
        DRIVER(statement)->finalize(statement);
}
