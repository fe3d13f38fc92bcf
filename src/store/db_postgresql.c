/* The database interface over PostgreSQL (store/db.h), through libpq: a site store that
 * many hosts write at once. The URL is libpq's (postgresql://[USER@]HOST[:PORT]/DATABASE);
 * a password in it is refused, libpq finding it where it looks (PGPASSWORD, PGPASSFILE or
 * ~/.pgpass, a service file), so none is ever stored with a run or printed. The schema
 * version lives in the table virtperf_schema; a writer holds a transaction-scoped advisory
 * lock, so writers take turns as SQLite's do, each waiting $VIRTPERF_DB_TIMEOUT seconds
 * (lock_timeout). The store's '?' and '?N' parameters become '$N'. Inside a write
 * transaction a statement that gives nothing back is sent in libpq's pipeline mode and its
 * answer read later, with the others' (settle), so that a run's thousands of rows cost a
 * few round trips, not one each. */
#define _GNU_SOURCE /* strcasestr */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/db.h"
#include "store/libpq_loaded.h"

static const struct vp_libpq *pq; /* set by each open (libpq loaded by the first) */

/* The advisory lock every writer of a virtperf store takes (any fixed number: 'vprf'). */
#define WRITER_LOCK "1987080806"
/* The statements sent whose answers may wait unread: the server's answers (some 30 bytes
 * each) then never fill the socket while this side is still sending, which would leave
 * both sides waiting on each other. */
#define MOST_UNANSWERED 256
/* pg_type oids of the columns the store reads */
enum { OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_TEXT = 25, OID_FLOAT4 = 700,
       OID_FLOAT8 = 701, OID_NUMERIC = 1700 };

struct vp_db {
    struct vp_db_base base;
    PGconn *connection;
    int timeout_s;
    bool writing;      /* between begin_write and commit or rollback */
    bool write_failed; /* a statement of the write transaction failed: it can only roll back */
    int unanswered;    /* statements sent in the pipeline whose answers are not read yet */
    char message[320];
};

struct parameter {
    char *value; /* NULL: SQL NULL */
    unsigned int type;
};

struct vp_db_statement {
    struct vp_db_base base;
    struct vp_db *db;
    char *sql;
    int parameter_count;
    struct parameter *parameters;
    PGresult *result;
    bool sent; /* in the pipeline, its answer read by settle */
    int next_row, row; /* row: the current one (after a step that gave VP_DB_ROW) */
};

/* One line of libpq's text (its messages end in newlines and carry tab-led hints). */
static void keep_message(struct vp_db *db, const char *text)
{
    size_t used = 0;
    bool space = false;
    for (const char *c = text ? text : "unknown error"; *c && used + 2 < sizeof db->message; c++) {
        if (*c == '\n' || *c == '\t' || *c == ' ') {
            space = used > 0;
            continue;
        }
        if (space)
            db->message[used++] = ' ';
        space = false;
        db->message[used++] = *c;
    }
    db->message[used] = '\0';
}

/* Keeps why result (or the connection) failed. */
static void keep_failure(struct vp_db *db, const PGresult *result)
{
    const char *state = result ? pq->resultErrorField(result, PG_DIAG_SQLSTATE) : NULL;
    if (state && strcmp(state, "55P03") == 0) { /* lock_not_available: lock_timeout ran out */
        snprintf(db->message, sizeof db->message, "the database stayed locked by another "
                 "process for more than %d s (VIRTPERF_DB_TIMEOUT sets the wait)", db->timeout_s);
        return;
    }
    const char *primary = result ? pq->resultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    keep_message(db, primary ? primary : pq->errorMessage(db->connection));
}

static void ignore_notice(void *context, const char *message)
{
    (void)context;
    (void)message;
}

static void postgresql_close(struct vp_db *db)
{
    pq->finish(db->connection);
    free(db);
}

/* 0 when url is a libpq URL without a password; else -1 with err. */
static int check_url(const char *url, char *err, size_t err_len)
{
    char *why = NULL;
    PQconninfoOption *options = pq->conninfoParse(url, &why);
    if (!options) {
        char line[200] = "";
        snprintf(line, sizeof line, "%s", why ? why : "out of memory");
        line[strcspn(line, "\n")] = '\0';
        snprintf(err, err_len, "not a PostgreSQL URL (%s); accepted: "
                 "postgresql://[USER@]HOST[:PORT]/DATABASE[?OPTION=VALUE...]", line);
        pq->freemem(why);
        return -1;
    }
    bool has_password = false;
    for (PQconninfoOption *option = options; option->keyword; option++)
        has_password = has_password || (strcmp(option->keyword, "password") == 0 && option->val);
    pq->conninfoFree(options);
    if (has_password) {
        snprintf(err, err_len, "the URL carries a password, which would be kept with every "
                 "run and shown in lists; accepted: the URL without it, the password in "
                 "PGPASSWORD, a PGPASSFILE (~/.pgpass) or a service file");
        return -1;
    }
    return 0;
}

/* Reads the answers of every statement sent in the pipeline and leaves pipeline mode; -1
 * when one failed (the first one's message kept) or the write transaction had failed
 * before, which then can only roll back. */
static int settle(struct vp_db *db)
{
    if (pq->pipelineStatus(db->connection) == PQ_PIPELINE_OFF)
        return db->write_failed ? -1 : 0;
    bool synced = pq->pipelineSync(db->connection) == 1, failed = !synced;
    if (failed)
        keep_message(db, pq->errorMessage(db->connection));
    /* every answer is read, after a failure too, so the connection is ready for the next */
    for (int i = 0; synced && i < db->unanswered; i++) {
        PGresult *result = pq->getResult(db->connection);
        if (!failed && pq->resultStatus(result) != PGRES_COMMAND_OK) {
            keep_failure(db, result); /* the first: those after it only say "aborted" */
            failed = true;
        }
        if (!result) { /* the connection is gone: nothing more will come */
            synced = false;
            break;
        }
        pq->clear(result);
        pq->clear(pq->getResult(db->connection)); /* the NULL that ends each answer */
    }
    if (synced) {
        PGresult *sync = pq->getResult(db->connection);
        if (!failed && pq->resultStatus(sync) != PGRES_PIPELINE_SYNC) {
            keep_failure(db, sync);
            failed = true;
        }
        pq->clear(sync);
    }
    db->unanswered = 0;
    if (pq->exitPipelineMode(db->connection) != 1 && !failed) {
        keep_message(db, pq->errorMessage(db->connection));
        failed = true;
    }
    db->write_failed = db->write_failed || (failed && db->writing);
    return failed || db->write_failed ? -1 : 0;
}

static int setting(struct vp_db *db, const char *sql)
{
    if (settle(db) != 0)
        return -1;
    PGresult *result = pq->exec(db->connection, sql);
    int ok = pq->resultStatus(result) == PGRES_COMMAND_OK || pq->resultStatus(result) == PGRES_TUPLES_OK;
    if (!ok)
        keep_failure(db, result);
    pq->clear(result);
    return ok ? 0 : -1;
}

/* What every connection of the store sets: the writer lock's wait, and extra_float_digits
 * 1 so that every double read back is the one written. */
static int session_settings(struct vp_db *db)
{
    char timeout[96];
    snprintf(timeout, sizeof timeout, "SET lock_timeout = '%ds'", db->timeout_s);
    return setting(db, timeout) != 0 || setting(db, "SET extra_float_digits = 1") != 0 ? -1 : 0;
}

/* After the connection was lost (a server restarted), a new one with the same settings:
 * 0 when connected again; -1 when it was not lost or cannot be made again. */
static int reconnect(struct vp_db *db)
{
    if (pq->status(db->connection) == CONNECTION_OK)
        return -1;
    pq->reset(db->connection);
    db->unanswered = 0;
    if (pq->status(db->connection) != CONNECTION_OK) {
        keep_message(db, pq->errorMessage(db->connection));
        return -1;
    }
    return session_settings(db);
}

static int postgresql_open(const char *url, struct vp_db **db, enum vp_db_refusal *refusal,
                           char *err, size_t err_len)
{
    *refusal = VP_DB_BAD_TARGET;
    if (!(pq = vp_libpq_load(err, err_len)))
        return -1;
    int timeout_s = vp_db_timeout_s(err, err_len);
    if (timeout_s < 0 || check_url(url, err, err_len) != 0)
        return -1;
    /* the URL's own settings come after these defaults and win */
    const char *const keywords[] = { "connect_timeout", "fallback_application_name", "dbname",
                                     NULL };
    const char *const values[] = { "10", "virtperf", url, NULL };
    struct vp_db *opened = calloc(1, sizeof *opened);
    if (!opened)
        abort();
    opened->base.driver = &vp_db_postgresql;
    opened->timeout_s = timeout_s;
    opened->connection = pq->connectdbParams(keywords, values, 1);
    if (!opened->connection)
        abort();
    *refusal = VP_DB_UNAVAILABLE;
    if (pq->status(opened->connection) != CONNECTION_OK) {
        keep_message(opened, pq->errorMessage(opened->connection));
        snprintf(err, err_len, "%s", opened->message);
        postgresql_close(opened);
        return -1;
    }
    pq->setNoticeProcessor(opened->connection, ignore_notice, NULL);
    if (session_settings(opened) != 0) {
        snprintf(err, err_len, "%s", opened->message);
        postgresql_close(opened);
        return -1;
    }
    *db = opened;
    return 0;
}

static const char *postgresql_message(struct vp_db *db)
{
    return db->message;
}

static int postgresql_exec(struct vp_db *db, const char *sql)
{
    return setting(db, sql);
}

static bool word_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The schema text with SQLite's type names read as PostgreSQL's: INTEGER PRIMARY KEY an
 * identity key, INTEGER a 64-bit integer, REAL a double (PostgreSQL's REAL is a float). */
static char *schema_in_postgresql(const char *sql)
{
    static const struct {
        const char *sqlite, *postgresql;
    } types[] = {
        { "INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" },
        { "INTEGER", "BIGINT" },
        { "REAL", "DOUBLE PRECISION" },
    };
    size_t capacity = strlen(sql) * 3 + 1, used = 0;
    char *out = malloc(capacity);
    if (!out)
        abort();
    bool quoted = false;
    for (const char *c = sql; *c;) {
        if (*c == '\'')
            quoted = !quoted;
        size_t t = 0, count = sizeof types / sizeof types[0];
        while (!quoted && t < count &&
               !((c == sql || !word_char(c[-1])) &&
                 strncmp(c, types[t].sqlite, strlen(types[t].sqlite)) == 0 &&
                 !word_char(c[strlen(types[t].sqlite)])))
            t++;
        if (!quoted && t < count) {
            used += (size_t)snprintf(out + used, capacity - used, "%s", types[t].postgresql);
            c += strlen(types[t].sqlite);
        } else {
            out[used++] = *c++;
        }
    }
    out[used] = '\0';
    return out;
}

static int postgresql_exec_schema(struct vp_db *db, const char *sql)
{
    char *translated = schema_in_postgresql(sql);
    int rc = setting(db, translated);
    free(translated);
    return rc;
}

/* Rolls back, keeping the message of what failed before. */
static void postgresql_rollback(struct vp_db *db)
{
    char kept[sizeof db->message];
    memcpy(kept, db->message, sizeof kept);
    settle(db);
    db->writing = false;
    db->write_failed = false;
    setting(db, "ROLLBACK");
    memcpy(db->message, kept, sizeof kept);
}

/* A transaction is where a lost connection is made again: nothing of one is open, so a
 * server restarted between two of a run's results loses neither. */
static int postgresql_begin_write(struct vp_db *db)
{
    if (setting(db, "BEGIN") != 0 && (reconnect(db) != 0 || setting(db, "BEGIN") != 0))
        return -1;
    if (setting(db, "SELECT pg_advisory_xact_lock(" WRITER_LOCK ")") != 0) {
        postgresql_rollback(db);
        return -1;
    }
    db->writing = true;
    db->write_failed = false;
    return 0;
}

/* A transaction one of whose statements failed is not committed (PostgreSQL would roll it
 * back and say COMMIT worked): -1, the failure's message kept. */
static int postgresql_commit(struct vp_db *db)
{
    if (settle(db) != 0) {
        postgresql_rollback(db);
        return -1;
    }
    db->writing = false;
    return setting(db, "COMMIT");
}

/* The first column of the first row of sql as a number, or fallback when it gives none. */
static long single_number(struct vp_db *db, const char *sql, long fallback)
{
    if (settle(db) != 0)
        return fallback;
    PGresult *result = pq->exec(db->connection, sql);
    long number = fallback;
    if (pq->resultStatus(result) != PGRES_TUPLES_OK)
        keep_failure(db, result);
    else if (pq->ntuples(result) > 0 && !pq->getisnull(result, 0, 0))
        number = strtol(pq->getvalue(result, 0, 0), NULL, 10);
    pq->clear(result);
    return number;
}

static int postgresql_schema_version(struct vp_db *db)
{
    long exists = single_number(db, "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE "
                                "schemaname = current_schema() AND tablename = 'virtperf_schema'",
                                -1);
    if (exists == 0 && single_number(db, "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE "
                                     "schemaname = current_schema() AND tablename = 'runs'", 0) > 0)
        return VP_DB_FOREIGN;
    if (exists <= 0)
        return (int)exists;
    return (int)single_number(db, "SELECT version FROM virtperf_schema", 0);
}

static int postgresql_set_schema_version(struct vp_db *db, int version)
{
    char sql[200];
    snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS virtperf_schema (version INTEGER NOT "
             "NULL); DELETE FROM virtperf_schema; INSERT INTO virtperf_schema VALUES (%d)", version);
    return setting(db, sql);
}

static bool postgresql_lost(struct vp_db *db)
{
    return pq->status(db->connection) != CONNECTION_OK;
}

static void postgresql_diagnose(struct vp_db *db, char *line, size_t len)
{
    if (postgresql_lost(db))
        snprintf(line, len, "the connection to the PostgreSQL server was lost");
    else
        snprintf(line, len, "the PostgreSQL server still answers");
}

/* sql with each '?' and '?N' outside quotes as '$N'; *count receives the highest N. */
static char *numbered_parameters(const char *sql, int *count)
{
    size_t capacity = strlen(sql) * 4 + 1, used = 0;
    char *out = malloc(capacity);
    if (!out)
        abort();
    int next = 0, highest = 0;
    bool quoted = false;
    for (const char *c = sql; *c; c++) {
        if (*c == '\'')
            quoted = !quoted;
        if (quoted || *c != '?') {
            out[used++] = *c;
            continue;
        }
        int number = ++next;
        if (c[1] >= '0' && c[1] <= '9') {
            char *end;
            number = (int)strtol(c + 1, &end, 10);
            c = end - 1;
        }
        highest = number > highest ? number : highest;
        used += (size_t)snprintf(out + used, capacity - used, "$%d", number);
    }
    out[used] = '\0';
    *count = highest;
    return out;
}

static int postgresql_prepare(struct vp_db *db, const char *sql, struct vp_db_statement **statement)
{
    struct vp_db_statement *made = calloc(1, sizeof *made);
    if (!made)
        abort();
    made->base.driver = &vp_db_postgresql;
    made->db = db;
    made->sql = numbered_parameters(sql, &made->parameter_count);
    made->parameters = calloc((size_t)made->parameter_count + 1, sizeof *made->parameters);
    if (!made->parameters)
        abort();
    *statement = made;
    return 0;
}

static void bind(struct vp_db_statement *statement, int index, char *value, unsigned int type)
{
    if (index < 1 || index > statement->parameter_count) {
        free(value);
        return;
    }
    struct parameter *parameter = &statement->parameters[index - 1];
    free(parameter->value);
    parameter->value = value;
    parameter->type = type;
}

/* A copy of text the statement owns. */
static char *owned(const char *text)
{
    char *copy = strdup(text);
    if (!copy)
        abort();
    return copy;
}

static void postgresql_bind_int64(struct vp_db_statement *statement, int index, int64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    bind(statement, index, owned(text), OID_INT8);
}

static void postgresql_bind_double(struct vp_db_statement *statement, int index, double value)
{
    char text[40];
    snprintf(text, sizeof text, "%.17g", value);
    bind(statement, index, owned(text), OID_FLOAT8);
}

static void postgresql_bind_text(struct vp_db_statement *statement, int index, const char *text)
{
    bind(statement, index, text ? owned(text) : NULL, OID_TEXT);
}

static void postgresql_bind_null(struct vp_db_statement *statement, int index)
{
    bind(statement, index, NULL, 0);
}

/* True when sql gives nothing back: an INSERT, UPDATE or DELETE without RETURNING. */
static bool answers_nothing(const char *sql)
{
    sql += strspn(sql, " \n");
    return (strncasecmp(sql, "INSERT", 6) == 0 || strncasecmp(sql, "UPDATE", 6) == 0 ||
            strncasecmp(sql, "DELETE", 6) == 0) && !strcasestr(sql, "RETURNING");
}

/* Sends statement in the pipeline, its answer read by settle; VP_DB_DONE, or VP_DB_ERROR
 * when it cannot be sent or an earlier one failed. */
static enum vp_db_step send_in_pipeline(struct vp_db_statement *statement, int count,
                                        const unsigned int *types, const char *const *values)
{
    struct vp_db *db = statement->db;
    if ((db->unanswered >= MOST_UNANSWERED && settle(db) != 0) || db->write_failed)
        return VP_DB_ERROR;
    if ((pq->pipelineStatus(db->connection) == PQ_PIPELINE_OFF &&
         pq->enterPipelineMode(db->connection) != 1) ||
        pq->sendQueryParams(db->connection, statement->sql, count, types, values, NULL, NULL,
                            0) != 1) {
        keep_message(db, pq->errorMessage(db->connection));
        db->write_failed = true;
        return VP_DB_ERROR;
    }
    db->unanswered++;
    statement->sent = true;
    return VP_DB_DONE;
}

static enum vp_db_step postgresql_step(struct vp_db_statement *statement)
{
    if (statement->sent)
        return VP_DB_DONE;
    if (!statement->result) {
        int count = statement->parameter_count;
        unsigned int types[count + 1];
        const char *values[count + 1];
        for (int i = 0; i < count; i++) {
            types[i] = statement->parameters[i].type;
            values[i] = statement->parameters[i].value;
        }
        if (statement->db->writing && answers_nothing(statement->sql))
            return send_in_pipeline(statement, count, types, values);
        if (settle(statement->db) != 0)
            return VP_DB_ERROR;
        statement->result = pq->execParams(statement->db->connection, statement->sql, count,
                                           types, values, NULL, NULL, 0);
        ExecStatusType status = pq->resultStatus(statement->result);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            keep_failure(statement->db, statement->result);
            return VP_DB_ERROR;
        }
    }
    if (pq->resultStatus(statement->result) != PGRES_TUPLES_OK)
        return pq->resultStatus(statement->result) == PGRES_COMMAND_OK ? VP_DB_DONE : VP_DB_ERROR;
    if (statement->next_row >= pq->ntuples(statement->result))
        return VP_DB_DONE;
    statement->row = statement->next_row++;
    return VP_DB_ROW;
}

static int postgresql_column_count(struct vp_db_statement *statement)
{
    return statement->result ? pq->nfields(statement->result) : 0;
}

static const char *postgresql_column_name(struct vp_db_statement *statement, int index)
{
    return pq->fname(statement->result, index);
}

static enum vp_db_type postgresql_column_type(struct vp_db_statement *statement, int index)
{
    if (pq->getisnull(statement->result, statement->row, index))
        return VP_DB_NULL;
    switch (pq->ftype(statement->result, index)) {
    case OID_INT8: case OID_INT4: case OID_INT2: return VP_DB_INTEGER;
    case OID_FLOAT8: case OID_FLOAT4: case OID_NUMERIC: return VP_DB_FLOAT;
    default: return VP_DB_TEXT;
    }
}

static const char *postgresql_column_text(struct vp_db_statement *statement, int index)
{
    if (!statement->result || index < 0 || index >= pq->nfields(statement->result) ||
        pq->getisnull(statement->result, statement->row, index))
        return NULL;
    return pq->getvalue(statement->result, statement->row, index);
}

static int64_t postgresql_column_int64(struct vp_db_statement *statement, int index)
{
    const char *text = postgresql_column_text(statement, index);
    return text ? strtoll(text, NULL, 10) : 0;
}

static double postgresql_column_double(struct vp_db_statement *statement, int index)
{
    const char *text = postgresql_column_text(statement, index);
    return text ? strtod(text, NULL) : 0;
}

static void postgresql_finalize(struct vp_db_statement *statement)
{
    pq->clear(statement->result);
    for (int i = 0; i < statement->parameter_count; i++)
        free(statement->parameters[i].value);
    free(statement->parameters);
    free(statement->sql);
    free(statement);
}

const struct vp_db_driver vp_db_postgresql = {
    .engine = "PostgreSQL",
    .open = postgresql_open,
    .close = postgresql_close,
    .exec = postgresql_exec,
    .exec_schema = postgresql_exec_schema,
    .begin_write = postgresql_begin_write,
    .commit = postgresql_commit,
    .rollback = postgresql_rollback,
    .schema_version = postgresql_schema_version,
    .set_schema_version = postgresql_set_schema_version,
    .message = postgresql_message,
    .diagnose = postgresql_diagnose,
    .lost = postgresql_lost,
    .prepare = postgresql_prepare,
    .bind_int64 = postgresql_bind_int64,
    .bind_double = postgresql_bind_double,
    .bind_text = postgresql_bind_text,
    .bind_null = postgresql_bind_null,
    .step = postgresql_step,
    .column_count = postgresql_column_count,
    .column_name = postgresql_column_name,
    .column_type = postgresql_column_type,
    .column_int64 = postgresql_column_int64,
    .column_double = postgresql_column_double,
    .column_text = postgresql_column_text,
    .finalize = postgresql_finalize,
};
