/* test_fs_grep.c — the grep tool through a toolset, in a fresh tree under
 * /tmp:
 *
 *   base/root/      the one root, holding the tree made by setup
 *   base/outside/   secret.c, which must never be searched
 *
 * Literal and regex patterns, case, fixed strings, the three output modes,
 * context, the glob filter, .gitignore / hidden / no_ignore, binary files,
 * paging with head_limit and offset, and the errors. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"
#include "tools/fs.h"

static char base[64], root[128], outside[128];
static rig_roots *roots;
static rig_toolset *ts;

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static int put(const char *name, const char *text, size_t len) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return -1;
    fwrite(text, 1, len, f);
    return fclose(f);
}
#define PUT(name, text) put(name, text, sizeof text - 1)

static int mk(const char *name) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, name);
    return mkdir(p, 0755);
}

static int setup(void **state) {
    (void)state;
    snprintf(base, sizeof base, "/tmp/rig-fs-grep-XXXXXX");
    if (!mkdtemp(base))
        return -1;
    snprintf(root, sizeof root, "%s/root", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    if (mkdir(root, 0755) || mkdir(outside, 0755))
        return -1;
    char secret[192];
    snprintf(secret, sizeof secret, "%s/secret.c", outside);
    FILE *f = fopen(secret, "w");
    if (!f)
        return -1;
    fputs("hello TOP-SECRET\n", f);
    fclose(f);
    if (mk("src") || mk("src/sub") || mk("build") || mk(".hid") || mk("pg"))
        return -1;
    if (PUT("src/a.c", "int main(void) {\n    return hello_world();\n}\n") ||
        PUT("src/b.h", "/* Hello there */\nint hello_world(void);\n") ||
        PUT("src/sub/c.c", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n") ||
        PUT("src/sub/meta.txt", "cost: $5 (a+b)*c\ncost 5 abbc\n") ||
        PUT(".gitignore", "build/\n*.log\n") || PUT("build/out.c", "hello from build\n") ||
        PUT("x.log", "hello log\n") || PUT(".hid/h.c", "hello hidden\n") ||
        put("bin.dat", "hello\0binary\n", 13))
        return -1;
    char name[64];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "pg/f%02d.txt", i);
        if (PUT(name, "match\nmatch\n"))
            return -1;
    }
    roots = rig_roots_new();
    rig_error err;
    if (!roots || rig_roots_add(roots, root, &err) != RIG_OK)
        return -1;
    ts = rig_toolset_new();
    if (!ts || rig_fs_tools_add(ts, roots, &err) != RIG_OK)
        return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_toolset_free(ts);
    rig_roots_free(roots);
    nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static char *grepped(const char *args) {
    rig_error err;
    rig_result *r = call_in(ts, "grep", NULL, args, &err);
    assert_ok_result(r, err);
    char *t = text_of(r);
    rig_result_free(r);
    return t;
}

static void assert_grep(const char *args, const char *want) {
    char *t = grepped(args);
    if (strcmp(t, want) != 0)
        fail_msg("grep %s gave:\n%s\nwanted:\n%s", args, t, want);
    free(t);
}

static void test_tool_shape(void **state) {
    (void)state;
    const rig_tool *t = rig_toolset_get(ts, "grep");
    assert_non_null(t);
    rig_annotations a = rig_tool_annotations(t);
    assert_int_equal(a.read_only, RIG_HINT_TRUE);
    assert_int_equal(a.destructive, RIG_HINT_FALSE);
    rig_error err;
    assert_null(rig__grep_tool_new(NULL, &err));
}

static void test_literal_and_modes(void **state) {
    (void)state;
    /* files_with_matches by default, in path order; build/ (gitignored),
     * x.log, .hid and bin.dat are skipped. */
    assert_grep("{\"pattern\":\"hello\",\"path\":\"src\"}", "src/a.c\nsrc/b.h\n");
    assert_grep("{\"pattern\":\"hello\"}", "src/a.c\nsrc/b.h\n\n[1 binary file skipped.]");
    assert_grep("{\"pattern\":\"hello\",\"path\":\"src\",\"output_mode\":\"content\"}",
                "src/a.c:2:    return hello_world();\nsrc/b.h:2:int hello_world(void);\n");
    assert_grep("{\"pattern\":\"hello\",\"path\":\"src\",\"output_mode\":\"content\","
                "\"line_numbers\":false}",
                "src/a.c:    return hello_world();\nsrc/b.h:int hello_world(void);\n");
    assert_grep("{\"pattern\":\"o\",\"path\":\"src/sub\",\"output_mode\":\"count\"}",
                "src/sub/c.c:3\nsrc/sub/meta.txt:2\n");
    /* one file as the path */
    assert_grep("{\"pattern\":\"t\",\"path\":\"src/sub/c.c\",\"output_mode\":\"content\"}",
                "src/sub/c.c:2:two\nsrc/sub/c.c:3:three\nsrc/sub/c.c:8:eight\n");
    char *t = grepped("{\"pattern\":\"zzz-nothing\"}");
    assert_contains(t, "No matches");
    free(t);
}

static void test_regex_case_fixed(void **state) {
    (void)state;
    assert_grep("{\"pattern\":\"\\\\bhello\\\\w+\",\"path\":\"src\",\"output_mode\":\"content\"}",
                "src/a.c:2:    return hello_world();\nsrc/b.h:2:int hello_world(void);\n");
    assert_grep("{\"pattern\":\"^t\\\\w+e$\",\"path\":\"src/sub/c.c\",\"output_mode\":\"content\"}",
                "src/sub/c.c:3:three\n");
    assert_grep("{\"pattern\":\"HELLO THERE\",\"path\":\"src\",\"case_insensitive\":true}",
                "src/b.h\n");
    assert_grep("{\"pattern\":\"HELLO THERE\",\"path\":\"src\"}", "No matches for 'HELLO THERE' in 'src' (4 files searched).");
    assert_grep("{\"pattern\":\"$5 (a+b)*c\",\"path\":\"src\",\"fixed_strings\":true,"
                "\"output_mode\":\"content\"}",
                "src/sub/meta.txt:1:cost: $5 (a+b)*c\n");
    /* as a regex the same text means something else */
    assert_grep("{\"pattern\":\"(a+b)*c\",\"path\":\"src/sub/meta.txt\",\"output_mode\":\"content\"}",
                "src/sub/meta.txt:1:cost: $5 (a+b)*c\nsrc/sub/meta.txt:2:cost 5 abbc\n");
    /* multiline: a match across lines marks every line it touches */
    assert_grep("{\"pattern\":\"two.three\",\"path\":\"src/sub/c.c\",\"multiline\":true,"
                "\"output_mode\":\"content\"}",
                "src/sub/c.c:2:two\nsrc/sub/c.c:3:three\n");
    assert_grep("{\"pattern\":\"two.three\",\"path\":\"src/sub/c.c\"}",
                "No matches for 'two.three' in 'src/sub/c.c' (1 file searched).");
}

static void test_context(void **state) {
    (void)state;
    assert_grep("{\"pattern\":\"^(three|seven)$\",\"path\":\"src/sub/c.c\",\"output_mode\":"
                "\"content\",\"context\":1}",
                "src/sub/c.c-2-two\nsrc/sub/c.c:3:three\nsrc/sub/c.c-4-four\n--\n"
                "src/sub/c.c-6-six\nsrc/sub/c.c:7:seven\nsrc/sub/c.c-8-eight\n");
    assert_grep("{\"pattern\":\"^(three|five)$\",\"path\":\"src/sub/c.c\",\"output_mode\":"
                "\"content\",\"before\":2,\"after\":0}",
                "src/sub/c.c-1-one\nsrc/sub/c.c-2-two\nsrc/sub/c.c:3:three\n"
                "src/sub/c.c-4-four\nsrc/sub/c.c:5:five\n");
    assert_grep("{\"pattern\":\"nine\",\"path\":\"src/sub/c.c\",\"output_mode\":"
                "\"content\",\"after\":3}",
                "src/sub/c.c:9:nine\n");
}

static void test_glob_filter(void **state) {
    (void)state;
    assert_grep("{\"pattern\":\"hello\",\"glob\":\"*.h\"}", "src/b.h\n");
    assert_grep("{\"pattern\":\"o\",\"path\":\"src\",\"glob\":\"sub/*.c\"}", "src/sub/c.c\n");
}

static void test_ignore_hidden_binary(void **state) {
    (void)state;
    assert_grep("{\"pattern\":\"hello\",\"no_ignore\":true}",
                ".hid/h.c\nbuild/out.c\nsrc/a.c\nsrc/b.h\nx.log\n\n[1 binary file skipped.]");
    /* a hidden or ignored file named as the path is searched */
    assert_grep("{\"pattern\":\"hello\",\"path\":\".hid\"}", ".hid/h.c\n");
    assert_grep("{\"pattern\":\"hello\",\"path\":\"x.log\"}", "x.log\n");
    assert_grep("{\"pattern\":\"binary\",\"path\":\"bin.dat\"}",
                "No matches for 'binary' in 'bin.dat' (0 files searched).\n[1 binary file skipped.]");
}

static void test_paging(void **state) {
    (void)state;
    char *t = grepped("{\"pattern\":\"match\",\"path\":\"pg\",\"head_limit\":5}");
    assert_true(strncmp(t, "pg/f00.txt\npg/f01.txt\npg/f02.txt\npg/f03.txt\npg/f04.txt\n\n[truncated", 66) == 0);
    assert_contains(t, "offset=5");
    free(t);
    t = grepped("{\"pattern\":\"match\",\"path\":\"pg\",\"head_limit\":5,\"offset\":10}");
    assert_string_equal(t, "pg/f10.txt\npg/f11.txt\n");
    free(t);
    t = grepped("{\"pattern\":\"match\",\"path\":\"pg\",\"output_mode\":\"content\","
                "\"head_limit\":3,\"offset\":1}");
    assert_true(strncmp(t, "pg/f00.txt:2:match\npg/f01.txt:1:match\npg/f01.txt:2:match\n\n[truncated", 66) == 0);
    assert_contains(t, "offset=4");
    free(t);
    /* default limit 250: 24 lines are all shown */
    t = grepped("{\"pattern\":\"match\",\"path\":\"pg\",\"output_mode\":\"content\"}");
    assert_not_contains(t, "truncated");
    assert_contains(t, "pg/f11.txt:2:match\n");
    free(t);
}

static void test_errors(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = call_in(ts, "grep", NULL, "{\"pattern\":\"a(b\"}", &err);
    assert_error_with(r, "not a valid regular expression");
    char *t = text_of(r);
    assert_contains(t, "offset 3");
    free(t);
    rig_result_free(r);
    char args[512];
    const char *paths[] = {outside, "..", "../outside", "../outside/secret.c"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        snprintf(args, sizeof args, "{\"path\":\"%s\",\"pattern\":\"hello\"}", paths[i]);
        r = call_in(ts, "grep", NULL, args, &err);
        t = text_of(r);
        if (!rig_result_is_error(r))
            fail_msg("grep in %s was not refused: %s", paths[i], t);
        assert_not_contains(t, "TOP-SECRET");
        free(t);
        rig_result_free(r);
    }
    /* a symlink out of the root is not followed */
    char link[512];
    snprintf(link, sizeof link, "%s/src/sub/escape", root);
    assert_int_equal(symlink(outside, link), 0);
    assert_grep("{\"pattern\":\"TOP\",\"path\":\"src\"}",
                "No matches for 'TOP' in 'src' (4 files searched).");
    unlink(link);
    r = call_in(ts, "grep", NULL, "{\"pattern\":\"x\",\"path\":\"no-such\"}", &err);
    assert_error_with(r, "No such file");
    rig_result_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tool_shape),
        cmocka_unit_test(test_literal_and_modes),
        cmocka_unit_test(test_regex_case_fixed),
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_glob_filter),
        cmocka_unit_test(test_ignore_hidden_binary),
        cmocka_unit_test(test_paging),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
