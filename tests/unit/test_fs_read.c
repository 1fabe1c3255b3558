/* test_fs_read.c — `read_file` through a toolset, in a fresh tree under
 * /tmp:
 *
 *   base/root/      the one root; each test writes the files it reads
 *   base/outside/   secret, which must never be read
 *
 * Text: whole files, offset/limit windows and their notes, line numbers,
 * CRLF, a missing final newline, the 1 MiB whole-read refusal, the output
 * budget, invalid UTF-8, long lines; a 2 GiB sparse file (refused whole,
 * paged reading no more than SCAN_MAX of it, counted through the pread
 * seam); files that grow, shrink or empty while they are read (the seam
 * changes them between two reads: the read ends, the result is well
 * formed and says the file changed). Binary: detection (NUL, the 30% rule
 * both sides, signatures), and binary=true as image, audio, PDF and
 * octet-stream blocks with their exact base64. Errors: directories, FIFOs,
 * missing files, paths outside the root, schema violations. */
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
    return fs_setup("read", "secret", "TOP-SECRET\n");
}

/* The pread seam back to the real call, for the next test. */
static int teardown(void **state) {
    rig__fs_set_pread_fn(NULL);
    return fs_teardown(state);
}

/* An ok result with exactly one text block equal to `want`. */
static void assert_only_text(const rig_result *r, rig_error err, const char *want) {
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 1);
    assert_string_equal(block_text(r, 0), want);
}

static char *b64(const unsigned char *p, size_t n) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    assert_non_null(out);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = a[v >> 18 & 63];
        *o++ = a[v >> 12 & 63];
        *o++ = i + 1 < n ? a[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? a[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* ---- the tool ----------------------------------------------------------- */

static void test_tool_shape(void **state) {
    (void)state;
    rig_tool *t = rig_toolset_get(ts, "read_file");
    assert_non_null(t);
    assert_hints(t, true, false, true, false);
    assert_schema_strict(t);
    rig_error err;
    assert_int_equal(rig_fs_tools_add(ts, roots, &err), RIG_EEXIST);
    assert_null(rig__read_file_tool_new(NULL, &err));
    assert_int_equal(err.code, RIG_EINVAL);
}

static void test_schema_errors(void **state) {
    (void)state;
    put("s.txt", "a\n");
    static const char *const bad[] = {
        "{\"path\":\"s.txt\",\"offset\":0}",      "{\"path\":\"s.txt\",\"limit\":-1}",
        "{\"path\":\"s.txt\",\"limit\":0}",       "{\"path\":\"s.txt\",\"offset\":-5}",
        "{\"path\":\"s.txt\",\"offset\":1.5}",    "{\"path\":\"s.txt\",\"offset\":\"x\"}",
        "{\"path\":\"s.txt\",\"binary\":\"yes\"}", "{\"path\":\"s.txt\",\"mode\":\"r\"}",
        "{}",                                      "{\"path\":\"\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err;
        rig_result *r = call_in(ts, "read_file", NULL, bad[i], &err);
        if (!rig_result_is_error(r) || err.code != RIG_EVALIDATE)
            fail_msg("accepted %s (status %d)", bad[i], err.code);
        rig_result_free(r);
    }
}

/* ---- text --------------------------------------------------------------- */

static void test_whole_small_file(void **state) {
    (void)state;
    put("small.txt", "alpha\nbeta\ngamma\n");
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"small.txt\"}");
    assert_only_text(r, err, "alpha\nbeta\ngamma\n");
    rig_result_free(r);
    /* The same by absolute path. */
    r = callf("read_file", &err, "{\"path\":\"%s/small.txt\"}", root);
    assert_only_text(r, err, "alpha\nbeta\ngamma\n");
    rig_result_free(r);
    /* A window that covers the whole file says nothing more. */
    r = callf("read_file", &err, "{\"path\":\"small.txt\",\"offset\":1,\"limit\":3}");
    assert_only_text(r, err, "alpha\nbeta\ngamma\n");
    rig_result_free(r);
}

static void test_empty_file(void **state) {
    (void)state;
    put("empty.txt", "");
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"empty.txt\"}");
    assert_only_text(r, err, "[The file 'empty.txt' is empty.]");
    rig_result_free(r);
}

static void test_windows(void **state) {
    (void)state;
    size_t cap = 5234 * 12, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 1; i <= 5234; i++)
        len += (size_t)snprintf(text + len, cap - len, "line %d\n", i);
    put_bytes("big.txt", text, len);
    free(text);

    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"big.txt\"}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    const char *body = block_text(r, 0);
    assert_true(strncmp(body, "line 1\nline 2\n", 14) == 0);
    size_t bl = strlen(body);
    assert_true(bl > 10 && strcmp(body + bl - 10, "line 2000\n") == 0);
    assert_not_contains(body, "line 2001");
    assert_string_equal(block_text(r, 1),
                        "[Lines 1-2000 of 5234 shown. Call read_file with offset=2001 to "
                        "read more.]");
    rig_result_free(r);

    r = callf("read_file", &err, "{\"path\":\"big.txt\",\"offset\":2001,\"limit\":3}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    assert_string_equal(block_text(r, 0), "line 2001\nline 2002\nline 2003\n");
    assert_string_equal(block_text(r, 1),
                        "[Lines 2001-2003 of 5234 shown. Call read_file with offset=2004 to "
                        "read more.]");
    rig_result_free(r);

    /* The tail: a limit past the end shows what there is. */
    r = callf("read_file", &err, "{\"path\":\"big.txt\",\"offset\":5233,\"limit\":100}");
    assert_ok_result(r, err);
    assert_string_equal(block_text(r, 0), "line 5233\nline 5234\n");
    assert_string_equal(block_text(r, 1), "[Lines 5233-5234 of 5234 shown (the end of the file).]");
    rig_result_free(r);

    /* limit alone starts at line 1. */
    r = callf("read_file", &err, "{\"path\":\"big.txt\",\"limit\":2}");
    assert_ok_result(r, err);
    assert_string_equal(block_text(r, 0), "line 1\nline 2\n");
    assert_string_equal(block_text(r, 1),
                        "[Lines 1-2 of 5234 shown. Call read_file with offset=3 to read more.]");
    rig_result_free(r);
}

static void test_offset_past_end(void **state) {
    (void)state;
    put("three.txt", "a\nb\nc\n");
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"three.txt\",\"offset\":4}");
    assert_error_with(r, "offset=4 is past the end of 'three.txt', which has 3 lines");
    assert_error_with(r, "offset from 1 to 3");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"three.txt\",\"offset\":9999999999}");
    assert_error_with(r, "past the end");
    rig_result_free(r);
    /* The last line itself is fine. */
    r = callf("read_file", &err, "{\"path\":\"three.txt\",\"offset\":3}");
    assert_ok_result(r, err);
    assert_string_equal(block_text(r, 0), "c\n");
    rig_result_free(r);
}

static void test_line_numbers(void **state) {
    (void)state;
    put("num.txt", "alpha\nbeta\n\ngamma\n");
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"num.txt\",\"line_numbers\":true}");
    assert_only_text(r, err, "1\talpha\n2\tbeta\n3\t\n4\tgamma\n");
    rig_result_free(r);
    r = callf("read_file", &err,
              "{\"path\":\"num.txt\",\"line_numbers\":true,\"offset\":2,\"limit\":2}");
    assert_ok_result(r, err);
    assert_string_equal(block_text(r, 0), "2\tbeta\n3\t\n");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"num.txt\",\"line_numbers\":false}");
    assert_only_text(r, err, "alpha\nbeta\n\ngamma\n");
    rig_result_free(r);
}

static void test_crlf_and_no_final_newline(void **state) {
    (void)state;
    put("crlf.txt", "one\r\ntwo\r\n");
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"crlf.txt\"}");
    assert_only_text(r, err, "one\r\ntwo\r\n");
    rig_result_free(r);

    put("nonl.txt", "a\nb");
    r = callf("read_file", &err, "{\"path\":\"nonl.txt\"}");
    assert_only_text(r, err, "a\nb");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"nonl.txt\",\"offset\":2}");
    assert_ok_result(r, err);
    assert_string_equal(block_text(r, 0), "b");
    assert_string_equal(block_text(r, 1), "[Lines 2-2 of 2 shown (the end of the file).]");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"nonl.txt\",\"offset\":3}");
    assert_error_with(r, "which has 2 lines");
    rig_result_free(r);

    put("one.txt", "x");
    r = callf("read_file", &err, "{\"path\":\"one.txt\",\"line_numbers\":true}");
    assert_only_text(r, err, "1\tx");
    rig_result_free(r);
}

/* 15000 lines of 100 'x' and a newline: 1,515,000 bytes. */
static void put_large(void) {
    size_t len = 15000 * 101;
    char *text = malloc(len);
    assert_non_null(text);
    memset(text, 'x', len);
    for (size_t i = 100; i < len; i += 101)
        text[i] = '\n';
    put_bytes("large.txt", text, len);
    free(text);
}

static void test_large_file(void **state) {
    (void)state;
    put_large();
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"large.txt\"}");
    assert_error_with(r, "'large.txt' is 1.4 MiB (1515000 bytes), too large to read whole");
    assert_error_with(r, "offset and limit");
    assert_error_with(r, "grep");
    rig_result_free(r);

    r = callf("read_file", &err, "{\"path\":\"large.txt\",\"limit\":3}");
    assert_ok_result(r, err);
    char want[400];
    memset(want, 'x', 303);
    want[100] = want[201] = want[302] = '\n';
    want[303] = '\0';
    assert_string_equal(block_text(r, 0), want);
    assert_string_equal(block_text(r, 1),
                        "[Lines 1-3 of 15000 shown. Call read_file with offset=4 to read more.]");
    rig_result_free(r);

    r = callf("read_file", &err, "{\"path\":\"large.txt\",\"offset\":14999}");
    assert_ok_result(r, err);
    assert_int_equal(strlen(block_text(r, 0)), 202);
    assert_string_equal(block_text(r, 1),
                        "[Lines 14999-15000 of 15000 shown (the end of the file).]");
    rig_result_free(r);
}

static void test_output_budget(void **state) {
    (void)state;
    put_large();
    /* offset alone asks for 2000 lines of 101 bytes; 445 fit in 45000. */
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"large.txt\",\"offset\":1}");
    assert_ok_result(r, err);
    assert_int_equal(strlen(block_text(r, 0)), 445 * 101);
    assert_true(445 * 101 <= RIG_FS_READ_MAX_TEXT && 446 * 101 > RIG_FS_READ_MAX_TEXT);
    assert_string_equal(block_text(r, 1),
                        "[Lines 1-445 of 15000 shown; the rest of the lines asked for did not "
                        "fit in one result. Call read_file with offset=446 to read more.]");
    rig_result_free(r);
}

static void test_invalid_utf8(void **state) {
    (void)state;
    put("bad.txt", "ok \xff\xfe end\nh\xc3\xa9llo \xe2\x82\xac\ncut \xe2\x82\n\xed\xa0\x80\n");
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"bad.txt\"}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    assert_string_equal(block_text(r, 0),
                        "ok \xef\xbf\xbd\xef\xbf\xbd end\n"
                        "h\xc3\xa9llo \xe2\x82\xac\n"
                        "cut \xef\xbf\xbd\xef\xbf\xbd\n"
                        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
    assert_string_equal(block_text(r, 1), "[7 bytes not valid UTF-8 are shown as U+FFFD.]");
    rig_result_free(r);
}

static void test_long_line(void **state) {
    (void)state;
    char *text = malloc(5000 + 16);
    assert_non_null(text);
    memset(text, 'a', 5000);
    strcpy(text + 5000, "\nshort\n");
    put("long.txt", text);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"long.txt\"}");
    assert_ok_result(r, err);
    char *want = malloc(4002 + 128);
    assert_non_null(want);
    memset(want, 'a', 2000);
    strcpy(want + 2000, " [... line cut: 2000 of its 5000 characters shown]\nshort\n");
    assert_string_equal(block_text(r, 0), want);
    assert_string_equal(block_text(r, 1),
                        "[1 line longer than 2000 characters was cut; the rest of such a line "
                        "cannot be shown by read_file.]");
    rig_result_free(r);

    /* 5000 two-byte characters: cut at characters, not bytes. */
    char *wide = malloc(10000 + 1);
    assert_non_null(wide);
    for (int i = 0; i < 5000; i++)
        memcpy(wide + 2 * i, "\xc3\xa9", 2);
    wide[10000] = '\0';
    put("wide.txt", wide);
    r = callf("read_file", &err, "{\"path\":\"wide.txt\",\"line_numbers\":true}");
    assert_ok_result(r, err);
    memcpy(want, "1\t", 2);
    memcpy(want + 2, wide, 4000);
    strcpy(want + 4002, " [... line cut: 2000 of its 5000 characters shown]");
    assert_string_equal(block_text(r, 0), want);
    rig_result_free(r);
    free(wide);
    free(want);
    free(text);
}

/* ---- huge files, files that change while read --------------------------- */

static char seam_path[256];   /* the file the seams below change */
static int read_calls;        /* pread calls by read_file */
static long long read_bytes;  /* bytes they returned */
static int cut_after;         /* truncate the file after this call ... */
static off_t cut_to;          /* ... to this size */

static ssize_t counting_pread(int fd, void *p, size_t n, off_t off) {
    read_calls++;
    ssize_t k = pread(fd, p, n, off);
    if (k > 0)
        read_bytes += k;
    return k;
}

/* After every read, 65535 more bytes of "grow\n" lines at the end (a busy
 * log); at most 1000 times, so a reader that follows it still ends. */
static ssize_t growing_pread(int fd, void *p, size_t n, off_t off) {
    static char more[65535];
    ssize_t k = counting_pread(fd, p, n, off);
    if (read_calls <= 1000) {
        for (size_t i = 0; i < sizeof more; i++)
            more[i] = "grow\n"[i % 5];
        int w = open(seam_path, O_WRONLY | O_APPEND);
        assert_true(w >= 0);
        assert_int_equal(write(w, more, sizeof more), (ssize_t)sizeof more);
        close(w);
    }
    return k;
}

static ssize_t cutting_pread(int fd, void *p, size_t n, off_t off) {
    ssize_t k = counting_pread(fd, p, n, off);
    if (read_calls == cut_after)
        assert_int_equal(truncate(seam_path, cut_to), 0);
    return k;
}

static void seam(const char *name, rig__fs_pread_fn fn) {
    snprintf(seam_path, sizeof seam_path, "%s/%s", root, name);
    read_calls = 0;
    read_bytes = 0;
    rig__fs_set_pread_fn(fn);
}

/* `lines` lines "line K", then a hole (zeros) up to `size` bytes. */
static void put_sparse(const char *name, int lines, off_t size) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", root, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    for (int i = 1; i <= lines; i++)
        fprintf(f, "line %d\n", i);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(truncate(p, size), 0);
}

static void test_huge_file(void **state) {
    (void)state;
    put_sparse("huge.txt", 1000, (off_t)2 << 30);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"huge.txt\"}");
    assert_error_with(r, "'huge.txt' is 2048.0 MiB (2147483648 bytes), too large to read whole. "
                         "Call read_file with offset and limit to read part of it");
    rig_result_free(r);

    /* A page of it reads the page and at most 64 MiB more to count lines,
     * not the 2 GiB. */
    seam("huge.txt", counting_pread);
    double t0 = now_s();
    r = callf("read_file", &err, "{\"path\":\"huge.txt\",\"offset\":5,\"limit\":3}");
    double took = now_s() - t0;
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    assert_string_equal(block_text(r, 0), "line 5\nline 6\nline 7\n");
    assert_string_equal(block_text(r, 1),
                        "[Lines 5-7 of at least 1001 shown (the file is 2048.0 MiB; lines past "
                        "the first 64 MiB were not counted). Call read_file with offset=8 to "
                        "read more.]");
    rig_result_free(r);
    print_message("# a 3-line page of a 2 GiB file: %lld bytes read in %.3f s\n", read_bytes,
                  took);
    assert_true(read_bytes <= (64 << 20) + 64 * 1024 + 8192);

    char p[256];
    snprintf(p, sizeof p, "%s/huge.txt", root);
    unlink(p);
}

static void test_grows_while_read(void **state) {
    (void)state;
    put("busy.log", "a\nb\nc\n");
    seam("busy.log", growing_pread);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"busy.log\"}");
    /* The 6 bytes it had when the read began, and a note; two reads for
     * the sniff (6 bytes, then the first 8186 that came after), one for
     * the text. */
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    assert_string_equal(block_text(r, 0), "a\nb\nc\n");
    char want[256];
    snprintf(want, sizeof want,
             "[The file changed while it was read (6 bytes when the read began, %d at its "
             "end): what is shown may mix old and new content. Read it again.]",
             6 + 3 * 65535);
    assert_string_equal(block_text(r, 1), want);
    assert_int_equal(read_calls, 3);
    rig_result_free(r);
}

static void test_shrinks_while_read(void **state) {
    (void)state;
    char *text = malloc(20000 * 11 + 1);
    assert_non_null(text);
    for (int i = 0; i < 20000; i++)
        snprintf(text + 11 * i, 12, "line %05d\n", i + 1);
    put("cut.txt", text);
    free(text);

    /* Cut to 22 bytes after the first 64 KiB of the text read (call 2;
     * call 1 was the sniff): the read ends at the next. */
    seam("cut.txt", cutting_pread);
    cut_after = 2;
    cut_to = 22;
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"cut.txt\",\"limit\":5}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 3);
    assert_string_equal(block_text(r, 0),
                        "line 00001\nline 00002\nline 00003\nline 00004\nline 00005\n");
    /* 65536 bytes held 5957 lines and the start of one more. */
    assert_string_equal(block_text(r, 1),
                        "[Lines 1-5 of 5958 shown. Call read_file with offset=6 to read more.]");
    assert_string_equal(block_text(r, 2),
                        "[The file changed while it was read (220000 bytes when the read began, "
                        "22 at its end): what is shown may mix old and new content. Read it "
                        "again.]");
    assert_int_equal(read_calls, 3);
    rig_result_free(r);

    /* Cut the same way under a window further on: past the end, said so. */
    put("cut.txt", "");
    text = malloc(20000 * 11 + 1);
    assert_non_null(text);
    for (int i = 0; i < 20000; i++)
        snprintf(text + 11 * i, 12, "line %05d\n", i + 1);
    put("cut.txt", text);
    free(text);
    seam("cut.txt", cutting_pread);
    r = callf("read_file", &err, "{\"path\":\"cut.txt\",\"offset\":10000,\"limit\":5}");
    assert_error_with(r, "offset=10000 is past the end of 'cut.txt', which has 5958 lines");
    assert_error_with(r, "[The file changed while it was read (220000 bytes when the read "
                         "began, 22 at its end)");
    rig_result_free(r);

    /* Emptied between the sniff and the text. */
    put("gone.txt", "abc\n");
    seam("gone.txt", cutting_pread);
    cut_after = 1;
    cut_to = 0;
    r = callf("read_file", &err, "{\"path\":\"gone.txt\"}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    assert_string_equal(block_text(r, 0), "[The file 'gone.txt' is empty.]");
    assert_string_equal(block_text(r, 1),
                        "[The file changed while it was read (4 bytes when the read began, 0 at "
                        "its end): what is shown may mix old and new content. Read it again.]");
    rig_result_free(r);
}

/* ---- binary ------------------------------------------------------------- */

static void test_binary_detection(void **state) {
    (void)state;
    put_bytes("nul.txt", "abc\0def\n", 8);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"nul.txt\"}");
    assert_error_with(r, "'nul.txt' is binary data (application/octet-stream, 8 bytes), not "
                         "text. Call read_file with binary=true");
    rig_result_free(r);

    /* 100 bytes: 30 control bytes is still text, 31 is binary. */
    unsigned char b[100];
    for (int odd = 29; odd <= 31; odd++) {
        memset(b, 'a', sizeof b);
        memset(b, 0x01, (size_t)odd);
        put_bytes("ratio.txt", b, sizeof b);
        r = callf("read_file", &err, "{\"path\":\"ratio.txt\"}");
        if (odd <= 30) {
            assert_ok_result(r, err);
        } else {
            assert_error_with(r, "binary=true");
        }
        rig_result_free(r);
    }
    /* Bytes >= 0x80 count as printable, even when they are not UTF-8. */
    memset(b, 0xff, sizeof b);
    put_bytes("high.txt", b, sizeof b);
    r = callf("read_file", &err, "{\"path\":\"high.txt\"}");
    assert_ok_result(r, err);
    rig_result_free(r);
    /* Tabs, CR, LF, FF and ESC are text. */
    put("ws.txt", "\t\t\r\n\f\x1b[31mred\x1b[0m\n");
    r = callf("read_file", &err, "{\"path\":\"ws.txt\"}");
    assert_ok_result(r, err);
    rig_result_free(r);
    /* Only the first 8 KiB decide: a NUL after it is shown as is. */
    char *late = malloc(9000);
    assert_non_null(late);
    memset(late, 'z', 9000);
    late[8999] = '\0';
    put_bytes("late.txt", late, 9000);
    r = callf("read_file", &err, "{\"path\":\"late.txt\"}");
    assert_ok_result(r, err);
    rig_result_free(r);
    free(late);
}

static const unsigned char png[] = {
    0x89, 'P',  'N',  'G',  '\r', '\n', 0x1a, '\n', 0x00, 0x00, 0x00, 0x0d, 'I',  'H',
    'D',  'R',  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
    0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x00, 'I',  'E',  'N',  'D',  0xae,
    0x42, 0x60, 0x82,
};

static void test_png(void **state) {
    (void)state;
    put_bytes("pic.png", png, sizeof png);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"pic.png\"}");
    assert_error_with(r, "'pic.png' is a PNG image (image/png, 45 bytes), not text");
    assert_error_with(r, "binary=true to get it as an image content block");
    rig_result_free(r);

    r = callf("read_file", &err, "{\"path\":\"pic.png\",\"binary\":true}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    assert_contains(block_text(r, 0), "a PNG image (image/png, 45 bytes)");
    const rig_content *c = rig_result_block(r, 1);
    assert_int_equal(c->type, RIG_CONTENT_IMAGE);
    assert_string_equal(c->mime_type, "image/png");
    char *want = b64(png, sizeof png);
    assert_string_equal(c->data, want);
    free(want);
    rig_result_free(r);
    /* offset and limit do not apply to binary files. */
    r = callf("read_file", &err, "{\"path\":\"pic.png\",\"binary\":true,\"offset\":3,\"limit\":1}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_block(r, 1)->type, RIG_CONTENT_IMAGE);
    rig_result_free(r);
}

static void test_wav(void **state) {
    (void)state;
    static const unsigned char wav[] = {
        'R', 'I', 'F', 'F', 0x26, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
        16,  0,   0,   0,   1,    0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0,
        2,   0,   16,  0,   'd',  'a', 't', 'a', 2, 0, 0, 0, 0, 0,
    };
    put_bytes("beep.wav", wav, sizeof wav);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"beep.wav\"}");
    assert_error_with(r, "a WAV audio file (audio/wav");
    assert_error_with(r, "an audio content block");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"beep.wav\",\"binary\":true}");
    assert_ok_result(r, err);
    const rig_content *c = rig_result_block(r, 1);
    assert_int_equal(c->type, RIG_CONTENT_AUDIO);
    assert_string_equal(c->mime_type, "audio/wav");
    char *want = b64(wav, sizeof wav);
    assert_string_equal(c->data, want);
    free(want);
    rig_result_free(r);
}

static void test_pdf(void **state) {
    (void)state;
    /* All printable: the signature alone makes it binary. */
    const char *pdf = "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R "
                      ">>\n%%EOF\n";
    put("my doc.pdf", pdf);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"my doc.pdf\"}");
    assert_error_with(r, "a PDF document (application/pdf");
    assert_error_with(r, "an embedded PDF resource");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"my doc.pdf\",\"binary\":true}");
    assert_ok_result(r, err);
    const rig_content *c = rig_result_block(r, 1);
    assert_int_equal(c->type, RIG_CONTENT_RESOURCE);
    assert_string_equal(c->mime_type, "application/pdf");
    char *want = b64((const unsigned char *)pdf, strlen(pdf));
    assert_string_equal(c->data, want);
    free(want);
    assert_true(strncmp(c->uri, "file:///", 8) == 0);
    size_t ul = strlen(c->uri), sl = strlen("/root/my%20doc.pdf");
    assert_true(ul > sl && strcmp(c->uri + ul - sl, "/root/my%20doc.pdf") == 0);
    rig_result_free(r);
}

static void test_other_binary(void **state) {
    (void)state;
    unsigned char bin[256];
    for (int i = 0; i < 256; i++)
        bin[i] = (unsigned char)(255 - i);
    put_bytes("blob.bin", bin, sizeof bin);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"blob.bin\",\"binary\":true}");
    assert_ok_result(r, err);
    assert_int_equal(rig_result_count(r), 2);
    const rig_content *c = rig_result_block(r, 1);
    assert_int_equal(c->type, RIG_CONTENT_RESOURCE);
    assert_string_equal(c->mime_type, "application/octet-stream");
    char *want = b64(bin, sizeof bin);
    assert_string_equal(c->data, want);
    free(want);
    assert_contains(c->uri, "/root/blob.bin");
    rig_result_free(r);

    /* A text file with binary=true is still read as text. */
    put("plain.txt", "hello\n");
    r = callf("read_file", &err, "{\"path\":\"plain.txt\",\"binary\":true}");
    assert_only_text(r, err, "hello\n");
    rig_result_free(r);
}

static void test_binary_cap(void **state) {
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/huge.bin", root);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, RIG_FS_READ_BINARY_MAX + 1), 0); /* sparse zeros */
    close(fd);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"huge.bin\",\"binary\":true}");
    assert_error_with(r, "'huge.bin' is binary data (20971521 bytes), larger than the 20 MiB a "
                         "binary read may return");
    rig_result_free(r);
    unlink(p);
}

/* ---- errors ------------------------------------------------------------- */

static void test_not_files(void **state) {
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/sub", root);
    assert_int_equal(mkdir(p, 0755), 0);
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"sub\"}");
    assert_error_with(r, "'sub' is a directory, not a file. Call list_directory");
    rig_result_free(r);
    r = callf("read_file", &err, "{\"path\":\"%s\"}", root);
    assert_error_with(r, "is a directory");
    rig_result_free(r);

    snprintf(p, sizeof p, "%s/fifo", root);
    assert_int_equal(mkfifo(p, 0644), 0);
    r = callf("read_file", &err, "{\"path\":\"fifo\"}"); /* must not hang waiting for a writer */
    assert_error_with(r, "'fifo' is not a regular file");
    rig_result_free(r);
}

static void test_missing_and_outside(void **state) {
    (void)state;
    rig_error err;
    rig_result *r = callf("read_file", &err, "{\"path\":\"nope.txt\"}");
    assert_error_with(r, "No such file: 'nope.txt'");
    assert_int_equal(err.code, RIG_ETOOL);
    rig_result_free(r);

    r = callf("read_file", &err, "{\"path\":\"%s/secret\"}", outside);
    assert_error_with(r, "Access denied");
    assert_error_with(r, "is outside the allowed directories");
    assert_error_with(r, root);
    char *t = text_of(r);
    assert_not_contains(t, "TOP-SECRET");
    free(t);
    rig_result_free(r);

    r = callf("read_file", &err, "{\"path\":\"../outside/secret\"}");
    assert_error_with(r, "Access denied");
    t = text_of(r);
    assert_not_contains(t, "TOP-SECRET");
    free(t);
    rig_result_free(r);

    /* A symlink that leads out. */
    char link[256], target[256];
    snprintf(link, sizeof link, "%s/escape", root);
    snprintf(target, sizeof target, "%s/secret", outside);
    assert_int_equal(symlink(target, link), 0);
    r = callf("read_file", &err, "{\"path\":\"escape\"}");
    assert_error_with(r, "Access denied");
    t = text_of(r);
    assert_not_contains(t, "TOP-SECRET");
    free(t);
    rig_result_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tool_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_small_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_windows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offset_past_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_line_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crlf_and_no_final_newline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grows_while_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shrinks_while_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binary_detection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_png, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wav, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pdf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_binary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_binary_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_outside, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
