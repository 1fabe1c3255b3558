/* parse.c — the strict one-pass JSON parser.
 *
 * One loop over the input, no recursion: an explicit stack holds the open
 * containers, so the depth limit is a number, not the size of the C stack.
 * Each value becomes one node (an object member two: key and value), appended
 * to the document's node array; strings are validated (UTF-8, escapes) but not
 * decoded, numbers are converted once. The node array and the scratch stacks
 * belong to the document and are reused by the next parse, so parsing a
 * stream of messages into one document allocates nothing in the steady state.
 *
 * Strings are scanned 16 bytes at a time with SSE2 where the compiler has it
 * (every x86-64 does): the closing quote is found from the compare masks, and
 * only a backslash, a control byte or a non-ASCII byte leaves that loop.
 * Digits are read eight at a time in a 64-bit word. Other targets use byte
 * loops. Each object key records the distance to the next key, so lookups
 * and iteration hop from key to key without touching the values.
 *
 * Duplicate keys are resolved here, once, when an object closes: every key
 * that a later key repeats is marked shadowed, so lookups, iteration and
 * length see the last one only. Most objects have no duplicates, and a
 * one-word filter proves it for free: each key sets a bit chosen by its length
 * and first byte, and only an object where a bit was already set (or a key
 * has escapes) is checked key by key. That check compares pairwise up to
 * SMALL_OBJECT members and uses a hash table keyed with SipHash past that,
 * so a crafted object cannot make it quadratic. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json/internal.h"
#include "util/hex.h"

#define SMALL_OBJECT 16

/* Where and why parsing stopped. */
typedef struct perr {
    const char *at;
    const char *reason;
} perr;

static int fail(perr *e, int code, const char *at, const char *reason) {
    e->at = at;
    e->reason = reason;
    return code;
}

/* Bytes that end a run of plain string content. */
static const unsigned char string_special[256] = {
    /* 0x00-0x1F: control characters */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
    /* 0x80-0xFF: start or middle of a multi-byte sequence */
    [0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE bool is_digit(char c) { return (unsigned)(c - '0') < 10; }

static const char *skip_ws_slow(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static ALWAYS_INLINE const char *skip_ws(const char *p, const char *end) {
    /* every whitespace byte is <= ' ', so one compare clears compact JSON */
    if (likely(p < end && (unsigned char)*p > ' '))
        return p;
    return skip_ws_slow(p, end);
}

/* ---- growth of the document's arrays
 *
 * The parse loop keeps the arrays and their sizes in local variables, which
 * the compiler can hold in registers only if no pointer to them escapes. So
 * growth takes values and returns the new array by value. */

typedef struct grown {
    void *p;
    uint32_t cap;
} grown;

static grown grow(void *arr, uint32_t cap, size_t elem, uint32_t want) {
    grown g = {NULL, 0};
    uint64_t n = cap ? (uint64_t)cap * 2 : 16;
    while (n < want)
        n *= 2;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    if (n < want)
        return g;
    g.p = realloc(arr, (size_t)n * elem);
    g.cap = g.p ? (uint32_t)n : 0;
    return g;
}

/* ---- strings */

/* Does the input end inside what could still become a valid UTF-8 sequence?
 * Then it was cut short, rather than wrong. */
static bool utf8_cut_short(const char *p, const char *end) {
    const unsigned char *u = (const unsigned char *)p;
    size_t have = (size_t)(end - p), need = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : 2;
    if (have >= need || u[0] < 0xC2 || u[0] > 0xF4)
        return false;
    /* the second byte has the narrow ranges; the rest are plain continuations */
    if (have >= 2) {
        unsigned lo = u[0] == 0xE0 ? 0xA0 : u[0] == 0xF0 ? 0x90 : 0x80;
        unsigned hi = u[0] == 0xED ? 0x9F : u[0] == 0xF4 ? 0x8F : 0xBF;
        if (u[1] < lo || u[1] > hi)
            return false;
    }
    return have < 3 || (u[2] & 0xC0) == 0x80;
}

/* Does the input end inside a "\uXXXX" escape that starts at p (or right at
 * p)? Tells a surrogate pair cut in two from a lone surrogate. */
static bool escape_cut_short(const char *p, const char *end) {
    for (int i = 0; p + i < end; i++) {
        if (i >= 6)
            return false;
        if (i == 0 ? p[i] != '\\' : i == 1 ? p[i] != 'u' : !rig__is_hex(p[i]))
            return false;
    }
    return true;
}

/* The escape at p (just past its backslash): checks it, advances past it and
 * adds to *saved the bytes decoding will remove. Kept out of line: most
 * strings have no escapes and the scan loop should stay small. */
static int scan_escape(const char **pp, const char *end, unsigned flags, size_t *saved,
                       uint32_t *tag, perr *e) {
    const char *p = *pp;
    if (p == end)
        return fail(e, RIG_JSON_ETRUNCATED, end, "unterminated string");
    switch (*p) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        *pp = p + 1;
        *saved += 1;
        return 0;
    case 'u': break;
    default: return fail(e, RIG_JSON_ESTRING, p - 1, "invalid escape");
    }
    unsigned cp, lo;
    if (end - p < 5 || !rig__hex4(p + 1, &cp)) {
        for (const char *q = p + 1; q < end && q < p + 5; q++)
            if (!rig__is_hex(*q))
                return fail(e, RIG_JSON_ESTRING, p - 1, "invalid \\u escape (needs four hex digits)");
        return fail(e, RIG_JSON_ETRUNCATED, end, "unterminated string");
    }
    p += 5;
    if (cp < 0x80) {
        *saved += 5;
    } else if (cp < 0x800) {
        *saved += 4;
    } else if (cp < 0xD800 || cp > 0xDFFF) {
        *saved += 3;
    } else if (cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u' && rig__hex4(p + 2, &lo) &&
               lo >= 0xDC00 && lo <= 0xDFFF) {
        p += 6;
        *saved += 8; /* twelve characters become four bytes */
    } else {
        /* A lone surrogate: U+FFFD, or an error when strict. Anything after it
         * (a malformed second escape, say) is checked on the next turn. */
        if (flags & RIG_JSON_STRICT_SURROGATES) {
            if (cp <= 0xDBFF && escape_cut_short(p, end))
                return fail(e, RIG_JSON_ETRUNCATED, end, "unterminated string");
            return fail(e, RIG_JSON_ESTRING, p - 6, "lone UTF-16 surrogate escape");
        }
        *tag |= F_REPLACED;
        *saved += 3;
    }
    *pp = p;
    return 0;
}

/* Scans the string whose opening quote is at *pp; fills n's tag and lengths
 * and leaves *pp past the closing quote. */
static ALWAYS_INLINE int scan_string(const char **pp, const char *end, unsigned flags, node *n,
                                     perr *e) {
    const char *p = *pp + 1, *s = p;
    uint32_t tag = T_STRING;
    size_t saved = 0; /* bytes that decoding escapes removes */
    int rc;
    for (;;) {
#ifdef __SSE2__
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            unsigned quote = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
            /* signed compare: bytes below 0x20 and bytes from 0x80 up */
            unsigned other = (unsigned)_mm_movemask_epi8(_mm_or_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')), _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));
            /* the usual end: a quote with nothing special before it, decided
             * from the masks without reading the byte again */
            if (quote && !((quote - 1) & other)) {
                p += __builtin_ctz(quote);
                goto closed;
            }
            if (other) {
                p += __builtin_ctz(other);
                goto special;
            }
            p += 16;
        }
#endif
        while (p < end && !string_special[(unsigned char)*p])
            p++;
        if (p == end)
            return fail(e, RIG_JSON_ETRUNCATED, end, "unterminated string");
#ifdef __SSE2__
    special:;
#endif
        unsigned char c = (unsigned char)*p;
        if (likely(c == '"'))
            break;
        if (c == '\\') {
            tag |= F_ESCAPED;
            p++;
            if ((rc = scan_escape(&p, end, flags, &saved, &tag, e)))
                return rc;
            continue;
        }
        if (c < 0x20)
            return fail(e, RIG_JSON_ESTRING, p, "raw control character in string (escape it)");
        /* Non-ASCII: validate the whole run of multi-byte sequences. */
        do {
            size_t k = rig__utf8_seq((const unsigned char *)p, (const unsigned char *)end);
            if (!k)
                return utf8_cut_short(p, end) ? fail(e, RIG_JSON_ETRUNCATED, end, "unterminated string")
                                              : fail(e, RIG_JSON_EUTF8, p, "invalid UTF-8 in string");
            p += k;
        } while (p < end && (unsigned char)*p >= 0x80);
    }
#ifdef __SSE2__
closed:
#endif
    n->tag = tag;
    n->u.s.a = (uint32_t)(p - s);
    n->u.s.b = (uint32_t)((size_t)(p - s) - saved);
    *pp = p + 1;
    return 0;
}

/* ---- numbers */

/* Numbers that the fast path cannot convert exactly. */
static int slow_double(const char *s, const char *p, bool neg, double *d, perr *e) {
    int rc = rig__number_to_double(neg ? s + 1 : s, (size_t)(p - s) - neg, d);
    if (rc == RIG_JSON_ERANGE)
        return fail(e, rc, s, "number is too large for a double");
    if (rc)
        return fail(e, rc, s, "out of memory");
    return 0;
}

static const uint64_t pow10_u64[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                       100000000};

/* Reads the run of digits at p into *m (m = m * 10^k + digits, modulo 2^64:
 * exact while the number has at most 19 digits, which the caller checks) and
 * returns its end. Eight bytes at a time where the input allows: one word
 * test finds how many of them are digits and three multiplies combine them
 * (digit pairs, then quads, then the eight). */
static ALWAYS_INLINE const char *read_digits(const char *p, const char *end, uint64_t *m) {
    const uint64_t lows = 0x0F0F0F0F0F0F0F0Full, highs = 0xF0F0F0F0F0F0F0F0ull;
    uint64_t acc = *m;
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t low = w & lows;
        /* non-zero bytes: not 0x30-0x39 (high nibble not 3, or low nibble > 9) */
        uint64_t other = ((w & highs) ^ 0x3030303030303030ull) | ((low + 0x0606060606060606ull) & highs);
        unsigned k = other ? (unsigned)__builtin_ctzll(other) >> 3 : 8;
        if (k == 0)
            break;
        /* little-endian: the first digit is the low byte; shifting the k digits
         * to the top leaves zeros in front of them */
        uint64_t v = k == 8 ? low : low << (8 * (8 - k));
        v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
        v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
        v = (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
        acc = acc * pow10_u64[k] + v;
        p += k;
        if (k < 8) {
            *m = acc;
            return p;
        }
    }
    while (p < end && is_digit(*p))
        acc = acc * 10 + (unsigned)(*p++ - '0');
    *m = acc;
    return p;
}

/* Scans the number at *pp: validates the grammar, classifies it and converts
 * it into n. Integers that fit are exact. Doubles with at most 19 digits, a
 * mantissa up to 2^53 and a power of ten up to 22 are exact with one IEEE
 * multiply or divide (Clinger's fast path); the rest go through strtod. */
static ALWAYS_INLINE int scan_number(const char **pp, const char *end, unsigned flags, node *n,
                                     perr *e) {
    const char *p = *pp, *s = p;
    bool neg = *p == '-', is_int = true;
    uint64_t m = 0;
    int64_t exp10 = 0; /* value = m * 10^exp10 when digits <= 19 */

    p += neg;
    if (p == end)
        return fail(e, RIG_JSON_ETRUNCATED, p, "expected a digit after '-'");
    const char *first = p;
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p))
            return fail(e, RIG_JSON_ENUMBER, p, "leading zeros are not allowed");
    } else if (is_digit(*p)) {
        p = read_digits(p, end, &m);
    } else {
        return fail(e, RIG_JSON_ENUMBER, p, "expected a digit");
    }
    size_t digits = (size_t)(p - first);
    if (p < end && *p == '.') {
        is_int = false;
        if (++p == end)
            return fail(e, RIG_JSON_ETRUNCATED, p, "expected a digit after '.'");
        if (!is_digit(*p))
            return fail(e, RIG_JSON_ENUMBER, p, "expected a digit after '.'");
        const char *f = p;
        p = read_digits(p, end, &m);
        digits += (size_t)(p - f);
        exp10 = -(int64_t)(p - f);
    }
    if (p < end && (*p | 0x20) == 'e') {
        is_int = false;
        int esign = 1;
        if (++p < end && (*p == '+' || *p == '-')) {
            esign = *p == '-' ? -1 : 1;
            p++;
        }
        if (p == end)
            return fail(e, RIG_JSON_ETRUNCATED, p, "expected a digit in the exponent");
        if (!is_digit(*p))
            return fail(e, RIG_JSON_ENUMBER, p, "expected a digit in the exponent");
        /* Saturate far past anything a double or the input length (at most
         * 2^32 fraction digits) could offset, so a huge exponent can never
         * land back in the fast path's range; strtod then reads it exactly. */
        int64_t x = 0;
        do {
            if (x < 1000000000000)
                x = x * 10 + (*p - '0');
            p++;
        } while (p < end && is_digit(*p));
        exp10 += esign * x;
    }
    *pp = p;

    bool exact = digits <= 19; /* m holds the digits without loss */
    if (is_int && exact) {
        if (!neg && m <= (uint64_t)INT64_MAX) {
            n->tag = T_INT;
            n->u.i = (int64_t)m;
            return 0;
        }
        if (neg && m != 0 && m <= (uint64_t)INT64_MAX + 1) {
            n->tag = T_INT;
            n->u.i = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
            return 0;
        }
    }
    n->tag = T_DOUBLE;
    if (is_int && !(neg && digits == 1 && m == 0)) { /* "-0" is the double -0.0 */
        if (flags & RIG_JSON_REJECT_BIG_INTEGERS)
            return fail(e, RIG_JSON_ERANGE, s, "integer does not fit in 64 bits");
        n->tag |= F_BIGINT;
    }
    double d;
    if (exact && m == 0) {
        d = 0.0;
    } else if (exact && m <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
        d = exp10 < 0 ? (double)m / pow10_exact[-exp10] : (double)m * pow10_exact[exp10];
    } else {
        int rc = slow_double(s, p, neg, &d, e);
        if (rc)
            return rc;
    }
    n->u.d = neg ? -d : d;
    return 0;
}

/* ---- duplicate keys */

typedef struct keyctx {
    rig_json_doc *d; /* for its hash table and scratch buffer */
    const char *text;
    node *nodes;
} keyctx;

static inline bool keys_equal(const keyctx *k, const node *a, const node *b) {
    return a->u.s.b == b->u.s.b &&
           rig__raw_equal(k->text + a->off, a->u.s.a, a->tag & F_ESCAPED, k->text + b->off, b->u.s.a,
                          b->tag & F_ESCAPED);
}

/* Hash of a key's decoded bytes, so "a\u0062" and "ab" collide as they must. */
static int key_hash(const keyctx *k, const node *key, uint32_t *out) {
    rig_json_doc *d = k->d;
    const char *raw = k->text + key->off;
    if (!(key->tag & F_ESCAPED)) {
        *out = (uint32_t)rig__hash_bytes(raw, key->u.s.a);
        return 0;
    }
    if (key->u.s.b > d->scratch_cap) {
        char *s = realloc(d->scratch, key->u.s.b);
        if (!s)
            return RIG_JSON_ENOMEM;
        d->scratch = s;
        d->scratch_cap = key->u.s.b;
    }
    size_t n = rig__decode_string(raw, key->u.s.a, d->scratch);
    *out = (uint32_t)rig__hash_bytes(d->scratch, n);
    return 0;
}

/* Large objects: walk the keys from last to first through an open-addressing
 * table of the keys seen so far; a key already there is shadowed by it. The
 * table holds slots (index into keys + 1), and after it, one hash per key. */
static int mark_duplicates_hashed(const keyctx *k, const uint32_t *keys, uint32_t count,
                                  uint32_t *shadowed) {
    rig_json_doc *d = k->d;
    uint32_t size = 64;
    while (size < count * 2u)
        size *= 2;
    uint32_t want = size + count;
    if (want > d->table_cap) {
        grown g = grow(d->table, d->table_cap, sizeof(uint32_t), want);
        if (!g.p)
            return RIG_JSON_ENOMEM;
        d->table = g.p;
        d->table_cap = g.cap;
    }
    uint32_t *table = d->table, *hashes = d->table + size, mask = size - 1;
    memset(table, 0, size * sizeof(uint32_t));
    for (uint32_t j = count; j-- > 0;) {
        node *kj = &k->nodes[keys[j]];
        uint32_t h;
        if (key_hash(k, kj, &h))
            return RIG_JSON_ENOMEM;
        hashes[j] = h;
        uint32_t pos = h & mask;
        for (;;) {
            uint32_t slot = table[pos];
            if (!slot) {
                table[pos] = j + 1;
                break;
            }
            if (hashes[slot - 1] == h && keys_equal(k, kj, &k->nodes[keys[slot - 1]])) {
                kj->tag |= F_SHADOWED;
                (*shadowed)++;
                break;
            }
            pos = (pos + 1) & mask;
        }
    }
    return 0;
}

/* Marks each key of the object at node obj (count members, all closed) that a
 * later key repeats; sets *distinct. The key indices are gathered by walking
 * the members, into the document's key scratch array. */
static int mark_duplicates(const keyctx *k, uint32_t obj, uint32_t count, uint32_t *distinct) {
    rig_json_doc *d = k->d;
    if (count > d->keys_cap) {
        grown g = grow(d->keys, d->keys_cap, sizeof(uint32_t), count);
        if (!g.p)
            return RIG_JSON_ENOMEM;
        d->keys = g.p;
        d->keys_cap = g.cap;
    }
    uint32_t *keys = d->keys, at = obj + 1;
    for (uint32_t m = 0; m < count; m++) {
        keys[m] = at;
        at = member_after(k->nodes, at);
    }
    uint32_t shadowed = 0;
    if (count > SMALL_OBJECT) {
        int rc = mark_duplicates_hashed(k, keys, count, &shadowed);
        if (rc)
            return rc;
    } else {
        for (uint32_t i = 0; i + 1 < count; i++) {
            node *a = &k->nodes[keys[i]];
            for (uint32_t j = i + 1; j < count; j++) {
                if (keys_equal(k, a, &k->nodes[keys[j]])) {
                    a->tag |= F_SHADOWED;
                    shadowed++;
                    break;
                }
            }
        }
    }
    *distinct = count - shadowed;
    return 0;
}

/* ---- the parse loop */

/* Is the rest of the input a proper prefix of word? Then the input was cut
 * short, rather than wrong. */
static bool cut_short(const char *p, const char *end, const char *word, size_t n) {
    return (size_t)(end - p) < n && memcmp(p, word, (size_t)(end - p)) == 0;
}

static int bad_literal(const char *p, const char *end, const char *word, size_t n, perr *e) {
    if (cut_short(p, end, word, n))
        return fail(e, RIG_JSON_ETRUNCATED, end, "input ends inside a literal");
    return fail(e, RIG_JSON_ESYNTAX, p, "invalid literal (true, false and null are lowercase)");
}

/* The parse loop: a state machine over goto labels (value, after_value, key,
 * close). The node array, the stack of enclosing containers and the key stack
 * live in locals while it runs and go back into the document at the end. The
 * scanners fill the next node in place; it counts once they succeed. */
static int parse(rig_json_doc *d, const char *start, const char *end, unsigned flags,
                 unsigned max_depth, perr *e) {
    node *nodes = d->nodes;
    uint32_t count = 0, cap = d->cap;
    open_level *stack = d->stack; /* the containers enclosing the current one */
    uint32_t stack_cap = d->stack_cap;
    uint32_t depth = 0;
    /* the innermost open container */
    uint32_t top_idx = 0, top_count = 0, top_key = 0;
    bool top_obj = false, top_maybe_dup = false;
    uint64_t top_seen = 0;
    const char *p = start;
    node *n;
    int rc = 0;
    grown g;
    const char *word; /* the literal being matched */
    size_t wlen;
    uint32_t wtype;

/* Makes room for one more node; n then points at it. */
#define NEXT_NODE()                                                                                \
    do {                                                                                           \
        if (unlikely(count == cap)) {                                                              \
            g = grow(nodes, cap, sizeof(node), count + 1);                                         \
            if (!g.p) {                                                                            \
                rc = fail(e, RIG_JSON_ENOMEM, p, "out of memory");                                 \
                goto out;                                                                          \
            }                                                                                      \
            nodes = g.p;                                                                           \
            cap = g.cap;                                                                           \
        }                                                                                          \
        n = &nodes[count];                                                                         \
    } while (0)
#define FAIL(code, at, reason)                                                                     \
    do {                                                                                           \
        rc = fail(e, code, at, reason);                                                            \
        goto out;                                                                                  \
    } while (0)
/* Whitespace is rare in machine-written JSON, so each state looks at the next
 * byte first and skips whitespace only when it finds some. */
#define IS_WS(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')

    if ((flags & RIG_JSON_ALLOW_BOM) && end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;

value:
    if (p == end)
        FAIL(RIG_JSON_ETRUNCATED, p, depth ? "expected a value" : "no value");
    NEXT_NODE();
    switch (*p) {
    case '"':
        n->off = (uint32_t)(p + 1 - start);
        if ((rc = scan_string(&p, end, flags, n, e)))
            goto out;
        count++;
        goto after_value;
    case '{':
    case '[':
        if (depth >= max_depth)
            FAIL(RIG_JSON_EDEPTH, p, "nesting is deeper than the depth limit");
        if (depth) { /* the current container becomes an enclosing one */
            if (depth - 1 == stack_cap) {
                g = grow(stack, stack_cap, sizeof(open_level), depth);
                if (!g.p)
                    FAIL(RIG_JSON_ENOMEM, p, "out of memory");
                stack = g.p;
                stack_cap = g.cap;
            }
            stack[depth - 1] = (open_level){top_idx, top_count, top_key, top_maybe_dup, top_seen};
        }
        top_obj = *p == '{';
        top_idx = count;
        top_count = 0;
        top_maybe_dup = false;
        top_seen = 0;
        n->tag = top_obj ? T_OBJECT : T_ARRAY;
        n->off = (uint32_t)(p - start);
        count++;
        depth++;
        p = skip_ws(p + 1, end);
        if (p < end && *p == (top_obj ? '}' : ']'))
            goto close;
        if (top_obj)
            goto key;
        goto value;
    case 't':
        word = "true", wlen = 4, wtype = T_TRUE;
        goto literal;
    case 'f':
        word = "false", wlen = 5, wtype = T_FALSE;
        goto literal;
    case 'n':
        word = "null", wlen = 4, wtype = T_NULL;
    literal:
        if ((size_t)(end - p) < wlen || memcmp(p, word, wlen) != 0) {
            rc = bad_literal(p, end, word, wlen, e);
            goto out;
        }
        n->tag = wtype;
        n->off = (uint32_t)(p - start);
        count++;
        p += wlen;
        goto after_value;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        n->off = (uint32_t)(p - start);
        if ((rc = scan_number(&p, end, flags, n, e)))
            goto out;
        count++;
        goto after_value;
    case ' ':
    case '\t':
    case '\n':
    case '\r':
        p = skip_ws_slow(p, end);
        goto value;
    case ']':
    case '}':
        FAIL(RIG_JSON_ESYNTAX, p, depth ? "expected a value (a trailing comma?)" : "expected a value");
    default:
        FAIL(RIG_JSON_ESYNTAX, p, "expected a value");
    }

after_value:
    if (depth == 0)
        goto done;
    top_count++;
    if (top_obj) { /* the distance from this member's key to the next one */
        uint32_t dist = count - top_key;
        nodes[top_key].tag |= (dist < COUNT_MAX ? dist : COUNT_MAX) << COUNT_SHIFT;
    }
after_value_ws:
    if (p == end)
        FAIL(RIG_JSON_ETRUNCATED, p, top_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    if (*p == ',') {
        p++;
        if (top_obj)
            goto key;
        goto value;
    }
    if (*p == (top_obj ? '}' : ']'))
        goto close;
    if (IS_WS(*p)) {
        p = skip_ws_slow(p, end);
        goto after_value_ws;
    }
    FAIL(RIG_JSON_ESYNTAX, p, top_obj ? "expected ',' or '}'" : "expected ',' or ']'");

key:
    if (p == end)
        FAIL(RIG_JSON_ETRUNCATED, p, "expected a string key");
    if (*p != '"') {
        if (IS_WS(*p)) {
            p = skip_ws_slow(p, end);
            goto key;
        }
        FAIL(RIG_JSON_ESYNTAX, p,
             *p == '}' ? "expected a string key (a trailing comma?)" : "expected a string key");
    }
    NEXT_NODE();
    n->off = (uint32_t)(p + 1 - start);
    if ((rc = scan_string(&p, end, flags, n, e)))
        goto out;
    top_key = count;
    {
        /* equal keys have equal lengths and first bytes (the closing quote for
         * an empty key), so they hit the same bit; escaped keys may be spelled
         * differently, so they always count */
        uint64_t bit = 1ull << ((n->u.s.a * 7u + (unsigned char)start[n->off]) & 63);
        top_maybe_dup |= (top_seen & bit) != 0 || (n->tag & F_ESCAPED);
        top_seen |= bit;
    }
    count++;
    if (likely(p < end && *p == ':')) {
        p++;
        goto value;
    }
    p = skip_ws(p, end);
    if (p == end)
        FAIL(RIG_JSON_ETRUNCATED, p, "expected ':' after the key");
    if (*p != ':')
        FAIL(RIG_JSON_ESYNTAX, p, "expected ':' after the key");
    p++;
    goto value;

close: {
    /* p is at the closing bracket of the innermost container. */
    uint32_t children = top_count;
    if (top_obj) {
        if (top_maybe_dup && children > 1) {
            keyctx k = {d, start, nodes};
            if ((rc = mark_duplicates(&k, top_idx, children, &children)))
                FAIL(rc, p, "out of memory");
        }
    }
    node *c = &nodes[top_idx];
    c->u.s.a = (uint32_t)(p + 1 - start);
    c->u.s.b = count;
    c->tag |= (children < COUNT_MAX ? children : COUNT_MAX) << COUNT_SHIFT;
    p++;
    if (--depth) {
        open_level *l = &stack[depth - 1];
        top_idx = l->node;
        top_count = l->count;
        top_key = l->key;
        top_maybe_dup = l->maybe_dup;
        top_seen = l->seen;
        top_obj = node_type(&nodes[top_idx]) == T_OBJECT;
    }
    goto after_value;
}

done:
    p = skip_ws(p, end);
    if (p != end)
        FAIL(RIG_JSON_ESYNTAX, p, "unexpected text after the value");

out:
#undef NEXT_NODE
#undef FAIL
#undef IS_WS
    d->nodes = nodes;
    d->cap = cap;
    d->count = rc ? 0 : count;
    d->stack = stack;
    d->stack_cap = stack_cap;
    return rc;
}

/* ---- documents */

rig_json_doc *rig_json_doc_new(void) { return calloc(1, sizeof(rig_json_doc)); }

void rig_json_doc_free(rig_json_doc *d) {
    if (!d)
        return;
    free(d->nodes);
    free(d->owned);
    free(d->stack);
    free(d->keys);
    free(d->table);
    free(d->scratch);
    free(d);
}

static int report(rig_json_error *err, int code, const char *text, size_t len, size_t offset,
                  const char *reason) {
    if (err) {
        err->code = code;
        err->offset = offset;
        err->reason = reason;
        rig__error_locate(text, len, offset, &err->line, &err->column);
    }
    return code;
}

int rig_json_doc_parse(rig_json_doc *d, const char *text, size_t len, const rig_json_options *opts,
                       rig_json_error *err) {
    size_t max_size = opts && opts->max_size ? opts->max_size : RIG_JSON_DEFAULT_MAX_SIZE;
    unsigned max_depth = opts && opts->max_depth ? opts->max_depth : RIG_JSON_DEFAULT_MAX_DEPTH;
    unsigned flags = opts ? opts->flags : 0;
    if (max_size > RIG_JSON_MAX_SIZE_LIMIT)
        max_size = RIG_JSON_MAX_SIZE_LIMIT;

    d->count = 0;
    d->text = NULL;
    d->len = 0;
    if (!text && len)
        return report(err, RIG_JSON_EINVAL, NULL, 0, 0, "no input buffer");
    if (len > max_size)
        return report(err, RIG_JSON_ESIZE, NULL, 0, max_size, "input is larger than the size limit");
    if (flags & RIG_JSON_COPY_INPUT) {
        if (len > d->owned_cap) {
            char *o = realloc(d->owned, len);
            if (!o)
                return report(err, RIG_JSON_ENOMEM, NULL, 0, 0, "out of memory");
            d->owned = o;
            d->owned_cap = len;
        }
        if (len)
            memcpy(d->owned, text, len);
        text = d->owned;
    }
    if (!text)
        text = "";
    if (d->cap == 0) {
        /* A first guess that avoids most regrowth on big inputs: one node per
         * eight bytes. Small messages start at 16 nodes. */
        grown g = grow(NULL, 0, sizeof(node), len / 8 > 16 ? (uint32_t)(len / 8) : 16);
        if (!g.p)
            return report(err, RIG_JSON_ENOMEM, NULL, 0, 0, "out of memory");
        d->nodes = g.p;
        d->cap = g.cap;
    }

    perr e = {NULL, NULL};
    int rc = parse(d, text, text + len, flags, max_depth, &e);
    if (rc)
        return report(err, rc, text, len, (size_t)(e.at - text), e.reason);
    d->text = text;
    d->len = len;
    if (err) {
        err->code = 0;
        err->offset = 0;
        err->line = err->column = 0;
        err->reason = NULL;
    }
    return 0;
}

rig_json_doc *rig_json_parse(const char *text, size_t len, const rig_json_options *opts,
                             rig_json_error *err) {
    rig_json_doc *d = rig_json_doc_new();
    if (!d) {
        report(err, RIG_JSON_ENOMEM, NULL, 0, 0, "out of memory");
        return NULL;
    }
    if (rig_json_doc_parse(d, text, len, opts, err)) {
        rig_json_doc_free(d);
        return NULL;
    }
    return d;
}

size_t rig_json_doc_size(const rig_json_doc *d) { return d ? d->count : 0; }
