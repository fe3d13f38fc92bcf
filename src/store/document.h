/* Validation of a virtperf/1 JSON document from outside (results import): every field's
 * type, size and range is checked before anything is stored. */
#ifndef VP_DOCUMENT_H
#define VP_DOCUMENT_H

#include <jansson.h>
#include <stddef.h>

#define VP_SCHEMA_NAME "virtperf/1"

/* 0 when document is a well-formed virtperf/1 document; otherwise -1 and a one-line
 * message naming the JSON path of the first problem and what is accepted there. */
int vp_document_validate(const json_t *document, char *err, size_t err_len);

/* Same check for one result object; path prefixes the messages ("results[2]"). */
int vp_result_validate(const json_t *result, const char *path, char *err, size_t err_len);

/* A result another rank or member sent as text: parsed and checked as an imported one,
 * else a failed result saying that name "sent no valid result" and why. */
json_t *vp_result_from(const char *name, const char *text);

#endif
