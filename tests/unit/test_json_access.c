/* test_json_access.c — reading documents: types, lookup, iteration, the last
 * duplicate winning everywhere, getters, strings, JSON Pointer, raw text. */
#include <math.h>

#include "testing.h"

static void test_types_and_names(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("[null,true,false,1,1.5,\"s\",[],{}]");
    rig_json_val a = rig_json_doc_root(d);
    static const rig_json_type want[] = {RIG_JSON_NULL, RIG_JSON_BOOL,   RIG_JSON_BOOL,
                                         RIG_JSON_INT,  RIG_JSON_DOUBLE, RIG_JSON_STRING,
                                         RIG_JSON_ARRAY, RIG_JSON_OBJECT};
    static const char *names[] = {"null",   "boolean", "boolean", "integer",
                                  "number", "string",  "array",   "object"};
    for (size_t i = 0; i < 8; i++) {
        rig_json_val v = rig_json_at(a, i);
        assert_true(rig_json_exists(v));
        assert_int_equal(rig_json_typeof(v), want[i]);
        assert_string_equal(rig_json_type_name(rig_json_typeof(v)), names[i]);
    }
    assert_true(rig_json_is_null(rig_json_at(a, 0)));
    assert_true(rig_json_is_number(rig_json_at(a, 3)));
    assert_true(rig_json_is_number(rig_json_at(a, 4)));
    assert_false(rig_json_is_number(rig_json_at(a, 5)));
    assert_true(rig_json_is_string(rig_json_at(a, 5)));
    assert_true(rig_json_is_array(rig_json_at(a, 6)));
    assert_true(rig_json_is_object(rig_json_at(a, 7)));
    /* past the end: missing, and every accessor takes missing calmly */
    rig_json_val m = rig_json_at(a, 8);
    assert_false(rig_json_exists(m));
    assert_int_equal(rig_json_typeof(m), RIG_JSON_MISSING);
    assert_string_equal(rig_json_type_name(RIG_JSON_MISSING), "missing");
    assert_int_equal(rig_json_len(m), 0);
    assert_false(rig_json_exists(rig_json_get(m, "x")));
    assert_false(rig_json_exists(rig_json_at(m, 0)));
    assert_null(rig_json_raw(m, NULL));
    assert_int_equal(rig_json_val_flags(m), 0);
    assert_false(rig_json_exists(rig_json_doc_root(NULL)));
    rig_json_doc_free(d);
}

static void test_lookup(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("{\"jsonrpc\":\"2.0\",\"id\":7,\"params\":{\"name\":\"grep\","
                               "\"arguments\":{\"a\\u0062\":1,\"\":2,\"nul\\u0000key\":3}}}");
    rig_json_val root = rig_json_doc_root(d);
    int64_t id;
    assert_int_equal(rig_json_get_int64(rig_json_get(root, "id"), &id), 0);
    assert_int_equal(id, 7);
    rig_json_val args = rig_json_get(rig_json_get(root, "params"), "arguments");
    assert_int_equal(rig_json_typeof(args), RIG_JSON_OBJECT);
    /* keys compare after decoding */
    assert_true(rig_json_exists(rig_json_get(args, "ab")));
    assert_false(rig_json_exists(rig_json_get(args, "a\\u0062")));
    assert_true(rig_json_exists(rig_json_get(args, "")));
    /* a key with a NUL needs the n form */
    rig_json_val v = rig_json_getn(args, "nul\0key", 7);
    assert_int_equal(rig_json_get_int64(v, &id), 0);
    assert_int_equal(id, 3);
    assert_false(rig_json_exists(rig_json_get(args, "nul")));
    /* lookups on non-objects and with bad keys are missing */
    assert_false(rig_json_exists(rig_json_get(rig_json_get(root, "id"), "x")));
    assert_false(rig_json_exists(rig_json_get(root, NULL)));
    assert_false(rig_json_exists(rig_json_getn(root, NULL, 3)));
    assert_false(rig_json_exists(rig_json_get(root, "missing")));
    /* keys are not values: lookup by a value's text finds nothing */
    assert_false(rig_json_exists(rig_json_get(root, "2.0")));
    rig_json_doc_free(d);
}

static void test_duplicates_last_wins(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("{\"a\":1,\"b\":{\"x\":[1]},\"a\":2,\"c\":3,\"b\":4,\"a\":5}");
    rig_json_val root = rig_json_doc_root(d);
    assert_int_equal(rig_json_len(root), 3);
    int64_t v;
    assert_int_equal(rig_json_get_int64(rig_json_get(root, "a"), &v), 0);
    assert_int_equal(v, 5);
    assert_int_equal(rig_json_get_int64(rig_json_get(root, "b"), &v), 0);
    assert_int_equal(v, 4);
    assert_int_equal(rig_json_get_int64(rig_json_pointer(root, "/a"), &v), 0);
    assert_int_equal(v, 5);
    /* iteration: each key once, at its last position */
    rig_json_iter it = rig_json_iter_init(root);
    rig_json_val k, val;
    const char *order[] = {"c", "b", "a"};
    int64_t vals[] = {3, 4, 5};
    size_t n = 0;
    while (rig_json_iter_member(&it, &k, &val)) {
        assert_true(n < 3);
        assert_true(rig_json_str_eq(k, order[n]));
        assert_int_equal(rig_json_get_int64(val, &v), 0);
        assert_int_equal(v, vals[n]);
        n++;
    }
    assert_int_equal(n, 3);
    /* iter_next over an object yields the values */
    it = rig_json_iter_init(root);
    n = 0;
    while (rig_json_iter_next(&it, &val))
        n++;
    assert_int_equal(n, 3);
    /* raw text keeps everything as written */
    size_t len;
    rig_json_raw(root, &len);
    assert_int_equal(len, strlen("{\"a\":1,\"b\":{\"x\":[1]},\"a\":2,\"c\":3,\"b\":4,\"a\":5}"));
    rig_json_doc_free(d);

    /* escaped and plain spellings of one key are duplicates too */
    d = parse_ok("{\"ab\":1,\"a\\u0062\":2}");
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 1);
    assert_int_equal(rig_json_get_int64(rig_json_get(rig_json_doc_root(d), "ab"), &v), 0);
    assert_int_equal(v, 2);
    rig_json_doc_free(d);
}

/* Objects past 16 members take the hashed duplicate path in the parser. */
static void test_duplicates_in_large_objects(void **state) {
    (void)state;
    char buf[8192];
    size_t o = 0;
    o += (size_t)snprintf(buf + o, sizeof buf - o, "{");
    for (int i = 0; i < 200; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s\"k%d\":%d", i ? "," : "", i % 50, i);
    o += (size_t)snprintf(buf + o, sizeof buf - o, ",\"k\\u0031\":-1}");
    rig_json_doc *d = parse_ok(buf);
    rig_json_val root = rig_json_doc_root(d);
    assert_int_equal(rig_json_len(root), 50);
    int64_t v;
    for (int k = 0; k < 50; k++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", k);
        assert_int_equal(rig_json_get_int64(rig_json_get(root, key), &v), 0);
        assert_int_equal(v, k == 1 ? -1 : 150 + k);
    }
    size_t n = 0;
    rig_json_iter it = rig_json_iter_init(root);
    rig_json_val key, val;
    while (rig_json_iter_member(&it, &key, &val))
        n++;
    assert_int_equal(n, 50);
    rig_json_doc_free(d);
}

static void test_array_access(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("[10,[20,21],{\"x\":30},40]");
    rig_json_val a = rig_json_doc_root(d);
    assert_int_equal(rig_json_len(a), 4);
    int64_t v;
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 3), &v), 0);
    assert_int_equal(v, 40); /* stepping over nested containers */
    assert_int_equal(rig_json_get_int64(rig_json_at(rig_json_at(a, 1), 1), &v), 0);
    assert_int_equal(v, 21);
    rig_json_iter it = rig_json_iter_init(a);
    rig_json_val e;
    size_t n = 0;
    while (rig_json_iter_next(&it, &e))
        n++;
    assert_int_equal(n, 4);
    /* member iteration over an array yields nothing */
    it = rig_json_iter_init(a);
    rig_json_val k;
    assert_false(rig_json_iter_member(&it, &k, &e));
    /* iterating a scalar or missing yields nothing */
    it = rig_json_iter_init(rig_json_at(a, 0));
    assert_false(rig_json_iter_next(&it, &e));
    it = rig_json_iter_init(rig_json_at(a, 9));
    assert_false(rig_json_iter_next(&it, &e));
    /* empty containers */
    rig_json_doc_free(d);
    d = parse_ok("[[],{}]");
    a = rig_json_doc_root(d);
    assert_int_equal(rig_json_len(rig_json_at(a, 0)), 0);
    assert_int_equal(rig_json_len(rig_json_at(a, 1)), 0);
    it = rig_json_iter_init(rig_json_at(a, 1));
    assert_false(rig_json_iter_member(&it, &k, &e));
    assert_int_equal(rig_json_len(rig_json_at(a, 0)), 0);
    assert_false(rig_json_exists(rig_json_at(rig_json_at(a, 0), 0)));
    rig_json_doc_free(d);
}

static void test_scalar_getters(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("[true,false,null,42,-7.5,1e3,\"9\",9007199254740993]");
    rig_json_val a = rig_json_doc_root(d);
    bool b;
    int64_t i;
    double x;
    assert_int_equal(rig_json_get_bool(rig_json_at(a, 0), &b), 0);
    assert_true(b);
    assert_int_equal(rig_json_get_bool(rig_json_at(a, 1), &b), 0);
    assert_false(b);
    assert_int_equal(rig_json_get_bool(rig_json_at(a, 2), &b), RIG_JSON_ETYPE);
    assert_int_equal(rig_json_get_bool(rig_json_at(a, 99), &b), RIG_JSON_EMISSING);
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 3), &i), 0);
    assert_int_equal(i, 42);
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 4), &i), RIG_JSON_ERANGE);
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 5), &i), 0);
    assert_int_equal(i, 1000);
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 6), &i), RIG_JSON_ETYPE);
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 99), &i), RIG_JSON_EMISSING);
    assert_int_equal(rig_json_get_double(rig_json_at(a, 3), &x), 0);
    assert_true(x == 42.0);
    assert_int_equal(rig_json_get_double(rig_json_at(a, 4), &x), 0);
    assert_true(x == -7.5);
    assert_int_equal(rig_json_get_double(rig_json_at(a, 0), &x), RIG_JSON_ETYPE);
    assert_int_equal(rig_json_get_double(rig_json_at(a, 99), &x), RIG_JSON_EMISSING);
    /* an int beyond 2^53 stays exact as an int; as a double it rounds */
    assert_int_equal(rig_json_get_int64(rig_json_at(a, 7), &i), 0);
    assert_true(i == 9007199254740993LL);
    assert_int_equal(rig_json_get_double(rig_json_at(a, 7), &x), 0);
    assert_true(x == 9007199254740992.0);
    rig_json_doc_free(d);
}

static void test_strings(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("[\"plain\",\"tab\\there \\u00e9\\ud83d\\ude00\\/\",\"\",\"n\\u0000l\",1]");
    rig_json_val a = rig_json_doc_root(d);
    rig_json_val plain = rig_json_at(a, 0), esc = rig_json_at(a, 1), empty = rig_json_at(a, 2),
                 nul = rig_json_at(a, 3), num = rig_json_at(a, 4);
    const char *want = "tab\there \xc3\xa9\xf0\x9f\x98\x80/";
    size_t wlen = strlen(want);
    assert_int_equal(rig_json_str_len(plain), 5);
    assert_int_equal(rig_json_str_len(esc), wlen);
    assert_int_equal(rig_json_str_len(num), 0);
    char buf[64];
    size_t n;
    assert_int_equal(rig_json_str_copy(esc, buf, sizeof buf, &n), 0);
    assert_int_equal(n, wlen);
    assert_string_equal(buf, want);
    /* too small: ENOSPC with the needed length, for exactly len and len+1 */
    assert_int_equal(rig_json_str_copy(esc, buf, wlen, &n), RIG_JSON_ENOSPC);
    assert_int_equal(n, wlen);
    assert_int_equal(rig_json_str_copy(esc, buf, wlen + 1, &n), 0);
    assert_int_equal(rig_json_str_copy(esc, NULL, 0, &n), RIG_JSON_ENOSPC);
    assert_int_equal(rig_json_str_copy(num, buf, sizeof buf, &n), RIG_JSON_ETYPE);
    assert_int_equal(rig_json_str_copy(rig_json_at(a, 9), buf, sizeof buf, &n), RIG_JSON_EMISSING);
    assert_int_equal(rig_json_str_copy(empty, buf, 1, NULL), 0);
    assert_string_equal(buf, "");

    /* view: zero-copy for plain strings only */
    const char *p;
    assert_true(rig_json_str_view(plain, &p, &n));
    assert_int_equal(n, 5);
    assert_memory_equal(p, "plain", 5);
    assert_false(rig_json_str_view(esc, &p, &n));
    assert_false(rig_json_str_view(num, &p, &n));

    /* equality with C strings */
    assert_true(rig_json_str_eq(plain, "plain"));
    assert_false(rig_json_str_eq(plain, "plai"));
    assert_false(rig_json_str_eq(plain, "plainer"));
    assert_true(rig_json_str_eq(esc, want));
    assert_true(rig_json_str_eq(empty, ""));
    assert_false(rig_json_str_eq(num, "1"));
    assert_false(rig_json_str_eq(plain, NULL));
    assert_true(rig_json_str_eqn(nul, "n\0l", 3));
    assert_false(rig_json_str_eq(nul, "n"));

    /* dup into an arena */
    rig_arena *ar = rig_arena_new(0);
    const char *s = rig_json_str_dup(esc, ar, &n);
    assert_non_null(s);
    assert_int_equal(n, wlen);
    assert_string_equal(s, want);
    s = rig_json_str_dup(nul, ar, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(s, "n\0l", 4);
    assert_null(rig_json_str_dup(num, ar, &n));
    assert_null(rig_json_str_dup(plain, NULL, &n));
    rig_arena_free(ar);

    assert_int_equal(rig_json_val_flags(plain), 0);
    assert_int_equal(rig_json_val_flags(esc), RIG_JSON_VAL_ESCAPED);
    rig_json_doc_free(d);

    /* lone surrogates decode as U+FFFD and are flagged */
    d = parse_ok("\"a\\udc00b\\ud800\"");
    rig_json_val v = rig_json_doc_root(d);
    assert_int_equal(rig_json_val_flags(v), RIG_JSON_VAL_ESCAPED | RIG_JSON_VAL_REPLACED);
    assert_int_equal(rig_json_str_copy(v, buf, sizeof buf, &n), 0);
    assert_int_equal(n, 8);
    assert_memory_equal(buf, "a\xef\xbf\xbd" "b\xef\xbf\xbd", 8);
    assert_true(rig_json_str_eq(v, "a\xef\xbf\xbd" "b\xef\xbf\xbd"));
    rig_json_doc_free(d);
}

/* RFC 6901, section 5: the example document and every pointer it lists. */
static void test_json_pointer_rfc6901(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2, "
                               "\"e^f\": 3, \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6, \" \": 7, "
                               "\"m~n\": 8}");
    rig_json_val root = rig_json_doc_root(d);
    assert_true(rig_json_equal(rig_json_pointer(root, ""), root));
    size_t len;
    const char *raw = rig_json_raw(rig_json_pointer(root, "/foo"), &len);
    assert_int_equal(len, strlen("[\"bar\", \"baz\"]"));
    assert_memory_equal(raw, "[\"bar\", \"baz\"]", len);
    assert_true(rig_json_str_eq(rig_json_pointer(root, "/foo/0"), "bar"));
    static const struct {
        const char *ptr;
        int64_t want;
    } cases[] = {{"/", 0},   {"/a~1b", 1}, {"/c%d", 2}, {"/e^f", 3}, {"/g|h", 4},
                 {"/i\\j", 5}, {"/k\"l", 6}, {"/ ", 7},   {"/m~0n", 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v;
        if (rig_json_get_int64(rig_json_pointer(root, cases[i].ptr), &v) != 0)
            fail_msg("pointer %s found nothing", cases[i].ptr);
        assert_int_equal(v, cases[i].want);
    }
    /* malformed or leading nowhere */
    static const char *none[] = {"foo",    "/foo/2", "/foo/-", "/foo/01", "/foo/+1", "/foo/0/x",
                                 "/nope",  "/m~2n",  "/m~",    "/a~1b/x", "/foo/99999999999999999999",
                                 "/foo/ 1"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (rig_json_exists(rig_json_pointer(root, none[i])))
            fail_msg("pointer %s should lead nowhere", none[i]);
    assert_false(rig_json_exists(rig_json_pointer(root, NULL)));
    rig_json_doc_free(d);

    /* a long token with escapes (past the stack buffer) */
    char key[600], text[700], ptr[700];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    key[10] = '/';
    snprintf(text, sizeof text, "{\"%s\":true}", key);
    snprintf(ptr, sizeof ptr, "/%.*s~1%s", 10, key, key + 11);
    d = parse_ok(text);
    bool b = false;
    assert_int_equal(rig_json_get_bool(rig_json_pointer(rig_json_doc_root(d), ptr), &b), 0);
    assert_true(b);
    rig_json_doc_free(d);
}

static void test_raw_text(void **state) {
    (void)state;
    const char *text = " { \"id\" : \"req-\\u0031\" , \"n\" : -12.50e+1 , \"t\" : true , \"f\":false,"
                       "\"z\":null, \"a\" : [ 1 , { } ] , \"big\": 123456789012345678901234567890 } ";
    rig_json_doc *d = parse_ok(text);
    rig_json_val root = rig_json_doc_root(d);
    static const struct {
        const char *key, *raw;
    } cases[] = {{"id", "\"req-\\u0031\""}, {"n", "-12.50e+1"}, {"t", "true"},
                 {"f", "false"},            {"z", "null"},      {"a", "[ 1 , { } ]"},
                 {"big", "123456789012345678901234567890"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        const char *raw = rig_json_raw(rig_json_get(root, cases[i].key), &len);
        assert_non_null(raw);
        assert_int_equal(len, strlen(cases[i].raw));
        assert_memory_equal(raw, cases[i].raw, len);
    }
    size_t len;
    const char *raw = rig_json_raw(root, &len);
    assert_ptr_equal(raw, text + 1);
    assert_int_equal(len, strlen(text) - 2);
    /* a number at the very end of the input */
    rig_json_doc_free(d);
    char *exact = exact_copy("-0.25", 5);
    d = rig_json_parse(exact, 5, NULL, NULL);
    raw = rig_json_raw(rig_json_doc_root(d), &len);
    assert_int_equal(len, 5);
    assert_memory_equal(raw, "-0.25", 5);
    rig_json_doc_free(d);
    free(exact);
}

/* The node count is the document's memory (16 bytes a node). */
static void test_doc_size(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok("{\"a\":[1,2,{\"b\":null}],\"c\":\"x\"}");
    /* object, a, array, 1, 2, object, b, null, c, "x" */
    assert_int_equal(rig_json_doc_size(d), 10);
    rig_json_doc_free(d);
    assert_int_equal(rig_json_doc_size(NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_and_names),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_duplicates_last_wins),
        cmocka_unit_test(test_duplicates_in_large_objects),
        cmocka_unit_test(test_array_access),
        cmocka_unit_test(test_scalar_getters),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_json_pointer_rfc6901),
        cmocka_unit_test(test_raw_text),
        cmocka_unit_test(test_doc_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
