/* unicode.c — UTF-8 validation and JSON string decoding.
 *
 * The parser validates every string once; after that, strings are decoded only
 * when a caller asks (a getter, a key comparison). Decoding trusts the parser:
 * it is never given text that did not pass validation. */
#include <string.h>

#include "json/internal.h"
#include "util/hex.h"

size_t rig__utf8_seq(const unsigned char *p, const unsigned char *end) {
    /* Well-formed sequences, Unicode 15 table 3-7: no overlongs (C0, C1, E0 80..9F,
     * F0 80..8F), no surrogates (ED A0..BF), nothing past U+10FFFF (F4 90.., F5..). */
    unsigned c = p[0];
    size_t avail = (size_t)(end - p);
    if (c < 0xC2)
        return 0;
    if (c < 0xE0)
        return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (avail < 3)
            return 0;
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c < 0xF5) {
        if (avail < 4)
            return 0;
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* Four hex digits the parser has already checked. */
static unsigned hex4(const char *p) {
    unsigned v = 0;
    rig__hex4(p, &v);
    return v;
}

static size_t utf8_put(unsigned cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes the escape at *pp (which points just past the backslash) into out;
 * returns the byte count and advances *pp. A surrogate pair is one code point;
 * a lone surrogate becomes U+FFFD, matching what the parser accepted. */
static size_t decode_escape(const char **pp, const char *end, char *out) {
    const char *p = *pp;
    char e = *p++;
    size_t n = 1;
    switch (e) {
    case 'b': out[0] = '\b'; break;
    case 'f': out[0] = '\f'; break;
    case 'n': out[0] = '\n'; break;
    case 'r': out[0] = '\r'; break;
    case 't': out[0] = '\t'; break;
    case 'u': {
        unsigned cp = hex4(p);
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo;
            if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
                (lo = hex4(p + 2)) >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        n = utf8_put(cp, out);
        break;
    }
    default: out[0] = e; break; /* '"', '\\', '/' */
    }
    *pp = p;
    return n;
}

size_t rig__decode_string(const char *raw, size_t rawlen, char *out) {
    const char *p = raw, *end = raw + rawlen;
    char *o = out;
    while (p < end) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs) {
            memcpy(o, p, (size_t)(end - p));
            o += end - p;
            break;
        }
        memcpy(o, p, (size_t)(bs - p));
        o += bs - p;
        p = bs + 1;
        o += decode_escape(&p, end, o);
    }
    return (size_t)(o - out);
}

/* A cursor that yields a raw string's decoded bytes a run at a time, so two
 * strings can be compared without decoding either into memory. */
typedef struct decoder {
    const char *p, *end;
    bool esc;
    char buf[4];
} decoder;

/* Next run of decoded bytes: returns its length (0 at the end) and sets *run. */
static size_t decoder_next(decoder *d, const char **run) {
    if (d->p >= d->end)
        return 0;
    if (!d->esc) {
        *run = d->p;
        size_t n = (size_t)(d->end - d->p);
        d->p = d->end;
        return n;
    }
    if (*d->p == '\\') {
        d->p++;
        *run = d->buf;
        return decode_escape(&d->p, d->end, d->buf);
    }
    const char *bs = memchr(d->p, '\\', (size_t)(d->end - d->p));
    const char *stop = bs ? bs : d->end;
    *run = d->p;
    size_t n = (size_t)(stop - d->p);
    d->p = stop;
    return n;
}

static bool decoders_equal(decoder *a, decoder *b) {
    const char *ra = NULL, *rb = NULL;
    size_t na = 0, nb = 0;
    for (;;) {
        if (na == 0)
            na = decoder_next(a, &ra);
        if (nb == 0)
            nb = decoder_next(b, &rb);
        if (na == 0 || nb == 0)
            return na == nb;
        size_t n = na < nb ? na : nb;
        if (memcmp(ra, rb, n) != 0)
            return false;
        ra += n, na -= n;
        rb += n, nb -= n;
    }
}

bool rig__raw_equal(const char *a, size_t alen, bool a_esc, const char *b, size_t blen,
                    bool b_esc) {
    if (!a_esc && !b_esc)
        return alen == blen && bytes_equal(a, b, alen);
    decoder da = {a, a + alen, a_esc, {0}}, db = {b, b + blen, b_esc, {0}};
    return decoders_equal(&da, &db);
}
