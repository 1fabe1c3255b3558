/* equal.c — deep equality of two JSON values, possibly from different
 * documents.
 *
 * Iterative: pairs still to compare wait on an explicit stack, so a document
 * nested 10^5 deep costs heap, not C stack. Objects compare as sets of distinct
 * keys. Finding each key of one object in the other is a linear scan for small
 * objects; past LARGE_OBJECT members a hash index of the other object is
 * built, so comparing two big objects stays linear rather than quadratic. */
#include <stdlib.h>
#include <string.h>

#include "json/internal.h"

#define LARGE_OBJECT 32

typedef struct pair {
    rig_json_val a, b;
} pair;

typedef struct work {
    pair *items;
    size_t len, cap;
    pair small[32];
} work;

static bool push(work *w, rig_json_val a, rig_json_val b) {
    if (w->len == w->cap) {
        size_t cap = w->cap * 2;
        pair *items = w->items == w->small ? malloc(cap * sizeof *items)
                                           : realloc(w->items, cap * sizeof *items);
        if (!items)
            return false;
        if (w->items == w->small)
            memcpy(items, w->small, sizeof w->small);
        w->items = items;
        w->cap = cap;
    }
    w->items[w->len++] = (pair){a, b};
    return true;
}

static bool numbers_equal(const node *x, const node *y) {
    unsigned tx = node_type(x), ty = node_type(y);
    if (tx == T_INT && ty == T_INT)
        return x->u.i == y->u.i;
    if (tx == T_DOUBLE && ty == T_DOUBLE)
        return x->u.d == y->u.d;
    int64_t i = tx == T_INT ? x->u.i : y->u.i;
    double d = tx == T_DOUBLE ? x->u.d : y->u.d;
    /* exact: the double must be an integer inside int64's range */
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return false;
    return (double)(int64_t)d == d && (int64_t)d == i;
}

static bool strings_equal(const rig_json_doc *da, const node *x, const rig_json_doc *db,
                          const node *y) {
    return x->u.s.b == y->u.s.b &&
           rig__raw_equal(da->text + x->off, x->u.s.a, x->tag & F_ESCAPED, db->text + y->off,
                          y->u.s.a, y->tag & F_ESCAPED);
}

/* ---- finding a key of one object in another */

typedef struct key_index {
    uint32_t *slots; /* key node index + 1; 0 is empty */
    uint32_t mask;
    char *buf; /* decoded keys while hashing */
    size_t buf_cap;
} key_index;

static bool key_hash(key_index *ix, const rig_json_doc *d, const node *k, uint64_t *h) {
    const char *raw = d->text + k->off;
    if (!(k->tag & F_ESCAPED)) {
        *h = rig__hash_bytes(raw, k->u.s.a);
        return true;
    }
    if (k->u.s.b > ix->buf_cap) {
        char *b = realloc(ix->buf, k->u.s.b);
        if (!b)
            return false;
        ix->buf = b;
        ix->buf_cap = k->u.s.b;
    }
    *h = rig__hash_bytes(ix->buf, rig__decode_string(raw, k->u.s.a, ix->buf));
    return true;
}

static bool index_build(key_index *ix, rig_json_val obj, size_t n) {
    size_t size = 64;
    while (size < n * 2)
        size *= 2;
    ix->slots = calloc(size, sizeof *ix->slots);
    if (!ix->slots)
        return false;
    ix->mask = (uint32_t)(size - 1);
    const rig_json_doc *d = obj.doc;
    rig_json_iter it = rig_json_iter_init(obj);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        uint64_t h;
        if (!key_hash(ix, d, &d->nodes[k.idx], &h))
            return false;
        uint32_t pos = (uint32_t)h & ix->mask;
        while (ix->slots[pos])
            pos = (pos + 1) & ix->mask;
        ix->slots[pos] = k.idx + 1;
    }
    return true;
}

/* The value under key node k (of document dk) in obj, or missing. *oom is set
 * when memory runs out. */
static rig_json_val find(key_index *ix, rig_json_val obj, const rig_json_doc *dk, const node *k,
                         bool *oom) {
    const rig_json_doc *d = obj.doc;
    if (!ix->slots) {
        uint32_t end = val_node(obj)->u.s.b;
        for (uint32_t i = obj.idx + 1; i < end; i = next_member(d, i)) {
            const node *c = &d->nodes[i];
            if (!(c->tag & F_SHADOWED) && strings_equal(d, c, dk, k))
                return (rig_json_val){d, i + 1};
        }
        return (rig_json_val){NULL, 0};
    }
    uint64_t h;
    if (!key_hash(ix, dk, k, &h)) {
        *oom = true;
        return (rig_json_val){NULL, 0};
    }
    for (uint32_t pos = (uint32_t)h & ix->mask; ix->slots[pos]; pos = (pos + 1) & ix->mask) {
        uint32_t i = ix->slots[pos] - 1;
        if (strings_equal(d, &d->nodes[i], dk, k))
            return (rig_json_val){d, i + 1};
    }
    return (rig_json_val){NULL, 0};
}

static bool objects_push(work *w, rig_json_val a, rig_json_val b, size_t n, bool *oom) {
    key_index ix = {NULL, 0, NULL, 0};
    bool ok = true;
    if (n > LARGE_OBJECT && !index_build(&ix, b, n)) {
        *oom = true;
        ok = false;
    }
    rig_json_iter it = rig_json_iter_init(a);
    rig_json_val k, v;
    while (ok && rig_json_iter_member(&it, &k, &v)) {
        rig_json_val bv = find(&ix, b, a.doc, &a.doc->nodes[k.idx], oom);
        if (!bv.doc || !push(w, v, bv)) {
            if (bv.doc)
                *oom = true;
            ok = false;
        }
    }
    free(ix.slots);
    free(ix.buf);
    return ok;
}

bool rig_json_equal(rig_json_val a, rig_json_val b) {
    if (!a.doc || !b.doc)
        return !a.doc && !b.doc;
    work w;
    w.items = w.small;
    w.len = 0;
    w.cap = sizeof w.small / sizeof w.small[0];
    bool eq = push(&w, a, b), oom = false;
    while (eq && w.len) {
        pair p = w.items[--w.len];
        const node *x = val_node(p.a), *y = val_node(p.b);
        unsigned tx = node_type(x), ty = node_type(y);
        bool nx = tx == T_INT || tx == T_DOUBLE, ny = ty == T_INT || ty == T_DOUBLE;
        if (nx || ny) {
            eq = nx && ny && numbers_equal(x, y);
            continue;
        }
        if (tx != ty) {
            eq = false;
            continue;
        }
        switch (tx) {
        case T_STRING:
            eq = strings_equal(p.a.doc, x, p.b.doc, y);
            break;
        case T_ARRAY: {
            size_t n = rig_json_len(p.a);
            if (n != rig_json_len(p.b)) {
                eq = false;
                break;
            }
            rig_json_iter ia = rig_json_iter_init(p.a), ib = rig_json_iter_init(p.b);
            rig_json_val ea, eb;
            while (eq && rig_json_iter_next(&ia, &ea) && rig_json_iter_next(&ib, &eb))
                if (!push(&w, ea, eb))
                    eq = false, oom = true;
            break;
        }
        case T_OBJECT: {
            size_t n = rig_json_len(p.a);
            eq = n == rig_json_len(p.b) && objects_push(&w, p.a, p.b, n, &oom);
            break;
        }
        default: /* null, true, false: equal when the types are */
            break;
        }
    }
    if (w.items != w.small)
        free(w.items);
    return eq && !oom;
}
