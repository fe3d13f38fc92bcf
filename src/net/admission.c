/* Session slots and the choice of the handshake that makes room (admission.h). */
#include "net/admission.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void vp_admission_init(struct vp_admission *admission, unsigned slot_count)
{
    memset(admission, 0, sizeof *admission);
    admission->slot_count = slot_count;
    admission->handshake_cap = slot_count > 1 ? slot_count / 2 : 1;
    admission->tally_size = 4;
    while (admission->tally_size < 2 * admission->handshake_cap)
        admission->tally_size *= 2;
    admission->slots = calloc(slot_count, sizeof *admission->slots);
    admission->tally = calloc(admission->tally_size, sizeof *admission->tally);
    if (!admission->slots || !admission->tally)
        abort();
    for (unsigned i = 0; i < slot_count; i++)
        admission->slots[i].fd = -1;
}

void vp_admission_free(struct vp_admission *admission)
{
    free(admission->slots);
    free(admission->tally);
    memset(admission, 0, sizeof *admission);
}

uint64_t vp_admission_source(const void *address, unsigned len)
{
    uint64_t hash = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (unsigned i = 0; i < len; i++)
        hash = (hash ^ ((const unsigned char *)address)[i]) * 0x100000001b3ULL;
    return hash;
}

/* The tally's entry for source (found or added); the table has room for every slot. */
static struct vp_source_tally *tally_entry(struct vp_admission *admission, uint64_t source)
{
    unsigned mask = admission->tally_size - 1;
    for (unsigned at = (unsigned)source & mask;; at = (at + 1) & mask) {
        struct vp_source_tally *entry = &admission->tally[at];
        if (entry->count == 0)
            entry->source = source;
        if (entry->source == source)
            return entry;
    }
}

/* Whether handshake a should be ended before handshake b. */
static bool evict_before(const struct vp_admission_slot *a, unsigned a_source_count,
                         const struct vp_admission_slot *b, unsigned b_source_count)
{
    if (a_source_count != b_source_count)
        return a_source_count > b_source_count;
    return a->since < b->since;
}

static void evict_one(struct vp_admission *admission)
{
    memset(admission->tally, 0, admission->tally_size * sizeof *admission->tally);
    for (unsigned i = 0; i < admission->slot_count; i++)
        if (admission->slots[i].since)
            tally_entry(admission, admission->slots[i].source)->count++;
    int victim = -1;
    unsigned victim_count = 0;
    for (unsigned i = 0; i < admission->slot_count; i++) {
        const struct vp_admission_slot *slot = &admission->slots[i];
        if (!slot->since)
            continue;
        unsigned count = tally_entry(admission, slot->source)->count;
        if (victim < 0 || evict_before(slot, count, &admission->slots[victim], victim_count)) {
            victim = (int)i;
            victim_count = count;
        }
    }
    if (victim < 0)
        return;
    struct vp_admission_slot *slot = &admission->slots[victim];
    shutdown(slot->fd, SHUT_RDWR);
    slot->since = 0;
    slot->evicted = true;
    admission->handshaking--;
    admission->ending++;
}

int vp_admission_take(struct vp_admission *admission, int fd, uint64_t source, int64_t now)
{
    if (admission->handshaking >= admission->handshake_cap)
        evict_one(admission);
    unsigned free_slot = 0;
    while (free_slot < admission->slot_count && admission->slots[free_slot].fd >= 0)
        free_slot++;
    if (free_slot == admission->slot_count)
        return -1;
    admission->slots[free_slot] = (struct vp_admission_slot){
        .fd = fd, .since = now ? now : 1, .source = source
    };
    admission->active++;
    admission->handshaking++;
    return (int)free_slot;
}

void vp_admission_progress(struct vp_admission *admission, unsigned slot, int64_t now)
{
    if (admission->slots[slot].since) /* not evicted meanwhile */
        admission->slots[slot].since = now ? now : 1;
}

bool vp_admission_handshake_done(struct vp_admission *admission, unsigned slot)
{
    struct vp_admission_slot *taken = &admission->slots[slot];
    if (taken->since) {
        taken->since = 0;
        admission->handshaking--;
    }
    return taken->evicted;
}

void vp_admission_release(struct vp_admission *admission, unsigned slot)
{
    struct vp_admission_slot *taken = &admission->slots[slot];
    vp_admission_handshake_done(admission, slot);
    if (taken->evicted)
        admission->ending--;
    *taken = (struct vp_admission_slot){ .fd = -1 };
    admission->active--;
}
