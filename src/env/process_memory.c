/* A process's memory, a guest's RAM apart (see process_memory.h). */
#define _GNU_SOURCE
#include "env/process_memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One mapping of smaps as it is read: its header's permissions and whether it is
 * anonymous (no path), then its Size, Rss and Pss in kB. */
struct mapping {
    char perms[8];
    bool anonymous;
    uint64_t size_kb, rss_kb, pss_kb;
    bool seen;
};

static void add_mapping(const struct mapping *mapping, uint64_t ram_bytes,
                        struct vp_process_memory *memory)
{
    if (!mapping->seen)
        return;
    memory->rss_bytes += mapping->rss_kb * 1024;
    memory->pss_bytes += mapping->pss_kb * 1024;
    if (ram_bytes > 0 && mapping->anonymous && strncmp(mapping->perms, "rw", 2) == 0 &&
        mapping->size_kb * 1024 == ram_bytes) {
        memory->ram_rss_bytes += mapping->rss_kb * 1024;
        memory->ram_pss_bytes += mapping->pss_kb * 1024;
        memory->ram_found = true;
    }
}

int vp_process_memory_parse(const char *smaps, uint64_t ram_bytes, struct vp_process_memory *memory)
{
    *memory = (struct vp_process_memory){ .ram_found = false };
    struct mapping mapping = { .seen = false };
    bool any = false;
    const char *line = smaps;
    while (line && *line) {
        const char *end_of_line = strchr(line, '\n');
        uint64_t start, end, kb;
        char perms[8];
        int inode_end = 0;
        /* a mapping's header: START-END PERMS OFFSET DEV INODE [PATH] */
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s%n", &start, &end, perms,
                   &inode_end) == 3 && inode_end > 0) {
            add_mapping(&mapping, ram_bytes, memory);
            const char *path = line + inode_end + strspn(line + inode_end, " \t");
            mapping = (struct mapping){ .anonymous = *path == '\n' || *path == '\0' };
            snprintf(mapping.perms, sizeof mapping.perms, "%s", perms);
        } else if (sscanf(line, "Size: %" SCNu64 " kB", &kb) == 1) {
            mapping.size_kb = kb;
        } else if (sscanf(line, "Rss: %" SCNu64 " kB", &kb) == 1) {
            mapping.rss_kb = kb;
        } else if (sscanf(line, "Pss: %" SCNu64 " kB", &kb) == 1) {
            mapping.pss_kb = kb;
            mapping.seen = any = true;
        }
        line = end_of_line ? end_of_line + 1 : NULL;
    }
    add_mapping(&mapping, ram_bytes, memory);
    return any ? 0 : -1;
}

int vp_process_memory_read(pid_t pid, uint64_t ram_bytes, struct vp_process_memory *memory)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/smaps", (long)pid);
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 65536 + 1 > size) {
            size = size ? 2 * size : 262144;
            char *grown = realloc(text, size);
            if (!grown) {
                free(text);
                fclose(file);
                return -1;
            }
            text = grown;
        }
        size_t n = fread(text + used, 1, size - used - 1, file);
        if (n == 0)
            break;
        used += n;
    }
    fclose(file);
    text[used] = '\0';
    int status = vp_process_memory_parse(text, ram_bytes, memory);
    free(text);
    return status;
}
