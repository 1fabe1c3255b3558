/* fuzz_json_write.c — the streaming writer, driven by a little program.
 *
 * The input is a sequence of operations (see enum op); byte 0 holds options.
 * The same program drives two writers, compact and pretty, side by side. The
 * harness keeps its own model of where a key, a value or an end may come:
 *
 *   - a call the model allows must return 0, a call it does not must return
 *     RIG_JSON_EUSAGE, and after the first error every call returns it again
 *     (errors are sticky) and finish gives NULL;
 *   - when finish gives text, it is valid UTF-8, jansson parses it (or refuses
 *     only what jansson cannot hold: a NUL byte in a key, an integer beyond
 *     int64 from write_uint, nesting past its depth limit) and rig parses it,
 *     and both read back the value the model built: strings as given with each
 *     byte that is not part of well-formed UTF-8 replaced by U+FFFD (computed
 *     here, independently), ints exactly, doubles bit for bit, NaN and
 *     infinities as null;
 *   - the pretty text minus its layout whitespace is the compact text;
 *   - every double also goes through rig_json_format_double on its own: strtod
 *     of the text gives the same bits, and no text with one significant digit
 *     fewer reads back as the same double (the correctly rounded shorter form
 *     and its two neighbours are tried, so the text is the shortest); ints and
 *     uints are written alone and compared with printf's digits. */
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    json_object_seed(1);
    return 0;
}

enum op {
    OP_OBJ_BEGIN,
    OP_OBJ_END,
    OP_ARR_BEGIN,
    OP_ARR_END,
    OP_KEYN,     /* length byte, bytes */
    OP_KEY,      /* the same, as a C string: stops at the first NUL */
    OP_STRINGN,  /* length byte, bytes */
    OP_STRING,   /* the same, as a C string */
    OP_INT,      /* 8 bytes */
    OP_UINT,     /* 8 bytes */
    OP_DOUBLE,   /* 8 bytes: any bit pattern */
    OP_DECIMAL,  /* 4 bytes mantissa, 1 byte exponent: strtod("me+x"), short forms */
    OP_BOOL,     /* 1 byte */
    OP_NULL,
    OP_CLOSE,    /* whatever closes the innermost container correctly */
    OP_RAW,      /* length byte, bytes: written with write_raw when they are one
                    JSON value that both rig and jansson accept, else skipped */
    OP_COUNT
};

/* ---- bytes of the program */

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static size_t take(reader *r, void *out, size_t n) {
    size_t have = (size_t)(r->end - r->p);
    if (n > have)
        n = have;
    if (n)
        memcpy(out, r->p, n);
    r->p += n;
    return n;
}

static uint8_t take_byte(reader *r) {
    uint8_t b = 0;
    take(r, &b, 1);
    return b;
}

static uint64_t take_u64(reader *r) {
    uint8_t b[8] = {0};
    take(r, b, 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* ---- expectations */

/* s with every byte that does not start a well-formed sequence replaced by
 * U+FFFD; malloc'd, length in *olen. */
static char *expect_string(const uint8_t *s, size_t n, size_t *olen) {
    char *o = malloc(3 * n + 1);
    FUZZ_CHECK(o, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t len = fz_utf8_seq(s, i, n);
        if (len) {
            memcpy(o + k, s + i, len);
            k += len;
            i += len;
        } else {
            memcpy(o + k, "\xEF\xBF\xBD", 3);
            k += 3;
            i++;
        }
    }
    *olen = k;
    return o;
}

/* Significant digits of a decimal text: those of the mantissa, less leading
 * and trailing zeros. */
static int significant_digits(const char *t) {
    char d[64];
    int n = 0;
    for (const char *q = t; *q && *q != 'e' && *q != 'E'; q++)
        if (*q >= '0' && *q <= '9' && n < 63)
            d[n++] = *q;
    int a = 0, b = n;
    while (a < b && d[a] == '0')
        a++;
    while (b > a && d[b - 1] == '0')
        b--;
    return b - a;
}

static bool reads_back(const char *t, double v) { return fz_same_bits(strtod(t, NULL), v); }

static void check_format_double(double v) {
    char buf[32];
    memset(buf, 'x', sizeof buf);
    size_t n = rig_json_format_double(v, buf);
    FUZZ_CHECK(n < 32 && buf[n] == '\0' && strlen(buf) == n, "format_double: bad length %zu", n);
    if (!isfinite(v)) {
        FUZZ_CHECK(strcmp(buf, "null") == 0, "format_double(%g) gives '%s'", v, buf);
        return;
    }
    FUZZ_CHECK(reads_back(buf, v), "format_double(%a) gives '%s', which reads back as %a", v, buf,
               strtod(buf, NULL));
    /* JSON number grammar, with a '.' or exponent so it reads back as a double */
    json_error_t jerr;
    json_t *j = json_loadb(buf, n, JSON_DECODE_ANY, &jerr);
    FUZZ_CHECK(j && json_is_real(j) && fz_same_bits(json_real_value(j), v),
               "format_double(%a) gives '%s', not a JSON real jansson reads back (%s)", v, buf,
               j ? "" : jerr.text);
    json_decref(j);
    if (v == 0) {
        FUZZ_CHECK(strcmp(buf, signbit(v) ? "-0.0" : "0.0") == 0, "format_double(%a) gives '%s'",
                   v, buf);
        return;
    }
    int digits = significant_digits(buf);
    FUZZ_CHECK(digits >= 1 && digits <= 17, "format_double(%a) gives '%s': %d digits", v, buf,
               digits);
    if (digits == 1)
        return;
    /* Any text of digits-1 significant digits that reads back lies within half
     * an ulp of v, so it is v rounded to digits-1 digits or the neighbour on
     * the other side: try the rounded form and both its neighbours. */
    int fewer = digits - 1;
    char t[64];
    snprintf(t, sizeof t, "%.*e", fewer - 1, v);
    FUZZ_CHECK(!reads_back(t, v), "format_double(%a) gives '%s' but '%s' is shorter", v, buf, t);
    bool neg = t[0] == '-';
    uint64_t m = 0;
    const char *q = t + neg;
    for (; *q != 'e'; q++)
        if (*q >= '0' && *q <= '9')
            m = m * 10 + (uint64_t)(*q - '0');
    int e10 = atoi(q + 1) - (fewer - 1); /* v ~ m * 10^e10 */
    for (int dir = -1; dir <= 1; dir += 2) {
        uint64_t mm = m + (uint64_t)(int64_t)dir;
        if (mm == 0)
            continue;
        snprintf(t, sizeof t, "%s%" PRIu64 "e%d", neg ? "-" : "", mm, e10);
        FUZZ_CHECK(!reads_back(t, v), "format_double(%a) gives '%s' but '%s' is shorter", v, buf,
                   t);
    }
}

static void check_format_int(int64_t v, bool is_unsigned) {
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    int rc = is_unsigned ? rig_json_write_uint(&w, (uint64_t)v) : rig_json_write_int(&w, v);
    size_t len = 0;
    const char *out = rig_json_writer_finish(&w, &len);
    char want[32];
    if (is_unsigned)
        snprintf(want, sizeof want, "%" PRIu64, (uint64_t)v);
    else
        snprintf(want, sizeof want, "%" PRId64, v);
    FUZZ_CHECK(rc == 0 && out && strcmp(out, want) == 0 && len == strlen(want),
               "writing %s gives '%s'", want, out ? out : "(null)");
    rig_json_writer_free(&w);
}

/* ---- the model */

typedef struct model {
    json_t *stack[4096]; /* open containers (borrowed from root) */
    char kinds[4096];    /* 'o' or 'a' */
    size_t depth;
    json_t *root;        /* the whole value, once begun */
    char *key;           /* a key waiting for its value */
    size_t keylen;
    bool done;           /* a complete top-level value was written */
    int err;             /* the sticky error expected */
    bool nul_key;        /* some key holds a NUL byte: jansson cannot read it */
    bool big_uint;       /* some uint beyond int64: jansson cannot read it */
} model;

static bool expecting_key(const model *m) {
    return m->depth && m->kinds[m->depth - 1] == 'o' && !m->key;
}

static bool value_allowed(const model *m) {
    if (m->done)
        return false;
    return !expecting_key(m);
}

/* Puts v where the model says the next value goes (value_allowed held). */
static void place(model *m, json_t *v, bool container) {
    FUZZ_CHECK(v, "out of memory");
    if (!m->depth) {
        m->root = v;
        if (!container)
            m->done = true;
    } else if (m->kinds[m->depth - 1] == 'a') {
        json_array_append_new(m->stack[m->depth - 1], v);
    } else {
        json_object_setn_new_nocheck(m->stack[m->depth - 1], m->key, m->keylen, v);
        free(m->key);
        m->key = NULL;
    }
    if (container) {
        m->stack[m->depth] = v;
        m->kinds[m->depth] = json_is_object(v) ? 'o' : 'a';
        m->depth++;
    }
}

/* Both writers got the same call; check both results against the model. */
static void expect(model *m, bool allowed, int rc_compact, int rc_pretty, const char *what) {
    int want = m->err ? m->err : allowed ? 0 : RIG_JSON_EUSAGE;
    FUZZ_CHECK(rc_compact == want && rc_pretty == want,
               "%s: compact writer returns %d, pretty %d, the model expects %d", what, rc_compact,
               rc_pretty, want);
    if (want)
        m->err = want;
}

/* ---- reading the output back */


static void check_output(const model *m, const char *out, size_t len, const char *mode) {
    FUZZ_CHECK(out[len] == '\0', "%s output not NUL-terminated", mode);
    FUZZ_CHECK(fz_utf8_valid((const uint8_t *)out, len), "%s output is not valid UTF-8", mode);
    char why[200] = "";

    json_error_t jerr;
    json_t *j = json_loadb(out, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (j) {
        FUZZ_CHECK(fz_jj_equal(j, m->root, 0), "jansson reads the %s output as another value",
                   mode);
        json_decref(j);
    } else {
        enum json_error_code c = json_error_code(&jerr);
        FUZZ_CHECK((c == json_error_null_byte_in_key && m->nul_key) ||
                       (c == json_error_numeric_overflow && m->big_uint) ||
                       c == json_error_stack_overflow,
                   "jansson rejects the %s output: %s\n%.*s", mode, jerr.text,
                   (int)(len < 300 ? len : 300), out);
    }

    rig_json_error err;
    rig_json_doc *d = rig_json_parse(out, len, &(rig_json_options){0, 100000, 0}, &err);
    FUZZ_CHECK(d, "rig rejects the %s output: %d %s at %zu", mode, err.code, err.reason,
               err.offset);
    FUZZ_CHECK(fz_rj_equal(rig_json_doc_root(d), m->root, 0, why, sizeof why),
               "rig reads the %s output as another value: %s", mode, why);
    rig_json_doc_free(d);
}

/* ---- the target */

static model M; /* large; one input at a time */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    reader r = {data + 1, data + size};
    unsigned opts = data[0];
    bool autocomplete = opts & 1, detach = opts & 2;

    model *m = &M;
    memset(m, 0, sizeof *m);
    rig_json_writer wc, wp;
    rig_json_writer_init(&wc, 0);
    rig_json_writer_init(&wp, RIG_JSON_WRITE_PRETTY);
    uint8_t bytes[512];

    while (r.p < r.end) {
        enum op op = (enum op)(take_byte(&r) % OP_COUNT);
        int rc = 0, rp = 0;
        switch (op) {
        case OP_OBJ_BEGIN:
        case OP_ARR_BEGIN: {
            bool ok = !m->err && value_allowed(m) && m->depth < sizeof m->kinds;
            if (m->depth >= sizeof m->kinds && !m->err)
                break; /* the model is full: skip the call */
            rc = op == OP_OBJ_BEGIN ? rig_json_write_object_begin(&wc) : rig_json_write_array_begin(&wc);
            rp = op == OP_OBJ_BEGIN ? rig_json_write_object_begin(&wp) : rig_json_write_array_begin(&wp);
            expect(m, ok, rc, rp, op == OP_OBJ_BEGIN ? "object_begin" : "array_begin");
            if (ok)
                place(m, op == OP_OBJ_BEGIN ? json_object() : json_array(), true);
            break;
        }
        case OP_OBJ_END:
        case OP_ARR_END:
        case OP_CLOSE: {
            char kind = op == OP_OBJ_END ? 'o' : op == OP_ARR_END ? 'a' : 0;
            if (op == OP_CLOSE) {
                if (m->err || !m->depth)
                    break;
                kind = m->kinds[m->depth - 1];
                if (m->key) { /* a key waits for its value: give it null */
                    rc = rig_json_write_null(&wc);
                    rp = rig_json_write_null(&wp);
                    expect(m, true, rc, rp, "null before close");
                    place(m, json_null(), false);
                }
            }
            bool ok = !m->err && m->depth && m->kinds[m->depth - 1] == kind && !m->key;
            rc = kind == 'o' ? rig_json_write_object_end(&wc) : rig_json_write_array_end(&wc);
            rp = kind == 'o' ? rig_json_write_object_end(&wp) : rig_json_write_array_end(&wp);
            expect(m, ok, rc, rp, kind == 'o' ? "object_end" : "array_end");
            if (ok && --m->depth == 0)
                m->done = true;
            break;
        }
        case OP_KEYN:
        case OP_KEY: {
            size_t n = take(&r, bytes, take_byte(&r) % 48);
            if (op == OP_KEY)
                n = strnlen((const char *)bytes, n);
            bytes[n] = '\0';
            bool ok = !m->err && expecting_key(m);
            if (op == OP_KEY) {
                rc = rig_json_write_key(&wc, (const char *)bytes);
                rp = rig_json_write_key(&wp, (const char *)bytes);
            } else {
                rc = rig_json_write_keyn(&wc, (const char *)bytes, n);
                rp = rig_json_write_keyn(&wp, (const char *)bytes, n);
            }
            expect(m, ok, rc, rp, "key");
            if (ok) {
                m->key = expect_string(bytes, n, &m->keylen);
                if (memchr(m->key, '\0', m->keylen))
                    m->nul_key = true;
            }
            break;
        }
        case OP_STRINGN:
        case OP_STRING: {
            size_t n = take(&r, bytes, take_byte(&r));
            if (n == 255) /* sometimes a longer string, for the SSE2 runs */
                n += take(&r, bytes + 255, 255);
            if (op == OP_STRING)
                n = strnlen((const char *)bytes, n);
            bytes[n] = '\0';
            bool ok = !m->err && value_allowed(m);
            if (op == OP_STRING) {
                rc = rig_json_write_string(&wc, (const char *)bytes);
                rp = rig_json_write_string(&wp, (const char *)bytes);
            } else {
                rc = rig_json_write_stringn(&wc, (const char *)bytes, n);
                rp = rig_json_write_stringn(&wp, (const char *)bytes, n);
            }
            expect(m, ok, rc, rp, "string");
            if (ok) {
                size_t el;
                char *e = expect_string(bytes, n, &el);
                place(m, json_stringn_nocheck(e, el), false);
                free(e);
            }
            break;
        }
        case OP_INT:
        case OP_UINT: {
            uint64_t u = take_u64(&r);
            bool ok = !m->err && value_allowed(m);
            if (op == OP_INT) {
                rc = rig_json_write_int(&wc, (int64_t)u);
                rp = rig_json_write_int(&wp, (int64_t)u);
            } else {
                rc = rig_json_write_uint(&wc, u);
                rp = rig_json_write_uint(&wp, u);
            }
            expect(m, ok, rc, rp, "int");
            check_format_int((int64_t)u, op == OP_UINT);
            if (ok) {
                if (op == OP_UINT && u > (uint64_t)INT64_MAX) {
                    m->big_uint = true; /* rig reads it as the nearest double */
                    place(m, json_real((double)u), false);
                } else {
                    place(m, json_integer((json_int_t)u), false);
                }
            }
            break;
        }
        case OP_DOUBLE:
        case OP_DECIMAL: {
            double v;
            if (op == OP_DOUBLE) {
                uint64_t u = take_u64(&r);
                memcpy(&v, &u, 8);
            } else {
                uint8_t b[5] = {0};
                take(&r, b, 5);
                int32_t mant = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
                                         (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
                char t[40];
                snprintf(t, sizeof t, "%" PRId32 "e%d", mant, (int)(int8_t)b[4] * 3);
                v = strtod(t, NULL);
            }
            check_format_double(v);
            bool ok = !m->err && value_allowed(m);
            rc = rig_json_write_double(&wc, v);
            rp = rig_json_write_double(&wp, v);
            expect(m, ok, rc, rp, "double");
            if (ok)
                place(m, isfinite(v) ? json_real(v) : json_null(), false);
            break;
        }
        case OP_BOOL: {
            bool b = take_byte(&r) & 1;
            bool ok = !m->err && value_allowed(m);
            rc = rig_json_write_bool(&wc, b);
            rp = rig_json_write_bool(&wp, b);
            expect(m, ok, rc, rp, "bool");
            if (ok)
                place(m, json_boolean(b), false);
            break;
        }
        case OP_NULL: {
            bool ok = !m->err && value_allowed(m);
            rc = rig_json_write_null(&wc);
            rp = rig_json_write_null(&wp);
            expect(m, ok, rc, rp, "null");
            if (ok)
                place(m, json_null(), false);
            break;
        }
        case OP_RAW: {
            size_t n = take(&r, bytes, take_byte(&r) % 64);
            json_error_t je;
            json_t *v = n ? json_loadb((const char *)bytes, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je)
                          : NULL;
            rig_json_doc *d = v ? rig_json_parse((const char *)bytes, n, NULL, NULL) : NULL;
            bool usable = v && d;
            rig_json_doc_free(d);
            if (!usable) { /* not one valid value (or a jansson quirk): skip */
                json_decref(v);
                break;
            }
            bool ok = !m->err && value_allowed(m);
            rc = rig_json_write_raw(&wc, (const char *)bytes, n);
            rp = rig_json_write_raw(&wp, (const char *)bytes, n);
            expect(m, ok, rc, rp, "raw");
            if (ok)
                place(m, v, false);
            else
                json_decref(v);
            break;
        }
        case OP_COUNT: break;
        }
        FUZZ_CHECK(rig_json_writer_error(&wc) == m->err && rig_json_writer_error(&wp) == m->err,
                   "writer errors %d/%d, model %d", rig_json_writer_error(&wc),
                   rig_json_writer_error(&wp), m->err);
    }

    if (autocomplete && !m->err) {
        if (!m->root) {
            FUZZ_CHECK(rig_json_write_null(&wc) == 0 && rig_json_write_null(&wp) == 0,
                       "null into an empty writer");
            place(m, json_null(), false);
        }
        while (m->depth) {
            if (m->key) {
                FUZZ_CHECK(rig_json_write_null(&wc) == 0 && rig_json_write_null(&wp) == 0,
                           "null after a key");
                place(m, json_null(), false);
            }
            bool obj = m->kinds[m->depth - 1] == 'o';
            int rc = obj ? rig_json_write_object_end(&wc) : rig_json_write_array_end(&wc);
            int rp = obj ? rig_json_write_object_end(&wp) : rig_json_write_array_end(&wp);
            FUZZ_CHECK(rc == 0 && rp == 0, "closing: %d %d", rc, rp);
            if (--m->depth == 0)
                m->done = true;
        }
    }

    size_t lc = 0, lp = 0;
    char *oc, *op_;
    bool owned = detach;
    if (detach) {
        oc = rig_json_writer_detach(&wc, &lc);
        op_ = rig_json_writer_detach(&wp, &lp);
    } else {
        oc = (char *)rig_json_writer_finish(&wc, &lc);
        op_ = (char *)rig_json_writer_finish(&wp, &lp);
    }
    bool want_out = !m->err && m->done;
    FUZZ_CHECK((oc != NULL) == want_out && (op_ != NULL) == want_out,
               "finish gives %s/%s, the model expects %s (error %d, done %d)", oc ? "text" : "NULL",
               op_ ? "text" : "NULL", want_out ? "text" : "NULL", m->err, m->done);
    if (want_out) {
        check_output(m, oc, lc, "compact");
        check_output(m, op_, lp, "pretty");
        /* the pretty text, its layout removed, is the compact text (both
         * stripped: raw values may bring whitespace of their own) */
        size_t kc, kp;
        char *sc = fz_strip_layout(oc, lc, &kc), *sp = fz_strip_layout(op_, lp, &kp);
        FUZZ_CHECK(kc == kp && memcmp(sc, sp, kc) == 0,
                   "pretty minus layout is not compact minus layout:\n%s\n%s", oc, op_);
        free(sc);
        free(sp);
    }
    if (owned) {
        free(oc);
        free(op_);
    }
    /* a reset writer starts over */
    rig_json_writer_reset(&wc);
    FUZZ_CHECK(rig_json_writer_error(&wc) == 0 && rig_json_write_null(&wc) == 0 &&
                   rig_json_writer_finish(&wc, NULL) != NULL,
               "a reset writer does not start over");
    rig_json_writer_free(&wc);
    rig_json_writer_free(&wp);
    free(m->key);
    json_decref(m->root);
    return 0;
}
