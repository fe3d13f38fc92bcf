/* Key files, nonces (the kernel's random bytes) and HMAC-SHA256 (core/sha256.h). */
#include "net/auth.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "core/sha256.h"

int vp_auth_load_key(const char *path, uint8_t *key, size_t *key_len, char *err,
                     size_t err_len)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(err, err_len, "--key-file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat info;
    if (fstat(fileno(file), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO))) {
        fclose(file); /* a secret others can read is no secret: refused, as ssh does */
        snprintf(err, err_len, "--key-file %s: other users may read or write it (mode %04o); "
                 "accepted: a file only its owner can use (chmod 600 %s)", path,
                 (unsigned)(info.st_mode & 07777), path);
        return -1;
    }
    size_t len = fread(key, 1, VP_KEY_MAX, file);
    int longer = fgetc(file) != EOF;
    fclose(file);
    if (len > 0 && key[len - 1] == '\n')
        len--;
    if (len == 0 || longer) {
        snprintf(err, err_len, "--key-file %s: accepted: a file of 1 to %d bytes (the shared "
                 "secret)", path, VP_KEY_MAX);
        return -1;
    }
    *key_len = len;
    return 0;
}

int vp_auth_nonce(uint8_t nonce[VP_NONCE_BYTES])
{
    return getrandom(nonce, VP_NONCE_BYTES, 0) == VP_NONCE_BYTES ? 0 : -1;
}

void vp_auth_mac(const uint8_t *key, size_t key_len, const uint8_t nonce[VP_NONCE_BYTES],
                 uint8_t mac[VP_MAC_BYTES])
{
    vp_hmac_sha256(key, key_len, nonce, VP_NONCE_BYTES, mac);
}

int vp_auth_equal(const uint8_t a[VP_MAC_BYTES], const uint8_t b[VP_MAC_BYTES])
{
    /* every byte looked at, whatever differs: the time taken tells a guesser nothing */
    volatile uint8_t differ = 0;
    for (size_t i = 0; i < VP_MAC_BYTES; i++)
        differ |= a[i] ^ b[i];
    return differ == 0;
}
