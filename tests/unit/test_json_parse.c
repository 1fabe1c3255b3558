/* test_json_parse.c — the parser: what it accepts, what it rejects and with
 * which status and position, its limits and options, and document reuse. */
#include "testing.h"

typedef struct bad_case {
    const char *text;
    int code;
    size_t offset;
    size_t len; /* 0: strlen(text) */
} bad_case;

/* Each rejected input with its status and the byte offset the error names. */
static const bad_case bad[] = {
    {"", RIG_JSON_ETRUNCATED, 0},
    {"   ", RIG_JSON_ETRUNCATED, 3},
    {"[", RIG_JSON_ETRUNCATED, 1},
    {"[1", RIG_JSON_ETRUNCATED, 2},
    {"[1,", RIG_JSON_ETRUNCATED, 3},
    {"[1,]", RIG_JSON_ESYNTAX, 3},
    {"[,1]", RIG_JSON_ESYNTAX, 1},
    {"[1 2]", RIG_JSON_ESYNTAX, 3},
    {"[1:2]", RIG_JSON_ESYNTAX, 2},
    {"]", RIG_JSON_ESYNTAX, 0},
    {"[1]]", RIG_JSON_ESYNTAX, 3},
    {"[1] [2]", RIG_JSON_ESYNTAX, 4},
    {"{", RIG_JSON_ETRUNCATED, 1},
    {"{\"a\"", RIG_JSON_ETRUNCATED, 4},
    {"{\"a\":", RIG_JSON_ETRUNCATED, 5},
    {"{\"a\":1", RIG_JSON_ETRUNCATED, 6},
    {"{\"a\":1,}", RIG_JSON_ESYNTAX, 7},
    {"{\"a\" 1}", RIG_JSON_ESYNTAX, 5},
    {"{a:1}", RIG_JSON_ESYNTAX, 1},
    {"{'a':1}", RIG_JSON_ESYNTAX, 1},
    {"{1:1}", RIG_JSON_ESYNTAX, 1},
    {"{\"a\":1 \"b\":2}", RIG_JSON_ESYNTAX, 7},
    {"{\"a\"::1}", RIG_JSON_ESYNTAX, 5},
    {"{\"a\":1]", RIG_JSON_ESYNTAX, 6},
    {"[1}", RIG_JSON_ESYNTAX, 2},
    {"tru", RIG_JSON_ETRUNCATED, 3},
    {"True", RIG_JSON_ESYNTAX, 0},
    {"nul", RIG_JSON_ETRUNCATED, 3},
    {"nulx", RIG_JSON_ESYNTAX, 0},
    {"falsey", RIG_JSON_ESYNTAX, 5},
    {"truefalse", RIG_JSON_ESYNTAX, 4},
    {"NaN", RIG_JSON_ESYNTAX, 0},
    {"\"abc", RIG_JSON_ETRUNCATED, 4},
    {"\"a\\", RIG_JSON_ETRUNCATED, 3},
    {"\"\\x\"", RIG_JSON_ESTRING, 1},
    {"\"\\u12\"", RIG_JSON_ESTRING, 1},
    {"\"\\u12", RIG_JSON_ETRUNCATED, 5},
    {"\"\\uZZZZ\"", RIG_JSON_ESTRING, 1},
    {"\"a\tb\"", RIG_JSON_ESTRING, 2},
    {"\"a\nb\"", RIG_JSON_ESTRING, 2},
    {"\"\x7f\x01\"", RIG_JSON_ESTRING, 2},
    {"\"\xc3\"", RIG_JSON_EUTF8, 1},
    {"\"\xc3", RIG_JSON_ETRUNCATED, 2},
    {"\"\xe2\x82", RIG_JSON_ETRUNCATED, 3},
    {"\"\xe2\x82\"", RIG_JSON_EUTF8, 1},
    {"\"\xc0\x80\"", RIG_JSON_EUTF8, 1},
    {"\"\xed\xa0\x80\"", RIG_JSON_EUTF8, 1},
    {"\"\xf4\x90\x80\x80\"", RIG_JSON_EUTF8, 1},
    {"\"\xff\"", RIG_JSON_EUTF8, 1},
    {"\"ok\" \xff", RIG_JSON_ESYNTAX, 5},
    {"[\"\\ud800\\u12\"]", RIG_JSON_ESTRING, 8},
    {"\xef\xbb\xbf{}", RIG_JSON_ESYNTAX, 0},
    {"\v1", RIG_JSON_ESYNTAX, 0},
    {"\f1", RIG_JSON_ESYNTAX, 0},
    {"1\0", RIG_JSON_ESYNTAX, 1, 2},
    {"/* c */ 1", RIG_JSON_ESYNTAX, 0},
    {"[1] // c", RIG_JSON_ESYNTAX, 4},
};

static void test_rejects_with_status_and_offset(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const bad_case *c = &bad[i];
        size_t len = c->len ? c->len : strlen(c->text);
        char *text = exact_copy(c->text, len);
        rig_json_error err;
        int rc = parse_status(text, len, NULL, &err);
        if (rc != c->code || err.offset != c->offset)
            fail_msg("input #%zu %s: want status %d at %zu, got %d at %zu (%s)", i, c->text, c->code,
                     c->offset, rc, err.offset, err.reason ? err.reason : "-");
        assert_int_equal(err.code, rc);
        assert_non_null(err.reason);
        free(text);
    }
}

static const char *good[] = {
    "0", "-1", "1.5", "\"\"", "\"x\"", "true", "false", "null", "[]", "{}", " [ ] ", "\t\r\n{}\n",
    "[[[]]]", "{\"\":{}}", "[1,\"a\",true,null,{\"b\":[2.5e-3]}]",
    "{\"a\":1,\"a\":2}", "\"\\u0000\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\uD834\\uDD1E\"",
    "\"\xF0\x9D\x84\x9E\"", "\"\xEF\xBF\xBF\"", "\"\xF4\x8F\xBF\xBF\"", "\"\x7F\"", "1E+2", "-0.0e-0",
};

static void test_accepts(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t len = strlen(good[i]);
        char *text = exact_copy(good[i], len);
        rig_json_error err;
        int rc = parse_status(text, len, NULL, &err);
        if (rc)
            fail_msg("%s: rejected (%s)", good[i], err.reason);
        assert_int_equal(err.code, 0);
        free(text);
    }
}

static void test_nul_inside_string_escape_only(void **state) {
    (void)state;
    /* a raw NUL byte in a string is a control character; escaped it is data */
    const char raw[] = "\"a\0b\"";
    rig_json_error err;
    assert_int_equal(parse_status(raw, sizeof raw - 1, NULL, &err), RIG_JSON_ESTRING);
    assert_int_equal(err.offset, 2);
    rig_json_doc *d = parse_ok("\"a\\u0000b\"");
    char buf[8];
    size_t n;
    assert_int_equal(rig_json_str_copy(rig_json_doc_root(d), buf, sizeof buf, &n), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(buf, "a\0b", 3);
    rig_json_doc_free(d);
}

static void test_error_line_and_column(void **state) {
    (void)state;
    /* line 3, and the column counts characters: "é" is two bytes, one column */
    const char *text = "{\n  \"a\": 1,\n  \"é\": x\n}";
    rig_json_error err;
    assert_int_equal(parse_status(text, strlen(text), NULL, &err), RIG_JSON_ESYNTAX);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.column, 8);
    assert_int_equal(err.offset, 20);
    char msg[128];
    int n = rig_json_error_format(&err, msg, sizeof msg);
    assert_string_equal(msg, "line 3, column 8 (byte 20): expected a value");
    assert_int_equal(n, (int)strlen(msg));
    /* a short buffer still gets a terminated prefix and the full length */
    char small[8];
    assert_int_equal(rig_json_error_format(&err, small, sizeof small), n);
    assert_string_equal(small, "line 3,");
}

static void test_size_limit(void **state) {
    (void)state;
    rig_json_options o = {.max_size = 8};
    rig_json_error err;
    assert_int_equal(parse_status("[1,2,3]", 7, &o, &err), 0);
    assert_int_equal(parse_status("[1,2,3,4]", 9, &o, &err), RIG_JSON_ESIZE);
    assert_int_equal(err.offset, 8);
    assert_int_equal(err.line, 0); /* no position to show */
    char msg[128];
    rig_json_error_format(&err, msg, sizeof msg);
    assert_string_equal(msg, "input is larger than the size limit");
}

static char *nested(size_t depth, size_t *len) {
    char *s = malloc(2 * depth + 1);
    assert_non_null(s);
    memset(s, '[', depth);
    memset(s + depth, ']', depth);
    s[2 * depth] = '\0';
    *len = 2 * depth;
    return s;
}

static void test_depth_limit(void **state) {
    (void)state;
    size_t len;
    char *s = nested(512, &len);
    rig_json_error err;
    assert_int_equal(parse_status(s, len, NULL, &err), 0);
    free(s);
    s = nested(513, &len);
    assert_int_equal(parse_status(s, len, NULL, &err), RIG_JSON_EDEPTH);
    assert_int_equal(err.offset, 512);
    free(s);
    rig_json_options o = {.max_depth = 3};
    assert_int_equal(parse_status("[{\"a\":[1]}]", 11, &o, &err), 0);
    assert_int_equal(parse_status("[{\"a\":[[1]]}]", 13, &o, &err), RIG_JSON_EDEPTH);
    assert_int_equal(err.offset, 7);
    /* scalars do not count */
    o.max_depth = 1;
    assert_int_equal(parse_status("[1]", 3, &o, &err), 0);
    assert_int_equal(parse_status("1", 1, &o, &err), 0);
}

static void test_flags(void **state) {
    (void)state;
    rig_json_error err;
    rig_json_options strict = {.flags = RIG_JSON_STRICT_SURROGATES};
    assert_int_equal(parse_status("\"\\ud800\"", 8, &strict, &err), RIG_JSON_ESTRING);
    assert_int_equal(err.offset, 1);
    assert_int_equal(parse_status("\"\\udc00\"", 8, &strict, &err), RIG_JSON_ESTRING);
    assert_int_equal(parse_status("\"\\ud800\\ud800\"", 14, &strict, &err), RIG_JSON_ESTRING);
    assert_int_equal(parse_status("\"\\ud83d\\ude00\"", 14, &strict, &err), 0);
    /* cut inside the pair is truncation, even when strict */
    assert_int_equal(parse_status("\"\\ud83d\\ude", 11, &strict, &err), RIG_JSON_ETRUNCATED);
    assert_int_equal(parse_status("\"\\ud83d", 7, &strict, &err), RIG_JSON_ETRUNCATED);

    rig_json_options nobig = {.flags = RIG_JSON_REJECT_BIG_INTEGERS};
    assert_int_equal(parse_status("[9223372036854775808]", 21, &nobig, &err), RIG_JSON_ERANGE);
    assert_int_equal(err.offset, 1);
    assert_int_equal(parse_status("[9223372036854775807, 1e300]", 28, &nobig, &err), 0);

    rig_json_options bom = {.flags = RIG_JSON_ALLOW_BOM};
    assert_int_equal(parse_status("\xef\xbb\xbf{}", 5, &bom, &err), 0);
    assert_int_equal(parse_status("\xef\xbb\xbf", 3, &bom, &err), RIG_JSON_ETRUNCATED);
    assert_int_equal(parse_status("\xef\xbb{}", 4, &bom, &err), RIG_JSON_ESYNTAX);
}

static void test_copy_input(void **state) {
    (void)state;
    char *text = strdup("{\"name\":\"read_file\",\"n\":[1,2]}");
    rig_json_options o = {.flags = RIG_JSON_COPY_INPUT};
    rig_json_doc *d = rig_json_parse(text, strlen(text), &o, NULL);
    assert_non_null(d);
    memset(text, 'x', strlen(text)); /* the caller's buffer is gone */
    free(text);
    rig_json_val root = rig_json_doc_root(d);
    assert_true(rig_json_str_eq(rig_json_get(root, "name"), "read_file"));
    size_t len;
    const char *raw = rig_json_raw(rig_json_get(root, "n"), &len);
    assert_int_equal(len, 5);
    assert_memory_equal(raw, "[1,2]", 5);
    rig_json_doc_free(d);
}

static void test_doc_reuse(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    assert_non_null(d);
    rig_json_error err;
    const char *a = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    assert_int_equal(rig_json_doc_parse(d, a, strlen(a), NULL, &err), 0);
    assert_int_equal(rig_json_doc_size(d), 7);
    assert_true(rig_json_str_eq(rig_json_get(rig_json_doc_root(d), "method"), "ping"));
    /* a failed parse leaves the document empty, not half-filled */
    assert_int_equal(rig_json_doc_parse(d, "[1,2", 4, NULL, &err), RIG_JSON_ETRUNCATED);
    assert_int_equal(rig_json_doc_size(d), 0);
    assert_false(rig_json_exists(rig_json_doc_root(d)));
    assert_int_equal(rig_json_typeof(rig_json_doc_root(d)), RIG_JSON_MISSING);
    /* and the next parse works */
    const char *b = "[true]";
    assert_int_equal(rig_json_doc_parse(d, b, strlen(b), NULL, &err), 0);
    assert_int_equal(rig_json_typeof(rig_json_at(rig_json_doc_root(d), 0)), RIG_JSON_BOOL);
    /* many documents in a row through one doc: nothing leaks (valgrind/ASan) */
    for (int i = 0; i < 1000; i++) {
        char msg[64];
        int n = snprintf(msg, sizeof msg, "{\"id\":%d,\"k\":[%d,{\"x\":\"y\"}]}", i, i);
        assert_int_equal(rig_json_doc_parse(d, msg, (size_t)n, NULL, NULL), 0);
        int64_t id;
        assert_int_equal(rig_json_get_int64(rig_json_get(rig_json_doc_root(d), "id"), &id), 0);
        assert_int_equal(id, i);
    }
    rig_json_doc_free(d);
    rig_json_doc_free(NULL);
}

static void test_bad_arguments(void **state) {
    (void)state;
    rig_json_error err;
    rig_json_doc *d = rig_json_doc_new();
    assert_int_equal(rig_json_doc_parse(d, NULL, 3, NULL, &err), RIG_JSON_EINVAL);
    assert_int_equal(rig_json_doc_parse(d, NULL, 0, NULL, &err), RIG_JSON_ETRUNCATED);
    assert_int_equal(rig_json_doc_parse(d, "1", 1, NULL, NULL), 0); /* err may be NULL */
    rig_json_doc_free(d);
    assert_null(rig_json_parse("{", 1, NULL, &err));
    assert_int_equal(err.code, RIG_JSON_ETRUNCATED);
    assert_string_equal(rig_json_strerror(RIG_JSON_EDEPTH), "nesting too deep");
    assert_string_equal(rig_json_strerror(12345), "unknown error");
}

/* Every proper prefix of a valid document either is valid itself or fails as
 * truncated — never another error, never a read past the end (the prefix is
 * an exact-size heap copy, so ASan and valgrind see any overread). */
static const char *whole[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"grep\","
    "\"arguments\":{\"pattern\":\"fo+\\\\b\",\"path\":\"src\",\"limit\":-20,\"ratio\":0.25e-3,"
    "\"flags\":[true,false,null],\"u\":\"\\ud83d\\ude00 \\u00e9 \xe4\xb8\xad \xf0\x9f\x98\x80\"}}}",
    "[-0.5e+10, 12345678901234567890, \"\\\"\\\\\\/\\b\\f\\n\\r\\t\", {}, [], {\"\":[{}]}]",
    "  \"lonely\\ud800 string\"  ",
    "-1234.5678E-9",
};

static void test_truncated_at_every_offset(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    for (size_t w = 0; w < sizeof whole / sizeof whole[0]; w++) {
        size_t len = strlen(whole[w]);
        assert_int_equal(rig_json_doc_parse(d, whole[w], len, NULL, NULL), 0);
        for (size_t cut = 0; cut < len; cut++) {
            char *p = exact_copy(whole[w], cut);
            rig_json_error err;
            int rc = rig_json_doc_parse(d, p, cut, NULL, &err);
            if (rc != 0 && rc != RIG_JSON_ETRUNCATED)
                fail_msg("doc %zu cut at %zu: status %d (%s) at %zu", w, cut, rc, err.reason,
                         err.offset);
            if (rc == RIG_JSON_ETRUNCATED)
                assert_int_equal(err.offset, cut);
            free(p);
        }
    }
    rig_json_doc_free(d);
}

/* Garbage bytes spliced into a valid document at every offset never crash the
 * parser and never produce a success that reads outside the input. */
static void test_corrupted_at_every_offset(void **state) {
    (void)state;
    static const char junk[] = {'\0', '"', '\\', ']', '}', ',', ':', '\xff', '\xc3', '\n'};
    rig_json_doc *d = rig_json_doc_new();
    const char *src = whole[0];
    size_t len = strlen(src);
    size_t accepted = 0;
    for (size_t i = 0; i < len; i++) {
        for (size_t j = 0; j < sizeof junk; j++) {
            char *p = exact_copy(src, len);
            p[i] = junk[j];
            if (rig_json_doc_parse(d, p, len, NULL, NULL) == 0) {
                accepted++;
                /* whatever was accepted reads back and rewrites cleanly */
                rig_json_writer w;
                rig_json_writer_init(&w, 0);
                rig_json_write_value(&w, rig_json_doc_root(d));
                assert_non_null(rig_json_writer_finish(&w, NULL));
                rig_json_writer_free(&w);
            }
            free(p);
        }
    }
    /* some replacements are harmless (a space for a space, one digit for
     * another is not in the list), most are not */
    assert_true(accepted < len * sizeof junk / 2);
    rig_json_doc_free(d);
}

static void test_whitespace_everywhere(void **state) {
    (void)state;
    rig_json_doc *d = parse_ok(" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ \t\r\n1 \t\r\n, \t\r\n2 \t\r\n] "
                               "\t\r\n, \"b\" : { } } \t\r\n");
    rig_json_val root = rig_json_doc_root(d);
    assert_int_equal(rig_json_len(root), 2);
    assert_int_equal(rig_json_len(rig_json_get(root, "a")), 2);
    assert_int_equal(rig_json_typeof(rig_json_get(root, "b")), RIG_JSON_OBJECT);
    rig_json_doc_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rejects_with_status_and_offset),
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_nul_inside_string_escape_only),
        cmocka_unit_test(test_error_line_and_column),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_copy_input),
        cmocka_unit_test(test_doc_reuse),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_truncated_at_every_offset),
        cmocka_unit_test(test_corrupted_at_every_offset),
        cmocka_unit_test(test_whitespace_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
