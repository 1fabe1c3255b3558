/* validate.c — checking a JSON value against a compiled schema, with the
 * optional coercion and defaults, and writing the normalized value.
 *
 * The walk is recursive over the instance, depth-limited (MAX_LEVELS levels
 * of the value, MAX_FRAMES C frames in all), and allocates nothing while the
 * value is valid and needs no change: the path for error messages is a chain
 * of frames on the C stack, formatted only when a check fails, and anyOf /
 * oneOf / not run their branches "quietly", recording only where and how a
 * branch failed, so a failed branch costs no formatting.
 *
 * Coercion and defaults never modify the instance (a parsed document is
 * read-only). They append edits to a log: "replace this value with that one"
 * (the coerced value is parsed into a small document of its own, so every
 * check applies to it as to any value), "append this default member to that
 * object", and "an edit lies below this container". A branch of anyOf/oneOf
 * that fails truncates the log back to where it began. When the walk ends
 * with edits, the log is indexed by value and the instance written out with
 * them applied; untouched subtrees go through rig_json_write_value whole.
 *
 * The normalized value is then validated again, with the same flags, until
 * nothing changes (at most MAX_PASSES). Keywords that see one place in
 * several ways (allOf members that coerce differently, maxProperties beside
 * a default, a default that does not fit its schema) could otherwise hand a
 * tool a value its schema forbids; a tool trusts its validated arguments. If
 * the normalized value is not valid, or does not settle, the instance is
 * checked as it is, without normalizing: valid as sent means valid and
 * unchanged. For the same reason a value that fails with coercion or
 * defaults is checked once more without them. */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/schema_internal.h"
#include "util/hash.h"
#include "util/hex.h"

#define MAX_LEVELS 1024u  /* nesting of the instance that is followed */
#define MAX_FRAMES 2048u  /* C recursion: levels plus in-place applicators */
#define MAX_PASSES 3      /* validations of a normalized value */
#define SMALL_UNIQUE 16   /* arrays up to this size are checked pairwise */
#define SMALL_ENUM 8      /* enums up to this size are compared directly */
#define POINTER_MAX 200   /* bytes of instance pointer in a message */
#define NAME_MAX_SHOWN 64 /* bytes of a property name in a message */

/* Keeps a function's locals off the stack of the recursive walk. */
#define NOINLINE __attribute__((noinline))

/* Where the walk is: the value, and how it was reached from its parent. */
typedef struct frame {
    const struct frame *up;
    rig_json_val val;
    rig_json_val key; /* member key; missing for an element or the root */
    size_t index;
    unsigned level;
} frame;

enum { E_REPLACE, E_DEFAULT, E_TOUCH };

typedef struct edit {
    rig_json_val at;
    rig_json_val with;  /* REPLACE: the new value; DEFAULT: the default */
    const sprop *prop;  /* DEFAULT: the property */
    uint32_t next;      /* writer: next DEFAULT for the same object */
    uint8_t kind;
} edit;

enum { F_OTHER, F_TYPE };

typedef struct vctx {
    const rig_schema *s;
    unsigned flags;
    unsigned quiet;  /* inside a branch: failures are noted, not formatted */
    unsigned frames; /* C recursion depth */
    bool hard;       /* a failure no branch may absorb (depth, budget) */
    uint64_t steps, budget;
    rig_error *err;
    /* the latest failure, for anyOf/oneOf to choose the closest branch */
    unsigned fail_level;
    uint8_t fail_kind, fail_want;
    /* edits */
    edit *log;
    size_t nlog, caplog;
    rig_json_val touched; /* the last value whose ancestors were all marked */
    size_t touched_at;    /* ... valid while nlog stays above this */
    rig_json_doc **docs;
    size_t ndocs, capdocs;
    pcre2_match_data *md;
    char *buf; /* decoded strings */
    size_t bufcap;
} vctx;

static int check(vctx *c, uint32_t n, const frame *f);
static int descend(vctx *c, uint32_t n, frame *f);

/* ---------------------------------------------------------------- values */

static unsigned classify(rig_json_val v)
{
    switch (rig_json_typeof(v)) {
    case RIG_JSON_NULL: return T_NULL;
    case RIG_JSON_BOOL: return T_BOOL;
    case RIG_JSON_INT: return T_INT;
    case RIG_JSON_DOUBLE: {
        double d = 0;
        rig_json_get_double(v, &d);
        return d == dfloor(d) ? T_INT : T_NUM; /* the parser never makes inf/nan */
    }
    case RIG_JSON_STRING: return T_STRING;
    case RIG_JSON_ARRAY: return T_ARRAY;
    case RIG_JSON_OBJECT: return T_OBJECT;
    default: return 0;
    }
}

static const char *class_name(unsigned t)
{
    switch (t) {
    case T_NULL: return "null";
    case T_BOOL: return "boolean";
    case T_INT: return "integer";
    case T_NUM: return "number";
    case T_STRING: return "string";
    case T_ARRAY: return "array";
    case T_OBJECT: return "object";
    default: return "nothing";
    }
}

/* "string", "integer or null", "number, string or boolean" */
static void types_text(unsigned mask, char *buf, size_t cap)
{
    const char *names[7];
    int k = 0;
    if ((mask & (T_INT | T_NUM)) == (T_INT | T_NUM))
        names[k++] = "number";
    else if (mask & T_INT)
        names[k++] = "integer";
    else if (mask & T_NUM)
        names[k++] = "number";
    static const unsigned rest[] = {T_STRING, T_BOOL, T_ARRAY, T_OBJECT, T_NULL};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        if (mask & rest[i])
            names[k++] = class_name(rest[i]);
    size_t at = 0;
    buf[0] = '\0';
    if (k == 0)
        snprintf(buf, cap, "nothing (the schema allows no type)");
    for (int i = 0; i < k && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i == 0 ? "" : i == k - 1 ? " or " : ", ",
                               names[i]);
}

/* A number, exact when it is an integer. */
static snum num_of(rig_json_val v)
{
    snum x = {false, 0, 0};
    x.is_int = rig_json_typeof(v) == RIG_JSON_INT;
    if (x.is_int)
        rig_json_get_int64(v, &x.i);
    rig_json_get_double(v, &x.d);
    return x;
}

/* Compares an int64 with a double exactly: -1, 0, 1. */
static int cmp_int_double(int64_t i, double d)
{
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    double fl = dfloor(d);
    int64_t t = (int64_t)fl;
    if (i != t)
        return i < t ? -1 : 1;
    return fl < d ? -1 : 0;
}

static int num_cmp(const snum *a, const snum *b)
{
    if (a->is_int && b->is_int)
        return (a->i > b->i) - (a->i < b->i);
    if (!a->is_int && !b->is_int)
        return (a->d > b->d) - (a->d < b->d);
    return a->is_int ? cmp_int_double(a->i, b->d) : -cmp_int_double(b->i, a->d);
}

static bool is_multiple(const snum *x, const snum *m)
{
    if (x->is_int && m->is_int)
        return x->i % m->i == 0;
    double q = x->d / m->d;
    if (!(q - q == 0)) /* infinite */
        return false;
    if (dabs(q) >= 9007199254740992.0) /* past 2^53 every double is an integer */
        return true;
    double r = dfloor(q + 0.5);
    /* a relative tolerance: 0.3 is a multiple of 0.1 though 0.3 / 0.1 is not 3 */
    return dabs(x->d - r * m->d) <= dabs(x->d) * 1e-12;
}

/* ---- hashing, for enum and uniqueItems */

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_string(rig_json_val v)
{
    const char *p;
    size_t n;
    if (rig_json_str_view(v, &p, &n))
        return rig__hash_bytes(p, n);
    char small[256];
    n = rig_json_str_len(v);
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return mix(n); /* equal strings still hash alike, just worse */
    rig_json_str_copy(v, buf, n + 1, &n);
    uint64_t h = rig__hash_bytes(buf, n);
    if (buf != small)
        free(buf);
    return h;
}

static uint64_t hash_value(rig_json_val v, int depth)
{
    switch (rig_json_typeof(v)) {
    case RIG_JSON_NULL: return 0x6e756c6cull;
    case RIG_JSON_BOOL: {
        bool b = false;
        rig_json_get_bool(v, &b);
        return b ? 0x74727565ull : 0x66616c73ull;
    }
    case RIG_JSON_INT: {
        int64_t i = 0;
        rig_json_get_int64(v, &i);
        return mix((uint64_t)i ^ 0x9e3779b97f4a7c15ull);
    }
    case RIG_JSON_DOUBLE: {
        double d = 0;
        rig_json_get_double(v, &d);
        if (d == dfloor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
            return mix((uint64_t)(int64_t)d ^ 0x9e3779b97f4a7c15ull); /* 1.0 as 1, -0 as 0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return mix(bits);
    }
    case RIG_JSON_STRING: return hash_string(v) ^ 0x5;
    case RIG_JSON_ARRAY: {
        uint64_t h = mix(0xa4 + rig_json_len(v));
        if (depth >= 8)
            return h;
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val e;
        while (rig_json_iter_next(&it, &e))
            h = mix(h * 31 + hash_value(e, depth + 1));
        return h;
    }
    case RIG_JSON_OBJECT: {
        uint64_t h = mix(0x0b + rig_json_len(v));
        if (depth >= 8)
            return h;
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val k, e;
        while (rig_json_iter_member(&it, &k, &e)) /* a sum: member order does not count */
            h += mix(hash_string(k) ^ mix(hash_value(e, depth + 1)));
        return h;
    }
    default: return 0;
    }
}

uint64_t rig__value_hash(rig_json_val v) { return hash_value(v, 0); }

/* ---------------------------------------------------------------- messages */

enum { AS_TEXT, AS_TOKEN, AS_RAW };

/* Appends s[0..n) for a message: at most `max` bytes (cut on a UTF-8
 * boundary, "..." added), control characters as \uXXXX. AS_TOKEN escapes
 * '~' and '/' for a JSON pointer; AS_RAW is JSON text, whose only raw control
 * characters are layout, shown as spaces. */
static size_t put_text(char *buf, size_t cap, size_t at, const char *s, size_t n, size_t max,
                       int mode)
{
    bool cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n && at + 8 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (mode == AS_TOKEN && (ch == '~' || ch == '/')) {
            buf[at++] = '~';
            buf[at++] = ch == '~' ? '0' : '1';
        } else if (mode == AS_RAW && ch < 0x20) {
            buf[at++] = ' ';
        } else if (ch < 0x20 || ch == 0x7f) {
            at += (size_t)snprintf(buf + at, cap - at, "\\u%04x", ch);
        } else {
            buf[at++] = (char)ch;
        }
    }
    if (cut && at + 4 < cap) {
        memcpy(buf + at, "...", 3);
        at += 3;
    }
    buf[at < cap ? at : cap - 1] = '\0';
    return at;
}

/* A schema value as it is written, cut to max bytes, on one line. */
static size_t put_raw(char *buf, size_t cap, size_t at, rig_json_val v, size_t max)
{
    size_t n = 0;
    const char *raw = rig_json_raw(v, &n);
    if (!raw)
        return at;
    return put_text(buf, cap, at, raw, n, max, AS_RAW);
}

/* Cuts NUL-terminated s to at most max bytes, on a UTF-8 boundary, marking
 * the cut with "...". */
static void cut_text(char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return;
    n = max - 3;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    memcpy(s + n, "...", 4);
}

/* The JSON pointer of frame f, innermost segments kept when it is long. */
static void pointer_of(const frame *f, char *out, size_t cap)
{
    char tmp[POINTER_MAX + 80];
    size_t end = sizeof tmp - 1, start = end;
    tmp[end] = '\0';
    bool cut = false;
    for (; f && f->up; f = f->up) {
        char seg[NAME_MAX_SHOWN * 6 + 16];
        size_t sl;
        if (f->key.doc) {
            seg[0] = '/';
            const char *p;
            size_t n;
            char small[NAME_MAX_SHOWN + 8];
            if (rig_json_str_view(f->key, &p, &n)) {
                sl = put_text(seg, sizeof seg, 1, p, n, NAME_MAX_SHOWN, AS_TOKEN);
            } else {
                n = rig_json_str_len(f->key);
                char *dec = n < sizeof small ? small : malloc(n + 1);
                if (dec) {
                    rig_json_str_copy(f->key, dec, n + 1, &n);
                    sl = put_text(seg, sizeof seg, 1, dec, n, NAME_MAX_SHOWN, AS_TOKEN);
                    if (dec != small)
                        free(dec);
                } else {
                    sl = (size_t)snprintf(seg, sizeof seg, "/...");
                }
            }
        } else {
            sl = (size_t)snprintf(seg, sizeof seg, "/%zu", f->index);
        }
        if (end - start + sl > POINTER_MAX) {
            cut = true;
            break;
        }
        start -= sl;
        memcpy(tmp + start, seg, sl);
    }
    snprintf(out, cap, "%s%s", cut ? "..." : "", tmp + start);
}

/* Records a failure at f: always its place and kind (for anyOf/oneOf), the
 * message only outside branches. Returns RIG_EVALIDATE. */
static int fail(vctx *c, const frame *f, int kind, unsigned want, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int failv(vctx *c, const frame *f, const char *fmt, va_list ap)
{
    char ptr[POINTER_MAX + 8], what[RIG_ERROR_MESSAGE_MAX];
    vsnprintf(what, sizeof what, fmt, ap);
    if (!f->up)
        return rig_error_set(c->err, RIG_EVALIDATE, "at the top level: %s", what);
    pointer_of(f, ptr, sizeof ptr);
    return rig_error_set(c->err, RIG_EVALIDATE, "at '%s': %s", ptr, what);
}

static int fail(vctx *c, const frame *f, int kind, unsigned want, const char *fmt, ...)
{
    c->fail_level = f->level;
    c->fail_kind = (uint8_t)kind;
    c->fail_want = (uint8_t)want;
    if (c->quiet)
        return RIG_EVALIDATE;
    va_list ap;
    va_start(ap, fmt);
    failv(c, f, fmt, ap);
    va_end(ap);
    return RIG_EVALIDATE;
}

/* A failure that ends the whole validation, even inside a branch (a branch
 * that gave up has not failed, so "not" must not turn it into a success). */
static int fail_hard(vctx *c, const frame *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static NOINLINE int fail_hard(vctx *c, const frame *f, const char *fmt, ...)
{
    c->hard = true;
    va_list ap;
    va_start(ap, fmt);
    failv(c, f, fmt, ap);
    va_end(ap);
    return RIG_EVALIDATE;
}

static int oom(vctx *c)
{
    c->hard = true;
    rig_error_set(c->err, RIG_ENOMEM, "out of memory");
    return RIG_ENOMEM;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* ---------------------------------------------------------------- edits */

static int log_edit(vctx *c, uint8_t kind, rig_json_val at, rig_json_val with, const sprop *p)
{
    if (c->nlog == c->caplog) {
        size_t nc = c->caplog ? c->caplog * 2 : 16;
        edit *q = realloc(c->log, nc * sizeof *q);
        if (!q)
            return oom(c);
        c->log = q;
        c->caplog = nc;
    }
    c->log[c->nlog++] = (edit){at, with, p, 0, kind};
    return 0;
}

static bool same_val(rig_json_val a, rig_json_val b) { return a.doc == b.doc && a.idx == b.idx; }

/* Marks f's value and every value above it as holding an edit. */
static int touch(vctx *c, const frame *f)
{
    if (c->nlog > c->touched_at && same_val(c->touched, f->val))
        return 0;
    size_t first = c->nlog;
    for (const frame *g = f; g; g = g->up)
        if (log_edit(c, E_TOUCH, g->val, (rig_json_val){NULL, 0}, NULL))
            return RIG_ENOMEM;
    c->touched = f->val;
    c->touched_at = first;
    return 0;
}

static void truncate_log(vctx *c, size_t mark)
{
    if (c->nlog > mark)
        c->nlog = mark;
    if (mark <= c->touched_at)
        c->touched = (rig_json_val){NULL, 0}; /* its marks are gone */
}

/* ---------------------------------------------------------------- strings */

/* PCRE2's JIT reads its subject in aligned blocks that may run past the
 * end (never past a page): harmless, but memory checkers see reads of
 * uninitialized bytes. A subject gets this much zeroed tail. */
#define SUBJECT_PAD 64

/* The decoded bytes of string v: a view into the text when it has no
 * escapes and `copy` is false, else decoded (or copied) into c->buf, with
 * SUBJECT_PAD zero bytes after it. NULL when memory ran out. */
static const char *string_bytes(vctx *c, rig_json_val v, size_t *len, bool copy)
{
    const char *p;
    bool view = rig_json_str_view(v, &p, len);
    if (view && !copy)
        return p;
    size_t n = view ? *len : rig_json_str_len(v);
    if (n + SUBJECT_PAD > c->bufcap) {
        char *b = realloc(c->buf, n + SUBJECT_PAD);
        if (!b)
            return NULL;
        c->buf = b;
        c->bufcap = n + SUBJECT_PAD;
    }
    if (view)
        memcpy(c->buf, p, n);
    else
        rig_json_str_copy(v, c->buf, c->bufcap, len);
    memset(c->buf + n, 0, SUBJECT_PAD);
    return c->buf;
}

/* Four hex digits of a \u escape the parser has already checked. */
static unsigned hex4(const char *p)
{
    unsigned v = 0;
    rig__hex4(p, &v);
    return v;
}

/* Code points in string v, counted on its text (escapes included) so
 * nothing is decoded: a surrogate pair escape is one, a lone surrogate (read
 * as U+FFFD) one. */
static uint64_t code_points(rig_json_val v)
{
    size_t n;
    const char *raw = rig_json_raw(v, &n);
    if (!raw || n < 2)
        return 0;
    const char *p = raw + 1, *end = raw + n - 1;
    uint64_t count = 0;
    while (p < end) {
        if (*p == '\\') {
            if (p[1] == 'u') {
                unsigned u = hex4(p + 2);
                p += 6;
                if (u >= 0xD800 && u < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                    unsigned lo = hex4(p + 2);
                    if (lo >= 0xDC00 && lo < 0xE000)
                        p += 6;
                }
            } else {
                p += 2;
            }
        } else {
            const char *q = p + 1;
            while (q < end && ((unsigned char)*q & 0xC0) == 0x80)
                q++;
            p = q;
        }
        count++;
    }
    return count;
}

static const char *format_hint(int format)
{
    switch (format) {
    case RIG__FORMAT_DATE_TIME: return "an RFC 3339 date-time, e.g. 2024-01-31T09:30:00Z";
    case RIG__FORMAT_DATE: return "a date, YYYY-MM-DD";
    case RIG__FORMAT_TIME: return "an RFC 3339 time with an offset, e.g. 09:30:00Z";
    case RIG__FORMAT_URI: return "an absolute URI with a scheme, e.g. https://example.com/";
    case RIG__FORMAT_EMAIL: return "an email address";
    default: return "?";
    }
}

static NOINLINE int check_string(vctx *c, const snode *sn, const frame *f)
{
    rig_json_val v = f->val;
    uint32_t has = sn->has;
    if (has & (K_MINLEN | K_MAXLEN)) {
        /* bytes bound code points from above, and four times them from below */
        uint64_t bytes = rig_json_str_len(v), cps = UINT64_MAX;
        if ((has & K_MAXLEN) && bytes > sn->max_len && (cps = code_points(v)) > sn->max_len)
            return fail(c, f, F_OTHER, 0, "must be at most %llu %s",
                        (unsigned long long)sn->max_len,
                        plural(sn->max_len, "character", "characters"));
        if ((has & K_MINLEN) && bytes / 4 < sn->min_len) {
            if (cps == UINT64_MAX)
                cps = code_points(v);
            if (cps < sn->min_len)
                return fail(c, f, F_OTHER, 0, "must be at least %llu %s",
                            (unsigned long long)sn->min_len,
                            plural(sn->min_len, "character", "characters"));
        }
    }
    if (!(has & (K_PATTERN | K_FORMAT)))
        return 0;
    size_t len;
    const char *p = string_bytes(c, v, &len, has & K_PATTERN);
    if (!p)
        return oom(c);
    if (has & K_PATTERN) {
        if (!c->md && !(c->md = pcre2_match_data_create(1, NULL)))
            return oom(c);
        int rc = pcre2_match(sn->pattern, (PCRE2_SPTR)p, len, 0, 0, c->md, NULL);
        if (rc < 0) {
            if (c->quiet)
                return fail(c, f, F_OTHER, 0, "pattern");
            char pat[160];
            put_raw(pat, sizeof pat, 0, sn->pattern_v, 120);
            if (rc == PCRE2_ERROR_NOMATCH)
                return fail(c, f, F_OTHER, 0, "must match the pattern %s", pat);
            PCRE2_UCHAR why[120];
            if (pcre2_get_error_message(rc, why, sizeof why) < 0)
                snprintf((char *)why, sizeof why, "error %d", rc);
            return fail(c, f, F_OTHER, 0, "could not be checked against the pattern %s: %s", pat,
                        (const char *)why);
        }
    }
    if ((has & K_FORMAT) && !rig__format_check(sn->format, p, len))
        return fail(c, f, F_OTHER, 0, "must be a valid %s (%s)", rig__format_name(sn->format),
                    format_hint(sn->format));
    return 0;
}

/* ---------------------------------------------------------------- numbers */

static NOINLINE int check_number(vctx *c, const snode *sn, const frame *f)
{
    snum x = num_of(f->val);
    uint32_t has = sn->has;
    char b[48];
    if ((has & K_MINIMUM) && num_cmp(&x, &sn->minimum) < 0) {
        put_raw(b, sizeof b, 0, sn->minimum_v, 40);
        return fail(c, f, F_OTHER, 0, "must be at least %s", b);
    }
    if ((has & K_MAXIMUM) && num_cmp(&x, &sn->maximum) > 0) {
        put_raw(b, sizeof b, 0, sn->maximum_v, 40);
        return fail(c, f, F_OTHER, 0, "must be at most %s", b);
    }
    if ((has & K_EXMIN) && num_cmp(&x, &sn->exmin) <= 0) {
        put_raw(b, sizeof b, 0, sn->exmin_v, 40);
        return fail(c, f, F_OTHER, 0, "must be greater than %s", b);
    }
    if ((has & K_EXMAX) && num_cmp(&x, &sn->exmax) >= 0) {
        put_raw(b, sizeof b, 0, sn->exmax_v, 40);
        return fail(c, f, F_OTHER, 0, "must be less than %s", b);
    }
    if ((has & K_MULTIPLE) && !is_multiple(&x, &sn->multiple)) {
        put_raw(b, sizeof b, 0, sn->multiple_v, 40);
        return fail(c, f, F_OTHER, 0, "must be a multiple of %s", b);
    }
    return 0;
}

/* ---------------------------------------------------------------- enum, const */

static bool in_enum(const snode *sn, rig_json_val v)
{
    const char *p;
    size_t n;
    if (rig_json_str_view(v, &p, &n)) { /* the usual case: names compared as bytes */
        for (uint32_t i = 0; i < sn->nenum; i++)
            if (sn->enum_str[i] && sn->enum_len[i] == n && memcmp(sn->enum_str[i], p, n) == 0)
                return true;
        return false;
    }
    if (sn->nenum <= SMALL_ENUM) {
        for (uint32_t i = 0; i < sn->nenum; i++)
            if (rig_json_equal(v, sn->enum_v[i]))
                return true;
        return false;
    }
    uint64_t h = rig__value_hash(v);
    for (uint32_t i = 0; i < sn->nenum; i++)
        if (sn->enum_hash[i] == h && rig_json_equal(v, sn->enum_v[i]))
            return true;
    return false;
}

static NOINLINE int enum_fail(vctx *c, const snode *sn, const frame *f)
{
    if (c->quiet)
        return fail(c, f, F_OTHER, 0, "enum");
    char list[260];
    size_t at = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < sn->nenum; i++) {
        if (at > 200) {
            at += (size_t)snprintf(list + at, sizeof list - at, ", ... (%u values)", sn->nenum);
            break;
        }
        if (i)
            at = put_text(list, sizeof list, at, ", ", 2, 2, AS_TEXT);
        at = put_raw(list, sizeof list, at, sn->enum_v[i], 60);
    }
    if (sn->nenum == 0)
        return fail(c, f, F_OTHER, 0, "no value is allowed here (\"enum\" is empty)");
    if (sn->nenum == 1)
        return fail(c, f, F_OTHER, 0, "must be %s", list);
    return fail(c, f, F_OTHER, 0, "must be one of %s", list);
}

/* ---------------------------------------------------------------- arrays */

static NOINLINE int check_unique(vctx *c, const frame *f, size_t n)
{
    size_t a = 0, b = 0;
    bool dup = false;
    if (n <= SMALL_UNIQUE) {
        rig_json_val e[SMALL_UNIQUE];
        rig_json_iter it = rig_json_iter_init(f->val);
        size_t k = 0;
        while (k < n && rig_json_iter_next(&it, &e[k]))
            k++;
        for (size_t i = 1; i < k && !dup; i++)
            for (size_t j = 0; j < i && !dup; j++)
                if (rig_json_equal(e[i], e[j]))
                    dup = true, a = j, b = i;
    } else {
        /* open addressing over the values' hashes; equal hashes are compared */
        size_t size = 32;
        while (size < n * 2)
            size *= 2;
        uint32_t *table = malloc(size * sizeof *table);
        uint64_t *hashes = malloc(n * sizeof *hashes);
        rig_json_val *vals = malloc(n * sizeof *vals);
        if (!table || !hashes || !vals) {
            free(table), free(hashes), free(vals);
            return oom(c);
        }
        memset(table, 0xff, size * sizeof *table);
        rig_json_iter it = rig_json_iter_init(f->val);
        size_t i = 0;
        while (!dup && i < n && rig_json_iter_next(&it, &vals[i])) {
            uint64_t h = hashes[i] = rig__value_hash(vals[i]);
            size_t slot = (size_t)h & (size - 1);
            while (table[slot] != UINT32_MAX) {
                uint32_t j = table[slot];
                if (hashes[j] == h && rig_json_equal(vals[i], vals[j])) {
                    dup = true, a = j, b = i;
                    break;
                }
                slot = (slot + 1) & (size - 1);
            }
            table[slot] = (uint32_t)i;
            i++;
        }
        free(table), free(hashes), free(vals);
    }
    if (dup)
        return fail(c, f, F_OTHER, 0,
                    "must not contain duplicates (items %zu and %zu are equal)", a, b);
    return 0;
}

static int check_array(vctx *c, const snode *sn, const frame *f)
{
    uint32_t has = sn->has;
    size_t n = rig_json_len(f->val);
    if ((has & K_MINITEMS) && n < sn->min_items)
        return fail(c, f, F_OTHER, 0, "must have at least %llu %s",
                    (unsigned long long)sn->min_items, plural(sn->min_items, "item", "items"));
    if ((has & K_MAXITEMS) && n > sn->max_items)
        return fail(c, f, F_OTHER, 0, "must have at most %llu %s",
                    (unsigned long long)sn->max_items, plural(sn->max_items, "item", "items"));
    if (has & K_ITEMS) {
        rig_json_iter it = rig_json_iter_init(f->val);
        frame child = {f, {NULL, 0}, {NULL, 0}, 0, f->level + 1};
        rig_json_val e;
        for (size_t i = 0; rig_json_iter_next(&it, &e); i++) {
            uint32_t sub = i < sn->nprefix ? sn->prefix[i] : sn->items;
            if (sub == SN_NONE || sub == SN_TRUE)
                continue;
            if (sub == SN_FALSE)
                return fail(c, f, F_OTHER, 0, "must have at most %u %s", sn->nprefix,
                            plural(sn->nprefix, "item", "items"));
            child.val = e;
            child.index = i;
            int rc = descend(c, sub, &child);
            if (rc)
                return rc;
        }
    }
    if (has & K_UNIQUE)
        return check_unique(c, f, n);
    return 0;
}

/* ---------------------------------------------------------------- objects */

/* The property named by `key`. Models mostly send arguments in the order
 * the schema lists them, so the property after the last one found (*hint)
 * is tried first: a 5-argument call then costs 5 compares, not 15. */
static const sprop *find_prop(const snode *sn, rig_json_val key, uint32_t *hint)
{
    const char *p;
    size_t n;
    if (rig_json_str_view(key, &p, &n)) {
        uint32_t h0 = *hint;
        if (h0 < sn->nprops && sn->props[h0].len == n && memcmp(sn->props[h0].name, p, n) == 0) {
            *hint = h0 + 1;
            return &sn->props[h0];
        }
        if (!sn->table) {
            for (uint32_t i = 0; i < sn->nprops; i++)
                if (sn->props[i].len == n && (n == 0 || sn->props[i].name[0] == p[0]) &&
                    memcmp(sn->props[i].name, p, n) == 0) {
                    *hint = i + 1;
                    return &sn->props[i];
                }
            return NULL;
        }
        for (uint32_t h = prop_hash(p, n) & sn->table_mask;; h = (h + 1) & sn->table_mask) {
            uint32_t i = sn->table[h];
            if (i == SN_NONE)
                return NULL;
            if (sn->props[i].len == n && memcmp(sn->props[i].name, p, n) == 0)
                return &sn->props[i];
        }
    }
    n = rig_json_str_len(key); /* an escaped key: compare decoded */
    for (uint32_t i = 0; i < sn->nprops; i++)
        if (sn->props[i].len == n && rig_json_str_eqn(key, sn->props[i].name, n))
            return &sn->props[i];
    return NULL;
}

static void name_text(const sprop *p, char *buf, size_t cap)
{
    put_text(buf, cap, 0, p->name, p->len, NAME_MAX_SHOWN, AS_TEXT);
}

static void key_text(rig_json_val key, char *buf, size_t cap)
{
    const char *p;
    size_t n;
    char small[NAME_MAX_SHOWN + 8];
    if (rig_json_str_view(key, &p, &n)) {
        put_text(buf, cap, 0, p, n, NAME_MAX_SHOWN, AS_TEXT);
        return;
    }
    n = rig_json_str_len(key);
    char *dec = n < sizeof small ? small : malloc(n + 1);
    if (!dec) {
        snprintf(buf, cap, "...");
        return;
    }
    rig_json_str_copy(key, dec, n + 1, &n);
    put_text(buf, cap, 0, dec, n, NAME_MAX_SHOWN, AS_TEXT);
    if (dec != small)
        free(dec);
}

/* Failures that format a name: out of line, so their buffers are not on the
 * stack of every level of a deep walk. */
static NOINLINE int property_fail(vctx *c, const frame *f, rig_json_val key, bool listed)
{
    if (c->quiet)
        return fail(c, f, F_OTHER, 0, "property");
    char name[NAME_MAX_SHOWN * 6 + 8];
    key_text(key, name, sizeof name);
    if (listed)
        return fail(c, f, F_OTHER, 0, "property '%s' is not allowed", name);
    return fail(c, f, F_OTHER, 0, "unexpected property '%s'", name);
}

static NOINLINE int required_fail(vctx *c, const frame *f, const sprop *p)
{
    if (c->quiet)
        return fail(c, f, F_OTHER, 0, "required");
    char name[NAME_MAX_SHOWN * 6 + 8];
    name_text(p, name, sizeof name);
    return fail(c, f, F_OTHER, 0, "missing required property '%s'", name);
}

/* The "patternProperties" whose pattern matches the name of member
 * child->key apply to it; *matched says whether any did. */
static NOINLINE int check_pattern_props(vctx *c, const snode *sn, const frame *f, frame *child,
                                        bool *matched)
{
    size_t len;
    const char *name = string_bytes(c, child->key, &len, true);
    if (!name)
        return oom(c);
    if (!c->md && !(c->md = pcre2_match_data_create(1, NULL)))
        return oom(c);
    /* decide all matches first: descending reuses c->buf */
    uint64_t small = 0, *hit = &small;
    if (sn->npatprops > 64 && !(hit = calloc((sn->npatprops + 63) / 64, sizeof *hit)))
        return oom(c);
    for (uint32_t i = 0; i < sn->npatprops; i++)
        if (pcre2_match(sn->patprops[i].re, (PCRE2_SPTR)name, len, 0, 0, c->md, NULL) >= 0) {
            hit[i / 64] |= 1ull << (i % 64);
            *matched = true;
        }
    int rc = 0;
    rig_json_val original = child->val;
    for (uint32_t i = 0; i < sn->npatprops && rc == 0; i++) {
        uint32_t sub = sn->patprops[i].schema;
        if (!(hit[i / 64] >> (i % 64) & 1) || sub == SN_TRUE)
            continue;
        if (sub == SN_FALSE) {
            rc = property_fail(c, f, child->key, true);
            break;
        }
        child->val = original;
        rc = descend(c, sub, child);
    }
    if (hit != &small)
        free(hit);
    return rc;
}

/* The members, "required", the property counts and the defaults. */
static int check_members(vctx *c, const snode *sn, const frame *f, uint64_t *seen)
{
    uint32_t has = sn->has;
    bool defaults = c->flags & RIG_VALIDATE_DEFAULTS;
    if (has & (K_PROPS | K_ADDPROPS | K_PATPROPS)) {
        rig_json_iter it = rig_json_iter_init(f->val);
        frame child = {f, {NULL, 0}, {NULL, 0}, 0, f->level + 1};
        rig_json_val k, v;
        uint32_t hint = 0;
        while (rig_json_iter_member(&it, &k, &v)) {
            const sprop *p = sn->nprops ? find_prop(sn, k, &hint) : NULL;
            uint32_t sub = sn->addprops;
            bool listed = p && p->schema != SN_NONE; /* under "properties" */
            if (p) {
                size_t i = (size_t)(p - sn->props);
                seen[i / 64] |= 1ull << (i % 64);
                if (listed)
                    sub = p->schema;
            }
            if (has & K_PATPROPS) {
                child.val = v;
                child.key = k;
                bool matched = false;
                int rc = check_pattern_props(c, sn, f, &child, &matched);
                if (rc)
                    return rc;
                if (matched && !listed) /* named by a pattern: not additional */
                    continue;
            }
            if (sub == SN_NONE || sub == SN_TRUE)
                continue;
            if (sub == SN_FALSE)
                return property_fail(c, f, k, listed);
            child.val = v;
            child.key = k;
            int rc = descend(c, sub, &child);
            if (rc)
                return rc;
        }
    }
    /* Defaults count as present for "required" and "minProperties": the
     * normalized object will hold them. Not for "maxProperties": a value that
     * is valid as sent stays valid (the check of the normalized value then
     * drops the defaults, see the top of the file). */
    size_t added = 0;
    if (defaults)
        for (uint32_t i = 0; i < sn->nprops; i++)
            if (sn->props[i].dflt.doc && !(seen[i / 64] >> (i % 64) & 1))
                added++;
    if (has & (K_MINPROPS | K_MAXPROPS)) {
        uint64_t count = rig_json_len(f->val);
        if ((has & K_MINPROPS) && count + added < sn->min_props)
            return fail(c, f, F_OTHER, 0, "must have at least %llu %s",
                        (unsigned long long)sn->min_props,
                        plural(sn->min_props, "property", "properties"));
        if ((has & K_MAXPROPS) && count > sn->max_props)
            return fail(c, f, F_OTHER, 0, "must have at most %llu %s",
                        (unsigned long long)sn->max_props,
                        plural(sn->max_props, "property", "properties"));
    }
    for (uint32_t r = 0; r < sn->nreq; r++) {
        uint32_t i = sn->req[r];
        if (seen[i / 64] >> (i % 64) & 1)
            continue;
        if (defaults && sn->props[i].dflt.doc)
            continue;
        return required_fail(c, f, &sn->props[i]);
    }
    if (added) {
        for (uint32_t i = 0; i < sn->nprops; i++)
            if (sn->props[i].dflt.doc && !(seen[i / 64] >> (i % 64) & 1))
                if (log_edit(c, E_DEFAULT, f->val, sn->props[i].dflt, &sn->props[i]))
                    return RIG_ENOMEM;
        if (touch(c, f))
            return RIG_ENOMEM;
    }
    return 0;
}

static int check_object(vctx *c, const snode *sn, const frame *f)
{
    uint64_t small[4] = {0, 0, 0, 0};
    if (sn->nprops <= 256)
        return check_members(c, sn, f, small);
    uint64_t *seen = calloc((sn->nprops + 63) / 64, sizeof *seen);
    if (!seen)
        return oom(c);
    int rc = check_members(c, sn, f, seen);
    free(seen);
    return rc;
}

/* ---------------------------------------------------------------- anyOf, oneOf, not */

/* All branches failed: say so, with the closest branch's own failure. The
 * branches ran quietly; the closest (the one that got deepest into the
 * value, a type mismatch counting as not getting in) runs again for its
 * message. When every branch wanted another type right here, the message is
 * just the types. */
static NOINLINE int branches_fail(vctx *c, const uint32_t *b, uint32_t nb, const frame *f,
                                  bool one, uint32_t best, unsigned best_level, int best_kind,
                                  bool all_type, unsigned want)
{
    const char *kw = one ? "oneOf" : "anyOf";
    if (all_type) {
        char types[120];
        types_text(want, types, sizeof types);
        return fail(c, f, F_TYPE, want, "expected %s, got %s", types, class_name(classify(f->val)));
    }
    if (c->quiet) {
        c->fail_level = best_level;
        c->fail_kind = (uint8_t)best_kind;
        return RIG_EVALIDATE;
    }
    rig_error *saved = c->err, *inner = malloc(sizeof *inner);
    if (!inner)
        return oom(c);
    rig_error_clear(inner);
    c->err = inner;
    size_t mark = c->nlog;
    int rc = check(c, b[best], f);
    truncate_log(c, mark);
    c->err = saved;
    if (rc == RIG_ENOMEM || c->hard) {
        if (c->hard && rc != RIG_ENOMEM)
            rig_error_set(saved, inner->code, "%s", inner->message);
        free(inner);
        return rc ? rc : RIG_EVALIDATE;
    }
    if (rc == 0 || !inner->message[0]) /* cannot happen: the branch failed before */
        snprintf(inner->message, sizeof inner->message, "(no message)");
    cut_text(inner->message, 250);
    if (one)
        rc = fail(c, f, F_OTHER, 0,
                  "must match exactly one of %u schemas in oneOf, matched 0 (closest, "
                  "%s[%u]: %s)",
                  nb, kw, best, inner->message);
    else
        rc = fail(c, f, F_OTHER, 0,
                  "must match at least one of %u schemas in anyOf, matched 0 (closest, "
                  "%s[%u]: %s)",
                  nb, kw, best, inner->message);
    free(inner);
    c->fail_level = best_level;
    c->fail_kind = (uint8_t)best_kind;
    return rc;
}

static int check_branches(vctx *c, const uint32_t *b, uint32_t nb, const frame *f, bool one)
{
    size_t mark = c->nlog;
    uint32_t matched = 0, first = 0, second = 0, best = 0;
    unsigned best_level = 0, want = 0;
    int best_kind = F_TYPE;
    bool all_type = true, have_best = false;
    c->quiet++;
    for (uint32_t i = 0; i < nb; i++) {
        size_t m = c->nlog;
        int rc = check(c, b[i], f);
        if (rc == 0) {
            if (matched == 0)
                first = i;
            else if (matched == 1)
                second = i;
            matched++;
            if (!one)
                break;
            if (matched > 1)
                truncate_log(c, m);
            continue;
        }
        truncate_log(c, m);
        if (rc == RIG_ENOMEM || c->hard) {
            c->quiet--;
            return rc;
        }
        if (c->fail_kind == F_TYPE && c->fail_level == f->level)
            want |= c->fail_want;
        else
            all_type = false;
        /* deeper is closer; at one depth, failing past the type check is closer */
        int kind = c->fail_level == f->level ? c->fail_kind : F_OTHER;
        if (!have_best || c->fail_level > best_level ||
            (c->fail_level == best_level && kind == F_OTHER && best_kind == F_TYPE)) {
            best = i, best_level = c->fail_level, best_kind = kind, have_best = true;
        }
    }
    c->quiet--;
    if (matched == 1 || (!one && matched))
        return 0;
    truncate_log(c, mark);
    if (matched > 1)
        return fail(c, f, F_OTHER, 0,
                    "must match exactly one of %u schemas in oneOf, matched %u (oneOf[%u] and "
                    "oneOf[%u])",
                    nb, matched, first, second);
    return branches_fail(c, b, nb, f, one, best, best_level, best_kind, all_type, want);
}

/* Under "not", coercion and defaults are off: reading "5" as 5 there could
 * only turn a value that is valid as sent into an invalid one. */
static int check_not(vctx *c, uint32_t n, const frame *f)
{
    size_t mark = c->nlog;
    unsigned flags = c->flags;
    c->flags = 0;
    c->quiet++;
    int rc = check(c, n, f);
    c->quiet--;
    c->flags = flags;
    truncate_log(c, mark);
    if (rc == RIG_ENOMEM || c->hard)
        return rc;
    if (rc == 0)
        return fail(c, f, F_OTHER, 0, "must not match the schema under \"not\"");
    return 0;
}

/* ---------------------------------------------------------------- a node */

static NOINLINE int type_fail(vctx *c, const frame *f, unsigned want, unsigned got)
{
    if (c->quiet)
        return fail(c, f, F_TYPE, want, "type");
    char types[120];
    types_text(want, types, sizeof types);
    return fail(c, f, F_TYPE, want, "expected %s, got %s", types, class_name(got));
}

static NOINLINE int const_fail(vctx *c, const snode *sn, const frame *f)
{
    if (c->quiet)
        return fail(c, f, F_OTHER, 0, "const");
    char b[100];
    put_raw(b, sizeof b, 0, sn->const_v, 80);
    return fail(c, f, F_OTHER, 0, "must be %s", b);
}

static int check_node(vctx *c, uint32_t n, const frame *f)
{
    for (;;) {
        if (n == SN_FALSE)
            return fail(c, f, F_OTHER, 0, "no value is allowed here");
        const snode *sn = &c->s->nodes[n];
        uint32_t has = sn->has;
        if (!has)
            return 0;
        if (++c->steps > c->budget)
            return fail_hard(c, f, "the schema is too complex to check this value");
        unsigned cls = classify(f->val);
        if ((has & K_TYPE) && !(sn->types & cls))
            return type_fail(c, f, sn->types, cls);
        if ((has & K_ENUM) && !in_enum(sn, f->val))
            return enum_fail(c, sn, f);
        if ((has & K_CONST) && !rig_json_equal(f->val, sn->const_v))
            return const_fail(c, sn, f);
        int rc = 0;
        switch (cls) {
        case T_INT:
        case T_NUM:
            if (has & K_NUMBER_KW)
                rc = check_number(c, sn, f);
            break;
        case T_STRING:
            if (has & K_STRING_KW)
                rc = check_string(c, sn, f);
            break;
        case T_ARRAY:
            if (has & K_ARRAY_KW)
                rc = check_array(c, sn, f);
            break;
        case T_OBJECT:
            if (has & K_OBJECT_KW)
                rc = check_object(c, sn, f);
            break;
        default: break;
        }
        if (rc)
            return rc;
        if (has & K_ALLOF)
            for (uint32_t i = 0; i < sn->nall; i++)
                if ((rc = check(c, sn->all[i], f)) != 0)
                    return rc;
        if ((has & K_ANYOF) && (rc = check_branches(c, sn->any, sn->nany, f, false)) != 0)
            return rc;
        if ((has & K_ONEOF) && (rc = check_branches(c, sn->one, sn->none, f, true)) != 0)
            return rc;
        if ((has & K_NOT) && (rc = check_not(c, sn->not_, f)) != 0)
            return rc;
        if (!(has & K_REF))
            return 0;
        n = sn->ref; /* $ref adds a schema, not a level: loop, don't recurse */
    }
}

static int check(vctx *c, uint32_t n, const frame *f)
{
    if (n == SN_TRUE)
        return 0;
    if (c->frames >= MAX_FRAMES)
        return fail_hard(c, f, "nesting too deep (the schema applies more than %u levels here)",
                         MAX_FRAMES);
    c->frames++;
    int rc = check_node(c, n, f);
    c->frames--;
    return rc;
}

/* ---------------------------------------------------------------- coercion */

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* A string where the schema wants a number, integer, boolean, array or
 * object (and not a string), read strictly as one. Returns 0 with f->val
 * replaced, or 0 with nothing changed when the string is not such a value. */
static NOINLINE int coerce(vctx *c, uint8_t eff, frame *f)
{
    size_t len;
    const char *p = string_bytes(c, f->val, &len, false);
    if (!p)
        return oom(c);
    const char *end = p + len;
    while (p < end && is_space(*p))
        p++;
    while (end > p && is_space(end[-1]))
        end--;
    if (p == end)
        return 0;
    unsigned want;
    if (*p == '-' || (*p >= '0' && *p <= '9'))
        want = eff & (T_INT | T_NUM);
    else if (*p == '[')
        want = eff & T_ARRAY;
    else if (*p == '{')
        want = eff & T_OBJECT;
    else if ((eff & T_BOOL) && (size_t)(end - p) == len &&
             ((len == 4 && memcmp(p, "true", 4) == 0) || (len == 5 && memcmp(p, "false", 5) == 0)))
        want = T_BOOL;
    else
        return 0;
    if (!want)
        return 0;
    rig_json_options opt = {0, 0, RIG_JSON_COPY_INPUT};
    rig_json_error je;
    rig_json_doc *d = rig_json_parse(p, (size_t)(end - p), &opt, &je);
    if (!d)
        return je.code == RIG_JSON_ENOMEM ? oom(c) : 0;
    rig_json_val root = rig_json_doc_root(d);
    if (!(classify(root) & want)) {
        rig_json_doc_free(d);
        return 0;
    }
    if (c->ndocs == c->capdocs) {
        size_t nc = c->capdocs ? c->capdocs * 2 : 4;
        rig_json_doc **q = realloc(c->docs, nc * sizeof *q);
        if (!q) {
            rig_json_doc_free(d);
            return oom(c);
        }
        c->docs = q;
        c->capdocs = nc;
    }
    c->docs[c->ndocs++] = d;
    c->budget += 64 * (uint64_t)rig_json_doc_size(d);
    if (log_edit(c, E_REPLACE, f->val, root, NULL) || (f->up && touch(c, f->up)))
        return RIG_ENOMEM;
    f->val = root;
    return 0;
}

/* Entering a value: limits, then coercion, then the checks. */
static int descend(vctx *c, uint32_t n, frame *f)
{
    if (f->level > MAX_LEVELS)
        return fail_hard(c, f, "nesting too deep (more than %u levels)", MAX_LEVELS);
    if (c->flags & RIG_VALIDATE_COERCE) {
        uint8_t eff = c->s->nodes[n].eff_types;
        if (!(eff & T_STRING) && (eff & (T_BOOL | T_INT | T_NUM | T_ARRAY | T_OBJECT)) &&
            rig_json_is_string(f->val)) {
            int rc = coerce(c, eff, f);
            if (rc)
                return rc;
        }
    }
    return check(c, n, f);
}

/* ---------------------------------------------------------------- writing */

typedef struct wslot {
    rig_json_val v;
    int64_t replace; /* log index, or -1 */
    int64_t dflt;    /* first DEFAULT's log index, or -1 */
    bool touched;
} wslot;

typedef struct wctx {
    vctx *c;
    wslot *slots;
    size_t mask;
    rig_json_writer *w;
    char *key;
    size_t keycap;
} wctx;

static wslot *slot_of(wctx *w, rig_json_val v, bool add)
{
    uint64_t h = mix((uint64_t)(uintptr_t)v.doc * 31 + v.idx);
    for (size_t i = (size_t)h & w->mask;; i = (i + 1) & w->mask) {
        wslot *s = &w->slots[i];
        if (!s->v.doc) {
            if (!add)
                return NULL;
            *s = (wslot){v, -1, -1, false};
            return s;
        }
        if (same_val(s->v, v))
            return s;
    }
}

static int write_key(wctx *w, rig_json_val k)
{
    const char *p;
    size_t n;
    if (rig_json_str_view(k, &p, &n))
        return rig_json_write_keyn(w->w, p, n);
    n = rig_json_str_len(k);
    if (n + 1 > w->keycap) {
        char *b = realloc(w->key, n + 1);
        if (!b)
            return RIG_JSON_ENOMEM;
        w->key = b;
        w->keycap = n + 1;
    }
    rig_json_str_copy(k, w->key, w->keycap, &n);
    return rig_json_write_keyn(w->w, w->key, n);
}

static int write_val(wctx *w, rig_json_val v)
{
    wslot *s = slot_of(w, v, false);
    if (s && s->replace >= 0)
        return write_val(w, w->c->log[s->replace].with);
    if (!s || (!s->touched && s->dflt < 0))
        return rig_json_write_value(w->w, v);
    int rc;
    if (rig_json_is_array(v)) {
        rig_json_write_array_begin(w->w);
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val e;
        while (rig_json_iter_next(&it, &e))
            if ((rc = write_val(w, e)) != 0)
                return rc;
        return rig_json_write_array_end(w->w);
    }
    if (!rig_json_is_object(v))
        return rig_json_write_value(w->w, v);
    rig_json_write_object_begin(w->w);
    rig_json_iter it = rig_json_iter_init(v);
    rig_json_val k, e;
    while (rig_json_iter_member(&it, &k, &e)) {
        if ((rc = write_key(w, k)) != 0 || (rc = write_val(w, e)) != 0)
            return rc;
    }
    /* defaults, each name once (allOf members may add the same one) */
    const edit *log = w->c->log;
    for (int64_t i = s->dflt; i >= 0; i = log[i].next == UINT32_MAX ? -1 : (int64_t)log[i].next) {
        const sprop *p = log[i].prop;
        bool again = false;
        for (int64_t j = s->dflt; j != i && !again;
             j = log[j].next == UINT32_MAX ? -1 : (int64_t)log[j].next)
            again = log[j].prop->len == p->len && memcmp(log[j].prop->name, p->name, p->len) == 0;
        if (again)
            continue;
        size_t rl;
        const char *raw = rig_json_raw(log[i].with, &rl);
        rig_json_write_keyn(w->w, p->name, p->len);
        if ((rc = rig_json_write_raw(w->w, raw, rl)) != 0)
            return rc;
    }
    return rig_json_write_object_end(w->w);
}

/* Writes the instance with the logged edits applied. */
static int write_normalized(vctx *c, rig_json_val root, rig_json_writer *out)
{
    wctx w = {c, NULL, 0, out, NULL, 0};
    size_t size = 16;
    while (size < c->nlog * 2)
        size *= 2;
    w.slots = calloc(size, sizeof *w.slots);
    if (!w.slots)
        return RIG_JSON_ENOMEM;
    w.mask = size - 1;
    for (size_t i = 0; i < c->nlog; i++) {
        edit *e = &c->log[i];
        wslot *s = slot_of(&w, e->at, true);
        e->next = UINT32_MAX;
        if (e->kind == E_REPLACE && s->replace < 0) {
            s->replace = (int64_t)i;
        } else if (e->kind == E_DEFAULT) {
            if (s->dflt < 0) {
                s->dflt = (int64_t)i;
            } else {
                int64_t j = s->dflt;
                while (c->log[j].next != UINT32_MAX)
                    j = c->log[j].next;
                c->log[j].next = (uint32_t)i;
            }
        } else if (e->kind == E_TOUCH) {
            s->touched = true;
        }
    }
    int rc = write_val(&w, root);
    free(w.slots);
    free(w.key);
    return rc;
}

/* ---------------------------------------------------------------- entry */

static void vctx_init(vctx *c, const rig_schema *s, unsigned flags, rig_error *err,
                      rig_json_val root)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->flags = flags;
    c->err = err;
    c->budget = 1000000 + 256 * (uint64_t)rig_json_doc_size(root.doc);
}

static void vctx_free(vctx *c)
{
    for (size_t i = 0; i < c->ndocs; i++)
        rig_json_doc_free(c->docs[i]);
    free(c->docs);
    free(c->log);
    free(c->buf);
    if (c->md)
        pcre2_match_data_free(c->md);
}

static int run(vctx *c, rig_json_val root)
{
    frame top = {NULL, root, {NULL, 0}, 0, 0};
    return descend(c, c->s->top, &top);
}

bool rig__schema_fits(const rig_schema *s, uint32_t n, rig_json_val v)
{
    rig_error ignored;
    vctx c;
    vctx_init(&c, s, 0, &ignored, v);
    frame top = {NULL, v, {NULL, 0}, 0, 0};
    int rc = descend(&c, n, &top);
    vctx_free(&c);
    return rc == 0;
}

int rig_schema_validate(const rig_schema *s, rig_json_val instance, unsigned flags,
                        rig_json_writer *out, bool *changed, rig_error *err)
{
    if (changed)
        *changed = false;
    rig_error local;
    if (!err)
        err = &local;
    if (!s)
        return rig_error_set(err, RIG_EINVAL, "no schema");
    if (flags & ~(unsigned)(RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS))
        return rig_error_set(err, RIG_EINVAL, "unknown validation flags 0x%x", flags);
    if (!rig_json_exists(instance))
        return rig_error_set(err, RIG_EVALIDATE, "at the top level: no value");

    vctx c;
    vctx_init(&c, s, flags, err, instance);
    int rc = run(&c, instance);
    if (rc == RIG_EVALIDATE && flags) {
        /* Normalizing never rejects a value that is valid as sent (a
         * coercion can make a second oneOf branch match); the message of
         * the normalizing pass says more, so it stays when both fail. */
        vctx raw;
        rig_error ignored;
        vctx_init(&raw, s, 0, &ignored, instance);
        if (run(&raw, instance) == 0) {
            rig_error_clear(err);
            rc = 0;
            c.nlog = 0;
        }
        vctx_free(&raw);
    }
    if (rc || c.nlog == 0) {
        vctx_free(&c);
        return rc;
    }
    if (s->settles) {
        /* Nothing can see the edits from another angle (schema.c, settles):
         * the first pass's verdict is the normalized value's. */
        rc = 0;
        if (out) {
            int wr = write_normalized(&c, instance, out);
            if (wr || rig_json_writer_error(out))
                rc = rig_error_set(err, wr == RIG_JSON_ENOMEM ||
                                            rig_json_writer_error(out) == RIG_JSON_ENOMEM
                                        ? RIG_ENOMEM
                                        : RIG_EINVAL,
                                   "cannot write the normalized value to the output writer");
        }
        if (changed && rc == 0)
            *changed = true;
        vctx_free(&c);
        return rc;
    }

    /* Something changed: write it, and check what was written (see the top
     * of this file) until it validates without change. */
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_doc *doc = NULL;
    const char *text = NULL;
    size_t len = 0;
    rig_error later;
    rig_error_clear(&later);
    for (int pass = 0; pass < MAX_PASSES; pass++) {
        rig_json_writer_reset(&w);
        int wr = write_normalized(&c, pass == 0 ? instance : rig_json_doc_root(doc), &w);
        text = wr ? NULL : rig_json_writer_finish(&w, &len);
        if (!text) {
            rc = rig_json_writer_error(&w) == RIG_JSON_ENOMEM || wr == RIG_JSON_ENOMEM
                     ? rig_error_set(err, RIG_ENOMEM, "out of memory")
                     : rig_error_set(err, RIG_EINVAL, "cannot write the normalized value");
            goto done;
        }
        rig_json_doc *next = rig_json_doc_new();
        rig_json_options opt = {RIG_JSON_MAX_SIZE_LIMIT, UINT32_MAX, RIG_JSON_COPY_INPUT};
        int prc = next ? rig_json_doc_parse(next, text, len, &opt, NULL) : RIG_JSON_ENOMEM;
        if (prc != 0) {
            rig_json_doc_free(next);
            rc = prc == RIG_JSON_ENOMEM
                     ? rig_error_set(err, RIG_ENOMEM, "out of memory")
                     : rig_error_set(err, RIG_EINVAL, "the normalized value is too large (%s)",
                                     rig_json_strerror(prc));
            goto done;
        }
        vctx_free(&c);
        rig_json_doc_free(doc);
        doc = next;
        vctx_init(&c, s, flags, &later, rig_json_doc_root(doc));
        rc = run(&c, rig_json_doc_root(doc));
        if (rc == RIG_ENOMEM) {
            rig_error_set(err, RIG_ENOMEM, "out of memory");
            goto done;
        }
        if (rc)
            break;
        if (c.nlog == 0)
            goto settled;
        /* it changed again; the text no longer is the final value */
    }
    /* The normalized value is invalid, or does not settle: take the instance
     * as it was sent, if it is valid as such. */
    vctx_free(&c);
    vctx_init(&c, s, 0, err, instance);
    rc = run(&c, instance);
    if (rc && later.code == RIG_EVALIDATE)
        rig_error_set(err, RIG_EVALIDATE, "%s (after coercion and defaults were applied)",
                      later.message);
    goto done;

settled:
    rc = 0;
    if (out && rig_json_write_raw(out, text, len) != 0)
        rc = rig_error_set(err, rig_json_writer_error(out) == RIG_JSON_ENOMEM ? RIG_ENOMEM
                                                                              : RIG_EINVAL,
                           "cannot write the normalized value to the output writer");
    if (changed && rc == 0)
        *changed = true;
done:
    vctx_free(&c);
    rig_json_doc_free(doc);
    rig_json_writer_free(&w);
    return rc;
}
