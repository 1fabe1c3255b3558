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
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"
#include "tools/fs.h"

/* put and mk that return a status (0: done) where fs_testing.h's assert:
 * setup chains them with || and fails by returning -1. */
static int try_put(const char *name, const char *text, size_t len) {
    char p[512];
    at(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return -1;
    fwrite(text, 1, len, f);
    return fclose(f);
}
#define PUT(name, text) try_put(name, text, sizeof text - 1)

static void unlink_in(const char *name) {
    char p[512];
    at(p, sizeof p, name);
    unlink(p);
}

static int try_mk(const char *name) {
    char p[512];
    at(p, sizeof p, name);
    return mkdir(p, 0755);
}

static int setup(void **state) {
    (void)state;
    if (fs_make_base("grep") || fs_make_outside("secret.c", "hello TOP-SECRET\n"))
        return -1;
    if (try_mk(".git") || try_mk("src") || try_mk("src/sub") || try_mk("build") ||
        try_mk(".hid") || try_mk("pg"))
        return -1;
    if (PUT("src/a.c", "int main(void) {\n    return hello_world();\n}\n") ||
        PUT("src/b.h", "/* Hello there */\nint hello_world(void);\n") ||
        PUT("src/sub/c.c", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n") ||
        PUT("src/sub/meta.txt", "cost: $5 (a+b)*c\ncost 5 abbc\n") ||
        PUT(".gitignore", "build/\n*.log\n") || PUT("build/out.c", "hello from build\n") ||
        PUT("x.log", "hello log\n") || PUT(".hid/h.c", "hello hidden\n") ||
        try_put("bin.dat", "hello\0binary\n", 13))
        return -1;
    char name[64];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "pg/f%02d.txt", i);
        if (PUT(name, "match\nmatch\n"))
            return -1;
    }
    return fs_make_tools();
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

/* The whole-buffer scan finds exactly the lines a line-by-line search
 * finds: each pattern is run as is and again with an empty lookahead
 * appended, which means the same but forces the line-by-line search. */
static void test_scan_matches_line_search(void **state) {
    (void)state;
    PUT("sc.txt", "a\nb x\r\n\n  }\nend of it\r\nmid a b\n\nzz\tq\nlast a");
    const char *pats[] = {"a\\\\sb", "\\\\s$", "^$", "x*", "\\\\n", "[^x]+", "b$",
                          "^\\\\s*}", ".", "\\\\bend\\\\b", "(?s)a.b", "\\\\r$", "a$",
                          "q$", "^l", "\\\\s+", "[\\\\s\\\\S]b", "a\\\\s*$"};
    const char *modes[] = {"content", "count"};
    char args[512];
    for (size_t m = 0; m < 2; m++)
        for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
            snprintf(args, sizeof args,
                     "{\"pattern\":\"%s\",\"path\":\"sc.txt\",\"output_mode\":\"%s\"}",
                     pats[i], modes[m]);
            char *fast = grepped(args);
            snprintf(args, sizeof args,
                     "{\"pattern\":\"%s(?=)\",\"path\":\"sc.txt\",\"output_mode\":\"%s\"}",
                     pats[i], modes[m]);
            char *slow = grepped(args);
            if (strncmp(fast, "No matches", 10) == 0)
                assert_true(strncmp(slow, "No matches", 10) == 0);
            else if (strcmp(fast, slow) != 0)
                fail_msg("pattern %s (%s): scan gave\n%s\nline by line\n%s", pats[i],
                         modes[m], fast, slow);
            free(fast);
            free(slow);
        }
    /* \s does not join lines: only the line with "a b" matches */
    assert_grep("{\"pattern\":\"a\\\\sb\",\"path\":\"sc.txt\",\"output_mode\":\"content\"}",
                "sc.txt:6:mid a b\n");
    assert_grep("{\"pattern\":\"^$\",\"path\":\"sc.txt\",\"output_mode\":\"count\"}",
                "sc.txt:2\n");
    assert_grep("{\"pattern\":\"a$\",\"path\":\"sc.txt\",\"output_mode\":\"content\"}",
                "sc.txt:1:a\nsc.txt:9:last a\n");
    unlink_in("sc.txt");
    /* A scan that hits the match limit goes on line by line: the match on
     * the line after the costly one is still found. */
    PUT("limit.txt", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nab\n");
    char *t = grepped("{\"pattern\":\"(a|aa)*(a|aa)*(a|aa)*[bc]\",\"path\":\"limit.txt\","
                      "\"output_mode\":\"content\"}");
    assert_contains(t, "limit.txt:2:ab\n");
    assert_contains(t, "matching limit");
    free(t);
    unlink_in("limit.txt");
}

/* Past the first few files the search runs on threads: the output is
 * still in path order, and pages put together give the whole. */
static void test_many_files_in_order(void **state) {
    (void)state;
    assert_int_equal(try_mk("many"), 0);
    char name[64], want[8192] = "";
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "many/f%03d.txt", i);
        if (i % 3 == 0) {
            assert_int_equal(PUT(name, "nothing\nneedle here\nnot\n"), 0);
            if (strlen(want) + 32 < sizeof want)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s\n", name);
        } else {
            assert_int_equal(PUT(name, "nothing\n"), 0);
        }
    }
    char args[256];
    snprintf(args, sizeof args, "{\"pattern\":\"needle\",\"path\":\"many\",\"head_limit\":1000}");
    assert_grep(args, want);
    /* pages of 7 */
    char got[8192] = "";
    for (int off = 0; off < 100; off += 7) {
        snprintf(args, sizeof args,
                 "{\"pattern\":\"needle\",\"path\":\"many\",\"head_limit\":7,\"offset\":%d}",
                 off);
        char *t = grepped(args);
        char *cut = strstr(t, "\n\n[truncated");
        if (cut)
            cut[1] = '\0';
        else
            assert_true(off + 7 >= 100); /* only the last page is whole */
        strncat(got, t, sizeof got - strlen(got) - 1);
        free(t);
    }
    assert_string_equal(got, want);
    /* content mode: 100 matches, line numbers right */
    char *t = grepped("{\"pattern\":\"needle\",\"path\":\"many\",\"output_mode\":"
                      "\"content\",\"head_limit\":1000}");
    assert_contains(t, "many/f000.txt:2:needle here\nmany/f003.txt:2:needle here\n");
    assert_contains(t, "many/f297.txt:2:needle here\n");
    free(t);
    t = grepped("{\"pattern\":\"needle\",\"path\":\"many\",\"output_mode\":\"count\"}");
    assert_contains(t, "many/f150.txt:1\n");
    free(t);
}

/* .ignore and .rgignore: read everywhere, each overriding the one before. */
static void test_ignore_files(void **state) {
    (void)state;
    assert_int_equal(try_mk("ig"), 0);
    assert_int_equal(PUT("ig/.gitignore", "*.log\n"), 0);
    assert_int_equal(PUT("ig/.ignore", "!keep.log\n*.tmp\n"), 0);
    assert_int_equal(PUT("ig/.rgignore", "!keep.tmp\n"), 0);
    assert_int_equal(PUT("ig/a.log", "hay\n"), 0);
    assert_int_equal(PUT("ig/keep.log", "hay\n"), 0);
    assert_int_equal(PUT("ig/b.tmp", "hay\n"), 0);
    assert_int_equal(PUT("ig/keep.tmp", "hay\n"), 0);
    assert_int_equal(PUT("ig/c.txt", "hay\n"), 0);
    assert_grep("{\"pattern\":\"hay\",\"path\":\"ig\"}", "ig/c.txt\nig/keep.log\nig/keep.tmp\n");
}

/* type, exclude_patterns, max_results, "paths", and the page in
 * structuredContent. */
static void test_filters_and_structured(void **state) {
    (void)state;
    assert_grep("{\"pattern\":\"hello\",\"type\":\"c\"}", "src/a.c\nsrc/b.h\n");
    assert_grep("{\"pattern\":\"hello\",\"type\":\"C\",\"glob\":\"*.c\"}", "src/a.c\n");
    assert_grep("{\"pattern\":\"o\",\"path\":\"src\",\"type\":\"txt\"}",
                "src/sub/meta.txt\n");
    rig_error err;
    rig_result *r = call_in(ts, "grep", NULL, "{\"pattern\":\"x\",\"type\":\"cobol\"}", &err);
    assert_error_with(r, "Unknown file type 'cobol'");
    char *t = text_of(r);
    assert_contains(t, "py");
    free(t);
    rig_result_free(r);
    /* exclude_patterns: a name, a directory, a path */
    assert_grep("{\"pattern\":\"o\",\"path\":\"src\",\"exclude_patterns\":[\"*.h\"]}",
                "src/a.c\nsrc/sub/c.c\nsrc/sub/meta.txt\n");
    assert_grep("{\"pattern\":\"o\",\"path\":\"src\",\"exclude_patterns\":[\"sub/\"]}",
                "src/a.c\nsrc/b.h\n");
    assert_grep("{\"pattern\":\"o\",\"path\":\"src\",\"exclude_patterns\":[\"sub/*.c\","
                "\"a.c\"]}",
                "src/b.h\nsrc/sub/meta.txt\n");
    /* ... which also hold with no_ignore */
    assert_grep("{\"pattern\":\"hello\",\"no_ignore\":true,\"exclude_patterns\":[\"build\","
                "\".hid/\",\"*.log\"]}",
                "src/a.c\nsrc/b.h\n\n[1 binary file skipped.]");
    t = grepped("{\"pattern\":\"hello\",\"path\":\"src\",\"exclude_patterns\":[\"*\"]}");
    assert_contains(t, "exclude_patterns");
    free(t);
    /* paths is files_with_matches; max_results is head_limit */
    assert_grep("{\"pattern\":\"hello\",\"path\":\"src\",\"output_mode\":\"paths\"}",
                "src/a.c\nsrc/b.h\n");
    r = call_in(ts, "grep", NULL,
                "{\"pattern\":\"match\",\"path\":\"pg\",\"max_results\":4,\"offset\":2}", &err);
    assert_ok_result(r, err);
    t = text_of(r);
    assert_true(strncmp(t, "pg/f02.txt\npg/f03.txt\npg/f04.txt\npg/f05.txt\n\n[truncated", 50) == 0);
    free(t);
    const char *sc = rig_result_structured_json(r, NULL);
    assert_non_null(sc);
    assert_string_equal(sc, "{\"mode\":\"files_with_matches\",\"offset\":2,\"shown\":4,"
                            "\"truncated\":true,\"next_offset\":6,\"files_searched\":7,"
                            "\"files_matched\":7}");
    rig_result_free(r);
    r = call_in(ts, "grep", NULL,
                "{\"pattern\":\"match\",\"path\":\"pg\",\"output_mode\":\"count\","
                "\"offset\":10}", &err);
    assert_ok_result(r, err);
    assert_string_equal(rig_result_structured_json(r, NULL),
                        "{\"mode\":\"count\",\"offset\":10,\"shown\":2,\"truncated\":false,"
                        "\"files_searched\":12,\"files_matched\":12}");
    rig_result_free(r);
}

/* A deadline stops a search running on the threads: an error result,
 * promptly, and nothing left behind (ASan and valgrind check). */
static void test_deadline_stops_search(void **state) {
    (void)state;
    assert_int_equal(try_mk("slow"), 0);
    /* Lines a backtracking pattern takes long over. */
    char *text = malloc(64 * 1024 + 1);
    assert_non_null(text);
    for (size_t i = 0; i < 64 * 1024; i++)
        text[i] = (i % 64 == 63) ? '\n' : 'a';
    text[64 * 1024] = '\0';
    char name[64];
    for (int i = 0; i < 64; i++) {
        snprintf(name, sizeof name, "slow/f%02d.txt", i);
        assert_int_equal(try_put(name, text, 64 * 1024), 0);
    }
    free(text);
    rig_call_opts opts = {0};
    opts.timeout_ms = 200;
    const char *args = "{\"pattern\":\"(a|aa)*(a|aa)*(a|aa)*(?=[bc])\",\"path\":\"slow\"}";
    rig_error err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rig_result *r = rig_toolset_call(ts, "grep", args, strlen(args), &opts, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long took = (t1.tv_sec - t0.tv_sec) * 1000LL + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    assert_non_null(r);
    assert_true(rig_result_is_error(r));
    if (took > 5000)
        fail_msg("the search went on for %lld ms past a 200 ms deadline", took);
    rig_result_free(r);
}

/* Files past the 4 MiB read size are searched in chunks of whole lines:
 * matches on either side of a chunk's end, line numbers carried across,
 * a line longer than a chunk, context (which reads the file whole). */
static void test_large_files_in_chunks(void **state) {
    (void)state;
    assert_int_equal(try_mk("big"), 0);
    size_t lines = 200000; /* "line 000000\n": 12 bytes a line, 2.4 MB ... */
    char p[512];
    snprintf(p, sizeof p, "%s/big/a.txt", root);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int rep = 0; rep < 3; rep++) /* ... 7.2 MB in all */
        for (size_t i = 1; i <= lines; i++) {
            size_t no = rep * lines + i;
            if (no == 5 || no == 349525 || no == 349526 || no == 599999)
                fprintf(f, "needle %05zu\n", no % 100000);
            else
                fprintf(f, "line %06zu\n", no % 1000000);
        }
    fclose(f);
    assert_grep("{\"pattern\":\"needle\",\"path\":\"big/a.txt\",\"output_mode\":\"content\"}",
                "big/a.txt:5:needle 00005\nbig/a.txt:349525:needle 49525\n"
                "big/a.txt:349526:needle 49526\nbig/a.txt:599999:needle 99999\n");
    assert_grep("{\"pattern\":\"needle\",\"path\":\"big\",\"output_mode\":\"count\"}",
                "big/a.txt:4\n");
    assert_grep("{\"pattern\":\"^line 599998$\",\"path\":\"big\",\"output_mode\":\"content\"}",
                "big/a.txt:599998:line 599998\n");
    assert_grep("{\"pattern\":\"needle 99999\",\"path\":\"big\",\"output_mode\":\"content\","
                "\"context\":1}",
                "big/a.txt-599998-line 599998\nbig/a.txt:599999:needle 99999\n"
                "big/a.txt-600000-line 600000\n");
    /* one line of 9 MB, the match at its end */
    snprintf(p, sizeof p, "%s/big/b.txt", root);
    f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < 9 * 1024 * 1024; i++)
        fputc('x', f);
    fputs("END\nsecond\n", f);
    fclose(f);
    char *t = grepped("{\"pattern\":\"xEND$\",\"path\":\"big/b.txt\",\"output_mode\":\"count\"}");
    assert_string_equal(t, "big/b.txt:1\n");
    free(t);
    assert_grep("{\"pattern\":\"second\",\"path\":\"big/b.txt\",\"output_mode\":\"content\"}",
                "big/b.txt:2:second\n");
    unlink(p);
    /* past 64 MiB, context is refused for the file, with a note */
    snprintf(p, sizeof p, "%s/big/c.txt", root);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0);
    close(fd);
    t = grepped("{\"pattern\":\"x\",\"path\":\"big/c.txt\",\"output_mode\":\"content\","
                "\"context\":2}");
    assert_contains(t, "search it without them");
    free(t);
    unlink(p);
}

typedef struct shrinker {
    const char *path;
    int delay_us;
} shrinker;

static void *shrink_later(void *arg) {
    shrinker *sh = arg;
    usleep((useconds_t)sh->delay_us);
    (void)truncate(sh->path, 0);
    return NULL;
}

/* A large file cut short while it is searched: no crash (a mapped file
 * would die of SIGBUS here), a well-formed result. */
static void test_file_shrinks_while_searched(void **state) {
    (void)state;
    char p[512];
    snprintf(p, sizeof p, "%s/shrink.txt", root);
    char line[64];
    memset(line, 'y', sizeof line - 1);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = '\0';
    for (int round = 0; round < 8; round++) {
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        for (int i = 0; i < (6 << 20) / 63; i++)
            fputs(line, f);
        fputs("zzz\n", f);
        fclose(f);
        shrinker sh = {p, round * 300};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, shrink_later, &sh), 0);
        char *t = grepped("{\"pattern\":\"zzz|y{70}\",\"path\":\"shrink.txt\",\"output_mode\":\"count\"}");
        pthread_join(th, NULL);
        assert_true(strcmp(t, "shrink.txt:1\n") == 0 || strncmp(t, "No matches", 10) == 0);
        free(t);
    }
    unlink(p);
}

/* What a reviewer found the whole-buffer scan got wrong: patterns that
 * cannot give back past a newline (possessive, atomic, \R, an option
 * reset) and ones whose match start moves (\K, non-atomic lookarounds)
 * give what the line alone gives; fixed_strings with multiline; multiline
 * going on after an empty match; ignore files above the start. */
static void test_scan_review_cases(void **state) {
    (void)state;
    mk("rv");
    assert_int_equal(PUT("rv/t1.txt", "foo bar\nbaz;\n"), 0);
    assert_int_equal(PUT("rv/t2.txt", "a\nb\n"), 0);
    assert_int_equal(PUT("rv/t3.txt", "x\nfoo\n"), 0);
    assert_int_equal(PUT("rv/t4.txt", "foo\nbar\n"), 0);
    assert_int_equal(PUT("rv/t5.txt", "ab\r\nc\n"), 0);
    assert_int_equal(PUT("rv/m1.txt", "za\nb\nq\n"), 0);
    assert_grep("{\"pattern\":\"foo[^;]*+$\",\"path\":\"rv/t1.txt\",\"output_mode\":\"content\"}",
                "rv/t1.txt:1:foo bar\n");
    assert_grep("{\"pattern\":\"foo(?>[^;]*)$\",\"path\":\"rv/t1.txt\",\"output_mode\":\"content\"}",
                "rv/t1.txt:1:foo bar\n");
    assert_grep("{\"pattern\":\"b\\\\R$\",\"path\":\"rv/t5.txt\",\"output_mode\":\"count\"}",
                "rv/t5.txt:1\n");
    assert_grep("{\"pattern\":\"(?-m)^foo\",\"path\":\"rv/t3.txt\",\"output_mode\":\"content\"}",
                "rv/t3.txt:2:foo\n");
    assert_grep("{\"pattern\":\"(?^)^foo\",\"path\":\"rv/t3.txt\",\"output_mode\":\"content\"}",
                "rv/t3.txt:2:foo\n");
    char *t = grepped("{\"pattern\":\"a\\\\s\\\\Kb\",\"path\":\"rv/t2.txt\"}");
    assert_contains(t, "No matches");
    free(t);
    t = grepped("{\"pattern\":\"foo(?*\\\\nbar)\",\"path\":\"rv/t4.txt\"}");
    assert_contains(t, "No matches");
    free(t);
    /* a literal in multiline mode (PCRE2 takes no MULTILINE with LITERAL) */
    assert_grep("{\"pattern\":\"o\\nb\",\"path\":\"rv/t4.txt\",\"fixed_strings\":true,"
                "\"multiline\":true,\"output_mode\":\"content\"}",
                "rv/t4.txt:1:foo\nrv/t4.txt:2:bar\n");
    /* after the empty match at z, a\nb later on line 1 is still found */
    assert_grep("{\"pattern\":\"(?=z)|a\\nb\",\"path\":\"rv/m1.txt\",\"multiline\":true,"
                "\"output_mode\":\"content\"}",
                "rv/m1.txt:1:za\nrv/m1.txt:2:b\n");
    /* the root's .gitignore says *.log: it holds below the start too */
    assert_int_equal(PUT("rv/deep.log", "hello from a log\n"), 0);
    assert_grep("{\"pattern\":\"hello\",\"path\":\"rv\"}", "No matches for 'hello' in 'rv' "
                "(6 files searched; entries matched by ignore files were skipped, "
                "no_ignore=true searches them).");
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
        cmocka_unit_test(test_scan_matches_line_search),
        cmocka_unit_test(test_many_files_in_order),
        cmocka_unit_test(test_ignore_files),
        cmocka_unit_test(test_filters_and_structured),
        cmocka_unit_test(test_deadline_stops_search),
        cmocka_unit_test(test_large_files_in_chunks),
        cmocka_unit_test(test_file_shrinks_while_searched),
        cmocka_unit_test(test_scan_review_cases),
    };
    return cmocka_run_group_tests(tests, setup, fs_teardown);
}
