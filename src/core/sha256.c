/* SHA-256 and HMAC-SHA256 over libcrypto loaded on first use (sha256.h). */
#include "core/sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/loaded.h"

/* The calls made, typed as OpenSSL's headers declare them. */
static struct {
    __typeof__(EVP_MD_CTX_new) *context_new;
    __typeof__(EVP_MD_CTX_free) *context_free;
    __typeof__(EVP_DigestInit_ex) *init;
    __typeof__(EVP_DigestUpdate) *update;
    __typeof__(EVP_DigestFinal_ex) *final;
    __typeof__(EVP_sha256) *sha256;
    __typeof__(HMAC) *hmac;
} crypto;

static void load(void)
{
    const struct vp_loaded_symbol symbols[] = {
        { "EVP_MD_CTX_new", &crypto.context_new },
        { "EVP_MD_CTX_free", &crypto.context_free },
        { "EVP_DigestInit_ex", &crypto.init },
        { "EVP_DigestUpdate", &crypto.update },
        { "EVP_DigestFinal_ex", &crypto.final },
        { "EVP_sha256", &crypto.sha256 },
        { "HMAC", &crypto.hmac },
    };
    char err[512];
    /* libssl3's SONAME, the one built against */
    if (vp_library_load("libcrypto.so.3", symbols, sizeof symbols / sizeof symbols[0],
                        "scripts/deps.sh build installs libssl3", err, sizeof err) != 0) {
        fprintf(stderr, "virtperf: %s\n", err);
        exit(1);
    }
}

static void loaded(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT; /* jobs' threads may hash at once */
    pthread_once(&once, load);
}

struct vp_sha256 *vp_sha256_new(void)
{
    loaded();
    EVP_MD_CTX *context = crypto.context_new();
    if (!context)
        abort();
    struct vp_sha256 *sha = (struct vp_sha256 *)context;
    vp_sha256_restart(sha);
    return sha;
}

void vp_sha256_restart(struct vp_sha256 *sha)
{
    crypto.init((EVP_MD_CTX *)sha, crypto.sha256(), NULL);
}

void vp_sha256_add(struct vp_sha256 *sha, const void *data, size_t len)
{
    crypto.update((EVP_MD_CTX *)sha, data, len);
}

void vp_sha256_hex(struct vp_sha256 *sha, char hex[65])
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    crypto.final((EVP_MD_CTX *)sha, digest, &len);
    for (unsigned i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", i < len ? digest[i] : 0);
}

void vp_sha256_free(struct vp_sha256 *sha)
{
    if (sha)
        crypto.context_free((EVP_MD_CTX *)sha);
}

void vp_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char mac[32])
{
    loaded();
    unsigned int mac_len = 32;
    crypto.hmac(crypto.sha256(), key, (int)key_len, data, len, mac, &mac_len);
}
