/* write.c — the streaming JSON writer.
 *
 * Output goes straight into one growable buffer: no tree is built. One state
 * byte says where the next token may go and, inside a container, which kind it
 * is; a stack of open container kinds serves only to restore that after an
 * end. Misuse — a value where a key belongs, a mismatched end — becomes a
 * sticky RIG_JSON_EUSAGE instead of invalid output.
 *
 * Every emitter reserves its room once and writes through a local pointer:
 * stores through w->buf would make the compiler reload the writer's fields
 * after each byte, since a char store may alias them.
 *
 * String escaping is the writer's hot loop (a tool result is often a whole
 * file). Short strings — most keys and values — are read as two overlapping
 * words and checked in registers; long ones are scanned 16 bytes at a time
 * with SSE2, each block stored as it is checked. Only quotes, backslashes,
 * control bytes and non-ASCII bytes stop the scan. Non-ASCII is checked to be well-formed
 * UTF-8, and each byte that is not becomes U+FFFD, so whatever a tool hands
 * over, the output is valid JSON that any strict parser accepts. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json/internal.h"

enum state {
    S_START = 0, /* nothing yet: one value may follow */
    S_DONE,      /* the value is complete */
    S_KEY,       /* after a key: its value follows */
    S_ARR_FIRST, /* an array just opened */
    S_ARR_NEXT,  /* after an element: a comma comes first */
    S_OBJ_FIRST, /* an object just opened: a key follows */
    S_OBJ_NEXT,  /* after a member: a comma and a key follow */
    S_ERROR      /* an error is set: nothing more is written */
};

void rig_json_writer_init(rig_json_writer *w, unsigned flags) {
    memset(w, 0, sizeof *w);
    w->flags = (uint8_t)flags;
    w->stack = NULL; /* the inline small_stack, so a writer can be moved */
    w->stack_cap = sizeof w->small_stack;
}

static inline uint8_t *open_kinds(rig_json_writer *w) {
    return w->stack ? w->stack : w->small_stack;
}

void rig_json_writer_reset(rig_json_writer *w) {
    w->len = 0;
    w->depth = 0;
    w->state = S_START;
    w->err = 0;
    w->replaced = 0;
}

void rig_json_writer_free(rig_json_writer *w) {
    free(w->buf);
    free(w->stack);
    rig_json_writer_init(w, w->flags);
}

int rig_json_writer_error(const rig_json_writer *w) { return w->err; }

static int set_error(rig_json_writer *w, int code) {
    if (!w->err)
        w->err = code;
    w->state = S_ERROR; /* which no fast path accepts */
    return w->err;
}

/* Room for n more bytes plus the final NUL: where they go, or NULL after an
 * error. */
static char *room_slow(rig_json_writer *w, size_t n) {
    if (w->err)
        return NULL;
    if (n > SIZE_MAX / 2 - w->len) {
        set_error(w, RIG_JSON_ENOMEM);
        return NULL;
    }
    size_t need = w->len + n + 1, cap = w->cap ? w->cap : 256;
    while (cap < need)
        cap *= 2;
    char *b = realloc(w->buf, cap);
    if (!b) {
        set_error(w, RIG_JSON_ENOMEM);
        return NULL;
    }
    w->buf = b;
    w->cap = cap;
    return b + w->len;
}

static inline char *room(rig_json_writer *w, size_t n) {
    if (likely(w->cap - w->len > n))
        return w->buf + w->len;
    return room_slow(w, n);
}

static inline void advance(rig_json_writer *w, const char *o) { w->len = (size_t)(o - w->buf); }

static char *indent(char *o, uint32_t depth) {
    *o++ = '\n';
    memset(o, ' ', 2 * (size_t)depth);
    return o + 2 * (size_t)depth;
}

static inline size_t indent_room(const rig_json_writer *w) {
    return (w->flags & RIG_JSON_WRITE_PRETTY) ? 1 + 2 * (size_t)w->depth : 0;
}

/* Room for a value of n bytes, with the comma and indentation it needs
 * already written; NULL on misuse or error. */
static char *value_slot(rig_json_writer *w, size_t n) {
    char *o;
    switch (w->state) {
    case S_START:
    case S_KEY:
        return w->err ? NULL : room(w, n);
    case S_ARR_FIRST:
    case S_ARR_NEXT:
        if (w->err || !(o = room(w, n + 1 + indent_room(w))))
            return NULL;
        if (w->state == S_ARR_NEXT)
            *o++ = ',';
        if (w->flags & RIG_JSON_WRITE_PRETTY)
            o = indent(o, w->depth);
        return o;
    default: /* in an object without a key, or after the top-level value */
        set_error(w, RIG_JSON_EUSAGE);
        return NULL;
    }
}

/* After a value: an array or object element is done, or the whole value. */
static inline void value_done(rig_json_writer *w, const char *o) {
    advance(w, o);
    w->state = w->state == S_KEY ? S_OBJ_NEXT : w->state == S_START ? S_DONE : S_ARR_NEXT;
}

/* ---- strings */

static const char escape_char[0x20] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
};

static const unsigned char plain[256] = {
    /* 0x00-0x1F need escapes; '"' and '\\' too; 0x80 and up need checking */
    [0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* Does any of the eight bytes in x need escaping or checking: below 0x20, a
 * quote, a backslash, or 0x80 and up? The classic "has a zero byte" and "has a
 * byte less than n" word tests: each says exactly whether any byte matches. */
static inline uint64_t needs_work8(uint64_t x) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    uint64_t zq = (q - ones) & ~q, zb = (b - ones) & ~b, lt = (x - ones * 0x20) & ~x;
    return ((zq | zb | lt) & high) | (x & high);
}

/* The string's body at o, which has room for n + 1 bytes; returns the new
 * end of output, or NULL when growing for escapes failed. Plain bytes are
 * copied 16 at a time as they are scanned (stored before they are checked:
 * the room is there, and the output pointer moves only past the good ones);
 * each escape grows the room as needed, always keeping four spare bytes for
 * what follows the string (quote, colon, space). */
static char *put_body(rig_json_writer *w, char *o, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const char *p = s, *end = s + n;
    for (;;) {
#ifdef __SSE2__
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            _mm_storeu_si128((__m128i *)o, v);
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
            unsigned mask = (unsigned)_mm_movemask_epi8(hit);
            if (mask) {
                unsigned k = (unsigned)__builtin_ctz(mask);
                o += k;
                p += k;
                goto special;
            }
            o += 16;
            p += 16;
        }
#endif
        while (p < end && plain[(unsigned char)*p])
            *o++ = *p++;
        if (p == end)
            return o;
#ifdef __SSE2__
    special:;
#endif
        size_t rest = (size_t)(end - p);
        advance(w, o);
        if (!(o = room(w, rest + 10)))
            return NULL;
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            o[0] = '\\';
            o[1] = (char)c;
            o += 2;
            p++;
        } else if (c < 0x20) {
            char e = escape_char[c];
            o[0] = '\\';
            o[1] = e;
            if (e == 'u') {
                memcpy(o + 2, "00", 2);
                o[4] = hex[c >> 4];
                o[5] = hex[c & 15];
                o += 6;
            } else {
                o += 2;
            }
            p++;
        } else {
            size_t k = rig__utf8_seq((const unsigned char *)p, (const unsigned char *)end);
            if (k) {
                memcpy(o, p, k);
                o += k;
                p += k;
            } else {
                memcpy(o, "\xEF\xBF\xBD", 3);
                o += 3;
                w->replaced++;
                p++;
            }
        }
    }
}

/* A short string that needs no escaping, quoted at o; NULL if it is not one.
 * The room was checked by the caller. */
static inline char *fast_string(char *o, const char *s, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        if (needs_work8(a) || needs_work8(b))
            return NULL;
        o[0] = '"';
        memcpy(o + 1, &a, 8);
        memcpy(o + 1 + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        if (needs_work8((uint64_t)a << 32 | b))
            return NULL;
        o[0] = '"';
        memcpy(o + 1, &a, 4);
        memcpy(o + 1 + n - 4, &b, 4);
    } else if (n < 4) {
        o[0] = '"';
        for (size_t i = 0; i < n; i++) {
            if (!plain[(unsigned char)s[i]])
                return NULL;
            o[1 + i] = s[i];
        }
    } else {
        return NULL;
    }
    o[n + 1] = '"';
    return o + n + 2;
}

/* A quoted string at o (room for n + 4); returns the new end or NULL. */
static inline __attribute__((always_inline)) char *put_string(rig_json_writer *w, char *o,
                                                              const char *s, size_t n) {
    char *q = fast_string(o, s, n);
    if (q)
        return q;
    *o++ = '"';
    o = put_body(w, o, s, n);
    if (o)
        *o++ = '"';
    return o;
}

/* ---- fast paths
 *
 * The common case — compact output, room in the buffer, a short plain string
 * or a small token — is handled by code that calls nothing, so the compiler
 * need not save registers for it; everything else falls through to the
 * general code below, which has the checks and the growth. */

/* Where a value of n bytes goes in the common case, comma written; NULL when
 * the general path must decide. */
static inline char *fast_value_slot(rig_json_writer *w, size_t n) {
    uint8_t st = w->state;
    if ((w->flags & RIG_JSON_WRITE_PRETTY) || w->cap - w->len <= n + 1)
        return NULL;
    char *o = w->buf + w->len;
    if (st == S_KEY || st == S_START || st == S_ARR_FIRST)
        return o;
    if (st == S_ARR_NEXT) {
        *o = ',';
        return o + 1;
    }
    return NULL;
}

/* ---- containers */

static __attribute__((noinline)) int open_container(rig_json_writer *w, char kind) {
    char *o = value_slot(w, 1);
    if (!o)
        return w->err;
    if (w->depth == w->stack_cap) {
        /* the output buffer is untouched, so o stays valid */
        if (w->stack_cap > UINT32_MAX / 2)
            return set_error(w, RIG_JSON_ENOMEM);
        uint32_t cap = w->stack_cap * 2;
        uint8_t *st = realloc(w->stack, cap);
        if (!st)
            return set_error(w, RIG_JSON_ENOMEM);
        if (!w->stack)
            memcpy(st, w->small_stack, sizeof w->small_stack);
        w->stack = st;
        w->stack_cap = cap;
    }
    *o++ = kind == 'o' ? '{' : '[';
    advance(w, o);
    open_kinds(w)[w->depth++] = (uint8_t)kind;
    w->state = kind == 'o' ? S_OBJ_FIRST : S_ARR_FIRST;
    return 0;
}

/* Only while the open containers fit the inline stack: past 32 levels (rare)
 * the general path runs, which keeps this one free of a pointer choice. */
static inline int fast_open(rig_json_writer *w, char kind) {
    char *o;
    if (w->depth < sizeof w->small_stack && !w->stack && (o = fast_value_slot(w, 1))) {
        *o++ = kind == 'o' ? '{' : '[';
        advance(w, o);
        w->small_stack[w->depth++] = (uint8_t)kind;
        w->state = kind == 'o' ? S_OBJ_FIRST : S_ARR_FIRST;
        return 0;
    }
    return open_container(w, kind);
}

static __attribute__((noinline)) int close_container(rig_json_writer *w, char kind) {
    if (w->err)
        return w->err;
    uint8_t st = w->state;
    bool ok = kind == 'o' ? st == S_OBJ_FIRST || st == S_OBJ_NEXT : st == S_ARR_FIRST || st == S_ARR_NEXT;
    if (!ok)
        return set_error(w, RIG_JSON_EUSAGE);
    bool pretty = (w->flags & RIG_JSON_WRITE_PRETTY) && (st == S_OBJ_NEXT || st == S_ARR_NEXT);
    w->depth--;
    char *o = room(w, 1 + (pretty ? 1 + 2 * (size_t)w->depth : 0));
    if (!o)
        return w->err;
    if (pretty)
        o = indent(o, w->depth);
    *o++ = kind == 'o' ? '}' : ']';
    advance(w, o);
    w->state = !w->depth ? S_DONE : open_kinds(w)[w->depth - 1] == 'o' ? S_OBJ_NEXT : S_ARR_NEXT;
    return 0;
}

static inline int fast_close(rig_json_writer *w, char kind) {
    uint8_t st = w->state;
    bool ok = kind == 'o' ? st == S_OBJ_FIRST || st == S_OBJ_NEXT : st == S_ARR_FIRST || st == S_ARR_NEXT;
    if (ok && !(w->flags & RIG_JSON_WRITE_PRETTY) && !w->stack && w->cap - w->len > 1) {
        w->buf[w->len++] = kind == 'o' ? '}' : ']';
        uint32_t depth = --w->depth;
        w->state = !depth ? S_DONE : w->small_stack[depth - 1] == 'o' ? S_OBJ_NEXT : S_ARR_NEXT;
        return 0;
    }
    return close_container(w, kind);
}

int rig_json_write_object_begin(rig_json_writer *w) { return fast_open(w, 'o'); }
int rig_json_write_object_end(rig_json_writer *w) { return fast_close(w, 'o'); }
int rig_json_write_array_begin(rig_json_writer *w) { return fast_open(w, 'a'); }
int rig_json_write_array_end(rig_json_writer *w) { return fast_close(w, 'a'); }

/* Room for a key of n bytes plus its quotes, colon and space, with its comma
 * and indentation written; NULL on misuse or error. */
static char *key_slot(rig_json_writer *w, size_t n) {
    if (w->err)
        return NULL;
    if (w->state != S_OBJ_FIRST && w->state != S_OBJ_NEXT) {
        set_error(w, RIG_JSON_EUSAGE);
        return NULL;
    }
    char *o = room(w, n + 5 + indent_room(w));
    if (!o)
        return NULL;
    if (w->state == S_OBJ_NEXT)
        *o++ = ',';
    if (w->flags & RIG_JSON_WRITE_PRETTY)
        o = indent(o, w->depth);
    return o;
}

/* After the quoted key at o: the colon. put_string always leaves room for it. */
static int key_done(rig_json_writer *w, char *o) {
    if (!o)
        return w->err;
    *o++ = ':';
    if (w->flags & RIG_JSON_WRITE_PRETTY)
        *o++ = ' ';
    advance(w, o);
    w->state = S_KEY;
    return 0;
}

static __attribute__((noinline)) int write_key(rig_json_writer *w, const char *key, size_t len) {
    if (!key && len)
        return set_error(w, RIG_JSON_EINVAL);
    char *o = key_slot(w, len);
    if (!o)
        return w->err;
    return key_done(w, put_string(w, o, key, len));
}

int rig_json_write_keyn(rig_json_writer *w, const char *key, size_t len) {
    uint8_t st = w->state;
    if ((st == S_OBJ_FIRST || st == S_OBJ_NEXT) && !(w->flags & RIG_JSON_WRITE_PRETTY) && key &&
        len <= 16 && w->cap - w->len > len + 4) {
        char *o = w->buf + w->len, *q;
        if (st == S_OBJ_NEXT)
            *o++ = ',';
        if ((q = fast_string(o, key, len))) {
            *q++ = ':';
            advance(w, q);
            w->state = S_KEY;
            return 0;
        }
    }
    return write_key(w, key, len);
}

int rig_json_write_key(rig_json_writer *w, const char *key) {
    if (!key)
        return set_error(w, RIG_JSON_EINVAL);
    return rig_json_write_keyn(w, key, strlen(key));
}

static __attribute__((noinline)) int write_string(rig_json_writer *w, const char *s, size_t len) {
    if (!s && len)
        return set_error(w, RIG_JSON_EINVAL);
    char *o = value_slot(w, len + 2);
    if (!o || !(o = put_string(w, o, s, len)))
        return w->err;
    value_done(w, o);
    return 0;
}

int rig_json_write_stringn(rig_json_writer *w, const char *s, size_t len) {
    char *o, *q;
    if (s && len <= 16 && (o = fast_value_slot(w, len + 2)) && (q = fast_string(o, s, len))) {
        value_done(w, q);
        return 0;
    }
    return write_string(w, s, len);
}

int rig_json_write_string(rig_json_writer *w, const char *s) {
    if (!s)
        return set_error(w, RIG_JSON_EINVAL);
    return rig_json_write_stringn(w, s, strlen(s));
}

static __attribute__((noinline)) int put_token_slow(rig_json_writer *w, const char *text, size_t n) {
    char *o = value_slot(w, n);
    if (!o)
        return w->err;
    memcpy(o, text, n);
    value_done(w, o + n);
    return 0;
}

static inline int put_token(rig_json_writer *w, const char *text, size_t n) {
    char *o = fast_value_slot(w, n);
    if (!o || n > 32)
        return put_token_slow(w, text, n);
    for (size_t i = 0; i < n; i++) /* tokens are short: no call to memcpy */
        o[i] = text[i];
    value_done(w, o + n);
    return 0;
}

/* Decimal digits of v, right-aligned ending at end; returns the start. */
static char *format_u64(uint64_t v, char *end) {
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";
    char *p = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

int rig_json_write_uint(rig_json_writer *w, uint64_t v) {
    char buf[24], *end = buf + sizeof buf;
    char *p = format_u64(v, end);
    return put_token(w, p, (size_t)(end - p));
}

int rig_json_write_int(rig_json_writer *w, int64_t v) {
    char buf[24], *end = buf + sizeof buf;
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char *p = format_u64(mag, end);
    if (v < 0)
        *--p = '-';
    return put_token(w, p, (size_t)(end - p));
}

int rig_json_write_double(rig_json_writer *w, double v) {
    char buf[32];
    size_t n = rig_json_format_double(v, buf);
    return put_token(w, buf, n);
}

int rig_json_write_bool(rig_json_writer *w, bool v) {
    return v ? put_token(w, "true", 4) : put_token(w, "false", 5);
}

int rig_json_write_null(rig_json_writer *w) { return put_token(w, "null", 4); }

int rig_json_write_raw(rig_json_writer *w, const char *json, size_t len) {
    if (!json || !len)
        return set_error(w, RIG_JSON_EINVAL);
    return put_token(w, json, len);
}

/* ---- a parsed value */

/* Bytes a string node's quoted text needs before any escaping grows it. */
static size_t node_string_room(const node *n) {
    return (size_t)((n->tag & F_ESCAPED) ? n->u.s.b : n->u.s.a) + 4;
}

/* Writes string node n at o (room from node_string_room): unescaped text is
 * valid JSON as it stands and is copied; escaped text is decoded and encoded
 * again, which also turns lone surrogates into real U+FFFD characters.
 * Returns the new end of output, or NULL on error. */
static char *put_node_string(rig_json_writer *w, char *o, const rig_json_doc *d, const node *n) {
    const char *raw = d->text + n->off;
    if (!(n->tag & F_ESCAPED)) {
        *o++ = '"';
        memcpy(o, raw, n->u.s.a);
        o += n->u.s.a;
        *o++ = '"';
        return o;
    }
    char small[256];
    char *buf = n->u.s.b <= sizeof small ? small : malloc(n->u.s.b);
    if (!buf) {
        set_error(w, RIG_JSON_ENOMEM);
        return NULL;
    }
    size_t len = rig__decode_string(raw, n->u.s.a, buf);
    o = put_string(w, o, buf, len);
    if (buf != small)
        free(buf);
    return o;
}

int rig_json_write_keyv(rig_json_writer *w, rig_json_val v) {
    if (w->err)
        return w->err;
    if (!v.doc || node_type(&v.doc->nodes[v.idx]) != T_STRING)
        return set_error(w, RIG_JSON_EINVAL);
    const node *n = &v.doc->nodes[v.idx];
    char *o = key_slot(w, node_string_room(n) - 4);
    return o ? key_done(w, put_node_string(w, o, v.doc, n)) : w->err;
}

typedef struct level {
    uint32_t end;
    bool object;
    bool expect_key;
} level;

int rig_json_write_value(rig_json_writer *w, rig_json_val v) {
    if (w->err)
        return w->err;
    if (!v.doc)
        return set_error(w, RIG_JSON_EINVAL);
    const rig_json_doc *d = v.doc;
    uint32_t i = v.idx, stop = node_skip(d, v.idx);
    level small[64], *st = small;
    size_t sp = 0, cap = sizeof small / sizeof small[0];

    while (!w->err) {
        /* close containers whose children are all written */
        while (sp && i == st[sp - 1].end) {
            if (st[sp - 1].object)
                rig_json_write_object_end(w);
            else
                rig_json_write_array_end(w);
            sp--;
            if (sp && st[sp - 1].object)
                st[sp - 1].expect_key = true;
        }
        if (i >= stop)
            break;
        level *top = sp ? &st[sp - 1] : NULL;
        const node *n = &d->nodes[i];
        if (top && top->object && top->expect_key) {
            if (n->tag & F_SHADOWED) {
                i = next_member(d, i); /* an earlier duplicate: skip key and value */
                continue;
            }
            char *o = key_slot(w, node_string_room(n) - 4);
            if (!o)
                break;
            key_done(w, put_node_string(w, o, d, n));
            top->expect_key = false;
            i++;
            continue;
        }
        unsigned t = node_type(n);
        if (t == T_ARRAY || t == T_OBJECT) {
            if (sp == cap) {
                size_t ncap = cap * 2;
                level *ns = st == small ? malloc(ncap * sizeof *ns) : realloc(st, ncap * sizeof *ns);
                if (!ns) {
                    set_error(w, RIG_JSON_ENOMEM);
                    break;
                }
                if (st == small)
                    memcpy(ns, small, sizeof small);
                st = ns;
                cap = ncap;
            }
            open_container(w, t == T_OBJECT ? 'o' : 'a');
            st[sp++] = (level){n->u.s.b, t == T_OBJECT, true};
            i++;
            continue;
        }
        if (t == T_STRING) {
            char *o = value_slot(w, node_string_room(n));
            if (o && (o = put_node_string(w, o, d, n)))
                value_done(w, o);
        } else {
            size_t len;
            const char *raw = rig_json_raw((rig_json_val){d, i}, &len);
            put_token(w, raw, len);
        }
        if (top && top->object)
            top->expect_key = true;
        i++;
    }
    if (st != small)
        free(st);
    return w->err;
}

/* ---- the result */

const char *rig_json_writer_finish(rig_json_writer *w, size_t *len) {
    if (w->err || w->state != S_DONE)
        return NULL;
    w->buf[w->len] = '\0'; /* room() always leaves space for it */
    if (len)
        *len = w->len;
    return w->buf;
}

char *rig_json_writer_detach(rig_json_writer *w, size_t *len) {
    if (!rig_json_writer_finish(w, len))
        return NULL;
    char *out = w->buf;
    w->buf = NULL;
    w->cap = 0;
    rig_json_writer_reset(w);
    return out;
}
