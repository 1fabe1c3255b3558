/* test_fs_write.c — `write_file`, `create_directory` and `move_file`
 * through a toolset, in a fresh tree under /tmp:
 *
 *   base/root/      the one root
 *   base/outside/   secret, which must never change
 *
 * write_file: create, replace (mode kept), append, create_parents, a
 * symlink leaf inside (written through) and outside (refused), paths
 * outside, a failing write in the middle of a replace (through the
 * write seam, with O_TMPFILE and with a named temporary: original
 * intact, no temporary left) and of an append (taken back whole, and
 * no file left when the append was creating it). create_directory: new,
 * existing, nested, a file in the way. move_file: rename, no-overwrite
 * refusal, overwrite, a missing destination directory, outside, across
 * file systems (/dev/shm, when it is one). Schema errors for all three.
 * A real full disk and a read-only file system: tests/cli/
 * test_fs_full_disk.sh. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"
#include "tools/fs.h"

static int setup(void **state) {
    (void)state;
    return fs_setup("write", "secret", "TOP-SECRET\n");
}

/* The seams back to the real calls, for the next test. */
static int teardown(void **state) {
    rig__fs_set_write_fn(NULL);
    rig__fs_set_tmpfile(true);
    return fs_teardown(state);
}

static bool exists(const char *name) {
    char p[256];
    struct stat st;
    at(p, sizeof p, name);
    return lstat(p, &st) == 0;
}

/* ---- the seam ----------------------------------------------------------- */

static int writes, fail_at;

/* At most 1000 bytes a call; call number fail_at fails with ENOSPC. */
static ssize_t flaky_write(int fd, const void *p, size_t n) {
    if (++writes == fail_at) {
        errno = ENOSPC;
        return -1;
    }
    return write(fd, p, n < 1000 ? n : 1000);
}

static void flaky(int nth) {
    writes = 0;
    fail_at = nth;
    rig__fs_set_write_fn(flaky_write);
}

/* ---- the tools ---------------------------------------------------------- */

static void test_tool_shape(void **state) {
    (void)state;
    rig_tool *t = rig_toolset_get(ts, "write_file");
    assert_non_null(t);
    assert_hints(t, false, true, false, false);
    assert_schema_strict(t);
    t = rig_toolset_get(ts, "create_directory");
    assert_non_null(t);
    assert_hints(t, false, false, true, false);
    assert_schema_strict(t);
    t = rig_toolset_get(ts, "move_file");
    assert_non_null(t);
    assert_hints(t, false, true, false, false);
    assert_schema_strict(t);
    rig_error err;
    assert_null(rig__write_file_tool_new(NULL, &err));
    assert_int_equal(err.code, RIG_EINVAL);
    assert_null(rig__create_directory_tool_new(NULL, &err));
    assert_null(rig__move_file_tool_new(NULL, &err));
}

static void test_schema_errors(void **state) {
    (void)state;
    static const char *const bad[][2] = {
        {"write_file", "{\"path\":\"a.txt\"}"},
        {"write_file", "{\"content\":\"x\"}"},
        {"write_file", "{\"path\":\"\",\"content\":\"x\"}"},
        {"write_file", "{\"path\":\"a.txt\",\"content\":5}"},
        {"write_file", "{\"path\":\"a.txt\",\"content\":\"x\",\"append\":\"yes\"}"},
        {"write_file", "{\"path\":\"a.txt\",\"content\":\"x\",\"create_parents\":1}"},
        {"write_file", "{\"path\":\"a.txt\",\"content\":\"x\",\"mode\":\"0644\"}"},
        {"create_directory", "{}"},
        {"create_directory", "{\"path\":\"\"}"},
        {"create_directory", "{\"path\":[\"a\"]}"},
        {"create_directory", "{\"path\":\"a\",\"parents\":true}"},
        {"move_file", "{\"source\":\"a\"}"},
        {"move_file", "{\"destination\":\"a\"}"},
        {"move_file", "{\"source\":\"a\",\"destination\":\"\"}"},
        {"move_file", "{\"source\":\"a\",\"destination\":\"b\",\"overwrite\":\"no\"}"},
        {"move_file", "{\"source\":\"a\",\"destination\":\"b\",\"force\":true}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err;
        rig_result *r = call_in(ts, bad[i][0], NULL, bad[i][1], &err);
        if (!rig_result_is_error(r) || err.code != RIG_EVALIDATE)
            fail_msg("%s accepted %s (status %d)", bad[i][0], bad[i][1], err.code);
        rig_result_free(r);
    }
    assert_false(exists("a.txt"));
    assert_false(exists("a"));
}

/* ---- write_file --------------------------------------------------------- */

static void test_create(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = callf("write_file", &err, "{\"path\":\"new.txt\",\"content\":\"hello\\n\"}");
    assert_ok_with(r, err, "Created 'new.txt': wrote 6 bytes.");
    rig_result_free(r);
    assert_file("new.txt", "hello\n");
    /* A new file gets 0666 less the umask. */
    mode_t um = umask(022);
    umask(um);
    char p[256];
    struct stat st;
    at(p, sizeof p, "new.txt");
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~um);

    /* By absolute path, empty content, and a NUL inside. */
    r = callf("write_file", &err, "{\"path\":\"%s/abs.txt\",\"content\":\"\"}", root);
    assert_ok_with(r, err, "wrote 0 bytes");
    rig_result_free(r);
    assert_file("abs.txt", "");
    r = callf("write_file", &err, "{\"path\":\"nul.bin\",\"content\":\"a\\u0000b\"}");
    assert_ok_with(r, err, "wrote 3 bytes");
    rig_result_free(r);
    at(p, sizeof p, "nul.bin");
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_size, 3);
    assert_no_temp(".");

    /* The same, with named temporaries instead of O_TMPFILE. */
    rig__fs_set_tmpfile(false);
    r = callf("write_file", &err, "{\"path\":\"named.txt\",\"content\":\"via name\"}");
    assert_ok_with(r, err, "Created 'named.txt'");
    rig_result_free(r);
    assert_file("named.txt", "via name");
    assert_no_temp(".");
}

static void test_replace_keeps_mode(void **state) {
    (void)state;
    put("conf.txt", "old content that is longer\n");
    char p[256];
    at(p, sizeof p, "conf.txt");
    assert_int_equal(chmod(p, 0640), 0);
    struct stat before, after;
    assert_int_equal(stat(p, &before), 0);
    for (int named = 0; named < 2; named++) {
        rig__fs_set_tmpfile(!named);
        rig_error err;
        rig_result *r =
            callf("write_file", &err, "{\"path\":\"conf.txt\",\"content\":\"new %d\\n\"}", named);
        assert_ok_with(r, err, "Replaced 'conf.txt': wrote 6 bytes");
        rig_result_free(r);
        assert_file("conf.txt", named ? "new 1\n" : "new 0\n");
        assert_int_equal(stat(p, &after), 0);
        assert_int_equal(after.st_mode & 07777, 0640);
        assert_int_equal(after.st_uid, before.st_uid);
        assert_int_equal(after.st_gid, before.st_gid);
        assert_true(after.st_ino != before.st_ino); /* a new file, renamed in */
        before = after;
        assert_no_temp(".");
    }
    rig_error err;
    rig_result *r = callf("write_file", &err, "{\"path\":\"conf.txt\",\"content\":\"x\"}");
    assert_ok_with(r, err, "(it had 6)");
    rig_result_free(r);
}

static void test_append(void **state) {
    (void)state;
    put("log.txt", "one\n");
    char p[256];
    at(p, sizeof p, "log.txt");
    struct stat before, after;
    assert_int_equal(stat(p, &before), 0);
    rig_error err;
    rig_result *r =
        callf("write_file", &err, "{\"path\":\"log.txt\",\"content\":\"two\\n\",\"append\":true}");
    assert_ok_with(r, err, "Appended 4 bytes to 'log.txt' (now 8 bytes).");
    rig_result_free(r);
    assert_file("log.txt", "one\ntwo\n");
    assert_int_equal(stat(p, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino); /* in place */

    r = callf("write_file", &err, "{\"path\":\"fresh.log\",\"content\":\"a\",\"append\":true}");
    assert_ok_with(r, err, "Created 'fresh.log' and appended 1 bytes.");
    rig_result_free(r);
    assert_file("fresh.log", "a");

    /* Short writes are continued: 2500 bytes in 1000-byte writes. */
    char big[2600];
    memset(big, 'z', 2500);
    big[2500] = '\0';
    flaky(0);
    r = callf("write_file", &err, "{\"path\":\"log.txt\",\"content\":\"%s\",\"append\":true}", big);
    assert_ok_with(r, err, "Appended 2500 bytes");
    rig_result_free(r);
    assert_int_equal(writes, 3);
    char *got = slurp("log.txt");
    assert_int_equal(strlen(got), 2508);
    free(got);

    /* A failure in the middle takes back the 1000 bytes that went out:
     * the file is byte for byte what it was. */
    char *was = slurp("log.txt");
    assert_int_equal(stat(p, &before), 0);
    flaky(2);
    r = callf("write_file", &err, "{\"path\":\"log.txt\",\"content\":\"%s\",\"append\":true}", big);
    assert_error_with(r, "Appending to 'log.txt' failed: No space left on device. Nothing was "
                         "appended: the file is as it was.");
    rig_result_free(r);
    assert_int_equal(writes, 2);
    assert_file("log.txt", was);
    free(was);
    assert_int_equal(stat(p, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino);

    /* Appending to a new file that fails leaves no file behind. */
    flaky(2);
    r = callf("write_file", &err, "{\"path\":\"new.log\",\"content\":\"%s\",\"append\":true}", big);
    assert_error_with(r, "Nothing was appended: no file was created.");
    rig_result_free(r);
    assert_false(exists("new.log"));
    assert_no_temp(".");
}

static void test_create_parents(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = callf("write_file", &err, "{\"path\":\"a/b/c.txt\",\"content\":\"deep\"}");
    assert_error_with(r, "The directory that should hold 'a/b/c.txt' does not exist");
    assert_error_with(r, "create_parents=true");
    rig_result_free(r);
    assert_false(exists("a"));

    r = callf("write_file", &err,
              "{\"path\":\"a/b/c.txt\",\"content\":\"deep\",\"create_parents\":true}");
    assert_ok_with(r, err, "Created 'a/b/c.txt': wrote 4 bytes.");
    assert_ok_with(r, err, "Created 2 parent directories.");
    rig_result_free(r);
    assert_file("a/b/c.txt", "deep");

    r = callf("write_file", &err,
              "{\"path\":\"%s/a/b/d.txt\",\"content\":\"x\",\"create_parents\":true}", root);
    assert_ok_result(r, err);
    char *t = text_of(r);
    assert_not_contains(t, "parent director");
    free(t);
    rig_result_free(r);
    assert_file("a/b/d.txt", "x");

    /* A file where a directory should be. */
    r = callf("write_file", &err,
              "{\"path\":\"a/b/c.txt/e.txt\",\"content\":\"x\",\"create_parents\":true}");
    assert_error_with(r, "'a/b/c.txt' exists and is a file, not a directory.");
    rig_result_free(r);
    /* Parents outside are never made. */
    r = callf("write_file", &err,
              "{\"path\":\"%s/newdir/f.txt\",\"content\":\"x\",\"create_parents\":true}",
              outside);
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    char p[256];
    snprintf(p, sizeof p, "%s/newdir", outside);
    assert_int_equal(access(p, F_OK), -1);
}

static void test_outside_refused(void **state) {
    (void)state;
    rig_error err;
    rig_result *r =
        callf("write_file", &err, "{\"path\":\"%s/secret\",\"content\":\"pwned\"}", outside);
    assert_error_with(r, "Access denied");
    assert_error_with(r, "is outside the allowed directories");
    rig_result_free(r);
    r = callf("write_file", &err, "{\"path\":\"../outside/secret\",\"content\":\"pwned\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("write_file", &err, "{\"path\":\"../outside/new\",\"content\":\"pwned\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("write_file", &err,
              "{\"path\":\"../outside/secret\",\"content\":\"pwned\",\"append\":true}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);

    /* A symlink leaf that leads out, absolute and relative. */
    char link[256], target[256];
    at(link, sizeof link, "escape");
    snprintf(target, sizeof target, "%s/secret", outside);
    assert_int_equal(symlink(target, link), 0);
    at(link, sizeof link, "escape2");
    assert_int_equal(symlink("../outside/secret", link), 0);
    at(link, sizeof link, "escape3");
    snprintf(target, sizeof target, "%s/created-by-rig", outside);
    assert_int_equal(symlink(target, link), 0);
    static const char *const names[] = {"escape", "escape2", "escape3"};
    for (int i = 0; i < 3; i++)
        for (int append = 0; append < 2; append++) {
            r = callf("write_file", &err, "{\"path\":\"%s\",\"content\":\"pwned\",\"append\":%s}",
                      names[i], append ? "true" : "false");
            if (!rig_result_is_error(r))
                fail_msg("wrote through %s", names[i]);
            rig_result_free(r);
        }
    r = callf("write_file", &err, "{\"path\":\"escape\",\"content\":\"pwned\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    assert_secret_intact();
    assert_int_equal(access(target, F_OK), -1);
    /* The links themselves are untouched. */
    char buf[256];
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, target);
    /* A directory through a symlinked parent outside. */
    at(link, sizeof link, "outdir");
    assert_int_equal(symlink(outside, link), 0);
    r = callf("write_file", &err, "{\"path\":\"outdir/secret\",\"content\":\"pwned\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("write_file", &err, "{\"path\":\"outdir/x\",\"content\":\"pwned\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    assert_secret_intact();
    /* The root itself is no file. */
    r = callf("write_file", &err, "{\"path\":\"%s\",\"content\":\"x\"}", root);
    assert_error_with(r, "is a root itself");
    rig_result_free(r);
}

static void test_symlink_inside(void **state) {
    (void)state;
    put("real.txt", "before\n");
    char link[256];
    at(link, sizeof link, "alias.txt");
    assert_int_equal(symlink("real.txt", link), 0);
    rig_error err;
    rig_result *r = callf("write_file", &err, "{\"path\":\"alias.txt\",\"content\":\"after\\n\"}");
    assert_ok_with(r, err, "Replaced 'alias.txt'");
    rig_result_free(r);
    assert_file("real.txt", "after\n");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* still a link */
    r = callf("write_file", &err,
              "{\"path\":\"alias.txt\",\"content\":\"more\\n\",\"append\":true}");
    assert_ok_with(r, err, "Appended 5 bytes");
    rig_result_free(r);
    assert_file("real.txt", "after\nmore\n");
    assert_no_temp(".");

    /* A dangling link inside: refused, nothing created. */
    at(link, sizeof link, "dangling");
    assert_int_equal(symlink("nowhere.txt", link), 0);
    r = callf("write_file", &err, "{\"path\":\"dangling\",\"content\":\"x\"}");
    assert_error_with(r, "symbolic link to a file that does not exist");
    rig_result_free(r);
    assert_false(exists("nowhere.txt"));
}

static void test_not_a_file(void **state) {
    (void)state;
    char p[256];
    at(p, sizeof p, "dir");
    assert_int_equal(mkdir(p, 0755), 0);
    rig_error err;
    rig_result *r = callf("write_file", &err, "{\"path\":\"dir\",\"content\":\"x\"}");
    assert_error_with(r, "'dir' is a directory, not a file");
    rig_result_free(r);
    at(p, sizeof p, "fifo");
    assert_int_equal(mkfifo(p, 0644), 0);
    r = callf("write_file", &err, "{\"path\":\"fifo\",\"content\":\"x\",\"append\":true}");
    assert_error_with(r, "not a regular file");
    rig_result_free(r);
    put("f", "x");
    r = callf("write_file", &err, "{\"path\":\"f/g\",\"content\":\"x\"}");
    assert_error_with(r, "Not a directory");
    rig_result_free(r);
}

/* ENOSPC in the middle of a replace: the original stays, no temp is left. */
static void test_enospc_replace(void **state) {
    (void)state;
    put("keep.txt", "the original\n");
    char p[256];
    at(p, sizeof p, "keep.txt");
    assert_int_equal(chmod(p, 0600), 0);
    char big[3100];
    memset(big, 'q', 3000);
    big[3000] = '\0';
    for (int named = 0; named < 2; named++) {
        rig__fs_set_tmpfile(!named);
        flaky(2); /* the first 1000 bytes go out, then the disk is full */
        rig_error err;
        rig_result *r =
            callf("write_file", &err, "{\"path\":\"keep.txt\",\"content\":\"%s\"}", big);
        assert_error_with(r, "Writing 'keep.txt' failed while writing it: No space left on "
                             "device (1000 of 3000 bytes were written to a temporary file, now "
                             "removed). The original file is unchanged.");
        assert_int_equal(err.code, RIG_ETOOL);
        rig_result_free(r);
        assert_int_equal(writes, 2);
        assert_file("keep.txt", "the original\n");
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_no_temp(".");

        /* A new file: nothing is created. */
        flaky(1);
        r = callf("write_file", &err, "{\"path\":\"never.txt\",\"content\":\"abc\"}");
        assert_error_with(r, "No file was created.");
        rig_result_free(r);
        assert_false(exists("never.txt"));
        assert_no_temp(".");

        /* The seam writes short: every byte still arrives. */
        flaky(0);
        r = callf("write_file", &err, "{\"path\":\"keep.txt\",\"content\":\"%s\"}", big);
        assert_ok_with(r, err, "wrote 3000 bytes");
        rig_result_free(r);
        assert_int_equal(writes, 3);
        assert_file("keep.txt", big);
        rig__fs_set_write_fn(NULL);
        put("keep.txt", "the original\n");
    }
}

/* ---- create_directory --------------------------------------------------- */

static void test_create_directory(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = callf("create_directory", &err, "{\"path\":\"newdir\"}");
    assert_ok_with(r, err, "Created the directory 'newdir'.");
    rig_result_free(r);
    char p[256];
    struct stat st;
    at(p, sizeof p, "newdir");
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));

    r = callf("create_directory", &err, "{\"path\":\"newdir\"}");
    assert_ok_with(r, err, "The directory 'newdir' already existed.");
    rig_result_free(r);
    r = callf("create_directory", &err, "{\"path\":\"%s\"}", root);
    assert_ok_with(r, err, "already existed");
    rig_result_free(r);

    r = callf("create_directory", &err, "{\"path\":\"x/y/z/\"}");
    assert_ok_with(r, err, "Created the directory 'x/y/z/' (3 directories in all).");
    rig_result_free(r);
    at(p, sizeof p, "x/y/z");
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    r = callf("create_directory", &err, "{\"path\":\"%s/x/y/w\"}", root);
    assert_ok_with(r, err, "Created the directory");
    rig_result_free(r);
    assert_true(exists("x/y/w"));

    put("file", "x");
    r = callf("create_directory", &err, "{\"path\":\"file\"}");
    assert_error_with(r, "'file' exists and is a file, not a directory.");
    rig_result_free(r);
    r = callf("create_directory", &err, "{\"path\":\"file/sub/deeper\"}");
    assert_error_with(r, "'file' exists and is a file, not a directory.");
    rig_result_free(r);
    assert_file("file", "x");

    /* A symlink to a directory inside is a directory. */
    char link[256];
    at(link, sizeof link, "dirlink");
    assert_int_equal(symlink("newdir", link), 0);
    r = callf("create_directory", &err, "{\"path\":\"dirlink\"}");
    assert_ok_with(r, err, "already existed");
    rig_result_free(r);

    /* Outside: refused, nothing made. */
    r = callf("create_directory", &err, "{\"path\":\"%s/made\"}", outside);
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("create_directory", &err, "{\"path\":\"../outside/made/deep\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    at(link, sizeof link, "out");
    assert_int_equal(symlink(outside, link), 0);
    r = callf("create_directory", &err, "{\"path\":\"out/made\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    snprintf(p, sizeof p, "%s/made", outside);
    assert_int_equal(access(p, F_OK), -1);
}

/* ---- move_file ---------------------------------------------------------- */

static void test_move_rename(void **state) {
    (void)state;
    put("a.txt", "A");
    rig_error err;
    rig_result *r =
        callf("move_file", &err, "{\"source\":\"a.txt\",\"destination\":\"b.txt\"}");
    assert_ok_with(r, err, "Moved 'a.txt' to 'b.txt'.");
    rig_result_free(r);
    assert_false(exists("a.txt"));
    assert_file("b.txt", "A");

    /* A directory, by absolute paths, into another directory. */
    char p[256];
    at(p, sizeof p, "d1");
    assert_int_equal(mkdir(p, 0755), 0);
    put("d1/inner", "I");
    at(p, sizeof p, "sub");
    assert_int_equal(mkdir(p, 0755), 0);
    r = callf("move_file", &err, "{\"source\":\"%s/d1\",\"destination\":\"%s/sub/d2\"}", root,
              root);
    assert_ok_result(r, err);
    rig_result_free(r);
    assert_file("sub/d2/inner", "I");
    assert_false(exists("d1"));

    /* Missing source. */
    r = callf("move_file", &err, "{\"source\":\"ghost\",\"destination\":\"g2\"}");
    assert_error_with(r, "No such file or directory: 'ghost'");
    rig_result_free(r);
    /* A directory into itself. */
    r = callf("move_file", &err, "{\"source\":\"sub\",\"destination\":\"sub/d2/sub\"}");
    assert_error_with(r, "cannot be moved into itself");
    rig_result_free(r);
}

static void test_move_overwrite(void **state) {
    (void)state;
    put("src.txt", "new");
    put("dst.txt", "old");
    rig_error err;
    rig_result *r =
        callf("move_file", &err, "{\"source\":\"src.txt\",\"destination\":\"dst.txt\"}");
    assert_error_with(r, "'dst.txt' already exists. Call move_file with overwrite=true");
    rig_result_free(r);
    assert_file("src.txt", "new");
    assert_file("dst.txt", "old");

    r = callf("move_file", &err,
              "{\"source\":\"src.txt\",\"destination\":\"dst.txt\",\"overwrite\":false}");
    assert_error_with(r, "already exists");
    rig_result_free(r);

    r = callf("move_file", &err,
              "{\"source\":\"src.txt\",\"destination\":\"dst.txt\",\"overwrite\":true}");
    assert_ok_with(r, err, "Moved 'src.txt' to 'dst.txt', replacing what was there.");
    rig_result_free(r);
    assert_false(exists("src.txt"));
    assert_file("dst.txt", "new");

    /* A file over a directory, even with overwrite. */
    char p[256];
    at(p, sizeof p, "adir");
    assert_int_equal(mkdir(p, 0755), 0);
    r = callf("move_file", &err,
              "{\"source\":\"dst.txt\",\"destination\":\"adir\",\"overwrite\":true}");
    assert_error_with(r, "'adir' is a directory; a file cannot replace it.");
    rig_result_free(r);
    assert_file("dst.txt", "new");
}

static void test_move_missing_dir_and_outside(void **state) {
    (void)state;
    put("m.txt", "M");
    rig_error err;
    rig_result *r =
        callf("move_file", &err, "{\"source\":\"m.txt\",\"destination\":\"nodir/m.txt\"}");
    assert_error_with(r, "The directory that should hold 'nodir/m.txt' does not exist. Call "
                         "create_directory first.");
    rig_result_free(r);
    assert_file("m.txt", "M");

    r = callf("move_file", &err, "{\"source\":\"m.txt\",\"destination\":\"%s/m.txt\"}", outside);
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("move_file", &err, "{\"source\":\"m.txt\",\"destination\":\"../outside/secret\","
                                 "\"overwrite\":true}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    assert_file("m.txt", "M");
    assert_secret_intact();

    r = callf("move_file", &err, "{\"source\":\"%s/secret\",\"destination\":\"stolen\"}",
              outside);
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("move_file", &err, "{\"source\":\"../outside/secret\",\"destination\":\"stolen\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    assert_false(exists("stolen"));
    assert_secret_intact();

    /* Through a symlinked directory that leads out. */
    char link[256];
    at(link, sizeof link, "out");
    assert_int_equal(symlink(outside, link), 0);
    r = callf("move_file", &err, "{\"source\":\"out/secret\",\"destination\":\"stolen\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    r = callf("move_file", &err, "{\"source\":\"m.txt\",\"destination\":\"out/m.txt\"}");
    assert_error_with(r, "Access denied");
    rig_result_free(r);
    assert_secret_intact();
    assert_file("m.txt", "M");
    /* Moving a root is refused. */
    r = callf("move_file", &err, "{\"source\":\"%s\",\"destination\":\"r2\"}", root);
    assert_error_with(r, "is a root itself");
    rig_result_free(r);
}

/* Across file systems: /tmp and /dev/shm, when they differ. */
static void test_move_across_fs(void **state) {
    (void)state;
    char shm[64];
    snprintf(shm, sizeof shm, "/dev/shm/rig-fs-write-XXXXXX");
    if (!mkdtemp(shm)) {
        skip();
        return;
    }
    struct stat a, b;
    if (stat(root, &a) != 0 || stat(shm, &b) != 0 || a.st_dev == b.st_dev) {
        rmdir(shm);
        skip();
        return;
    }
    rig_error err;
    assert_int_equal(rig_roots_add(roots, shm, &err), RIG_OK);
    put("x.txt", "across\n");
    char p[256];
    at(p, sizeof p, "x.txt");
    assert_int_equal(chmod(p, 0640), 0);
    rig_result *r =
        callf("move_file", &err, "{\"source\":\"x.txt\",\"destination\":\"%s/x.txt\"}", shm);
    assert_ok_with(r, err, "copied 7 bytes across file systems");
    rig_result_free(r);
    assert_false(exists("x.txt"));
    char q[128];
    snprintf(q, sizeof q, "%s/x.txt", shm);
    char *got = slurp_abs(q);
    assert_non_null(got);
    assert_string_equal(got, "across\n");
    free(got);
    struct stat st;
    assert_int_equal(stat(q, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);

    /* No overwrite across either. */
    put("y.txt", "Y");
    r = callf("move_file", &err, "{\"source\":\"y.txt\",\"destination\":\"%s/x.txt\"}", shm);
    assert_error_with(r, "already exists");
    rig_result_free(r);
    assert_file("y.txt", "Y");
    r = callf("move_file", &err,
              "{\"source\":\"y.txt\",\"destination\":\"%s/x.txt\",\"overwrite\":true}", shm);
    assert_ok_with(r, err, "across file systems");
    rig_result_free(r);
    got = slurp_abs(q);
    assert_string_equal(got, "Y");
    free(got);

    /* A failing copy leaves the source. */
    put("z.txt", "zzz");
    flaky(1);
    r = callf("move_file", &err, "{\"source\":\"z.txt\",\"destination\":\"%s/z.txt\"}", shm);
    assert_error_with(r, "No space left on device");
    assert_error_with(r, "Nothing was moved");
    rig_result_free(r);
    rig__fs_set_write_fn(NULL);
    assert_file("z.txt", "zzz");
    snprintf(q, sizeof q, "%s/z.txt", shm);
    assert_int_equal(access(q, F_OK), -1);

    /* A directory cannot cross. */
    at(p, sizeof p, "dd");
    assert_int_equal(mkdir(p, 0755), 0);
    r = callf("move_file", &err, "{\"source\":\"dd\",\"destination\":\"%s/dd\"}", shm);
    assert_error_with(r, "'dd' is a directory and");
    assert_error_with(r, "is on another file system");
    rig_result_free(r);
    assert_true(exists("dd"));

    /* Nothing but x.txt remains there: no temporaries. */
    DIR *d = opendir(shm);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            assert_string_equal(e->d_name, "x.txt");
            n++;
        }
    closedir(d);
    assert_int_equal(n, 1);
    nftw(shm, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tool_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replace_keeps_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_parents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outside_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_inside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enospc_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move_overwrite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move_missing_dir_and_outside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move_across_fs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
