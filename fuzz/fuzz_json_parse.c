/* fuzz_json_parse.c — differential fuzzing of rig's JSON parser against
 * jansson, plus the document accessors and the writer's round trip.
 *
 * Each input is parsed three times: by rig in strict mode (lone surrogate
 * escapes and integers beyond int64 rejected, as jansson does), by rig with
 * default options, and by jansson (JSON_DECODE_ANY | JSON_ALLOW_NUL). Then:
 *
 *   - verdicts: on valid UTF-8, strict rig accepts exactly when jansson does,
 *     except where jansson hit its depth limit (2048, scalars counted) or
 *     refused a NUL byte in an object key, which rig allows; invalid UTF-8 is
 *     rejected by rig in both modes;
 *   - the modes: default rig accepts everything strict rig accepts, with an
 *     equal value, and accepts more only for a value flagged BIGINT or
 *     REPLACED, which jansson must have refused for that reason;
 *   - errors: a failed parse fills rig_json_error consistently; a prefix of
 *     an accepted input parses or fails as ETRUNCATED, never as a syntax error;
 *   - values: when both accept, rig's tree equals jansson's (fuzz_common.h);
 *   - writer: rig_json_write_value, compact and pretty, gives text that jansson
 *     and rig parse back to the same value; writing it again gives the same
 *     bytes; pretty output minus its layout whitespace is the compact output;
 *   - accessors, for the first WALK_BUDGET values of each input: the raw text
 *     re-parses to an equal value; rig_json_getn on each key finds the member
 *     that iteration yields (the last duplicate); rig_json_pointer built from
 *     the path reaches the value; getters agree with one another (get_int64
 *     on a double judged from its text, as json.h says); and
 *     rig_json_equal on neighbouring array elements agrees with the rules
 *     applied through the accessors (so it is also tested on unequal pairs). */
#include "fuzz_common.h"

#define MAX_DEPTH 1000000u /* far past anything an input of -max_len can nest */
#define WALK_BUDGET 48     /* values per input that get the expensive checks */
#define WALK_DEPTH 4000    /* the walk recurses; inputs are far shallower */

static rig_json_doc *doc_strict, *doc_default, *doc_tmp;
static const rig_json_options opt_strict = {
    0, MAX_DEPTH, RIG_JSON_STRICT_SURROGATES | RIG_JSON_REJECT_BIG_INTEGERS | RIG_JSON_COPY_INPUT};
static const rig_json_options opt_default = {0, MAX_DEPTH, 0};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    json_object_seed(1); /* jansson seeds its hash from /dev/urandom otherwise */
    doc_strict = rig_json_doc_new();
    doc_default = rig_json_doc_new();
    doc_tmp = rig_json_doc_new();
    FUZZ_CHECK(doc_strict && doc_default && doc_tmp, "rig_json_doc_new failed");
    return 0;
}

/* ---- errors */

static void check_error(int rc, const rig_json_error *e, size_t size, const char *mode) {
    if (rc == 0)
        return;
    FUZZ_CHECK(rc < 0 && rc >= RIG_JSON_EFRAME, "%s: odd status %d", mode, rc);
    FUZZ_CHECK(e->code == rc, "%s: err.code %d, returned %d", mode, e->code, rc);
    FUZZ_CHECK(e->reason != NULL, "%s: no reason for %d", mode, rc);
    FUZZ_CHECK(e->offset <= size, "%s: offset %zu past the input (%zu)", mode, e->offset, size);
    FUZZ_CHECK(e->line >= 1 && e->column >= 1, "%s: line %u column %u", mode, e->line, e->column);
    if (rc == RIG_JSON_ETRUNCATED)
        FUZZ_CHECK(e->offset == size, "%s: truncation reported at %zu, input is %zu bytes", mode,
                   e->offset, size);
    char buf[160];
    int n = rig_json_error_format(e, buf, sizeof buf);
    FUZZ_CHECK(n > 0 && strlen(buf) == ((size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1),
               "%s: rig_json_error_format returned %d for '%s'", mode, n, buf);
    FUZZ_CHECK(rig_json_strerror(rc) != NULL, "rig_json_strerror(%d) is NULL", rc);
}

/* Does any node (value or key) carry a flag that strict mode refuses? */
static bool has_strict_only(const rig_json_doc *d) {
    size_t n = rig_json_doc_size(d);
    for (size_t i = 0; i < n; i++)
        if (rig_json_val_flags((rig_json_val){d, (uint32_t)i}) &
            (RIG_JSON_VAL_BIGINT | RIG_JSON_VAL_REPLACED))
            return true;
    return false;
}

/* ---- writer round trip */


/* Writes root with flags; returns a malloc'd copy of the output. */
static char *write_doc(rig_json_val root, unsigned flags, size_t *len) {
    rig_json_writer w;
    rig_json_writer_init(&w, flags);
    int rc = rig_json_write_value(&w, root);
    FUZZ_CHECK(rc == 0, "rig_json_write_value (flags %u) failed: %d", flags, rc);
    FUZZ_CHECK(rig_json_writer_error(&w) == 0, "writer error after success");
    size_t n = 0;
    const char *out = rig_json_writer_finish(&w, &n);
    FUZZ_CHECK(out != NULL, "rig_json_writer_finish gave NULL after a whole value");
    FUZZ_CHECK(strlen(out) <= n && out[n] == '\0', "output not NUL-terminated");
    char *copy = malloc(n + 1);
    FUZZ_CHECK(copy, "out of memory");
    memcpy(copy, out, n + 1);
    rig_json_writer_free(&w);
    *len = n;
    return copy;
}

static void check_written(rig_json_val root, const json_t *j_orig, unsigned flags,
                          const char *compact, size_t compact_len, bool strict_only) {
    size_t len;
    char *out = write_doc(root, flags, &len);
    const char *mode = flags ? "pretty" : "compact";
    FUZZ_CHECK(fz_utf8_valid((const uint8_t *)out, len), "%s output is not valid UTF-8", mode);

    /* jansson reads it back */
    json_error_t jerr;
    json_t *j2 = json_loadb(out, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (j_orig)
        FUZZ_CHECK(j2, "jansson rejects rig's %s output of what it accepted: %s\n%.*s", mode,
                   jerr.text, (int)(len < 400 ? len : 400), out);
    if (j2) {
        char why[200] = "";
        if (j_orig)
            FUZZ_CHECK(fz_jj_equal(j2, j_orig, 0),
                       "jansson reads rig's %s output as a different value", mode);
        FUZZ_CHECK(fz_rj_equal(root, j2, 0, why, sizeof why),
                   "rig's %s output, read by jansson, differs from the document: %s", mode, why);
        json_decref(j2);
    } else {
        enum json_error_code c = json_error_code(&jerr);
        FUZZ_CHECK(c == json_error_stack_overflow || c == json_error_null_byte_in_key ||
                       (strict_only && c == json_error_numeric_overflow),
                   "jansson rejects rig's %s output for an undocumented reason: %s", mode,
                   jerr.text);
    }

    /* rig reads it back, and writing that again changes nothing */
    rig_json_error err;
    int rc = rig_json_doc_parse(doc_tmp, out, len, &opt_default, &err);
    FUZZ_CHECK(rc == 0, "rig rejects its own %s output: %d %s at %zu", mode, rc, err.reason,
               err.offset);
    rig_json_val again = rig_json_doc_root(doc_tmp);
    FUZZ_CHECK(rig_json_equal(again, root), "rig reads its %s output as a different value", mode);
    size_t len2;
    char *out2 = write_doc(again, flags, &len2);
    FUZZ_CHECK(len2 == len && memcmp(out, out2, len) == 0,
               "writing rig's %s output again changes it (%zu -> %zu bytes)", mode, len, len2);
    free(out2);

    if (flags & RIG_JSON_WRITE_PRETTY) {
        size_t sl;
        char *s = fz_strip_layout(out, len, &sl);
        FUZZ_CHECK(sl == compact_len && memcmp(s, compact, sl) == 0,
                   "pretty output minus layout is not the compact output");
        free(s);
    } else {
        for (size_t i = 0; i < len; i++) /* no layout at all outside strings */
            if (out[i] == '"') {
                for (i++; out[i] != '"'; i++)
                    if (out[i] == '\\')
                        i++;
            } else {
                FUZZ_CHECK(out[i] != ' ' && out[i] != '\n', "compact output has layout");
            }
    }
    free(out);
}

/* ---- accessors */

typedef struct path {
    char *s;
    size_t len, cap;
    unsigned unusable; /* keys with NUL bytes on the path: no C-string pointer */
} path;

static void path_add(path *p, const char *s, size_t n) {
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 64;
        while (cap < p->len + n + 1)
            cap *= 2;
        p->s = realloc(p->s, cap);
        FUZZ_CHECK(p->s, "out of memory");
        p->cap = cap;
    }
    memcpy(p->s + p->len, s, n);
    p->len += n;
    p->s[p->len] = '\0';
}

static void path_add_key(path *p, const char *k, size_t n) {
    path_add(p, "/", 1);
    for (size_t i = 0; i < n; i++) {
        if (k[i] == '~')
            path_add(p, "~0", 2);
        else if (k[i] == '/')
            path_add(p, "~1", 2);
        else
            path_add(p, k + i, 1);
    }
}

static bool same_val(rig_json_val a, rig_json_val b) { return a.doc == b.doc && a.idx == b.idx; }

typedef struct walker {
    rig_json_val root;
    path p;
    int budget;
} walker;

/* Does the number literal raw[0..len) denote an integer inside int64's range
 * (judged from the text, in exact decimal arithmetic)? Then true, with it in
 * *out. This is what rig_json_get_int64 promises for a double. */
static bool literal_int64(const char *raw, size_t len, int64_t *out) {
    const char *p = raw, *end = raw + len;
    bool neg = p < end && *p == '-';
    p += neg;
    char digits[8200];
    size_t nd = 0;
    int64_t frac = 0, exp = 0;
    bool in_frac = false;
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            in_frac = true;
            continue;
        }
        if (nd < sizeof digits)
            digits[nd++] = *p;
        frac += in_frac;
    }
    if (p < end) { /* exponent */
        p++;
        bool eneg = p < end && *p == '-';
        p += p < end && (*p == '-' || *p == '+');
        for (; p < end; p++)
            if (exp < 1000000000)
                exp = exp * 10 + (*p - '0');
        if (eneg)
            exp = -exp;
    }
    size_t a = 0, b = nd;
    while (a < b && digits[a] == '0')
        a++;
    if (a == b) { /* zero, however written */
        *out = 0;
        return true;
    }
    while (digits[b - 1] == '0')
        b--, exp++;
    int64_t e = exp - frac; /* value = digits[a..b) x 10^e */
    if (e < 0 || (int64_t)(b - a) + e > 19)
        return false;
    uint64_t m = 0;
    for (size_t i = a; i < b; i++)
        m = m * 10 + (uint64_t)(digits[i] - '0');
    for (int64_t i = 0; i < e; i++)
        m *= 10; /* at most 19 digits: no overflow */
    if (!neg && m > (uint64_t)INT64_MAX)
        return false;
    if (neg && m > (uint64_t)INT64_MAX + 1)
        return false;
    *out = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    return true;
}

static void check_scalars(rig_json_val v, rig_json_type t) {
    int64_t i = 0;
    double d = 0;
    bool b;
    int ri = rig_json_get_int64(v, &i), rd = rig_json_get_double(v, &d), rb = rig_json_get_bool(v, &b);
    FUZZ_CHECK((rb == 0) == (t == RIG_JSON_BOOL), "rig_json_get_bool on %s: %d",
               rig_json_type_name(t), rb);
    if (t == RIG_JSON_INT) {
        FUZZ_CHECK(ri == 0 && rd == 0 && d == (double)i, "getters on an int disagree");
    } else if (t == RIG_JSON_DOUBLE) {
        FUZZ_CHECK(rd == 0, "rig_json_get_double on a double: %d", rd);
        size_t len;
        const char *raw = rig_json_raw(v, &len);
        int64_t want = 0;
        bool fits = literal_int64(raw, len, &want);
        FUZZ_CHECK(fits ? (ri == 0 && i == want) : ri == RIG_JSON_ERANGE,
                   "rig_json_get_int64 on '%.*s': %d, %" PRId64 " (expected %s %" PRId64 ")",
                   (int)(len < 100 ? len : 100), raw, ri, i, fits ? "0," : "ERANGE", want);
    } else {
        FUZZ_CHECK(ri == RIG_JSON_ETYPE && rd == RIG_JSON_ETYPE, "number getters on %s: %d %d",
                   rig_json_type_name(t), ri, rd);
    }
    if (t != RIG_JSON_ARRAY && t != RIG_JSON_OBJECT) {
        FUZZ_CHECK(rig_json_len(v) == 0, "rig_json_len of a scalar");
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val e;
        FUZZ_CHECK(!rig_json_iter_next(&it, &e), "iterating a scalar yields something");
    }
    if (t != RIG_JSON_OBJECT)
        FUZZ_CHECK(!rig_json_exists(rig_json_getn(v, "", 0)), "rig_json_getn on a non-object");
    if (t != RIG_JSON_ARRAY)
        FUZZ_CHECK(!rig_json_exists(rig_json_at(v, 0)), "rig_json_at on a non-array");
    if (t != RIG_JSON_STRING)
        FUZZ_CHECK(rig_json_str_len(v) == 0 && rig_json_str_copy(v, NULL, 0, NULL) == RIG_JSON_ETYPE,
                   "string getters on %s", rig_json_type_name(t));
}

/* Two rig values by the documented rules, through the accessors: numbers by
 * numeric value (an INT equals a DOUBLE holding exactly that integer; -0 ==
 * 0), strings by decoded bytes, arrays element-wise, objects by distinct keys.
 * 1 equal, 0 not, -1 too deep to tell. */
static int rr_equal(rig_json_val a, rig_json_val b, int depth) {
    if (depth > 500)
        return -1;
    rig_json_type ta = rig_json_typeof(a), tb = rig_json_typeof(b);
    bool na = ta == RIG_JSON_INT || ta == RIG_JSON_DOUBLE, nb = tb == RIG_JSON_INT || tb == RIG_JSON_DOUBLE;
    if (na && nb) {
        if (ta == RIG_JSON_DOUBLE && tb == RIG_JSON_DOUBLE) {
            double x = 0, y = 0;
            rig_json_get_double(a, &x), rig_json_get_double(b, &y);
            return x == y;
        }
        if (ta == RIG_JSON_INT && tb == RIG_JSON_INT) {
            int64_t x = 0, y = 0;
            rig_json_get_int64(a, &x), rig_json_get_int64(b, &y);
            return x == y;
        }
        rig_json_val i = ta == RIG_JSON_INT ? a : b, d = ta == RIG_JSON_INT ? b : a;
        int64_t x = 0;
        double y = 0;
        rig_json_get_int64(i, &x), rig_json_get_double(d, &y);
        if (!(y >= -9223372036854775808.0 && y < 9223372036854775808.0) || y != floor(y))
            return 0;
        return (int64_t)y == x;
    }
    if (ta != tb)
        return 0;
    switch (ta) {
    case RIG_JSON_BOOL: {
        bool x = false, y = false;
        rig_json_get_bool(a, &x), rig_json_get_bool(b, &y);
        return x == y;
    }
    case RIG_JSON_STRING: {
        size_t la, lb;
        char *x = fz_rig_string(a, &la), *y = fz_rig_string(b, &lb);
        int eq = la == lb && memcmp(x, y, la) == 0;
        free(x);
        free(y);
        return eq;
    }
    case RIG_JSON_ARRAY: {
        if (rig_json_len(a) != rig_json_len(b))
            return 0;
        rig_json_iter ia = rig_json_iter_init(a), ib = rig_json_iter_init(b);
        rig_json_val x, y;
        int result = 1;
        while (rig_json_iter_next(&ia, &x) && rig_json_iter_next(&ib, &y)) {
            int r = rr_equal(x, y, depth + 1);
            if (r == 0)
                return 0;
            if (r < 0)
                result = -1;
        }
        return result;
    }
    case RIG_JSON_OBJECT: {
        if (rig_json_len(a) != rig_json_len(b))
            return 0;
        rig_json_iter ia = rig_json_iter_init(a);
        rig_json_val k, x;
        int result = 1;
        while (rig_json_iter_member(&ia, &k, &x)) {
            size_t kl;
            char *key = fz_rig_string(k, &kl);
            rig_json_val y = rig_json_getn(b, key, kl);
            free(key);
            if (!rig_json_exists(y))
                return 0;
            int r = rr_equal(x, y, depth + 1);
            if (r == 0)
                return 0;
            if (r < 0)
                result = -1;
        }
        return result;
    }
    default: return 1; /* null */
    }
}

static void check_equal_pair(rig_json_val a, rig_json_val b) {
    int want = rr_equal(a, b, 0);
    if (want < 0)
        return;
    bool got = rig_json_equal(a, b), back = rig_json_equal(b, a);
    FUZZ_CHECK(got == (want == 1) && back == got,
               "rig_json_equal(%s, %s) is %d (reversed %d), by the rules %d",
               rig_json_type_name(rig_json_typeof(a)), rig_json_type_name(rig_json_typeof(b)), got,
               back, want);
}

static void check_string(rig_json_val v, size_t raw_len, const char *raw) {
    size_t n;
    char *s = fz_rig_string(v, &n);
    rig_arena *a = rig_arena_new(0);
    FUZZ_CHECK(a, "out of memory");
    size_t dl = (size_t)-1;
    const char *dup = rig_json_str_dup(v, a, &dl);
    FUZZ_CHECK(dup && dl == n && memcmp(dup, s, n) == 0 && dup[n] == '\0',
               "rig_json_str_dup differs from rig_json_str_copy");
    rig_arena_free(a);
    FUZZ_CHECK(rig_json_str_eqn(v, s, n), "rig_json_str_eqn false on its own bytes");
    if (n)
        FUZZ_CHECK(!rig_json_str_eqn(v, s, n - 1), "rig_json_str_eqn true on a shorter prefix");
    if (!memchr(s, '\0', n))
        FUZZ_CHECK(rig_json_str_eq(v, s), "rig_json_str_eq false on its own bytes");
    bool escaped = memchr(raw + 1, '\\', raw_len - 2) != NULL;
    FUZZ_CHECK(!!(rig_json_val_flags(v) & RIG_JSON_VAL_ESCAPED) == escaped,
               "ESCAPED flag %u but backslash %d", rig_json_val_flags(v), escaped);
    const char *view;
    size_t vlen;
    bool has_view = rig_json_str_view(v, &view, &vlen);
    FUZZ_CHECK(has_view == !escaped, "rig_json_str_view %d on a string escaped=%d", has_view,
               escaped);
    if (has_view)
        FUZZ_CHECK(vlen == n && memcmp(view, s, n) == 0 && view == raw + 1,
                   "rig_json_str_view differs from the decoded string");
    free(s);
}

static void walk(walker *w, rig_json_val v, int depth) {
    rig_json_type t = rig_json_typeof(v);
    FUZZ_CHECK(t >= RIG_JSON_NULL && t <= RIG_JSON_OBJECT, "value of type %d", (int)t);
    size_t raw_len = 0;
    const char *raw = rig_json_raw(v, &raw_len);
    FUZZ_CHECK(raw && raw_len > 0, "rig_json_raw of a value is empty");
    bool full = w->budget > 0;
    if (full) {
        w->budget--;
        /* the raw text, alone, is the same value */
        rig_json_error err;
        int rc = rig_json_doc_parse(doc_tmp, raw, raw_len, &opt_default, &err);
        FUZZ_CHECK(rc == 0, "raw text of a %s value does not parse alone: %d %s\n%.*s",
                   rig_json_type_name(t), rc, err.reason, (int)(raw_len < 200 ? raw_len : 200), raw);
        FUZZ_CHECK(rig_json_equal(rig_json_doc_root(doc_tmp), v),
                   "raw text of a %s value parses to a different value", rig_json_type_name(t));
        if (!w->p.unusable) {
            rig_json_val q = rig_json_pointer(w->root, w->p.len ? w->p.s : "");
            FUZZ_CHECK(same_val(q, v), "rig_json_pointer(\"%s\") reaches %s idx %u, not idx %u",
                       w->p.len ? w->p.s : "", q.doc ? "a value" : "nothing", q.idx, v.idx);
        }
        check_scalars(v, t);
    }
    if (t == RIG_JSON_STRING && full)
        check_string(v, raw_len, raw);
    if (depth >= WALK_DEPTH)
        return;
    size_t saved = w->p.len;
    if (t == RIG_JSON_ARRAY) {
        size_t n = rig_json_len(v), i = 0;
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val e, prev = {NULL, 0};
        while (rig_json_iter_next(&it, &e)) {
            if (full && i < 4)
                FUZZ_CHECK(same_val(rig_json_at(v, i), e), "rig_json_at(%zu) is not element %zu",
                           i, i);
            if (full && i > 0 && i < 8)
                check_equal_pair(prev, e);
            prev = e;
            char num[24];
            int k = snprintf(num, sizeof num, "/%zu", i);
            path_add(&w->p, num, (size_t)k);
            walk(w, e, depth + 1);
            w->p.len = saved;
            i++;
        }
        FUZZ_CHECK(i == n, "array: iteration %zu, rig_json_len %zu", i, n);
        if (full)
            FUZZ_CHECK(!rig_json_exists(rig_json_at(v, n)), "rig_json_at past the end");
    } else if (t == RIG_JSON_OBJECT) {
        size_t n = rig_json_len(v), i = 0;
        rig_json_iter it = rig_json_iter_init(v), it2 = rig_json_iter_init(v);
        rig_json_val k, e, e2;
        while (rig_json_iter_member(&it, &k, &e)) {
            FUZZ_CHECK(rig_json_iter_next(&it2, &e2) && same_val(e, e2),
                       "iter_next and iter_member disagree");
            FUZZ_CHECK(rig_json_is_string(k), "object key is a %s",
                       rig_json_type_name(rig_json_typeof(k)));
            size_t kl;
            char *key = fz_rig_string(k, &kl);
            FUZZ_CHECK(same_val(rig_json_getn(v, key, kl), e),
                       "rig_json_getn finds another member than iteration (key of %zu bytes)", kl);
            bool nul = memchr(key, '\0', kl) != NULL;
            if (!nul && full)
                FUZZ_CHECK(same_val(rig_json_get(v, key), e), "rig_json_get differs from getn");
            path_add_key(&w->p, key, kl);
            free(key);
            w->p.unusable += nul;
            walk(w, e, depth + 1);
            w->p.unusable -= nul;
            w->p.len = saved;
            i++;
        }
        FUZZ_CHECK(!rig_json_iter_next(&it2, &e2), "iter_next yields more than iter_member");
        FUZZ_CHECK(i == n, "object: iteration %zu, rig_json_len %zu", i, n);
    }
    if (w->p.s)
        w->p.s[saved] = '\0';
}

/* ---- prefixes */

/* A proper prefix of an accepted input parses, or fails as truncated (or as
 * out of range, when the cut leaves a number that is). */
static void check_prefix(const char *text, size_t cut, const rig_json_options *opt) {
    rig_json_error err;
    int rc = rig_json_doc_parse(doc_tmp, text, cut, opt, &err);
    if (rc == RIG_JSON_ERANGE) {
        /* a cut number is another number, which may be out of range: a big
         * integer ("123" of "123.5"), or an overflow ("1000e-1" of "1000e-10") */
        for (size_t i = err.offset; i < cut; i++)
            FUZZ_CHECK(strchr("0123456789+-.eE", text[i]) && text[i] != '\0',
                       "a %zu-byte prefix fails with ERANGE at %zu, not on a cut number", cut,
                       err.offset);
        return;
    }
    FUZZ_CHECK(rc == 0 || rc == RIG_JSON_ETRUNCATED,
               "a %zu-byte prefix of an accepted input fails with %d (%s at %zu), not ETRUNCATED",
               cut, rc, err.reason, err.offset);
}

/* ---- a quirk of the oracle */

/* jansson drops a NUL byte that directly follows a number or a literal
 * ("[1\0]" and "true\0" are accepted): its lexer reads one character past
 * the token, puts it back, and a NUL put back reads as "buffer empty". A raw
 * NUL is never valid JSON (inside strings it is a control character, which
 * jansson does refuse), so when jansson accepts an input holding one, check
 * that it is this quirk -- every NUL follows a digit or the last letter of
 * true/false/null, and the input without them reads the same -- and count
 * jansson's verdict as a rejection. Returns NULL (j freed). */
static json_t *jansson_nul_quirk(const uint8_t *data, size_t size, json_t *j, json_error_t *jerr,
                                 enum json_error_code *jc) {
    char *s = malloc(size);
    FUZZ_CHECK(s, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t c = data[i], prev = i ? data[i - 1] : 0;
        FUZZ_CHECK(c != 0 || (prev >= '0' && prev <= '9') || prev == 'e' || prev == 'l',
                   "jansson accepts a NUL byte at %zu beyond its known quirk", i);
        if (c != 0)
            s[n++] = (char)c;
    }
    json_error_t e0;
    json_t *j0 = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e0);
    FUZZ_CHECK(j0 && fz_jj_equal(j0, j, 0),
               "jansson accepts an input with NUL bytes, but not the same without them");
    json_decref(j0);
    json_decref(j);
    free(s);
    *jc = json_error_invalid_syntax;
    snprintf(jerr->text, sizeof jerr->text, "(jansson quirk: NUL byte after a token)");
    return NULL;
}

/* ---- the target */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    bool utf8 = fz_utf8_valid(data, size);

    rig_json_error es, ed;
    int rs = rig_json_doc_parse(doc_strict, text, size, &opt_strict, &es);
    int rd = rig_json_doc_parse(doc_default, text, size, &opt_default, &ed);
    check_error(rs, &es, size, "strict");
    check_error(rd, &ed, size, "default");
    FUZZ_CHECK(rs != RIG_JSON_EDEPTH && rd != RIG_JSON_EDEPTH, "depth limit hit: raise MAX_DEPTH");
    rig_json_val root_s = rig_json_doc_root(doc_strict), root_d = rig_json_doc_root(doc_default);
    FUZZ_CHECK(rig_json_exists(root_s) == (rs == 0) && rig_json_exists(root_d) == (rd == 0),
               "root exists after a failed parse, or is missing after success");

    json_error_t jerr;
    json_t *j = json_loadb(text, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    enum json_error_code jc = j ? json_error_unknown : json_error_code(&jerr);
    if (j && memchr(data, '\0', size))
        j = jansson_nul_quirk(data, size, j, &jerr, &jc);

    /* the two modes */
    if (rs == 0) {
        FUZZ_CHECK(rd == 0, "strict mode accepts what default mode rejects (%d %s)", rd, ed.reason);
        FUZZ_CHECK(rig_json_equal(root_s, root_d), "strict and default documents differ");
    }
    if (rd == 0) {
        bool special = has_strict_only(doc_default);
        FUZZ_CHECK(special == (rs != 0),
                   "default mode accepts, strict mode says %d (%s), BIGINT/REPLACED flags: %d", rs,
                   rs ? es.reason : "ok", special);
        if (rs)
            FUZZ_CHECK(rs == RIG_JSON_ERANGE || rs == RIG_JSON_ESTRING,
                       "strict mode refuses a flagged value with %d", rs);
    }
    if (!utf8)
        FUZZ_CHECK(rd != 0 && rs != 0, "rig accepts invalid UTF-8");

    /* the verdicts */
    bool skip = jc == json_error_stack_overflow || jc == json_error_null_byte_in_key;
    if (utf8 && !skip)
        FUZZ_CHECK((rs == 0) == (j != NULL),
                   "verdicts differ: rig strict %d (%s at %zu), jansson %s (%s)", rs,
                   rs ? es.reason : "ok", rs ? es.offset : 0, j ? "accepts" : "rejects",
                   j ? "" : jerr.text);
    if (utf8 && !skip && rd == 0 && !j)
        FUZZ_CHECK(strncmp(jerr.text, "too big integer", 15) == 0 ||
                       strncmp(jerr.text, "too big negative integer", 24) == 0 ||
                       strncmp(jerr.text, "invalid Unicode '", 17) == 0,
                   "jansson refuses what rig accepts by default, and not for a documented "
                   "difference: %s",
                   jerr.text);

    /* the values */
    char why[200] = "";
    if (rs == 0 && j) {
        FUZZ_CHECK(fz_rj_equal(root_s, j, 0, why, sizeof why), "strict rig and jansson differ: %s",
                   why);
        FUZZ_CHECK(fz_rj_equal(root_d, j, 0, why, sizeof why), "default rig and jansson differ: %s",
                   why);
    }

    if (rd == 0) {
        bool special = rs != 0;
        size_t clen;
        char *compact = write_doc(root_d, 0, &clen);
        check_written(root_d, j, 0, compact, clen, special);
        check_written(root_d, j, RIG_JSON_WRITE_PRETTY, compact, clen, special);
        free(compact);

        walker w = {root_d, {NULL, 0, 0, 0}, WALK_BUDGET};
        walk(&w, root_d, 0);
        free(w.p.s);

        if (size > 1) {
            size_t cut = ((size_t)data[0] * 131u + (size_t)data[size - 1] * 7u + size) % size;
            check_prefix(text, cut, &opt_default);
            check_prefix(text, size - 1, &opt_default);
            if (rs == 0)
                check_prefix(text, cut, &opt_strict);
        }
    }
    json_decref(j);
    return 0;
}
