/* test_json_equal.c — deep equality: by JSON value, across documents, at any
 * depth and size. */
#include "testing.h"

static bool eq(const char *a, const char *b) {
    rig_json_doc *da = parse_ok(a), *db = parse_ok(b);
    bool r = rig_json_equal(rig_json_doc_root(da), rig_json_doc_root(db));
    /* equality is symmetric */
    assert_int_equal(r, rig_json_equal(rig_json_doc_root(db), rig_json_doc_root(da)));
    rig_json_doc_free(da);
    rig_json_doc_free(db);
    return r;
}

static void test_scalars(void **state) {
    (void)state;
    assert_true(eq("null", "null"));
    assert_true(eq("true", "true"));
    assert_false(eq("true", "false"));
    assert_false(eq("null", "false"));
    assert_false(eq("0", "false"));
    assert_false(eq("\"1\"", "1"));
    assert_false(eq("[]", "{}"));
    assert_false(eq("null", "[]"));
}

static void test_numbers_by_value(void **state) {
    (void)state;
    assert_true(eq("1", "1.0"));
    assert_true(eq("100", "1e2"));
    assert_true(eq("-0", "0"));
    assert_true(eq("-0.0", "0"));
    assert_true(eq("0.1", "1e-1"));
    assert_false(eq("1", "1.5"));
    assert_false(eq("1", "2"));
    assert_false(eq("0.1", "0.10000000000000002"));
    /* 2^63 as a double is not INT64_MAX, and -2^63 is INT64_MIN exactly */
    assert_false(eq("9223372036854775807", "9223372036854775808.0"));
    assert_true(eq("-9223372036854775808", "-9223372036854775808.0"));
    /* an int and a double that rounds to it are not the same number */
    assert_false(eq("9007199254740993", "9007199254740993.0"));
    assert_true(eq("9007199254740992", "9007199254740993.0"));
    assert_false(eq("1e300", "1"));
    assert_true(eq("123456789012345678901234567890", "1.2345678901234568e29"));
}

static void test_strings_decoded(void **state) {
    (void)state;
    assert_true(eq("\"ab\"", "\"a\\u0062\""));
    assert_true(eq("\"\\u00e9\"", "\"\xc3\xa9\""));
    assert_true(eq("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\""));
    assert_true(eq("\"\\/\"", "\"/\""));
    assert_true(eq("\"\\ud800\"", "\"\xef\xbf\xbd\""));
    assert_false(eq("\"ab\"", "\"abc\""));
    assert_false(eq("\"a\\u0000\"", "\"a\""));
    assert_true(eq("\"\"", "\"\""));
}

static void test_containers(void **state) {
    (void)state;
    assert_true(eq("[1,[2,{\"a\":3}]]", "[1, [2, {\"a\": 3.0}]]"));
    assert_false(eq("[1,2]", "[2,1]"));
    assert_false(eq("[1,2]", "[1,2,3]"));
    assert_false(eq("[[]]", "[[1]]"));
    assert_true(eq("{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}"));
    assert_false(eq("{\"a\":1}", "{\"a\":1,\"b\":2}"));
    assert_false(eq("{\"a\":1}", "{\"b\":1}"));
    assert_false(eq("{\"a\":{\"x\":1}}", "{\"a\":{\"x\":2}}"));
    /* duplicates: the last one counts, and the earlier ones do not add keys */
    assert_true(eq("{\"a\":1,\"a\":2}", "{\"a\":2}"));
    assert_false(eq("{\"a\":1,\"a\":2}", "{\"a\":1}"));
    assert_true(eq("{\"a\":1,\"b\":0,\"a\":2}", "{\"b\":0,\"a\":2,\"a\":2}"));
    assert_true(eq("{\"a\\u0062\":1}", "{\"ab\":1}"));
}

/* Objects past 32 members compare through a hash index. */
static void test_large_objects(void **state) {
    (void)state;
    char a[16384], b[16384];
    size_t oa = 0, ob = 0;
    oa += (size_t)snprintf(a + oa, sizeof a - oa, "{");
    ob += (size_t)snprintf(b + ob, sizeof b - ob, "{");
    for (int i = 0; i < 500; i++) {
        oa += (size_t)snprintf(a + oa, sizeof a - oa, "%s\"key%d\":%d", i ? "," : "", i, i);
        int j = 499 - i; /* b lists the same members backwards, one key escaped */
        if (j == 7)
            ob += (size_t)snprintf(b + ob, sizeof b - ob, "%s\"key\\u0037\":7", i ? "," : "");
        else
            ob += (size_t)snprintf(b + ob, sizeof b - ob, "%s\"key%d\":%d", i ? "," : "", j, j);
    }
    snprintf(a + oa, sizeof a - oa, "}");
    snprintf(b + ob, sizeof b - ob, "}");
    assert_true(eq(a, b));
    /* one value differs */
    char *p = strstr(b, "\"key250\":250");
    assert_non_null(p);
    memcpy(p, "\"key250\":251", 12);
    assert_false(eq(a, b));
    /* one key differs */
    memcpy(p, "\"key25x\":250", 12);
    assert_false(eq(a, b));
}

static void test_missing_and_cross_document(void **state) {
    (void)state;
    rig_json_val none = {NULL, 0};
    rig_json_doc *d = parse_ok("{\"x\":[1,2],\"y\":[1,2]}");
    rig_json_val root = rig_json_doc_root(d);
    assert_true(rig_json_equal(none, none));
    assert_false(rig_json_equal(root, none));
    assert_false(rig_json_equal(none, root));
    assert_true(rig_json_equal(rig_json_get(root, "x"), rig_json_get(root, "y")));
    assert_true(rig_json_equal(root, root));
    rig_json_doc_free(d);
}

static void test_deep_nesting(void **state) {
    (void)state;
    size_t depth = 100000, len = 2 * depth + 1;
    char *a = malloc(len + 1), *b = malloc(len + 1);
    memset(a, '[', depth);
    a[depth] = '1';
    memset(a + depth + 1, ']', depth);
    a[len] = '\0';
    memcpy(b, a, len + 1);
    rig_json_options o = {.max_depth = 200000};
    rig_json_doc *da = rig_json_parse(a, len, &o, NULL), *db = rig_json_parse(b, len, &o, NULL);
    assert_non_null(da);
    assert_non_null(db);
    assert_true(rig_json_equal(rig_json_doc_root(da), rig_json_doc_root(db)));
    rig_json_doc_free(db);
    b[depth] = '2';
    db = rig_json_parse(b, len, &o, NULL);
    assert_false(rig_json_equal(rig_json_doc_root(da), rig_json_doc_root(db)));
    rig_json_doc_free(da);
    rig_json_doc_free(db);
    free(a);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_numbers_by_value),
        cmocka_unit_test(test_strings_decoded),
        cmocka_unit_test(test_containers),
        cmocka_unit_test(test_large_objects),
        cmocka_unit_test(test_missing_and_cross_document),
        cmocka_unit_test(test_deep_nesting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
