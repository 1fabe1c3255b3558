/* test_json_limits.c — the parser at its edges: 10^5-deep nesting, 100 MB
 * strings, numbers with a million digits, NUL bytes, every malformed UTF-8
 * sequence of two and three bytes, counts past what a node's tag holds, and
 * objects with 10^5 keys. In the "slow" suite. */
#include "testing.h"

static char *repeat_brackets(size_t depth, const char *middle, size_t *len) {
    size_t m = strlen(middle);
    *len = 2 * depth + m;
    char *s = malloc(*len + 1);
    assert_non_null(s);
    memset(s, '[', depth);
    memcpy(s + depth, middle, m);
    memset(s + depth + m, ']', depth);
    s[*len] = '\0';
    return s;
}

static void test_depth_100000(void **state) {
    (void)state;
    size_t len, depth = 100000;
    char *s = repeat_brackets(depth, "\"deep\"", &len);
    rig_json_error err;
    /* the default limit refuses it at the 513th bracket */
    assert_int_equal(parse_status(s, len, NULL, &err), RIG_JSON_EDEPTH);
    assert_int_equal(err.offset, 512);
    /* a raised limit takes it, without recursion anywhere */
    rig_json_options o = {.max_depth = (unsigned)depth};
    rig_json_doc *d = rig_json_parse(s, len, &o, &err);
    assert_non_null(d);
    rig_json_val v = rig_json_doc_root(d);
    for (size_t i = 0; i < depth; i++) {
        assert_int_equal(rig_json_len(v), 1);
        v = rig_json_at(v, 0);
    }
    assert_true(rig_json_str_eq(v, "deep"));
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_json_write_value(&w, rig_json_doc_root(d)), 0);
    size_t olen;
    const char *out = rig_json_writer_finish(&w, &olen);
    assert_int_equal(olen, len);
    assert_memory_equal(out, s, len);
    rig_json_writer_free(&w);
    o.max_depth = (unsigned)depth - 1;
    assert_int_equal(parse_status(s, len, &o, &err), RIG_JSON_EDEPTH);
    rig_json_doc_free(d);
    free(s);

    /* objects nest the same way */
    size_t n = 100000, i = 0;
    char *t = malloc(n * 6 + 8);
    for (size_t k = 0; k < n; k++) {
        memcpy(t + i, "{\"a\":", 5);
        i += 5;
    }
    t[i++] = '1';
    memset(t + i, '}', n);
    i += n;
    o.max_depth = (unsigned)n;
    d = rig_json_parse(t, i, &o, &err);
    assert_non_null(d);
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 1);
    rig_json_doc_free(d);
    free(t);
}

static void test_string_100mb(void **state) {
    (void)state;
    size_t body = 100u << 20, len = body + 2 + 12;
    char *s = malloc(len);
    assert_non_null(s);
    s[0] = '"';
    memcpy(s + 1, "\\u00e9\\n", 8); /* escapes at both ends of a long plain run */
    memset(s + 9, 'x', body);
    memcpy(s + 9 + body, "\\t\\\"", 4);
    s[len - 1] = '"';
    size_t want = 3 + body + 2; /* é (2 bytes), \n, body, \t, " */
    rig_json_error err;
    assert_int_equal(parse_status(s, len, NULL, &err), RIG_JSON_ESIZE);
    rig_json_options o = {.max_size = len};
    rig_json_doc *d = rig_json_parse(s, len, &o, &err);
    assert_non_null(d);
    rig_json_val v = rig_json_doc_root(d);
    assert_int_equal(rig_json_str_len(v), want);
    char *buf = malloc(want + 1);
    size_t n;
    assert_int_equal(rig_json_str_copy(v, buf, want + 1, &n), 0);
    assert_int_equal(n, want);
    assert_memory_equal(buf, "\xc3\xa9\nxxx", 6);
    assert_memory_equal(buf + want - 3, "x\t\"", 3);
    /* and written back, it reads the same */
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_json_write_stringn(&w, buf, n), 0);
    size_t olen;
    const char *out = rig_json_writer_finish(&w, &olen);
    assert_non_null(out);
    rig_json_doc *d2 = rig_json_parse(out, olen, &o, &err);
    assert_non_null(d2);
    assert_true(rig_json_equal(v, rig_json_doc_root(d2)));
    rig_json_doc_free(d2);
    rig_json_writer_free(&w);
    free(buf);
    rig_json_doc_free(d);
    free(s);
}

static void test_huge_numbers(void **state) {
    (void)state;
    size_t digits = 1000000;
    char *s = malloc(digits + 16);
    rig_json_error err;
    /* a million-digit integer overflows a double */
    s[0] = '1';
    memset(s + 1, '0', digits - 1);
    assert_int_equal(parse_status(s, digits, NULL, &err), RIG_JSON_ERANGE);
    assert_int_equal(err.offset, 0);
    /* a million-digit fraction is just a long way to write a small number */
    memcpy(s, "0.", 2);
    memset(s + 2, '0', digits);
    memcpy(s + 2 + digits, "15", 2);
    rig_json_doc *d = rig_json_parse(s, digits + 4, NULL, &err);
    assert_non_null(d);
    double x = 1;
    assert_int_equal(rig_json_get_double(rig_json_doc_root(d), &x), 0);
    assert_true(x == 0.0);
    rig_json_doc_free(d);
    /* many digits that still fit a double: 1234567890 repeated, e-999990 */
    for (size_t i = 0; i < digits; i++)
        s[i] = (char)('0' + (i + 1) % 10);
    int n = snprintf(s + digits, 16, "e-%d", 999990);
    d = rig_json_parse(s, digits + (size_t)n, NULL, &err);
    assert_non_null(d);
    assert_int_equal(rig_json_get_double(rig_json_doc_root(d), &x), 0);
    assert_true(x > 1.2345678e9 && x < 1.2345679e9);
    assert_true(rig_json_val_flags(rig_json_doc_root(d)) == 0);
    rig_json_doc_free(d);
    /* a long integer beyond int64 keeps its digits in raw text */
    memset(s, '9', 400);
    d = rig_json_parse(s, 300, NULL, &err);
    assert_non_null(d);
    assert_int_equal(rig_json_typeof(rig_json_doc_root(d)), RIG_JSON_DOUBLE);
    assert_int_equal(rig_json_val_flags(rig_json_doc_root(d)), RIG_JSON_VAL_BIGINT);
    size_t rl;
    rig_json_raw(rig_json_doc_root(d), &rl);
    assert_int_equal(rl, 300);
    rig_json_doc_free(d);
    assert_int_equal(parse_status(s, 400, NULL, &err), RIG_JSON_ERANGE);
    free(s);
}

static void test_nul_bytes(void **state) {
    (void)state;
    size_t count = 100000, len = count * 6 + 2;
    char *s = malloc(len);
    s[0] = '"';
    for (size_t i = 0; i < count; i++)
        memcpy(s + 1 + 6 * i, "\\u0000", 6);
    s[len - 1] = '"';
    rig_json_doc *d = rig_json_parse(s, len, NULL, NULL);
    assert_non_null(d);
    rig_json_val v = rig_json_doc_root(d);
    assert_int_equal(rig_json_str_len(v), count);
    char *buf = malloc(count + 1);
    assert_int_equal(rig_json_str_copy(v, buf, count + 1, NULL), 0);
    for (size_t i = 0; i <= count; i++)
        assert_int_equal(buf[i], 0);
    free(buf);
    rig_json_doc_free(d);
    free(s);
}

/* An independent, table-free reading of Unicode's well-formedness rules. */
static bool well_formed(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned cp;
        if (c >= 0xC0 && c < 0xE0) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c < 0xF0) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c < 0xF8) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + len > n)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

static void test_every_two_and_three_byte_sequence(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    unsigned char s[8] = {'"'};
    size_t accepted = 0, checked = 0;
    for (unsigned a = 0x80; a <= 0xFF; a++) {
        for (unsigned b = 0x00; b <= 0xFF; b++) {
            s[1] = (unsigned char)a;
            s[2] = (unsigned char)b;
            s[3] = '"';
            if (b == '"' || b == '\\' || b < 0x20)
                continue; /* other rules decide those */
            bool want = well_formed(s + 1, 2);
            int rc = rig_json_doc_parse(d, (const char *)s, 4, NULL, NULL);
            if ((rc == 0) != want)
                fail_msg("%02x %02x: want %s", a, b, want ? "accept" : "reject");
            accepted += rc == 0;
            checked++;
            if (a < 0xE0)
                continue;
            for (unsigned c = 0x00; c <= 0xFF; c++) {
                if (c == '"' || c == '\\' || c < 0x20)
                    continue;
                s[3] = (unsigned char)c;
                s[4] = '"';
                want = well_formed(s + 1, 3);
                rc = rig_json_doc_parse(d, (const char *)s, 5, NULL, NULL);
                if ((rc == 0) != want)
                    fail_msg("%02x %02x %02x: want %s", a, b, c, want ? "accept" : "reject");
                accepted += rc == 0;
                checked++;
            }
        }
    }
    /* 128 x 222 pairs and 32 x 222 x 222 triples (bytes below 0x20, quote and
     * backslash are left to other rules); of those, 1920 two-byte and
     * 61440 three-byte sequences are well-formed (Unicode table 3-7) */
    assert_int_equal(checked, 128 * 222 + 32 * 222 * 222);
    assert_int_equal(accepted, 1920 + 61440);
    rig_json_doc_free(d);
}

static void test_counts_past_the_tag(void **state) {
    (void)state;
    size_t n = (1u << 24) + 5, len = 2 * n + 1;
    char *s = malloc(len);
    s[0] = '[';
    for (size_t i = 0; i < n; i++) {
        s[1 + 2 * i] = '7';
        s[2 + 2 * i] = ',';
    }
    s[len - 1] = ']';
    rig_json_doc *d = rig_json_parse(s, len, NULL, NULL);
    assert_non_null(d);
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), n);
    int64_t v;
    assert_int_equal(rig_json_get_int64(rig_json_at(rig_json_doc_root(d), n - 1), &v), 0);
    assert_int_equal(v, 7);
    rig_json_doc_free(d);
    free(s);
}

/* A member whose value spans more nodes than a key's tag can count: lookups,
 * iteration and duplicate marking walk past it the long way. */
static void test_member_past_the_tag(void **state) {
    (void)state;
    size_t n = (1u << 24) + 3, len = 0;
    char *s = malloc(2 * n + 64);
    len += (size_t)sprintf(s, "{\"a\":1,\"big\":[");
    for (size_t i = 0; i < n; i++) {
        s[len++] = '0';
        s[len++] = ',';
    }
    s[len - 1] = ']';
    len += (size_t)sprintf(s + len, ",\"a\":2,\"z\":3}");
    rig_json_doc *d = rig_json_parse(s, len, NULL, NULL);
    assert_non_null(d);
    rig_json_val root = rig_json_doc_root(d);
    int64_t v;
    assert_int_equal(rig_json_len(root), 3);
    assert_int_equal(rig_json_get_int64(rig_json_get(root, "z"), &v), 0);
    assert_int_equal(v, 3);
    assert_int_equal(rig_json_get_int64(rig_json_get(root, "a"), &v), 0);
    assert_int_equal(v, 2); /* the duplicate after the big member was found */
    assert_int_equal(rig_json_len(rig_json_get(root, "big")), n);
    rig_json_iter it = rig_json_iter_init(root);
    rig_json_val key, val;
    const char *order[] = {"big", "a", "z"};
    size_t k = 0;
    while (rig_json_iter_member(&it, &key, &val))
        assert_true(k < 3 && rig_json_str_eq(key, order[k++]));
    assert_int_equal(k, 3);
    rig_json_doc_free(d);
    free(s);
}

static void test_objects_with_many_keys(void **state) {
    (void)state;
    size_t n = 100000;
    char *s = malloc(n * 48 + 16);
    size_t o = 0;
    s[o++] = '{';
    /* distinct keys that share a long prefix and suffix */
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(s + o, "%s\"prefix-prefix-%zu-suffix-suffix\":%zu", i ? "," : "", i, i);
    s[o++] = '}';
    rig_json_doc *d = rig_json_parse(s, o, NULL, NULL);
    assert_non_null(d);
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), n);
    int64_t v;
    assert_int_equal(
        rig_json_get_int64(rig_json_get(rig_json_doc_root(d), "prefix-prefix-99999-suffix-suffix"), &v), 0);
    assert_int_equal(v, 99999);
    rig_json_doc_free(d);
    /* the same key 10^5 times: one member, the last value */
    o = 0;
    s[o++] = '{';
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(s + o, "%s\"k\":%zu", i ? "," : "", i);
    s[o++] = '}';
    d = rig_json_parse(s, o, NULL, NULL);
    assert_non_null(d);
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 1);
    assert_int_equal(rig_json_get_int64(rig_json_get(rig_json_doc_root(d), "k"), &v), 0);
    assert_int_equal(v, (int64_t)n - 1);
    rig_json_doc_free(d);
    free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth_100000),
        cmocka_unit_test(test_string_100mb),
        cmocka_unit_test(test_huge_numbers),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_every_two_and_three_byte_sequence),
        cmocka_unit_test(test_counts_past_the_tag),
        cmocka_unit_test(test_member_past_the_tag),
        cmocka_unit_test(test_objects_with_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
