/* fs_testing.h — the fixture the tests of the file tools (test_fs_read.c,
 * test_fs_write.c, test_fs_edit.c, test_fs_list.c, test_fs_glob.c,
 * test_fs_grep.c, test_fs_session.c) share: a fresh tree under /tmp,
 *
 *   base/root/      the one root of `roots`, which every tool in `ts` serves
 *   base/outside/   a secret file the tools must never read or change
 *
 * and helpers for the files under root. Each test is a program of its own,
 * so the fixture's state is file-scope statics, as in builtin_testing.h.
 * The includer defines _GNU_SOURCE before any include (nftw, mkdtemp). */
#ifndef RIG_FS_TESTING_H
#define RIG_FS_TESTING_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before including fs_testing.h"
#endif

#include <dirent.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"

static char base[64], root[128], outside[128];
static rig_roots *roots;
static rig_toolset *ts;

/* The secret's path and the text setup wrote there, so that
 * assert_secret_intact needs no copy of either. */
static char fs_secret[192];
static const char *fs_secret_text;

/* ---- the fixture --------------------------------------------------------- */

/* For nftw with FTW_DEPTH: removes each entry, children first. */
static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

/* base from mkdtemp on /tmp/rig-fs-<test>-XXXXXX (the test's name tells
 * a leftover tree's owner), and an empty base/root. */
static inline int fs_make_base(const char *test) {
    snprintf(base, sizeof base, "/tmp/rig-fs-%s-XXXXXX", test);
    if (!mkdtemp(base))
        return -1;
    snprintf(root, sizeof root, "%s/root", base);
    return mkdir(root, 0755);
}

/* base/outside holding the file `secret` with `text`. */
static inline int fs_make_outside(const char *secret, const char *text) {
    snprintf(outside, sizeof outside, "%s/outside", base);
    if (mkdir(outside, 0755))
        return -1;
    snprintf(fs_secret, sizeof fs_secret, "%s/%s", outside, secret);
    FILE *f = fopen(fs_secret, "w");
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    fs_secret_text = text;
    return 0;
}

/* roots holding root alone, and ts holding every file tool over them. */
static inline int fs_make_tools(void) {
    roots = rig_roots_new();
    rig_error err;
    if (!roots || rig_roots_add(roots, root, &err) != RIG_OK)
        return -1;
    ts = rig_toolset_new();
    if (!ts || rig_fs_tools_add(ts, roots, &err) != RIG_OK)
        return -1;
    return 0;
}

/* The whole fixture: the tree with outside/`secret` holding `text`, then
 * roots and ts. A test whose setup does more calls the parts instead. */
static inline int fs_setup(const char *test, const char *secret, const char *text) {
    if (fs_make_base(test) || fs_make_outside(secret, text))
        return -1;
    return fs_make_tools();
}

/* Frees ts and roots and removes the whole tree; a cmocka teardown. */
static inline int fs_teardown(void **state) {
    (void)state;
    rig_toolset_free(ts);
    rig_roots_free(roots);
    nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* ---- files under root ---------------------------------------------------- */

/* root/name into out. */
static inline void at(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", root, name);
}

/* root/name holding the `len` bytes at `data`. */
static inline void put_bytes(const char *name, const void *data, size_t len) {
    char p[512];
    at(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* root/name holding `text`. */
static inline void put(const char *name, const char *text) {
    put_bytes(name, text, strlen(text));
}

/* root/name as a directory. */
static inline void mk(const char *name) {
    char p[512];
    at(p, sizeof p, name);
    assert_int_equal(mkdir(p, 0755), 0);
}

/* The whole content of an absolute path, malloc'd; NULL when missing. */
static inline char *slurp_abs(const char *p) {
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (size_t n; (n = fread(s + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (len + 1 == cap) {
            cap *= 2;
            s = realloc(s, cap);
            assert_non_null(s);
        }
    }
    fclose(f);
    s[len] = '\0';
    return s;
}

/* The whole content of root/name, malloc'd; NULL when missing. */
static inline char *slurp(const char *name) {
    char p[512];
    at(p, sizeof p, name);
    return slurp_abs(p);
}

static inline void assert_file(const char *name, const char *want) {
    char *got = slurp(name);
    if (!got)
        fail_msg("'%s' does not exist", name);
    assert_string_equal(got, want);
    free(got);
}

/* No temporary file (a name starting with '.') is left in root/dir. */
static inline void assert_no_temp(const char *dir) {
    char p[512];
    at(p, sizeof p, dir);
    DIR *d = opendir(p);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            fail_msg("a temporary file was left: %s", e->d_name);
    closedir(d);
}

/* The secret outside the root still holds what setup wrote. */
static inline void assert_secret_intact(void) {
    char *s = slurp_abs(fs_secret);
    assert_non_null(s);
    assert_string_equal(s, fs_secret_text);
    free(s);
}

/* ---- calls --------------------------------------------------------------- */

/* `tool` in no session with the arguments printf makes of `fmt`. */
static inline rig_result *callf(const char *tool, rig_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline rig_result *callf(const char *tool, rig_error *err, const char *fmt, ...) {
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return call_in(ts, tool, NULL, args, err);
}

/* The text of block i, which must be a text block. */
static inline const char *block_text(const rig_result *r, size_t i) {
    assert_true(rig_result_count(r) > i);
    const rig_content *c = rig_result_block(r, i);
    assert_int_equal(c->type, RIG_CONTENT_TEXT);
    return c->text;
}

/* An ok result whose text contains `want`. */
static inline void assert_ok_with(const rig_result *r, rig_error err, const char *want) {
    assert_ok_result(r, err);
    char *t = text_of(r);
    assert_contains(t, want);
    free(t);
}

#endif
