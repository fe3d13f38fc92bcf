/* SHA-256 and HMAC-SHA256 through OpenSSL's libcrypto, loaded on first use (core/loaded.h):
 * most virtperf processes (every virtperf-mpi rank running a benchmark, a guest's agent)
 * hash nothing, and linked, libcrypto's relocations alone kept 1.4 MB resident in each. */
#ifndef VP_SHA256_H
#define VP_SHA256_H

#include <stddef.h>

/* A SHA-256 being computed. */
struct vp_sha256;

/* A new one, begun. The first loads libcrypto; a machine without it (a broken install:
 * the build set installs it) ends the process with one line saying what to install. */
struct vp_sha256 *vp_sha256_new(void);
/* Begins again, over nothing. */
void vp_sha256_restart(struct vp_sha256 *sha);
void vp_sha256_add(struct vp_sha256 *sha, const void *data, size_t len);
/* The digest of what was added, in hex (64 digits and a NUL); restart before adding more. */
void vp_sha256_hex(struct vp_sha256 *sha, char hex[65]);
void vp_sha256_free(struct vp_sha256 *sha);

/* HMAC-SHA256 of data under key into mac (32 bytes). */
void vp_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char mac[32]);

#endif
