/* libFuzzer target: arbitrary bytes as a document for `results import` (JSON parsing
 * with jansson, then vp_document_validate). Anything accepted must also store. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "core/options.h"
#include "store/document.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *document = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!document)
        return 0;
    char err[VP_ERROR_LEN];
    if (vp_document_validate(document, err, sizeof err) == 0) {
        /* An accepted document must import and export without trouble. */
        struct vp_store *store;
        char path[64];
        snprintf(path, sizeof path, "/tmp/vp-fuzz-%d.db", (int)getpid());
        unlink(path);
        if (vp_store_open(path, &store, err, sizeof err) == 0) {
            int64_t run_id;
            json_t *exported = NULL;
            if (vp_store_import(store, document, &run_id, err, sizeof err) == 0 &&
                vp_store_export_run(store, run_id, VP_EXPORT_WHOLE,
                                    &exported, err, sizeof err) == 0 &&
                vp_document_validate(exported, err, sizeof err) != 0)
                __builtin_trap(); /* what we export must be importable */
            json_decref(exported);
            vp_store_close(store);
        }
        unlink(path);
    }
    json_decref(document);
    return 0;
}
