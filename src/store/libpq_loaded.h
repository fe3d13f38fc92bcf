/* libpq, loaded on first use (core/loaded.h): a virtperf process whose store is SQLite,
 * every rank of virtperf-mpi among them, pays nothing for libpq and the libraries it
 * pulls in (Kerberos, LDAP, GnuTLS, SASL...): linked, they were most of the 26 shared
 * libraries a rank loads beyond a plain MPI program. Only in builds with libpq's headers
 * (VP_HAVE_LIBPQ); the types are checked against them. */
#ifndef VP_LIBPQ_LOADED_H
#define VP_LIBPQ_LOADED_H

#include <stddef.h>

#include <libpq-fe.h>

/* The calls db_postgresql.c makes, each typed as the headers declare it, named without
 * their PQ. */
struct vp_libpq {
    __typeof__(PQclear) *clear;
    __typeof__(PQconnectdbParams) *connectdbParams;
    __typeof__(PQconninfoFree) *conninfoFree;
    __typeof__(PQconninfoParse) *conninfoParse;
    __typeof__(PQenterPipelineMode) *enterPipelineMode;
    __typeof__(PQerrorMessage) *errorMessage;
    __typeof__(PQexec) *exec;
    __typeof__(PQexecParams) *execParams;
    __typeof__(PQexitPipelineMode) *exitPipelineMode;
    __typeof__(PQfinish) *finish;
    __typeof__(PQfname) *fname;
    __typeof__(PQfreemem) *freemem;
    __typeof__(PQftype) *ftype;
    __typeof__(PQgetResult) *getResult;
    __typeof__(PQgetisnull) *getisnull;
    __typeof__(PQgetvalue) *getvalue;
    __typeof__(PQnfields) *nfields;
    __typeof__(PQntuples) *ntuples;
    __typeof__(PQpipelineStatus) *pipelineStatus;
    __typeof__(PQpipelineSync) *pipelineSync;
    __typeof__(PQreset) *reset;
    __typeof__(PQresultErrorField) *resultErrorField;
    __typeof__(PQresultStatus) *resultStatus;
    __typeof__(PQsendQueryParams) *sendQueryParams;
    __typeof__(PQsetNoticeProcessor) *setNoticeProcessor;
    __typeof__(PQstatus) *status;
};

/* libpq's calls, loaded by the first call that succeeds (stores are opened by one
 * thread); NULL with "cannot load libpq.so.5: why (what to install)" in err. */
const struct vp_libpq *vp_libpq_load(char *err, size_t err_len);

#endif
