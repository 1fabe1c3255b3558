/* schema.c — compiling a JSON Schema into the immutable form the validator
 * walks (see schema_internal.h), and the rest of the rig_schema object.
 *
 * Compiling is breadth-first over a work queue, never recursive: each schema
 * object is compiled once (a $ref target reached twice is one node), so a
 * schema's size bounds the work and its depth bounds nothing on the C stack.
 * Keywords are dispatched through a table; each handler checks its operand's
 * type and range and decodes it. Once every node exists, one iterative
 * depth-first pass over the in-place applicators ($ref, allOf, anyOf, oneOf,
 * not) rejects recursion that never descends into the instance and computes
 * what coercion and defaults need: the types a node admits through those
 * applicators, and its default through $ref and allOf. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/schema_internal.h"
#include "util/hex.h"

/* Property tables with more rows than this get a hash index. */
#define LINEAR_PROPS 8

typedef struct pending_prop {
    rig_json_val key;
    uint32_t schema;
} pending_prop;

typedef struct compiler {
    rig_schema *s;
    rig_error *err;
    uint32_t *node_of; /* schema document index -> node index + 1 (0: none yet) */
    uint32_t *queue;   /* nodes to compile */
    uint32_t qhead, qlen, qcap;
    /* per-node scratch while its keywords are read */
    pending_prop *props;
    uint32_t nprops, props_cap;
    rig_json_val required;
    int exmin_bool, exmax_bool; /* draft-4 boolean exclusive bounds: -1 absent */
    bool items_array;
    uint32_t additional_items;
} compiler;

static snode *N(compiler *c, uint32_t n) { return &c->s->nodes[n]; }

static const char *type_names[] = {"null", "boolean", "integer", "number", "string", "array",
                                   "object"};
static const uint8_t type_bits[] = {T_NULL, T_BOOL, T_INT, T_INT | T_NUM, T_STRING, T_ARRAY,
                                    T_OBJECT};

/* ---------------------------------------------------------------- pointers */

/* Appends s[0..n) to buf as a JSON pointer token (~ as ~0, / as ~1). */
static size_t put_token(char *buf, size_t cap, size_t at, const char *s, size_t n)
{
    for (size_t i = 0; i < n && at + 3 < cap; i++) {
        if (s[i] == '~' || s[i] == '/') {
            buf[at++] = '~';
            buf[at++] = s[i] == '~' ? '0' : '1';
        } else {
            buf[at++] = s[i];
        }
    }
    buf[at < cap ? at : cap - 1] = '\0';
    return at;
}

void rig__schema_pointer(const rig_schema *s, uint32_t n, char *buf, size_t cap)
{
    /* collect the chain from n up: the parser nests a schema at most 512 JSON
     * levels deep, so it has no more schema levels than that */
    const char *parts[520];
    int k = 0;
    for (uint32_t i = n; i != SN_NONE && i < s->count && k < 520; i = s->nodes[i].parent)
        parts[k++] = s->nodes[i].where;
    size_t at = 0;
    buf[0] = '\0';
    for (int j = k - 1; j >= 0; j--) {
        size_t l = strlen(parts[j]);
        if (at + l + 1 >= cap)
            break;
        memcpy(buf + at, parts[j], l + 1);
        at += l;
    }
}

/* "/keyword/escaped-name" in the arena. */
static const char *where_key(compiler *c, const char *kw, rig_json_val key)
{
    char tmp[160];
    size_t len = 0;
    const char *dec = rig_json_str_dup(key, c->s->arena, &len);
    if (!dec)
        return NULL;
    int at = snprintf(tmp, sizeof tmp, "/%s/", kw);
    put_token(tmp, sizeof tmp, (size_t)at, dec, len);
    return rig_arena_strndup(c->s->arena, tmp, strlen(tmp));
}

static const char *where_index(compiler *c, const char *kw, size_t i)
{
    char tmp[64];
    int n = i == SIZE_MAX ? snprintf(tmp, sizeof tmp, "/%s", kw)
                          : snprintf(tmp, sizeof tmp, "/%s/%zu", kw, i);
    return rig_arena_strndup(c->s->arena, tmp, (size_t)n);
}

/* ---------------------------------------------------------------- errors */

/* Compile errors name the place in the schema: the pointer of node n, then
 * `kw`, a keyword or a pointer suffix below it ("properties/a~1b"). */
static int fail(compiler *c, uint32_t n, const char *kw, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(compiler *c, uint32_t n, const char *kw, const char *fmt, ...)
{
    char ptr[200], what[300];
    rig__schema_pointer(c->s, n, ptr, sizeof ptr);
    size_t at = strlen(ptr);
    if (kw)
        snprintf(ptr + at, sizeof ptr - at, "/%s", kw);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (ptr[0])
        return rig_error_set(c->err, RIG_ESCHEMA, "invalid schema at '%s': %s", ptr, what);
    return rig_error_set(c->err, RIG_ESCHEMA, "invalid schema at the top level: %s", what);
}

static int oom(compiler *c) { return rig_error_set(c->err, RIG_ENOMEM, "out of memory"); }

/* ---------------------------------------------------------------- nodes */

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return RIG_ENOMEM;
    *p = q;
    *cap = nc;
    return 0;
}

static void node_init(snode *n, uint32_t json, uint32_t parent, const char *where)
{
    memset(n, 0, sizeof *n);
    n->types = T_ANY;
    n->eff_types = T_ANY;
    n->json = json;
    n->parent = parent;
    n->where = where;
    n->items = SN_NONE;
    n->addprops = SN_NONE;
    n->not_ = SN_NONE;
    n->ref = SN_NONE;
}

/* The node for schema value v (compiled later, from the queue), in *out.
 * Booleans are the shared true and false nodes. */
static int intern(compiler *c, rig_json_val v, uint32_t parent, const char *where, uint32_t kwnode,
                  const char *kw, uint32_t *out)
{
    rig_json_type t = rig_json_typeof(v);
    if (t == RIG_JSON_BOOL) {
        bool b = false;
        rig_json_get_bool(v, &b);
        *out = b ? SN_TRUE : SN_FALSE;
        return 0;
    }
    if (t != RIG_JSON_OBJECT)
        return fail(c, kwnode, kw, "a schema must be an object or a boolean, not %s",
                    rig_json_type_name(t));
    if (!where)
        return oom(c);
    if (c->node_of[v.idx]) {
        *out = c->node_of[v.idx] - 1;
        return 0;
    }
    rig_schema *s = c->s;
    if (grow((void **)&s->nodes, &s->cap, s->count + 1, sizeof(snode)) ||
        grow((void **)&c->queue, &c->qcap, c->qlen + 1, sizeof(uint32_t)))
        return oom(c);
    uint32_t n = s->count++;
    node_init(&s->nodes[n], v.idx, parent, where);
    c->node_of[v.idx] = n + 1;
    c->queue[c->qlen++] = n;
    *out = n;
    return 0;
}

static rig_json_val node_val(compiler *c, uint32_t n)
{
    return (rig_json_val){c->s->doc, N(c, n)->json};
}

/* ---------------------------------------------------------------- operands */

static int want_number(compiler *c, uint32_t n, const char *kw, rig_json_val v, snum *out)
{
    if (!rig_json_is_number(v))
        return fail(c, n, kw, "\"%s\" must be a number", kw);
    out->is_int = rig_json_typeof(v) == RIG_JSON_INT;
    rig_json_get_double(v, &out->d);
    out->i = 0;
    if (out->is_int)
        rig_json_get_int64(v, &out->i);
    return 0;
}

static int want_count(compiler *c, uint32_t n, const char *kw, rig_json_val v, uint64_t *out)
{
    int64_t i;
    double d;
    if (rig_json_get_int64(v, &i) == 0 && i >= 0) {
        *out = (uint64_t)i;
        return 0;
    }
    /* an integral count beyond int64: as good as infinite */
    if (rig_json_typeof(v) == RIG_JSON_DOUBLE && rig_json_get_double(v, &d) == 0 && d > 0 &&
        d == dfloor(d)) {
        *out = UINT64_MAX;
        return 0;
    }
    return fail(c, n, kw, "\"%s\" must be a non-negative integer", kw);
}

static int want_schema_array(compiler *c, uint32_t n, const char *kw, rig_json_val v,
                             bool nonempty, uint32_t **out, uint32_t *count)
{
    if (!rig_json_is_array(v))
        return fail(c, n, kw, "\"%s\" must be an array of schemas", kw);
    size_t len = rig_json_len(v);
    if (nonempty && len == 0)
        return fail(c, n, kw, "\"%s\" must not be empty", kw);
    uint32_t *a = rig_arena_alloc(c->s->arena, len * sizeof *a);
    if (!a)
        return oom(c);
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val e;
    size_t i = 0;
    while (rig_json_iter_next(&it, &e)) {
        char sub[48];
        snprintf(sub, sizeof sub, "%s/%zu", kw, i);
        int rc = intern(c, e, n, where_index(c, kw, i), n, sub, &a[i]);
        if (rc)
            return rc;
        i++;
    }
    *out = a;
    *count = (uint32_t)len;
    return 0;
}

/* ---------------------------------------------------------------- keywords */

typedef int (*kw_fn)(compiler *c, uint32_t n, const char *kw, rig_json_val v);

static int kw_type(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    uint8_t mask = 0;
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val e = v;
    bool array = rig_json_is_array(v);
    if (array && rig_json_len(v) == 0)
        return fail(c, n, kw, "\"type\" must not be an empty array");
    if (!array && !rig_json_is_string(v))
        return fail(c, n, kw, "\"type\" must be a type name or an array of them");
    while (array ? rig_json_iter_next(&it, &e) : e.doc != NULL) {
        size_t k = 0, nt = sizeof type_names / sizeof type_names[0];
        if (rig_json_is_string(e))
            while (k < nt && !rig_json_str_eq(e, type_names[k]))
                k++;
        if (!rig_json_is_string(e) || k == nt) {
            const char *raw;
            size_t rl;
            raw = rig_json_raw(e, &rl);
            return fail(c, n, kw,
                        "unknown type %.*s%s (types are null, boolean, integer, number, "
                        "string, array and object)",
                        (int)(rl > 40 ? 40 : rl), raw, rl > 40 ? "..." : "");
        }
        mask |= type_bits[k];
        if (!array)
            break;
    }
    N(c, n)->types = mask;
    N(c, n)->has |= K_TYPE;
    return 0;
}

static int kw_enum(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_array(v))
        return fail(c, n, kw, "\"enum\" must be an array");
    size_t len = rig_json_len(v);
    rig_arena *a = c->s->arena;
    rig_json_val *vals = rig_arena_alloc(a, len * sizeof *vals);
    uint64_t *hashes = rig_arena_alloc(a, len * sizeof *hashes);
    const char **strs = rig_arena_alloc(a, len * sizeof *strs);
    uint32_t *lens = rig_arena_alloc(a, len * sizeof *lens);
    if (!vals || !hashes || !strs || !lens)
        return oom(c);
    rig_json_iter it = rig_json_iter_init(v);
    size_t i = 0;
    while (rig_json_iter_next(&it, &vals[i])) {
        hashes[i] = rig__value_hash(vals[i]);
        strs[i] = NULL;
        lens[i] = 0;
        if (rig_json_is_string(vals[i]) && rig_json_str_len(vals[i]) < UINT32_MAX) {
            size_t sl;
            if (!(strs[i] = rig_json_str_dup(vals[i], a, &sl)))
                return oom(c);
            lens[i] = (uint32_t)sl;
        }
        i++;
    }
    snode *sn = N(c, n);
    sn->enum_v = vals;
    sn->enum_hash = hashes;
    sn->enum_str = strs;
    sn->enum_len = lens;
    sn->nenum = (uint32_t)len;
    sn->has |= K_ENUM;
    return 0;
}

static int kw_const(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    (void)kw;
    N(c, n)->const_v = v;
    N(c, n)->has |= K_CONST;
    return 0;
}

static int kw_default(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    (void)kw;
    N(c, n)->own_default = v;
    return 0;
}

static int kw_bound(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    snode *sn = N(c, n);
    bool exmin = strcmp(kw, "exclusiveMinimum") == 0, exmax = strcmp(kw, "exclusiveMaximum") == 0;
    if ((exmin || exmax) && rig_json_typeof(v) == RIG_JSON_BOOL) {
        bool b = false;
        rig_json_get_bool(v, &b);
        *(exmin ? &c->exmin_bool : &c->exmax_bool) = b;
        return 0;
    }
    snum x = {false, 0, 0};
    int rc = want_number(c, n, kw, v, &x);
    if (rc)
        return rc;
    if (exmin) {
        sn->exmin = x, sn->exmin_v = v, sn->has |= K_EXMIN;
    } else if (exmax) {
        sn->exmax = x, sn->exmax_v = v, sn->has |= K_EXMAX;
    } else if (kw[1] == 'i') {
        sn->minimum = x, sn->minimum_v = v, sn->has |= K_MINIMUM;
    } else {
        sn->maximum = x, sn->maximum_v = v, sn->has |= K_MAXIMUM;
    }
    return 0;
}

static int kw_multiple(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    snum x = {false, 0, 0};
    int rc = want_number(c, n, kw, v, &x);
    if (rc)
        return rc;
    if (!(x.d > 0))
        return fail(c, n, kw, "\"multipleOf\" must be greater than 0");
    snode *sn = N(c, n);
    sn->multiple = x, sn->multiple_v = v, sn->has |= K_MULTIPLE;
    return 0;
}

static int kw_count(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    static const struct {
        const char *name;
        size_t off;
        uint32_t bit;
    } rows[] = {
        {"minLength", offsetof(snode, min_len), K_MINLEN},
        {"maxLength", offsetof(snode, max_len), K_MAXLEN},
        {"minItems", offsetof(snode, min_items), K_MINITEMS},
        {"maxItems", offsetof(snode, max_items), K_MAXITEMS},
        {"minProperties", offsetof(snode, min_props), K_MINPROPS},
        {"maxProperties", offsetof(snode, max_props), K_MAXPROPS},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (strcmp(rows[i].name, kw) != 0)
            continue;
        uint64_t x = 0;
        int rc = want_count(c, n, kw, v, &x);
        if (rc)
            return rc;
        snode *sn = N(c, n);
        memcpy((char *)sn + rows[i].off, &x, sizeof x);
        sn->has |= rows[i].bit;
        return 0;
    }
    return 0;
}

/* Compiles regular expression v (a string) into *out; errors name `where`
 * (a pointer suffix below node n). */
static int compile_regex(compiler *c, uint32_t n, const char *where, const char *what,
                         rig_json_val v, pcre2_code **out)
{
    size_t len;
    const char *p = rig_json_str_dup(v, c->s->arena, &len);
    if (!p)
        return oom(c);
    pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
    if (!cctx)
        return oom(c);
    /* ECMA-262 flavour where PCRE2 can give it: \uXXXX and \u{...} escapes,
     * and "$" only at the very end (PCRE2 would also match before a final
     * newline, letting "^[a-z]+$" accept "abc\n"). */
    pcre2_set_compile_extra_options(cctx, PCRE2_EXTRA_ALT_BSUX);
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)p, len,
                                     PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY, &ec, &eo,
                                     cctx);
    pcre2_compile_context_free(cctx);
    if (!code) {
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(ec, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", ec);
        return fail(c, n, where, "%s is not a valid regular expression: %s at offset %zu", what,
                    (const char *)msg, (size_t)eo);
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* without JIT, the interpreter runs it */
    *out = code;
    return 0;
}

static int kw_pattern(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_string(v))
        return fail(c, n, kw, "\"pattern\" must be a string");
    pcre2_code *code = NULL;
    int rc = compile_regex(c, n, kw, "\"pattern\"", v, &code);
    if (rc)
        return rc;
    snode *sn = N(c, n);
    sn->pattern = code;
    sn->pattern_v = v;
    sn->has |= K_PATTERN;
    return 0;
}

static int kw_pattern_props(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_object(v))
        return fail(c, n, kw, "\"patternProperties\" must be an object of schemas");
    size_t len = rig_json_len(v);
    spatprop *pp = rig_arena_alloc(c->s->arena, len * sizeof *pp);
    if (!pp)
        return oom(c);
    N(c, n)->patprops = pp;
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val k, sub;
    while (rig_json_iter_member(&it, &k, &sub)) {
        const char *where = where_key(c, kw, k);
        if (!where)
            return oom(c);
        uint32_t idx = SN_NONE;
        int rc = intern(c, sub, n, where, n, where + 1, &idx);
        if (rc)
            return rc;
        pcre2_code *code = NULL;
        if ((rc = compile_regex(c, n, where + 1, "the name", k, &code)) != 0)
            return rc;
        snode *sn = N(c, n);
        sn->patprops[sn->npatprops++] = (spatprop){code, idx};
    }
    if (len)
        N(c, n)->has |= K_PATPROPS;
    return 0;
}

static int kw_format(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_string(v))
        return fail(c, n, kw, "\"format\" must be a string");
    const char *p;
    size_t len;
    int f = rig_json_str_view(v, &p, &len) ? rig__format_lookup(p, len) : RIG__FORMAT_NONE;
    if (f != RIG__FORMAT_NONE) {
        N(c, n)->format = (uint8_t)f;
        N(c, n)->has |= K_FORMAT;
    }
    return 0;
}

static int kw_items(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (rig_json_is_array(v)) { /* draft 7: a tuple */
        uint32_t *a = NULL, na = 0;
        int rc = want_schema_array(c, n, kw, v, false, &a, &na);
        if (rc)
            return rc;
        N(c, n)->prefix = a, N(c, n)->nprefix = na;
        N(c, n)->has |= K_ITEMS;
        c->items_array = true;
        return 0;
    }
    uint32_t sub = SN_NONE;
    int rc = intern(c, v, n, where_index(c, kw, SIZE_MAX), n, kw, &sub);
    if (rc)
        return rc;
    N(c, n)->items = sub;
    N(c, n)->has |= K_ITEMS;
    return 0;
}

static int kw_prefix(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    uint32_t *a = NULL, na = 0;
    int rc = want_schema_array(c, n, kw, v, false, &a, &na);
    if (rc)
        return rc;
    N(c, n)->prefix = a, N(c, n)->nprefix = na;
    N(c, n)->has |= K_ITEMS;
    return 0;
}

static int kw_additional_items(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    return intern(c, v, n, where_index(c, kw, SIZE_MAX), n, kw, &c->additional_items);
}

static int kw_unique(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    bool b;
    if (rig_json_get_bool(v, &b) != 0)
        return fail(c, n, kw, "\"uniqueItems\" must be true or false");
    N(c, n)->unique = b;
    if (b)
        N(c, n)->has |= K_UNIQUE;
    return 0;
}

static int kw_properties(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_object(v))
        return fail(c, n, kw, "\"properties\" must be an object of schemas");
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val k, sub;
    c->nprops = 0;
    while (rig_json_iter_member(&it, &k, &sub)) {
        if (grow((void **)&c->props, &c->props_cap, c->nprops + 1, sizeof *c->props))
            return oom(c);
        pending_prop *pp = &c->props[c->nprops++];
        pp->key = k;
        const char *where = where_key(c, kw, k);
        int rc = intern(c, sub, n, where, n, where ? where + 1 : kw, &pp->schema);
        if (rc)
            return rc;
    }
    N(c, n)->has |= K_PROPS;
    return 0;
}

static int kw_required(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_array(v))
        return fail(c, n, kw, "\"required\" must be an array of property names");
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        if (!rig_json_is_string(e))
            return fail(c, n, kw, "\"required\" must be an array of strings, not %s",
                        rig_json_type_name(rig_json_typeof(e)));
    c->required = v;
    if (rig_json_len(v))
        N(c, n)->has |= K_PROPS;
    return 0;
}

static int kw_additional(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    uint32_t sub = SN_NONE;
    int rc = intern(c, v, n, where_index(c, kw, SIZE_MAX), n, kw, &sub);
    if (rc)
        return rc;
    N(c, n)->addprops = sub;
    if (sub != SN_TRUE)
        N(c, n)->has |= K_ADDPROPS;
    return 0;
}

static int kw_applicator(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    uint32_t *a = NULL, na = 0;
    int rc = want_schema_array(c, n, kw, v, true, &a, &na);
    if (rc)
        return rc;
    snode *sn = N(c, n);
    if (strcmp(kw, "allOf") == 0) {
        sn->all = a, sn->nall = na, sn->has |= K_ALLOF;
    } else if (strcmp(kw, "anyOf") == 0) {
        sn->any = a, sn->nany = na, sn->has |= K_ANYOF;
    } else {
        sn->one = a, sn->none = na, sn->has |= K_ONEOF;
    }
    return 0;
}

static int kw_not(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    uint32_t sub = SN_NONE;
    int rc = intern(c, v, n, where_index(c, kw, SIZE_MAX), n, kw, &sub);
    if (rc)
        return rc;
    N(c, n)->not_ = sub;
    N(c, n)->has |= K_NOT;
    return 0;
}

/* "$ref": "#" or "#<JSON pointer>", percent-encoded as a URI fragment. */
static int kw_ref(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_string(v))
        return fail(c, n, kw, "\"$ref\" must be a string");
    size_t len;
    const char *ref = rig_json_str_dup(v, c->s->arena, &len);
    if (!ref)
        return oom(c);
    N(c, n)->ref_text = ref;
    if (len == 0 || ref[0] != '#')
        return fail(c, n, kw,
                    "\"$ref\" '%.80s%s' is not local: only references into the same schema "
                    "('#', '#/$defs/name', any '#/json/pointer') are supported",
                    ref, len > 80 ? "..." : "");
    char *ptr = rig_arena_alloc(c->s->arena, len);
    if (!ptr)
        return oom(c);
    size_t k = 0;
    for (size_t i = 1; i < len; i++) {
        if (ref[i] == '%') {
            int hi = i + 2 < len ? rig__hex_value(ref[i + 1]) : -1;
            int lo = hi >= 0 ? rig__hex_value(ref[i + 2]) : -1;
            if (lo < 0 || (hi == 0 && lo == 0))
                return fail(c, n, kw, "\"$ref\" '%.80s' has a bad percent escape", ref);
            ptr[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else if (ref[i] == '\0') {
            return fail(c, n, kw, "\"$ref\" must not contain a NUL character");
        } else {
            ptr[k++] = ref[i];
        }
    }
    ptr[k] = '\0';
    if (k > 0 && ptr[0] != '/')
        return fail(c, n, kw,
                    "\"$ref\" '%.80s' names an anchor; only JSON pointers ('#/...') are supported",
                    ref);
    rig_json_val target = rig_json_pointer(rig_json_doc_root(c->s->doc), ptr);
    if (!rig_json_exists(target))
        return fail(c, n, kw, "\"$ref\" '%.80s%s' points to nothing in this schema", ref,
                    len > 80 ? "..." : "");
    rig_json_type t = rig_json_typeof(target);
    if (t != RIG_JSON_OBJECT && t != RIG_JSON_BOOL)
        return fail(c, n, kw, "\"$ref\" '%.80s%s' points to %s, not to a schema", ref,
                    len > 80 ? "..." : "", rig_json_type_name(t));
    uint32_t sub = SN_NONE;
    int rc = intern(c, target, SN_NONE, ptr, n, kw, &sub);
    if (rc)
        return rc;
    N(c, n)->ref = sub;
    N(c, n)->has |= K_REF;
    return 0;
}

static int kw_defs(compiler *c, uint32_t n, const char *kw, rig_json_val v)
{
    if (!rig_json_is_object(v))
        return fail(c, n, kw, "\"%s\" must be an object of schemas", kw);
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val k, sub;
    while (rig_json_iter_member(&it, &k, &sub)) {
        uint32_t ignored = SN_NONE;
        const char *where = where_key(c, kw, k);
        int rc = intern(c, sub, n, where, n, where ? where + 1 : kw, &ignored);
        if (rc)
            return rc;
    }
    return 0;
}

/* Keywords not listed are annotations or unknown, and ignored. */
static const struct {
    const char *name;
    kw_fn fn;
} keywords[] = {
    {"type", kw_type},
    {"enum", kw_enum},
    {"const", kw_const},
    {"default", kw_default},
    {"minimum", kw_bound},
    {"maximum", kw_bound},
    {"exclusiveMinimum", kw_bound},
    {"exclusiveMaximum", kw_bound},
    {"multipleOf", kw_multiple},
    {"minLength", kw_count},
    {"maxLength", kw_count},
    {"minItems", kw_count},
    {"maxItems", kw_count},
    {"minProperties", kw_count},
    {"maxProperties", kw_count},
    {"pattern", kw_pattern},
    {"format", kw_format},
    {"items", kw_items},
    {"prefixItems", kw_prefix},
    {"additionalItems", kw_additional_items},
    {"uniqueItems", kw_unique},
    {"properties", kw_properties},
    {"required", kw_required},
    {"additionalProperties", kw_additional},
    {"patternProperties", kw_pattern_props},
    {"allOf", kw_applicator},
    {"anyOf", kw_applicator},
    {"oneOf", kw_applicator},
    {"not", kw_not},
    {"$ref", kw_ref},
    {"$defs", kw_defs},
    {"definitions", kw_defs},
};

/* ---------------------------------------------------------------- a node */

static int add_prop(compiler *c, snode *sn, const char *name, size_t len, uint32_t schema,
                    uint32_t *index)
{
    if (len > UINT32_MAX)
        return oom(c);
    if (sn->table) {
        uint32_t h = prop_hash(name, len) & sn->table_mask;
        while (sn->table[h] != SN_NONE) {
            sprop *p = &sn->props[sn->table[h]];
            if (p->len == len && memcmp(p->name, name, len) == 0) {
                *index = sn->table[h];
                return 0;
            }
            h = (h + 1) & sn->table_mask;
        }
        sn->table[h] = sn->nprops;
    } else {
        for (uint32_t i = 0; i < sn->nprops; i++)
            if (sn->props[i].len == len && memcmp(sn->props[i].name, name, len) == 0) {
                *index = i;
                return 0;
            }
    }
    sprop *p = &sn->props[sn->nprops];
    p->name = name;
    p->len = (uint32_t)len;
    p->schema = schema;
    p->required = false;
    p->dflt = (rig_json_val){NULL, 0};
    *index = sn->nprops++;
    return 0;
}

/* Merges "properties" and "required" into one table. */
static int build_props(compiler *c, uint32_t n)
{
    rig_arena *a = c->s->arena;
    size_t nreq = rig_json_len(c->required), total = c->nprops + nreq;
    snode *sn = N(c, n);
    sn->props = rig_arena_alloc(a, total * sizeof *sn->props);
    sn->req = rig_arena_alloc(a, nreq * sizeof *sn->req);
    if (!sn->props || !sn->req)
        return oom(c);
    if (total > LINEAR_PROPS) {
        uint32_t size = 16;
        while (size < total * 2)
            size *= 2;
        sn->table = rig_arena_alloc(a, size * sizeof *sn->table);
        if (!sn->table)
            return oom(c);
        memset(sn->table, 0xff, size * sizeof *sn->table);
        sn->table_mask = size - 1;
    }
    for (uint32_t i = 0; i < c->nprops; i++) {
        size_t len;
        const char *name = rig_json_str_dup(c->props[i].key, a, &len);
        uint32_t idx;
        if (!name || add_prop(c, sn, name, len, c->props[i].schema, &idx))
            return oom(c);
    }
    rig_json_iter it = rig_json_iter_init(c->required);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e)) {
        size_t len;
        const char *name = rig_json_str_dup(e, a, &len);
        uint32_t idx;
        if (!name || add_prop(c, sn, name, len, SN_NONE, &idx))
            return oom(c);
        if (!sn->props[idx].required) {
            sn->props[idx].required = true;
            sn->req[sn->nreq++] = idx;
        }
    }
    return 0;
}

static int compile_node(compiler *c, uint32_t n)
{
    rig_json_val obj = node_val(c, n);
    c->nprops = 0;
    c->required = (rig_json_val){NULL, 0};
    c->exmin_bool = c->exmax_bool = -1;
    c->items_array = false;
    c->additional_items = SN_NONE;

    rig_json_iter it = rig_json_iter_init(obj);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        char name[24];
        size_t len = 0;
        if (rig_json_str_copy(k, name, sizeof name, &len) != 0 || strlen(name) != len)
            continue;
        for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
            if (strcmp(keywords[i].name, name) == 0) {
                int rc = keywords[i].fn(c, n, keywords[i].name, v);
                if (rc)
                    return rc;
                break;
            }
        }
    }

    snode *sn = N(c, n);
    /* draft 4: "exclusiveMinimum": true makes "minimum" exclusive */
    if (c->exmin_bool == 1 && (sn->has & K_MINIMUM)) {
        sn->exmin = sn->minimum, sn->exmin_v = sn->minimum_v;
        sn->has = (sn->has & ~K_MINIMUM) | K_EXMIN;
    }
    if (c->exmax_bool == 1 && (sn->has & K_MAXIMUM)) {
        sn->exmax = sn->maximum, sn->exmax_v = sn->maximum_v;
        sn->has = (sn->has & ~K_MAXIMUM) | K_EXMAX;
    }
    /* draft 7: "additionalItems" is "items" after an "items" tuple */
    if (c->items_array && c->additional_items != SN_NONE)
        sn->items = c->additional_items;
    if (sn->items == SN_TRUE)
        sn->items = SN_NONE;
    if (sn->has & K_PROPS)
        return build_props(c, n);
    return 0;
}

/* ---------------------------------------------------------------- in place */

/* The i-th subschema node n applies to the same instance, or SN_NONE. */
static uint32_t in_place(const snode *sn, uint32_t i, const char **kw)
{
    if (sn->ref != SN_NONE) {
        if (i == 0)
            return *kw = "$ref", sn->ref;
        i--;
    }
    if (i < sn->nall)
        return *kw = "allOf", sn->all[i];
    i -= sn->nall;
    if (i < sn->nany)
        return *kw = "anyOf", sn->any[i];
    i -= sn->nany;
    if (i < sn->none)
        return *kw = "oneOf", sn->one[i];
    i -= sn->none;
    if (i == 0 && sn->not_ != SN_NONE)
        return *kw = "not", sn->not_;
    return SN_NONE;
}

/* Once every in-place subschema of n is done: what n admits and its default. */
static void finish_node(rig_schema *s, uint32_t n)
{
    snode *sn = &s->nodes[n];
    if (n == SN_TRUE || n == SN_FALSE)
        return;
    uint8_t eff = sn->types;
    if (sn->ref != SN_NONE)
        eff &= s->nodes[sn->ref].eff_types;
    for (uint32_t i = 0; i < sn->nall; i++)
        eff &= s->nodes[sn->all[i]].eff_types;
    if (sn->nany) {
        uint8_t u = 0;
        for (uint32_t i = 0; i < sn->nany; i++)
            u |= s->nodes[sn->any[i]].eff_types;
        eff &= u;
    }
    if (sn->none) {
        uint8_t u = 0;
        for (uint32_t i = 0; i < sn->none; i++)
            u |= s->nodes[sn->one[i]].eff_types;
        eff &= u;
    }
    sn->eff_types = eff;

    sn->dflt = sn->own_default;
    if (!sn->dflt.doc && sn->ref != SN_NONE)
        sn->dflt = s->nodes[sn->ref].dflt;
    for (uint32_t i = 0; !sn->dflt.doc && i < sn->nall; i++)
        sn->dflt = s->nodes[sn->all[i]].dflt;
}

/* Depth-first over the in-place edges, with an explicit stack. A node met
 * again while it is still open is a cycle: validating it would re-enter it
 * forever without moving into the instance. */
static int check_in_place(compiler *c)
{
    rig_schema *s = c->s;
    uint8_t *state = calloc(s->count, 1); /* 0 new, 1 open, 2 done */
    struct {
        uint32_t node, next;
    } *stack = malloc((size_t)s->count * sizeof *stack);
    int rc = 0;
    if (!state || !stack) {
        rc = oom(c);
        goto out;
    }
    for (uint32_t root = 0; root < s->count; root++) {
        if (state[root])
            continue;
        uint32_t sp = 0;
        stack[sp].node = root, stack[sp].next = 0, sp++;
        state[root] = 1;
        while (sp) {
            uint32_t n = stack[sp - 1].node;
            const char *kw = NULL;
            uint32_t child = in_place(&s->nodes[n], stack[sp - 1].next++, &kw);
            if (child == SN_NONE) {
                finish_node(s, n);
                state[n] = 2;
                sp--;
            } else if (state[child] == 1) {
                char to[200];
                rig__schema_pointer(s, child, to, sizeof to);
                rc = fail(c, n, kw,
                          "\"%s\" leads back to '%s' without descending into the value, so "
                          "checking would never end",
                          kw, to[0] ? to : "#");
                goto out;
            } else if (state[child] == 0) {
                state[child] = 1;
                stack[sp].node = child, stack[sp].next = 0, sp++;
            }
        }
    }
    /* property defaults come from the property's subschema */
    for (uint32_t n = 0; n < s->count; n++) {
        snode *sn = &s->nodes[n];
        for (uint32_t i = 0; i < sn->nprops; i++)
            if (sn->props[i].schema != SN_NONE)
                sn->props[i].dflt = s->nodes[sn->props[i].schema].dflt;
    }
out:
    free(state);
    free(stack);
    return rc;
}

/* ---------------------------------------------------------------- API */

static bool settles(const rig_schema *s);

rig_schema *rig_schema_compile(const char *json, size_t len, rig_error *err)
{
    if (!json) {
        rig_error_set(err, RIG_EINVAL, "no schema text");
        return NULL;
    }
    rig_schema *s = calloc(1, sizeof *s);
    compiler c = {.s = s, .err = err};
    if (!s || !(s->arena = rig_arena_new(0)))
        goto nomem;
    rig_json_error je;
    rig_json_options opt = {0, 0, RIG_JSON_COPY_INPUT};
    s->doc = rig_json_parse(json, len, &opt, &je);
    if (!s->doc) {
        if (je.code == RIG_JSON_ENOMEM)
            goto nomem;
        char where[200];
        rig_json_error_format(&je, where, sizeof where);
        rig_error_set(err, RIG_EJSON, "the schema is not valid JSON: %s", where);
        goto fail;
    }
    rig_json_val root = rig_json_doc_root(s->doc);
    rig_json_type rt = rig_json_typeof(root);
    if (rt != RIG_JSON_OBJECT && rt != RIG_JSON_BOOL) {
        rig_error_set(err, RIG_ESCHEMA, "invalid schema: it must be an object or a boolean, not %s",
                      rig_json_type_name(rt));
        goto fail;
    }
    c.node_of = calloc(rig_json_doc_size(s->doc) + 1, sizeof *c.node_of);
    if (!c.node_of || grow((void **)&s->nodes, &s->cap, 2, sizeof(snode)))
        goto nomem;
    /* the shared boolean schemas */
    node_init(&s->nodes[SN_TRUE], 0, SN_NONE, "");
    node_init(&s->nodes[SN_FALSE], 0, SN_NONE, "");
    s->nodes[SN_FALSE].types = s->nodes[SN_FALSE].eff_types = 0;
    s->count = 2;

    if (intern(&c, root, SN_NONE, "", SN_NONE, NULL, &s->top))
        goto fail;
    while (c.qhead < c.qlen)
        if (compile_node(&c, c.queue[c.qhead++]))
            goto fail;
    if (check_in_place(&c))
        goto fail;
    s->settles = settles(s);
    free(c.node_of);
    free(c.queue);
    free(c.props);
    return s;

nomem:
    rig_error_set(err, RIG_ENOMEM, "out of memory");
fail:
    free(c.node_of);
    free(c.queue);
    free(c.props);
    rig_schema_free(s);
    return NULL;
}

/* Does a value, once normalized, need no second check? Only where nothing
 * can see an edit from a second angle: a coerced value is checked where it
 * stands in the first pass, so what could still object is a keyword that
 * looks at a place again (allOf members, anyOf/oneOf/not branches), one
 * that compares whole containers (uniqueItems, an enum or const holding
 * arrays or objects), maxProperties or patternProperties beside a default,
 * a default its own schema rejects, or one that is an object or array (the
 * second pass fills the defaults inside it). */
static bool settles(const rig_schema *s)
{
    const uint32_t looks_twice =
        K_ALLOF | K_ANYOF | K_ONEOF | K_NOT | K_UNIQUE | K_MAXPROPS | K_PATPROPS;
    for (uint32_t n = 2; n < s->count; n++) {
        const snode *sn = &s->nodes[n];
        if (sn->has & looks_twice)
            return false;
        for (uint32_t i = 0; (sn->has & K_ENUM) && i < sn->nenum; i++) {
            rig_json_type t = rig_json_typeof(sn->enum_v[i]);
            if (t == RIG_JSON_ARRAY || t == RIG_JSON_OBJECT)
                return false;
        }
        rig_json_type ct = rig_json_typeof(sn->const_v);
        if ((sn->has & K_CONST) && (ct == RIG_JSON_ARRAY || ct == RIG_JSON_OBJECT))
            return false;
        for (uint32_t i = 0; i < sn->nprops; i++) {
            const sprop *p = &sn->props[i];
            if (!p->dflt.doc)
                continue;
            rig_json_type dt = rig_json_typeof(p->dflt);
            if (dt == RIG_JSON_ARRAY || dt == RIG_JSON_OBJECT ||
                (p->schema != SN_NONE && !rig__schema_fits(s, p->schema, p->dflt)))
                return false;
        }
    }
    return true;
}

void rig_schema_free(rig_schema *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->count; i++) {
        pcre2_code_free(s->nodes[i].pattern);
        for (uint32_t k = 0; k < s->nodes[i].npatprops; k++)
            pcre2_code_free(s->nodes[i].patprops[k].re);
    }
    free(s->nodes);
    rig_arena_free(s->arena);
    rig_json_doc_free(s->doc);
    free(s);
}

rig_json_val rig_schema_root(const rig_schema *s)
{
    if (!s)
        return (rig_json_val){NULL, 0};
    return rig_json_doc_root(s->doc);
}
