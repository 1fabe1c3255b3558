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
 * (every x86-64 does): one compare finds the next quote, backslash, control
 * byte or non-ASCII byte. Other targets use a byte table.
 *
 * Duplicate keys are resolved here, once, when an object closes: every key
 * that a later key repeats is marked shadowed, so lookups, iteration and
 * length see the last one only. Objects of up to SMALL_OBJECT members compare
 * keys pairwise (lengths first, so it costs a few integer compares); larger
 * ones use a hash table keyed with SipHash, so a crafted object cannot make
 * this quadratic. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json/internal.h"

#define SMALL_OBJECT 16

typedef struct parser {
    rig_json_doc *d;
    const char *start, *end;
    unsigned flags;
    unsigned max_depth;
    /* the error, when there is one */
    const char *at;
    const char *reason;
} parser;

static int fail(parser *ps, int code, const char *at, const char *reason) {
    ps->at = at;
    ps->reason = reason;
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

static inline bool is_digit(char c) { return (unsigned)(c - '0') < 10; }

static inline const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* ---- growth of the document's arrays */

static bool grow(void **arr, uint32_t *cap, size_t elem, uint32_t want) {
    uint64_t n = *cap ? (uint64_t)*cap * 2 : 16;
    while (n < want)
        n *= 2;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    if (n < want)
        return false;
    void *p = realloc(*arr, (size_t)n * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = (uint32_t)n;
    return true;
}

/* Appends a node; its index, or UINT32_MAX when memory runs out. */
static inline uint32_t new_node(parser *ps, uint32_t tag, const char *at) {
    rig_json_doc *d = ps->d;
    if (unlikely(d->count == d->cap) &&
        !grow((void **)&d->nodes, &d->cap, sizeof(node), d->count + 1))
        return UINT32_MAX;
    uint32_t i = d->count++;
    d->nodes[i].tag = tag;
    d->nodes[i].off = (uint32_t)(at - ps->start);
    return i;
}

/* ---- strings */

static bool hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = (unsigned char)p[i], x;
        if (c - '0' < 10)
            x = c - '0';
        else if ((c | 0x20) - 'a' < 6)
            x = (c | 0x20) - 'a' + 10;
        else
            return false;
        v = v << 4 | x;
    }
    *out = v;
    return true;
}

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
 * p)? Used to tell a cut-off surrogate pair from a lone surrogate. */
static bool escape_cut_short(const char *p, const char *end) {
    const char want[] = "\\u";
    for (int i = 0; p + i < end; i++) {
        if (i >= 6)
            return false;
        char c = p[i];
        if (i < 2 ? c != want[i] : !((unsigned)(c - '0') < 10 || (unsigned)((c | 0x20) - 'a') < 6))
            return false;
    }
    return true;
}

/* Checks the \u escape whose 'u' is at p. Returns 0 and its code unit, or an
 * error: truncated when the input ends inside it, else malformed. */
static int read_u_escape(parser *ps, const char *p, unsigned *cp) {
    const char *end = ps->end;
    if (end - p >= 5 && hex4(p + 1, cp))
        return 0;
    for (const char *q = p + 1; q < end && q < p + 5; q++)
        if (!((unsigned)(*q - '0') < 10 || (unsigned)((*q | 0x20) - 'a') < 6))
            return fail(ps, RIG_JSON_ESTRING, p - 1, "invalid \\u escape (needs four hex digits)");
    return fail(ps, RIG_JSON_ETRUNCATED, end, "unterminated string");
}

/* Scans the string whose opening quote is at *pp, appends its node with the
 * given tag, and leaves *pp past the closing quote. */
static int scan_string(parser *ps, const char **pp, uint32_t *out) {
    const char *p = *pp + 1, *s = p, *end = ps->end;
    uint32_t flags = 0;
    size_t saved = 0; /* bytes that decoding escapes removes */
    for (;;) {
#ifdef __SSE2__
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                      ctl = _mm_set1_epi8(0x20);
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            /* signed compare: bytes below 0x20 and bytes from 0x80 up */
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                       _mm_cmplt_epi8(v, ctl));
            unsigned mask = (unsigned)_mm_movemask_epi8(hit);
            if (mask) {
                p += __builtin_ctz(mask);
                goto special;
            }
            p += 16;
        }
#endif
        while (p < end && !string_special[(unsigned char)*p])
            p++;
        if (p == end)
            return fail(ps, RIG_JSON_ETRUNCATED, end, "unterminated string");
#ifdef __SSE2__
    special:;
#endif
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            flags |= F_ESCAPED;
            p++;
            if (p == end)
                return fail(ps, RIG_JSON_ETRUNCATED, end, "unterminated string");
            switch (*p) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                p++;
                saved += 1;
                continue;
            case 'u': break;
            default: return fail(ps, RIG_JSON_ESTRING, p - 1, "invalid escape");
            }
            unsigned cp, lo;
            int rc = read_u_escape(ps, p, &cp);
            if (rc)
                return rc;
            p += 5;
            if (cp < 0x80) {
                saved += 5;
            } else if (cp < 0x800) {
                saved += 4;
            } else if (cp < 0xD800 || cp > 0xDFFF) {
                saved += 3;
            } else if (cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
                       hex4(p + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
                p += 6;
                saved += 8; /* twelve characters become four bytes */
            } else {
                /* A lone surrogate: U+FFFD, or an error when strict. Anything
                 * after it (a malformed second escape, say) is checked by the
                 * next turn of the loop. */
                if (ps->flags & RIG_JSON_STRICT_SURROGATES) {
                    if (cp <= 0xDBFF && escape_cut_short(p, end))
                        return fail(ps, RIG_JSON_ETRUNCATED, end, "unterminated string");
                    return fail(ps, RIG_JSON_ESTRING, p - 6, "lone UTF-16 surrogate escape");
                }
                flags |= F_REPLACED;
                saved += 3;
            }
            continue;
        }
        if (c < 0x20)
            return fail(ps, RIG_JSON_ESTRING, p, "raw control character in string (escape it)");
        /* Non-ASCII: validate the whole run of multi-byte sequences. */
        do {
            size_t n = rig__utf8_seq((const unsigned char *)p, (const unsigned char *)end);
            if (!n)
                return utf8_cut_short(p, end)
                           ? fail(ps, RIG_JSON_ETRUNCATED, end, "unterminated string")
                           : fail(ps, RIG_JSON_EUTF8, p, "invalid UTF-8 in string");
            p += n;
        } while (p < end && (unsigned char)*p >= 0x80);
    }
    uint32_t i = new_node(ps, T_STRING | flags, s);
    if (i == UINT32_MAX)
        return fail(ps, RIG_JSON_ENOMEM, s, "out of memory");
    node *n = &ps->d->nodes[i];
    n->u.s.a = (uint32_t)(p - s);
    n->u.s.b = (uint32_t)((size_t)(p - s) - saved);
    *pp = p + 1;
    *out = i;
    return 0;
}

/* ---- numbers */

/* Scans the number at *pp: validates the grammar, classifies it and converts
 * it. Integers that fit are exact. Doubles with at most 19 significant digits,
 * a mantissa up to 2^53 and a power of ten up to 22 are exact with one IEEE
 * multiply or divide (Clinger's fast path); the rest go through strtod. */
static int scan_number(parser *ps, const char **pp) {
    const char *p = *pp, *s = p, *end = ps->end;
    bool neg = false, is_int = true, dropped = false;
    uint64_t m = 0;
    int sig = 0;         /* significant digits held in m */
    int64_t exp10 = 0;   /* value = m * 10^exp10 (when nothing was dropped) */

    if (*p == '-') {
        neg = true;
        if (++p == end)
            return fail(ps, RIG_JSON_ETRUNCATED, p, "expected a digit after '-'");
    }
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p))
            return fail(ps, RIG_JSON_ENUMBER, p, "leading zeros are not allowed");
    } else if (is_digit(*p)) {
        do {
            if (sig < 19) {
                m = m * 10 + (unsigned)(*p - '0');
                sig++;
            } else {
                exp10++;
                dropped |= *p != '0';
            }
            p++;
        } while (p < end && is_digit(*p));
    } else {
        return fail(ps, RIG_JSON_ENUMBER, p, "expected a digit");
    }
    if (p < end && *p == '.') {
        is_int = false;
        if (++p == end)
            return fail(ps, RIG_JSON_ETRUNCATED, p, "expected a digit after '.'");
        if (!is_digit(*p))
            return fail(ps, RIG_JSON_ENUMBER, p, "expected a digit after '.'");
        do {
            if (sig < 19) {
                m = m * 10 + (unsigned)(*p - '0');
                exp10--;
                if (m)
                    sig++;
            } else {
                dropped |= *p != '0';
            }
            p++;
        } while (p < end && is_digit(*p));
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_int = false;
        int esign = 1;
        if (++p < end && (*p == '+' || *p == '-')) {
            esign = *p == '-' ? -1 : 1;
            p++;
        }
        if (p == end)
            return fail(ps, RIG_JSON_ETRUNCATED, p, "expected a digit in the exponent");
        if (!is_digit(*p))
            return fail(ps, RIG_JSON_ENUMBER, p, "expected a digit in the exponent");
        int64_t e = 0;
        do {
            if (e < 100000000) /* far past any double; keeps the sum from overflowing */
                e = e * 10 + (*p - '0');
            p++;
        } while (p < end && is_digit(*p));
        exp10 += esign * e;
    }
    *pp = p;

    if (is_int && exp10 == 0) {
        if (!neg && m <= (uint64_t)INT64_MAX) {
            uint32_t i = new_node(ps, T_INT, s);
            if (i == UINT32_MAX)
                return fail(ps, RIG_JSON_ENOMEM, s, "out of memory");
            ps->d->nodes[i].u.i = (int64_t)m;
            return 0;
        }
        if (neg && m != 0 && m <= (uint64_t)INT64_MAX + 1) {
            uint32_t i = new_node(ps, T_INT, s);
            if (i == UINT32_MAX)
                return fail(ps, RIG_JSON_ENOMEM, s, "out of memory");
            ps->d->nodes[i].u.i = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
            return 0;
        }
    }
    uint32_t tag = T_DOUBLE;
    if (is_int && !(neg && m == 0)) { /* "-0" is the double -0.0, not a big integer */
        if (ps->flags & RIG_JSON_REJECT_BIG_INTEGERS)
            return fail(ps, RIG_JSON_ERANGE, s, "integer does not fit in 64 bits");
        tag |= F_BIGINT;
    }
    double d;
    if (m == 0) {
        d = 0.0;
    } else if (!dropped && m <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
        d = exp10 < 0 ? (double)m / pow10_exact[-exp10] : (double)m * pow10_exact[exp10];
    } else {
        int rc = rig__number_to_double(neg ? s + 1 : s, (size_t)(p - s) - neg, &d);
        if (rc == RIG_JSON_ERANGE)
            return fail(ps, rc, s, "number is too large for a double");
        if (rc)
            return fail(ps, rc, s, "out of memory");
    }
    uint32_t i = new_node(ps, tag, s);
    if (i == UINT32_MAX)
        return fail(ps, RIG_JSON_ENOMEM, s, "out of memory");
    ps->d->nodes[i].u.d = neg ? -d : d;
    return 0;
}

/* ---- duplicate keys */

static inline bool keys_equal(const parser *ps, const node *a, const node *b) {
    return a->u.s.b == b->u.s.b &&
           rig__raw_equal(ps->start + a->off, a->u.s.a, a->tag & F_ESCAPED, ps->start + b->off,
                          b->u.s.a, b->tag & F_ESCAPED);
}

/* Hash of a key's decoded bytes, so "a\u0062" and "ab" collide as they must. */
static int key_hash(parser *ps, const node *k, uint32_t *out) {
    rig_json_doc *d = ps->d;
    const char *raw = ps->start + k->off;
    if (!(k->tag & F_ESCAPED)) {
        *out = (uint32_t)rig__hash_bytes(raw, k->u.s.a);
        return 0;
    }
    if (k->u.s.b > d->scratch_cap) {
        char *s = realloc(d->scratch, k->u.s.b);
        if (!s)
            return RIG_JSON_ENOMEM;
        d->scratch = s;
        d->scratch_cap = k->u.s.b;
    }
    size_t n = rig__decode_string(raw, k->u.s.a, d->scratch);
    *out = (uint32_t)rig__hash_bytes(d->scratch, n);
    return 0;
}

/* Large objects: walk the keys from last to first through an open-addressing
 * table of the keys seen so far; a key already there is shadowed by it. The
 * table holds slots (index into keys + 1), and after it, one hash per key. */
static int mark_duplicates_hashed(parser *ps, const uint32_t *keys, uint32_t k,
                                  uint32_t *shadowed) {
    rig_json_doc *d = ps->d;
    uint32_t size = 64;
    while (size < k * 2u)
        size *= 2;
    uint32_t want = size + k;
    if (want > d->table_cap && !grow((void **)&d->table, &d->table_cap, sizeof(uint32_t), want))
        return RIG_JSON_ENOMEM;
    uint32_t *table = d->table, *hashes = d->table + size, mask = size - 1;
    memset(table, 0, size * sizeof(uint32_t));
    for (uint32_t j = k; j-- > 0;) {
        node *kj = &d->nodes[keys[j]];
        uint32_t h;
        if (key_hash(ps, kj, &h))
            return RIG_JSON_ENOMEM;
        hashes[j] = h;
        uint32_t pos = h & mask;
        for (;;) {
            uint32_t slot = table[pos];
            if (!slot) {
                table[pos] = j + 1;
                break;
            }
            if (hashes[slot - 1] == h && keys_equal(ps, kj, &d->nodes[keys[slot - 1]])) {
                kj->tag |= F_SHADOWED;
                (*shadowed)++;
                break;
            }
            pos = (pos + 1) & mask;
        }
    }
    return 0;
}

/* Marks each key that a later key repeats; returns the distinct count. */
static int mark_duplicates(parser *ps, uint32_t base, uint32_t k, uint32_t *distinct) {
    const uint32_t *keys = ps->d->keys + base;
    uint32_t shadowed = 0;
    if (k > SMALL_OBJECT) {
        int rc = mark_duplicates_hashed(ps, keys, k, &shadowed);
        if (rc)
            return rc;
    } else {
        node *nodes = ps->d->nodes;
        for (uint32_t i = 0; i + 1 < k; i++) {
            node *a = &nodes[keys[i]];
            for (uint32_t j = i + 1; j < k; j++) {
                if (keys_equal(ps, a, &nodes[keys[j]])) {
                    a->tag |= F_SHADOWED;
                    shadowed++;
                    break;
                }
            }
        }
    }
    *distinct = k - shadowed;
    return 0;
}

/* ---- the parse loop */

/* Is the rest of the input a proper prefix of word? Then the input was cut
 * short, rather than wrong. */
static bool cut_short(const char *p, const char *end, const char *word, size_t n) {
    return (size_t)(end - p) < n && memcmp(p, word, (size_t)(end - p)) == 0;
}

static int literal(parser *ps, const char **pp, const char *word, size_t n, uint32_t type) {
    const char *p = *pp;
    if ((size_t)(ps->end - p) >= n && memcmp(p, word, n) == 0) {
        if (new_node(ps, type, p) == UINT32_MAX)
            return fail(ps, RIG_JSON_ENOMEM, p, "out of memory");
        *pp = p + n;
        return 0;
    }
    if (cut_short(p, ps->end, word, n))
        return fail(ps, RIG_JSON_ETRUNCATED, ps->end, "input ends inside a literal");
    return fail(ps, RIG_JSON_ESYNTAX, p, "invalid literal (true, false and null are lowercase)");
}

static int parse(parser *ps) {
    rig_json_doc *d = ps->d;
    const char *p = ps->start, *end = ps->end;
    uint32_t depth = 0;
    open_level *top = NULL;
    uint32_t idx;
    int rc;

    if ((ps->flags & RIG_JSON_ALLOW_BOM) && end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;

value:
    p = skip_ws(p, end);
    if (p == end)
        return fail(ps, RIG_JSON_ETRUNCATED, p, depth ? "expected a value" : "no value");
    switch (*p) {
    case '"':
        if ((rc = scan_string(ps, &p, &idx)))
            return rc;
        goto after_value;
    case '{':
    case '[': {
        if (depth >= ps->max_depth)
            return fail(ps, RIG_JSON_EDEPTH, p, "nesting is deeper than the depth limit");
        bool obj = *p == '{';
        idx = new_node(ps, obj ? T_OBJECT : T_ARRAY, p);
        if (idx == UINT32_MAX)
            return fail(ps, RIG_JSON_ENOMEM, p, "out of memory");
        if (depth == d->stack_cap &&
            !grow((void **)&d->stack, &d->stack_cap, sizeof(open_level), depth + 1))
            return fail(ps, RIG_JSON_ENOMEM, p, "out of memory");
        top = &d->stack[depth++];
        top->node = idx;
        top->count = 0;
        top->key_base = d->keys_len;
        p = skip_ws(p + 1, end);
        if (p < end && *p == (obj ? '}' : ']'))
            goto close;
        if (obj)
            goto key;
        goto value;
    }
    case 't':
        if ((rc = literal(ps, &p, "true", 4, T_TRUE)))
            return rc;
        goto after_value;
    case 'f':
        if ((rc = literal(ps, &p, "false", 5, T_FALSE)))
            return rc;
        goto after_value;
    case 'n':
        if ((rc = literal(ps, &p, "null", 4, T_NULL)))
            return rc;
        goto after_value;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if ((rc = scan_number(ps, &p)))
            return rc;
        goto after_value;
    case ']':
    case '}':
        return fail(ps, RIG_JSON_ESYNTAX, p,
                    depth ? "expected a value (a trailing comma?)" : "expected a value");
    default:
        return fail(ps, RIG_JSON_ESYNTAX, p, "expected a value");
    }

after_value:
    if (depth == 0)
        goto done;
    top = &d->stack[depth - 1];
    top->count++;
    p = skip_ws(p, end);
    {
        bool obj = node_type(&d->nodes[top->node]) == T_OBJECT;
        if (p == end)
            return fail(ps, RIG_JSON_ETRUNCATED, p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        if (*p == ',') {
            p++;
            if (obj)
                goto key;
            goto value;
        }
        if (*p == (obj ? '}' : ']'))
            goto close;
        return fail(ps, RIG_JSON_ESYNTAX, p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }

key:
    p = skip_ws(p, end);
    if (p == end)
        return fail(ps, RIG_JSON_ETRUNCATED, p, "expected a string key");
    if (*p != '"')
        return fail(ps, RIG_JSON_ESYNTAX, p,
                    *p == '}' ? "expected a string key (a trailing comma?)" : "expected a string key");
    if ((rc = scan_string(ps, &p, &idx)))
        return rc;
    if (d->keys_len == d->keys_cap &&
        !grow((void **)&d->keys, &d->keys_cap, sizeof(uint32_t), d->keys_len + 1))
        return fail(ps, RIG_JSON_ENOMEM, p, "out of memory");
    d->keys[d->keys_len++] = idx;
    p = skip_ws(p, end);
    if (p == end)
        return fail(ps, RIG_JSON_ETRUNCATED, p, "expected ':' after the key");
    if (*p != ':')
        return fail(ps, RIG_JSON_ESYNTAX, p, "expected ':' after the key");
    p++;
    goto value;

close: {
    /* p is at the closing bracket of the container on top of the stack. */
    node *n = &d->nodes[top->node];
    uint32_t count = top->count;
    if (node_type(n) == T_OBJECT) {
        if (count > 1 && (rc = mark_duplicates(ps, top->key_base, count, &count)))
            return fail(ps, rc, p, "out of memory");
        d->keys_len = top->key_base;
    }
    n->u.s.a = (uint32_t)(p + 1 - ps->start);
    n->u.s.b = d->count;
    n->tag |= (count < COUNT_MAX ? count : COUNT_MAX) << COUNT_SHIFT;
    depth--;
    p++;
    goto after_value;
}

done:
    p = skip_ws(p, end);
    if (p != end)
        return fail(ps, RIG_JSON_ESYNTAX, p, "unexpected text after the value");
    return 0;
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
    d->keys_len = 0;
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
        uint32_t guess = len / 8 > 16 ? (uint32_t)(len / 8) : 16;
        if (!grow((void **)&d->nodes, &d->cap, sizeof(node), guess))
            return report(err, RIG_JSON_ENOMEM, NULL, 0, 0, "out of memory");
    }

    parser ps = {d, text, text + len, flags, max_depth, NULL, NULL};
    int rc = parse(&ps);
    if (rc) {
        d->count = 0;
        d->keys_len = 0;
        return report(err, rc, text, len, (size_t)(ps.at - text), ps.reason);
    }
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
