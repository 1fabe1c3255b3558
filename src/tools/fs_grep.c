/* fs_grep.c — `grep`: search file contents with a regular expression
 * (PCRE2, JIT-compiled) under a directory or in one file inside the roots
 * (rig/roots.h).
 *
 * The walk is glob's: children opened relative to their directory's
 * descriptor with O_NOFOLLOW (symlinks are never followed, nothing outside
 * the roots is reached), `.git` skipped, .gitignore files honoured
 * (rig__ignore) and hidden names skipped unless no_ignore. Each directory's
 * entries are sorted by name before they are visited, so results come out
 * in path order and paging (offset, head_limit) is deterministic and can
 * stop early.
 *
 * Files are mapped read-only (at most FILE_MAX bytes); a NUL in the first
 * 8 KiB makes a file binary, and binary files are skipped. Lines are
 * matched in place (subject = the line in the mapping, no copy); with
 * multiline the pattern runs over the whole file (PCRE2_MULTILINE |
 * PCRE2_DOTALL) and every line a match touches counts as matching. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "core/internal.h"
#include "rig/json.h"
#include "tools/builtins.h"
#include "tools/fs.h"

#define VISIT_MAX 500000           /* entries looked at before giving up */
#define DEPTH_MAX 64               /* directory levels entered */
#define FILE_MAX (64u << 20)       /* larger files are skipped */
#define SNIFF 8192                 /* bytes looked at for a NUL */
#define HEAD_DEFAULT 250
#define CTX_MAX 100                /* lines of context at most */
#define LINE_SHOW_MAX 2000         /* longer lines are cut in content mode */

enum mode { M_FILES, M_CONTENT, M_COUNT };

typedef struct outbuf {
    char *p;
    size_t len, cap;
    bool oom;
} outbuf;

typedef struct grepper {
    rig_call *call;
    pcre2_code *re;
    pcre2_match_data *md;
    enum mode mode;
    bool multiline, numbers, no_ignore;
    const char *glob;              /* file name filter, or NULL */
    bool glob_path;                /* the filter has a '/': match the relative path */
    size_t before, after;
    size_t offset, limit;
    const char *shown_prefix;      /* the path as given, for output */
    size_t prefix_len;
    const char *sep;
    rig__ignore *ig;
    char rel[PATH_MAX];
    size_t rel_len;
    outbuf out;
    size_t seen;                   /* result lines produced (shown or not) */
    size_t files_searched, files_matched, binary, too_big, unreadable, ignored, visited;
    bool truncated, stopped, too_deep, cancelled, match_error;
} grepper;

static void out_add(outbuf *o, const char *s, size_t n) {
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n + 1)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void out_fmt(outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_fmt(outbuf *o, const char *fmt, ...) {
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        out_add(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Start a result line: false when it falls outside the page (then nothing
 * is to be written). Sets truncated, and so stops the search, at the first
 * line past the page. */
static bool line_begin(grepper *g) {
    if (g->seen >= g->offset + g->limit) {
        g->truncated = true;
        return false;
    }
    return g->seen++ >= g->offset;
}

static void out_path(grepper *g) {
    if (g->prefix_len) {
        out_add(&g->out, g->shown_prefix, g->prefix_len);
        if (g->rel_len)
            out_add(&g->out, g->sep, strlen(g->sep));
    }
    out_add(&g->out, g->rel, g->rel_len);
}

/* One line of content output: `mark` ':' for a match, '-' for context. */
static void emit_line(grepper *g, const char *line, size_t len, size_t lineno, char mark) {
    if (!line_begin(g))
        return;
    out_path(g);
    out_add(&g->out, &mark, 1);
    if (g->numbers) {
        out_fmt(&g->out, "%zu", lineno);
        out_add(&g->out, &mark, 1);
    }
    if (len && line[len - 1] == '\r')
        len--;
    if (len > LINE_SHOW_MAX) {
        out_add(&g->out, line, LINE_SHOW_MAX);
        out_fmt(&g->out, " [... %zu more bytes]", len - LINE_SHOW_MAX);
    } else {
        out_add(&g->out, line, len);
    }
    out_add(&g->out, "\n", 1);
}

static void emit_sep(grepper *g) {
    if (line_begin(g))
        out_add(&g->out, "--\n", 3);
}

/* pcre2_match on [s, s+n) from `start`: 1 match, 0 none, -1 error. */
static int run_match(grepper *g, const char *s, size_t n, size_t start) {
    int rc = pcre2_match(g->re, (PCRE2_SPTR)s, n, start, 0, g->md, NULL);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    g->match_error = true; /* e.g. match limit: count the file as not matching */
    return -1;
}

typedef struct ring_ent {
    size_t start, len, lineno;
} ring_ent;

/* Search the `n` bytes at buf (the file at g->rel). */
static void search_buf(grepper *g, const char *buf, size_t n) {
    size_t count = 0, printed_to = 0; /* last line number printed (0: none) */
    size_t after_left = 0;
    ring_ent ring[CTX_MAX];
    size_t rhead = 0, rlen = 0;
    /* multiline: the current match, as the byte range of the lines it marks */
    size_t mfrom = 0, mto = 0;     /* match start, and last byte it marks */
    bool have_m = false, m_done = false;
    size_t msearch = 0;

    size_t lineno = 0;
    for (size_t ls = 0; ls < n && !g->truncated && !g->cancelled;) {
        lineno++;
        const char *nl = memchr(buf + ls, '\n', n - ls);
        size_t le = nl ? (size_t)(nl - buf) : n; /* end, without the newline */
        size_t next = nl ? le + 1 : n;
        bool hit;
        if (g->multiline) {
            while (!m_done && (!have_m || mto < ls)) {
                int rc = msearch <= n ? run_match(g, buf, n, msearch) : 0;
                if (rc <= 0) {
                    m_done = true;
                    have_m = false;
                    break;
                }
                PCRE2_SIZE *ov = pcre2_get_ovector_pointer(g->md);
                mfrom = ov[0];
                mto = ov[1] > ov[0] ? ov[1] - 1 : ov[0];
                have_m = true;
                if (ov[1] > ov[0]) {
                    msearch = ov[1];
                } else {
                    /* empty match: go on at the next line */
                    const char *e = memchr(buf + ov[0], '\n', n - ov[0]);
                    msearch = e ? (size_t)(e - buf) + 1 : n + 1;
                }
            }
            hit = have_m && mfrom <= le && mto >= ls;
        } else {
            hit = run_match(g, buf + ls, le - ls, 0) > 0;
        }
        if (hit) {
            count++;
            if (g->mode == M_FILES)
                break;
            if (g->mode == M_CONTENT) {
                size_t first = rlen ? ring[(rhead + CTX_MAX - rlen) % CTX_MAX].lineno : lineno;
                if (printed_to && first > printed_to + 1 && (g->before || g->after))
                    emit_sep(g);
                for (size_t k = rlen; k > 0; k--) {
                    ring_ent *r = &ring[(rhead + CTX_MAX - k) % CTX_MAX];
                    emit_line(g, buf + r->start, r->len, r->lineno, '-');
                }
                rlen = 0;
                emit_line(g, buf + ls, le - ls, lineno, ':');
                printed_to = lineno;
                after_left = g->after;
            }
        } else if (g->mode == M_CONTENT) {
            if (after_left) {
                after_left--;
                emit_line(g, buf + ls, le - ls, lineno, '-');
                printed_to = lineno;
            } else if (g->before) {
                ring[rhead] = (ring_ent){ls, le - ls, lineno};
                rhead = (rhead + 1) % CTX_MAX;
                if (rlen < g->before)
                    rlen++;
            }
        }
        if ((lineno & 65535) == 0 && rig_call_cancelled(g->call))
            g->cancelled = true;
        ls = next;
    }
    if (count)
        g->files_matched++;
    if (!count || g->mode == M_CONTENT)
        return;
    if (!line_begin(g))
        return;
    out_path(g);
    if (g->mode == M_COUNT)
        out_fmt(&g->out, ":%zu", count);
    out_add(&g->out, "\n", 1);
}

/* Search the regular file open as fd (closed here). */
static void search_fd(grepper *g, int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    if ((uintmax_t)st.st_size > FILE_MAX) {
        g->too_big++;
        close(fd);
        return;
    }
    size_t n = (size_t)st.st_size;
    g->files_searched++;
    if (n == 0) {
        close(fd);
        return;
    }
    void *map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        g->unreadable++;
        return;
    }
    if (memchr(map, '\0', n < SNIFF ? n : SNIFF)) {
        g->binary++;
        g->files_searched--;
    } else {
        search_buf(g, map, n);
    }
    munmap(map, n);
}

static bool name_passes(const grepper *g, const char *name) {
    if (!g->glob)
        return true;
    if (g->glob_path)
        return rig__glob_match(g->glob, g->rel);
    return fnmatch(g->glob, name, 0) == 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir_at(int dirfd, const char *name, unsigned char type) {
    if (type != DT_UNKNOWN)
        return type == DT_DIR;
    struct stat st;
    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* The names in the directory open as dirfd, sorted (malloc'd, with *n), or
 * NULL. The type of each is in the byte before its name. */
static char **read_names(grepper *g, int dirfd, size_t *n) {
    int dfd = dup(dirfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return NULL;
    }
    char **v = NULL;
    size_t len = 0, cap = 0;
    struct dirent *de;
    bool oom = false;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, ".git") == 0)
            continue;
        if (name[0] == '.' && !g->no_ignore)
            continue;
        if (len == cap) {
            cap = cap ? cap * 2 : 32;
            char **nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                oom = true;
                break;
            }
            v = nv;
        }
        size_t nl = strlen(name);
        char *s = malloc(nl + 2);
        if (!s) {
            oom = true;
            break;
        }
        s[0] = (char)de->d_type;
        memcpy(s + 1, name, nl + 1);
        v[len++] = s + 1;
    }
    closedir(d);
    if (oom) {
        for (size_t i = 0; i < len; i++)
            free(v[i] - 1);
        free(v);
        g->out.oom = true;
        return NULL;
    }
    if (len)
        qsort(v, len, sizeof *v, by_name);
    *n = len;
    if (!v)
        v = malloc(1); /* empty, but not a failure */
    return v;
}

static void walk(grepper *g, int dirfd, size_t level) {
    if (!g->no_ignore && !rig__ignore_push(g->ig, dirfd, g->rel_len)) {
        g->out.oom = true;
        return;
    }
    size_t n = 0;
    char **names = read_names(g, dirfd, &n);
    if (!names) {
        g->unreadable++;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (g->truncated || g->stopped || g->cancelled || g->out.oom)
            break;
        const char *name = names[i];
        if (++g->visited >= VISIT_MAX) {
            g->stopped = true;
            break;
        }
        if ((g->visited & 255) == 0 && rig_call_cancelled(g->call)) {
            g->cancelled = true;
            break;
        }
        size_t nl = strlen(name), saved = g->rel_len;
        if (saved + nl + 2 > sizeof g->rel) {
            g->too_deep = true;
            continue;
        }
        if (saved)
            g->rel[g->rel_len++] = '/';
        memcpy(g->rel + g->rel_len, name, nl + 1);
        g->rel_len += nl;
        bool dir = is_dir_at(dirfd, name, (unsigned char)name[-1]);
        if (!g->no_ignore && rig__ignore_hit(g->ig, g->rel, name, dir)) {
            g->ignored++;
        } else if (dir) {
            if (level >= DEPTH_MAX) {
                g->too_deep = true;
            } else {
                int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                    g->unreadable++;
                } else {
                    walk(g, fd, level + 1);
                    close(fd);
                }
            }
        } else if (name_passes(g, name)) {
            int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
            if (fd >= 0)
                search_fd(g, fd);
            else if (errno != ELOOP)
                g->unreadable++;
        }
        g->rel_len = saved;
        g->rel[saved] = '\0';
    }
    for (size_t i = 0; i < n; i++)
        free(names[i] - 1);
    free(names);
out:
    if (!g->no_ignore)
        rig__ignore_pop(g->ig);
}

/* The pattern compiled, or NULL with an error result in *err. */
static pcre2_code *compile(const char *pattern, size_t len, uint32_t opts, rig_result **err) {
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len, opts, &ec, &eo, NULL);
    if (!re) {
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(ec, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", ec);
        *err = rig_result_error("The pattern '%s' is not a valid regular expression: %s at "
                                "offset %zu. Escape metacharacters such as ( [ { . * + ? with "
                                "a backslash, or pass fixed_strings=true to search for the "
                                "text as is.",
                                pattern, (const char *)msg, (size_t)eo);
        return NULL;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* without JIT, the interpreter runs it */
    return re;
}

static size_t clamp_ctx(int64_t v) {
    return v < 0 ? 0 : v > CTX_MAX ? CTX_MAX : (size_t)v;
}

static rig_result *grep_run(rig_call *call) {
    rig_roots *roots = rig_call_data(call);
    size_t plen_raw = 0;
    const char *pattern = rig_call_str(call, "pattern", &plen_raw);
    const char *path = rig_call_str(call, "path", NULL);
    const char *mode = rig_call_str(call, "output_mode", NULL);
    if (!pattern || !plen_raw)
        return rig_result_error("A pattern is needed: a regular expression such as "
                                "'fn\\s+\\w+' (or plain text with fixed_strings=true).");
    if (!path || !*path)
        path = ".";

    grepper *g = calloc(1, sizeof *g);
    if (!g)
        return rig_result_error("Out of memory searching '%s'.", path);
    g->call = call;
    g->mode = !mode || strcmp(mode, "files_with_matches") == 0 ? M_FILES
              : strcmp(mode, "content") == 0                   ? M_CONTENT
                                                               : M_COUNT;
    g->multiline = rig_call_bool(call, "multiline", false);
    g->numbers = rig_call_bool(call, "line_numbers", true);
    g->no_ignore = rig_call_bool(call, "no_ignore", false);
    g->glob = rig_call_str(call, "glob", NULL);
    if (g->glob && !*g->glob)
        g->glob = NULL;
    g->glob_path = g->glob && strchr(g->glob, '/');
    size_t ctx = clamp_ctx(rig_call_int(call, "context", 0));
    g->before = rig_call_has(call, "before") ? clamp_ctx(rig_call_int(call, "before", 0)) : ctx;
    g->after = rig_call_has(call, "after") ? clamp_ctx(rig_call_int(call, "after", 0)) : ctx;
    int64_t off = rig_call_int(call, "offset", 0);
    int64_t lim = rig_call_int(call, "head_limit", HEAD_DEFAULT);
    g->offset = off < 0 ? 0 : (size_t)off;
    g->limit = lim <= 0 ? HEAD_DEFAULT : (size_t)lim;

    uint32_t opts = PCRE2_UTF;
#ifdef PCRE2_MATCH_INVALID_UTF
    opts |= PCRE2_MATCH_INVALID_UTF;
#else
    opts |= PCRE2_NO_UTF_CHECK; /* FIXME: without it, invalid UTF-8 is undefined */
#endif
    if (rig_call_bool(call, "fixed_strings", false))
        opts |= PCRE2_LITERAL;
    if (rig_call_bool(call, "case_insensitive", false))
        opts |= PCRE2_CASELESS;
    if (g->multiline)
        opts |= PCRE2_MULTILINE | PCRE2_DOTALL;
    rig_result *r = NULL;
    g->re = compile(pattern, plen_raw, opts, &r);
    if (!g->re)
        goto out;
    g->md = pcre2_match_data_create_from_pattern(g->re, NULL);
    g->ig = rig__ignore_new();
    if (!g->md || !g->ig) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }

    rig_error err = {0};
    int eno = 0;
    int fd = rig_roots_open(roots, path, O_RDONLY | O_NONBLOCK, 0, &eno, &err);
    if (fd < 0) {
        if (err.code == RIG_ENOENT)
            r = rig_result_error("No such file or directory: '%s'. Check the path, or call "
                                 "list_directory on its parent to see what exists.",
                                 path);
        else
            r = rig_result_error("%s", err.message);
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        r = rig_result_error("Cannot read '%s': %s.", path, strerror(errno));
        goto out;
    }
    size_t plen = strlen(path);
    while (plen > 1 && path[plen - 1] == '/')
        plen--;
    g->shown_prefix = path;
    if (S_ISDIR(st.st_mode)) {
        bool bare = plen == 1 && path[0] == '.';
        g->sep = bare || (plen == 1 && path[0] == '/') ? "" : "/";
        g->prefix_len = bare ? 0 : plen;
        walk(g, fd, 1);
        close(fd);
    } else {
        g->sep = "";
        g->prefix_len = plen; /* rel stays "": the path is the file */
        search_fd(g, fd);
    }
    if (g->cancelled) {
        r = rig_result_error("Searching '%s' was cancelled.", path);
        goto out;
    }
    if (g->out.oom) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    r = rig_result_new();
    if (!r) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    if (g->out.len) {
        rig_result_textn(r, g->out.p, g->out.len);
    } else if (g->seen) {
        rig_result_textf(r, "No results at offset %zu: there are %zu. Call again with a "
                            "smaller offset.",
                         g->offset, g->seen);
    } else {
        rig_result_textf(r, "No matches for '%s' in '%s' (%zu file%s searched%s).", pattern,
                         path, g->files_searched, g->files_searched == 1 ? "" : "s",
                         g->ignored ? "; entries matched by .gitignore were skipped, "
                                      "no_ignore=true searches them" : "");
    }
    if (g->truncated)
        rig_result_textf(r, "[truncated: showing results %zu-%zu; there are more. Call again "
                            "with offset=%zu to see the next ones, or narrow the pattern, "
                            "path or glob.]",
                         g->offset + 1, g->offset + g->limit, g->offset + g->limit);
    if (g->binary)
        rig_result_textf(r, "[%zu binary file%s skipped.]", g->binary, g->binary == 1 ? "" : "s");
    if (g->too_big)
        rig_result_textf(r, "[%zu file%s larger than %u MiB skipped.]", g->too_big,
                         g->too_big == 1 ? "" : "s", FILE_MAX >> 20);
    if (g->stopped)
        rig_result_textf(r, "[The search stopped after looking at %d entries, so there may "
                            "be more matches. Narrow the path or use glob.]",
                         VISIT_MAX);
    if (g->unreadable)
        rig_result_textf(r, "[%zu entr%s could not be read.]", g->unreadable,
                         g->unreadable == 1 ? "y" : "ies");
    if (g->too_deep)
        rig_result_textf(r, "[Directories more than %d levels down were not searched; give "
                            "a deeper path.]",
                         DEPTH_MAX);
    if (g->match_error)
        rig_result_textf(r, "[The pattern hit a matching limit on some lines, which were "
                            "counted as not matching; simplify the pattern.]");
out:
    free(g->out.p);
    pcre2_match_data_free(g->md);
    pcre2_code_free(g->re);
    rig__ignore_free(g->ig);
    free(g);
    return r;
}

static const rig_builtin_spec grep_spec = {
    .name = "grep",
    .title = "Search file contents",
    .description =
        "Search the contents of files for a regular expression (PCRE2 syntax: \\b, \\w, \\d, "
        "(?:...), lookarounds), under a directory or in one file inside the allowed "
        "directories (default: the first one). output_mode 'files_with_matches' (default) "
        "lists the files that match; 'content' shows the matching lines as "
        "path:line:text (context lines as path-line-text, '--' between separate groups); "
        "'count' shows path:number of matching lines. Results are in path order. Filter "
        "files by name with glob (e.g. '*.c', or 'src/**/*.h' to match the relative path). "
        "Files matched by .gitignore, names starting with '.', .git and binary files are "
        "skipped (no_ignore=true searches ignored and hidden files). Lines are matched one "
        "at a time unless multiline=true, where '.' also matches newlines and a match may "
        "span lines. At most head_limit results (default 250) are shown; a note says when "
        "there are more and which offset to pass to see them.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The regular "
        "expression to search for (or the text, with fixed_strings).\"},"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The file or "
        "directory to search: absolute, or relative to the first allowed directory "
        "(default: the first allowed directory).\"},"
        "\"output_mode\":{\"type\":\"string\",\"enum\":[\"content\",\"files_with_matches\","
        "\"count\"],\"description\":\"What to show (default files_with_matches).\"},"
        "\"glob\":{\"type\":\"string\",\"description\":\"Only search files whose name "
        "matches this glob, e.g. '*.py'; with a '/', matched against the path relative to "
        "path.\"},"
        "\"case_insensitive\":{\"type\":\"boolean\",\"description\":\"Ignore case.\"},"
        "\"fixed_strings\":{\"type\":\"boolean\",\"description\":\"Treat the pattern as "
        "plain text, not a regular expression.\"},"
        "\"multiline\":{\"type\":\"boolean\",\"description\":\"Match across lines: '.' "
        "matches newlines, ^ and $ match at line starts and ends.\"},"
        "\"context\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100,\"description\":"
        "\"Lines to show before and after each match (content mode).\"},"
        "\"before\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100,\"description\":"
        "\"Lines to show before each match (content mode).\"},"
        "\"after\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100,\"description\":"
        "\"Lines to show after each match (content mode).\"},"
        "\"line_numbers\":{\"type\":\"boolean\",\"description\":\"Show line numbers in "
        "content mode (default true).\"},"
        "\"no_ignore\":{\"type\":\"boolean\",\"description\":\"Also search files matched by "
        ".gitignore and hidden files.\"},"
        "\"head_limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Results "
        "(lines, files or counts) to show at most (default 250).\"},"
        "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Results to skip "
        "first, for paging (default 0).\"}},"
        "\"required\":[\"pattern\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = grep_run,
};

rig_tool *rig__grep_tool_new(rig_roots *roots, rig_error *err) {
    if (!roots) {
        rig_error_set(err, RIG_EINVAL, "grep needs roots: the directories it may search.");
        return NULL;
    }
    return rig__builtin_new(&grep_spec, roots, NULL, err);
}
