/* sha256.h — SHA-256 (FIPS 180-4), for edit_file's expected_sha256.
 * Internal. */
#ifndef RIG_UTIL_SHA256_H
#define RIG_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define RIG_SHA256_LEN 32

typedef struct rig__sha256 {
    uint32_t h[8];
    uint64_t total; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes in block */
} rig__sha256;

RIG_INTERNAL void rig__sha256_init(rig__sha256 *s);
RIG_INTERNAL void rig__sha256_update(rig__sha256 *s, const void *data, size_t len);
RIG_INTERNAL void rig__sha256_final(rig__sha256 *s, unsigned char out[RIG_SHA256_LEN]);

/* The digest of data as 64 lowercase hex digits and a NUL. */
RIG_INTERNAL void rig__sha256_hex(const void *data, size_t len, char out[65]);

#endif
