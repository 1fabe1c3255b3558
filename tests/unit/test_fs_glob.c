/* test_fs_glob.c — the glob tool through a toolset, in a fresh tree under
 * /tmp:
 *
 *   base/root/      the one root; each test works in a directory of its own
 *   base/outside/   secret.c, which must never be found
 *
 * Patterns: `**` at any depth, `*` at the top only, `?`, `[...]`, a
 * leading directory; order by modification time, newest first; .gitignore
 * honoured, .git and hidden names skipped unless named; symlinked
 * directories never entered; the cap and its note; paths outside the root
 * and bad patterns refused. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"
#include "tools/fs.h"

static int setup(void **state) {
    (void)state;
    return fs_setup("glob", "secret.c", "TOP-SECRET\n");
}

/* root/name holding `text`, modified at `mtime` seconds (0: now). */
static void put_at(const char *name, const char *text, time_t mtime) {
    put(name, text);
    if (mtime) {
        char p[512];
        at(p, sizeof p, name);
        struct timespec ts2[2] = {{mtime, 0}, {mtime, 0}};
        assert_int_equal(utimensat(AT_FDCWD, p, ts2, 0), 0);
    }
}


/* glob with `args` (JSON): its whole text (malloc'd); must be ok. */
static char *globbed(const char *args) {
    rig_error err;
    rig_result *r = call_in(ts, "glob", NULL, args, &err);
    assert_ok_result(r, err);
    char *t = text_of(r);
    rig_result_free(r);
    return t;
}

/* glob with `args` gives exactly `want`. */
static void assert_glob(const char *args, const char *want) {
    char *t = globbed(args);
    if (strcmp(t, want) != 0)
        fail_msg("glob %s gave:\n%s\nwanted:\n%s", args, t, want);
    free(t);
}

static void test_tool_shape(void **state) {
    (void)state;
    const rig_tool *t = rig_toolset_get(ts, "glob");
    assert_non_null(t);
    rig_annotations a = rig_tool_annotations(t);
    assert_int_equal(a.read_only, RIG_HINT_TRUE);
    assert_int_equal(a.destructive, RIG_HINT_FALSE);
    rig_error err;
    assert_null(rig__glob_tool_new(NULL, &err));
}

static void test_patterns(void **state) {
    (void)state;
    mk("q");
    mk("q/src");
    mk("q/src/deep");
    put_at("q/a.txt", "", 1000);
    put_at("q/b.txt", "", 1001);
    put_at("q/main.c", "", 1002);
    put_at("q/src/one.c", "", 1003);
    put_at("q/src/two.h", "", 1004);
    put_at("q/src/notes.txt", "", 1005);
    put_at("q/src/deep/three.c", "", 1006);
    put_at("q/x1.c", "", 1008);
    put_at("q/x22.c", "", 1009);

    /* ** at any depth, newest first. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"**/*.c\"}",
                "q/x22.c\nq/x1.c\nq/src/deep/three.c\nq/src/one.c\nq/main.c\n");
    /* * at the top only. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"*.txt\"}", "q/b.txt\nq/a.txt\n");
    /* ? is one character. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"x?.c\"}", "q/x1.c\n");
    /* Brackets. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"[ab].txt\"}", "q/b.txt\nq/a.txt\n");
    assert_glob("{\"path\":\"q\",\"pattern\":\"src/[!n]*\"}", "q/src/two.h\nq/src/one.c\n");
    assert_glob("{\"path\":\"q\",\"pattern\":\"x[0-9][0-9].c\"}", "q/x22.c\n");
    /* A leading directory, then any depth. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"src/**/*.c\"}",
                "q/src/deep/three.c\nq/src/one.c\n");
    /* Directories are not results. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"src/*\"}",
                "q/src/notes.txt\nq/src/two.h\nq/src/one.c\n");
    /* Relative to the root when path is left out; ./ stripped. */
    assert_glob("{\"pattern\":\"./q/*.txt\"}", "q/b.txt\nq/a.txt\n");
    /* An absolute path gives absolute results. */
    char args[512], want[512];
    snprintf(args, sizeof args, "{\"path\":\"%s/q/src/\",\"pattern\":\"*.h\"}", root);
    snprintf(want, sizeof want, "%s/q/src/two.h\n", root);
    assert_glob(args, want);
    /* Nothing matches: said, not an error. */
    assert_glob("{\"path\":\"q\",\"pattern\":\"**/*.rs\"}", "No files match '**/*.rs' in 'q'.");
}

static void test_mtime_order(void **state) {
    (void)state;
    mk("m");
    put_at("m/old.log", "", 100000);
    put_at("m/new.log", "", 300000);
    put_at("m/mid.log", "", 200000);
    assert_glob("{\"path\":\"m\",\"pattern\":\"*.log\"}", "m/new.log\nm/mid.log\nm/old.log\n");
    /* Touch the oldest: it comes first. */
    put_at("m/old.log", "again", 400000);
    assert_glob("{\"path\":\"m\",\"pattern\":\"*.log\"}", "m/old.log\nm/new.log\nm/mid.log\n");
}

static void test_gitignore_and_hidden(void **state) {
    (void)state;
    mk("g");
    mk("g/build");
    mk("g/src");
    mk("g/.git");
    mk("g/.hid");
    put_at("g/.gitignore", "build/\n*.o\n!keep.o\n", 1000);
    put_at("g/src/.gitignore", "gen.c\n", 1000);
    put_at("g/build/out.c", "", 1001);
    put_at("g/src/a.c", "", 1002);
    put_at("g/src/a.o", "", 1003);
    put_at("g/src/keep.o", "", 1004);
    put_at("g/src/gen.c", "", 1005);
    put_at("g/.git/config.c", "", 1006);
    put_at("g/.hid/h.c", "", 1007);
    put_at("g/.env", "", 1008);
    assert_glob("{\"path\":\"g\",\"pattern\":\"**/*.c\"}", "g/src/a.c\n");
    assert_glob("{\"path\":\"g\",\"pattern\":\"**/*.o\"}", "g/src/keep.o\n");
    /* Hidden names only when the pattern names one; .git never. */
    assert_glob("{\"path\":\"g\",\"pattern\":\"**/.*\"}", "g/.env\ng/.gitignore\ng/src/.gitignore\n");
    assert_glob("{\"path\":\"g\",\"pattern\":\".hid/*.c\"}", "g/.hid/h.c\n");
    char *t = globbed("{\"path\":\"g\",\"pattern\":\".git/*\"}");
    assert_contains(t, "No files match '.git/*' in 'g'");
    free(t);
    /* All ignored: the note says so. */
    t = globbed("{\"path\":\"g\",\"pattern\":\"build/*\"}");
    assert_contains(t, "No files match");
    assert_contains(t, "matched by ignore files");
    free(t);
}

static void test_symlinks(void **state) {
    (void)state;
    mk("s");
    mk("s/real");
    put_at("s/real/r.c", "", 1000);
    char p[512];
    snprintf(p, sizeof p, "%s/s/in-link", root);
    assert_int_equal(symlink("real", p), 0);
    snprintf(p, sizeof p, "%s/s/out-link", root);
    assert_int_equal(symlink(outside, p), 0);
    char *t = globbed("{\"path\":\"s\",\"pattern\":\"**/*.c\"}");
    assert_string_equal(t, "s/real/r.c\n");
    free(t);
    t = globbed("{\"path\":\"s\",\"pattern\":\"**/secret*\"}");
    assert_not_contains(t, "secret.c\n");
    free(t);
}

static void test_cap(void **state) {
    (void)state;
    mk("c");
    char name[64];
    for (int i = 0; i < 1005; i++) {
        snprintf(name, sizeof name, "c/f%04d.dat", i);
        put_at(name, "", 10000 + i);
    }
    char *t = globbed("{\"path\":\"c\",\"pattern\":\"*.dat\"}");
    assert_true(strncmp(t, "c/f1004.dat\nc/f1003.dat\n", 24) == 0);
    assert_not_contains(t, "c/f0004.dat");
    assert_contains(t, "c/f0005.dat\n");
    assert_contains(t, "[Showing the 1000 most recently modified of 1005 matching files");
    free(t);
}

static void test_refused(void **state) {
    (void)state;
    rig_error err;
    char args[512];
    const char *paths[] = {outside, "..", "../outside"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        snprintf(args, sizeof args, "{\"path\":\"%s\",\"pattern\":\"**/*.c\"}", paths[i]);
        rig_result *r = call_in(ts, "glob", NULL, args, &err);
        char *t = text_of(r);
        if (!rig_result_is_error(r))
            fail_msg("glob in %s was not refused: %s", paths[i], t);
        assert_not_contains(t, "secret.c");
        free(t);
        rig_result_free(r);
    }
    rig_result *r = call_in(ts, "glob", NULL, "{\"pattern\":\"../outside/*.c\"}", &err);
    assert_error_with(r, "'..'");
    rig_result_free(r);
    snprintf(args, sizeof args, "{\"pattern\":\"%s/*.c\"}", outside);
    r = call_in(ts, "glob", NULL, args, &err);
    assert_error_with(r, "absolute");
    rig_result_free(r);
    r = call_in(ts, "glob", NULL, "{\"pattern\":\"nope/*\",\"path\":\"no-such-dir\"}", &err);
    assert_error_with(r, "No such directory");
    rig_result_free(r);
    r = call_in(ts, "glob", NULL, "{\"path\":\"q\"}", &err);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tool_shape),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_mtime_order),
        cmocka_unit_test(test_gitignore_and_hidden),
        cmocka_unit_test(test_symlinks),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, fs_teardown);
}
