/* test_answer.c — answers as graders see them (src/env/answer.c, rig/env.h):
 * raw and content with and without a declared `returns` type, strings that
 * hold JSON, values that do not fit falling back to the raw string, and
 * text that is not JSON at all. */
#include "testing.h"

static rig_schema *schema(const char *s) {
    rig_error err;
    rig_schema *sc = rig_schema_compile(s, strlen(s), &err);
    if (!sc)
        fail_msg("schema %s: %s", s, err.message);
    return sc;
}

static void parse(const char *json, const rig_schema *s, rig_answer *a) {
    rig_error err = {0};
    char *copy = exact_copy(json, strlen(json));
    int rc = rig_answer_parse(copy, strlen(json), s, a, &err);
    free(copy); /* the answer keeps its own copy */
    if (rc != RIG_OK)
        fail_msg("answer %s: %s", json, err.message);
}

/* content's JSON text, for comparison */
static char *content_json(const rig_answer *a) {
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_value(&w, a->content);
    char *s = rig_json_writer_detach(&w, NULL);
    rig_json_writer_free(&w);
    assert_non_null(s);
    return s;
}

static void expect(const char *json, const char *returns, const char *raw, const char *content,
                   bool parsed) {
    rig_schema *s = returns ? schema(returns) : NULL;
    rig_answer a;
    parse(json, s, &a);
    assert_int_equal(a.raw_len, strlen(raw));
    assert_memory_equal(a.raw, raw, a.raw_len);
    assert_int_equal(a.raw[a.raw_len], '\0');
    char *c = content_json(&a);
    if (strcmp(c, content))
        fail_msg("answer %s returns %s: content %s, expected %s", json,
                 returns ? returns : "-", c, content);
    assert_int_equal(a.parsed, parsed);
    free(c);
    rig_answer_free(&a);
    rig_schema_free(s);
}

static void test_without_returns(void **state) {
    (void)state;
    expect("\"42\"", NULL, "42", "\"42\"", false);
    expect("42", NULL, "42", "42", false);
    expect(" {\"a\": [1, 2]} ", NULL, "{\"a\": [1, 2]}", "{\"a\":[1,2]}", false);
    expect("\"caf\\u00e9\\n\"", NULL, "caf\xc3\xa9\n", "\"caf\xc3\xa9\\n\"", false);
    expect("null", NULL, "null", "null", false);
}

static void test_int(void **state) {
    (void)state;
    const char *t = "{\"type\":\"integer\"}";
    expect("42", t, "42", "42", true);
    expect("\"42\"", t, "42", "42", true);            /* a string holding the number */
    expect("\" 42 \"", t, " 42 ", "42", true);        /* JSON allows the whitespace */
    expect("\"forty-two\"", t, "forty-two", "\"forty-two\"", false);
    expect("\"4.5\"", t, "4.5", "\"4.5\"", false);    /* parses, but no integer */
    expect("4.5", t, "4.5", "\"4.5\"", false);        /* a value that does not fit: raw */
    expect("\"NaN\"", t, "NaN", "\"NaN\"", false);
}

static void test_object_and_array(void **state) {
    (void)state;
    const char *o = "{\"type\":\"object\",\"required\":[\"x\"]}";
    expect("{\"x\":1}", o, "{\"x\":1}", "{\"x\":1}", true);
    expect("\"{\\\"x\\\": 1}\"", o, "{\"x\": 1}", "{\"x\":1}", true);
    expect("{\"y\":1}", o, "{\"y\":1}", "\"{\\\"y\\\":1}\"", false);
    expect("\"{not json\"", o, "{not json", "\"{not json\"", false);
    const char *a = "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}";
    expect("[\"a\",\"b\"]", a, "[\"a\",\"b\"]", "[\"a\",\"b\"]", true);
    expect("\"[\\\"a\\\"]\"", a, "[\"a\"]", "[\"a\"]", true);
    expect("[1]", a, "[1]", "\"[1]\"", false);
}

static void test_string(void **state) {
    (void)state;
    const char *t = "{\"type\":\"string\"}";
    /* a string that fits stays the string, even if it looks like JSON */
    expect("\"42\"", t, "42", "\"42\"", true);
    expect("\"\\\"q\\\"\"", t, "\"q\"", "\"\\\"q\\\"\"", true);
    expect("42", t, "42", "\"42\"", false);
    expect("\"\"", t, "", "\"\"", true);
    /* an embedded NUL survives in raw */
    rig_answer an;
    parse("\"a\\u0000b\"", NULL, &an);
    assert_int_equal(an.raw_len, 3);
    assert_memory_equal(an.raw, "a\0b", 3);
    rig_answer_free(&an);
}

static void test_bad_json(void **state) {
    (void)state;
    rig_answer a;
    rig_error err = {0};
    assert_int_equal(rig_answer_parse("{oops", 5, NULL, &a, &err), RIG_EJSON);
    assert_non_null(strstr(err.message, "not JSON"));
    rig_answer_free(&a); /* harmless after a failure */
    assert_int_equal(rig_answer_parse("", 0, NULL, &a, &err), RIG_EJSON);
    assert_int_equal(rig_answer_parse("1 2", 3, NULL, &a, &err), RIG_EJSON);
    assert_int_equal(rig_answer_parse("1", 1, NULL, NULL, &err), RIG_EINVAL);
    rig_answer_free(NULL);
}

static void test_huge(void **state) {
    (void)state;
    size_t n = 4 << 20;
    char *big = malloc(n + 3);
    assert_non_null(big);
    big[0] = '"';
    memset(big + 1, 'x', n);
    big[n + 1] = '"';
    big[n + 2] = '\0';
    rig_schema *s = schema("{\"type\":\"integer\"}");
    rig_answer a;
    parse(big, s, &a);
    assert_int_equal(a.raw_len, n);
    assert_false(a.parsed);
    assert_int_equal(rig_json_str_len(a.content), n);
    rig_answer_free(&a);
    rig_schema_free(s);
    free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_returns), cmocka_unit_test(test_int),
        cmocka_unit_test(test_object_and_array), cmocka_unit_test(test_string),
        cmocka_unit_test(test_bad_json), cmocka_unit_test(test_huge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
