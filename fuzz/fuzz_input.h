/* Shared by the fuzz targets: the fuzzer's bytes as a NUL-terminated string. */
#ifndef VP_FUZZ_INPUT_H
#define VP_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of data with a NUL after it (embedded NULs end the text early, as
 * they would for a C string from the command line or /proc). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif
