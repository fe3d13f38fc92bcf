/* Shared libraries loaded on first use (loaded.h). */
#define _GNU_SOURCE /* dladdr */
#include "core/loaded.h"

#include <dlfcn.h>
#include <stdio.h>

int vp_library_load(const char *library, const struct vp_loaded_symbol *symbols, size_t count,
                    const char *install, char *err, size_t err_len)
{
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(err, err_len, "cannot load %s: %s (%s)", library, dlerror(), install);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        void *address = dlsym(handle, symbols[i].name); /* its dependencies' too */
        if (!address) {
            snprintf(err, err_len, "%s has no %s: %s (%s)", library, symbols[i].name,
                     dlerror(), install);
            return -1; /* left loaded: the library's own threads may have started */
        }
        *(void **)symbols[i].slot = address;
    }
    return 0;
}

const char *vp_library_file(const void *symbol)
{
    Dl_info where;
    return dladdr(symbol, &where) && where.dli_fname ? where.dli_fname : NULL;
}
