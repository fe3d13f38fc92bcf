/* libpq loaded on first use (libpq_loaded.h, core/loaded.h). */
#include "store/libpq_loaded.h"

#include <stdbool.h>

#include "core/loaded.h"

const struct vp_libpq *vp_libpq_load(char *err, size_t err_len)
{
    static struct vp_libpq loaded;
    static bool done; /* stores are opened by one thread only */
    struct vp_libpq *l = &loaded;
    const struct vp_loaded_symbol symbols[] = {
        { "PQclear", &l->clear },
        { "PQconnectdbParams", &l->connectdbParams },
        { "PQconninfoFree", &l->conninfoFree },
        { "PQconninfoParse", &l->conninfoParse },
        { "PQenterPipelineMode", &l->enterPipelineMode },
        { "PQerrorMessage", &l->errorMessage },
        { "PQexec", &l->exec },
        { "PQexecParams", &l->execParams },
        { "PQexitPipelineMode", &l->exitPipelineMode },
        { "PQfinish", &l->finish },
        { "PQfname", &l->fname },
        { "PQfreemem", &l->freemem },
        { "PQftype", &l->ftype },
        { "PQgetResult", &l->getResult },
        { "PQgetisnull", &l->getisnull },
        { "PQgetvalue", &l->getvalue },
        { "PQnfields", &l->nfields },
        { "PQntuples", &l->ntuples },
        { "PQpipelineStatus", &l->pipelineStatus },
        { "PQpipelineSync", &l->pipelineSync },
        { "PQreset", &l->reset },
        { "PQresultErrorField", &l->resultErrorField },
        { "PQresultStatus", &l->resultStatus },
        { "PQsendQueryParams", &l->sendQueryParams },
        { "PQsetNoticeProcessor", &l->setNoticeProcessor },
        { "PQstatus", &l->status },
    };
    /* libpq5's SONAME, the one built against */
    if (!done && vp_library_load("libpq.so.5", symbols, sizeof symbols / sizeof symbols[0],
                                 "scripts/deps.sh site installs libpq", err, err_len) == 0)
        done = true;
    return done ? &loaded : NULL;
}
