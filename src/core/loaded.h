/* A shared library loaded on first use instead of linked: a process that never needs it
 * pays nothing for it and for the libraries it pulls in (gfal2 and libvirt each bring
 * dozens: linked, they cost every virtperf process tens of milliseconds of loading, and a
 * 32-rank launch half a second). The symbols land in a table of pointers whose types
 * come from the library's own headers (__typeof__), so a call is checked as a direct
 * one would be. */
#ifndef VP_LOADED_H
#define VP_LOADED_H

#include <stddef.h>

struct vp_loaded_symbol {
    const char *name;
    void *slot; /* the address of a function pointer of the symbol's type */
};

/* Loads library (its SONAME) and every symbol into its slot; never unloaded. Returns 0,
 * or -1 with "cannot load LIBRARY: why (install)" or the missing symbol in err. */
int vp_library_load(const char *library, const struct vp_loaded_symbol *symbols, size_t count,
                    const char *install, char *err, size_t err_len);

/* The file the library holding symbol (one it loaded) was loaded from, as the loader
 * found it (a link's name: the image of a guest carries the link and its target), or
 * NULL. */
const char *vp_library_file(const void *symbol);

#endif
