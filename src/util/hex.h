/* hex.h — hexadecimal digits, for every parser in librig that meets them
 * (JSON \u escapes, URI percent-encoding, $ref fragments), and for the
 * random ids and tokens it writes. Internal. */
#ifndef RIG_UTIL_HEX_H
#define RIG_UTIL_HEX_H

#include <stdbool.h>
#include <stddef.h>

/* The value of hex digit c, or -1 when c is not one. */
static inline int rig__hex_value(char c)
{
    unsigned u = (unsigned char)c;
    if (u - '0' < 10)
        return (int)(u - '0');
    if ((u | 0x20) - 'a' < 6)
        return (int)((u | 0x20) - 'a' + 10);
    return -1;
}

static inline bool rig__is_hex(char c)
{
    return rig__hex_value(c) >= 0;
}

/* Four hex digits at p as a number; false (and *out untouched) if any of
 * them is not a hex digit. */
static inline bool rig__hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int x = rig__hex_value(p[i]);
        if (x < 0)
            return false;
        v = v << 4 | (unsigned)x;
    }
    *out = v;
    return true;
}

/* The n bytes at p as 2n lowercase hex digits at out, NUL-terminated (out
 * holds 2n + 1 bytes). */
static inline void rig__hex_encode(char *out, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

#endif
