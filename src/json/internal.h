/* internal.h — the document layout shared by the JSON parser, accessors and
 * writer. Nothing here is public API.
 *
 * A document is a flat array of 16-byte nodes in input order (pre-order: a
 * container, then its children). Object members are a string node for the key
 * followed by the value's node(s). Every node points into the input, so the
 * parser never copies text and never allocates per value. */
#ifndef RIG_JSON_INTERNAL_H
#define RIG_JSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rig/json.h"
#include "util/compiler.h"
#include "util/hash.h"

enum node_type {
    T_NONE = 0,
    T_NULL,
    T_FALSE,
    T_TRUE,
    T_INT,
    T_DOUBLE,
    T_STRING,
    T_ARRAY,
    T_OBJECT
};

/* tag: bits 0-3 type, bits 4-7 flags, bits 8-31 a count. For a container:
 * its children (elements, or distinct keys). For an object key: the distance
 * to the next key (2 after a scalar value), so walking an object's members
 * reads only the keys. Both saturate at COUNT_MAX; past it, walk the nodes. */
#define TYPE_MASK 0x0Fu
#define F_ESCAPED 0x10u  /* string: has backslash escapes */
#define F_REPLACED 0x20u /* string: lone surrogates decode as U+FFFD */
#define F_SHADOWED 0x40u /* object key: a later member has the same key */
#define F_BIGINT 0x80u   /* double: integer literal beyond int64 */
#define COUNT_SHIFT 8
#define COUNT_MAX 0xFFFFFFu

typedef struct node {
    uint32_t tag;
    /* string: offset just past the opening quote; container: offset of its
     * bracket; number and literal: offset of the first character */
    uint32_t off;
    union {
        struct {
            uint32_t a; /* string: raw length; container: offset past the closing bracket */
            uint32_t b; /* string: decoded length; container: index past the subtree */
        } s;
        int64_t i;
        double d;
    } u;
} node;

_Static_assert(sizeof(node) == 16, "a node is 16 bytes");

/* Parser scratch: one entry per enclosing open container. */
typedef struct open_level {
    uint32_t node;  /* index of the container's node */
    uint32_t count; /* children so far (members for objects) */
    uint32_t key;   /* objects: index of the latest key */
    bool maybe_dup; /* objects: two keys might be equal (see parse.c) */
    uint64_t seen;  /* objects: a one-word filter of the keys so far */
} open_level;

struct rig_json_doc {
    const char *text;
    size_t len;
    node *nodes;
    uint32_t count, cap;
    /* RIG_JSON_COPY_INPUT */
    char *owned;
    size_t owned_cap;
    /* parse scratch kept between parses */
    open_level *stack;
    uint32_t stack_cap;
    uint32_t *keys; /* key node indices of the object being checked for duplicates */
    uint32_t keys_cap;
    uint32_t *table; /* hash table for duplicate detection in large objects */
    uint32_t table_cap;
    char *scratch; /* decoded keys while hashing */
    size_t scratch_cap;
};

static inline unsigned node_type(const node *n) { return n->tag & TYPE_MASK; }

/* Index of the node just past n's subtree. */
static inline uint32_t node_skip(const rig_json_doc *d, uint32_t i) {
    const node *n = &d->nodes[i];
    unsigned t = node_type(n);
    return (t == T_ARRAY || t == T_OBJECT) ? n->u.s.b : i + 1;
}

static inline const node *val_node(rig_json_val v) { return &v.doc->nodes[v.idx]; }

/* Index of the member after the one whose key is at i, in a node array (the
 * parser's, while the document is not yet complete, or a document's). */
static inline uint32_t member_after(const node *nodes, uint32_t i) {
    uint32_t dist = nodes[i].tag >> COUNT_SHIFT;
    if (dist < COUNT_MAX)
        return i + dist;
    const node *v = &nodes[i + 1];
    unsigned t = node_type(v);
    return (t == T_ARRAY || t == T_OBJECT) ? v->u.s.b : i + 2;
}

static inline uint32_t next_member(const rig_json_doc *d, uint32_t i) {
    return member_after(d->nodes, i);
}

/* Byte equality without a call for the short strings keys usually are: two
 * overlapping words a side cover 4 to 16 bytes, and nothing outside either
 * string is read. */
static inline bool bytes_equal(const char *a, const char *b, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, a, 8);
        memcpy(&b0, b, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4 && n < 8) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n < 4) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i])
                return false;
        return true;
    }
    return memcmp(a, b, n) == 0;
}

/* ---- unicode.c */

/* Length (2-4) of the well-formed UTF-8 sequence starting at p, or 0. p[0] must
 * be >= 0x80. */
RIG_INTERNAL size_t rig__utf8_seq(const unsigned char *p, const unsigned char *end);
/* Decodes a string's raw text (already validated by the parser) into out,
 * which must hold the decoded length. Returns the decoded length. */
RIG_INTERNAL size_t rig__decode_string(const char *raw, size_t rawlen, char *out);
/* Compares two raw string texts by their decoded bytes. */
RIG_INTERNAL bool rig__raw_equal(const char *a, size_t alen, bool a_esc, const char *b,
                                 size_t blen, bool b_esc);

/* Compares a raw string text with plain bytes; the common unescaped case
 * without a call. */
static inline bool raw_equal_plain(const char *raw, size_t rawlen, bool esc, const char *s,
                                   size_t n) {
    if (!esc)
        return rawlen == n && bytes_equal(raw, s, n);
    return rig__raw_equal(raw, rawlen, true, s, n, false);
}


/* ---- error.c */

/* 1-based line and column (in code points) of byte offset in text; both 0
 * when text is NULL (errors that have no position). */
RIG_INTERNAL void rig__error_locate(const char *text, size_t len, size_t offset, unsigned *line,
                                    unsigned *column);

/* ---- number.c */

/* Converts a validated JSON number literal to a double, correctly rounded.
 * Returns 0, RIG_JSON_ERANGE when the magnitude overflows, or RIG_JSON_ENOMEM. */
RIG_INTERNAL int rig__number_to_double(const char *text, size_t len, double *out);
/* Length of the number literal starting at p (already validated). */
RIG_INTERNAL size_t rig__number_len(const char *p, const char *end);

#endif
