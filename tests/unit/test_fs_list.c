/* test_fs_list.c — list_directory, directory_tree, get_file_info and
 * read_multiple_files through a toolset, in a fresh tree under /tmp:
 *
 *   base/root/      the one root; each test works in a directory of its own
 *   base/outside/   secret, which must never be listed or read
 *
 * Listings: the exact text of a flat listing, hidden entries, recursion and
 * max_depth, exclude_patterns, .gitignore (plain, negation, directory
 * rules, anchoring, nested files), symlinked directories shown and never
 * entered, the cap and its count on 3,000 files (flat and recursive). The
 * tree: its JSON shape, depth and cap. File info: fields of a file, a
 * directory and a symlink (text and structuredContent). Several files: one
 * missing among good ones, all missing, a directory, a long file. Errors:
 * paths outside the root for each tool, schema violations. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_testing.h"

#include "rig/fs.h"
#include "rig/json.h"
#include "rig/roots.h"
#include "tools/fs.h"

static int setup(void **state) {
    (void)state;
    return fs_setup("list", "secret", "TOP-SECRET\n");
}

/* root/name, a symlink to `target`. */
static void link_(const char *target, const char *name) {
    char p[512];
    at(p, sizeof p, name);
    assert_int_equal(symlink(target, p), 0);
}

/* list_directory with `args`: ok, and its first block is `want`. */
static void assert_listing(const char *args, const char *want) {
    rig_error err;
    rig_result *r = call_in(ts, "list_directory", NULL, args, &err);
    assert_ok_result(r, err);
    if (strcmp(block_text(r, 0), want) != 0)
        fail_msg("list_directory %s gave:\n%s\nwanted:\n%s", args, block_text(r, 0), want);
    rig_result_free(r);
}

/* All text of list_directory with `args` (malloc'd), which must be ok. */
static char *listing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *listing(const char *fmt, ...) {
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    rig_error err;
    rig_result *r = call_in(ts, "list_directory", NULL, args, &err);
    assert_ok_result(r, err);
    char *t = text_of(r);
    rig_result_free(r);
    return t;
}

/* ---- the tools ---------------------------------------------------------- */

static const char *const tools[] = {"list_directory", "directory_tree", "get_file_info",
                                    "read_multiple_files"};

static void test_tool_shape(void **state) {
    (void)state;
    for (size_t i = 0; i < 4; i++) {
        rig_tool *t = rig_toolset_get(ts, tools[i]);
        assert_non_null(t);
        assert_hints(t, true, false, true, false);
        assert_schema_strict(t);
    }
    assert_non_null(rig_tool_output_schema(rig_toolset_get(ts, "get_file_info")));
    rig_error err;
    rig_tool *(*const makers[])(rig_roots *, rig_error *) = {
        rig__list_directory_tool_new, rig__directory_tree_tool_new,
        rig__get_file_info_tool_new, rig__read_multiple_files_tool_new};
    for (size_t i = 0; i < 4; i++) {
        err.code = RIG_OK;
        assert_null(makers[i](NULL, &err));
        assert_int_equal(err.code, RIG_EINVAL);
    }
}

static void test_schema_errors(void **state) {
    (void)state;
    static const struct {
        const char *tool, *args;
    } bad[] = {
        {"list_directory", "{}"},
        {"list_directory", "{\"path\":\"\"}"},
        {"list_directory", "{\"path\":\".\",\"recursive\":\"yes\"}"},
        {"list_directory", "{\"path\":\".\",\"max_depth\":0}"},
        {"list_directory", "{\"path\":\".\",\"max_depth\":1.5}"},
        {"list_directory", "{\"path\":\".\",\"exclude_patterns\":\"*.o\"}"},
        {"list_directory", "{\"path\":\".\",\"exclude_patterns\":[3]}"},
        {"list_directory", "{\"path\":\".\",\"include_hidden\":1}"},
        {"list_directory", "{\"path\":\".\",\"sort\":\"size\"}"},
        {"directory_tree", "{}"},
        {"directory_tree", "{\"path\":\".\",\"max_depth\":-1}"},
        {"directory_tree", "{\"path\":\".\",\"recursive\":true}"},
        {"get_file_info", "{}"},
        {"get_file_info", "{\"path\":7}"},
        {"get_file_info", "{\"path\":\"a\",\"follow\":true}"},
        {"read_multiple_files", "{}"},
        {"read_multiple_files", "{\"paths\":[]}"},
        {"read_multiple_files", "{\"paths\":\"a.txt\"}"},
        {"read_multiple_files", "{\"paths\":[\"\"]}"},
        {"read_multiple_files", "{\"paths\":[1]}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err;
        rig_result *r = call_in(ts, bad[i].tool, NULL, bad[i].args, &err);
        if (!rig_result_is_error(r) || err.code != RIG_EVALIDATE)
            fail_msg("%s accepted %s (status %d)", bad[i].tool, bad[i].args, err.code);
        rig_result_free(r);
    }
    /* 101 paths is one too many. */
    char args[2048] = "{\"paths\":[";
    for (int i = 0; i < 101; i++)
        strcat(args, i ? ",\"a\"" : "\"a\"");
    strcat(args, "]}");
    rig_error err;
    rig_result *r = call_in(ts, "read_multiple_files", NULL, args, &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
}

static void test_outside_refused(void **state) {
    (void)state;
    link_(outside, "out-link");
    const char *paths[] = {outside, "../outside", "out-link", "out-link/secret"};
    for (size_t p = 0; p < 4; p++)
        for (size_t i = 0; i < 4; i++) {
            rig_error err;
            rig_result *r = i == 3 ? callf(tools[i], &err, "{\"paths\":[\"%s\"]}", paths[p])
                                   : callf(tools[i], &err, "{\"path\":\"%s\"}", paths[p]);
            char *t = text_of(r);
            if (i == 2 && p == 2) {
                /* get_file_info describes the link itself, never what it points at */
                assert_false(rig_result_is_error(r));
                assert_contains(t, "type: symlink");
            } else {
                if (!rig_result_is_error(r))
                    fail_msg("%s on %s was not refused: %s", tools[i], paths[p], t);
                assert_contains(t, "Access denied");
            }
            assert_not_contains(t, "TOP-SECRET");
            assert_not_contains(t, "[FILE] secret");
            assert_not_contains(t, "\"secret\"");
            free(t);
            rig_result_free(r);
        }
}

/* ---- list_directory ----------------------------------------------------- */

static void test_flat_listing(void **state) {
    (void)state;
    mk("flat");
    put("flat/b.txt", "hello");
    put("flat/a.md", "");
    mk("flat/sub");
    put("flat/sub/inner.txt", "x");
    link_("b.txt", "flat/zlink");
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    put("flat/big", big);
    assert_listing("{\"path\":\"flat\"}", "[FILE] a.md (0 bytes)\n"
                                          "[FILE] b.txt (5 bytes)\n"
                                          "[FILE] big (2.9 KiB)\n"
                                          "[DIR] sub/\n"
                                          "[LINK] zlink -> b.txt\n");
    /* The same by absolute path, and a note-free result of one block. */
    char args[512];
    snprintf(args, sizeof args, "{\"path\":\"%s/flat/\"}", root);
    rig_error err;
    rig_result *r = call_in(ts, "list_directory", NULL, args, &err);
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 1);
    assert_contains(block_text(r, 0), "[DIR] sub/\n");
    rig_result_free(r);

    mk("flat-empty");
    assert_listing("{\"path\":\"flat-empty\"}", "[The directory 'flat-empty' is empty.]");

    r = callf("list_directory", &err, "{\"path\":\"flat/b.txt\"}");
    assert_error_with(r, "is not a directory");
    rig_result_free(r);
    r = callf("list_directory", &err, "{\"path\":\"flat/nope\"}");
    assert_error_with(r, "No such directory: 'flat/nope'");
    rig_result_free(r);
}

static void test_hidden(void **state) {
    (void)state;
    mk("hid");
    put("hid/.env", "SECRET=1");
    put("hid/visible", "v");
    mk("hid/.git");
    put("hid/.git/HEAD", "ref");
    mk("hid/.config");
    char *t = listing("{\"path\":\"hid\"}");
    assert_contains(t, "[FILE] visible (1 bytes)\n");
    assert_not_contains(t, ".env");
    assert_not_contains(t, "[DIR] .config/");
    assert_contains(t, "2 hidden");
    assert_contains(t, "include_hidden=true");
    free(t);
    t = listing("{\"path\":\"hid\",\"include_hidden\":true,\"recursive\":true}");
    assert_contains(t, "[DIR] .config/\n[FILE] .env (8 bytes)\n[FILE] visible (1 bytes)\n");
    assert_not_contains(t, ".git/");
    assert_not_contains(t, "HEAD");
    free(t);
}

static void test_recursion_and_depth(void **state) {
    (void)state;
    mk("rec");
    mk("rec/a");
    mk("rec/a/b");
    put("rec/a/b/deep.txt", "d");
    put("rec/a/mid.txt", "m");
    put("rec/top.txt", "t");
    mk("rec/c");
    assert_listing("{\"path\":\"rec\",\"recursive\":true}", "[DIR] a/\n"
                                                            "[DIR] a/b/\n"
                                                            "[FILE] a/b/deep.txt (1 bytes)\n"
                                                            "[FILE] a/mid.txt (1 bytes)\n"
                                                            "[DIR] c/\n"
                                                            "[FILE] top.txt (1 bytes)\n");
    assert_listing("{\"path\":\"rec\"}", "[DIR] a/\n[DIR] c/\n[FILE] top.txt (1 bytes)\n");
    assert_listing("{\"path\":\"rec\",\"recursive\":true,\"max_depth\":1}",
                   "[DIR] a/\n[DIR] c/\n[FILE] top.txt (1 bytes)\n");
    /* max_depth alone recurses. */
    assert_listing("{\"path\":\"rec\",\"max_depth\":2}", "[DIR] a/\n"
                                                         "[DIR] a/b/\n"
                                                         "[FILE] a/mid.txt (1 bytes)\n"
                                                         "[DIR] c/\n"
                                                         "[FILE] top.txt (1 bytes)\n");
    assert_listing("{\"path\":\"rec\",\"max_depth\":2,\"recursive\":false}",
                   "[DIR] a/\n[DIR] c/\n[FILE] top.txt (1 bytes)\n");
}

static void test_exclude_patterns(void **state) {
    (void)state;
    mk("ex");
    put("ex/keep.c", "");
    put("ex/drop.log", "");
    mk("ex/build");
    put("ex/build/out.o", "");
    put("ex/buildfile", "");
    mk("ex/src");
    mk("ex/src/gen");
    put("ex/src/gen/x.c", "");
    put("ex/src/main.c", "");
    put("ex/src/main.log", "");
    char *t = listing("{\"path\":\"ex\",\"recursive\":true,\"exclude_patterns\":"
                      "[\"*.log\",\"build/\",\"buildfile/\",\"src/**/gen\"]}");
    assert_contains(t, "[FILE] buildfile (0 bytes)\n[FILE] keep.c (0 bytes)\n"
                       "[DIR] src/\n[FILE] src/main.c (0 bytes)\n");
    assert_not_contains(t, "log (");
    assert_not_contains(t, "[DIR] build/");
    assert_not_contains(t, "out.o");
    assert_not_contains(t, "gen");
    assert_contains(t, "4 matched by exclude_patterns");
    free(t);
    /* Anchored: src/ + "*.c" matches src/main.c only, not a top-level keep.c. */
    t = listing("{\"path\":\"ex\",\"recursive\":true,\"exclude_patterns\":[\"src/*.c\"]}");
    assert_contains(t, "[FILE] keep.c");
    assert_not_contains(t, "main.c");
    assert_contains(t, "[FILE] src/gen/x.c");
    free(t);
}

static void test_gitignore(void **state) {
    (void)state;
    mk("gi");
    mk("gi/.git"); /* .gitignore files count inside a git repository only */
    put("gi/.gitignore", "# build products\n\n*.o\n!keep.o\nout/\n/top.txt\n"
                         "docs/**/*.png\n");
    put("gi/a.o", "");
    put("gi/keep.o", "");
    put("gi/main.c", "");
    put("gi/top.txt", "");
    mk("gi/out");
    put("gi/out/x", "");
    put("gi/out2", ""); /* a file: "out/" names directories only */
    mk("gi/docs");
    mk("gi/docs/img");
    put("gi/docs/img/p.png", "");
    put("gi/docs/readme.md", "");
    mk("gi/sub");
    put("gi/sub/top.txt", "");  /* "/top.txt" is anchored to gi/ */
    put("gi/sub/b.o", "");
    put("gi/sub/local.txt", "");
    put("gi/sub/.gitignore", "local.txt\n!b.o\n");
    put("gi/local.txt", "");    /* the nested rule does not reach up */
    assert_listing("{\"path\":\"gi\",\"recursive\":true}", "[DIR] docs/\n"
                                                           "[DIR] docs/img/\n"
                                                           "[FILE] docs/readme.md (0 bytes)\n"
                                                           "[FILE] keep.o (0 bytes)\n"
                                                           "[FILE] local.txt (0 bytes)\n"
                                                           "[FILE] main.c (0 bytes)\n"
                                                           "[FILE] out2 (0 bytes)\n"
                                                           "[DIR] sub/\n"
                                                           "[FILE] sub/b.o (0 bytes)\n"
                                                           "[FILE] sub/top.txt (0 bytes)\n");
    char *t = listing("{\"path\":\"gi\",\"recursive\":true}");
    assert_contains(t, "5 matched by ignore files");
    free(t);
    /* Listing the ignored directory itself works. */
    assert_listing("{\"path\":\"gi/out\"}", "[FILE] x (0 bytes)\n");
    assert_listing("{\"path\":\"gi/out\",\"sizes\":false}", "[FILE] x\n");
    /* Starting below the repository's top: its .git is found above, and
     * the ignore files between it and the start apply (gi's "*.o" hides
     * c.o; sub's "!b.o" shows b.o again), as a listing from the top would. */
    put("gi/sub/c.o", "");
    assert_listing("{\"path\":\"gi/sub\"}", "[FILE] b.o (0 bytes)\n"
                                              "[FILE] top.txt (0 bytes)\n");
    assert_listing("{\"path\":\"gi/sub\",\"include_hidden\":true}",
                   "[FILE] .gitignore (15 bytes)\n[FILE] b.o (0 bytes)\n"
                   "[FILE] top.txt (0 bytes)\n");
}

/* ripgrep's rules outside a repository: .gitignore is not read, .ignore
 * is, and .rgignore overrides .ignore. */
static void test_ignore_files_outside_git(void **state) {
    (void)state;
    mk("ng");
    put("ng/.gitignore", "*.o\n");
    put("ng/.ignore", "*.tmp\nsecret/\n");
    put("ng/.rgignore", "!keep.tmp\n");
    put("ng/a.o", "");
    put("ng/b.tmp", "");
    put("ng/keep.tmp", "");
    mk("ng/secret");
    put("ng/secret/s.txt", "");
    assert_listing("{\"path\":\"ng\",\"recursive\":true}", "[FILE] a.o (0 bytes)\n"
                                                           "[FILE] keep.tmp (0 bytes)\n");
    char *t = listing("{\"path\":\"ng\",\"recursive\":true}");
    assert_contains(t, "2 matched by ignore files");
    free(t);
}

/* A repository nested in another: the outer .gitignore stops at it (as
 * git's and ripgrep's do), the outer .ignore does not. */
static void test_nested_repository(void **state) {
    (void)state;
    mk("nest");
    mk("nest/.git");
    mk("nest/inner");
    mk("nest/inner/.git");
    put("nest/.gitignore", "*.log\n");
    put("nest/.ignore", "*.tmp\n");
    put("nest/b.log", "");
    put("nest/inner/a.log", "");
    put("nest/inner/x.tmp", "");
    put("nest/inner/c.txt", "");
    assert_listing("{\"path\":\"nest\",\"recursive\":true}", "[DIR] inner/\n"
                                                             "[FILE] inner/a.log (0 bytes)\n"
                                                             "[FILE] inner/c.txt (0 bytes)\n");
    /* the same from inside the nested one */
    assert_listing("{\"path\":\"nest/inner\"}", "[FILE] a.log (0 bytes)\n"
                                                  "[FILE] c.txt (0 bytes)\n");
}

static void test_symlinked_dir_not_followed(void **state) {
    (void)state;
    mk("sl");
    mk("sl/real");
    put("sl/real/f.txt", "f");
    link_("real", "sl/alias");
    link_("..", "sl/loop");
    assert_listing("{\"path\":\"sl\",\"recursive\":true}", "[LINK] alias -> real\n"
                                                           "[LINK] loop -> ..\n"
                                                           "[DIR] real/\n"
                                                           "[FILE] real/f.txt (1 bytes)\n");
    /* Named directly, a symlink inside the root does lead to its directory. */
    assert_listing("{\"path\":\"sl/alias\"}", "[FILE] f.txt (1 bytes)\n");
}

static void make_files(const char *dir, int n) {
    char p[512];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s/f%04d", root, dir, i);
        int fd = open(p, O_CREAT | O_WRONLY, 0644);
        assert_true(fd >= 0);
        close(fd);
    }
}

static void test_cap(void **state) {
    (void)state;
    mk("many");
    make_files("many", 3000);
    rig_error err;
    rig_result *r = callf("list_directory", &err, "{\"path\":\"many\"}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    const char *body = block_text(r, 0);
    assert_true(strncmp(body, "[FILE] f0000 (0 bytes)\n[FILE] f0001 (0 bytes)\n", 46) == 0);
    size_t lines = 0;
    for (const char *p = body; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1000);
    assert_contains(body, "[FILE] f0999 (0 bytes)\n");
    assert_not_contains(body, "f1000");
    assert_contains(block_text(r, 1), "[Showing 1000 entries; 2000 more not shown");
    assert_contains(block_text(r, 1), "exclude_patterns");
    rig_result_free(r);

    /* Recursive: the count goes on through directories past the cap. */
    mk("many2");
    mk("many2/a");
    mk("many2/b");
    make_files("many2/a", 600);
    make_files("many2/b", 600);
    r = callf("list_directory", &err, "{\"path\":\"many2\",\"recursive\":true}");
    assert_ok_result(r, err);
    body = block_text(r, 0);
    assert_true(strncmp(body, "[DIR] a/\n[FILE] a/f0000 (0 bytes)\n", 34) == 0);
    assert_contains(body, "[DIR] b/\n[FILE] b/f0000 (0 bytes)\n");
    assert_contains(body, "[FILE] b/f0397 (0 bytes)\n");
    assert_not_contains(body, "b/f0398");
    assert_contains(block_text(r, 1), "[Showing 1000 entries; 202 more not shown");
    rig_result_free(r);

    /* The tree is capped the same way. */
    r = callf("directory_tree", &err, "{\"path\":\"many\"}");
    assert_ok_result(r, err);
    rig_json_doc *d = rig_json_parse(block_text(r, 0), strlen(block_text(r, 0)), NULL, NULL);
    assert_non_null(d);
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 1000);
    rig_json_doc_free(d);
    assert_contains(block_text(r, 1), "2000 more not shown");
    rig_result_free(r);
}

/* ---- directory_tree ----------------------------------------------------- */

static void test_directory_tree(void **state) {
    (void)state;
    mk("tree");
    mk("tree/a");
    mk("tree/a/b");
    mk("tree/a/b/c");
    put("tree/a/b/c/deep.txt", "");
    put("tree/a/f.txt", "");
    put("tree/z.txt", "");
    put("tree/.gitignore", "*.log\n");
    put("tree/x.log", "");
    link_("a", "tree/ln");
    mk("tree/.git");
    rig_error err;
    rig_result *r = callf("directory_tree", &err, "{\"path\":\"tree\"}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2); /* the JSON, and the note on .gitignore */
    const char *json = block_text(r, 0);
    rig_json_doc *d = rig_json_parse(json, strlen(json), NULL, NULL);
    assert_non_null(d);
    rig_json_val top = rig_json_doc_root(d);
    assert_true(rig_json_is_array(top));
    assert_int_equal(rig_json_len(top), 4); /* .gitignore, a, ln, z.txt */
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/0/name"), ".gitignore"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/0/type"), "file"));
    assert_false(rig_json_exists(rig_json_pointer(top, "/0/children")));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/1/name"), "a"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/1/type"), "directory"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/1/children/0/name"), "b"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/1/children/0/children/0/name"), "c"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/1/children/0/children/0/type"),
                                "directory"));
    /* level 3 is shown but not expanded */
    assert_false(rig_json_exists(rig_json_pointer(top, "/1/children/0/children/0/children")));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/1/children/1/name"), "f.txt"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/2/name"), "ln"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/2/type"), "symlink"));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/2/target"), "a"));
    assert_false(rig_json_exists(rig_json_pointer(top, "/2/children")));
    assert_true(rig_json_str_eq(rig_json_pointer(top, "/3/name"), "z.txt"));
    rig_json_doc_free(d);
    assert_contains(block_text(r, 1), "1 matched by ignore files");
    rig_result_free(r);

    r = callf("directory_tree", &err,
              "{\"path\":\"tree\",\"max_depth\":1,\"exclude_patterns\":[\"z.*\",\".*\"]}");
    assert_ok_result(r, err);
    assert_string_equal(block_text(r, 0), "[{\"name\":\"a\",\"type\":\"directory\"},"
                                          "{\"name\":\"ln\",\"type\":\"symlink\","
                                          "\"target\":\"a\"}]");
    rig_result_free(r);

    mk("tree-empty");
    r = callf("directory_tree", &err, "{\"path\":\"tree-empty\"}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 1);
    assert_string_equal(block_text(r, 0), "[]");
    rig_result_free(r);

    r = callf("directory_tree", &err, "{\"path\":\"tree/z.txt\"}");
    assert_error_with(r, "is not a directory");
    rig_result_free(r);
}

/* ---- get_file_info ------------------------------------------------------ */

static bool iso_utc(const char *s) {
    return strlen(s) == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' &&
           s[16] == ':' && s[19] == 'Z';
}

static void test_get_file_info(void **state) {
    (void)state;
    mk("info");
    put("info/f.txt", "0123456789");
    char p[512];
    snprintf(p, sizeof p, "%s/info/f.txt", root);
    assert_int_equal(chmod(p, 0640), 0);
    struct timespec times[2] = {{1700000000, 0}, {1600000000, 0}}; /* atime, mtime */
    assert_int_equal(utimensat(AT_FDCWD, p, times, 0), 0);
    link_("f.txt", "info/ln");
    link_("/etc/passwd", "info/abs-ln"); /* described, never followed */

    rig_error err;
    rig_result *r = callf("get_file_info", &err, "{\"path\":\"info/f.txt\"}");
    assert_ok_result(r, err);
    char *t = text_of(r);
    assert_contains(t, "type: file\nsize: 10 bytes\npermissions: 0640\n");
    assert_contains(t, "modified: 2020-09-13T12:26:40Z\naccessed: 2023-11-14T22:13:20Z");
    free(t);
    rig_json_doc *d = structured_of(r);
    assert_string_equal(str_at(d, "/path"), "info/f.txt");
    assert_string_equal(str_at(d, "/type"), "file");
    assert_int_equal(int_at(d, "/size"), 10);
    assert_string_equal(str_at(d, "/permissions"), "0640");
    assert_string_equal(str_at(d, "/modified"), "2020-09-13T12:26:40Z");
    assert_string_equal(str_at(d, "/accessed"), "2023-11-14T22:13:20Z");
    rig_json_val created = rig_json_pointer(rig_json_doc_root(d), "/created");
    if (rig_json_exists(created))
        assert_true(iso_utc(str_at(d, "/created")));
    assert_false(rig_json_exists(rig_json_pointer(rig_json_doc_root(d), "/target")));
    rig_json_doc_free(d);
    rig_result_free(r);

    r = callf("get_file_info", &err, "{\"path\":\"info\"}");
    assert_ok_result(r, err);
    d = structured_of(r);
    assert_string_equal(str_at(d, "/type"), "directory");
    assert_string_equal(str_at(d, "/permissions"), "0755");
    assert_true(iso_utc(str_at(d, "/modified")));
    rig_json_doc_free(d);
    rig_result_free(r);

    r = callf("get_file_info", &err, "{\"path\":\"info/ln\"}");
    assert_ok_result(r, err);
    t = text_of(r);
    assert_contains(t, "type: symlink\n");
    assert_contains(t, "target: f.txt\n");
    free(t);
    d = structured_of(r);
    assert_string_equal(str_at(d, "/type"), "symlink");
    assert_string_equal(str_at(d, "/target"), "f.txt");
    assert_int_equal(int_at(d, "/size"), 5); /* the link's own length, not the file's */
    rig_json_doc_free(d);
    rig_result_free(r);

    r = callf("get_file_info", &err, "{\"path\":\"info/abs-ln\"}");
    assert_ok_result(r, err);
    d = structured_of(r);
    assert_string_equal(str_at(d, "/type"), "symlink");
    assert_string_equal(str_at(d, "/target"), "/etc/passwd");
    rig_json_doc_free(d);
    rig_result_free(r);

    /* The root itself. */
    r = callf("get_file_info", &err, "{\"path\":\"%s\"}", root);
    assert_ok_result(r, err);
    d = structured_of(r);
    assert_string_equal(str_at(d, "/type"), "directory");
    rig_json_doc_free(d);
    rig_result_free(r);

    r = callf("get_file_info", &err, "{\"path\":\"info/missing\"}");
    assert_error_with(r, "No such file or directory: 'info/missing'");
    rig_result_free(r);
}

/* ---- read_multiple_files ------------------------------------------------ */

static void test_read_multiple(void **state) {
    (void)state;
    mk("multi");
    put("multi/a.txt", "alpha\nbeta\n");
    put("multi/b.txt", "no newline");
    put("multi/empty", "");
    char bin[] = {'a', 0, 'b'};
    char p[512];
    snprintf(p, sizeof p, "%s/multi/bin", root);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fwrite(bin, 1, sizeof bin, f);
    fclose(f);

    rig_error err;
    rig_result *r = callf("read_multiple_files", &err,
                          "{\"paths\":[\"multi/a.txt\",\"multi/missing.txt\",\"%s/multi/b.txt\","
                          "\"multi/empty\",\"multi\",\"multi/bin\",\"%s/secret\"]}",
                          root, outside);
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 7);
    assert_string_equal(block_text(r, 0), "==> multi/a.txt <==\nalpha\nbeta\n");
    assert_string_equal(block_text(r, 1),
                        "==> multi/missing.txt <==\n[Error: no such file: 'multi/missing.txt'. "
                        "Check the path, or call list_directory to see what exists.]\n");
    char want[512];
    snprintf(want, sizeof want, "==> %s/multi/b.txt <==\nno newline\n", root);
    assert_string_equal(block_text(r, 2), want);
    assert_string_equal(block_text(r, 3), "==> multi/empty <==\n[The file is empty.]\n");
    assert_contains(block_text(r, 4), "is a directory");
    assert_contains(block_text(r, 5), "is binary");
    assert_contains(block_text(r, 5), "binary=true");
    assert_contains(block_text(r, 6), "Access denied");
    char *t = text_of(r);
    assert_not_contains(t, "TOP-SECRET");
    free(t);
    rig_result_free(r);

    /* Nothing readable: an error result, still labelled by path. */
    r = callf("read_multiple_files", &err, "{\"paths\":[\"multi/x\",\"multi/y\"]}");
    assert_true(rig_result_is_error(r));
    t = text_of(r);
    assert_contains(t, "==> multi/x <==");
    assert_contains(t, "==> multi/y <==");
    free(t);
    rig_result_free(r);

    /* A long file: the first 2000 lines and where to go on. */
    snprintf(p, sizeof p, "%s/multi/long.txt", root);
    f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 1; i <= 2500; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);
    r = callf("read_multiple_files", &err, "{\"paths\":[\"multi/long.txt\"]}");
    assert_ok_result(r, err);
    const char *body = block_text(r, 0);
    assert_contains(body, "\nline 2000\n[Only the first 2000 lines shown");
    assert_not_contains(body, "line 2001");
    assert_contains(body, "offset=2001");
    rig_result_free(r);

    /* A file wider than the byte budget stops at a line boundary. */
    snprintf(p, sizeof p, "%s/multi/wide.txt", root);
    f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 1; i <= 1000; i++)
        fprintf(f, "%099d\n", i); /* 100 bytes a line */
    fclose(f);
    r = callf("read_multiple_files", &err, "{\"paths\":[\"multi/wide.txt\"]}");
    assert_ok_result(r, err);
    body = block_text(r, 0);
    assert_contains(body, "[Only the first 450 lines shown (45000 of 100000 bytes)");
    assert_contains(body, "offset=451");
    rig_result_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tool_shape),
        cmocka_unit_test(test_schema_errors),
        cmocka_unit_test(test_outside_refused),
        cmocka_unit_test(test_flat_listing),
        cmocka_unit_test(test_hidden),
        cmocka_unit_test(test_recursion_and_depth),
        cmocka_unit_test(test_exclude_patterns),
        cmocka_unit_test(test_gitignore),
        cmocka_unit_test(test_ignore_files_outside_git),
        cmocka_unit_test(test_nested_repository),
        cmocka_unit_test(test_symlinked_dir_not_followed),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_directory_tree),
        cmocka_unit_test(test_get_file_info),
        cmocka_unit_test(test_read_multiple),
    };
    return cmocka_run_group_tests(tests, setup, fs_teardown);
}
