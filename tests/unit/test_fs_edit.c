/* test_fs_edit.c — `edit_file` through a toolset, in a fresh tree under
 * /tmp (base/root the one root, base/outside/secret never to change):
 * each rung of the matching ladder with a case only it matches, an
 * ambiguous oldText (its line numbers), a missing one (the closest line),
 * several edits all or none, an oversize match refused, CRLF and the final
 * newline kept, dry_run's exact diff, expected_sha256, SHA-256 itself and
 * paths outside the root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"
#include "tools/fs.h"
#include "util/sha256.h"

static int setup(void **state) {
    (void)state;
    return fs_setup("edit", "secret", "TOP-SECRET\n");
}

/* edit_file on `name` with edits `edits_json`; extra: more members. */
static rig_result *edit(const char *name, const char *edits_json, const char *extra,
                        rig_error *err) {
    return callf("edit_file", err, "{\"path\":\"%s\",\"edits\":%s%s}", name, edits_json,
                 extra ? extra : "");
}

/* One edit, expected to succeed with `want` as the new content; the
 * result's text must contain `note`. */
static void edit_ok(const char *before, const char *old_json, const char *new_json,
                    const char *after, const char *note) {
    put("f.txt", before);
    char edits[1024];
    snprintf(edits, sizeof edits, "[{\"oldText\":%s,\"newText\":%s}]", old_json, new_json);
    rig_error err = {0};
    rig_result *r = edit("f.txt", edits, NULL, &err);
    assert_ok_with(r, err, note);
    rig_result_free(r);
    assert_file("f.txt", after);
    assert_no_temp(".");
}

static void test_tool_shape(void **state) {
    (void)state;
    rig_tool *t = rig_toolset_get(ts, "edit_file");
    assert_non_null(t);
    assert_hints(t, false, true, false, false);
    assert_schema_strict(t);
}

static void test_sha256(void **state) {
    (void)state;
    char h[65];
    rig__sha256_hex("abc", 3, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    rig__sha256_hex("", 0, h);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    rig__sha256_hex(two, strlen(two), h);
    assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* Fed in odd pieces: the same as at once. */
    char *mil = malloc(1000000);
    assert_non_null(mil);
    memset(mil, 'a', 1000000);
    rig__sha256 s;
    unsigned char d[RIG_SHA256_LEN];
    rig__sha256_init(&s);
    for (size_t off = 0; off < 1000000; off += 777)
        rig__sha256_update(&s, mil + off, 1000000 - off < 777 ? 1000000 - off : 777);
    rig__sha256_final(&s, d);
    rig__sha256_hex(mil, 1000000, h);
    free(mil);
    static const unsigned char want[4] = {0xcd, 0xc7, 0x6e, 0x5c}; /* cdc76e5c... */
    assert_memory_equal(d, want, 4);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_rung_exact(void **state) {
    (void)state;
    edit_ok("a\nb\nc\n", "\"b\"", "\"B\"", "a\nB\nc\n", "1 edit applied");
}

static void test_rung_trailing_ws(void **state) {
    (void)state;
    edit_ok("foo  \nbar\t\nend\n", "\"foo\\nbar\"", "\"X\\nY\"", "X\nY\nend\n",
            "ignoring trailing whitespace at line 1");
}

static void test_rung_indentation(void **state) {
    (void)state;
    edit_ok("def f():\n    if x:\n        y()\n    z()\n", "\"if x:\\n    y()\"",
            "\"if x:\\n    y(1)\\n\\n    w()\"",
            "def f():\n    if x:\n        y(1)\n\n        w()\n    z()\n",
            "ignoring indentation at line 2");
}

static void test_rung_collapse(void **state) {
    (void)state;
    edit_ok("int  x =   1;\nint y;\n", "\"int x = 1;\"", "\"int x = 2;\"", "int x = 2;\nint y;\n",
            "ignoring whitespace differences at line 1");
}

static void test_rung_typographic(void **state) {
    (void)state;
    edit_ok("say(\u2018hi\u2019) \u2014 \u201cok\u201d\nnext\n", "\"say('hi') - \\\"ok\\\"\"",
            "\"say('bye')\"", "say('bye')\nnext\n", "typographic");
}

static void test_rung_block_anchor(void **state) {
    (void)state;
    edit_ok("head\nstart\n  a\n  b\n  c\nend\ntail\n", "\"start\\n  a\\n  X\\n  c\\nend\"",
            "\"S\\nE\"", "head\nS\nE\ntail\n", "by its first and last lines at line 2");
}

static void test_ambiguous(void **state) {
    (void)state;
    put("f.txt", "x = 1\ny = 2\nx = 1\nz\n  x = 1\n");
    rig_error err = {0};
    rig_result *r = edit("f.txt", "[{\"oldText\":\"x = 1\",\"newText\":\"x = 9\"}]", NULL, &err);
    assert_error_with(r, "matches 3 places");
    assert_error_with(r, "lines 1, 3, 5");
    assert_error_with(r, "more surrounding lines");
    rig_result_free(r);
    /* At a fuzzy rung too: both blocks match ignoring whitespace. */
    put("f.txt", "a  b\nc\n a b\nc\n");
    r = edit("f.txt", "[{\"oldText\":\"a b \\nc\",\"newText\":\"q\"}]", NULL, &err);
    assert_error_with(r, "matches 2 places in 'f.txt' (ignoring whitespace differences), at "
                         "lines 1, 3");
    rig_result_free(r);
    assert_file("f.txt", "a  b\nc\n a b\nc\n");
}

static void test_missing(void **state) {
    (void)state;
    put("f.txt", "alpha\nbeta gamma\ndelta\n");
    rig_error err = {0};
    rig_result *r = edit("f.txt", "[{\"oldText\":\"beta delta\\nzeta\",\"newText\":\"x\"}]",
                         NULL, &err);
    assert_error_with(r, "oldText was not found in 'f.txt'");
    assert_error_with(r, "closest line is line 2: \"beta gamma\"");
    rig_result_free(r);
    assert_file("f.txt", "alpha\nbeta gamma\ndelta\n");
    r = edit("nope.txt", "[{\"oldText\":\"a\",\"newText\":\"b\"}]", NULL, &err);
    assert_error_with(r, "No such file: 'nope.txt'");
    rig_result_free(r);
}

static void test_multi_all_or_none(void **state) {
    (void)state;
    put("f.txt", "one\ntwo\nthree\n");
    rig_error err = {0};
    rig_result *r = edit("f.txt",
                         "[{\"oldText\":\"one\",\"newText\":\"1\"},"
                         "{\"oldText\":\"nope\",\"newText\":\"x\"}]",
                         NULL, &err);
    assert_error_with(r, "Edit 2 of 2: oldText was not found");
    assert_error_with(r, "Nothing was edited");
    rig_result_free(r);
    assert_file("f.txt", "one\ntwo\nthree\n");
    assert_no_temp(".");
    /* In order: the second sees what the first left. */
    r = edit("f.txt",
             "[{\"oldText\":\"one\",\"newText\":\"uno\"},"
             "{\"oldText\":\"uno\\ntwo\\n\",\"newText\":\"\"}]",
             NULL, &err);
    assert_ok_with(r, err, "2 edits applied");
    rig_result_free(r);
    assert_file("f.txt", "three\n");
}

static void test_oversize_refused(void **state) {
    (void)state;
    char big[1024], filler[301];
    memset(filler, 'f', 300);
    filler[300] = '\0';
    snprintf(big, sizeof big, "A\n  x\n%s\nZ\nafter\n", filler);
    put("f.txt", big);
    rig_error err = {0};
    rig_result *r = edit("f.txt", "[{\"oldText\":\"A\\nx\\nZ\",\"newText\":\"gone\"}]", NULL,
                         &err);
    assert_error_with(r, "far larger than oldText");
    assert_error_with(r, "refused");
    rig_result_free(r);
    assert_file("f.txt", big);
    /* The same block, short: replaced. */
    put("f.txt", "A\n  x\n  y\nZ\nafter\n");
    r = edit("f.txt", "[{\"oldText\":\"A\\nx\\nZ\",\"newText\":\"gone\"}]", NULL, &err);
    assert_ok_with(r, err, "by its first and last lines");
    rig_result_free(r);
    assert_file("f.txt", "gone\nafter\n");
}

static void test_crlf_kept(void **state) {
    (void)state;
    edit_ok("a\r\nb\r\nc\r\n", "\"b\\nc\"", "\"B\\nC\\nD\"", "a\r\nB\r\nC\r\nD\r\n", "applied");
    edit_ok("a\r\nb\r\nc\r\n", "\"a\\r\\nb\"", "\"x\"", "x\r\nc\r\n", "applied");
    /* An LF file stays LF though the texts come with CRLF. */
    edit_ok("a\nb\nc\n", "\"a\\r\\nb\"", "\"x\\r\\ny\"", "x\ny\nc\n", "applied");
}

static void test_final_newline(void **state) {
    (void)state;
    edit_ok("x\ny\n", "\"y\\n\"", "\"z\"", "x\nz\n", "applied");
    edit_ok("x\ny", "\"y\"", "\"z\\n\"", "x\nz", "applied");
    edit_ok("x\ny", "\"x\\ny\"", "\"p\\nq\"", "p\nq", "applied");
}

static void test_dry_run_diff(void **state) {
    (void)state;
    const char *text = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\n";
    put("d.txt", text);
    rig_error err = {0};
    rig_result *r = edit("d.txt",
                         "[{\"oldText\":\"e\\n\",\"newText\":\"five\\n\"},"
                         "{\"oldText\":\"n\\n\",\"newText\":\"\"}]",
                         ",\"dry_run\":true", &err);
    assert_ok_with(r, err, "Dry run: 2 edits would change 'd.txt'");
    char *t = text_of(r);
    assert_contains(t, "--- a/d.txt\n+++ b/d.txt\n"
                       "@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+five\n f\n g\n h\n"
                       "@@ -11,5 +11,4 @@\n k\n l\n m\n-n\n o\n");
    free(t);
    rig_result_free(r);
    assert_file("d.txt", text);
    assert_no_temp(".");

    /* A real edit returns the diff too; a missing final newline is shown. */
    put("e.txt", "a\nb");
    r = edit("e.txt", "[{\"oldText\":\"b\",\"newText\":\"c\"}]", NULL, &err);
    assert_ok_with(r, err, "Edited 'e.txt'");
    t = text_of(r);
    assert_contains(t, "--- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1,2 @@\n a\n-b\n"
                       "\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
    free(t);
    rig_result_free(r);
    assert_file("e.txt", "a\nc");
}

static void test_expected_sha256(void **state) {
    (void)state;
    put("h.txt", "abc");
    rig_error err = {0};
    rig_result *r = edit("h.txt", "[{\"oldText\":\"c\",\"newText\":\"d\"}]",
                         ",\"expected_sha256\":\"" "0000000000000000000000000000000000000000000000000000000000000000\"", &err);
    assert_error_with(r, "its SHA-256 is "
                         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    rig_result_free(r);
    assert_file("h.txt", "abc");
    r = edit("h.txt", "[{\"oldText\":\"c\",\"newText\":\"d\"}]",
             ",\"expected_sha256\":\"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD\"",
             &err);
    assert_ok_with(r, err, "Edited 'h.txt'");
    char h[65];
    rig__sha256_hex("abd", 3, h);
    char *t = text_of(r);
    assert_contains(t, h);
    free(t);
    rig_result_free(r);
    assert_file("h.txt", "abd");
}

static void test_outside_refused(void **state) {
    (void)state;
    rig_error err = {0};
    char edits[] = "[{\"oldText\":\"TOP\",\"newText\":\"LEAKED\"}]";
    rig_result *r = edit("../outside/secret", edits, NULL, &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    char abs[256];
    snprintf(abs, sizeof abs, "%s/secret", outside);
    r = edit(abs, edits, NULL, &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    char link[256];
    at(link, sizeof link, "ln");
    assert_int_equal(symlink(abs, link), 0);
    r = edit("ln", edits, NULL, &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    assert_secret_intact();
}

static void test_mode_kept(void **state) {
    (void)state;
    put("m.sh", "echo hi\n");
    char p[256];
    at(p, sizeof p, "m.sh");
    assert_int_equal(chmod(p, 0751), 0);
    rig_error err = {0};
    rig_result *r = edit("m.sh", "[{\"oldText\":\"hi\",\"newText\":\"ho\"}]", NULL, &err);
    assert_ok_result(r, err);
    rig_result_free(r);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0751);
    assert_file("m.sh", "echo ho\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tool_shape, setup, fs_teardown),
        cmocka_unit_test(test_sha256),
        cmocka_unit_test_setup_teardown(test_rung_exact, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_rung_trailing_ws, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_rung_indentation, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_rung_collapse, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_rung_typographic, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_rung_block_anchor, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_ambiguous, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_missing, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_multi_all_or_none, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_oversize_refused, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_crlf_kept, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_final_newline, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_diff, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_expected_sha256, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_outside_refused, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_mode_kept, setup, fs_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
