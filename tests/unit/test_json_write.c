/* test_json_write.c — the streaming writer (rig_json_writer_*,
 * rig_json_write_*) and rig_json_format_double.
 *
 * Output is compared to exact golden strings; escaping is checked against a
 * small reference escaper written here and against jansson (an independent
 * parser) reading the output back. Number formatting is checked against
 * JavaScript's Number.prototype.toString (tables generated once with node;
 * the test itself does not need node) and by a randomized round-trip and
 * shortness property test using glibc's printf and strtod. */
#include <float.h>
#include <inttypes.h>
#include <math.h>

#include <jansson.h>

#include "testing.h"

#define FFFD "\xEF\xBF\xBD"


/* The unit tests do not link libm: neighbours and powers of two by bits. */
static double next_down(double p) { return double_of(bits_of(p) - 1); } /* p > 0 */
static double next_up(double p) { return double_of(bits_of(p) + 1); }   /* p >= 0 */
static double pow2(int k) {                                              /* -1074..1023 */
    return k >= -1022 ? double_of((uint64_t)(k + 1023) << 52) : double_of(1ull << (k + 1074));
}
static bool is_integral(double v) {
    return fabs(v) >= 9007199254740992.0 || (double)(int64_t)v == v;
}

/* Finishes w and compares its output to want (exact bytes). */
static void expect_output(rig_json_writer *w, const char *want, size_t want_len) {
    size_t len = 12345;
    const char *out = rig_json_writer_finish(w, &len);
    if (!out)
        fail_msg("finish returned NULL (error %d), expected %s", rig_json_writer_error(w), want);
    if (len != want_len || memcmp(out, want, len) != 0)
        fail_msg("output (%zu bytes)\n%.*s\nexpected (%zu bytes)\n%s", len, (int)len, out,
                 want_len, want);
    assert_int_equal(out[len], '\0');
    assert_int_equal(rig_json_writer_error(w), 0);
}
#define EXPECT(w, lit) expect_output((w), (lit), sizeof(lit) - 1)

/* Parses json with jansson (NUL allowed, any top-level value, integers read
 * as doubles so UINT64_MAX is accepted); fails the test if jansson rejects it. */
static json_t *jansson_load(const char *json, size_t len) {
    json_error_t jerr;
    json_t *j = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL,
                           &jerr);
    if (!j)
        fail_msg("jansson rejects %.200s: %s at %d", json, jerr.text, jerr.position);
    return j;
}

/* jansson decodes the JSON string in json to exactly want[0..n). */
static void jansson_string_is(const char *json, size_t len, const char *want, size_t n) {
    json_t *j = jansson_load(json, len);
    assert_true(json_is_string(j));
    if (json_string_length(j) != n || memcmp(json_string_value(j), want, n) != 0)
        fail_msg("jansson decodes %.200s to %zu bytes, expected %zu", json, json_string_length(j),
                 n);
    json_decref(j);
}

/* ---------------------------------------------------------------- reference */

/* Length of the well-formed UTF-8 sequence at p (n bytes left), or 0: decodes
 * the code point and rejects overlongs, surrogates and values past U+10FFFF. */
static size_t ref_utf8(const unsigned char *p, size_t n) {
    unsigned c = p[0], len, cp, min;
    if (c >= 0xC0 && c < 0xE0)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c < 0xF0)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c < 0xF8)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    for (unsigned i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* The JSON string the writer should produce for s[0..n): out must hold 6n+3.
 * Also the decoded text (invalid bytes as U+FFFD) in dec (3n), if not NULL. */
static size_t ref_escape(const char *s, size_t n, char *out, size_t *replaced, char *dec,
                         size_t *declen) {
    char *o = out, *d = dec;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
        } else if (c == '\b') {
            o += sprintf(o, "\\b");
        } else if (c == '\t') {
            o += sprintf(o, "\\t");
        } else if (c == '\n') {
            o += sprintf(o, "\\n");
        } else if (c == '\f') {
            o += sprintf(o, "\\f");
        } else if (c == '\r') {
            o += sprintf(o, "\\r");
        } else if (c < 0x20) {
            o += sprintf(o, "\\u%04x", c);
        } else if (c < 0x80) {
            *o++ = (char)c;
        } else {
            size_t k = ref_utf8((const unsigned char *)s + i, n - i);
            if (k) {
                memcpy(o, s + i, k);
                o += k;
                if (d) {
                    memcpy(d, s + i, k);
                    d += k;
                }
                i += k;
                continue;
            }
            memcpy(o, FFFD, 3);
            o += 3;
            if (d) {
                memcpy(d, FFFD, 3);
                d += 3;
            }
            (*replaced)++;
            i++;
            continue;
        }
        if (d)
            *d++ = (char)c;
        i++;
    }
    *o++ = '"';
    if (declen)
        *declen = (size_t)(d - dec);
    return (size_t)(o - out);
}

/* Writes s as a top-level string and checks output and replaced count against
 * the reference, and jansson's reading of the output. */
static void check_string(const char *s, size_t n) {
    char *want = malloc(6 * n + 3), *dec = malloc(3 * n + 1);
    assert_non_null(want);
    assert_non_null(dec);
    size_t replaced = 0, declen;
    size_t wl = ref_escape(s, n, want, &replaced, dec, &declen);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    char *in = exact_copy(s, n);
    assert_int_equal(rig_json_write_stringn(&w, in, n), 0);
    free(in);
    size_t len;
    const char *out = rig_json_writer_finish(&w, &len);
    assert_non_null(out);
    if (len != wl || memcmp(out, want, wl) != 0) {
        size_t i = 0;
        while (i < len && i < wl && out[i] == want[i])
            i++;
        fail_msg("string of %zu bytes: output differs at byte %zu (got %zu bytes, want %zu)", n,
                 i, len, wl);
    }
    if (w.replaced != replaced)
        fail_msg("string of %zu bytes: replaced %zu, expected %zu", n, w.replaced, replaced);
    jansson_string_is(out, len, dec, declen);
    rig_json_writer_free(&w);
    free(want);
    free(dec);
}

/* ---------------------------------------------------------------- all calls */

/* Every call once, in an object; the same sequence for compact and pretty. */
static void write_everything(rig_json_writer *w) {
    assert_int_equal(rig_json_write_object_begin(w), 0);
    assert_int_equal(rig_json_write_key(w, "s"), 0);
    assert_int_equal(rig_json_write_string(w, "x"), 0);
    assert_int_equal(rig_json_write_key(w, "min"), 0);
    assert_int_equal(rig_json_write_int(w, INT64_MIN), 0);
    assert_int_equal(rig_json_write_key(w, "max"), 0);
    assert_int_equal(rig_json_write_int(w, INT64_MAX), 0);
    assert_int_equal(rig_json_write_key(w, "zero"), 0);
    assert_int_equal(rig_json_write_int(w, 0), 0);
    assert_int_equal(rig_json_write_key(w, "neg"), 0);
    assert_int_equal(rig_json_write_int(w, -1), 0);
    assert_int_equal(rig_json_write_key(w, "u"), 0);
    assert_int_equal(rig_json_write_uint(w, UINT64_MAX), 0);
    assert_int_equal(rig_json_write_key(w, "u0"), 0);
    assert_int_equal(rig_json_write_uint(w, 0), 0);
    assert_int_equal(rig_json_write_key(w, "d"), 0);
    assert_int_equal(rig_json_write_double(w, 1.5), 0);
    assert_int_equal(rig_json_write_key(w, "di"), 0);
    assert_int_equal(rig_json_write_double(w, 2.0), 0);
    assert_int_equal(rig_json_write_key(w, "t"), 0);
    assert_int_equal(rig_json_write_bool(w, true), 0);
    assert_int_equal(rig_json_write_key(w, "f"), 0);
    assert_int_equal(rig_json_write_bool(w, false), 0);
    assert_int_equal(rig_json_write_key(w, "n"), 0);
    assert_int_equal(rig_json_write_null(w), 0);
    assert_int_equal(rig_json_write_key(w, "raw"), 0);
    assert_int_equal(rig_json_write_raw(w, "{\"r\": [1, 2]}", 13), 0);
    assert_int_equal(rig_json_write_keyn(w, "k\0z", 3), 0);
    assert_int_equal(rig_json_write_stringn(w, "a\0b", 3), 0);
    assert_int_equal(rig_json_write_key(w, "arr"), 0);
    assert_int_equal(rig_json_write_array_begin(w), 0);
    assert_int_equal(rig_json_write_int(w, 1), 0);
    assert_int_equal(rig_json_write_string(w, "two"), 0);
    assert_int_equal(rig_json_write_array_begin(w), 0);
    assert_int_equal(rig_json_write_array_end(w), 0);
    assert_int_equal(rig_json_write_object_begin(w), 0);
    assert_int_equal(rig_json_write_object_end(w), 0);
    assert_int_equal(rig_json_write_null(w), 0);
    assert_int_equal(rig_json_write_array_end(w), 0);
    assert_int_equal(rig_json_write_key(w, "o"), 0);
    assert_int_equal(rig_json_write_object_begin(w), 0);
    assert_int_equal(rig_json_write_key(w, "inner"), 0);
    assert_int_equal(rig_json_write_bool(w, false), 0);
    assert_int_equal(rig_json_write_object_end(w), 0);
    assert_int_equal(rig_json_write_key(w, "empty"), 0);
    assert_int_equal(rig_json_write_object_begin(w), 0);
    assert_int_equal(rig_json_write_object_end(w), 0);
    assert_int_equal(rig_json_write_object_end(w), 0);
}

static void test_all_calls_compact(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    write_everything(&w);
    EXPECT(&w, "{\"s\":\"x\",\"min\":-9223372036854775808,\"max\":9223372036854775807,"
               "\"zero\":0,\"neg\":-1,\"u\":18446744073709551615,\"u0\":0,\"d\":1.5,\"di\":2.0,"
               "\"t\":true,\"f\":false,\"n\":null,\"raw\":{\"r\": [1, 2]},"
               "\"k\\u0000z\":\"a\\u0000b\",\"arr\":[1,\"two\",[],{},null],"
               "\"o\":{\"inner\":false},\"empty\":{}}");
    /* rig reads it back (jansson refuses the NUL in a key) */
    size_t len;
    const char *out = rig_json_writer_finish(&w, &len);
    rig_json_doc *d = rig_json_parse(out, len, NULL, NULL);
    assert_non_null(d);
    rig_json_val root = rig_json_doc_root(d);
    assert_int_equal(rig_json_len(root), 17);
    assert_true(rig_json_str_eqn(rig_json_getn(root, "k\0z", 3), "a\0b", 3));
    int64_t i;
    assert_int_equal(rig_json_get_int64(rig_json_get(root, "min"), &i), 0);
    assert_true(i == INT64_MIN);
    assert_int_equal(rig_json_val_flags(rig_json_get(root, "u")), RIG_JSON_VAL_BIGINT);
    rig_json_doc_free(d);
    rig_json_writer_free(&w);
}

static void test_all_calls_pretty(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    write_everything(&w);
    EXPECT(&w, "{\n"
               "  \"s\": \"x\",\n"
               "  \"min\": -9223372036854775808,\n"
               "  \"max\": 9223372036854775807,\n"
               "  \"zero\": 0,\n"
               "  \"neg\": -1,\n"
               "  \"u\": 18446744073709551615,\n"
               "  \"u0\": 0,\n"
               "  \"d\": 1.5,\n"
               "  \"di\": 2.0,\n"
               "  \"t\": true,\n"
               "  \"f\": false,\n"
               "  \"n\": null,\n"
               "  \"raw\": {\"r\": [1, 2]},\n"
               "  \"k\\u0000z\": \"a\\u0000b\",\n"
               "  \"arr\": [\n"
               "    1,\n"
               "    \"two\",\n"
               "    [],\n"
               "    {},\n"
               "    null\n"
               "  ],\n"
               "  \"o\": {\n"
               "    \"inner\": false\n"
               "  },\n"
               "  \"empty\": {}\n"
               "}");
    rig_json_writer_free(&w);

    /* arrays of arrays, and top-level empties and scalars */
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_json_write_array_begin(&w);
    rig_json_write_array_begin(&w);
    rig_json_write_int(&w, 1);
    rig_json_write_int(&w, 2);
    rig_json_write_array_end(&w);
    rig_json_write_array_begin(&w);
    rig_json_write_array_end(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "a");
    rig_json_write_array_begin(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_object_end(&w);
    rig_json_write_array_end(&w);
    rig_json_write_object_end(&w);
    rig_json_write_array_end(&w);
    EXPECT(&w, "[\n  [\n    1,\n    2\n  ],\n  [],\n  {\n    \"a\": [\n      {}\n    ]\n  }\n]");
    rig_json_writer_reset(&w);
    rig_json_write_array_begin(&w);
    rig_json_write_array_end(&w);
    EXPECT(&w, "[]");
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_object_end(&w);
    EXPECT(&w, "{}");
    rig_json_writer_reset(&w);
    rig_json_write_string(&w, "top");
    EXPECT(&w, "\"top\"");
    rig_json_writer_free(&w);
}

static void test_top_level_scalars(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_null(&w);
    EXPECT(&w, "null");
    rig_json_writer_reset(&w);
    rig_json_write_bool(&w, true);
    EXPECT(&w, "true");
    rig_json_writer_reset(&w);
    rig_json_write_bool(&w, false);
    EXPECT(&w, "false");
    rig_json_writer_reset(&w);
    rig_json_write_int(&w, -42);
    EXPECT(&w, "-42");
    rig_json_writer_reset(&w);
    rig_json_write_uint(&w, 10);
    EXPECT(&w, "10");
    rig_json_writer_reset(&w);
    rig_json_write_double(&w, -0.0);
    EXPECT(&w, "-0.0");
    rig_json_writer_reset(&w);
    rig_json_write_string(&w, "");
    EXPECT(&w, "\"\"");
    rig_json_writer_reset(&w);
    rig_json_write_stringn(&w, NULL, 0); /* NULL with length 0 is the empty string */
    EXPECT(&w, "\"\"");
    rig_json_writer_reset(&w);
    rig_json_write_raw(&w, "  [1 , 2]  ", 11); /* inserted unchanged */
    EXPECT(&w, "  [1 , 2]  ");
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_keyn(&w, NULL, 0); /* likewise the empty key */
    rig_json_write_int(&w, 1);
    rig_json_write_object_end(&w);
    EXPECT(&w, "{\"\":1}");
    rig_json_writer_free(&w);
}

static void test_doubles_in_writer(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_array_begin(&w);
    double v[] = {0.1, -0.0, 1e21, NAN, INFINITY, -INFINITY, 1.0, -1e-7, 123456789.123};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_int_equal(rig_json_write_double(&w, v[i]), 0);
    rig_json_write_array_end(&w);
    EXPECT(&w, "[0.1,-0.0,1e+21,null,null,null,1.0,-1e-7,123456789.123]");
    rig_json_writer_free(&w);
}

/* int and uint against printf over boundaries and random values */
static void test_int_formatting(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    char want[32];
    size_t len;
    rng = 11;
    for (int i = 0; i < 100000; i++) {
        int64_t v;
        uint64_t u;
        switch (i) {
        case 0: v = INT64_MIN, u = UINT64_MAX; break;
        case 1: v = INT64_MAX, u = 0; break;
        case 2: v = INT64_MIN + 1, u = (uint64_t)INT64_MAX + 1; break;
        case 3: v = -1, u = 1; break;
        case 4: v = 0, u = 99; break;
        case 5: v = -10, u = 100; break;
        case 6: v = 9, u = 9999999999999999999ull; break;
        case 7: v = -99, u = 10000000000000000000ull; break;
        default:
            u = rnd() >> rnd_below(64);
            v = (int64_t)(rnd() >> rnd_below(64));
        }
        rig_json_writer_reset(&w);
        rig_json_write_int(&w, v);
        snprintf(want, sizeof want, "%" PRId64, v);
        const char *out = rig_json_writer_finish(&w, &len);
        if (!out || strcmp(out, want) != 0)
            fail_msg("int %s written as %s", want, out ? out : "(null)");
        rig_json_writer_reset(&w);
        rig_json_write_uint(&w, u);
        snprintf(want, sizeof want, "%" PRIu64, u);
        out = rig_json_writer_finish(&w, &len);
        if (!out || strcmp(out, want) != 0)
            fail_msg("uint %s written as %s", want, out ? out : "(null)");
    }
    rig_json_writer_free(&w);
}

/* ---------------------------------------------------------------- escaping */

static void test_escape_control_bytes(void **state) {
    (void)state;
    static const char *const want[0x20] = {
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
        "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
        "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    };
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    char exp[32];
    for (unsigned c = 0; c < 0x20; c++) {
        char in = (char)c;
        rig_json_writer_reset(&w);
        assert_int_equal(rig_json_write_stringn(&w, &in, 1), 0);
        int n = snprintf(exp, sizeof exp, "\"%s\"", want[c]);
        expect_output(&w, exp, (size_t)n);
        jansson_string_is(exp, (size_t)n, &in, 1);
    }
    /* quote, backslash; slash and DEL are not escaped */
    rig_json_writer_reset(&w);
    rig_json_write_string(&w, "\"\\/\x7F");
    EXPECT(&w, "\"\\\"\\\\/\x7F\"");
    /* all 128 ASCII bytes in one string */
    char all[128];
    for (int i = 0; i < 128; i++)
        all[i] = (char)i;
    rig_json_writer_reset(&w);
    rig_json_write_stringn(&w, all, 128);
    EXPECT(&w, "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r"
               "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018"
               "\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f !\\\"#$%&'()*+,-./0123456789"
               ":;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7F\"");
    size_t len;
    const char *out = rig_json_writer_finish(&w, &len);
    jansson_string_is(out, len, all, 128);
    assert_int_equal(w.replaced, 0);
    /* the same escapes in keys */
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_keyn(&w, "\"\n\0\x1f/", 5);
    rig_json_write_null(&w);
    rig_json_write_object_end(&w);
    EXPECT(&w, "{\"\\\"\\n\\u0000\\u001f/\":null}");
    rig_json_writer_free(&w);
}

static void test_escape_valid_utf8_raw(void **state) {
    (void)state;
    static const char *const cases[] = {
        "\xC2\x80",         /* U+0080 */
        "\xC3\xA9",         /* é */
        "\xDF\xBF",         /* U+07FF */
        "\xE0\xA0\x80",     /* U+0800 */
        "\xE2\x82\xAC",     /* € */
        "\xED\x9F\xBF",     /* U+D7FF */
        "\xEE\x80\x80",     /* U+E000 */
        "\xEF\xBF\xBD",     /* U+FFFD itself */
        "\xEF\xBF\xBF",     /* U+FFFF */
        "\xF0\x90\x80\x80", /* U+10000 */
        "\xF0\x9F\x98\x80", /* 😀 */
        "\xF4\x8F\xBF\xBF", /* U+10FFFF */
        "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC",
    };
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    char exp[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rig_json_writer_reset(&w);
        assert_int_equal(rig_json_write_string(&w, cases[i]), 0);
        int n = snprintf(exp, sizeof exp, "\"%s\"", cases[i]);
        expect_output(&w, exp, (size_t)n);
        assert_int_equal(w.replaced, 0);
        jansson_string_is(exp, (size_t)n, cases[i], strlen(cases[i]));
    }
    rig_json_writer_free(&w);
}

static void test_escape_invalid_utf8_replaced(void **state) {
    (void)state;
    static const struct {
        const char *in;
        size_t n;
        const char *out; /* the string's content as written */
        size_t replaced;
    } cases[] = {
        {"\x80", 1, FFFD, 1},                                  /* lone continuation */
        {"a\xBF" "b", 3, "a" FFFD "b", 1},
        {"\xC0\x80", 2, FFFD FFFD, 2},                         /* overlong NUL */
        {"\xC1\xBF", 2, FFFD FFFD, 2},                         /* overlong */
        {"\xE0\x80\x80", 3, FFFD FFFD FFFD, 3},                /* overlong, 3 bytes */
        {"\xE0\x9F\xBF", 3, FFFD FFFD FFFD, 3},
        {"\xF0\x8F\xBF\xBF", 4, FFFD FFFD FFFD FFFD, 4},       /* overlong, 4 bytes */
        {"\xED\xA0\x80", 3, FFFD FFFD FFFD, 3},                /* encoded surrogate */
        {"\xED\xBF\xBF", 3, FFFD FFFD FFFD, 3},
        {"\xF4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD, 4},       /* past U+10FFFF */
        {"\xF5\x80\x80\x80", 4, FFFD FFFD FFFD FFFD, 4},
        {"\xF8\x88\x80\x80\x80", 5, FFFD FFFD FFFD FFFD FFFD, 5},
        {"\xFE", 1, FFFD, 1},
        {"\xFF", 1, FFFD, 1},
        {"ab\xE2\x82", 4, "ab" FFFD FFFD, 2},                  /* truncated at the end */
        {"\xF0\x9F\x98", 3, FFFD FFFD FFFD, 3},
        {"\xC3", 1, FFFD, 1},
        {"\xC3(", 2, FFFD "(", 1},
        {"\xE2(\xA1", 3, FFFD "(" FFFD, 2},
        {"\xE2\x82\xACx\xE2", 5, "\xE2\x82\xAC" "x" FFFD, 1},
        {"\xF0\x9F\x98\x80\x80", 5, "\xF0\x9F\x98\x80" FFFD, 1},
        {"\xC3\xA9\xA9", 3, "\xC3\xA9" FFFD, 1},
        {"\"\x80\\", 3, "\\\"" FFFD "\\\\", 1},
    };
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    char exp[128];
    size_t total = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rig_json_writer_reset(&w);
        assert_int_equal(w.replaced, 0);
        char *in = exact_copy(cases[i].in, cases[i].n); /* no terminator to lean on */
        assert_int_equal(rig_json_write_stringn(&w, in, cases[i].n), 0);
        free(in);
        int n = snprintf(exp, sizeof exp, "\"%s\"", cases[i].out);
        expect_output(&w, exp, (size_t)n);
        if (w.replaced != cases[i].replaced)
            fail_msg("case %zu: replaced %zu, expected %zu", i, w.replaced, cases[i].replaced);
        total += cases[i].replaced;
        check_string(cases[i].in, cases[i].n); /* the reference agrees */
    }
    /* replaced accumulates over strings and keys until a reset */
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_keyn(&w, "\xFF\xFE", 2);
    rig_json_write_stringn(&w, "\x80", 1);
    rig_json_write_object_end(&w);
    EXPECT(&w, "{\"" FFFD FFFD "\":\"" FFFD "\"}");
    assert_int_equal(w.replaced, 3);
    rig_json_writer_reset(&w);
    assert_int_equal(w.replaced, 0);
    assert_true(total > 40);
    rig_json_writer_free(&w);
}

/* Special bytes at every offset around the 16-byte blocks of the scanner. */
static void test_escape_at_every_offset(void **state) {
    (void)state;
    static const struct {
        const char *s;
        size_t n;
    } specials[] = {
        {"\"", 1}, {"\\", 1}, {"\x01", 1}, {"\x1f", 1}, {"\n", 1}, {"\0", 1}, {"\x7f", 1},
        {" ", 1},  {"\x80", 1}, {"\xC3\xA9", 2}, {"\xE2\x82\xAC", 3}, {"\xF0\x9F\x98\x80", 4},
        {"\xE2\x82", 2}, {"\xFF", 1},
    };
    char buf[128];
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
        for (size_t pre = 0; pre <= 40; pre++)
            for (size_t post = 0; post <= 20; post += 3) {
                memset(buf, 'a', pre);
                memcpy(buf + pre, specials[k].s, specials[k].n);
                memset(buf + pre + specials[k].n, 'b', post);
                check_string(buf, pre + specials[k].n + post);
            }
}

/* Random byte strings, biased towards the interesting bytes, against the
 * reference escaper and jansson. */
static void test_escape_random_vs_reference(void **state) {
    (void)state;
    static const char *const pieces[] = {
        "a", "Z", "0", " ", "/", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f",
        "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF",
        "\x80", "\xBF", "\xC0", "\xC1", "\xC2", "\xE0", "\xE0\x80", "\xED\xA0", "\xF0",
        "\xF4\x90", "\xF5", "\xFF", "abcdefghijklmnopqrstuvwxyz", "0123456789012345",
    };
    char buf[4200];
    rng = 5;
    for (int iter = 0; iter < 20000; iter++) {
        size_t target = iter % 10 == 0 ? rnd_below(4000) : rnd_below(80), n = 0;
        while (n < target) {
            if (rnd_below(3) == 0) {
                buf[n++] = (char)rnd_below(256); /* any byte at all */
                continue;
            }
            const char *p = pieces[rnd_below(sizeof pieces / sizeof pieces[0])];
            size_t l = p[0] ? strlen(p) : 1;
            if (n + l > sizeof buf)
                break;
            memcpy(buf + n, p, l);
            n += l;
        }
        check_string(buf, n);
    }
}

/* Objects with random keys and values (escapes, invalid bytes, all lengths)
 * against the reference, compact and pretty: keys are written into room
 * reserved ahead for the quotes, colon and space, so their lengths matter. A
 * fresh writer each time puts the end of its buffer at varying places. */
static void test_keys_random_vs_reference(void **state) {
    (void)state;
    static const char *const pieces[] = {
        "k", "ey", "\"", "\\", "\n", "\x01", "\x7f", "\xC3\xA9", "\xF0\x9F\x98\x80", "\x80",
        "\xE2\x82", "abcdefgh", "/",
    };
    char *want = malloc(1 << 16), key[64], val[64];
    assert_non_null(want);
    rng = 31;
    for (int iter = 0; iter < 4000; iter++) {
        bool pretty = iter & 1;
        rig_json_writer w;
        rig_json_writer_init(&w, pretty ? RIG_JSON_WRITE_PRETTY : 0);
        assert_int_equal(rig_json_write_object_begin(&w), 0);
        char *o = want;
        size_t replaced = 0;
        *o++ = '{';
        unsigned members = rnd_below(12);
        for (unsigned m = 0; m < members; m++) {
            size_t kl = 0, vl = 0;
            for (unsigned t = rnd_below(8); t; t--) {
                const char *p = pieces[rnd_below(sizeof pieces / sizeof pieces[0])];
                memcpy(key + kl, p, strlen(p));
                kl += strlen(p);
            }
            for (unsigned t = rnd_below(4); t; t--)
                val[vl++] = (char)rnd_below(256);
            assert_int_equal(rig_json_write_keyn(&w, key, kl), 0);
            assert_int_equal(rig_json_write_stringn(&w, val, vl), 0);
            if (m)
                *o++ = ',';
            if (pretty)
                o += sprintf(o, "\n  ");
            o += ref_escape(key, kl, o, &replaced, NULL, NULL);
            *o++ = ':';
            if (pretty)
                *o++ = ' ';
            o += ref_escape(val, vl, o, &replaced, NULL, NULL);
        }
        if (pretty && members)
            *o++ = '\n';
        *o++ = '}';
        assert_int_equal(rig_json_write_object_end(&w), 0);
        expect_output(&w, want, (size_t)(o - want));
        assert_int_equal(w.replaced, replaced);
        rig_json_writer_free(&w);
    }
    free(want);
}

/* ---------------------------------------------------------------- misuse */

/* Runs ops: '{' '}' '[' ']' begin/end, 'k' key, 'v' int, 's' string,
 * 'n' null, 'r' raw. Returns the status of the last op. */
static int run_ops(rig_json_writer *w, const char *ops) {
    int rc = 0;
    for (const char *o = ops; *o; o++) {
        switch (*o) {
        case '{': rc = rig_json_write_object_begin(w); break;
        case '}': rc = rig_json_write_object_end(w); break;
        case '[': rc = rig_json_write_array_begin(w); break;
        case ']': rc = rig_json_write_array_end(w); break;
        case 'k': rc = rig_json_write_key(w, "k"); break;
        case 'v': rc = rig_json_write_int(w, 1); break;
        case 's': rc = rig_json_write_string(w, "s"); break;
        case 'n': rc = rig_json_write_null(w); break;
        case 'r': rc = rig_json_write_raw(w, "7", 1); break;
        default: fail_msg("bad op %c", *o);
        }
        if (o[1] && rc != 0)
            fail_msg("ops %s: op %zu failed early with %d", ops, (size_t)(o - ops), rc);
    }
    return rc;
}

/* After an error: every call returns it, writes nothing, finish is NULL. */
static void check_sticky(rig_json_writer *w, int code, const char *what) {
    size_t len = w->len;
    if (rig_json_writer_error(w) != code)
        fail_msg("%s: error %d, expected %d", what, rig_json_writer_error(w), code);
    assert_int_equal(rig_json_write_int(w, 1), code);
    assert_int_equal(rig_json_write_uint(w, 1), code);
    assert_int_equal(rig_json_write_double(w, 1.5), code);
    assert_int_equal(rig_json_write_bool(w, true), code);
    assert_int_equal(rig_json_write_null(w), code);
    assert_int_equal(rig_json_write_string(w, "x"), code);
    assert_int_equal(rig_json_write_stringn(w, "x", 1), code);
    assert_int_equal(rig_json_write_key(w, "x"), code);
    assert_int_equal(rig_json_write_keyn(w, "x", 1), code);
    assert_int_equal(rig_json_write_raw(w, "1", 1), code);
    assert_int_equal(rig_json_write_array_begin(w), code);
    assert_int_equal(rig_json_write_array_end(w), code);
    assert_int_equal(rig_json_write_object_begin(w), code);
    assert_int_equal(rig_json_write_object_end(w), code);
    rig_json_doc *d = parse_ok("[1]");
    assert_int_equal(rig_json_write_value(w, rig_json_doc_root(d)), code);
    rig_json_doc_free(d);
    assert_int_equal(rig_json_writer_error(w), code);
    if (w->len != len)
        fail_msg("%s: %zu bytes written after the error", what, w->len - len);
    size_t out_len = 99;
    assert_null(rig_json_writer_finish(w, &out_len));
    assert_null(rig_json_writer_detach(w, &out_len));
}

static void test_misuse_is_sticky(void **state) {
    (void)state;
    static const char *const cases[] = {
        "{v",    /* a value in an object without a key */
        "{kvs",  /* ... after a member */
        "{kvn",
        "{r",
        "{[",
        "{kv{",
        "[k",    /* a key in an array */
        "[vk",
        "k",     /* a key at the top level */
        "vk",
        "{kk",   /* two keys in a row */
        "[}",    /* mismatched ends */
        "{]",
        "{k[]]",
        "[{}}",
        "]",     /* an end with no container */
        "}",
        "[]]",
        "vv",    /* a second top-level value */
        "[][",
        "{}{",
        "{kv}v",
        "sr",
        "{k}",   /* a key, then the end */
        "[{k}",
        "{k]",
    };
    for (int pretty = 0; pretty < 2; pretty++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            rig_json_writer w;
            rig_json_writer_init(&w, pretty ? RIG_JSON_WRITE_PRETTY : 0);
            size_t before;
            size_t n = strlen(cases[i]);
            /* everything but the last op succeeds */
            char prefix[16];
            memcpy(prefix, cases[i], n - 1);
            prefix[n - 1] = '\0';
            if (n > 1)
                run_ops(&w, prefix);
            before = w.len;
            int rc = run_ops(&w, cases[i] + n - 1);
            if (rc != RIG_JSON_EUSAGE)
                fail_msg("%s (pretty %d): %d, expected EUSAGE", cases[i], pretty, rc);
            assert_int_equal(w.len, before); /* the bad call wrote nothing */
            check_sticky(&w, RIG_JSON_EUSAGE, cases[i]);
            /* a reset clears the error */
            rig_json_writer_reset(&w);
            assert_int_equal(rig_json_writer_error(&w), 0);
            run_ops(&w, "[v]");
            const char *want = pretty ? "[\n  1\n]" : "[1]";
            expect_output(&w, want, strlen(want));
            rig_json_writer_free(&w);
        }
}

static void test_invalid_arguments(void **state) {
    (void)state;
    rig_json_writer w;
    /* raw with empty text, or no text */
    rig_json_writer_init(&w, 0);
    rig_json_write_array_begin(&w);
    assert_int_equal(rig_json_write_raw(&w, "", 0), RIG_JSON_EINVAL);
    check_sticky(&w, RIG_JSON_EINVAL, "raw empty");
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_raw(&w, NULL, 0), RIG_JSON_EINVAL);
    check_sticky(&w, RIG_JSON_EINVAL, "raw NULL");
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_raw(&w, NULL, 3), RIG_JSON_EINVAL);
    /* write_value of a missing value */
    rig_json_writer_reset(&w);
    rig_json_val missing = {NULL, 0};
    rig_json_write_array_begin(&w);
    assert_int_equal(rig_json_write_value(&w, missing), RIG_JSON_EINVAL);
    check_sticky(&w, RIG_JSON_EINVAL, "write_value missing");
    rig_json_doc *d = parse_ok("{\"a\":1}");
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_get(rig_json_doc_root(d), "b")),
                     RIG_JSON_EINVAL);
    rig_json_doc_free(d);
    /* NULL strings and keys */
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_string(&w, NULL), RIG_JSON_EINVAL);
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_stringn(&w, NULL, 2), RIG_JSON_EINVAL);
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    assert_int_equal(rig_json_write_key(&w, NULL), RIG_JSON_EINVAL);
    check_sticky(&w, RIG_JSON_EINVAL, "key NULL");
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    assert_int_equal(rig_json_write_keyn(&w, NULL, 1), RIG_JSON_EINVAL);
    /* the first error stays: a later misuse does not replace it */
    assert_int_equal(rig_json_write_array_end(&w), RIG_JSON_EINVAL);
    rig_json_writer_free(&w);

    /* and a misuse first, then a bad argument: still EUSAGE */
    rig_json_writer_init(&w, 0);
    rig_json_write_array_end(&w);
    assert_int_equal(rig_json_write_raw(&w, "", 0), RIG_JSON_EUSAGE);
    assert_int_equal(rig_json_write_value(&w, missing), RIG_JSON_EUSAGE);
    assert_int_equal(rig_json_writer_error(&w), RIG_JSON_EUSAGE);
    rig_json_writer_free(&w);
}

static void test_finish_incomplete_then_continue(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    size_t len = 77;
    /* nothing written yet */
    assert_null(rig_json_writer_finish(&w, &len));
    assert_null(rig_json_writer_finish(&w, NULL));
    assert_int_equal(run_ops(&w, "{"), 0);
    assert_null(rig_json_writer_finish(&w, &len));
    assert_int_equal(run_ops(&w, "k"), 0);
    assert_null(rig_json_writer_finish(&w, &len));
    assert_int_equal(run_ops(&w, "["), 0);
    assert_null(rig_json_writer_finish(&w, &len));
    assert_int_equal(run_ops(&w, "v"), 0);
    assert_null(rig_json_writer_finish(&w, &len));
    assert_int_equal(run_ops(&w, "]"), 0);
    assert_null(rig_json_writer_finish(&w, &len));
    assert_null(rig_json_writer_detach(&w, &len));
    /* writing goes on after those calls */
    assert_int_equal(run_ops(&w, "ks}"), 0);
    EXPECT(&w, "{\"k\":[1],\"k\":\"s\"}");
    /* finish may be called again, and gives the same */
    const char *a = rig_json_writer_finish(&w, &len);
    assert_non_null(a);
    assert_int_equal(len, 17);
    const char *b = rig_json_writer_finish(&w, NULL);
    assert_ptr_equal(a, b);
    rig_json_writer_free(&w);
}

/* ---------------------------------------------------------------- lifecycle */

static void test_reset_and_reuse(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    /* deep enough to move the container stack to the heap */
    for (int i = 0; i < 100; i++)
        rig_json_write_array_begin(&w);
    rig_json_writer_reset(&w); /* in the middle of it */
    assert_null(rig_json_writer_finish(&w, NULL));
    run_ops(&w, "{kv}");
    EXPECT(&w, "{\n  \"k\": 1\n}"); /* the flags are kept */
    for (int round = 0; round < 50; round++) {
        rig_json_writer_reset(&w);
        assert_int_equal(rig_json_write_array_begin(&w), 0);
        for (int i = 0; i <= round; i++)
            assert_int_equal(rig_json_write_int(&w, i), 0);
        assert_int_equal(rig_json_write_array_end(&w), 0);
        size_t len;
        const char *out = rig_json_writer_finish(&w, &len);
        assert_non_null(out);
        assert_int_equal(strlen(out), len);
        json_t *j = jansson_load(out, len);
        assert_int_equal(json_array_size(j), (size_t)round + 1);
        json_decref(j);
    }
    /* 100 levels written by hand */
    rig_json_writer_free(&w);
    rig_json_writer_init(&w, 0);
    char want[201];
    for (int i = 0; i < 100; i++) {
        assert_int_equal(rig_json_write_array_begin(&w), 0);
        want[i] = '[';
        want[100 + i] = ']';
    }
    want[200] = '\0';
    for (int i = 0; i < 100; i++)
        assert_int_equal(rig_json_write_array_end(&w), 0);
    expect_output(&w, want, 200);
    /* free, then use again: free leaves an initialized writer */
    rig_json_writer_free(&w);
    run_ops(&w, "[n]");
    EXPECT(&w, "[null]");
    rig_json_writer_free(&w);
    rig_json_writer_free(&w); /* twice is harmless */
}

static void test_detach(void **state) {
    (void)state;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    size_t len = 0;
    assert_null(rig_json_writer_detach(&w, &len)); /* nothing yet */
    run_ops(&w, "[v");
    assert_null(rig_json_writer_detach(&w, &len)); /* incomplete: nothing changes */
    run_ops(&w, "s]");
    char *s = rig_json_writer_detach(&w, &len);
    assert_non_null(s);
    assert_int_equal(len, 7);
    assert_string_equal(s, "[1,\"s\"]");
    /* the writer is empty and reusable; the string is the caller's */
    assert_null(rig_json_writer_finish(&w, NULL));
    assert_int_equal(rig_json_writer_error(&w), 0);
    run_ops(&w, "{kn}");
    EXPECT(&w, "{\"k\":null}");
    assert_string_equal(s, "[1,\"s\"]");
    s = realloc(s, 1000); /* it is a real malloc'd block */
    assert_non_null(s);
    free(s);
    char *t = rig_json_writer_detach(&w, NULL);
    assert_string_equal(t, "{\"k\":null}");
    free(t);
    /* a big one, after which the writer starts small again */
    rig_json_write_array_begin(&w);
    for (int i = 0; i < 100000; i++)
        rig_json_write_int(&w, i);
    rig_json_write_array_end(&w);
    t = rig_json_writer_detach(&w, &len);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    json_t *j = jansson_load(t, len);
    assert_int_equal(json_array_size(j), 100000);
    json_decref(j);
    free(t);
    rig_json_write_bool(&w, true);
    t = rig_json_writer_detach(&w, &len);
    assert_string_equal(t, "true");
    assert_int_equal(len, 4);
    free(t);
    rig_json_writer_free(&w);
}

/* ---------------------------------------------------------------- write_value */

/* Parses in, writes its root with write_value (flags), compares to want. */
static void check_value(const char *in, unsigned flags, const char *want) {
    size_t n = strlen(in);
    char *copy = exact_copy(in, n);
    rig_json_error err;
    rig_json_doc *d = rig_json_parse(copy, n, NULL, &err);
    if (!d)
        fail_msg("parse of %s failed: %d", in, err.code);
    rig_json_writer w;
    rig_json_writer_init(&w, flags);
    assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
    expect_output(&w, want, strlen(want));
    rig_json_writer_free(&w);
    rig_json_doc_free(d);
    free(copy);
}

static void test_write_value_duplicates(void **state) {
    (void)state;
    check_value("{\"a\":1,\"b\":2,\"a\":3}", 0, "{\"b\":2,\"a\":3}");
    check_value("{\"k\":1,\"k\":2,\"k\":3}", 0, "{\"k\":3}");
    check_value("{\"a\":1,\"b\":2,\"b\":3}", 0, "{\"a\":1,\"b\":3}");
    check_value("{\"a\":{\"x\":[1,2]},\"b\":[{\"a\":0,\"a\":9}],\"a\":{\"y\":2}}", 0,
                "{\"b\":[{\"a\":9}],\"a\":{\"y\":2}}");
    check_value("{\"x\":[],\"y\":{},\"x\":{\"z\":[]}}", 0, "{\"y\":{},\"x\":{\"z\":[]}}");
    check_value("{\"a\":1,\"\\u0061\":2}", 0, "{\"a\":2}"); /* equal after decoding */
    check_value("{\"\\u0061\":1,\"a\":2}", 0, "{\"a\":2}");
    check_value("[{\"d\":{\"d\":1,\"d\":2},\"d\":{\"d\":3,\"d\":4}}]", 0, "[{\"d\":{\"d\":4}}]");
    check_value("{\"a\":1,\"b\":2,\"a\":3}", RIG_JSON_WRITE_PRETTY,
                "{\n  \"b\": 2,\n  \"a\": 3\n}");

    /* a large object (past the parser's pairwise-compare size): keys k0..k29,
     * each three times with different values, shuffled */
    char in[8192], want[4096];
    int order[90];
    for (int i = 0; i < 90; i++)
        order[i] = i % 30 * 3 + i / 30; /* key i%30, occurrence i/30 */
    rng = 3;
    for (int i = 89; i > 0; i--) {
        int j = (int)rnd_below((unsigned)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int last_pos[30];
    char *o = in;
    *o++ = '{';
    for (int i = 0; i < 90; i++) {
        int key = order[i] / 3;
        o += sprintf(o, "%s\"k%d\":%d", i ? "," : "", key, i);
        last_pos[key] = i;
    }
    strcpy(o, "}");
    /* expected: each key once, with its last value, at its last position */
    o = want;
    *o++ = '{';
    bool first = true;
    for (int i = 0; i < 90; i++) {
        int key = order[i] / 3;
        if (last_pos[key] != i)
            continue;
        o += sprintf(o, "%s\"k%d\":%d", first ? "" : ",", key, i);
        first = false;
    }
    strcpy(o, "}");
    check_value(in, 0, want);
}

static void test_write_value_strings(void **state) {
    (void)state;
    check_value("[\"\\u0041\\/\",\"a\\\"b\\\\c\",\"\\n\\r\\t\\b\\f\",\"\\u0000\\u001F\\u007f\","
                "\"\\u00e9\\u20AC\\ud83d\\ude00\",\"plain/\xC3\xA9\",\"\\/\"]",
                0,
                "[\"A/\",\"a\\\"b\\\\c\",\"\\n\\r\\t\\b\\f\",\"\\u0000\\u001f\x7F\","
                "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\",\"plain/\xC3\xA9\",\"/\"]");
    /* lone surrogates become real U+FFFD bytes */
    check_value("[\"\\ud800\",\"\\udc00x\",\"\\ud800\\ud800\",\"a\\ud83d\",\"\\ude00\\ud83d\"]", 0,
                "[\"" FFFD "\",\"" FFFD "x\",\"" FFFD FFFD "\",\"a" FFFD "\",\"" FFFD FFFD "\"]");
    /* escaped keys too */
    check_value("{\"\\u00e9\\n\":\"\\t\\/\"}", 0, "{\"\xC3\xA9\\n\":\"\\t/\"}");
    /* a long escaped string (beyond any small decode buffer) */
    char in[4000], want[4000];
    char *p = in, *q = want;
    *p++ = '"';
    *q++ = '"';
    for (int i = 0; i < 300; i++) {
        p += sprintf(p, "\\u0041\\n\xC3\xA9");
        q += sprintf(q, "A\\n\xC3\xA9");
    }
    strcpy(p, "\"");
    strcpy(q, "\"");
    check_value(in, 0, want);
}

static void test_write_value_numbers_as_written(void **state) {
    (void)state;
    const char *nums = "[1.50,1E+2,-0,123456789012345678901234567890,1e-400,-0.0,0.1e1,"
                       "9223372036854775807,-9223372036854775808,2.5E-3,0,-1,1e+0]";
    check_value(nums, 0, nums);
    check_value("  [ 1.50 , 1E+2\t]  ", 0, "[1.50,1E+2]");
    check_value("1.50", 0, "1.50");
    check_value("-0", 0, "-0");
    check_value("{\"n\": 1E+2 }", 0, "{\"n\":1E+2}");
    check_value("[true,false,null]", 0, "[true,false,null]");
    check_value(" true ", 0, "true");
}

static void test_write_value_containers_and_pretty(void **state) {
    (void)state;
    check_value("{ \"a\" : [ 1 , { \"b\" : null } , [ ] ] , \"c\" : { } }", 0,
                "{\"a\":[1,{\"b\":null},[]],\"c\":{}}");
    check_value("[]", 0, "[]");
    check_value("{}", 0, "{}");
    check_value("[[[]],[{}],{\"a\":[[]]}]", 0, "[[[]],[{}],{\"a\":[[]]}]");
    check_value("{\"a\":[1,{\"b\":null}],\"c\":{},\"d\":[]}", RIG_JSON_WRITE_PRETTY,
                "{\n"
                "  \"a\": [\n"
                "    1,\n"
                "    {\n"
                "      \"b\": null\n"
                "    }\n"
                "  ],\n"
                "  \"c\": {},\n"
                "  \"d\": []\n"
                "}");
    check_value("[\n\n  1,\"x\"  ]", RIG_JSON_WRITE_PRETTY, "[\n  1,\n  \"x\"\n]");
    check_value("\"s\"", RIG_JSON_WRITE_PRETTY, "\"s\"");
}

static void test_write_value_inside_larger_document(void **state) {
    (void)state;
    rig_json_doc *d =
        parse_ok("{\"x\":{\"y\":[1,2,{\"z\":\"w\\n\"}],\"q\":0},\"after\":[true],\"x2\":5}");
    rig_json_val root = rig_json_doc_root(d);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x/y")), 0);
    EXPECT(&w, "[1,2,{\"z\":\"w\\n\"}]");
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x")), 0);
    EXPECT(&w, "{\"y\":[1,2,{\"z\":\"w\\n\"}],\"q\":0}");
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x/y/2/z")), 0);
    EXPECT(&w, "\"w\\n\"");
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x/q")), 0);
    EXPECT(&w, "0");

    /* values spliced into a document being written */
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_object_begin(&w), 0);
    assert_int_equal(rig_json_write_key(&w, "first"), 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x/y")), 0);
    assert_int_equal(rig_json_write_key(&w, "second"), 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x/y/2")), 0);
    assert_int_equal(rig_json_write_key(&w, "list"), 0);
    assert_int_equal(rig_json_write_array_begin(&w), 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/after")), 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x2")), 0);
    assert_int_equal(rig_json_write_value(&w, root), 0);
    assert_int_equal(rig_json_write_array_end(&w), 0);
    assert_int_equal(rig_json_write_object_end(&w), 0);
    EXPECT(&w, "{\"first\":[1,2,{\"z\":\"w\\n\"}],\"second\":{\"z\":\"w\\n\"},\"list\":[[true],5,"
               "{\"x\":{\"y\":[1,2,{\"z\":\"w\\n\"}],\"q\":0},\"after\":[true],\"x2\":5}]}");
    rig_json_writer_free(&w);

    /* pretty: the spliced value is indented at the writer's depth */
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "v");
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x")), 0);
    rig_json_write_object_end(&w);
    EXPECT(&w, "{\n"
               "  \"v\": {\n"
               "    \"y\": [\n"
               "      1,\n"
               "      2,\n"
               "      {\n"
               "        \"z\": \"w\\n\"\n"
               "      }\n"
               "    ],\n"
               "    \"q\": 0\n"
               "  }\n"
               "}");
    rig_json_writer_free(&w);

    /* write_value follows the writer's rules */
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x2")), RIG_JSON_EUSAGE);
    rig_json_writer_reset(&w);
    rig_json_write_object_begin(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_pointer(root, "/x")), RIG_JSON_EUSAGE);
    rig_json_writer_reset(&w);
    rig_json_write_null(&w);
    assert_int_equal(rig_json_write_value(&w, root), RIG_JSON_EUSAGE);
    rig_json_writer_free(&w);
    rig_json_doc_free(d);
}

static void test_write_value_deep_nesting(void **state) {
    (void)state;
    enum { DEPTH = 100000 };
    rig_json_options o = {0, DEPTH + 10, 0};
    rig_json_error err;
    /* arrays */
    char *in = malloc(2 * DEPTH + 1);
    assert_non_null(in);
    memset(in, '[', DEPTH);
    memset(in + DEPTH, ']', DEPTH);
    rig_json_doc *d = rig_json_parse(in, 2 * DEPTH, &o, &err);
    assert_non_null(d);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
    expect_output(&w, in, 2 * DEPTH);
    rig_json_doc_free(d);
    free(in);
    /* objects, with a scalar at the bottom and a sibling at every level */
    size_t cap = (size_t)DEPTH * 16 + 16, n = 0;
    in = malloc(cap);
    assert_non_null(in);
    for (int i = 0; i < DEPTH; i++) {
        memcpy(in + n, "{\"a\":", 5);
        n += 5;
    }
    memcpy(in + n, "\"\\u0062\"", 8);
    n += 8;
    for (int i = 0; i < DEPTH; i++) {
        memcpy(in + n, ",\"b\":1}", 7);
        n += 7;
    }
    d = rig_json_parse(in, n, &o, &err);
    assert_non_null(d);
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
    /* the same text, with the escape re-encoded */
    size_t len;
    const char *out = rig_json_writer_finish(&w, &len);
    assert_non_null(out);
    assert_int_equal(len, n - 5);
    assert_memory_equal(out, in, (size_t)DEPTH * 5);
    assert_memory_equal(out + (size_t)DEPTH * 5, "\"b\"", 3);
    assert_memory_equal(out + (size_t)DEPTH * 5 + 3, in + (size_t)DEPTH * 5 + 8, n - DEPTH * 5 - 8);
    rig_json_doc_free(d);
    free(in);
    rig_json_writer_free(&w);

    /* pretty at 1000 levels, against the indentation built here */
    enum { PD = 1000 };
    in = malloc(2 * PD);
    assert_non_null(in);
    memset(in, '[', PD - 1);
    in[PD - 1] = '7';
    memset(in + PD, ']', PD - 1);
    d = rig_json_parse(in, 2 * PD - 1, &o, &err);
    assert_non_null(d);
    size_t wcap = (size_t)PD * PD * 2 + 4 * PD, wn = 0;
    char *want = malloc(wcap);
    assert_non_null(want);
    for (int i = 0; i < PD - 1; i++) {
        if (i) {
            want[wn++] = '\n';
            memset(want + wn, ' ', 2 * (size_t)i);
            wn += 2 * (size_t)i;
        }
        want[wn++] = '[';
    }
    want[wn++] = '\n';
    memset(want + wn, ' ', 2 * (size_t)(PD - 1));
    wn += 2 * (size_t)(PD - 1);
    want[wn++] = '7';
    for (int i = PD - 2; i >= 0; i--) {
        want[wn++] = '\n';
        memset(want + wn, ' ', 2 * (size_t)i);
        wn += 2 * (size_t)i;
        want[wn++] = ']';
    }
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
    expect_output(&w, want, wn);
    rig_json_writer_free(&w);
    rig_json_doc_free(d);
    free(want);
    free(in);
}

/* Pretty objects nested 300 deep, keys with escapes, written by hand and by
 * write_value, against indentation built here. */
static void test_pretty_deep_objects(void **state) {
    (void)state;
    enum { D = 300 };
    size_t cap = (size_t)D * D * 3 + 64 * D, n = 0;
    char *want = malloc(cap), *compact = malloc(64 * D);
    assert_non_null(want);
    assert_non_null(compact);
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    size_t cn = 0;
    for (int i = 0; i < D; i++) {
        assert_int_equal(rig_json_write_object_begin(&w), 0);
        assert_int_equal(rig_json_write_keyn(&w, "k\n\x01", 3), 0);
        n += (size_t)sprintf(want + n, "{\n%*s\"k\\n\\u0001\": ", 2 * (i + 1), "");
        cn += (size_t)sprintf(compact + cn, "{\"k\\n\\u0001\":");
    }
    assert_int_equal(rig_json_write_stringn(&w, "\t", 1), 0);
    n += (size_t)sprintf(want + n, "\"\\t\"");
    cn += (size_t)sprintf(compact + cn, "\"\\t\"");
    for (int i = D - 1; i >= 0; i--) {
        assert_int_equal(rig_json_write_object_end(&w), 0);
        n += (size_t)sprintf(want + n, "\n%*s}", 2 * i, "");
        compact[cn++] = '}';
    }
    assert_true(n < cap);
    expect_output(&w, want, n);
    /* the same through write_value */
    rig_json_options o = {0, D + 1, 0};
    rig_json_doc *d = rig_json_parse(compact, cn, &o, NULL);
    assert_non_null(d);
    rig_json_writer_reset(&w);
    assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
    expect_output(&w, want, n);
    rig_json_doc_free(d);
    rig_json_writer_free(&w);
    free(want);
    free(compact);
}

/* Random documents in the writer's own canonical form (compact, escapes as
 * the writer writes them, no duplicate keys) are a fixed point of parse +
 * write_value; in pretty form they differ only by whitespace outside strings. */
static void gen_string(char **pp) {
    static const char *const pieces[] = {
        "a", "key", " ", "/", "\\\"", "\\\\", "\\n", "\\t", "\\b", "\\f", "\\r", "\\u0000",
        "\\u001f", "\\u000b", "\x7f", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "xyz",
    };
    char *p = *pp;
    *p++ = '"';
    for (unsigned n = rnd_below(6); n; n--)
        p += sprintf(p, "%s", pieces[rnd_below(sizeof pieces / sizeof pieces[0])]);
    *p++ = '"';
    *pp = p;
}

static void gen_value(char **pp, int depth) {
    static const char *const scalars[] = {
        "null", "true", "false", "0", "-0", "1.50", "1E+2", "-12e-3", "0.1",
        "123456789012345678901234567890", "9223372036854775807", "-7",
    };
    unsigned t = rnd_below(depth < 5 ? 10 : 6);
    char *p = *pp;
    if (t < 4) {
        p += sprintf(p, "%s", scalars[rnd_below(sizeof scalars / sizeof scalars[0])]);
    } else if (t < 6) {
        gen_string(&p);
    } else if (t < 8) {
        *p++ = '[';
        for (unsigned i = 0, n = rnd_below(5); i < n; i++) {
            if (i)
                *p++ = ',';
            gen_value(&p, depth + 1);
        }
        *p++ = ']';
    } else {
        *p++ = '{';
        for (unsigned i = 0, n = rnd_below(5); i < n; i++) {
            if (i)
                *p++ = ',';
            gen_string(&p);
            p[-1] = (char)('0' + i); /* a distinct last character: keys never repeat */
            *p++ = '"';
            *p++ = ':';
            gen_value(&p, depth + 1);
        }
        *p++ = '}';
    }
    *pp = p;
}

/* json without whitespace outside strings */
static size_t strip_ws(const char *s, size_t n, char *out) {
    size_t o = 0;
    bool in = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in) {
            out[o++] = c;
            if (c == '\\')
                out[o++] = s[++i];
            else if (c == '"')
                in = false;
        } else if (c == '"') {
            in = true;
            out[o++] = c;
        } else if (c != ' ' && c != '\n') {
            out[o++] = c;
        }
    }
    return o;
}

static void test_write_value_random_fixed_point(void **state) {
    (void)state;
    char *in = malloc(1 << 20), *stripped = malloc(1 << 22);
    assert_non_null(in);
    assert_non_null(stripped);
    rng = 17;
    rig_json_writer w, wp;
    rig_json_writer_init(&w, 0);
    rig_json_writer_init(&wp, RIG_JSON_WRITE_PRETTY);
    for (int iter = 0; iter < 3000; iter++) {
        char *p = in;
        gen_value(&p, 0);
        *p = '\0';
        size_t n = (size_t)(p - in);
        rig_json_error err;
        rig_json_doc *d = rig_json_parse(in, n, NULL, &err);
        if (!d)
            fail_msg("generated %s does not parse: %d at %zu", in, err.code, err.offset);
        rig_json_writer_reset(&w);
        assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
        expect_output(&w, in, n);
        rig_json_writer_reset(&wp);
        assert_int_equal(rig_json_write_value(&wp, rig_json_doc_root(d)), 0);
        size_t plen;
        const char *pretty = rig_json_writer_finish(&wp, &plen);
        assert_non_null(pretty);
        size_t sl = strip_ws(pretty, plen, stripped);
        if (sl != n || memcmp(stripped, in, n) != 0)
            fail_msg("pretty output of %s is\n%s", in, pretty);
        rig_json_doc *dp = rig_json_parse(pretty, plen, NULL, &err);
        assert_non_null(dp);
        assert_true(rig_json_equal(rig_json_doc_root(d), rig_json_doc_root(dp)));
        rig_json_doc_free(dp);
        rig_json_doc_free(d);
    }
    rig_json_writer_free(&w);
    rig_json_writer_free(&wp);
    free(in);
    free(stripped);
}

/* ---------------------------------------------------------------- big strings */

static void test_ten_megabyte_string_round_trip(void **state) {
    (void)state;
    size_t n = 10u << 20;
    char *s = malloc(n + 8);
    assert_non_null(s);
    static const char *const pieces[] = {
        "The quick brown fox jumps over the lazy dog. ", "\"quoted\"", "back\\slash", "\n",
        "\r\n", "\t", "\x01\x02\x1f", "\0", "\x7f", "/path/to/file", "caf\xC3\xA9 ",
        "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "0123456789",
    };
    size_t len = 0;
    rng = 23;
    while (len < n) {
        unsigned k = rnd_below(sizeof pieces / sizeof pieces[0]);
        size_t l = k == 7 ? 1 : strlen(pieces[k]);
        memcpy(s + len, pieces[k], l);
        len += l;
    }
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_json_write_stringn(&w, s, len), 0);
    assert_int_equal(w.replaced, 0);
    size_t olen;
    const char *out = rig_json_writer_finish(&w, &olen);
    assert_non_null(out);
    /* rig reads it back to the same bytes */
    rig_json_options o = {olen + 1, 0, 0};
    rig_json_error err;
    rig_json_doc *d = rig_json_parse(out, olen, &o, &err);
    if (!d)
        fail_msg("rig cannot read its own output: %d at %zu", err.code, err.offset);
    rig_json_val v = rig_json_doc_root(d);
    assert_int_equal(rig_json_str_len(v), len);
    char *back = malloc(len + 1);
    assert_non_null(back);
    size_t blen;
    assert_int_equal(rig_json_str_copy(v, back, len + 1, &blen), 0);
    assert_int_equal(blen, len);
    assert_memory_equal(back, s, len);
    /* and jansson too */
    jansson_string_is(out, olen, s, len);
    free(back);
    rig_json_doc_free(d);

    /* with invalid bytes sprinkled in: the reference says what comes out */
    for (size_t i = 0; i < len; i += 1 + rnd_below(5000))
        s[i] = (char)(0x80 + rnd_below(0x80));
    check_string(s, len);
    rig_json_writer_free(&w);
    free(s);
}

/* ---------------------------------------------------------------- doubles */

typedef struct golden {
    uint64_t bits;
    const char *text;
} golden;

/* The table from the brief, checked against node's String(x) (with ".0"
 * added to integral values below 1e21). */
static const golden format_table[] = {
    {0x0000000000000000ull, "0.0"},
    {0x8000000000000000ull, "-0.0"},
    {0x3FF0000000000000ull, "1.0"},
    {0xBFF0000000000000ull, "-1.0"},
    {0x4059000000000000ull, "100.0"},
    {0x3FB999999999999Aull, "0.1"},
    {0x3FE0000000000000ull, "0.5"},
    {0x3FF8000000000000ull, "1.5"},
    {0xC002000000000000ull, "-2.25"},
    {0x444B1AE4D6E2EF50ull, "1e+21"},
    {0xC44B1AE4D6E2EF50ull, "-1e+21"},
    {0x4415AF1D78B58C40ull, "100000000000000000000.0"},
    {0x3E7AD7F29ABCAF48ull, "1e-7"},
    {0x3EB0C6F7A0B5ED8Dull, "0.000001"},
    {0x419D6F34547DF3B6ull, "123456789.123"},
    {0x0010000000000000ull, "2.2250738585072014e-308"},
    {0x7FEFFFFFFFFFFFFFull, "1.7976931348623157e+308"},
    {0x3FD3333333333334ull, "0.30000000000000004"},
    {0x4340000000000000ull, "9007199254740992.0"}, /* 9007199254740993 */
    {0x3FD5555555555555ull, "0.3333333333333333"},
    {0x3E8421F5F40D8376ull, "1.5e-7"},
    {0x3C36B082C2148B8Eull, "1.23e-18"},
    {0x43E0000000000000ull, "9223372036854776000.0"},
    {0x7E37E43C8800759Cull, "1e+300"},
    {0x444B1AE4D6E2EF4Full, "999999999999999900000.0"},
    {0x4341C37937E08000ull, "10000000000000000.0"},
    {0x4345EE2A2EB5A5C4ull, "12345678901234568.0"},
    {0x3EFA36E2EB1C432Dull, "0.000025"},
    {0x44B52D02C7E14AF6ull, "1e+23"},
    {0x3EA0C6F7A0B5ED8Dull, "5e-7"},
    {0x4040AAAAAAAAAAABull, "33.333333333333336"},
    {0x7FEFFFFFFFFFFFFDull, "1.7976931348623153e+308"},
    {0x42AC122827250E00ull, "15432154321543.0"},
    {0x3EE4F8B588E368F1ull, "0.00001"},
    {0x3EB4B3FD5942CD96ull, "0.000001234"},
    {0x4011666666666666ull, "4.35"},
    {0x4340000000000001ull, "9007199254740994.0"},
    {0x3EB0C6F7A0B5ED8Cull, "9.999999999999997e-7"},
};

/* From node, for random doubles, random short decimals, and borders between
 * the fixed and exponent forms. */
static const golden node_table[] = {
    {0x38F1DC39D1906B6Full, "2.1498502647983812e-34"},
    {0xDFE4142236DD9517ull, "-8.412832606099904e+153"},
    {0x30C0356884C4F31Full, "7.16699785491399e-74"},
    {0x3E293305663E57F9ull, "2.933584751809783e-9"},
    {0x1802933BBD8928C4ull, "5.089143035643556e-193"},
    {0xD98EC50DA1C8114Aull, "-2.5425649742604263e+123"},
    {0x84969534C123FC1Dull, "-1.4830733174242353e-286"},
    {0x9F1C74628A194055ull, "-8.095715157460153e-159"},
    {0x683C6CCCFDD59ED1ull, "1.2968738789047054e+194"},
    {0x7FE05C35CD2C23FBull, "9.190816229818206e+307"},
    {0xA250C6CBE9AE5DC5ull, "-2.149634884713769e-143"},
    {0x6A9E1A033F276035ull, "3.775085692152657e+205"},
    {0xE455BD2F69E125CAull, "-2.15068670640455e+175"},
    {0x7FB0846DD8B0CE3Dull, "1.1598843295573148e+307"},
    {0xE4757BA6A66DED80ull, "-8.501443025663304e+175"},
    {0x8F5FC62DAB548CF5ull, "-1.2491572657616713e-234"},
    {0x01D9A13A048DF2B8ull, "9.567740794369068e-300"},
    {0x67111AADB181AAF2ull, "2.976873605445214e+188"},
    {0xD3F729FF9C56FDDCull, "-3.0923827819406136e+96"},
    {0xE571F69012679FFDull, "-4.658644495495701e+180"},
    {0x40B828D8FFCF1C2Eull, "6184.8476533359335"},
    {0xDA7D836D94223A60ull, "-7.991297285854245e+127"},
    {0xDAB52FAFEDE27F28ull, "-9.178523678722887e+128"},
    {0x05B0E37F88677918ull, "2.9074976555166595e-281"},
    {0x57DDDE2C5840B4E9ull, "1.838834012801397e+115"},
    {0x0A97F4512EA143A7ull, "1.2463739409193348e-257"},
    {0xFD69FA46A83EE0FDull, "-1.3272888919760535e+296"},
    {0x4AC6FDC987C80C35ull, "1.7204175341729024e+52"},
    {0x17222CAC64D280E6ull, "3.039173211285386e-197"},
    {0xC1BF89822D103356ull, "-529105453.0632833"},
    {0x8C81A3EA01F8109Full, "-1.9710574928949158e-248"},
    {0x7218A8006A401CE9ull, "4.1102068272340336e+241"},
    {0xC225B74305367103ull, "-46634467995.220726"},
    {0x6E7A8E34D3F0BED0ull, "1.5358583721492127e+224"},
    {0x21D21650210BCBA4ull, "9.052999405470309e-146"},
    {0x0C8CC6130521E89Full, "3.215064688768171e-248"},
    {0x5AD4F0FDF581BAFDull, "3.6289697570205246e+129"},
    {0x56ECAB2F632E626Full, "5.386371483426791e+110"},
    {0xA8D8C88C4A2CDCC1ull, "-6.440837530150896e-112"},
    {0x725AC6C439238E03ull, "7.141825302367468e+242"},
    {0xA357A866E9A7DC27ull, "-1.9866288238502106e-138"},
    {0x088A71B16AD61AB6ull, "1.6017800292884365e-267"},
    {0x30F6E3068BEEF7A1ull, "8.095925186332413e-73"},
    {0x9C716B592959C110ull, "-1.1268702362937778e-171"},
    {0x8597EA650F347E77ull, "-1.0293081955483687e-281"},
    {0xFD38487936E73E65ull, "-1.550886047811866e+295"},
    {0xBACFEF5E1D5E0A75ull, "-2.0637529323334365e-25"},
    {0x47AC71C7CB638A54ull, "1.890458287031322e+37"},
    {0x0A0975954813F1BCull, "2.587261781625943e-260"},
    {0x44E64BD4B870C60Eull, "8.423271724319049e+23"},
    {0x41C65EEC2B803C4Bull, "750639191.00184"},
    {0x4AAE898564F01B2Eull, "5.7126599228894525e+51"},
    {0x4F9DC97CE44B4CC4ull, "3.368267710070006e+75"},
    {0x44195FE6D65134F4ull, "117019762041313620000.0"},
    {0xD3CC8B737AC942D0ull, "-4.763373046514313e+95"},
    {0x84B142882D8570AFull, "-4.534006743579934e-286"},
    {0x97D1DE503B07A759ull, "-6.119398728639484e-194"},
    {0xA66FCAF5A0B881E1ull, "-1.5029367776719891e-123"},
    {0xCD35116F2CF5C4DFull, "-8.66691473339822e+63"},
    {0x732A27D1053158DBull, "5.7149185235367146e+246"},
    {0xCF93A4A93F667A0Aull, "-2.2212187865267554e+75"},
    {0x5CB1E4EAAE759091ull, "3.329587668166665e+138"},
    {0x4599F19A582F4BA2ull, "2.007301309805147e+27"},
    {0xC2106B5CDF4D4965ull, "-17630181331.321674"},
    {0xA81480DEAECB2762ull, "-1.3009107815147677e-115"},
    {0x852384849125A32Bull, "-6.562685232534625e-284"},
    {0xBBC3FDDDE60B4ABBull, "-8.466800375023778e-21"},
    {0x02D94F58A74A4CB7ull, "6.192064692165849e-295"},
    {0xEB2A8DC6B2EB471Aull, "-1.7050374255094563e+208"},
    {0x26BCE84F5978A493ull, "4.372921831435871e-122"},
    {0xC724DA1776A9932Bull, "-5.413468071813252e+34"},
    {0x187D8B261D1DFCE1ull, "1.0360612766909252e-190"},
    {0x89F3F378D916CD83ull, "-1.0137475044294696e-260"},
    {0x483ADF665EC8623Eull, "9.144290919706547e+39"},
    {0xB358D4A7AE6A5DF2ull, "-2.4144019295013223e-61"},
    {0xE16B5F719968995Dull, "-1.9241873375378788e+161"},
    {0x349D33C9D9F8E02Aull, "2.97740454009897e-55"},
    {0x6E07A55648E680B2ull, "1.068419270350232e+222"},
    {0x80C45CD50910D5CCull, "-5.79946829466176e-305"},
    {0x8BED6641BC3C18ACull, "-3.2079877062339507e-251"},
    {0x429F317A6FB60000ull, "8574342000000.0"},
    {0x3DA080D86B5577D5ull, "7.504833e-12"},
    {0x3F189638E3E4A7F3ull, "0.00009379122"},
    {0x44665B63F89034C1ull, "3.29931e+21"},
    {0x4196E95500000000ull, "96097600.0"},
    {0x3F73731F8FF0D6F6ull, "0.004748462"},
    {0x3F09D72C4D41208Full, "0.00004928688"},
    {0x44AF6256D9478A85ull, "7.41037e+22"},
    {0x41C77A79D6000000ull, "787805100.0"},
    {0x46F3584D981ADE4Cull, "6.27779e+33"},
    {0x471086E6D1B356E7ull, "2.145322e+34"},
    {0x4201E344D8C00000ull, "9603423000.0"},
    {0x46FD20D7810DC93Bull, "9.45267e+33"},
    {0x3E78271CD18A4D20ull, "8.997613e-8"},
    {0x3C52AD81CD578301ull, "4.050094e-18"},
    {0x46E644F171F854ABull, "3.613402e+33"},
    {0x3D6B3ECAD3F84787ull, "7.743575e-13"},
    {0x3E69A72DF6889D0Full, "4.778252e-8"},
    {0x4152DEE280000000ull, "4946826.0"},
    {0x41A477DB20000000ull, "171699600.0"},
    {0x40B894B333333333ull, "6292.7"},
    {0x3DD5FBF41ABB7C5Aull, "7.997803e-11"},
    {0x3B7E4C52308C0575ull, "4.009924e-22"},
    {0x3B90F8F9047D8BA6ull, "8.985193e-22"},
    {0x45645B772AF46F90ull, "1.968836e+26"},
    {0x40B2C53851EB851Full, "4805.22"},
    {0x47316F74D38D3611ull, "9.052965e+34"},
    {0x465D2FFBA9AB8652ull, "9.249867e+30"},
    {0x44B33B7065297E6Eull, "9.082142e+22"},
    {0x3D9C8086632AFEB8ull, "6.480616e-12"},
    {0x3CC4525FB2CE13F9ull, "5.640425e-16"},
    {0x4259D22DCF800000ull, "443601600000.0"},
    {0x44A8DC7E9349E3A4ull, "5.87021e+22"},
    {0x3C12653EF0AB88E2ull, "2.493054e-19"},
    {0x42151EE9EC000000ull, "22678240000.0"},
    {0x3BFCEF7E86AD4C09ull, "9.803737e-20"},
    {0x4690B05703C20FD1ull, "8.462241e+31"},
    {0x3FA705E673E7D943ull, "0.04496689"},
    {0x436318CDAF8B3280ull, "43002370000000000.0"},
    {0x3CA64111FF6B3662ull, "1.544194e-16"},
    {0x3FF761CCF89E0265ull, "1.4613771163568796"},
    {0x3FF95F72C572B124ull, "1.5858028137982467"},
    {0x3FF6A24D1309E804ull, "1.4146242850970348"},
    {0x3FFF4708EC1392EEull, "1.95484249322288"},
    {0x3FF4433C7EAB5FD6ull, "1.2664151142143871"},
    {0x3FFBBF5DC231D8E8ull, "1.7342202745181172"},
    {0x3FF2B62F1A702EBCull, "1.16947851493289"},
    {0x3FF65984C23B1118ull, "1.3968551242006182"},
    {0x3FF53621383F10BCull, "1.32571527453642"},
    {0x3FFB28B929DDEF31ull, "1.6974422107150071"},
    {0x3FF6B36EDC0D8412ull, "1.4188068958103526"},
    {0x3FFCDCE1DA767A42ull, "1.803926328058552"},
    {0x3FFEA5E714FB04C9ull, "1.9155035800506985"},
    {0x3FF205BB3DED7500ull, "1.1263992709203308"},
    {0x3FFA646AE47B2AFDull, "1.6495160031360563"},
    {0x3FFC800C8ACC3778ull, "1.7812619611536018"},
    {0x3FF83E4D04C800BEull, "1.5152101694839497"},
    {0x3FF0A2CCE62E9B3Aull, "1.0397461883055272"},
    {0x3FF10432A154F37Dull, "1.06352484722376"},
    {0x3FFE00B3F981B9B1ull, "1.8751716371876734"},
    {0x444B1AE4D6E2EF50ull, "1e+21"},
    {0x444B1AE4D6E2EF4Full, "999999999999999900000.0"},
    {0x3E7AD7F29ABCAF48ull, "1e-7"},
    {0x3E7AD7F29ABCAF48ull, "1e-7"},
    {0x3EB0C6F7A0B5ED8Eull, "0.0000010000000000000002"},
    {0x3EB0C6F7A0B5ED8Dull, "0.000001"},
    {0x3EB0C6F7A0B5ED8Dull, "0.000001"},
    {0x3E80823F71155233ull, "1.23e-7"},
    {0x4340000000000000ull, "9007199254740992.0"},
    {0x4340000000000001ull, "9007199254740994.0"},
    {0x43E0000000000000ull, "9223372036854776000.0"},
    {0x43F0000000000000ull, "18446744073709552000.0"},
    {0x4450000000000000ull, "1.1805916207174113e+21"},
    {0x4011666666666666ull, "4.35"},
    {0x3FD3333333333334ull, "0.30000000000000004"},
    {0x3FD5555555555555ull, "0.3333333333333333"},
    {0x3FE5555555555555ull, "0.6666666666666666"},
    {0x4040AAAAAAAAAAABull, "33.333333333333336"},
    {0x3EA0C6F7A0B5ED8Dull, "5e-7"},
    {0x3E8421F5F40D8376ull, "1.5e-7"},
    {0x44ADA56A4B0835C0ull, "7e+22"},
    {0x4480F0CF064DD592ull, "1e+22"},
    {0x44B52D02C7E14AF6ull, "1e+23"},
    {0x0010000000000000ull, "2.2250738585072014e-308"},
    {0x7FEFFFFFFFFFFFFFull, "1.7976931348623157e+308"},
    {0x7FE0000000000000ull, "8.98846567431158e+307"},
    {0x0021C37937E08000ull, "4.940656458412465e-308"},
};

/* Subnormals, from node. */
static const golden subnormal_table[] = {
    {0x0000000000000001ull, "5e-324"},
    {0x8000000000000001ull, "-5e-324"},
    {0x0000000000000002ull, "1e-323"},
    {0x0000000000000003ull, "1.5e-323"},
    {0x000012688B70E62Bull, "1e-310"},
    {0x0000000000002710ull, "4.9407e-320"},
    {0x000FFFFFFFFFFFFFull, "2.225073858507201e-308"},
    {0x00000000000007E8ull, "1e-320"},
    {0x0000000000000006ull, "3e-323"},
    {0x000FD1D7D505CD02ull, "2.2e-308"},
    {0x000000000EE4A56Eull, "1.2345e-315"},
    {0x000E1B5B34C8F397ull, "1.9618004002549527e-308"},
    {0x0003898EC385B595ull, "4.91926928946518e-309"},
    {0x000B2B584079524Dull, "1.5532844774474782e-308"},
    {0x00093BC997A9EFF6ull, "1.284082448139395e-308"},
    {0x000CD379130C6854ull, "1.7836840379095076e-308"},
    {0x000B14AF943E718Dull, "1.540975474237544e-308"},
    {0x000C5437268B75DEull, "1.7145538206371725e-308"},
    {0x000426BF079E9FE5ull, "5.773166040368265e-309"},
    {0x000B1F08B990AE4Dull, "1.546596950445284e-308"},
    {0x000302FDF21F5ECBull, "4.18826682215076e-309"},
    {0x0008758C43184537ull, "1.176392582747266e-308"},
    {0x0008ECF13F741B18ull, "1.2412513539154837e-308"},
    {0x00000000970CE615ull, "1.252063605e-314"},
    {0x00000000270073AFull, "3.23287428e-315"},
    {0x0000000034CEB3E4ull, "4.377232395e-315"},
    {0x000000007A641CC7ull, "1.0145051675e-314"},
    {0x0000000062FB463Aull, "8.204625467e-315"},
    {0x00000000BC0745B0ull, "1.5585761267e-314"},
};

static void check_golden(const golden *g, size_t n, const char *name) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        memset(buf, 'X', sizeof buf);
        double v = double_of(g[i].bits);
        size_t len = rig_json_format_double(v, buf);
        if (len != strlen(g[i].text) || strcmp(buf, g[i].text) != 0) {
            print_message("# %s: %.17g (%#" PRIx64 ") -> \"%s\", expected \"%s\"\n", name, v,
                          g[i].bits, buf, g[i].text);
            bad++;
        }
    }
    if (bad)
        fail_msg("%s: %zu of %zu formatted differently from JavaScript", name, bad, n);
}

static void test_format_double_golden(void **state) {
    (void)state;
    check_golden(format_table, sizeof format_table / sizeof format_table[0], "table");
    /* double-check the table's inputs are the doubles the brief names */
    assert_true(double_of(format_table[18].bits) == 9007199254740993.0);
    assert_true(double_of(format_table[19].bits) == 1 / 3.0);
    assert_true(double_of(format_table[14].bits) == 123456789.123);
    assert_true(double_of(format_table[13].bits) == 1e-6);
    assert_true(double_of(format_table[12].bits) == 1e-7);
    assert_true(double_of(format_table[11].bits) == 1e20);
    assert_true(double_of(format_table[9].bits) == 1e21);
    /* NaN and infinities */
    char buf[32];
    assert_int_equal(rig_json_format_double(NAN, buf), 4);
    assert_string_equal(buf, "null");
    assert_int_equal(rig_json_format_double(-NAN, buf), 4);
    assert_string_equal(buf, "null");
    assert_int_equal(rig_json_format_double(INFINITY, buf), 4);
    assert_string_equal(buf, "null");
    assert_int_equal(rig_json_format_double(-INFINITY, buf), 4);
    assert_string_equal(buf, "null");
}

static void test_format_double_node_table(void **state) {
    (void)state;
    check_golden(node_table, sizeof node_table / sizeof node_table[0], "node");
}

/* Significant digits of a formatted number (leading and trailing zeros are
 * not significant; "100.0" has one). */
static int sig_digits(const char *s, char *digits) {
    char all[40];
    int n = 0;
    for (const char *p = s; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            all[n++] = *p;
    int a = 0, b = n;
    while (a < n && all[a] == '0')
        a++;
    while (b > a && all[b - 1] == '0')
        b--;
    memcpy(digits, all + a, (size_t)(b - a));
    digits[b - a] = '\0';
    return b - a;
}

/* Does some decimal with nd significant digits read back as v (> 0)?
 * Checks the two nd-digit decimals around v: if neither does, none does. */
static bool nd_digits_round_trip(double v, int nd) {
    char t[64];
    snprintf(t, sizeof t, "%.*e", nd - 1, v);
    double r = strtod(t, NULL);
    if (r == v)
        return true;
    /* t = d.ddd e E: as an integer mantissa D times 10^(E - nd + 1) */
    char *e = strchr(t, 'e');
    int ex = atoi(e + 1) - (nd - 1);
    uint64_t m = 0;
    for (char *p = t; p < e; p++)
        if (*p >= '0' && *p <= '9')
            m = m * 10 + (uint64_t)(*p - '0');
    uint64_t pow = 1;
    for (int i = 1; i < nd; i++)
        pow *= 10;
    if (r < v) {
        m++; /* 999 + 1 = 1000: still the right neighbour, at this scale */
    } else if (m == pow) {
        m = pow * 10 - 1; /* below 1000 x 10^ex comes 9999 x 10^(ex-1) */
        ex--;
    } else {
        m--;
    }
    snprintf(t, sizeof t, "%" PRIu64 "e%d", m, ex);
    return strtod(t, NULL) == v;
}

/* The text's layout follows JavaScript: plain decimal notation for exponents
 * -7 < k < 21, else d[.ddd]e±k; ".0" on integral values in plain form. */
static void check_layout(const char *s, double v) {
    const char *p = s;
    if (signbit(v))
        assert_true(*p++ == '-');
    const char *e = strchr(p, 'e');
    if (e) {
        /* d or d.ddd, no trailing zero, explicit sign */
        if (!(p[0] >= '1' && p[0] <= '9'))
            fail_msg("%s: mantissa starts badly", s);
        if (p + 1 != e && (p[1] != '.' || e[-1] == '0' || e - p < 3))
            fail_msg("%s: bad mantissa", s);
        if (e[1] != '+' && e[1] != '-')
            fail_msg("%s: exponent without sign", s);
        int k = atoi(e + 1);
        if (k > -7 && k < 21)
            fail_msg("%s: exponent %d should be written out", s, k);
        for (const char *q = e + 2; *q; q++)
            assert_true(*q >= '0' && *q <= '9');
        assert_true(e[2] != '0');
        return;
    }
    const char *dot = strchr(p, '.');
    if (!dot)
        fail_msg("%s: no point", s);
    /* no leading zeros except the one before the point */
    if (p[0] == '0' && dot != p + 1)
        fail_msg("%s: leading zero", s);
    /* the decimal exponent is within -7 < k < 21 */
    int k;
    if (p[0] != '0') {
        k = (int)(dot - p) - 1;
    } else {
        const char *q = dot + 1;
        while (*q == '0')
            q++;
        k = -(int)(q - dot);
    }
    if (!(k > -7 && k < 21))
        fail_msg("%s: exponent %d should use e notation", s, k);
    /* after the point: ".0" alone, or digits without a trailing zero */
    size_t frac = strlen(dot + 1);
    if (frac == 0 || (frac > 1 && dot[frac] == '0'))
        fail_msg("%s: bad fraction", s);
    if ((strcmp(dot, ".0") == 0) != is_integral(v))
        fail_msg("%s: not integral", s);
}

/* One value: reads back exactly; is the shortest and the closest; layout. */
static void check_format(double v, bool check_short, size_t *not_shortest) {
    char buf[32];
    size_t len = rig_json_format_double(v, buf);
    if (len != strlen(buf) || len > 31)
        fail_msg("%.17g: length %zu for \"%s\"", v, len, buf);
    if (!isfinite(v)) {
        assert_string_equal(buf, "null");
        return;
    }
    double back = strtod(buf, NULL);
    if (bits_of(back) != bits_of(v))
        fail_msg("%.17g (%#" PRIx64 ") -> \"%s\" reads back as %.17g", v, bits_of(v), buf, back);
    check_layout(buf, v);
    if (v == 0)
        return;
    double a = fabs(v);
    char digits[40];
    int nd = sig_digits(buf, digits);
    assert_true(nd >= 1 && nd <= 17);
    if (nd > 1 && nd_digits_round_trip(a, nd - 1)) {
        if (check_short)
            fail_msg("%.17g -> \"%s\": %d digits is not the shortest", v, buf, nd);
        (*not_shortest)++;
        return;
    }
    /* among the nd-digit decimals that read back, the closest (the correctly
     * rounded one, when it reads back) */
    char t[64], td[40];
    snprintf(t, sizeof t, "%.*e", nd - 1, a);
    if (strtod(t, NULL) == a) {
        sig_digits(t, td);
        if (strcmp(td, digits) != 0)
            fail_msg("%.17g -> \"%s\": digits %s, but %s is closer", v, buf, digits, td);
    }
}

static void test_format_double_random_bits(void **state) {
    (void)state;
    rng = 1234567;
    size_t dummy = 0, subnormals = 0;
    for (int i = 0; i < 200000; i++) {
        double v = double_of(rnd());
        subnormals += fpclassify(v) == FP_SUBNORMAL;
        check_format(v, true, &dummy);
    }
    assert_true(subnormals > 20);
}

static void test_format_double_random_decimals(void **state) {
    (void)state;
    rng = 42;
    char t[64];
    for (int i = 0; i < 60000; i++) {
        /* 1 to 17 random digits, at a random scale */
        unsigned nd = 1 + rnd_below(17);
        uint64_t m = 0;
        for (unsigned k = 0; k < nd; k++)
            m = m * 10 + rnd_below(10);
        int ex = (int)rnd_below(80) - 40;
        if (i % 3 == 0)
            ex = (int)rnd_below(600) - 300;
        snprintf(t, sizeof t, "%" PRIu64 "e%d", m, ex);
        double v = strtod(t, NULL);
        if (rnd_below(4) == 0)
            v = -v;
        size_t dummy = 0;
        check_format(v, true, &dummy);
        /* short decimals come back as written: at most nd digits */
        if (v != 0 && nd <= 15) {
            char buf[32], dg[40];
            rig_json_format_double(v, buf);
            if (sig_digits(buf, dg) > (int)nd)
                fail_msg("%s -> \"%s\": more digits than written", t, buf);
        }
    }
    /* integers, powers of two and of ten, and their neighbours */
    for (int k = -1074; k <= 1023; k++) {
        double p = pow2(k);
        size_t dummy = 0;
        check_format(p, true, &dummy);
        check_format(next_down(p), true, &dummy);
        check_format(next_up(p), true, &dummy);
    }
    for (int k = -323; k <= 308; k++) {
        snprintf(t, sizeof t, "1e%d", k);
        double p = strtod(t, NULL);
        size_t dummy = 0;
        check_format(p, true, &dummy);
        check_format(next_down(p), true, &dummy);
        check_format(next_up(p), true, &dummy);
    }
    for (int64_t i = -2000; i <= 2000; i++) {
        size_t dummy = 0;
        check_format((double)i, true, &dummy);
        check_format((double)i + 0.5, true, &dummy);
    }
}

/* Subnormals carry fewer than 53 bits, so a short decimal can read back even
 * when the 15-digit form also does: 5e-324 must not come out as
 * "4.94065645841247e-324", as it did before 9fe086c. */
static void test_format_double_subnormals(void **state) {
    (void)state;
    size_t misses = 0, n = 0;
    rng = 99;
    for (int i = 0; i < 20000; i++) {
        uint64_t b = rnd() & 0x000FFFFFFFFFFFFFull;
        b >>= rnd_below(52);
        if (b == 0)
            continue;
        check_format(double_of(b), false, &misses); /* reads back, layout, closeness */
        n++;
    }
    print_message("# %zu of %zu random subnormals are not formatted shortest\n", misses, n);
    check_golden(subnormal_table, sizeof subnormal_table / sizeof subnormal_table[0],
                 "subnormal");
    assert_int_equal(misses, 0);
}

/* A writer returned by value keeps working: its open-container stack lives
 * inside the struct until it outgrows it, and nothing points into the struct. */
static rig_json_writer make_writer(unsigned flags) {
    rig_json_writer w;
    rig_json_writer_init(&w, flags);
    return w;
}

static void test_writer_moved_by_value(void **state) {
    (void)state;
    rig_json_writer w = make_writer(0);
    for (int i = 0; i < 40; i++) /* past the inline stack of 32 */
        assert_int_equal(rig_json_write_array_begin(&w), 0);
    rig_json_writer moved = w; /* a move: only `moved` is used from here */
    for (int i = 0; i < 40; i++)
        assert_int_equal(rig_json_write_array_end(&moved), 0);
    size_t len;
    const char *out = rig_json_writer_finish(&moved, &len);
    assert_non_null(out);
    assert_int_equal(len, 80);
    rig_json_writer_free(&moved);
    rig_json_writer w2 = make_writer(0);
    assert_int_equal(rig_json_write_object_begin(&w2), 0);
    assert_int_equal(rig_json_write_key(&w2, "k"), 0);
    assert_int_equal(rig_json_write_array_begin(&w2), 0);
    assert_int_equal(rig_json_write_array_end(&w2), 0);
    assert_int_equal(rig_json_write_object_end(&w2), 0);
    assert_string_equal(rig_json_writer_finish(&w2, NULL), "{\"k\":[]}");
    rig_json_writer_free(&w2);
}

/* Copying an object member by member: keys from the document, escaped or
 * not, come out as keys; a non-string is refused. */
static void test_keyv_copies_keys(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("{\"plain\":1,\"esc\\u00e9\\n\":[2],\"drop\":3}");
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_iter it = rig_json_iter_init(rig_json_doc_root(d));
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        if (rig_json_str_eq(k, "drop"))
            continue;
        assert_int_equal(rig_json_write_keyv(&w, k), 0);
        rig_json_write_value(&w, v);
    }
    rig_json_write_object_end(&w);
    size_t len;
    assert_string_equal(rig_json_writer_finish(&w, &len), "{\"plain\":1,\"esc\xc3\xa9\\n\":[2]}");
    rig_json_writer_free(&w);
    /* a value that is no string, and a key where a value belongs */
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    assert_int_equal(rig_json_write_keyv(&w, rig_json_get(rig_json_doc_root(d), "plain")),
                     RIG_JSON_EINVAL);
    rig_json_writer_free(&w);
    rig_json_writer_init(&w, 0);
    rig_json_write_array_begin(&w);
    it = rig_json_iter_init(rig_json_doc_root(d));
    rig_json_iter_member(&it, &k, &v);
    assert_int_equal(rig_json_write_keyv(&w, k), RIG_JSON_EUSAGE);
    rig_json_writer_free(&w);
    rig_json_doc_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_moved_by_value),
        cmocka_unit_test(test_all_calls_compact),
        cmocka_unit_test(test_all_calls_pretty),
        cmocka_unit_test(test_top_level_scalars),
        cmocka_unit_test(test_doubles_in_writer),
        cmocka_unit_test(test_int_formatting),
        cmocka_unit_test(test_escape_control_bytes),
        cmocka_unit_test(test_escape_valid_utf8_raw),
        cmocka_unit_test(test_escape_invalid_utf8_replaced),
        cmocka_unit_test(test_escape_at_every_offset),
        cmocka_unit_test(test_escape_random_vs_reference),
        cmocka_unit_test(test_keys_random_vs_reference),
        cmocka_unit_test(test_misuse_is_sticky),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_finish_incomplete_then_continue),
        cmocka_unit_test(test_reset_and_reuse),
        cmocka_unit_test(test_detach),
        cmocka_unit_test(test_write_value_duplicates),
        cmocka_unit_test(test_write_value_strings),
        cmocka_unit_test(test_write_value_numbers_as_written),
        cmocka_unit_test(test_write_value_containers_and_pretty),
        cmocka_unit_test(test_write_value_inside_larger_document),
        cmocka_unit_test(test_write_value_deep_nesting),
        cmocka_unit_test(test_pretty_deep_objects),
        cmocka_unit_test(test_write_value_random_fixed_point),
        cmocka_unit_test(test_ten_megabyte_string_round_trip),
        cmocka_unit_test(test_format_double_golden),
        cmocka_unit_test(test_format_double_node_table),
        cmocka_unit_test(test_format_double_random_bits),
        cmocka_unit_test(test_format_double_random_decimals),
        cmocka_unit_test(test_format_double_subnormals),
        cmocka_unit_test(test_keyv_copies_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
