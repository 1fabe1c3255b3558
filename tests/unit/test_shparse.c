/* test_shparse.c — the approval policy's shell parser (src/policy/shparse.h),
 * table-driven: for each command line, the simple commands it must yield
 * or that it must be refused (-1, with a reason).
 *
 * What a row expects of each simple command, as the header says:
 *   words    the command name and its arguments only: NAME=value words
 *            before the name are not among them, they are counted in
 *            nassign; redirections and their targets are not words either;
 *   literal  per word ('L' literal, 'x' not): literal when quote removal
 *            alone gives its value ("a b" for 'a b'); a word with an
 *            expansion ($x, ${x}, $'..', $(..), `..`, <(..), a glob, ~,
 *            braces) is not, and its text is the word as written;
 *   nassign  the NAME=value words before the name;
 *   writes   the first file an output redirection writes (> >> &> >| 2>),
 *            after quote removal; NULL when there is none (2>&1, >&2,
 *            >/dev/null and < f write no file).
 * The commands inside $(...), `...`, (...), {...;}, <(...) and >(...) are
 * listed too. The order of the list is not checked (the header does not
 * say where a substitution's commands stand beside the command holding
 * it): each expected command must match a different listed one.
 *
 * Every input is parsed from an exact-length malloc'd copy with no NUL
 * after it, so a sanitizer catches a read past `len`. After the table,
 * inputs the parser must survive without a verdict fixed in advance
 * (deep nesting, random strings). */
#define _GNU_SOURCE
#include <stdbool.h>

#include "testing.h"

#include "policy/shparse.h"

#define MAXW 8
#define MAXC 6

typedef struct want_cmd {
    const char *w[MAXW]; /* the words, NULL-ended */
    const char *lit;     /* one letter a word: 'L' literal, 'x' not */
    size_t nassign;
    const char *writes;  /* NULL: none */
} want_cmd;

typedef struct sh_case {
    const char *src;
    int rc;       /* 0 or -1 */
    size_t n;     /* commands, when rc is 0 */
    want_cmd c[MAXC];
} sh_case;

/* A command with words only; one with assignments and a written file. */
#define C(lit_, ...) {.w = {__VA_ARGS__}, .lit = (lit_)}
#define CA(lit_, nassign_, writes_, ...)                                                   \
    {.w = {__VA_ARGS__}, .lit = (lit_), .nassign = (nassign_), .writes = (writes_)}
#define OK(src_, n_, ...) {.src = (src_), .rc = 0, .n = (n_), .c = {__VA_ARGS__}}
#define BAD(src_) {.src = (src_), .rc = -1}

static const sh_case cases[] = {
    /* Plain words. */
    OK("ls", 1, C("L", "ls")),
    OK("ls -la /tmp", 1, C("LLL", "ls", "-la", "/tmp")),
    OK("  ls\t-la  ", 1, C("LL", "ls", "-la")),
    OK("", 0),
    OK("   \n\t \n", 0),
    OK("# only a comment", 0),
    OK("git log --oneline -5", 1, C("LLLL", "git", "log", "--oneline", "-5")),

    /* Quotes and backslashes: quote removal gives a literal word. */
    OK("echo 'a b'", 1, C("LL", "echo", "a b")),
    OK("echo \"a\\\"b\"", 1, C("LL", "echo", "a\"b")),
    OK("echo a\\ b", 1, C("LL", "echo", "a b")),
    OK("echo 'a\\b'", 1, C("LL", "echo", "a\\b")),
    OK("echo \"a\\b\"", 1, C("LL", "echo", "a\\b")),
    OK("echo \"a\\\\b\"", 1, C("LL", "echo", "a\\b")),
    OK("echo \"a'b\" 'c\"d'", 1, C("LLL", "echo", "a'b", "c\"d")),
    OK("echo ''", 1, C("LL", "echo", "")),
    OK("echo \"\" x", 1, C("LLL", "echo", "", "x")),
    OK("echo a\"\"b'c'd", 1, C("LL", "echo", "abcd")),
    OK("'e'ch\"o\" x", 1, C("LL", "echo", "x")),
    OK("\\rm x", 1, C("LL", "rm", "x")),
    OK("echo '$(rm x)'", 1, C("LL", "echo", "$(rm x)")),
    OK("echo \"\\$(rm x)\"", 1, C("LL", "echo", "$(rm x)")),
    OK("echo '`rm x`'", 1, C("LL", "echo", "`rm x`")),
    OK("echo \\$HOME", 1, C("LL", "echo", "$HOME")),
    OK("echo '*.c' \\*", 1, C("LLL", "echo", "*.c", "*")),
    OK("echo 'a;b' \"c|d\" e\\&f", 1, C("LLLL", "echo", "a;b", "c|d", "e&f")),
    OK("echo \"a\\\nb\"", 1, C("LL", "echo", "ab")),

    /* Lists and pipelines. */
    OK("a; b", 2, C("L", "a"), C("L", "b")),
    OK("a & b", 2, C("L", "a"), C("L", "b")),
    OK("a &", 1, C("L", "a")),
    OK("a && b || c", 3, C("L", "a"), C("L", "b"), C("L", "c")),
    OK("a | b |& c", 3, C("L", "a"), C("L", "b"), C("L", "c")),
    OK("a\nb\n\nc\n", 3, C("L", "a"), C("L", "b"), C("L", "c")),
    OK("a;b&&c||d|e", 5, C("L", "a"), C("L", "b"), C("L", "c"), C("L", "d"), C("L", "e")),
    OK("a x |\nb y", 2, C("LL", "a", "x"), C("LL", "b", "y")),
    OK("a &&\n\nb", 2, C("L", "a"), C("L", "b")),
    OK("a ||\n# note\nb", 2, C("L", "a"), C("L", "b")),

    /* Subshells and groups. */
    OK("( a; b )", 2, C("L", "a"), C("L", "b")),
    OK("{ a; b; }", 2, C("L", "a"), C("L", "b")),
    OK("(a)|(b)", 2, C("L", "a"), C("L", "b")),
    OK("{ a x; } && (b y)", 2, C("LL", "a", "x"), C("LL", "b", "y")),
    OK("( (a) )", 1, C("L", "a")),

    /* Command and process substitutions: the inner commands are listed,
     * the word holding one is not literal. */
    OK("echo $(a)", 2, C("Lx", "echo", "$(a)"), C("L", "a")),
    OK("echo `a`", 2, C("Lx", "echo", "`a`"), C("L", "a")),
    OK("echo $(a $(b))", 3, C("Lx", "echo", "$(a $(b))"), C("Lx", "a", "$(b)"), C("L", "b")),
    OK("echo \"x $(a; b) y\"", 3, C("Lx", "echo", "\"x $(a; b) y\""), C("L", "a"),
       C("L", "b")),
    OK("echo pre$(a)post", 2, C("Lx", "echo", "pre$(a)post"), C("L", "a")),
    OK("echo $(a | b; c)", 4, C("Lx", "echo", "$(a | b; c)"), C("L", "a"), C("L", "b"),
       C("L", "c")),
    OK("echo $( (a) )", 2, C("Lx", "echo", "$( (a) )"), C("L", "a")),
    OK("echo $(echo ')')", 2, C("Lx", "echo", "$(echo ')')"), C("LL", "echo", ")")),
    OK("echo \"`a x`\"", 2, C("Lx", "echo", "\"`a x`\""), C("LL", "a", "x")),
    OK("diff <(a) <(b x)", 3, C("Lxx", "diff", "<(a)", "<(b x)"), C("L", "a"),
       C("LL", "b", "x")),
    OK("tee >(a) > f", 2, CA("Lx", 0, "f", "tee", ">(a)"), C("L", "a")),
    OK("A=$(b) c", 2, CA("L", 1, NULL, "c"), C("L", "b")),

    /* Redirections. */
    OK("a > f", 1, CA("L", 0, "f", "a")),
    OK("a >> f", 1, CA("L", 0, "f", "a")),
    OK("a &> f", 1, CA("L", 0, "f", "a")),
    OK("a >| f", 1, CA("L", 0, "f", "a")),
    OK("a 2> f", 1, CA("L", 0, "f", "a")),
    OK("a 2>&1", 1, CA("L", 0, NULL, "a")),
    OK("a >&2", 1, CA("L", 0, NULL, "a")),
    OK("a >/dev/null", 1, CA("L", 0, NULL, "a")),
    OK("a > /dev/null 2>&1", 1, CA("L", 0, NULL, "a")),
    OK("a < f", 1, CA("L", 0, NULL, "a")),
    OK("a>f", 1, CA("L", 0, "f", "a")),
    OK("> f a x", 1, CA("LL", 0, "f", "a", "x")),
    OK("a 2 > f", 1, CA("LL", 0, "f", "a", "2")),
    OK("a x2>f", 1, CA("LL", 0, "f", "a", "x2")),
    OK("a > f > g", 1, CA("L", 0, "f", "a")),
    OK("a < in > out", 1, CA("L", 0, "out", "a")),
    OK("a 2>/dev/null > out", 1, CA("L", 0, "out", "a")),
    OK("a > 'my file'", 1, CA("L", 0, "my file", "a")),
    OK("a > f; b", 2, CA("L", 0, "f", "a"), CA("L", 0, NULL, "b")),
    OK("a | b >> log", 2, CA("L", 0, NULL, "a"), CA("L", 0, "log", "b")),

    /* Assignments: counted in nassign, not among the words. */
    OK("A=1 B=2 cmd x", 1, CA("LL", 2, NULL, "cmd", "x")),
    OK("A=1 cmd B=2", 1, CA("LL", 1, NULL, "cmd", "B=2")),
    OK("A='a b' cmd", 1, CA("L", 1, NULL, "cmd")),
    OK("A=1", 1, CA("", 1, NULL, NULL)),
    OK("1A=x cmd", 1, CA("LL", 0, NULL, "1A=x", "cmd")),

    /* Comments. */
    OK("a # b; c", 1, C("L", "a")),
    OK("a#b", 1, C("L", "a#b")),
    OK("a #x\nb", 2, C("L", "a"), C("L", "b")),
    OK("echo '#' \"#\" \\#", 1, C("LLLL", "echo", "#", "#", "#")),
    OK("a;# b", 1, C("L", "a")),

    /* Line continuation. */
    OK("a \\\nb", 1, C("LL", "a", "b")),
    OK("ec\\\nho x", 1, C("LL", "echo", "x")),
    OK("a\\\n; b", 2, C("L", "a"), C("L", "b")),

    /* Expansions and globs: not literal, kept as written. */
    OK("echo $VAR", 1, C("Lx", "echo", "$VAR")),
    OK("echo ${VAR}", 1, C("Lx", "echo", "${VAR}")),
    OK("echo $'a\\tb'", 1, C("Lx", "echo", "$'a\\tb'")),
    OK("ls *.c a?b [ab]", 1, C("Lxxx", "ls", "*.c", "a?b", "[ab]")),
    OK("echo \"$HOME\"/x", 1, C("Lx", "echo", "\"$HOME\"/x")),
    OK("echo ~ ~/x", 1, C("Lxx", "echo", "~", "~/x")),
    OK("echo a{b,c}", 1, C("Lx", "echo", "a{b,c}")),
    OK("echo ${x:-y}", 1, C("Lx", "echo", "${x:-y}")),
    OK("echo $1 $@ $? $$", 1, C("Lxxxx", "echo", "$1", "$@", "$?", "$$")),

    /* What cannot be read for certain. */
    BAD("cat <<EOF\nx\nEOF\n"),
    BAD("cat <<-EOF\n\tx\n\tEOF"),
    BAD("cat << 'EOF'\nx\nEOF"),
    BAD("echo $((1+2))"),
    BAD("x=$((1))"),
    BAD("((x++))"),
    BAD("if a; then b; fi"),
    BAD("for i in a b; do c; done"),
    BAD("while a; do b; done"),
    BAD("until a; do b; done"),
    BAD("case x in x) a;; esac"),
    BAD("f() { a; }"),
    BAD("echo 'abc"),
    BAD("echo \"abc"),
    BAD("echo $(a"),
    BAD("echo `a"),
    BAD("echo ${x"),
    BAD("echo $(a))"),
    BAD("(a"),
    BAD("a |"),
    BAD("a &&"),
    BAD("a && { b; } | $(c"),
    BAD("$CMD x"),
    BAD("$(echo rm) -rf /"),
    BAD("`echo rm` -rf /"),
    BAD("\"$CMD\" x"),
    BAD("${CMD} x"),
    BAD("$'\\x72m' -rf /"),
    BAD("*.sh"),
    BAD("~/bin/x"),
    BAD("A=1 $CMD"),
    BAD("echo ${x:-$(rm)}"),
    BAD("echo \"${x:-`rm`}\""),
    BAD("echo ${x/$(a)/b}"),
    BAD("a; $CMD"),
    BAD("echo $(a; $CMD)"),
};

/* The input with control characters shown, for messages. */
static const char *shown(const char *s, size_t len) {
    static char buf[1024];
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < sizeof buf; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\n");
        else if (c == '\t')
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\t");
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    buf[o] = '\0';
    return buf;
}

/* What the parser listed, for messages. */
static const char *dump(const rig__sh_script *s) {
    static char buf[2048];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && o < sizeof buf - 1; i++) {
        const rig__sh_cmd *c = &s->cmds[i];
        o += (size_t)snprintf(buf + o, sizeof buf - o, "\n    [%zu] nassign=%zu writes=%s:", i,
                              c->nassign, c->writes ? c->writes : "(none)");
        for (size_t j = 0; j < c->nwords && o < sizeof buf - 1; j++)
            o += (size_t)snprintf(buf + o, sizeof buf - o, " %s<%s>",
                                  c->words[j].literal ? "L" : "x",
                                  c->words[j].text ? c->words[j].text : "(null)");
        if (o >= sizeof buf)
            o = sizeof buf - 1;
    }
    return buf;
}

static bool same_cmd(const rig__sh_cmd *got, const want_cmd *w) {
    size_t nw = 0;
    while (nw < MAXW && w->w[nw])
        nw++;
    if (got->nwords != nw || got->nassign != w->nassign)
        return false;
    if ((got->writes == NULL) != (w->writes == NULL))
        return false;
    if (w->writes && strcmp(got->writes, w->writes) != 0)
        return false;
    for (size_t j = 0; j < nw; j++) {
        if (!got->words[j].text || strcmp(got->words[j].text, w->w[j]) != 0)
            return false;
        if (got->words[j].literal != (w->lit[j] == 'L'))
            return false;
    }
    return true;
}

/* Does each expected command match a different listed one? (Greedy is
 * enough: two expected commands that match the same listed ones are
 * equal.) */
static bool same_script(const rig__sh_script *s, const sh_case *k) {
    if (s->n != k->n)
        return false;
    bool used[MAXC] = {false};
    for (size_t i = 0; i < k->n; i++) {
        bool found = false;
        for (size_t j = 0; j < s->n && !found; j++)
            if (!used[j] && same_cmd(&s->cmds[j], &k->c[i]))
                used[j] = found = true;
        if (!found)
            return false;
    }
    return true;
}

/* Every row is tried; each failure is printed with its input, and the test
 * fails at the end with their number. */
static void test_table(void **state) {
    (void)state;
    size_t ncases = sizeof cases / sizeof cases[0];
    assert_true(ncases >= 50);
    size_t failures = 0;
    for (size_t i = 0; i < ncases; i++) {
        const sh_case *k = &cases[i];
        size_t len = strlen(k->src);
        char *src = exact_copy(k->src, len);
        rig__sh_script s;
        memset(&s, 0xA5, sizeof s);
        char why[256];
        why[0] = '\0';
        int rc = rig__sh_parse(src, len, &s, why, sizeof why);
        if (k->rc == -1) {
            if (rc != -1) {
                print_error("case %zu: \"%s\": want -1, got %d:%s\n", i, shown(k->src, len), rc,
                            rc == 0 ? dump(&s) : "");
                failures++;
            } else if (why[0] == '\0' || !memchr(why, '\0', sizeof why)) {
                print_error("case %zu: \"%s\": -1 without a NUL-ended reason\n", i,
                            shown(k->src, len));
                failures++;
            }
            if (rc == 0)
                rig__sh_script_free(&s);
        } else if (rc != 0) {
            print_error("case %zu: \"%s\": want 0 and %zu commands, got %d (%s)\n", i,
                        shown(k->src, len), k->n, rc, why);
            failures++;
        } else {
            if (!same_script(&s, k)) {
                print_error("case %zu: \"%s\": want %zu commands, got %zu:%s\n", i,
                            shown(k->src, len), k->n, s.n, dump(&s));
                failures++;
            }
            rig__sh_script_free(&s);
        }
        free(src);
    }
    if (failures)
        fail_msg("%zu of %zu cases failed", failures, ncases);
}

/* The bytes after `len` are not read: "a; b" cut to "a" is one command,
 * and "echo 'x'" cut inside the quotes is unterminated. */
static void test_len_respected(void **state) {
    (void)state;
    char why[128];
    rig__sh_script s;
    assert_int_equal(rig__sh_parse("a; b", 1, &s, why, sizeof why), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.cmds[0].nwords, 1);
    assert_string_equal(s.cmds[0].words[0].text, "a");
    rig__sh_script_free(&s);

    assert_int_equal(rig__sh_parse("echo 'x'", 7, &s, why, sizeof why), -1);
    assert_int_equal(rig__sh_parse("", 0, &s, why, sizeof why), 0);
    assert_int_equal(s.n, 0);
    rig__sh_script_free(&s);
}

/* A small `why` is cut, NUL-ended; a zero cap is not written. */
static void test_why_cap(void **state) {
    (void)state;
    rig__sh_script s;
    char why[5];
    memset(why, 'Z', sizeof why);
    assert_int_equal(rig__sh_parse("$CMD", 4, &s, why, sizeof why), -1);
    assert_non_null(memchr(why, '\0', sizeof why));
    char none = 'Z';
    assert_int_equal(rig__sh_parse("$CMD", 4, &s, &none, 0), -1);
    assert_int_equal(none, 'Z');
}

/* Deep nesting of each kind: 0 or -1, never a crash (the sanitizers and
 * valgrind watch the stack and the heap). */
static void test_deep_nesting(void **state) {
    (void)state;
    static const char *const open[] = {"(", "{ ", "$(", "echo \"$(", "<("};
    static const char *const close[] = {")", "; }", ")", ")\"", ")"};
    const int depth = 20000;
    for (size_t k = 0; k < sizeof open / sizeof open[0]; k++) {
        size_t lo = strlen(open[k]), lc = strlen(close[k]);
        size_t len = (size_t)depth * (lo + lc) + 1;
        char *src = malloc(len);
        assert_non_null(src);
        size_t o = 0;
        for (int d = 0; d < depth; d++, o += lo)
            memcpy(src + o, open[k], lo);
        src[o++] = 'a';
        for (int d = 0; d < depth; d++, o += lc)
            memcpy(src + o, close[k], lc);
        char why[128];
        rig__sh_script s;
        int rc = rig__sh_parse(src, o, &s, why, sizeof why);
        if (rc != 0 && rc != -1)
            fail_msg("nesting %s...: rc %d", open[k], rc);
        if (rc == 0)
            rig__sh_script_free(&s);
        free(src);
    }
}

/* Random strings of shell's special characters: 0 or -1; when 0, every
 * command has its words' texts, a writes that is NULL or a string, and
 * no command name that is not literal. */
static void test_random(void **state) {
    (void)state;
    static const char alpha[] = "ab $(){}`'\"\\;&|<>#=*~\n\t-012";
    rng = 0x5eed;
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = rnd_below(24);
        char *src = malloc(len ? len : 1);
        assert_non_null(src);
        for (size_t i = 0; i < len; i++)
            src[i] = alpha[rnd_below(sizeof alpha - 1)];
        char why[128];
        rig__sh_script s;
        int rc = rig__sh_parse(src, len, &s, why, sizeof why);
        if (rc != 0 && rc != -1)
            fail_msg("\"%s\": rc %d", shown(src, len), rc);
        if (rc == 0) {
            for (size_t i = 0; i < s.n; i++) {
                const rig__sh_cmd *c = &s.cmds[i];
                for (size_t j = 0; j < c->nwords; j++)
                    if (!c->words[j].text)
                        fail_msg("\"%s\": a word without text", shown(src, len));
                if (c->nwords > 0 && !c->words[0].literal)
                    fail_msg("\"%s\": accepted a command name that is not literal:%s",
                             shown(src, len), dump(&s));
            }
            rig__sh_script_free(&s);
        } else if (why[0] == '\0') {
            fail_msg("\"%s\": -1 without a reason", shown(src, len));
        }
        free(src);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),        cmocka_unit_test(test_len_respected),
        cmocka_unit_test(test_why_cap),      cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
