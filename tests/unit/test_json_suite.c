/* test_json_suite.c — Nicolas Seriot's JSONTestSuite, read in place.
 *
 * Every y_ file must parse, every n_ file must fail, and every i_ file (where
 * RFC 8259 lets parsers choose) must do what rig decided, listed below with the
 * reason. The suite lives outside the repository (../shared/data, or
 * $RIG_JSONTESTSUITE); without it the tests are skipped with a message. */
#include <dirent.h>
#include <errno.h>
#include <math.h>

#include "testing.h"

static char suite_path[4096];

/* rig's decision on each implementation-defined case: true = accepted. */
typedef struct decision {
    const char *file;
    bool accept;
    const char *why;
} decision;

static const decision decisions[] = {
    /* Numbers: integers beyond int64 become doubles (JSON.parse does the same);
     * magnitudes past the double range are errors, not infinities (JSON has no
     * infinity, and writing one back would be impossible); underflow is 0. */
    {"i_number_double_huge_neg_exp.json", true, "underflows to 0"},
    {"i_number_huge_exp.json", false, "overflows a double"},
    {"i_number_neg_int_huge_exp.json", false, "overflows a double"},
    {"i_number_pos_double_huge_exp.json", false, "overflows a double"},
    {"i_number_real_neg_overflow.json", false, "overflows a double"},
    {"i_number_real_pos_overflow.json", false, "overflows a double"},
    {"i_number_real_underflow.json", true, "underflows to 0"},
    {"i_number_too_big_neg_int.json", true, "integer beyond int64 becomes a double"},
    {"i_number_too_big_pos_int.json", true, "integer beyond int64 becomes a double"},
    {"i_number_very_big_negative_int.json", true, "integer beyond int64 becomes a double"},
    /* Lone surrogate escapes decode as U+FFFD (a JavaScript producer that cut
     * a string inside a pair sends exactly these). */
    {"i_object_key_lone_2nd_surrogate.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_1st_surrogate_but_2nd_missing.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_1st_valid_surrogate_2nd_invalid.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_incomplete_surrogate_and_escape_valid.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_incomplete_surrogate_pair.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_incomplete_surrogates_escape_valid.json", true, "lone surrogates -> U+FFFD"},
    {"i_string_invalid_lonely_surrogate.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_invalid_surrogate.json", true, "lone surrogate -> U+FFFD"},
    {"i_string_inverted_surrogates_U+1D11E.json", true, "two lone surrogates -> U+FFFD x2"},
    {"i_string_lone_second_surrogate.json", true, "lone surrogate -> U+FFFD"},
    /* Raw bytes must be well-formed UTF-8: anything else is rejected, since
     * a tool argument is text and guessing an encoding loses data silently. */
    {"i_string_UTF-16LE_with_BOM.json", false, "UTF-16 is not UTF-8"},
    {"i_string_UTF-8_invalid_sequence.json", false, "invalid UTF-8"},
    {"i_string_UTF8_surrogate_U+D800.json", false, "encoded surrogate is invalid UTF-8"},
    {"i_string_invalid_utf-8.json", false, "invalid UTF-8"},
    {"i_string_iso_latin_1.json", false, "Latin-1 is not UTF-8"},
    {"i_string_lone_utf8_continuation_byte.json", false, "invalid UTF-8"},
    {"i_string_not_in_unicode_range.json", false, "beyond U+10FFFF"},
    {"i_string_overlong_sequence_2_bytes.json", false, "overlong encoding"},
    {"i_string_overlong_sequence_6_bytes.json", false, "overlong encoding"},
    {"i_string_overlong_sequence_6_bytes_null.json", false, "overlong encoding"},
    {"i_string_truncated-utf-8.json", false, "truncated UTF-8"},
    {"i_string_utf16BE_no_BOM.json", false, "UTF-16 is not UTF-8"},
    {"i_string_utf16LE_no_BOM.json", false, "UTF-16 is not UTF-8"},
    /* Structure: 500 levels fit the default depth limit of 512. A byte order
     * mark is refused by default (RFC 8259 forbids sending one) and skipped
     * with RIG_JSON_ALLOW_BOM. */
    {"i_structure_500_nested_arrays.json", true, "within the default depth of 512"},
    {"i_structure_UTF-8_BOM_empty_object.json", false, "BOM refused unless RIG_JSON_ALLOW_BOM"},
};

static const decision *find_decision(const char *name) {
    for (size_t i = 0; i < sizeof decisions / sizeof decisions[0]; i++)
        if (strcmp(decisions[i].file, name) == 0)
            return &decisions[i];
    return NULL;
}

static char *read_case(const char *name, size_t *len) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", suite_path, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n ? (size_t)n : 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int suite_setup(void **state) {
    (void)state;
    const char *dir = getenv("RIG_JSONTESTSUITE");
    if (!dir || !*dir)
        dir = "../shared/data/JSONTestSuite";
    snprintf(suite_path, sizeof suite_path, "%s/test_parsing", dir);
    return 0;
}

static bool suite_present(void) {
    DIR *d = opendir(suite_path);
    if (!d) {
        /* A "#" line: TAP's comment; other text on stdout breaks the stream. */
        print_message("# JSONTestSuite not found at %s (set RIG_JSONTESTSUITE); skipping\n",
                      suite_path);
        return false;
    }
    closedir(d);
    return true;
}

/* Runs every file with the given prefix; returns how many were checked. */
static size_t run_prefix(char prefix) {
    DIR *d = opendir(suite_path);
    assert_non_null(d);
    struct dirent *e;
    size_t checked = 0, wrong = 0;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        if (name[0] != prefix || name[1] != '_' || nl < 5 || strcmp(name + nl - 5, ".json") != 0)
            continue;
        size_t len;
        char *text = read_case(name, &len);
        rig_json_error err;
        int rc = parse_status(text, len, NULL, &err);
        bool want;
        if (prefix == 'i') {
            const decision *dec = find_decision(name);
            if (!dec) {
                print_error("%s: no decision recorded for this case\n", name);
                wrong++;
                free(text);
                continue;
            }
            want = dec->accept;
        } else {
            want = prefix == 'y';
        }
        if ((rc == 0) != want) {
            char msg[256];
            rig_json_error_format(&err, msg, sizeof msg);
            print_error("%s: expected %s, got %s (%s)\n", name, want ? "accept" : "reject",
                        rc == 0 ? "accept" : "reject", rc == 0 ? "" : msg);
            wrong++;
        }
        /* A rejection always says where and why. */
        if (rc != 0) {
            assert_true(err.code == rc);
            assert_non_null(err.reason);
            assert_true(err.offset <= len);
        }
        free(text);
        checked++;
    }
    closedir(d);
    assert_int_equal(wrong, 0);
    return checked;
}

static void test_y_accepted(void **state) {
    (void)state;
    if (!suite_present())
        skip();
    assert_true(run_prefix('y') >= 95);
}

static void test_n_rejected(void **state) {
    (void)state;
    if (!suite_present())
        skip();
    assert_true(run_prefix('n') >= 188);
}

static void test_i_decided(void **state) {
    (void)state;
    if (!suite_present())
        skip();
    assert_int_equal(run_prefix('i'), sizeof decisions / sizeof decisions[0]);
}

/* Values, not just verdicts, for the accepted implementation-defined cases. */
static void expect_first_string(const char *file, const char *want, size_t wantlen) {
    size_t len;
    char *text = read_case(file, &len);
    rig_json_doc *d = rig_json_parse(text, len, NULL, NULL);
    assert_non_null(d);
    rig_json_val v = rig_json_at(rig_json_doc_root(d), 0);
    char buf[64];
    size_t n;
    assert_int_equal(rig_json_str_copy(v, buf, sizeof buf, &n), 0);
    assert_int_equal(n, wantlen);
    assert_memory_equal(buf, want, wantlen);
    assert_true(rig_json_val_flags(v) & RIG_JSON_VAL_REPLACED);
    rig_json_doc_free(d);
    free(text);
}

static void test_i_values(void **state) {
    (void)state;
    if (!suite_present())
        skip();
    expect_first_string("i_string_1st_surrogate_but_2nd_missing.json", "\xEF\xBF\xBD", 3);
    expect_first_string("i_string_1st_valid_surrogate_2nd_invalid.json",
                        "\xEF\xBF\xBD\xE1\x88\xB4", 6);
    expect_first_string("i_string_incomplete_surrogate_and_escape_valid.json", "\xEF\xBF\xBD\n", 4);
    expect_first_string("i_string_incomplete_surrogate_pair.json", "\xEF\xBF\xBD" "a", 4);
    expect_first_string("i_string_incomplete_surrogates_escape_valid.json",
                        "\xEF\xBF\xBD\xEF\xBF\xBD\n", 7);
    expect_first_string("i_string_invalid_surrogate.json", "\xEF\xBF\xBD" "abc", 6);
    expect_first_string("i_string_inverted_surrogates_U+1D11E.json", "\xEF\xBF\xBD\xEF\xBF\xBD", 6);

    size_t len;
    char *text = read_case("i_number_too_big_pos_int.json", &len);
    rig_json_doc *d = rig_json_parse(text, len, NULL, NULL);
    rig_json_val v = rig_json_at(rig_json_doc_root(d), 0);
    double x;
    assert_int_equal(rig_json_typeof(v), RIG_JSON_DOUBLE);
    assert_true(rig_json_val_flags(v) & RIG_JSON_VAL_BIGINT);
    assert_int_equal(rig_json_get_double(v, &x), 0);
    assert_true(x == 1e20);
    rig_json_doc_free(d);
    free(text);

    text = read_case("i_number_real_underflow.json", &len);
    d = rig_json_parse(text, len, NULL, NULL);
    assert_int_equal(rig_json_get_double(rig_json_at(rig_json_doc_root(d), 0), &x), 0);
    assert_true(x == 0.0);
    rig_json_doc_free(d);
    free(text);
}

/* The flags that turn rig's lenient choices into errors. */
static void test_i_strict_flags(void **state) {
    (void)state;
    if (!suite_present())
        skip();
    static const char *surrogates[] = {
        "i_object_key_lone_2nd_surrogate.json", "i_string_1st_surrogate_but_2nd_missing.json",
        "i_string_invalid_lonely_surrogate.json", "i_string_inverted_surrogates_U+1D11E.json",
        "i_string_lone_second_surrogate.json",
    };
    rig_json_options strict = {0, 0, RIG_JSON_STRICT_SURROGATES};
    for (size_t i = 0; i < sizeof surrogates / sizeof surrogates[0]; i++) {
        size_t len;
        char *text = read_case(surrogates[i], &len);
        rig_json_error err;
        assert_int_equal(parse_status(text, len, &strict, &err), RIG_JSON_ESTRING);
        free(text);
    }
    static const char *bigints[] = {"i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
                                    "i_number_very_big_negative_int.json"};
    rig_json_options nobig = {0, 0, RIG_JSON_REJECT_BIG_INTEGERS};
    for (size_t i = 0; i < sizeof bigints / sizeof bigints[0]; i++) {
        size_t len;
        char *text = read_case(bigints[i], &len);
        rig_json_error err;
        assert_int_equal(parse_status(text, len, &nobig, &err), RIG_JSON_ERANGE);
        free(text);
    }
    size_t len;
    char *text = read_case("i_structure_UTF-8_BOM_empty_object.json", &len);
    rig_json_options bom = {0, 0, RIG_JSON_ALLOW_BOM};
    rig_json_error err;
    assert_int_equal(parse_status(text, len, &bom, &err), 0);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_y_accepted),  cmocka_unit_test(test_n_rejected),
        cmocka_unit_test(test_i_decided),   cmocka_unit_test(test_i_values),
        cmocka_unit_test(test_i_strict_flags),
    };
    /* Without the suite the whole program is one TAP skip ("1..0 # SKIP"):
     * cmocka reports a skipped test as "not ok # SKIP", which meson counts
     * as a failure. */
    suite_setup(NULL);
    DIR *d = opendir(suite_path);
    if (!d) {
        printf("1..0 # SKIP JSONTestSuite not found at %s (set RIG_JSONTESTSUITE)\n", suite_path);
        return 0;
    }
    closedir(d);
    return cmocka_run_group_tests(tests, suite_setup, NULL);
}
