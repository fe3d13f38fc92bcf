/* Who gets a session slot in `virtperf serve` under load. Sessions still in their
 * handshake may hold at most half the slots, so connections that never prove a key
 * cannot crowd out sessions that did; a finished handshake is never ended to make room.
 * When the handshake slots are full, a new connection ends one handshake: one from the
 * source address holding the most handshakes, and among those the one whose peer has
 * been silent longest (since it connected, or since its HELLO). So a flood from one
 * address, silent or stalling after HELLO, only ever evicts itself, and a flood from many
 * addresses evicts a client only if more than half --max-sessions connections arrive
 * while that client is between two of its messages (a round trip). (An order by progress
 * alone, HELLO before none, let a HELLO flood evict a client whose HELLO had not been
 * read yet.) Not thread-safe: the server calls it under its lock. */
#ifndef VP_NET_ADMISSION_H
#define VP_NET_ADMISSION_H

#include <stdbool.h>
#include <stdint.h>

struct vp_admission_slot {
    int fd;          /* -1 when free */
    int64_t since;   /* when its peer last spoke in its handshake (it connected, sent its
                      * HELLO); 0 when no handshake runs in it */
    uint64_t source; /* its peer's address, hashed */
    bool evicted; /* its handshake was ended to make room; its session is ending */
};

struct vp_source_tally {
    uint64_t source;
    unsigned count;
};

struct vp_admission {
    unsigned slot_count, handshake_cap;
    unsigned active;      /* slots taken */
    unsigned handshaking; /* slots whose handshake runs (evicted ones not counted) */
    unsigned ending;      /* slots whose handshake was evicted, not yet released */
    struct vp_admission_slot *slots;
    struct vp_source_tally *tally; /* scratch for counting handshakes per source */
    unsigned tally_size;           /* a power of two, at least twice handshake_cap */
};

void vp_admission_init(struct vp_admission *admission, unsigned slot_count);
void vp_admission_free(struct vp_admission *admission);

/* The hash of a peer's address (its port left out). */
uint64_t vp_admission_source(const void *address, unsigned len);

/* Takes a free slot for fd, its handshake starting now; when the handshake slots are
 * full, first ends one handshake (shutdown of its socket: its thread sees the end and
 * releases the slot). Returns the slot, or -1 when every slot is taken (some may be
 * ending: ending > 0 says so, and a wait for a release may then succeed). */
int vp_admission_take(struct vp_admission *admission, int fd, uint64_t source, int64_t now);
/* The slot's connection sent its HELLO, now. */
void vp_admission_progress(struct vp_admission *admission, unsigned slot, int64_t now);
/* The slot's handshake ended (done or failed); returns whether it had been evicted. */
bool vp_admission_handshake_done(struct vp_admission *admission, unsigned slot);
/* The slot's session ended: the slot is free again. */
void vp_admission_release(struct vp_admission *admission, unsigned slot);

#endif
