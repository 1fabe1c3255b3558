/* base64.h — RFC 4648 base64 (standard alphabet, padded), as MCP carries
 * binary resources, images and audio. Internal. */
#ifndef RIG_UTIL_BASE64_H
#define RIG_UTIL_BASE64_H

#include <stddef.h>

#include "util/compiler.h"

/* The encoded length of n bytes (without a NUL). */
static inline size_t rig__base64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* Encode n bytes into out, which holds rig__base64_len(n) + 1 bytes;
 * NUL-ends it and returns the length. */
RIG_INTERNAL size_t rig__base64_encode(const void *in, size_t n, char *out);

#endif
