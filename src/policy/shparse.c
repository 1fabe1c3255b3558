/* shparse.c — a shell command line as the simple commands it would run
 * (shparse.h), for the approval policy.
 *
 * A recursive descent over the POSIX shell's lexical rules, plus bash's
 * operators (|&, &>, &>>, <<<, <( ), >( ), $'...'). It does not run or
 * expand anything: it only has to know, for certain, which commands a line
 * runs and with which leading words. So it refuses, rather than guesses,
 * whatever could hide a command from that reading: control flow (if, for,
 * while, case, functions), here-documents, arithmetic, a substitution inside
 * ${...}, a command name built from an expansion, unbalanced quotes or
 * parentheses, nesting deeper than DEPTH_MAX, input longer than INPUT_MAX.
 * Refusing costs a question to the person; guessing could cost their home
 * directory. */
#include "policy/shparse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 32
#define INPUT_MAX (64 * 1024)

typedef struct parser {
    const char *p, *end;
    rig__sh_script *out;
    char *why;
    size_t cap;
    int depth;
    bool failed;
} parser;

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    if (ps->why && ps->cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->why, ps->cap, fmt, ap);
        va_end(ap);
    }
}

static bool text_add(parser *ps, text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *q = realloc(t->s, cap);
        if (!q) {
            fail(ps, "out of memory");
            return false;
        }
        t->s = q;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    return true;
}

static bool text_addc(parser *ps, text *t, char c) { return text_add(ps, t, &c, 1); }

static void cmd_free(rig__sh_cmd *c)
{
    for (size_t i = 0; i < c->nwords; i++)
        free(c->words[i].text);
    free(c->words);
    free(c->writes);
}

void rig__sh_script_free(rig__sh_script *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        cmd_free(&s->cmds[i]);
    free(s->cmds);
    s->cmds = NULL;
    s->n = 0;
}

static bool at_end(const parser *ps) { return ps->p >= ps->end; }

static char peek(const parser *ps, size_t k)
{
    return ps->p + k < ps->end ? ps->p[k] : '\0';
}

/* Characters that end an unquoted word. */
static bool delim(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' ||
           c == '>' || c == '(' || c == ')' || c == '\0';
}

/* Blanks and line continuations. */
static void skip_blanks(parser *ps)
{
    while (!at_end(ps)) {
        if (*ps->p == ' ' || *ps->p == '\t')
            ps->p++;
        else if (*ps->p == '\\' && peek(ps, 1) == '\n')
            ps->p += 2;
        else
            break;
    }
}

static void parse_list(parser *ps, char term);

/* $( ... ) or <( ... ) / >( ... ): at the '(' — the commands inside are
 * the script's too. */
static void parse_nested(parser *ps, const char *what)
{
    if (++ps->depth > DEPTH_MAX) {
        fail(ps, "it nests deeper than %d levels", DEPTH_MAX);
        return;
    }
    ps->p++; /* '(' */
    parse_list(ps, ')');
    if (!ps->failed) {
        if (at_end(ps) || *ps->p != ')')
            fail(ps, "a %s is not closed", what);
        else
            ps->p++;
    }
    ps->depth--;
}

/* `...`: at the opening backquote. The text between, with its \` \\ \$
 * escapes undone, is parsed as a command line of its own. */
static void parse_backquote(parser *ps)
{
    ps->p++;
    text inner = {0};
    for (;;) {
        if (at_end(ps)) {
            fail(ps, "a `...` command substitution is not closed");
            free(inner.s);
            return;
        }
        char c = *ps->p;
        if (c == '`') {
            ps->p++;
            break;
        }
        if (c == '\\' && (peek(ps, 1) == '`' || peek(ps, 1) == '\\' || peek(ps, 1) == '$')) {
            c = peek(ps, 1);
            ps->p++;
        }
        ps->p++;
        if (!text_addc(ps, &inner, c)) {
            free(inner.s);
            return;
        }
    }
    if (++ps->depth > DEPTH_MAX) {
        fail(ps, "it nests deeper than %d levels", DEPTH_MAX);
    } else if (inner.len) {
        parser sub = *ps;
        sub.p = inner.s;
        sub.end = inner.s + inner.len;
        parse_list(&sub, '\0');
        if (sub.failed)
            ps->failed = true; /* sub wrote the reason into the same buffer */
    }
    ps->depth--;
    free(inner.s);
}

/* A '$' in a word (or in double quotes): at the '$'. Appends what it reads
 * to `t` as written; an expansion makes the word not literal. */
static void parse_dollar(parser *ps, text *t, bool *literal)
{
    const char *start = ps->p;
    char c = peek(ps, 1);
    if (c == '(' && peek(ps, 2) == '(') {
        fail(ps, "it has arithmetic $((...)), which can hide a command");
        return;
    }
    if (c == '(') {
        ps->p++;
        parse_nested(ps, "$(...) command substitution");
        *literal = false;
    } else if (c == '{') {
        ps->p += 2;
        int level = 1;
        while (!at_end(ps) && level) {
            char d = *ps->p;
            if (d == '{')
                level++;
            else if (d == '}')
                level--;
            else if (d == '`' || ((d == '$' || d == '<' || d == '>') && peek(ps, 1) == '(')) {
                fail(ps, "it has a command inside ${...}");
                return;
            } else if (d == '@' && ps->p > start + 2) {
                /* ${x@P} expands a value as a prompt: $(...) in it runs */
                fail(ps, "it has a ${...@...} transformation");
                return;
            } else if (d == '\\' && peek(ps, 1)) {
                ps->p++;
            }
            ps->p++;
        }
        if (level) {
            fail(ps, "a ${...} is not closed");
            return;
        }
        *literal = false;
    } else if (c == '\'') {
        /* $'...': C escapes (\x72m is "rm"), so never taken as literal */
        ps->p += 2;
        while (!at_end(ps) && *ps->p != '\'') {
            if (*ps->p == '\\' && peek(ps, 1))
                ps->p++;
            ps->p++;
        }
        if (at_end(ps)) {
            fail(ps, "a $'...' string is not closed");
            return;
        }
        ps->p++;
        *literal = false;
    } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
        ps->p++;
        while (!at_end(ps) && ((*ps->p >= 'A' && *ps->p <= 'Z') ||
                               (*ps->p >= 'a' && *ps->p <= 'z') ||
                               (*ps->p >= '0' && *ps->p <= '9') || *ps->p == '_'))
            ps->p++;
        *literal = false;
    } else if ((c >= '0' && c <= '9') || (c && strchr("@*#?$!-", c))) {
        ps->p += 2;
        *literal = false;
    } else {
        ps->p++; /* a lone '$' is itself */
    }
    text_add(ps, t, start, (size_t)(ps->p - start));
}

/* "...": at the opening quote. */
static void parse_dquote(parser *ps, text *t, bool *literal)
{
    ps->p++;
    for (;;) {
        if (at_end(ps)) {
            fail(ps, "a \"...\" string is not closed");
            return;
        }
        char c = *ps->p;
        if (c == '"') {
            ps->p++;
            return;
        }
        if (c == '\\') {
            char n = peek(ps, 1);
            if (n == '\n') {
                ps->p += 2;
                continue;
            }
            if (n == '$' || n == '`' || n == '"' || n == '\\') {
                ps->p += 2;
                text_addc(ps, t, n);
                continue;
            }
            ps->p++;
            text_addc(ps, t, '\\');
        } else if (c == '$') {
            parse_dollar(ps, t, literal);
        } else if (c == '`') {
            parse_backquote(ps);
            text_add(ps, t, "`...`", 5);
            *literal = false;
        } else {
            ps->p++;
            text_addc(ps, t, c);
        }
        if (ps->failed)
            return;
    }
}

/* One word, at its first character (not a delimiter). */
static bool parse_word(parser *ps, rig__sh_word *w)
{
    text t = {0};
    bool literal = true;
    const char *start = ps->p;
    if (*ps->p == '~')
        literal = false; /* the home directory: not the word as written */
    while (!at_end(ps) && !ps->failed) {
        char c = *ps->p;
        if (delim(c)) {
            break;
        } else if (c == '\\') {
            char n = peek(ps, 1);
            if (n == '\n') {
                ps->p += 2;
                continue;
            }
            if (!n) {
                ps->p++;
                continue;
            }
            ps->p += 2;
            text_addc(ps, &t, n);
        } else if (c == '\'') {
            const char *q = memchr(ps->p + 1, '\'', (size_t)(ps->end - ps->p - 1));
            if (!q) {
                fail(ps, "a '...' string is not closed");
                break;
            }
            text_add(ps, &t, ps->p + 1, (size_t)(q - ps->p - 1));
            ps->p = q + 1;
        } else if (c == '"') {
            parse_dquote(ps, &t, &literal);
        } else if (c == '$') {
            parse_dollar(ps, &t, &literal);
        } else if (c == '`') {
            parse_backquote(ps);
            text_add(ps, &t, "`...`", 5);
            literal = false;
        } else {
            /* globs and brace expansion may make other words */
            if (c == '*' || c == '?' || c == '[' || c == '{' || c == '}')
                literal = false;
            ps->p++;
            text_addc(ps, &t, c);
        }
    }
    if (ps->failed) {
        free(t.s);
        return false;
    }
    if (!literal) {
        /* an expansion: the word as written, for messages and matching */
        t.len = 0;
        if (!text_add(ps, &t, start, (size_t)(ps->p - start))) {
            free(t.s);
            return false;
        }
    }
    if (!t.s && !text_add(ps, &t, "", 0))
        return false;
    w->text = t.s;
    w->literal = literal;
    return true;
}

static bool is_assignment(const rig__sh_word *w)
{
    const char *s = w->text;
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
           *s == '_')
        s++;
    return *s == '=' || (s[0] == '+' && s[1] == '=');
}

/* Words that start control flow, which this reading does not follow. */
static bool reserved(const char *s)
{
    static const char *const words[] = {"if",   "then",  "else",     "elif",   "fi",
                                        "for",  "while", "until",    "do",     "done",
                                        "case", "esac",  "function", "select", "coproc",
                                        "[[",   "]]",    "}"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcmp(s, words[i]) == 0)
            return true;
    return false;
}

static bool push_word(parser *ps, rig__sh_cmd *c, rig__sh_word w)
{
    rig__sh_word *v = realloc(c->words, (c->nwords + 1) * sizeof *v);
    if (!v) {
        free(w.text);
        fail(ps, "out of memory");
        return false;
    }
    c->words = v;
    c->words[c->nwords++] = w;
    return true;
}

/* A redirection, at its operator (after any fd digits). */
static void parse_redirection(parser *ps, rig__sh_cmd *c)
{
    bool out = false, dup = false;
    const char *p = ps->p;
    if (p[0] == '<' && peek(ps, 1) == '<' && peek(ps, 2) == '<') {
        ps->p += 3; /* <<< word: input */
    } else if (p[0] == '<' && peek(ps, 1) == '<') {
        fail(ps, "it has a here-document (<<), whose text this reading does not follow");
        return;
    } else if (p[0] == '<' && peek(ps, 1) == '>') {
        ps->p += 2;
        out = true;
    } else if (p[0] == '<' && peek(ps, 1) == '&') {
        ps->p += 2;
        dup = true;
    } else if (p[0] == '<') {
        ps->p += 1;
    } else if (p[0] == '&' && peek(ps, 1) == '>') {
        ps->p += peek(ps, 2) == '>' ? 3 : 2;
        out = true;
    } else if (p[0] == '>' && peek(ps, 1) == '&') {
        ps->p += 2;
        out = dup = true; /* >&word: a descriptor, or (bash) a file */
    } else if (p[0] == '>') {
        ps->p += (peek(ps, 1) == '>' || peek(ps, 1) == '|') ? 2 : 1;
        out = true;
    }
    skip_blanks(ps);
    if (at_end(ps) || delim(*ps->p)) {
        fail(ps, "a redirection has no target");
        return;
    }
    rig__sh_word w;
    if (!parse_word(ps, &w))
        return;
    bool fd = w.literal && w.text[0] && strspn(w.text, "0123456789-") == strlen(w.text);
    bool harmless = (dup && fd) || (w.literal && (strcmp(w.text, "/dev/null") == 0 ||
                                                  strcmp(w.text, "/dev/stdout") == 0 ||
                                                  strcmp(w.text, "/dev/stderr") == 0));
    if (out && !harmless && !c->writes)
        c->writes = w.text;
    else
        free(w.text);
}

/* A subshell ( ... ) or a group { ...; }: at the opener. Redirections
 * after the closer are read by the caller as a command of their own (no
 * words, and the file it writes), which is how the policy must see them. */
static void parse_enclosed(parser *ps, char close, const char *what)
{
    if (++ps->depth > DEPTH_MAX) {
        fail(ps, "it nests deeper than %d levels", DEPTH_MAX);
        return;
    }
    ps->p++;
    parse_list(ps, close);
    if (!ps->failed && (at_end(ps) || *ps->p != close))
        fail(ps, "a %s is not closed", what);
    else if (!ps->failed)
        ps->p++;
    ps->depth--;
}

/* A simple command (or a subshell, or a { group; }) up to a separator. */
static void parse_command(parser *ps, char term)
{
    if (*ps->p == '(' && peek(ps, 1) == '(') {
        fail(ps, "it has arithmetic ((...)), which can hide a command");
        return;
    }
    if (*ps->p == '(') {
        parse_enclosed(ps, ')', "( subshell )");
        return;
    }
    if (*ps->p == '{' && (peek(ps, 1) == ' ' || peek(ps, 1) == '\t' || peek(ps, 1) == '\n')) {
        parse_enclosed(ps, '}', "{ group; }");
        return;
    }
    rig__sh_cmd c = {0};
    for (;;) {
        skip_blanks(ps);
        if (ps->failed || at_end(ps))
            break;
        char d = *ps->p;
        if (d == '\n' || d == ';' || d == '|' || d == ')' || (d == term && term))
            break;
        if (d == '&' && peek(ps, 1) != '>')
            break;
        if (d == '#') {
            /* '#' starting a word starts a comment, to the line's end */
            while (!at_end(ps) && *ps->p != '\n')
                ps->p++;
            break;
        }
        if ((d == '<' || d == '>') && peek(ps, 1) == '(') {
            rig__sh_word w = {NULL, false};
            const char *w0 = ps->p;
            ps->p++;
            parse_nested(ps, "<(...) process substitution");
            if (ps->failed)
                break;
            w.text = strndup(w0, (size_t)(ps->p - w0));
            if (!w.text) {
                fail(ps, "out of memory");
                break;
            }
            if (!c.nwords) {
                free(w.text);
                fail(ps, "the command's name is a process substitution");
                break;
            }
            if (!push_word(ps, &c, w))
                break;
            continue;
        }
        size_t digits = 0;
        while (ps->p + digits < ps->end && ps->p[digits] >= '0' && ps->p[digits] <= '9')
            digits++;
        char r = peek(ps, digits);
        if (r == '<' || r == '>' || (digits == 0 && d == '&')) {
            ps->p += digits;
            parse_redirection(ps, &c);
            continue;
        }
        if (d == '(') {
            fail(ps, "a '(' stands where a word should (a function definition?)");
            break;
        }
        rig__sh_word w;
        if (!parse_word(ps, &w))
            break;
        if (!c.nwords && w.literal && strcmp(w.text, "!") == 0) {
            free(w.text); /* negates the status only */
            continue;
        }
        if (!c.nwords && is_assignment(&w)) {
            c.nassign++;
            free(w.text);
            continue;
        }
        if (!c.nwords) {
            if (!w.literal) {
                fail(ps, "the command's name '%s' is built from an expansion", w.text);
                free(w.text);
                break;
            }
            if (reserved(w.text) || strcmp(w.text, "{") == 0) {
                fail(ps, "it has '%s', control flow this reading does not follow", w.text);
                free(w.text);
                break;
            }
        }
        if (!push_word(ps, &c, w))
            break;
    }
    if (ps->failed || (!c.nwords && !c.writes && !c.nassign)) {
        cmd_free(&c);
        return;
    }
    rig__sh_cmd *v = realloc(ps->out->cmds, (ps->out->n + 1) * sizeof *v);
    if (!v) {
        fail(ps, "out of memory");
        cmd_free(&c);
        return;
    }
    ps->out->cmds = v;
    ps->out->cmds[ps->out->n++] = c;
}

/* Commands and separators up to `term` (')' or '}'; '\0': the end). */
static void parse_list(parser *ps, char term)
{
    bool need = false; /* after | || && |&: a command must follow */
    while (!ps->failed) {
        skip_blanks(ps);
        char c = at_end(ps) ? '\0' : *ps->p;
        if (need && (c == '\0' || (term && c == term) || c == ';' || c == '&' || c == ')' ||
                     (c == '|' && !(peek(ps, 1) == '|')))) {
            fail(ps, "an operator has no command after it");
            return;
        }
        if (at_end(ps))
            return;
        if (term && c == term)
            return;
        if (c == ')' || c == '}') {
            if (c == ')') {
                fail(ps, "a ')' closes nothing");
                return;
            }
        }
        if (c == '#') {
            while (!at_end(ps) && *ps->p != '\n')
                ps->p++;
            continue;
        }
        if (c == '\n' || c == ';' || c == '&' || c == '|') {
            if (c == ';' && peek(ps, 1) == ';') {
                fail(ps, "it has ';;', which belongs to case");
                return;
            }
            bool two = peek(ps, 1) == c || (c == '|' && peek(ps, 1) == '&');
            need = c == '|' || (two && c == '&');
            ps->p += two ? 2 : 1;
            continue;
        }
        const char *before = ps->p;
        need = false;
        parse_command(ps, term);
        if (!ps->failed && ps->p == before) {
            fail(ps, "it has '%c' where a command should start", c);
            return;
        }
    }
}

int rig__sh_parse(const char *src, size_t len, rig__sh_script *out, char *why, size_t cap)
{
    *out = (rig__sh_script){0};
    if (why && cap)
        why[0] = '\0';
    parser ps = {src, src + len, out, why, cap, 0, false};
    if (len > INPUT_MAX) {
        fail(&ps, "it is longer than %d bytes", INPUT_MAX);
        return -1;
    }
    if (memchr(src, '\0', len)) {
        fail(&ps, "it holds a NUL byte");
        return -1;
    }
    parse_list(&ps, '\0');
    if (ps.failed) {
        rig__sh_script_free(out);
        return -1;
    }
    return 0;
}
