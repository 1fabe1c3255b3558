/* test_graders.c — the built-in graders (src/env/graders.c): each type with
 * passing and failing answers, the edges (Unicode, whitespace, numbers as
 * strings, NaN and infinities, huge inputs), {arg} placeholders, the
 * combinations and the exact grade frames they give with subscores, every
 * kind of bad spec, file graders confined to the workspace, and the command
 * grader's timeout. */
#define _GNU_SOURCE
#include "testing.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env/graders.h"

static char ws[64]; /* a workspace made for the file and command tests */

static rig__grader *parse_spec(const char *spec) {
    rig_json_doc *d = parse_ok(spec);
    char why[512] = "";
    rig__grader *g = rig__grader_parse(rig_json_doc_root(d), why, sizeof why);
    rig_json_doc_free(d); /* the grader keeps what it needs */
    if (!g)
        fail_msg("spec %s refused: %s", spec, why);
    return g;
}

/* The grade frame for answer (JSON text) under spec, as JSON text. */
static char *frame_full(const char *spec, const char *answer, const char *returns,
                        const char *args, const char *dir, int64_t timeout_ms) {
    rig__grader *g = parse_spec(spec);
    rig_schema *s = NULL;
    rig_error err;
    if (returns)
        assert_non_null(s = rig_schema_compile(returns, strlen(returns), &err));
    rig_answer a;
    if (rig_answer_parse(answer, strlen(answer), s, &a, &err) != RIG_OK)
        fail_msg("answer %s: %s", answer, err.message);
    rig_json_doc *ad = args ? parse_ok(args) : NULL;
    rig_grade gr = RIG_GRADE_INIT;
    assert_int_equal(rig__grader_run(g, &a, rig_json_doc_root(ad), dir, timeout_ms, false, NULL, NULL, &gr), 0);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_grade_write(&gr, &w), 0);
    char *out = rig_json_writer_detach(&w, NULL);
    assert_non_null(out);
    rig_json_writer_free(&w);
    rig_grade_clear(&gr);
    rig_json_doc_free(ad);
    rig_answer_free(&a);
    rig_schema_free(s);
    rig__grader_free(g);
    return out;
}

static char *frame(const char *spec, const char *answer) {
    return frame_full(spec, answer, NULL, NULL, ws, 10000);
}

#define EXPECT_FRAME(spec, answer, want)                                                    \
    do {                                                                                    \
        char *got_ = frame(spec, answer);                                                   \
        if (strcmp(got_, want))                                                             \
            fail_msg("%s on %s:\n got  %s\n want %s", spec, answer, got_, (const char *)want); \
        free(got_);                                                                         \
    } while (0)

static const char *PASS = "{\"score\":1.0}";

/* 1 pass, 0 fail, -1 an isError grade */
static int verdict_of(const char *spec, const char *answer, const char *returns, const char *args) {
    char *f = frame_full(spec, answer, returns, args, ws, 10000);
    int v = strstr(f, "\"isError\":true") ? -1 : strncmp(f, PASS, 12) == 0 ? 1 : 0;
    if (v == 0 && strncmp(f, "{\"score\":0.0", 12))
        fail_msg("%s on %s: a leaf scored %s", spec, answer, f);
    free(f);
    return v;
}

#define PASSES(spec, answer) assert_int_equal(verdict_of(spec, answer, NULL, NULL), 1)
#define FAILS(spec, answer) assert_int_equal(verdict_of(spec, answer, NULL, NULL), 0)
#define ERRS(spec, answer) assert_int_equal(verdict_of(spec, answer, NULL, NULL), -1)

static void test_exact(void **state) {
    (void)state;
    const char *s = "{\"type\":\"exact\",\"value\":\"42\"}";
    PASSES(s, "\"42\"");
    PASSES(s, "\"  42\\n\"");   /* trimmed */
    PASSES(s, "42");            /* a number answer is read as its text */
    FAILS(s, "\"42.0\"");
    FAILS(s, "\"4 2\"");
    FAILS(s, "\"\"");
    EXPECT_FRAME(s, "\"41\"", "{\"score\":0.0,\"content\":\"the answer is not the expected text\"}");
    FAILS("{\"type\":\"exact\",\"value\":\"42\",\"trim\":false}", "\" 42\"");
    PASSES("{\"type\":\"exact\",\"value\":42}", "\"42\"");
    FAILS("{\"type\":\"exact\",\"value\":\"Paris\"}", "\"paris\"");
    PASSES("{\"type\":\"exact\",\"value\":\"Paris\",\"case_sensitive\":false}", "\"pARIS\"");
    /* Unicode case folding and exact bytes */
    PASSES("{\"type\":\"exact\",\"value\":\"\xc3\x89T\xc3\x89\",\"case_sensitive\":false}",
           "\"\\u00e9t\\u00e9\"");
    FAILS("{\"type\":\"exact\",\"value\":\"caf\xc3\xa9\"}", "\"cafe\\u0301\""); /* no normalizing */
    PASSES("{\"type\":\"exact\",\"value\":\"\xf0\x9f\x98\x80\"}", "\"\\ud83d\\ude00\"");
    PASSES("{\"type\":\"exact\",\"value\":\"\"}", "\"  \"");
    /* an object answer is matched as the JSON text sent */
    PASSES("{\"type\":\"exact\",\"value\":\"{\\\"a\\\":1}\"}", "{\"a\":1}");
}

static void test_contains(void **state) {
    (void)state;
    const char *s = "{\"type\":\"contains\",\"value\":\"needle\"}";
    PASSES(s, "\"hay needle hay\"");
    FAILS(s, "\"hay NEEDLE hay\"");
    PASSES("{\"type\":\"contains\",\"value\":\"needle\",\"case_sensitive\":false}",
           "\"hay NEEDLE hay\"");
    PASSES("{\"type\":\"contains\",\"value\":\"\"}", "\"anything\"");
    PASSES("{\"type\":\"contains\",\"value\":\"\xce\xa3\",\"case_sensitive\":false}", "\"\xcf\x83\"");
    PASSES("{\"type\":\"contains\",\"value\":\"a.c\",\"case_sensitive\":false}", "\"xA.Cx\"");
    FAILS("{\"type\":\"contains\",\"value\":\"a.c\",\"case_sensitive\":false}", "\"abc\"");
    EXPECT_FRAME(s, "\"nope\"",
                 "{\"score\":0.0,\"content\":\"the answer does not contain the expected text\"}");
    /* a NUL inside the answer does not end it */
    PASSES(s, "\"a\\u0000needle\"");
}

static void test_regex(void **state) {
    (void)state;
    const char *s = "{\"type\":\"regex\",\"pattern\":\"^\\\\d+$\"}";
    PASSES(s, "\"12345\"");
    PASSES(s, "12345");
    FAILS(s, "\"12a45\"");
    FAILS(s, "\"123\\n456\"");  /* not multiline: $ is the end */
    PASSES("{\"type\":\"regex\",\"pattern\":\"^\\\\d+$\",\"multiline\":true}", "\"abc\\n456\"");
    PASSES("{\"type\":\"regex\",\"pattern\":\"answer: yes\",\"case_sensitive\":false}",
           "\"ANSWER: YES\"");
    PASSES("{\"type\":\"regex\",\"pattern\":\"^.$\"}", "\"\xe2\x82\xac\"");  /* UTF-8 mode */
    PASSES("{\"type\":\"regex\",\"pattern\":\"\\\\d{3}\"}", "\"a123\""); /* braces not substituted */
    /* catastrophic backtracking ends at the match limit: an isError grade */
    char ans[200];
    memset(ans, 'a', sizeof ans);
    ans[0] = '"';
    memcpy(ans + sizeof ans - 3, "!\"", 3);
    ERRS("{\"type\":\"regex\",\"pattern\":\"^(a+)+$\"}", ans);
    /* invalid UTF-8 cannot reach a grader (the answer is JSON), but huge input can */
    size_t n = 2 << 20;
    char *big = malloc(n + 3);
    assert_non_null(big);
    big[0] = '"';
    memset(big + 1, 'x', n);
    memcpy(big + n - 2, "end\"", 5);
    PASSES("{\"type\":\"regex\",\"pattern\":\"end$\"}", big);
    PASSES("{\"type\":\"contains\",\"value\":\"xend\"}", big);
    free(big);
}

static void test_json_equal(void **state) {
    (void)state;
    const char *s = "{\"type\":\"json_equal\",\"value\":{\"a\":[1,2],\"b\":null}}";
    PASSES(s, "{\"b\":null,\"a\":[1.0,2]}");
    PASSES(s, "\"{\\\"a\\\":[1,2],\\\"b\\\":null}\"");  /* a string holding the JSON */
    FAILS(s, "{\"a\":[2,1],\"b\":null}");
    FAILS(s, "{\"a\":[1,2]}");
    FAILS(s, "\"{broken\"");
    PASSES("{\"type\":\"json_equal\",\"value\":\"x\"}", "\"x\"");
    FAILS("{\"type\":\"json_equal\",\"value\":\"1\"}", "1");
    PASSES("{\"type\":\"json_equal\",\"value\":1}", "\"1\"");
    /* with returns, the parsed content is compared */
    assert_int_equal(verdict_of("{\"type\":\"json_equal\",\"value\":[3]}", "\"[3]\"",
                                "{\"type\":\"array\"}", NULL), 1);
}

static void test_number(void **state) {
    (void)state;
    const char *s = "{\"type\":\"number\",\"value\":3.14,\"tolerance\":0.01}";
    PASSES(s, "3.14");
    PASSES(s, "3.149");
    PASSES(s, "\"3.13\"");
    PASSES(s, "\" 3.145\\n\"");
    FAILS(s, "3.2");
    FAILS(s, "\"3.14 meters\"");
    FAILS(s, "\"NaN\"");
    FAILS(s, "\"nan\"");
    FAILS(s, "\"Infinity\"");
    FAILS(s, "\"inf\"");
    FAILS(s, "\"0x3\"");
    FAILS(s, "true");
    FAILS(s, "[3.14]");
    EXPECT_FRAME(s, "\"pi\"", "{\"score\":0.0,\"content\":\"the answer is not a number\"}");
    PASSES("{\"type\":\"number\",\"value\":100}", "100.0");
    PASSES("{\"type\":\"number\",\"value\":100}", "\"1e2\"");
    FAILS("{\"type\":\"number\",\"value\":100}", "100.0000001");
    PASSES("{\"type\":\"number\",\"value\":1000,\"relative\":0.01}", "1009");
    FAILS("{\"type\":\"number\",\"value\":1000,\"relative\":0.01}", "1011");
    PASSES("{\"type\":\"number\",\"value\":0}", "-0");
    PASSES("{\"type\":\"number\",\"value\":9007199254740993}", "9007199254740993");
    FAILS("{\"type\":\"number\",\"value\":1e308,\"tolerance\":1e308}", "\"-1e308\"");
}

static void test_one_of(void **state) {
    (void)state;
    const char *s = "{\"type\":\"one_of\",\"values\":[\"red\",\"green\",7,{\"k\":1}]}";
    PASSES(s, "\"green\"");
    PASSES(s, "\" red \"");
    FAILS(s, "\"Red\"");
    PASSES(s, "7");
    PASSES(s, "\"7\"");          /* "7" parses to 7 */
    PASSES(s, "{\"k\":1.0}");
    FAILS(s, "\"blue\"");
    PASSES("{\"type\":\"one_of\",\"values\":[\"Red\"],\"case_sensitive\":false}", "\"rED\"");
    EXPECT_FRAME(s, "\"blue\"",
                 "{\"score\":0.0,\"content\":\"the answer is none of the accepted values\"}");
}

static void test_placeholders(void **state) {
    (void)state;
    const char *args = "{\"expected\":\"Paris\",\"n\":12,\"obj\":{\"a\":[1]},\"q\":\"it's; rm x\"}";
#define V(spec, ans) verdict_of(spec, ans, NULL, args)
    assert_int_equal(V("{\"type\":\"exact\",\"value\":\"{expected}\"}", "\"Paris\""), 1);
    assert_int_equal(V("{\"type\":\"exact\",\"value\":\"{expected}\"}", "\"Rome\""), 0);
    assert_int_equal(V("{\"type\":\"exact\",\"value\":\"{{expected}}\"}", "\"{expected}\""), 1);
    assert_int_equal(V("{\"type\":\"exact\",\"value\":\"{n} items\"}", "\"12 items\""), 1);
    assert_int_equal(V("{\"type\":\"exact\",\"value\":\"{ not a name }\"}", "\"{ not a name }\""), 1);
    assert_int_equal(V("{\"type\":\"contains\",\"value\":\"{expected}\"}", "\"in Paris.\""), 1);
    assert_int_equal(V("{\"type\":\"number\",\"value\":\"{n}\"}", "12"), 1);
    assert_int_equal(V("{\"type\":\"number\",\"value\":\"{expected}\"}", "12"), -1);
    assert_int_equal(V("{\"type\":\"json_equal\",\"value\":\"{obj}\"}", "{\"a\":[1]}"), 1);
    assert_int_equal(V("{\"type\":\"json_equal\",\"value\":{\"x\":\"{n}\"}}", "{\"x\":12}"), 1);
    assert_int_equal(V("{\"type\":\"json_equal\",\"value\":{\"x\":\"#{n}\"}}", "{\"x\":\"#12\"}"), 1);
    assert_int_equal(V("{\"type\":\"one_of\",\"values\":[\"{expected}\",\"{n}\"]}", "12"), 1);
    /* a name with no arg, or no args at all: isError */
    char *f = frame_full("{\"type\":\"exact\",\"value\":\"{missing}\"}", "\"x\"", NULL, args, ws,
                         1000);
    assert_string_equal(f, "{\"score\":0.0,\"content\":\"the grader refers to {missing}, but the "
                           "task has no arg 'missing'\",\"isError\":true}");
    free(f);
    assert_int_equal(verdict_of("{\"type\":\"exact\",\"value\":\"{x}\"}", "\"x\"", NULL, NULL), -1);
    /* an arg in a command is one quoted word: no injection */
    assert_int_equal(V("{\"type\":\"command\",\"run\":\"test {q} = \\\"it's; rm x\\\"\"}", "1"), 1);
#undef V
}

static void test_combinations(void **state) {
    (void)state;
    const char *all = "{\"type\":\"all\",\"graders\":[{\"type\":\"contains\",\"value\":\"a\"},"
                      "{\"type\":\"contains\",\"value\":\"b\",\"name\":\"has b\"}]}";
    EXPECT_FRAME(all, "\"ab\"",
                 "{\"score\":1.0,\"subscores\":[{\"name\":\"contains\",\"weight\":1.0,\"value\":1.0},"
                 "{\"name\":\"has b\",\"weight\":1.0,\"value\":1.0}]}");
    EXPECT_FRAME(all, "\"a\"",
                 "{\"score\":0.0,\"content\":\"has b: the answer does not contain the expected "
                 "text\",\"subscores\":[{\"name\":\"contains\",\"weight\":1.0,\"value\":1.0},"
                 "{\"name\":\"has b\",\"weight\":1.0,\"value\":0.0}]}");
    const char *any = "{\"type\":\"any\",\"graders\":[{\"type\":\"exact\",\"value\":\"x\"},"
                      "{\"type\":\"exact\",\"value\":\"y\"}]}";
    EXPECT_FRAME(any, "\"y\"",
                 "{\"score\":1.0,\"content\":\"exact#1: the answer is not the expected text\","
                 "\"subscores\":[{\"name\":\"exact#1\",\"weight\":1.0,\"value\":0.0},"
                 "{\"name\":\"exact#2\",\"weight\":1.0,\"value\":1.0}]}");
    const char *wt = "{\"type\":\"weighted\",\"graders\":["
                     "{\"weight\":3,\"grader\":{\"type\":\"number\",\"value\":1,\"name\":\"num\"}},"
                     "{\"weight\":1,\"grader\":{\"type\":\"any\",\"name\":\"nested\",\"graders\":["
                     "{\"type\":\"regex\",\"pattern\":\"^1\"}]}}]}";
    EXPECT_FRAME(wt, "\"1\"",
                 "{\"score\":1.0,\"subscores\":[{\"name\":\"num\",\"weight\":3.0,\"value\":1.0},"
                 "{\"name\":\"nested\",\"weight\":1.0,\"value\":1.0,\"children\":[{\"name\":"
                 "\"regex\",\"weight\":1.0,\"value\":1.0}]}]}");
    EXPECT_FRAME(wt, "\"1.5\"",
                 "{\"score\":0.25,\"content\":\"num: the answer is not within tolerance of the "
                 "expected number\",\"subscores\":[{\"name\":\"num\",\"weight\":3.0,\"value\":0.0},"
                 "{\"name\":\"nested\",\"weight\":1.0,\"value\":1.0,\"children\":[{\"name\":"
                 "\"regex\",\"weight\":1.0,\"value\":1.0}]}]}");
    /* a child's error makes the parent an error, even when another passes */
    char *f = frame_full("{\"type\":\"any\",\"graders\":[{\"type\":\"exact\",\"value\":\"x\"},"
                         "{\"type\":\"file_contains\",\"path\":\"f\",\"value\":\"v\"}]}",
                         "\"x\"", NULL, NULL, NULL, 1000);
    assert_string_equal(f, "{\"score\":1.0,\"content\":\"file_contains: a file_contains grader "
                           "needs the task's workspace, and there is none\",\"isError\":true,"
                           "\"subscores\":[{\"name\":\"exact\",\"weight\":1.0,\"value\":1.0},"
                           "{\"name\":\"file_contains\",\"weight\":1.0,\"value\":0.0}]}");
    free(f);
    /* 16 levels are fine */
    char deep[2048] = "";
    for (int i = 0; i < 15; i++)
        strcat(deep, "{\"type\":\"all\",\"graders\":[");
    strcat(deep, "{\"type\":\"exact\",\"value\":\"z\"}");
    for (int i = 0; i < 15; i++)
        strcat(deep, "]}");
    f = frame(deep, "\"z\"");
    assert_non_null(strstr(f, "{\"score\":1.0,"));
    free(f);
}

static void expect_bad(const char *spec, const char *reason) {
    rig_json_doc *d = parse_ok(spec);
    char why[512] = "";
    rig__grader *g = rig__grader_parse(rig_json_doc_root(d), why, sizeof why);
    rig_json_doc_free(d);
    if (g)
        fail_msg("spec %s was accepted", spec);
    if (!strstr(why, reason))
        fail_msg("spec %s: reason '%s' does not say '%s'", spec, why, reason);
}

static void test_bad_specs(void **state) {
    (void)state;
    expect_bad("42", "must be an object");
    expect_bad("{}", "missing 'type'");
    expect_bad("{\"type\":\"fuzzy\"}", "unknown grader type \"fuzzy\"");
    expect_bad("{\"type\":7}", "unknown grader type 7");
    expect_bad("{\"type\":\"exact\"}", "exact grader: missing 'value'");
    expect_bad("{\"type\":\"exact\",\"value\":[1]}", "'value' must be a string");
    expect_bad("{\"type\":\"exact\",\"value\":\"x\",\"vaule\":1}", "unknown member \"vaule\"");
    expect_bad("{\"type\":\"exact\",\"value\":\"x\",\"case_sensitive\":\"no\"}",
               "'case_sensitive' must be true or false");
    expect_bad("{\"type\":\"exact\",\"value\":\"x\",\"name\":\"\"}", "'name' must be a non-empty");
    expect_bad("{\"type\":\"contains\"}", "missing 'value'");
    expect_bad("{\"type\":\"regex\"}", "missing 'pattern'");
    expect_bad("{\"type\":\"regex\",\"pattern\":\"(\"}", "bad pattern at offset 1");
    expect_bad("{\"type\":\"regex\",\"pattern\":\"[a\"}", "bad pattern");
    expect_bad("{\"type\":\"regex\",\"pattern\":1}", "'pattern' must be a string");
    expect_bad("{\"type\":\"json_equal\"}", "missing 'value'");
    expect_bad("{\"type\":\"number\"}", "missing 'value'");
    expect_bad("{\"type\":\"number\",\"value\":true}", "'value' must be a number");
    expect_bad("{\"type\":\"number\",\"value\":1,\"tolerance\":-0.1}", "'tolerance' must be >= 0");
    expect_bad("{\"type\":\"number\",\"value\":1,\"relative\":-1}", "'relative' must be >= 0");
    expect_bad("{\"type\":\"number\",\"value\":1,\"tolerance\":\"1\"}", "'tolerance' must be a number");
    expect_bad("{\"type\":\"one_of\"}", "missing 'values'");
    expect_bad("{\"type\":\"one_of\",\"values\":[]}", "non-empty array");
    expect_bad("{\"type\":\"one_of\",\"values\":\"a\"}", "non-empty array");
    expect_bad("{\"type\":\"file_contains\",\"value\":\"x\"}", "missing 'path'");
    expect_bad("{\"type\":\"file_contains\",\"path\":\"/etc/passwd\",\"value\":\"x\"}",
               "must be relative to the workspace");
    expect_bad("{\"type\":\"file_contains\",\"path\":\"\",\"value\":\"x\"}", "must not be empty");
    expect_bad("{\"type\":\"file_contains\",\"path\":\"a\"}", "missing 'value'");
    expect_bad("{\"type\":\"file_matches\",\"path\":\"a\",\"pattern\":\"*\"}", "bad pattern");
    expect_bad("{\"type\":\"command\"}", "missing 'run'");
    expect_bad("{\"type\":\"command\",\"run\":\"\"}", "'run' must be a non-empty string");
    expect_bad("{\"type\":\"command\",\"run\":\"true\",\"timeout\":0}", "'timeout' must be");
    expect_bad("{\"type\":\"command\",\"run\":\"true\",\"timeout\":-5}", "'timeout' must be");
    expect_bad("{\"type\":\"command\",\"run\":\"true\",\"timeout\":\"5\"}", "'timeout' must be");
    expect_bad("{\"type\":\"all\"}", "missing 'graders'");
    expect_bad("{\"type\":\"all\",\"graders\":[]}", "non-empty array");
    expect_bad("{\"type\":\"any\",\"graders\":[{\"type\":\"nope\"}]}",
               "any grader: graders[0]: unknown grader type");
    expect_bad("{\"type\":\"all\",\"graders\":[{\"type\":\"exact\",\"value\":\"a\"},"
               "{\"type\":\"regex\",\"pattern\":\")\"}]}",
               "all grader: graders[1]: regex grader: bad pattern");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"type\":\"exact\",\"value\":\"a\"}]}",
               "unknown member");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"grader\":{\"type\":\"exact\",\"value\":\"a\"}}]}",
               "missing 'weight'");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"weight\":0,\"grader\":{\"type\":\"exact\","
               "\"value\":\"a\"}}]}", "'weight' must be > 0");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"weight\":-1,\"grader\":{\"type\":\"exact\","
               "\"value\":\"a\"}}]}", "'weight' must be > 0");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"weight\":\"2\",\"grader\":{}}]}",
               "'weight' must be a number");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"weight\":2}]}", "missing 'grader'");
    expect_bad("{\"type\":\"weighted\",\"graders\":[{\"weight\":2,\"grader\":{}}]}",
               "graders[0].grader: missing 'type'");
    char deep[4096] = "";
    for (int i = 0; i < 16; i++)
        strcat(deep, "{\"type\":\"all\",\"graders\":[");
    strcat(deep, "{\"type\":\"exact\",\"value\":\"z\"}");
    for (int i = 0; i < 16; i++)
        strcat(deep, "]}");
    expect_bad(deep, "nested deeper than 16");
    /* NULL why is allowed */
    rig_json_doc *d = parse_ok("{}");
    assert_null(rig__grader_parse(rig_json_doc_root(d), NULL, 0));
    rig_json_doc_free(d);
}

static void write_file(const char *rel, const char *text) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_files(void **state) {
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/src", ws);
    mkdir(p, 0755);
    write_file("src/x.c", "int main(void) {\n    return fixed();\n}\n");
    PASSES("{\"type\":\"file_contains\",\"path\":\"src/x.c\",\"value\":\"fixed\"}", "\"\"");
    FAILS("{\"type\":\"file_contains\",\"path\":\"src/x.c\",\"value\":\"broken\"}", "\"\"");
    PASSES("{\"type\":\"file_contains\",\"path\":\"src/x.c\",\"value\":\"FIXED\","
           "\"case_sensitive\":false}", "\"\"");
    PASSES("{\"type\":\"file_contains\",\"path\":\"./src/../src/x.c\",\"value\":\"fixed\"}", "\"\"");
    PASSES("{\"type\":\"file_matches\",\"path\":\"src/x.c\",\"pattern\":\"^\\\\s+return \\\\w+\\\\(\\\\);$\"}",
           "\"\"");
    FAILS("{\"type\":\"file_matches\",\"path\":\"src/x.c\",\"pattern\":\"^return\"}", "\"\"");
    /* a missing file scores 0; it is not an error */
    EXPECT_FRAME("{\"type\":\"file_contains\",\"path\":\"src/none.c\",\"value\":\"x\"}", "\"\"",
                 "{\"score\":0.0,\"content\":\"there is no file 'src/none.c' in the workspace\"}");
    /* a path from the args */
    assert_int_equal(verdict_of("{\"type\":\"file_contains\",\"path\":\"src/{f}\",\"value\":\"{v}\"}",
                                "\"\"", NULL, "{\"f\":\"x.c\",\"v\":\"main\"}"), 1);
    /* out of the workspace: .., absolute via an arg, a symlink out */
    ERRS("{\"type\":\"file_contains\",\"path\":\"../../etc/passwd\",\"value\":\"root\"}", "\"\"");
    ERRS("{\"type\":\"file_contains\",\"path\":\"src/../../x\",\"value\":\"root\"}", "\"\"");
    assert_int_equal(verdict_of("{\"type\":\"file_contains\",\"path\":\"{p}\",\"value\":\"root\"}",
                                "\"\"", NULL, "{\"p\":\"/etc/passwd\"}"), -1);
    snprintf(p, sizeof p, "%s/out", ws);
    assert_int_equal(symlink("/etc/passwd", p), 0);
    ERRS("{\"type\":\"file_contains\",\"path\":\"out\",\"value\":\"root\"}", "\"\"");
    snprintf(p, sizeof p, "%s/updir", ws);
    assert_int_equal(symlink("..", p), 0);
    ERRS("{\"type\":\"file_matches\",\"path\":\"updir/x\",\"pattern\":\"x\"}", "\"\"");
    /* a symlink that stays inside is fine */
    snprintf(p, sizeof p, "%s/inside", ws);
    assert_int_equal(symlink("src/x.c", p), 0);
    PASSES("{\"type\":\"file_contains\",\"path\":\"inside\",\"value\":\"fixed\"}", "\"\"");
    /* a directory, a FIFO (never opened for a blocking read) */
    ERRS("{\"type\":\"file_contains\",\"path\":\"src\",\"value\":\"x\"}", "\"\"");
    snprintf(p, sizeof p, "%s/fifo", ws);
    assert_int_equal(mkfifo(p, 0600), 0);
    ERRS("{\"type\":\"file_contains\",\"path\":\"fifo\",\"value\":\"x\"}", "\"\"");
    /* over the size cap */
    snprintf(p, sizeof p, "%s/big", ws);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)RIG_GRADER_FILE_MAX + 1), 0);
    close(fd);
    ERRS("{\"type\":\"file_contains\",\"path\":\"big\",\"value\":\"x\"}", "\"\"");
    /* no workspace */
    char *f = frame_full("{\"type\":\"file_matches\",\"path\":\"a\",\"pattern\":\"x\"}", "\"\"",
                         NULL, NULL, NULL, 1000);
    assert_string_equal(f, "{\"score\":0.0,\"content\":\"a file_matches grader needs the task's "
                           "workspace, and there is none\",\"isError\":true}");
    free(f);
}

static int64_t ms_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Running, not gone nor a zombie waiting for a reaper (in a container,
 * PID 1 may never reap an orphan). */
static bool alive(int pid) {
    for (int i = 0; i < 50; i++) {
        char p[64], st[512];
        snprintf(p, sizeof p, "/proc/%d/stat", pid);
        FILE *f = fopen(p, "r");
        if (!f)
            return false;
        size_t n = fread(st, 1, sizeof st - 1, f);
        fclose(f);
        st[n] = '\0';
        const char *rp = strrchr(st, ')');
        if (rp && (rp[2] == 'Z' || rp[2] == 'X'))
            return false;
        usleep(20 * 1000);
    }
    return true;
}

static void test_command(void **state) {
    (void)state;
    PASSES("{\"type\":\"command\",\"run\":\"test -f src/x.c\"}", "\"\"");
    /* the answer's raw text on stdin */
    PASSES("{\"type\":\"command\",\"run\":\"grep -q '^hello$'\"}", "\"hello\"");
    char *f = frame("{\"type\":\"command\",\"run\":\"echo out; echo err >&2; exit 3\"}", "\"\"");
    assert_string_equal(f, "{\"score\":0.0,\"content\":\"the command 'echo out; echo err >&2; exit 3' "
                           "exited with status 3\",\"info\":{\"exit_code\":3,\"stdout\":\"out\\n\","
                           "\"stderr\":\"err\\n\"}}");
    free(f);
    /* sleep 60 with a 1 s timeout: ~1 s, isError, nothing left running */
    int64_t t0 = ms_now();
    f = frame("{\"type\":\"command\",\"run\":\"sleep 60 & echo $! > bg.pid; sleep 60\","
              "\"timeout\":1}", "\"\"");
    int64_t took = ms_now() - t0;
    assert_true(took >= 900 && took < 4000);
    assert_non_null(strstr(f, "\"isError\":true"));
    assert_non_null(strstr(f, "timed out after 1 s"));
    free(f);
    char p[256];
    snprintf(p, sizeof p, "%s/bg.pid", ws);
    FILE *pf = fopen(p, "r");
    assert_non_null(pf);
    int pid = 0;
    assert_int_equal(fscanf(pf, "%d", &pid), 1);
    fclose(pf);
    assert_false(alive(pid));
    /* the whole grading's budget bounds a command with a longer timeout */
    t0 = ms_now();
    f = frame_full("{\"type\":\"all\",\"graders\":[{\"type\":\"command\",\"run\":\"sleep 60\"},"
                   "{\"type\":\"command\",\"run\":\"sleep 60\"}]}",
                   "\"\"", NULL, NULL, ws, 500);
    took = ms_now() - t0;
    assert_true(took < 3000);
    assert_non_null(strstr(f, "\"isError\":true"));
    assert_non_null(strstr(f, "no time was left"));
    free(f);
    /* no workspace */
    f = frame_full("{\"type\":\"command\",\"run\":\"true\"}", "\"\"", NULL, NULL, NULL, 1000);
    assert_non_null(strstr(f, "\"isError\":true"));
    free(f);
}

static void test_grade_frame(void **state) {
    (void)state;
    rig_grade g = RIG_GRADE_INIT;
    assert_true(g.done);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    g.score = 0.5;
    rig_grade_write(&g, &w);
    assert_string_equal(rig_json_writer_finish(&w, NULL), "{\"score\":0.5}");
    rig_json_writer_reset(&w);
    g.done = false;
    g.is_error = true;
    g.score = NAN;
    g.content = strdup("why \"quoted\"");
    g.info_json = strdup("{\"k\":1}");
    g.subscores_json = strdup("[]");
    rig_grade_write(&g, &w);
    assert_string_equal(rig_json_writer_finish(&w, NULL),
                        "{\"score\":0.0,\"done\":false,\"content\":\"why \\\"quoted\\\"\","
                        "\"info\":{\"k\":1},\"isError\":true,\"subscores\":[]}");
    rig_json_writer_free(&w);
    rig_grade_clear(&g);
    assert_null(g.content);
    assert_true(g.done);
    rig_grade_clear(NULL);
}

static int setup(void **state) {
    (void)state;
    strcpy(ws, "/tmp/rig-graders-XXXXXX");
    return mkdtemp(ws) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),        cmocka_unit_test(test_contains),
        cmocka_unit_test(test_regex),        cmocka_unit_test(test_json_equal),
        cmocka_unit_test(test_number),       cmocka_unit_test(test_one_of),
        cmocka_unit_test(test_placeholders), cmocka_unit_test(test_combinations),
        cmocka_unit_test(test_bad_specs),    cmocka_unit_test(test_files),
        cmocka_unit_test(test_command),      cmocka_unit_test(test_grade_frame),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
