/* doc.c — reading a parsed document: types, lookup, iteration, getters,
 * JSON Pointer and raw text.
 *
 * Everything here walks the flat node array. A container's node records the
 * index just past its subtree, so stepping over a child of any size is one
 * load. Keys marked shadowed by the parser (an earlier duplicate) are skipped
 * everywhere, which is how "the last one wins" holds across the API. */
#include <stdlib.h>
#include <string.h>

#include "json/internal.h"

static const rig_json_val missing = {NULL, 0};

rig_json_val rig_json_doc_root(const rig_json_doc *d) {
    if (!d || d->count == 0)
        return missing;
    return (rig_json_val){d, 0};
}

rig_json_type rig_json_typeof(rig_json_val v) {
    if (!v.doc)
        return RIG_JSON_MISSING;
    switch (node_type(val_node(v))) {
    case T_NULL: return RIG_JSON_NULL;
    case T_FALSE:
    case T_TRUE: return RIG_JSON_BOOL;
    case T_INT: return RIG_JSON_INT;
    case T_DOUBLE: return RIG_JSON_DOUBLE;
    case T_STRING: return RIG_JSON_STRING;
    case T_ARRAY: return RIG_JSON_ARRAY;
    case T_OBJECT: return RIG_JSON_OBJECT;
    default: return RIG_JSON_MISSING;
    }
}

const char *rig_json_type_name(rig_json_type t) {
    switch (t) {
    case RIG_JSON_NULL: return "null";
    case RIG_JSON_BOOL: return "boolean";
    case RIG_JSON_INT: return "integer";
    case RIG_JSON_DOUBLE: return "number";
    case RIG_JSON_STRING: return "string";
    case RIG_JSON_ARRAY: return "array";
    case RIG_JSON_OBJECT: return "object";
    default: return "missing";
    }
}

unsigned rig_json_val_flags(rig_json_val v) {
    if (!v.doc)
        return 0;
    uint32_t tag = val_node(v)->tag;
    unsigned f = 0;
    if (tag & F_ESCAPED)
        f |= RIG_JSON_VAL_ESCAPED;
    if (tag & F_REPLACED)
        f |= RIG_JSON_VAL_REPLACED;
    if (tag & F_BIGINT)
        f |= RIG_JSON_VAL_BIGINT;
    return f;
}

/* ---- containers */

rig_json_iter rig_json_iter_init(rig_json_val v) {
    rig_json_iter it = {NULL, 0, 0, false};
    if (!v.doc)
        return it;
    const node *n = val_node(v);
    unsigned t = node_type(n);
    if (t == T_ARRAY || t == T_OBJECT) {
        it.doc = v.doc;
        it.next = v.idx + 1;
        it.end = n->u.s.b;
        it.object = t == T_OBJECT;
    }
    return it;
}

/* Moves past shadowed members; returns false at the end. */
static inline bool iter_settle(rig_json_iter *it) {
    const rig_json_doc *d = it->doc;
    if (!d)
        return false;
    if (it->object)
        while (it->next < it->end && (d->nodes[it->next].tag & F_SHADOWED))
            it->next = next_member(d, it->next);
    return it->next < it->end;
}

bool rig_json_iter_next(rig_json_iter *it, rig_json_val *elem) {
    if (!iter_settle(it))
        return false;
    uint32_t i = it->object ? it->next + 1 : it->next;
    *elem = (rig_json_val){it->doc, i};
    it->next = node_skip(it->doc, i);
    return true;
}

bool rig_json_iter_member(rig_json_iter *it, rig_json_val *key, rig_json_val *val) {
    if (!it->object || !iter_settle(it))
        return false;
    *key = (rig_json_val){it->doc, it->next};
    *val = (rig_json_val){it->doc, it->next + 1};
    it->next = next_member(it->doc, it->next);
    return true;
}

size_t rig_json_len(rig_json_val v) {
    if (!v.doc)
        return 0;
    const node *n = val_node(v);
    unsigned t = node_type(n);
    if (t != T_ARRAY && t != T_OBJECT)
        return 0;
    uint32_t count = n->tag >> COUNT_SHIFT;
    if (count < COUNT_MAX)
        return count;
    /* Past what the tag holds: count by walking. */
    size_t total = 0;
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        total++;
    return total;
}

static inline bool key_matches(const rig_json_doc *d, const node *k, const char *key,
                               size_t keylen) {
    if ((k->tag & F_SHADOWED) || k->u.s.b != keylen)
        return false;
    return raw_equal_plain(d->text + k->off, k->u.s.a, k->tag & F_ESCAPED, key, keylen);
}

rig_json_val rig_json_getn(rig_json_val obj, const char *key, size_t keylen) {
    if (!obj.doc || node_type(val_node(obj)) != T_OBJECT || (!key && keylen))
        return missing;
    const rig_json_doc *d = obj.doc;
    uint32_t end = val_node(obj)->u.s.b;
    for (uint32_t i = obj.idx + 1; i < end; i = next_member(d, i))
        if (key_matches(d, &d->nodes[i], key, keylen))
            return (rig_json_val){d, i + 1};
    return missing;
}

rig_json_val rig_json_get(rig_json_val obj, const char *key) {
    if (!key)
        return missing;
    return rig_json_getn(obj, key, strlen(key));
}

rig_json_val rig_json_at(rig_json_val arr, size_t i) {
    if (!arr.doc || node_type(val_node(arr)) != T_ARRAY)
        return missing;
    rig_json_iter it = rig_json_iter_init(arr);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        if (i-- == 0)
            return e;
    return missing;
}

/* ---- JSON Pointer (RFC 6901) */

/* One reference token, unescaped (~1 is '/', ~0 is '~') into out; returns
 * its length, or SIZE_MAX when a '~' is followed by anything else. */
static size_t pointer_token(const char *p, size_t n, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '~') {
            out[o++] = p[i];
            continue;
        }
        if (i + 1 == n || (p[i + 1] != '0' && p[i + 1] != '1'))
            return SIZE_MAX;
        out[o++] = p[++i] == '0' ? '~' : '/';
    }
    return o;
}

static bool array_index(const char *p, size_t n, size_t *out) {
    /* digits only, no leading zero; "-" (past the end) never names an element */
    if (n == 0 || (n > 1 && p[0] == '0') || n > 19)
        return false;
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned)(p[i] - '0') >= 10)
            return false;
        v = v * 10 + (size_t)(p[i] - '0');
    }
    *out = v;
    return true;
}

rig_json_val rig_json_pointer(rig_json_val root, const char *ptr) {
    if (!root.doc || !ptr)
        return missing;
    rig_json_val cur = root;
    const char *p = ptr;
    char small[256];
    while (*p) {
        if (*p != '/')
            return missing;
        p++;
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        rig_json_type t = rig_json_typeof(cur);
        if (t == RIG_JSON_OBJECT) {
            if (!memchr(p, '~', n)) {
                cur = rig_json_getn(cur, p, n);
            } else {
                char *buf = n <= sizeof small ? small : malloc(n);
                if (!buf)
                    return missing;
                size_t k = pointer_token(p, n, buf);
                cur = k == SIZE_MAX ? missing : rig_json_getn(cur, buf, k);
                if (buf != small)
                    free(buf);
            }
        } else if (t == RIG_JSON_ARRAY) {
            size_t i;
            cur = array_index(p, n, &i) ? rig_json_at(cur, i) : missing;
        } else {
            return missing;
        }
        if (!cur.doc)
            return missing;
        p += n;
    }
    return cur;
}

/* ---- scalars */

int rig_json_get_bool(rig_json_val v, bool *out) {
    if (!v.doc)
        return RIG_JSON_EMISSING;
    unsigned t = node_type(val_node(v));
    if (t != T_TRUE && t != T_FALSE)
        return RIG_JSON_ETYPE;
    *out = t == T_TRUE;
    return 0;
}

/* The integer a number literal denotes exactly, judged from its text rather
 * than from the double it was rounded to: "1e3" and "100.0" are integers,
 * "9007199254740993.0" is that integer, "1.5" and anything past int64 are not.
 * The literal was validated by the parser. */
static int literal_int64(const char *p, const char *end, int64_t *out) {
    bool neg = *p == '-';
    p += neg;
    /* the digits, without the point, and where the point was */
    const char *digits = p, *point = NULL, *stop;
    while (p < end && ((unsigned)(*p - '0') < 10 || *p == '.')) {
        if (*p == '.')
            point = p;
        p++;
    }
    stop = p;
    int64_t exp = 0;
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        bool eneg = *p == '-';
        p += *p == '-' || *p == '+';
        for (; p < end && (unsigned)(*p - '0') < 10; p++)
            if (exp < 1000000000000)
                exp = exp * 10 + (*p - '0');
        if (eneg)
            exp = -exp;
    }
    if (point) /* value = all digits x 10^(exp - fraction digits) */
        exp -= stop - point - 1;
    /* drop leading zeros, and trailing ones into the exponent */
    while (digits < stop && (*digits == '0' || *digits == '.'))
        digits++;
    while (stop > digits && (stop[-1] == '0' || stop[-1] == '.')) {
        if (stop[-1] == '0')
            exp++;
        stop--;
    }
    if (digits == stop) {
        *out = 0;
        return 0;
    }
    if (exp < 0)
        return RIG_JSON_ERANGE; /* a fraction remains */
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (const char *q = digits; q < stop; q++) {
        if (*q == '.')
            continue;
        unsigned dg = (unsigned)(*q - '0');
        if (v > (limit - dg) / 10)
            return RIG_JSON_ERANGE;
        v = v * 10 + dg;
    }
    for (; exp > 0; exp--) {
        if (v > limit / 10)
            return RIG_JSON_ERANGE;
        v *= 10;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

int rig_json_get_int64(rig_json_val v, int64_t *out) {
    if (!v.doc)
        return RIG_JSON_EMISSING;
    const node *n = val_node(v);
    switch (node_type(n)) {
    case T_INT:
        *out = n->u.i;
        return 0;
    case T_DOUBLE:
        return literal_int64(v.doc->text + n->off, v.doc->text + v.doc->len, out);
    default:
        return RIG_JSON_ETYPE;
    }
}

int rig_json_get_double(rig_json_val v, double *out) {
    if (!v.doc)
        return RIG_JSON_EMISSING;
    const node *n = val_node(v);
    switch (node_type(n)) {
    case T_INT: *out = (double)n->u.i; return 0;
    case T_DOUBLE: *out = n->u.d; return 0;
    default: return RIG_JSON_ETYPE;
    }
}

/* ---- strings */

static const node *string_node(rig_json_val v) {
    if (!v.doc)
        return NULL;
    const node *n = val_node(v);
    return node_type(n) == T_STRING ? n : NULL;
}

size_t rig_json_str_len(rig_json_val v) {
    const node *n = string_node(v);
    return n ? n->u.s.b : 0;
}

static void decode_into(const rig_json_doc *d, const node *n, char *out) {
    const char *raw = d->text + n->off;
    if (n->tag & F_ESCAPED)
        rig__decode_string(raw, n->u.s.a, out);
    else if (n->u.s.a)
        memcpy(out, raw, n->u.s.a);
    out[n->u.s.b] = '\0';
}

int rig_json_str_copy(rig_json_val v, char *buf, size_t cap, size_t *len) {
    if (!v.doc)
        return RIG_JSON_EMISSING;
    const node *n = string_node(v);
    if (!n)
        return RIG_JSON_ETYPE;
    if (len)
        *len = n->u.s.b;
    if (!buf || cap <= n->u.s.b)
        return RIG_JSON_ENOSPC;
    decode_into(v.doc, n, buf);
    return 0;
}

const char *rig_json_str_dup(rig_json_val v, rig_arena *a, size_t *len) {
    const node *n = string_node(v);
    if (!n || !a)
        return NULL;
    char *out = rig_arena_alloc(a, (size_t)n->u.s.b + 1);
    if (!out)
        return NULL;
    decode_into(v.doc, n, out);
    if (len)
        *len = n->u.s.b;
    return out;
}

bool rig_json_str_view(rig_json_val v, const char **p, size_t *len) {
    const node *n = string_node(v);
    if (!n || (n->tag & F_ESCAPED))
        return false;
    *p = v.doc->text + n->off;
    *len = n->u.s.a;
    return true;
}

bool rig_json_str_eqn(rig_json_val v, const char *s, size_t len) {
    const node *n = string_node(v);
    if (!n || n->u.s.b != len || (!s && len))
        return false;
    return raw_equal_plain(v.doc->text + n->off, n->u.s.a, n->tag & F_ESCAPED, s, len);
}

bool rig_json_str_eq(rig_json_val v, const char *s) {
    return s && rig_json_str_eqn(v, s, strlen(s));
}

/* ---- raw text */

const char *rig_json_raw(rig_json_val v, size_t *len) {
    if (!v.doc)
        return NULL;
    const rig_json_doc *d = v.doc;
    const node *n = val_node(v);
    const char *p = d->text + n->off;
    size_t l;
    switch (node_type(n)) {
    case T_STRING:
        p--; /* the opening quote */
        l = (size_t)n->u.s.a + 2;
        break;
    case T_ARRAY:
    case T_OBJECT: l = n->u.s.a - n->off; break;
    case T_NULL:
    case T_TRUE: l = 4; break;
    case T_FALSE: l = 5; break;
    default: l = rig__number_len(p, d->text + d->len); break;
    }
    if (len)
        *len = l;
    return p;
}
