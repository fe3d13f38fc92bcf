/* The region for JSON documents that are read and not changed much (json_arena.h): one
 * reserved range of addresses, a bump pointer, and jansson's allocation hooks that tell
 * its values from malloc's by address. */
#include "core/json_arena.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define VP_ARENA_USABLE false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VP_ARENA_USABLE false
#endif
#endif
#ifndef VP_ARENA_USABLE
#define VP_ARENA_USABLE true
#endif

#define RESERVED_BYTES ((size_t)64 << 30) /* address space only: past it, malloc */
#define CHUNK_BYTES ((size_t)64 << 20)     /* made usable at a time */
#define ALIGNMENT 16                       /* what malloc promises: any value's fields */

/* The region is one reserved range of addresses (one test tells its values from
 * malloc's), made readable and writable a chunk at a time as it fills. */
static char *region_start, *next_free, *usable_end;
static _Atomic(char *) region_end; /* frees on any thread read it */
static _Thread_local bool in_region;
static bool hooks_installed;

static bool from_region(const void *pointer)
{
    const char *end = atomic_load_explicit(&region_end, memory_order_acquire);
    return end && (const char *)pointer >= region_start && (const char *)pointer < end;
}

/* Room for size more bytes; false: none (the reservation refused or spent). */
static bool make_room(size_t size)
{
    if (!region_start) {
        void *reserved = mmap(NULL, RESERVED_BYTES, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (reserved == MAP_FAILED)
            return false;
        /* Huge pages where the kernel has them on request (transparent_hugepage
         * "madvise"): a gigabyte of documents is then 500 faults, not 250,000 (a fresh
         * page's fault took 11-14 us on a PVM guest: docs/bench.md). Refused: small pages. */
        madvise(reserved, RESERVED_BYTES, MADV_HUGEPAGE);
        region_start = next_free = usable_end = reserved;
        atomic_store_explicit(&region_end, region_start + RESERVED_BYTES, memory_order_release);
    }
    while ((size_t)(usable_end - next_free) < size) {
        if (usable_end == region_start + RESERVED_BYTES ||
            mprotect(usable_end, CHUNK_BYTES, PROT_READ | PROT_WRITE) != 0)
            return false;
        usable_end += CHUNK_BYTES;
    }
    return true;
}

static void *region_or_heap_alloc(size_t size)
{
    size_t rounded = (size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
    if (!in_region || rounded > CHUNK_BYTES || !make_room(rounded))
        return malloc(size);
    void *value = next_free;
    next_free += rounded;
    return value;
}

static void region_or_heap_free(void *pointer)
{
    if (pointer && !from_region(pointer))
        free(pointer);
}

void vp_json_arena_begin(void)
{
    if (!VP_ARENA_USABLE)
        return;
    if (!hooks_installed) { /* malloc'd values made before are freed by free, as before */
        json_set_alloc_funcs(region_or_heap_alloc, region_or_heap_free);
        hooks_installed = true;
    }
    in_region = true;
}

void vp_json_arena_end(void)
{
    in_region = false;
}

char *vp_json_arena_dumps(const json_t *value, size_t flags)
{
    bool open = in_region;
    in_region = false; /* the text is the caller's, freed with free() */
    char *text = json_dumps(value, flags);
    in_region = open;
    return text;
}

size_t vp_json_arena_used(void)
{
    return region_start ? (size_t)(next_free - region_start) : 0;
}

void vp_json_arena_release(void)
{
    if (!region_start)
        return;
    atomic_store_explicit(&region_end, NULL, memory_order_release);
    munmap(region_start, RESERVED_BYTES);
    region_start = next_free = usable_end = NULL;
}
