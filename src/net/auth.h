/* Shared-secret authentication: the server sends a random nonce, the client answers
 * HMAC-SHA256(key, nonce). OpenSSL's libcrypto does the cryptography. */
#ifndef VP_AUTH_H
#define VP_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

#define VP_KEY_MAX 4096

/* Reads a key file (1..VP_KEY_MAX bytes; one trailing newline is not part of the key). */
int vp_auth_load_key(const char *path, uint8_t *key, size_t *key_len, char *err,
                     size_t err_len);
int vp_auth_nonce(uint8_t nonce[VP_NONCE_BYTES]);
void vp_auth_mac(const uint8_t *key, size_t key_len, const uint8_t nonce[VP_NONCE_BYTES],
                 uint8_t mac[VP_MAC_BYTES]);
/* Constant-time comparison of two MACs: 1 when equal. */
int vp_auth_equal(const uint8_t a[VP_MAC_BYTES], const uint8_t b[VP_MAC_BYTES]);

#endif
