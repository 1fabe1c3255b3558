/* graders.c — the built-in graders a taskset names in JSON, and the grade
 * frame they produce (REFERENCE 1-2).
 *
 * Every leaf grader scores 1.0 (pass) or 0.0 (fail); combinations compute
 * from their children and report them as subscores. Types:
 *
 *   exact         {"value": "42", "case_sensitive"?: true, "trim"?: true}
 *   contains      {"value": "x", "case_sensitive"?: true}
 *   regex         {"pattern": "^\\d+$", "case_sensitive"?: true, "multiline"?: false}
 *   json_equal    {"value": <any JSON>}
 *   number        {"value": 3.14 | "{arg}", "tolerance"?: 0, "relative"?: 0}
 *   one_of        {"values": [...], "case_sensitive"?: true, "trim"?: true}
 *   file_contains {"path": "src/x.c", "value": "fixed", "case_sensitive"?: true}
 *   file_matches  {"path": "src/x.c", "pattern": "...", "case_sensitive"?, "multiline"?: true}
 *   command       {"run": "make test", "timeout"?: 60}
 *   all | any     {"graders": [spec, ...]}
 *   weighted      {"graders": [{"weight": 2, "grader": spec}, ...]}
 * Any spec may carry "name" (its subscore's name) and "description".
 * Unknown members are errors, so a typo ("tolerence") is caught at load.
 *
 * Decisions:
 *   - String graders (exact, contains, regex, one_of's strings) read the
 *     answer's text: its content when that is a string, else its raw text.
 *     So a number answer 42 passes exact "42", and an object answer is
 *     matched as the JSON the agent sent.
 *   - exact and one_of trim ASCII whitespace at both ends of both sides
 *     unless "trim": false (models add newlines). Case-insensitive
 *     comparisons fold Unicode case (PCRE2 caseless, UTF mode).
 *   - json_equal compares by JSON value (1 == 1.0, key order ignored) with
 *     the answer's content; a string content that is itself JSON is parsed
 *     first when the expected value is not a string.
 *   - number reads a number content, or a string content holding exactly
 *     one JSON number (whitespace around allowed; "nan", "inf", "0x10",
 *     "1,000" are not numbers). It passes when |a - e| <= tolerance or
 *     |a - e| <= relative * |e| (each with a few ulps of slack for the
 *     rounding of decimal literals); with neither given, a == e.
 *   - Placeholders: in exact/contains/one_of strings, file paths and
 *     values, number's string value and command's run, "{name}" becomes the
 *     task's arg `name` (a string arg's text, any other arg's JSON text);
 *     "{{" and "}}" are literal braces; braces around anything that is not
 *     an identifier stay as written. In json_equal and one_of, a string
 *     that is exactly "{name}" becomes the arg's JSON value, whatever its
 *     type. In command's run, args are inserted single-quoted for the
 *     shell, so an arg cannot inject commands. Regex patterns are never
 *     substituted ("\d{3}" is regex syntax). A placeholder naming no arg
 *     gives an isError grade.
 *   - File graders resolve `path` beneath the workspace through rig_roots
 *     (openat2 RESOLVE_BENEATH): "..", absolute paths and symlinks out are
 *     isError grades; a missing file scores 0 (the agent did not make it);
 *     only regular files up to RIG_GRADER_FILE_MAX bytes are read.
 *     file_matches is multiline by default (^ and $ match at lines).
 *   - command runs `/bin/sh -c run` in the workspace in its own process
 *     group with the answer's raw text on stdin; exit 0 scores 1. Its
 *     timeout (and the whole grading's) kills the group: an isError grade.
 *     Sandboxed (the taskset's default), it may write only beneath the
 *     workspace and a private $TMPDIR (Landlock, as the shell tool): the
 *     agent wrote the code the command runs.
 *   - all scores the minimum of its children, any the maximum, weighted
 *     the weighted mean. A child's isError makes the parent's grade isError
 *     too (its score still counts the child as 0): a grader that could not
 *     grade must not pass for a wrong answer. The parent's content lists
 *     each child's content as "name: content" lines.
 *   - Subscores are named by the spec's "name", else its type; siblings
 *     that would share a name get "#i" (1-based) appended.
 */
#define _GNU_SOURCE
#include "env/graders.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env/workspace.h"
#include "util/environ.h"
#include "sandbox/landlock.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rig/roots.h"
#include "tools/shell_proc.h"
#include "util/buf.h"
#include "util/monotime.h"

typedef enum kind {
    K_EXACT, K_CONTAINS, K_REGEX, K_JSON_EQUAL, K_NUMBER, K_ONE_OF,
    K_FILE_CONTAINS, K_FILE_MATCHES, K_COMMAND, K_ALL, K_ANY, K_WEIGHTED
} kind;

struct rig__grader {
    kind k;
    const char *type;
    char *name;            /* spec's "name", or NULL */
    char *value;           /* template: exact, contains, file_contains; number as text */
    char *path;            /* template: file graders */
    char *run;             /* template: command */
    bool case_sensitive, trim;
    pcre2_code *re;        /* regex, file_matches */
    rig_json_doc *json;    /* json_equal's value, one_of's values (own copy) */
    double number;         /* number's value when given as a number */
    bool number_is_text;   /* number's value is a template in `value` */
    double tolerance, relative;
    int64_t timeout_ms;
    size_t n;              /* children */
    rig__grader **kids;
    double *weights;
};

/* ---------------------------------------------------------------- helpers */

static char *dupn(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* A malloc'd, NUL-terminated copy of string v's decoded text. */
static char *str_of(rig_json_val v, size_t *len) {
    size_t n = rig_json_str_len(v);
    char *p = malloc(n + 1);
    if (p)
        rig_json_str_copy(v, p, n + 1, NULL);
    if (len)
        *len = n;
    return p;
}

static bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void trim(const char **p, size_t *n) {
    while (*n && is_ws(**p))
        (*p)++, (*n)--;
    while (*n && is_ws((*p)[*n - 1]))
        (*n)--;
}

static bool ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

size_t rig__template_placeholder(const char *s, size_t n, size_t i) {
    if (s[i] != '{' || i + 1 >= n || !ident_start(s[i + 1]))
        return 0;
    size_t j = i + 1;
    while (j < n && ident_char(s[j]))
        j++;
    return j < n && s[j] == '}' ? j - i - 1 : 0;
}

static void add_shell_quoted(rig__buf *b, const char *s, size_t n) {
    rig__buf_addc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            rig__buf_adds(b, "'\\''");
        else
            rig__buf_addc(b, s[i]);
    }
    rig__buf_addc(b, '\'');
}

char *rig__template_expand(const char *who, const char *tpl, size_t n, rig_json_val args,
                          bool shell, size_t *out_len, char *why, size_t cap) {
    rig__buf b = {0};
    rig__buf_reserve(&b, n); /* allocates even for n == 0: the result is never NULL */
    for (size_t i = 0; i < n; i++) {
        size_t name_len;
        if ((tpl[i] == '{' || tpl[i] == '}') && i + 1 < n && tpl[i + 1] == tpl[i]) {
            rig__buf_addc(&b, tpl[i++]);
        } else if ((name_len = rig__template_placeholder(tpl, n, i)) > 0) {
            rig_json_val v = rig_json_getn(args, tpl + i + 1, name_len);
            if (!rig_json_exists(v)) {
                snprintf(why, cap, "%s refers to {%.*s}, but the task has no arg '%.*s'", who,
                         (int)name_len, tpl + i + 1, (int)name_len, tpl + i + 1);
                rig__buf_free(&b);
                return NULL;
            }
            size_t vl;
            char *tmp = NULL;
            const char *vp;
            if (rig_json_is_string(v)) {
                vp = tmp = str_of(v, &vl);
                if (!tmp)
                    b.oom = true;
            } else {
                vp = rig_json_raw(v, &vl);
            }
            if (vp) {
                if (shell)
                    add_shell_quoted(&b, vp, vl);
                else
                    rig__buf_add(&b, vp, vl);
            }
            free(tmp);
            i += name_len + 1;
        } else {
            rig__buf_addc(&b, tpl[i]);
        }
    }
    if (b.oom || !b.p) {
        snprintf(why, cap, "out of memory expanding the placeholders");
        rig__buf_free(&b);
        return NULL;
    }
    *out_len = b.len;
    return b.p;
}

static char *expand(const char *tpl, size_t n, rig_json_val args, bool shell, size_t *out_len,
                    char *why, size_t cap) {
    return rig__template_expand("the grader", tpl, n, args, shell, out_len, why, cap);
}

/* Write v with placeholders expanded: a string that is exactly "{name}"
 * becomes the arg's value, other strings are expanded as text. */
static int write_expanded(rig_json_writer *w, rig_json_val v, rig_json_val args, char *why,
                          size_t cap) {
    switch (rig_json_typeof(v)) {
    case RIG_JSON_STRING: {
        size_t n;
        char *s = str_of(v, &n);
        if (!s)
            return snprintf(why, cap, "out of memory"), -1;
        size_t nl = n > 2 ? rig__template_placeholder(s, n, 0) : 0;
        int rc = 0;
        if (nl && nl + 2 == n) {
            rig_json_val a = rig_json_getn(args, s + 1, nl);
            if (!rig_json_exists(a)) {
                snprintf(why, cap, "the grader refers to {%.*s}, but the task has no arg '%.*s'",
                         (int)nl, s + 1, (int)nl, s + 1);
                rc = -1;
            } else {
                rig_json_write_value(w, a);
            }
        } else {
            size_t el;
            char *e = expand(s, n, args, false, &el, why, cap);
            if (e)
                rig_json_write_stringn(w, e, el);
            else
                rc = -1;
            free(e);
        }
        free(s);
        return rc;
    }
    case RIG_JSON_ARRAY: {
        rig_json_write_array_begin(w);
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val e;
        while (rig_json_iter_next(&it, &e))
            if (write_expanded(w, e, args, why, cap) < 0)
                return -1;
        return rig_json_write_array_end(w), 0;
    }
    case RIG_JSON_OBJECT: {
        rig_json_write_object_begin(w);
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val k, e;
        while (rig_json_iter_member(&it, &k, &e)) {
            rig_json_write_keyv(w, k);
            if (write_expanded(w, e, args, why, cap) < 0)
                return -1;
        }
        return rig_json_write_object_end(w), 0;
    }
    default:
        return rig_json_write_value(w, v), 0;
    }
}

/* A private document of v with placeholders expanded; NULL with why. */
static rig_json_doc *expanded_doc(rig_json_val v, rig_json_val args, char *why, size_t cap) {
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_doc *d = NULL;
    if (write_expanded(&w, v, args, why, cap) == 0) {
        size_t n;
        const char *t = rig_json_writer_finish(&w, &n);
        static const rig_json_options o = {.flags = RIG_JSON_COPY_INPUT};
        d = t ? rig_json_parse(t, n, &o, NULL) : NULL;
        if (!d)
            snprintf(why, cap, "out of memory expanding the grader's value");
    }
    rig_json_writer_free(&w);
    return d;
}

/* The text string graders read: a string content's text, else raw. */
static char *answer_text(const rig_answer *a, size_t *n) {
    if (rig_json_is_string(a->content))
        return str_of(a->content, n);
    *n = a->raw_len;
    return dupn(a->raw ? a->raw : "", a->raw_len);
}

/* ---------------------------------------------------------------- grades */

void rig_grade_clear(rig_grade *g) {
    if (!g)
        return;
    free(g->content);
    free(g->info_json);
    free(g->subscores_json);
    memset(g, 0, sizeof *g);
    g->done = true;
}

int rig_grade_write(const rig_grade *g, rig_json_writer *w) {
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "score");
    rig_json_write_double(w, isfinite(g->score) ? g->score : 0.0);
    if (!g->done) {
        rig_json_write_key(w, "done");
        rig_json_write_bool(w, false);
    }
    if (g->content) {
        rig_json_write_key(w, "content");
        rig_json_write_string(w, g->content);
    }
    if (g->info_json) {
        rig_json_write_key(w, "info");
        rig_json_write_raw(w, g->info_json, strlen(g->info_json));
    }
    if (g->is_error) {
        rig_json_write_key(w, "isError");
        rig_json_write_bool(w, true);
    }
    if (g->subscores_json) {
        rig_json_write_key(w, "subscores");
        rig_json_write_raw(w, g->subscores_json, strlen(g->subscores_json));
    }
    return rig_json_write_object_end(w);
}

static void set_content(rig_grade *g, const char *fmt, va_list ap) {
    free(g->content);
    if (vasprintf(&g->content, fmt, ap) < 0)
        g->content = NULL;
}

static void verdict(rig_grade *g, bool pass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void verdict(rig_grade *g, bool pass, const char *fmt, ...) {
    g->score = pass ? 1.0 : 0.0;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        set_content(g, fmt, ap);
        va_end(ap);
    }
}

static void grade_error(rig_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void grade_error(rig_grade *g, const char *fmt, ...) {
    g->score = 0.0;
    g->is_error = true;
    va_list ap;
    va_start(ap, fmt);
    set_content(g, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- regexes */

static uint32_t utf_opts(void) {
#ifdef PCRE2_MATCH_INVALID_UTF
    return PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
#else
    return PCRE2_UTF | PCRE2_NO_UTF_CHECK;
#endif
}

static pcre2_code *compile(const char *p, size_t n, uint32_t opts, char *why, size_t cap) {
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, n, opts | utf_opts(), &ec, &eo, NULL);
    if (!re) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(ec, msg, sizeof msg);
        snprintf(why, cap, "bad pattern at offset %zu: %s", (size_t)eo, (const char *)msg);
    }
    return re;
}

/* 1 match, 0 none, -1 with why (match limit, memory). */
static int match(const pcre2_code *re, const char *s, size_t n, char *why, size_t cap) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    int rc = -1;
    if (!md || !mc) {
        snprintf(why, cap, "out of memory matching");
        goto out;
    }
    pcre2_set_match_limit(mc, RIG_GRADER_MATCH_LIMIT);
    pcre2_set_depth_limit(mc, RIG_GRADER_DEPTH_LIMIT);
    int r = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, mc);
    if (r >= 0) {
        rc = 1;
    } else if (r == PCRE2_ERROR_NOMATCH) {
        rc = 0;
    } else {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(r, msg, sizeof msg);
        snprintf(why, cap, "the pattern gave up: %s", (const char *)msg);
    }
out:
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    return rc;
}

/* Find needle in hay (or, with whole, hay equals needle), folding case as
 * case_sensitive says. 1, 0, or -1 with why. */
static int find(const char *hay, size_t hn, const char *needle, size_t nn, bool whole,
                bool case_sensitive, char *why, size_t cap) {
    if (case_sensitive) {
        if (whole)
            return hn == nn && memcmp(hay, needle, nn) == 0;
        return nn == 0 || memmem(hay, hn, needle, nn) != NULL;
    }
    if (nn == 0 && !whole)
        return 1;
    uint32_t o = PCRE2_LITERAL | PCRE2_CASELESS | (whole ? PCRE2_ANCHORED | PCRE2_ENDANCHORED : 0);
    pcre2_code *re = compile(needle, nn, o, why, cap);
    if (!re)
        return -1;
    int rc = match(re, hay, hn, why, cap);
    pcre2_code_free(re);
    return rc;
}

/* ---------------------------------------------------------------- parsing */

typedef struct spec_type {
    const char *name;
    kind k;
    const char *keys; /* members allowed besides type, name, description; space-separated */
} spec_type;

static const spec_type types[] = {
    {"exact", K_EXACT, "value case_sensitive trim"},
    {"contains", K_CONTAINS, "value case_sensitive"},
    {"regex", K_REGEX, "pattern case_sensitive multiline"},
    {"json_equal", K_JSON_EQUAL, "value"},
    {"number", K_NUMBER, "value tolerance relative"},
    {"one_of", K_ONE_OF, "values case_sensitive trim"},
    {"file_contains", K_FILE_CONTAINS, "path value case_sensitive"},
    {"file_matches", K_FILE_MATCHES, "path pattern case_sensitive multiline"},
    {"command", K_COMMAND, "run timeout"},
    {"all", K_ALL, "graders"},
    {"any", K_ANY, "graders"},
    {"weighted", K_WEIGHTED, "graders"},
};

static bool key_allowed(const char *keys, const char *k, size_t kn) {
    if ((kn == 4 && !memcmp(k, "type", 4)) || (kn == 4 && !memcmp(k, "name", 4)) ||
        (kn == 11 && !memcmp(k, "description", 11)))
        return true;
    for (const char *p = keys; *p;) {
        size_t l = strcspn(p, " ");
        if (l == kn && !memcmp(p, k, kn))
            return true;
        p += l;
        while (*p == ' ')
            p++;
    }
    return false;
}

void rig__grader_free(rig__grader *g) {
    if (!g)
        return;
    free(g->name);
    free(g->value);
    free(g->path);
    free(g->run);
    pcre2_code_free(g->re);
    rig_json_doc_free(g->json);
    for (size_t i = 0; i < g->n; i++)
        rig__grader_free(g->kids[i]);
    free(g->kids);
    free(g->weights);
    free(g);
}

/* Say what is wrong with a spec; false, so a parser can `return BAD(...)`. */
static bool bad(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool bad(char *why, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}
#define BAD(...) bad(why, cap, __VA_ARGS__)

static bool get_bool(rig_json_val spec, const char *key, bool dflt, bool *out, char *why,
                     size_t cap) {
    rig_json_val v = rig_json_get(spec, key);
    *out = dflt;
    if (rig_json_exists(v) && rig_json_get_bool(v, out) != 0)
        return BAD("'%s' must be true or false", key);
    return true;
}

/* A required text member; a number is taken as its JSON text. */
static bool get_text(rig_json_val spec, const char *key, char **out, char *why, size_t cap) {
    rig_json_val v = rig_json_get(spec, key);
    if (!rig_json_exists(v))
        return BAD("missing '%s'", key);
    if (rig_json_is_string(v))
        *out = str_of(v, NULL);
    else if (rig_json_is_number(v)) {
        size_t n;
        const char *p = rig_json_raw(v, &n);
        *out = dupn(p, n);
    } else
        return BAD("'%s' must be a string", key);
    return *out ? true : BAD("out of memory");
}

static bool get_nonneg(rig_json_val spec, const char *key, double *out, char *why, size_t cap) {
    rig_json_val v = rig_json_get(spec, key);
    *out = 0;
    if (!rig_json_exists(v))
        return true;
    if (rig_json_get_double(v, out) != 0 || !isfinite(*out))
        return BAD("'%s' must be a number", key);
    if (*out < 0)
        return BAD("'%s' must be >= 0", key);
    return true;
}

static bool get_pattern(rig__grader *g, rig_json_val spec, bool multiline_default, char *why,
                        size_t cap) {
    rig_json_val v = rig_json_get(spec, "pattern");
    if (!rig_json_exists(v))
        return BAD("missing 'pattern'");
    if (!rig_json_is_string(v))
        return BAD("'pattern' must be a string");
    bool ml;
    if (!get_bool(spec, "multiline", multiline_default, &ml, why, cap))
        return false;
    size_t n;
    char *p = str_of(v, &n);
    if (!p)
        return BAD("out of memory");
    uint32_t o = (g->case_sensitive ? 0 : PCRE2_CASELESS) | (ml ? PCRE2_MULTILINE : 0);
    g->re = compile(p, n, o, why, cap);
    free(p);
    return g->re != NULL;
}

static bool get_path(rig__grader *g, rig_json_val spec, char *why, size_t cap) {
    if (!get_text(spec, "path", &g->path, why, cap))
        return false;
    if (g->path[0] == '\0')
        return BAD("'path' must not be empty");
    if (g->path[0] == '/')
        return BAD("'path' must be relative to the workspace, not '%s'", g->path);
    return true;
}

static rig__grader *parse_at(rig_json_val spec, int depth, char *why, size_t cap);

static bool parse_children(rig__grader *g, rig_json_val spec, int depth, char *why, size_t cap) {
    rig_json_val list = rig_json_get(spec, "graders");
    if (!rig_json_exists(list))
        return BAD("missing 'graders'");
    if (!rig_json_is_array(list) || rig_json_len(list) == 0)
        return BAD("'graders' must be a non-empty array");
    g->n = rig_json_len(list);
    g->kids = calloc(g->n, sizeof *g->kids);
    g->weights = calloc(g->n, sizeof *g->weights);
    if (!g->kids || !g->weights) {
        g->n = 0;
        return BAD("out of memory");
    }
    rig_json_iter it = rig_json_iter_init(list);
    rig_json_val e;
    char inner[RIG_ERROR_MESSAGE_MAX];
    for (size_t i = 0; rig_json_iter_next(&it, &e); i++) {
        rig_json_val child = e;
        g->weights[i] = 1.0;
        if (g->k == K_WEIGHTED) {
            if (!rig_json_is_object(e))
                return BAD("graders[%zu] must be an object {\"weight\", \"grader\"}", i);
            rig_json_iter mi = rig_json_iter_init(e);
            rig_json_val k, v;
            while (rig_json_iter_member(&mi, &k, &v))
                if (!rig_json_str_eq(k, "weight") && !rig_json_str_eq(k, "grader"))
                    return BAD("graders[%zu]: unknown member (only 'weight' and 'grader')", i);
            rig_json_val w = rig_json_get(e, "weight");
            if (!rig_json_exists(w))
                return BAD("graders[%zu]: missing 'weight'", i);
            if (rig_json_get_double(w, &g->weights[i]) != 0 || !isfinite(g->weights[i]))
                return BAD("graders[%zu]: 'weight' must be a number", i);
            if (g->weights[i] <= 0)
                return BAD("graders[%zu]: 'weight' must be > 0", i);
            child = rig_json_get(e, "grader");
            if (!rig_json_exists(child))
                return BAD("graders[%zu]: missing 'grader'", i);
        }
        g->kids[i] = parse_at(child, depth + 1, inner, sizeof inner);
        if (!g->kids[i])
            return BAD("graders[%zu]%s: %s", i, g->k == K_WEIGHTED ? ".grader" : "", inner);
    }
    return true;
}

/* The members of g's type, into g. */
static bool parse_fields(rig__grader *g, rig_json_val spec, int depth, char *why, size_t cap) {
    bool ok = true;
    switch (g->k) {
    case K_EXACT:
    case K_CONTAINS:
        ok = get_text(spec, "value", &g->value, why, cap);
        break;
    case K_REGEX:
        ok = get_pattern(g, spec, false, why, cap);
        break;
    case K_JSON_EQUAL:
    case K_ONE_OF: {
        const char *key = g->k == K_ONE_OF ? "values" : "value";
        rig_json_val val = rig_json_get(spec, key);
        if (!rig_json_exists(val)) {
            ok = BAD("missing '%s'", key);
            break;
        }
        if (g->k == K_ONE_OF && (!rig_json_is_array(val) || rig_json_len(val) == 0)) {
            ok = BAD("'values' must be a non-empty array");
            break;
        }
        size_t n;
        const char *raw = rig_json_raw(val, &n);
        static const rig_json_options o = {.flags = RIG_JSON_COPY_INPUT};
        if (!(g->json = rig_json_parse(raw, n, &o, NULL)))
            ok = BAD("out of memory");
        break;
    }
    case K_NUMBER: {
        rig_json_val val = rig_json_get(spec, "value");
        if (!rig_json_exists(val))
            ok = BAD("missing 'value'");
        else if (rig_json_is_string(val)) {
            g->number_is_text = true;
            ok = (g->value = str_of(val, NULL)) != NULL || BAD("out of memory");
        } else if (rig_json_get_double(val, &g->number) != 0)
            ok = BAD("'value' must be a number or a \"{arg}\" string");
        ok = ok && get_nonneg(spec, "tolerance", &g->tolerance, why, cap) &&
             get_nonneg(spec, "relative", &g->relative, why, cap);
        break;
    }
    case K_FILE_CONTAINS:
        ok = get_path(g, spec, why, cap) &&
             get_text(spec, "value", &g->value, why, cap);
        break;
    case K_FILE_MATCHES:
        ok = get_path(g, spec, why, cap) &&
             get_pattern(g, spec, true, why, cap);
        break;
    case K_COMMAND: {
        rig_json_val run = rig_json_get(spec, "run");
        if (!rig_json_is_string(run) || rig_json_str_len(run) == 0) {
            ok = BAD(rig_json_exists(run) ? "'run' must be a non-empty string"
                                          : "missing 'run'");
            break;
        }
        if (!(g->run = str_of(run, NULL))) {
            ok = BAD("out of memory");
            break;
        }
        double secs = RIG_GRADER_COMMAND_TIMEOUT_MS / 1000.0;
        rig_json_val to = rig_json_get(spec, "timeout");
        if (rig_json_exists(to) &&
            (rig_json_get_double(to, &secs) != 0 || !(secs > 0) || secs > 86400))
            ok = BAD("'timeout' must be a number of seconds in (0, 86400]");
        g->timeout_ms = (int64_t)(secs * 1000);
        if (g->timeout_ms < 1)
            g->timeout_ms = 1;
        break;
    }
    case K_ALL:
    case K_ANY:
    case K_WEIGHTED:
        ok = parse_children(g, spec, depth, why, cap);
        break;
    }
    return ok;
}

static rig__grader *parse_at(rig_json_val spec, int depth, char *why, size_t cap) {
    if (depth > RIG_GRADER_MAX_DEPTH)
        return BAD("graders nested deeper than %d", RIG_GRADER_MAX_DEPTH), NULL;
    if (!rig_json_is_object(spec))
        return BAD("a grader must be an object with a \"type\""), NULL;
    rig_json_val t = rig_json_get(spec, "type");
    if (!rig_json_exists(t))
        return BAD("missing 'type'"), NULL;
    const spec_type *st = NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (rig_json_str_eq(t, types[i].name))
            st = &types[i];
    if (!st) {
        size_t n;
        const char *raw = rig_json_raw(t, &n);
        return BAD("unknown grader type %.*s (exact, contains, regex, json_equal, number, "
                   "one_of, file_contains, file_matches, command, all, any, weighted)",
                   (int)(n > 60 ? 60 : n), raw),
               NULL;
    }
    rig_json_iter it = rig_json_iter_init(spec);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        size_t kn;
        const char *kp = rig_json_raw(k, &kn); /* quoted; escapes make it unknown, fine */
        if (!key_allowed(st->keys, kp + 1, kn - 2))
            return BAD("%s grader: unknown member %.*s (allowed: %s)", st->name,
                       (int)(kn > 60 ? 60 : kn), kp, st->keys),
                   NULL;
    }
    rig__grader *g = calloc(1, sizeof *g);
    if (!g)
        return BAD("out of memory"), NULL;
    g->k = st->k;
    g->type = st->name;
    char inner[RIG_ERROR_MESSAGE_MAX] = "";
    bool ok = true;
    rig_json_val name = rig_json_get(spec, "name");
    if (rig_json_exists(name)) {
        if (!rig_json_is_string(name) || rig_json_str_len(name) == 0)
            ok = BAD("'name' must be a non-empty string");
        else if (!(g->name = str_of(name, NULL)))
            ok = BAD("out of memory");
    }
    ok = ok && get_bool(spec, "case_sensitive", true, &g->case_sensitive, inner, sizeof inner) &&
         get_bool(spec, "trim", true, &g->trim, inner, sizeof inner);
    ok = ok && parse_fields(g, spec, depth, inner, sizeof inner);
    if (!ok) {
        if (inner[0])
            snprintf(why, cap, "%s grader: %s", st->name, inner);
        rig__grader_free(g);
        return NULL;
    }
    return g;
}

rig__grader *rig__grader_parse(rig_json_val spec, char *why, size_t cap) {
    char tmp[1];
    if (!why || cap == 0)
        why = tmp, cap = sizeof tmp;
    why[0] = '\0';
    return parse_at(spec, 1, why, cap);
}

/* ---------------------------------------------------------------- running */

typedef struct ctx {
    const rig_answer *a;
    rig_json_val args;
    const char *ws;
    int64_t deadline;
    bool sandbox;
    bool (*cancelled)(void *ud);
    void *cancel_ud;
} ctx;

static void run_at(const rig__grader *g, const ctx *c, rig_grade *out);

static void run_text(const rig__grader *g, const ctx *c, rig_grade *out) {
    char why[RIG_ERROR_MESSAGE_MAX];
    size_t an, en;
    char *ans = answer_text(c->a, &an);
    char *exp = expand(g->value, strlen(g->value), c->args, false, &en, why, sizeof why);
    if (!ans || !exp) {
        grade_error(out, "%s", exp || !ans ? "out of memory" : why);
        goto out;
    }
    const char *ap = ans, *ep = exp;
    if (g->k == K_EXACT && g->trim) {
        trim(&ap, &an);
        trim(&ep, &en);
    }
    int r = find(ap, an, ep, en, g->k == K_EXACT, g->case_sensitive, why, sizeof why);
    if (r < 0)
        grade_error(out, "%s", why);
    else if (g->k == K_EXACT)
        verdict(out, r, r ? NULL : "the answer is not the expected text");
    else
        verdict(out, r, r ? NULL : "the answer does not contain the expected text");
out:
    free(ans);
    free(exp);
}

static void run_regex(const rig__grader *g, const ctx *c, rig_grade *out) {
    char why[RIG_ERROR_MESSAGE_MAX];
    size_t n;
    char *ans = answer_text(c->a, &n);
    int r = ans ? match(g->re, ans, n, why, sizeof why) : (snprintf(why, sizeof why, "out of memory"), -1);
    if (r < 0)
        grade_error(out, "%s", why);
    else
        verdict(out, r, r ? NULL : "the answer does not match the pattern");
    free(ans);
}

/* Does the answer's content equal `exp` by JSON value? A string content
 * holding JSON is compared parsed when exp is no string. */
static bool json_matches(rig_json_val content, rig_json_val exp) {
    if (rig_json_equal(content, exp))
        return true;
    if (!rig_json_is_string(content) || rig_json_is_string(exp))
        return false;
    size_t n;
    char *s = str_of(content, &n);
    rig_json_doc *d = s ? rig_json_parse(s, n, NULL, NULL) : NULL;
    bool eq = d && rig_json_equal(rig_json_doc_root(d), exp);
    rig_json_doc_free(d);
    free(s);
    return eq;
}

static void run_json_equal(const rig__grader *g, const ctx *c, rig_grade *out) {
    char why[RIG_ERROR_MESSAGE_MAX];
    rig_json_doc *exp = expanded_doc(rig_json_doc_root(g->json), c->args, why, sizeof why);
    if (!exp)
        return grade_error(out, "%s", why);
    bool eq = json_matches(c->a->content, rig_json_doc_root(exp));
    verdict(out, eq, eq ? NULL : "the answer is not the expected JSON value");
    rig_json_doc_free(exp);
}

static void run_one_of(const rig__grader *g, const ctx *c, rig_grade *out) {
    char why[RIG_ERROR_MESSAGE_MAX];
    rig_json_doc *vals = expanded_doc(rig_json_doc_root(g->json), c->args, why, sizeof why);
    size_t an;
    char *ans = vals ? answer_text(c->a, &an) : NULL;
    if (!vals || !ans) {
        grade_error(out, "%s", vals ? "out of memory" : why);
        goto out;
    }
    const char *ap = ans;
    if (g->trim)
        trim(&ap, &an);
    rig_json_iter it = rig_json_iter_init(rig_json_doc_root(vals));
    rig_json_val v;
    while (rig_json_iter_next(&it, &v)) {
        int r;
        if (rig_json_is_string(v)) {
            size_t en;
            char *e = str_of(v, &en);
            if (!e) {
                grade_error(out, "out of memory");
                goto out;
            }
            const char *ep = e;
            if (g->trim)
                trim(&ep, &en);
            r = find(ap, an, ep, en, true, g->case_sensitive, why, sizeof why);
            free(e);
            if (r < 0) {
                grade_error(out, "%s", why);
                goto out;
            }
        } else {
            r = json_matches(c->a->content, v);
        }
        if (r) {
            verdict(out, true, NULL);
            goto out;
        }
    }
    verdict(out, false, "the answer is none of the accepted values");
out:
    free(ans);
    rig_json_doc_free(vals);
}

/* One JSON number in text (whitespace around allowed). */
static bool number_in(const char *s, size_t n, double *out) {
    trim(&s, &n);
    rig_json_doc *d = n ? rig_json_parse(s, n, NULL, NULL) : NULL;
    rig_json_val v = rig_json_doc_root(d);
    bool ok = rig_json_is_number(v) && rig_json_get_double(v, out) == 0 && isfinite(*out);
    rig_json_doc_free(d);
    return ok;
}

static void run_number(const rig__grader *g, const ctx *c, rig_grade *out) {
    double e = g->number, a;
    if (g->number_is_text) {
        char why[RIG_ERROR_MESSAGE_MAX];
        size_t n;
        char *s = expand(g->value, strlen(g->value), c->args, false, &n, why, sizeof why);
        if (!s)
            return grade_error(out, "%s", why);
        bool ok = number_in(s, n, &e);
        free(s);
        if (!ok)
            return grade_error(out, "the expected value '%s' is not a number", g->value);
    }
    rig_json_val v = c->a->content;
    bool have;
    if (rig_json_is_number(v)) {
        have = rig_json_get_double(v, &a) == 0 && isfinite(a);
    } else if (rig_json_is_string(v)) {
        size_t n;
        char *s = str_of(v, &n);
        if (!s)
            return grade_error(out, "out of memory");
        have = number_in(s, n, &a);
        free(s);
    } else {
        have = false;
    }
    if (!have)
        return verdict(out, false, "the answer is not a number");
    double d = fabs(a - e);
    /* a few ulps of slack, so 3.13 is within 0.01 of 3.14 */
    double slack = 8 * DBL_EPSILON * (fabs(a) > fabs(e) ? fabs(a) : fabs(e));
    bool pass = a == e || d <= g->tolerance + slack || d <= g->relative * fabs(e) + slack;
    verdict(out, pass, pass ? NULL : "the answer is not within tolerance of the expected number");
}

/* Read path beneath the workspace. 1 with *buf, 0 when there is no such
 * file (why says so), -1 on anything else (why). */
static int read_confined(const char *ws, const char *path, char **buf, size_t *len, char *why,
                         size_t cap) {
    *buf = NULL;
    if (path[0] == '/')
        return snprintf(why, cap, "'%s' is not a path relative to the workspace", path), -1;
    rig_roots *roots = rig_roots_new();
    rig_error err = {0};
    int rc = -1, fd = -1, eno = 0;
    if (!roots) {
        snprintf(why, cap, "out of memory");
        goto out;
    }
    if (rig_roots_add(roots, ws, &err) != 0) {
        snprintf(why, cap, "the workspace cannot be opened: %.300s", err.message);
        goto out;
    }
    fd = rig_roots_open(roots, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0, &eno, &err);
    if (fd < 0) {
        if (fd == RIG_ENOENT || eno == ENOENT) {
            snprintf(why, cap, "there is no file '%s' in the workspace", path);
            rc = 0;
        } else {
            snprintf(why, cap, "cannot read '%.200s': %.280s", path, err.message);
        }
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, cap, "'%s' is not a regular file", path);
        goto out;
    }
    if ((size_t)st.st_size > RIG_GRADER_FILE_MAX) {
        snprintf(why, cap, "'%s' is larger than the %zu bytes a grader reads", path,
                 (size_t)RIG_GRADER_FILE_MAX);
        goto out;
    }
    /* read up to the cap, whatever the size said: the file may grow */
    rig__buf b = {0};
    rig__buf_reserve(&b, (size_t)st.st_size);
    for (;;) {
        if (!rig__buf_reserve(&b, 65536))
            break;
        ssize_t n = read(fd, b.p + b.len, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        b.len += (size_t)n;
        b.p[b.len] = '\0';
        if (b.len > RIG_GRADER_FILE_MAX)
            break;
    }
    if (b.oom || b.len > RIG_GRADER_FILE_MAX) {
        snprintf(why, cap, b.oom ? "out of memory reading '%s'" : "'%s' is too large", path);
        rig__buf_free(&b);
        goto out;
    }
    *buf = b.p ? b.p : strdup("");
    *len = b.len;
    rc = *buf ? 1 : -1;
out:
    if (fd >= 0)
        close(fd);
    rig_roots_free(roots);
    return rc;
}

static void run_file(const rig__grader *g, const ctx *c, rig_grade *out) {
    if (!c->ws)
        return grade_error(out, "a %s grader needs the task's workspace, and there is none",
                           g->type);
    char why[RIG_ERROR_MESSAGE_MAX];
    size_t pn, vn = 0, fn;
    char *path = expand(g->path, strlen(g->path), c->args, false, &pn, why, sizeof why);
    char *val = NULL, *file = NULL;
    if (!path || (g->value && !(val = expand(g->value, strlen(g->value), c->args, false, &vn,
                                             why, sizeof why)))) {
        grade_error(out, "%s", why);
        goto out;
    }
    int r = read_confined(c->ws, path, &file, &fn, why, sizeof why);
    if (r <= 0) {
        if (r == 0)
            verdict(out, false, "%s", why);
        else
            grade_error(out, "%s", why);
        goto out;
    }
    if (g->k == K_FILE_CONTAINS)
        r = find(file, fn, val, vn, false, g->case_sensitive, why, sizeof why);
    else
        r = match(g->re, file, fn, why, sizeof why);
    if (r < 0)
        grade_error(out, "%s", why);
    else if (!r)
        verdict(out, false, "'%s' does not %s", path,
                g->k == K_FILE_CONTAINS ? "contain the expected text" : "match the pattern");
    else
        verdict(out, true, NULL);
out:
    free(path);
    free(val);
    free(file);
}

/* A command grader's confinement: writes only beneath the workspace and a
 * private $TMPDIR (compilers and test runners write temporary files),
 * which is removed after the command. Without Landlock in the kernel the
 * command runs unconfined, as the shell tool does. */
typedef struct grader_sandbox {
    int ruleset;
    char tmp[64];
    char *tmpdir_env; /* "TMPDIR=<tmp>" */
    char **envp;      /* borrows it */
} grader_sandbox;

static void sandbox_close(grader_sandbox *sb) {
    rig__landlock_release(sb->ruleset);
    sb->ruleset = -1;
    if (sb->tmp[0]) {
        char ignored[64];
        rig__tree_remove(sb->tmp, ignored, sizeof ignored);
        sb->tmp[0] = '\0';
    }
    free(sb->envp);
    sb->envp = NULL;
    free(sb->tmpdir_env);
    sb->tmpdir_env = NULL;
}

static int sandbox_open(grader_sandbox *sb, const char *ws, char *why, size_t cap) {
    snprintf(sb->tmp, sizeof sb->tmp, "/tmp/rig-grader-XXXXXX");
    if (!mkdtemp(sb->tmp)) {
        snprintf(why, cap, "cannot make a $TMPDIR: %s", strerror(errno));
        sb->tmp[0] = '\0';
        return -1;
    }
    if (asprintf(&sb->tmpdir_env, "TMPDIR=%s", sb->tmp) < 0)
        sb->tmpdir_env = NULL;
    if (!sb->tmpdir_env || !(sb->envp = rig__environ_with_tmpdir(sb->tmpdir_env, NULL))) {
        snprintf(why, cap, "out of memory");
        sandbox_close(sb);
        return -1;
    }
    const char *dirs[2] = {ws, sb->tmp};
    int rc = rig__landlock_prepare(dirs, 2, &sb->ruleset, why, cap);
    if (rc < 0) {
        sandbox_close(sb);
        return -1;
    }
    return 0; /* RIG_LANDLOCK_ABSENT: unconfined, as the shell tool runs then */
}

static void run_command(const rig__grader *g, const ctx *c, rig_grade *out) {
    if (!c->ws)
        return grade_error(out, "a command grader needs the task's workspace, and there is none");
    int64_t left = c->deadline - rig__now_ms();
    if (left <= 0)
        return grade_error(out, "no time was left to run '%s'", g->run);
    int64_t to = g->timeout_ms < left ? g->timeout_ms : left;
    char why[RIG_ERROR_MESSAGE_MAX];
    size_t n;
    char *cmd = expand(g->run, strlen(g->run), c->args, true, &n, why, sizeof why);
    if (!cmd)
        return grade_error(out, "%s", why);
    rig__proc_opts o = {.command = cmd, .cwd = c->ws, .landlock_fd = -1, .timeout_ms = to,
                        .cap = 4096, .stdin_data = c->a->raw, .stdin_len = c->a->raw_len};
    grader_sandbox sb = {.ruleset = -1};
    if (c->sandbox && sandbox_open(&sb, c->ws, why, sizeof why) != 0) {
        grade_error(out, "the command '%s' could not be sandboxed: %s", g->run, why);
        free(cmd);
        return;
    }
    o.landlock_fd = sb.ruleset;
    o.envp = sb.envp;
    o.cancelled = c->cancelled;
    o.cancel_ud = c->cancel_ud;
    rig__proc_result r;
    int started = rig__proc_run(&o, &r, why, sizeof why);
    sandbox_close(&sb);
    if (started != 0) {
        grade_error(out, "the command '%s' could not start: %s", g->run, why);
        free(cmd);
        return;
    }
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "exit_code");
    rig_json_write_int(&w, r.exit_code);
    rig_json_write_key(&w, "stdout");
    rig_json_write_stringn(&w, r.out.text, r.out.len);
    rig_json_write_key(&w, "stderr");
    rig_json_write_stringn(&w, r.err.text, r.err.len);
    rig_json_write_object_end(&w);
    out->info_json = rig_json_writer_detach(&w, NULL);
    rig_json_writer_free(&w);
    if (r.timed_out)
        grade_error(out, "the command '%s' timed out after %.3g s and was killed", g->run,
                    (double)to / 1000.0);
    else if (r.cancelled)
        grade_error(out, "the command '%s' was killed: the grading was abandoned", g->run);
    else if (r.exit_code == 0)
        verdict(out, true, NULL);
    else
        verdict(out, false, "the command '%s' exited with status %d", g->run, r.exit_code);
    rig__proc_result_free(&r);
    free(cmd);
}

/* The name of child i's subscore; into buf. */
static const char *child_name(const rig__grader *g, size_t i, char *buf, size_t cap) {
    const rig__grader *k = g->kids[i];
    const char *base = k->name ? k->name : k->type;
    for (size_t j = 0; j < g->n; j++) {
        const rig__grader *o = g->kids[j];
        if (j != i && !strcmp(o->name ? o->name : o->type, base)) {
            snprintf(buf, cap, "%s#%zu", base, i + 1);
            return buf;
        }
    }
    return base;
}

static void run_combo(const rig__grader *g, const ctx *c, rig_grade *out) {
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig__buf content = {0};
    double sum = 0, wsum = 0, best = 0, worst = 1;
    bool error = false;
    rig_json_write_array_begin(&w);
    for (size_t i = 0; i < g->n; i++) {
        rig_grade kg = RIG_GRADE_INIT;
        run_at(g->kids[i], c, &kg);
        double s = isfinite(kg.score) ? kg.score : 0.0;
        s = kg.is_error ? 0.0 : s < 0 ? 0.0 : s > 1 ? 1.0 : s;
        sum += g->weights[i] * s;
        wsum += g->weights[i];
        best = s > best ? s : best;
        worst = s < worst ? s : worst;
        error |= kg.is_error;
        char nb[96];
        const char *name = child_name(g, i, nb, sizeof nb);
        rig_json_write_object_begin(&w);
        rig_json_write_key(&w, "name");
        rig_json_write_string(&w, name);
        rig_json_write_key(&w, "weight");
        rig_json_write_double(&w, g->weights[i]);
        rig_json_write_key(&w, "value");
        rig_json_write_double(&w, s);
        if (kg.subscores_json) {
            rig_json_write_key(&w, "children");
            rig_json_write_raw(&w, kg.subscores_json, strlen(kg.subscores_json));
        }
        if (kg.info_json) {
            rig_json_write_key(&w, "info");
            rig_json_write_raw(&w, kg.info_json, strlen(kg.info_json));
        }
        rig_json_write_object_end(&w);
        if (kg.content)
            rig__buf_addf(&content, "%s%s: %s", content.len ? "\n" : "", name, kg.content);
        rig_grade_clear(&kg);
    }
    rig_json_write_array_end(&w);
    out->subscores_json = rig_json_writer_detach(&w, NULL);
    rig_json_writer_free(&w);
    out->score = g->k == K_ALL ? worst : g->k == K_ANY ? best : sum / wsum;
    out->is_error = error;
    if (content.oom || !out->subscores_json) {
        rig__buf_free(&content);
        return grade_error(out, "out of memory grading");
    }
    out->content = content.p; /* NULL when no child said anything */
}

static void run_at(const rig__grader *g, const ctx *c, rig_grade *out) {
    switch (g->k) {
    case K_EXACT:
    case K_CONTAINS:
        return run_text(g, c, out);
    case K_REGEX:
        return run_regex(g, c, out);
    case K_JSON_EQUAL:
        return run_json_equal(g, c, out);
    case K_NUMBER:
        return run_number(g, c, out);
    case K_ONE_OF:
        return run_one_of(g, c, out);
    case K_FILE_CONTAINS:
    case K_FILE_MATCHES:
        return run_file(g, c, out);
    case K_COMMAND:
        return run_command(g, c, out);
    case K_ALL:
    case K_ANY:
    case K_WEIGHTED:
        return run_combo(g, c, out);
    }
}

int rig__grader_run(const rig__grader *g, const rig_answer *a, rig_json_val args,
                    const char *workspace_dir, int64_t timeout_ms, bool sandbox,
                    bool (*cancelled)(void *ud), void *cancel_ud, rig_grade *out) {
    *out = (rig_grade)RIG_GRADE_INIT;
    if (!g || !a) {
        grade_error(out, "no grader or no answer");
        return out->content ? RIG_OK : RIG_ENOMEM;
    }
    ctx c = {.a = a, .args = args, .ws = workspace_dir, .sandbox = sandbox,
             .cancelled = cancelled, .cancel_ud = cancel_ud,
             .deadline = rig__now_ms() + (timeout_ms > 0 ? timeout_ms : RIG_GRADER_TIMEOUT_MS)};
    run_at(g, &c, out);
    /* an error grade whose explanation could not be allocated */
    return out->is_error && !out->content ? RIG_ENOMEM : RIG_OK;
}
