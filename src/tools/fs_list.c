/* fs_list.c — the read-only look-around tools, confined to the roots
 * (rig/roots.h): `list_directory`, `directory_tree`, `get_file_info` and
 * `read_multiple_files`.
 *
 * Walking: a directory is opened through the roots, its children relative
 * to its descriptor with O_NOFOLLOW, so a symlink is shown as a link and
 * never entered, and nothing outside the roots is reached. `.git` is always
 * skipped; .gitignore files met on the way are honoured (comments, blank
 * lines, `*`, `?`, `[...]` and `**` globs, a trailing `/` for directories,
 * a leading or inner `/` anchoring to the .gitignore's directory, `!`
 * negation; the last matching rule wins, inner files after outer ones).
 *
 * Memory is bounded by the cap, not by the directory: each directory keeps
 * only the `remaining` smallest names (a max-heap) while every entry is
 * counted, and entries past the cap are counted (up to MORE_MAX, then "at
 * least") without being kept. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "json/internal.h"
#include "rig/arena.h"
#include "rig/json.h"
#include "tools/builtins.h"
#include "tools/fs.h"
#include "util/buf.h"

#define LIST_CAP 1000          /* entries shown by list_directory */
#define TREE_CAP 1000          /* entries shown by directory_tree */
#define MORE_MAX 100000       /* entries counted past the cap before giving up */
#define DEPTH_HARD_MAX 64      /* directory levels entered, whatever max_depth says */
#define ANCESTORS_MAX 64       /* directories above a walk's start whose ignore files count */
#define STACK_MAX (ANCESTORS_MAX + DEPTH_HARD_MAX + 2)
#define GITIGNORE_MAX (256 * 1024)
#define MULTI_MAX_LINES 2000   /* per file of read_multiple_files */
#define MULTI_MAX_BYTES 45000  /* per file */
#define MULTI_TOTAL_BYTES (400 * 1000) /* per call */

/* ---- globs -------------------------------------------------------------- */

/* fnmatch(FNM_PATHNAME) with double stars: a leading or inner segment of
 * two stars matches any number of directories, a trailing one everything
 * inside. */
static bool glob_match(const char *p, const char *s) {
    const char *dd = strstr(p, "**");
    if (!dd)
        return fnmatch(p, s, FNM_PATHNAME) == 0;
    if (dd == p) {
        const char *rest = p + 2;
        if (*rest == '\0')
            return true;
        if (*rest == '/') {
            rest++;
            for (const char *t = s;;) {
                if (glob_match(rest, t))
                    return true;
                t = strchr(t, '/');
                if (!t)
                    return false;
                t++;
            }
        }
        /* "**x": as "*x" */
        return glob_match(p + 1, s);
    }
    /* A prefix without "**" must match a leading part of s. */
    size_t plen = (size_t)(dd - p);
    char pre[PATH_MAX];
    if (plen >= sizeof pre)
        return false;
    memcpy(pre, p, plen);
    pre[plen] = '\0';
    size_t slen = strlen(s);
    char head[PATH_MAX];
    for (size_t k = 0; k <= slen && k < sizeof head; k++) {
        memcpy(head, s, k);
        head[k] = '\0';
        if (fnmatch(pre, head, FNM_PATHNAME) == 0 && glob_match(dd, s + k))
            return true;
    }
    return false;
}

typedef struct rule {
    char *pat;
    bool neg, dir_only, anchored;
} rule;

typedef struct ruleset {
    rule *rules;
    size_t n, cap;
    size_t base_len; /* length of the rel path of the directory holding it */
    char *prefix;    /* above the start: the start's path from its directory */
    size_t ngit;     /* rules[0..ngit) came from .gitignore */
    char *text;      /* the patterns point into it */
} ruleset;

static void ruleset_free(ruleset *rs) {
    if (!rs)
        return;
    free(rs->rules);
    free(rs->text);
    free(rs->prefix);
    free(rs);
}

/* Parse one line of .gitignore syntax in place; false for none. */
static bool rule_parse(char *line, rule *out) {
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || ((line[n - 1] == ' ' || line[n - 1] == '\t') &&
                                         !(n >= 2 && line[n - 2] == '\\'))))
        line[--n] = '\0';
    if (!n || line[0] == '#')
        return false;
    rule r = {0};
    if (line[0] == '!') {
        r.neg = true;
        line++, n--;
    } else if (line[0] == '\\' && (line[1] == '#' || line[1] == '!')) {
        line++, n--;
    }
    if (n && line[n - 1] == '/') {
        r.dir_only = true;
        line[--n] = '\0';
    }
    if (line[0] == '/') {
        r.anchored = true;
        line++, n--;
    }
    if (!n)
        return false;
    if (strchr(line, '/'))
        r.anchored = true;
    r.pat = line;
    *out = r;
    return true;
}

static bool ruleset_add_line(ruleset *rs, char *line) {
    rule r;
    if (!rule_parse(line, &r))
        return true;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 16;
        rule *p = realloc(rs->rules, cap * sizeof *p);
        if (!p)
            return false;
        rs->rules = p;
        rs->cap = cap;
    }
    rs->rules[rs->n++] = r;
    return true;
}

/* Does `r` match the entry at `sub` (relative to the rule's directory) with
 * the last component `name`? */
static bool rule_hits(const rule *r, const char *sub, const char *name, bool is_dir) {
    if (r->dir_only && !is_dir)
        return false;
    return glob_match(r->pat, r->anchored ? sub : name);
}

/* ---- the walk ----------------------------------------------------------- */

typedef enum ekind { E_FILE, E_DIR, E_LINK, E_OTHER } ekind;

typedef struct entry {
    char *name;
    ekind kind;
} entry;

typedef struct walker {
    rig_call *call;
    bool tree;              /* directory_tree: JSON into w; else lines into out */
    bool recursive, hidden;
    bool sizes;             /* list_directory: a stat per file for its size */
    int64_t max_depth;      /* levels shown; 1 = the directory's own entries */
    ruleset *excl;          /* exclude_patterns, or NULL */
    ruleset *stack[STACK_MAX]; /* the start's ancestors' (load_ancestors), then one a
                               * level entered */
    bool git[STACK_MAX];    /* inside a git repository at that level */
    bool top[STACK_MAX];    /* that level's directory holds .git */
    size_t nstack;
    char rel[PATH_MAX];     /* the current directory, relative to the start ("" at it) */
    size_t rel_len;
    size_t remaining;       /* entries still to show */
    size_t shown, more, ignored, excluded, hidden_n, unreadable;
    bool more_capped, too_deep, cancelled, oom;
    rig__buf out;
    rig_json_writer jw;
} walker;

static ekind kind_of(int dirfd, const char *name, unsigned char d_type) {
    switch (d_type) {
    case DT_DIR: return E_DIR;
    case DT_REG: return E_FILE;
    case DT_LNK: return E_LINK;
    case DT_UNKNOWN: break;
    default: return E_OTHER;
    }
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return E_OTHER;
    return S_ISDIR(st.st_mode) ? E_DIR : S_ISREG(st.st_mode) ? E_FILE
                                     : S_ISLNK(st.st_mode) ? E_LINK
                                                           : E_OTHER;
}

/* Append the ignore file `name` in dirfd (at most GITIGNORE_MAX bytes) to
 * the text at *text (*len bytes, NUL-terminated), on a line of its own. */
static void read_ignore_file(int dirfd, const char *name, char **text, size_t *len, bool *oom) {
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t want = st.st_size > GITIGNORE_MAX ? GITIGNORE_MAX : (size_t)st.st_size;
        char *t = realloc(*text, *len + want + 2);
        if (!t) {
            *oom = true;
        } else {
            *text = t;
            size_t got = 0;
            while (got < want) {
                ssize_t k = pread(fd, t + *len + got, want - got, (off_t)got);
                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0)
                    break;
                got += (size_t)k;
            }
            *len += got;
            t[(*len)++] = '\n';
            t[*len] = '\0';
        }
    }
    close(fd);
}

/* dirfd's ignore files as one ruleset for the directory at a rel path of
 * `base_len` characters, the way ripgrep reads them: .gitignore only inside
 * a git repository (`git`: a .git was found here or above), then .ignore,
 * then .rgignore. One ruleset and the last matching rule wins, so a rule in
 * .ignore overrides .gitignore and .rgignore overrides both, as in rg.
 * NULL when there are none (or no memory: *oom). */
static ruleset *load_ignores(int dirfd, size_t base_len, bool git, bool *oom) {
    char *text = NULL;
    size_t len = 0;
    if (git)
        read_ignore_file(dirfd, ".gitignore", &text, &len, oom);
    size_t git_len = len;
    read_ignore_file(dirfd, ".ignore", &text, &len, oom);
    read_ignore_file(dirfd, ".rgignore", &text, &len, oom);
    if (!text)
        return NULL;
    ruleset *rs = calloc(1, sizeof *rs);
    if (!rs) {
        free(text);
        *oom = true;
        return NULL;
    }
    rs->text = text;
    rs->base_len = base_len;
    for (char *line = text; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (!ruleset_add_line(rs, line))
            *oom = true;
        if ((size_t)(line - text) < git_len)
            rs->ngit = rs->n;
        line = nl ? nl + 1 : NULL;
    }
    return rs;
}

/* Does the directory open as dirfd hold a .git (directory, or the file of
 * a worktree or submodule)? Its .gitignore files count from there down. */
static bool has_git(int dirfd) {
    struct stat st;
    return fstatat(dirfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Is the entry at rel path `sub` (last component `name`) ignored by the
 * .gitignore rulesets stack[0..n)? The last matching rule wins. */
static bool ignored_by(ruleset *const *stack, const bool *top, size_t n, const char *sub,
                       const char *name, bool is_dir) {
    /* A repository's .gitignore stops at a repository nested in it, as
     * git's and ripgrep's do: above the innermost level holding .git, only
     * .ignore and .rgignore rules count. */
    size_t inner = 0;
    for (size_t s = n; s-- > 0;)
        if (top[s]) {
            inner = s;
            break;
        }
    bool ign = false;
    for (size_t s = 0; s < n; s++) {
        const ruleset *rs = stack[s];
        if (!rs)
            continue;
        const char *rsub = sub + rs->base_len + (rs->base_len ? 1 : 0);
        char whole[PATH_MAX];
        if (rs->prefix) {
            int k = snprintf(whole, sizeof whole, "%s/%s", rs->prefix, sub);
            if (k < 0 || (size_t)k >= sizeof whole)
                continue;
            rsub = whole;
        }
        for (size_t i = s < inner ? rs->ngit : 0; i < rs->n; i++)
            if (rule_hits(&rs->rules[i], rsub, name, is_dir))
                ign = !rs->rules[i].neg;
    }
    return ign;
}

/* Load dirfd's ignore files (if any) onto the stack. */
static void push_gitignore(walker *w, int dirfd) {
    bool here = has_git(dirfd);
    bool git = (w->nstack && w->git[w->nstack - 1]) || here;
    w->git[w->nstack] = git;
    w->top[w->nstack] = here;
    w->stack[w->nstack] = load_ignores(dirfd, w->rel_len, git, &w->oom);
}

/* The ignore files of the directories from the root down to the start at
 * `path` (the root included, the start not: the walk reads that one),
 * outermost first, into stack[0..k), with git[] saying whether each lies
 * in a git repository: returns k. ripgrep reads them too, so a search from
 * a subdirectory skips what one from the top would. Each ruleset matches
 * paths relative to its own directory: it carries the start's path from
 * there as a prefix. At most the ANCESTORS_MAX nearest are read. */
static size_t load_ancestors(const rig_roots *roots, const char *path, ruleset **stack,
                             bool *git, bool *top, bool *oom) {
    char rel[PATH_MAX], dir[PATH_MAX];
    int r = rig_roots_locate(roots, path, rel, sizeof rel);
    if (r < 0 || strcmp(rel, ".") == 0)
        return 0;
    size_t len = strlen(rel);
    while (len && rel[len - 1] == '/')
        rel[--len] = '\0';
    size_t levels = 0;
    for (size_t k = 0; k < len; k++)
        levels += k == 0 || rel[k] == '/';
    const char *root = rig_roots_path(roots, (size_t)r);
    size_t n = 0, level = 0;
    bool g = false;
    for (size_t k = 0; k < len; k++) {
        if (k && rel[k] != '/')
            continue;
        level++;
        int m = snprintf(dir, sizeof dir, "%s/%.*s", root, (int)k, rel);
        int fd = m > 0 && (size_t)m < sizeof dir
                     ? rig_roots_open(roots, dir, O_RDONLY | O_DIRECTORY, 0, NULL, NULL)
                     : -1;
        if (fd < 0)
            continue;
        bool here = has_git(fd);
        g = g || here;
        if (levels - level < ANCESTORS_MAX) {
            ruleset *rs = load_ignores(fd, 0, g, oom);
            if (rs && !(rs->prefix = strdup(rel + k + (k ? 1 : 0)))) {
                ruleset_free(rs);
                rs = NULL;
                *oom = true;
            }
            stack[n] = rs;
            top[n] = here;
            git[n++] = g;
        }
        close(fd);
    }
    return n;
}

/* ---- the .gitignore stack for other walkers (tools/fs.h) ---------------- */

struct rig__ignore {
    ruleset *stack[STACK_MAX];
    bool git[STACK_MAX]; /* inside a git repository at that level */
    bool top[STACK_MAX]; /* that level's directory holds .git */
    size_t n;
};

rig__ignore *rig__ignore_new(const rig_roots *roots, const char *path) {
    rig__ignore *ig = calloc(1, sizeof *ig);
    if (!ig)
        return NULL;
    bool oom = false;
    ig->n = load_ancestors(roots, path, ig->stack, ig->git, ig->top, &oom);
    if (oom) {
        rig__ignore_free(ig);
        return NULL;
    }
    return ig;
}

void rig__ignore_free(rig__ignore *ig) {
    if (!ig)
        return;
    while (ig->n)
        ruleset_free(ig->stack[--ig->n]);
    free(ig);
}

bool rig__ignore_push(rig__ignore *ig, int dirfd, size_t rel_len) {
    if (ig->n >= sizeof ig->stack / sizeof *ig->stack)
        return false;
    bool oom = false;
    bool here = has_git(dirfd);
    bool git = (ig->n && ig->git[ig->n - 1]) || here;
    ruleset *rs = load_ignores(dirfd, rel_len, git, &oom);
    if (oom) {
        ruleset_free(rs);
        return false;
    }
    ig->git[ig->n] = git;
    ig->top[ig->n] = here;
    ig->stack[ig->n++] = rs;
    return true;
}

void rig__ignore_pop(rig__ignore *ig) {
    if (ig->n)
        ruleset_free(ig->stack[--ig->n]);
}

bool rig__ignore_hit(const rig__ignore *ig, const char *sub, const char *name, bool is_dir) {
    return ignored_by(ig->stack, ig->top, ig->n, sub, name, is_dir);
}

bool rig__glob_match(const char *pattern, const char *s) { return glob_match(pattern, s); }


/* Should `name` (in the current directory) be left out? Counts why. */
static bool skipped(walker *w, const char *name, bool is_dir) {
    if (strcmp(name, ".git") == 0)
        return true;
    if (name[0] == '.' && !w->hidden) {
        w->hidden_n++;
        return true;
    }
    char sub[PATH_MAX];
    int n = snprintf(sub, sizeof sub, "%s%s%s", w->rel, w->rel_len ? "/" : "", name);
    if (n < 0 || (size_t)n >= sizeof sub)
        return false;
    if (w->excl)
        for (size_t i = 0; i < w->excl->n; i++)
            if (rule_hits(&w->excl->rules[i], sub, name, is_dir)) {
                w->excluded++;
                return true;
            }
    bool ign = ignored_by(w->stack, w->top, w->nstack + 1, sub, name, is_dir);
    if (ign)
        w->ignored++;
    return ign;
}

/* Max-heap by name of at most `cap` entries: the smallest names seen. */
typedef struct heap {
    entry *e;
    size_t n, cap;
} heap;

static void heap_swap(entry *a, entry *b) {
    entry t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(entry *e, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && strcmp(e[l].name, e[m].name) > 0)
            m = l;
        if (r < n && strcmp(e[r].name, e[m].name) > 0)
            m = r;
        if (m == i)
            return;
        heap_swap(&e[i], &e[m]);
        i = m;
    }
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

static bool can_descend(const walker *w, int depth) {
    return w->recursive && (w->max_depth <= 0 || depth < w->max_depth);
}

bool rig__rel_push(char *rel, size_t *len, const char *name, size_t *saved) {
    size_t nl = strlen(name);
    *saved = *len;
    if (*len + nl + 2 > PATH_MAX)
        return false;
    if (*len)
        rel[(*len)++] = '/';
    memcpy(rel + *len, name, nl + 1);
    *len += nl;
    return true;
}

void rig__rel_pop(char *rel, size_t *len, size_t saved) {
    *len = saved;
    rel[saved] = '\0';
}

static bool push_rel(walker *w, const char *name, size_t *saved) {
    return rig__rel_push(w->rel, &w->rel_len, name, saved);
}

static void pop_rel(walker *w, size_t saved) { rig__rel_pop(w->rel, &w->rel_len, saved); }

static void walk(walker *w, int dirfd, int depth);

/* Open child directory `name` of dirfd, never through a symlink: a
 * descriptor, or -1 with errno set. */
static int open_child(int dirfd, const char *name) {
    return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Walk the child directory `name`, open as fd (closed here), at `depth` + 1.
 * In count mode (w->remaining == 0) its entries are only counted. */
static void enter_fd(walker *w, int fd, const char *name, int depth) {
    size_t saved;
    if (depth >= DEPTH_HARD_MAX || !push_rel(w, name, &saved)) {
        w->too_deep = true;
        close(fd);
        return;
    }
    w->nstack++;
    walk(w, fd, depth + 1);
    w->nstack--;
    close(fd);
    pop_rel(w, saved);
}

static void enter(walker *w, int dirfd, const char *name, int depth) {
    int fd = open_child(dirfd, name);
    if (fd < 0)
        w->unreadable++;
    else
        enter_fd(w, fd, name, depth);
}

static void count_entry(walker *w, int dirfd, const entry *e, int depth) {
    if (w->more >= MORE_MAX) {
        w->more_capped = true;
        return;
    }
    w->more++;
    if (e->kind == E_DIR && can_descend(w, depth))
        enter(w, dirfd, e->name, depth);
}

static void human_size(char *out, size_t cap, long long n) {
    if (n < 1024) {
        snprintf(out, cap, "%lld bytes", n);
        return;
    }
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024;
        u++;
    }
    snprintf(out, cap, "%.1f %s", v, units[u]);
}

/* Show entry `e` of dirfd (and, for a directory, what it holds). */
static void show_entry(walker *w, int dirfd, const entry *e, int depth) {
    w->remaining--;
    w->shown++;
    if (w->tree) {
        rig_json_writer *jw = &w->jw;
        rig_json_write_object_begin(jw);
        rig_json_write_key(jw, "name");
        rig_json_write_string(jw, e->name);
        rig_json_write_key(jw, "type");
        rig_json_write_string(jw, e->kind == E_DIR    ? "directory"
                                  : e->kind == E_LINK ? "symlink"
                                  : e->kind == E_FILE ? "file"
                                                      : "other");
        if (e->kind == E_LINK) {
            char target[PATH_MAX];
            ssize_t n = readlinkat(dirfd, e->name, target, sizeof target - 1);
            if (n >= 0) {
                rig_json_write_key(jw, "target");
                rig_json_write_stringn(jw, target, (size_t)n);
            }
        }
        if (e->kind == E_DIR && can_descend(w, depth)) {
            rig_json_write_key(jw, "children");
            rig_json_write_array_begin(jw);
            enter(w, dirfd, e->name, depth);
            rig_json_write_array_end(jw);
        }
        rig_json_write_object_end(jw);
        return;
    }
    const char *pre = w->rel_len ? w->rel : "", *sep = w->rel_len ? "/" : "";
    switch (e->kind) {
    case E_DIR: {
        int fd = can_descend(w, depth) ? open_child(dirfd, e->name) : -2;
        if (fd == -1) {
            rig__buf_addf(&w->out, "[DIR] %s%s%s/ (cannot be listed: %s)\n", pre, sep, e->name,
                     strerror(errno));
            w->unreadable++;
            break;
        }
        rig__buf_addf(&w->out, "[DIR] %s%s%s/\n", pre, sep, e->name);
        if (fd >= 0)
            enter_fd(w, fd, e->name, depth);
        break;
    }
    case E_LINK: {
        char target[PATH_MAX];
        ssize_t n = readlinkat(dirfd, e->name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        rig__buf_addf(&w->out, "[LINK] %s%s%s -> %s\n", pre, sep, e->name, n >= 0 ? target : "?");
        break;
    }
    case E_FILE: {
        if (!w->sizes) {
            rig__buf_addf(&w->out, "[FILE] %s%s%s\n", pre, sep, e->name);
            break;
        }
        struct stat st;
        char size[32] = "?";
        if (fstatat(dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            human_size(size, sizeof size, (long long)st.st_size);
        rig__buf_addf(&w->out, "[FILE] %s%s%s (%s)\n", pre, sep, e->name, size);
        break;
    }
    default:
        rig__buf_addf(&w->out, "[OTHER] %s%s%s\n", pre, sep, e->name);
        break;
    }
}

/* List (or count) the directory open as dirfd, at `depth` (1 for the
 * start). Closes nothing: the caller owns dirfd. */
static void walk(walker *w, int dirfd, int depth) {
    if (w->cancelled || w->oom || (w->remaining == 0 && w->more_capped))
        return;
    if (rig_call_cancelled(w->call)) {
        w->cancelled = true;
        return;
    }
    push_gitignore(w, dirfd);
    int dfd = dup(dirfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        ruleset_free(w->stack[w->nstack]);
        w->stack[w->nstack] = NULL;
        w->unreadable++;
        return;
    }
    /* The smallest `remaining` names; evicted ones are counted. A level's
     * heap lives only while it is walked: at most the cap per open level. */
    heap h = {NULL, 0, w->remaining};
    struct dirent *de;
    size_t seen = 0;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if ((++seen & 1023) == 0 && rig_call_cancelled(w->call)) {
            w->cancelled = true;
            break;
        }
        entry e = {NULL, kind_of(dirfd, name, de->d_type)};
        if (skipped(w, name, e.kind == E_DIR))
            continue;
        if (h.cap == 0) { /* count mode */
            e.name = (char *)name;
            count_entry(w, dirfd, &e, depth);
            if (w->more_capped)
                break;
            continue;
        }
        if (h.n == h.cap) {
            if (strcmp(name, h.e[0].name) > 0) {
                e.name = (char *)name;
                count_entry(w, dirfd, &e, depth);
                continue;
            }
            entry out = h.e[0];
            e.name = strdup(name);
            if (!e.name) {
                w->oom = true;
                break;
            }
            h.e[0] = e;
            sift_down(h.e, h.n, 0);
            count_entry(w, dirfd, &out, depth);
            free(out.name);
            continue;
        }
        if (!h.e) {
            h.e = malloc(sizeof *h.e * (h.cap < 64 ? h.cap : 64));
            if (!h.e) {
                w->oom = true;
                break;
            }
        } else if ((h.n & (h.n - 1)) == 0 && h.n >= 64 && h.n < h.cap) {
            size_t nc = h.n * 2 < h.cap ? h.n * 2 : h.cap;
            entry *p = realloc(h.e, sizeof *p * nc);
            if (!p) {
                w->oom = true;
                break;
            }
            h.e = p;
        }
        e.name = strdup(name);
        if (!e.name) {
            w->oom = true;
            break;
        }
        /* sift up */
        size_t i = h.n++;
        h.e[i] = e;
        while (i && strcmp(h.e[(i - 1) / 2].name, h.e[i].name) < 0) {
            heap_swap(&h.e[i], &h.e[(i - 1) / 2]);
            i = (i - 1) / 2;
        }
    }
    closedir(d);
    if (h.n)
        qsort(h.e, h.n, sizeof *h.e, by_name);
    for (size_t i = 0; i < h.n; i++) {
        if (w->cancelled || w->oom || w->more_capped)
            ;
        else if (w->remaining)
            show_entry(w, dirfd, &h.e[i], depth);
        else
            count_entry(w, dirfd, &h.e[i], depth);
        free(h.e[i].name);
    }
    free(h.e);
    ruleset_free(w->stack[w->nstack]);
    w->stack[w->nstack] = NULL;
}

/* exclude_patterns into a ruleset (NULL for none). */
static ruleset *exclude_rules(rig_call *call, walker *w) {
    rig_json_val arr = rig_json_get(rig_call_args(call), "exclude_patterns");
    if (!rig_json_len(arr))
        return NULL;
    ruleset *rs = calloc(1, sizeof *rs);
    rig__buf text = {0};
    rig_json_iter it = rig_json_iter_init(arr);
    rig_json_val v;
    while (rig_json_iter_next(&it, &v)) {
        const char *s = rig_json_str_dup(v, rig_call_arena(call), NULL);
        if (s) {
            rig__buf_adds(&text, s);
            rig__buf_add(&text, "", 1); /* keep the NUL: one pattern a string */
        }
    }
    if (!rs || text.oom) {
        free(rs);
        free(text.p);
        w->oom = true;
        return NULL;
    }
    rs->text = text.p;
    for (size_t at = 0; at < text.len;) {
        char *line = text.p + at;
        at += strlen(line) + 1;
        if (!ruleset_add_line(rs, line))
            w->oom = true;
    }
    return rs;
}

/* Open the walk's start, and read the ignore files above it. */
static int open_dir(rig_call *call, walker *w, const char *tool, const char *path,
                    rig_result **fail) {
    rig_roots *roots = rig__fs_roots(call); /* the session's; the walk needs only fd */
    rig_error err = {0};
    int eno = 0;
    int fd = rig_roots_open(roots, path, O_RDONLY | O_DIRECTORY, 0, &eno, &err);
    if (fd >= 0)
        w->nstack = load_ancestors(roots, path, w->stack, w->git, w->top, &w->oom);
    rig__fs_roots_done(roots);
    if (fd >= 0)
        return fd;
    if (err.code == RIG_ENOENT)
        *fail = rig_result_error("No such directory: '%s'. Check the path, or call %s on its "
                                 "parent to see what exists.",
                                 path, tool);
    else if (eno == ENOTDIR)
        *fail = rig_result_error("'%s' is not a directory. Call get_file_info or read_file "
                                 "for a file.",
                                 path);
    else
        *fail = rig_result_error("%s", err.message);
    return -1;
}

/* The closing note of a listing: what was left out and how to narrow. */
static void add_notes(walker *w, rig_result *r, const char *tool, const char *path, size_t cap) {
    rig__buf note = {0};
    if (w->more || w->more_capped)
        rig__buf_addf(&note, "[Showing %zu entries; %s%zu more not shown (the limit is %zu). To "
                        "see them, call %s on a subdirectory, lower max_depth, or add "
                        "exclude_patterns.]",
                 w->shown, w->more_capped ? "at least " : "", w->more, cap, tool);
    if (w->ignored || w->excluded || w->hidden_n) {
        if (note.len)
            rig__buf_add(&note, "\n", 1);
        rig__buf_addf(&note, "[Not shown:");
        const char *sep = " ";
        if (w->ignored) {
            rig__buf_addf(&note, "%s%zu matched by ignore files", sep, w->ignored);
            sep = ", ";
        }
        if (w->excluded) {
            rig__buf_addf(&note, "%s%zu matched by exclude_patterns", sep, w->excluded);
            sep = ", ";
        }
        if (w->hidden_n)
            rig__buf_addf(&note, "%s%zu hidden (names starting with '.'; include_hidden=true shows "
                            "them)",
                     sep, w->hidden_n);
        rig__buf_addf(&note, ". .git is never listed.]");
    }
    if (w->unreadable)
        rig__buf_addf(&note, "%s[%zu director%s could not be read.]", note.len ? "\n" : "",
                 w->unreadable, w->unreadable == 1 ? "y" : "ies");
    if (w->too_deep)
        rig__buf_addf(&note, "%s[Directories more than %d levels down were not entered; call %s "
                        "on a deeper directory.]",
                 note.len ? "\n" : "", DEPTH_HARD_MAX, tool);
    (void)path;
    if (note.len)
        rig_result_textn(r, note.p, note.len);
    if (note.oom)
        w->oom = true;
    free(note.p);
}

static void walker_done(walker *w) {
    ruleset_free(w->excl);
    for (size_t i = 0; i < w->nstack; i++) /* the ancestors' (the walk popped its own) */
        ruleset_free(w->stack[i]);
    free(w->out.p);
    if (w->tree)
        rig_json_writer_free(&w->jw);
}

/* ---- list_directory ----------------------------------------------------- */

static rig_result *list_directory_run(rig_call *call) {
    const char *path = rig_call_str(call, "path", NULL);
    if (!path || !*path)
        return rig_result_error("A path is needed: call list_directory with a directory.");
    walker *w = calloc(1, sizeof *w);
    if (!w)
        return rig_result_error("Out of memory listing '%s'.", path);
    w->call = call;
    w->max_depth = rig_call_int(call, "max_depth", 0);
    w->recursive = rig_call_bool(call, "recursive", rig_call_has(call, "max_depth"));
    w->hidden = rig_call_bool(call, "include_hidden", false);
    w->sizes = rig_call_bool(call, "sizes", true);
    w->remaining = LIST_CAP;
    w->excl = exclude_rules(call, w);
    rig_result *fail = NULL;
    int fd = open_dir(call, w, "list_directory", path, &fail);
    if (fd < 0) {
        walker_done(w);
        free(w);
        return fail;
    }
    walk(w, fd, 1);
    close(fd);
    rig_result *r = NULL;
    if (w->cancelled)
        r = rig_result_error("Listing '%s' was cancelled.", path);
    else if (w->oom || w->out.oom)
        r = rig_result_error("Out of memory listing '%s'.", path);
    else {
        r = rig_result_new();
        if (w->shown)
            rig_result_textn(r, w->out.p, w->out.len);
        else if (w->ignored || w->excluded || w->hidden_n)
            rig_result_textf(r, "[No entries shown in '%s'.]", path);
        else
            rig_result_textf(r, "[The directory '%s' is empty.]", path);
        add_notes(w, r, "list_directory", path, LIST_CAP);
    }
    walker_done(w);
    free(w);
    return r;
}

static const rig_builtin_spec list_directory_spec = {
    .name = "list_directory",
    .title = "List a directory",
    .description =
        "List the entries of a directory inside the allowed directories, sorted by name, one "
        "a line: '[DIR] name/', '[FILE] name (size)', '[LINK] name -> target' (sizes=false "
        "leaves the sizes out, which is quicker on large directories). With "
        "recursive=true (or max_depth) subdirectories are listed too, as paths relative to "
        "the directory, down to max_depth levels (1 = only the directory's own entries; "
        "unlimited by default); symlinks are shown, never followed. Hidden entries (names "
        "starting with '.') are left out unless include_hidden=true; .git is never listed; "
        "files matched by ignore files found on the way (.gitignore inside a git repository, "
        ".ignore, .rgignore), or by exclude_patterns (globs "
        "such as '*.log', 'build/', 'src/**/gen'), are left out. At most 1000 entries are "
        "shown; a note says how many more there are and what was left out. For the contents "
        "of a file use read_file; for a nested JSON view, directory_tree.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The directory to "
        "list: absolute, or relative to the first allowed directory.\"},"
        "\"recursive\":{\"type\":\"boolean\",\"description\":\"List subdirectories too "
        "(default false, or true when max_depth is given).\"},"
        "\"max_depth\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"How many levels "
        "to list when recursive: 1 is the directory's own entries (default unlimited).\"},"
        "\"exclude_patterns\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
        "\"minLength\":1},\"maxItems\":100,\"description\":\"Glob patterns of entries to "
        "leave out, in .gitignore syntax: 'node_modules', '*.tmp', 'build/' (directories "
        "only), 'docs/**/*.png' (relative to the listed directory).\"},"
        "\"include_hidden\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Also "
        "list entries whose names start with '.'.\"},"
        "\"sizes\":{\"type\":\"boolean\",\"default\":true,\"description\":\"Show each "
        "file's size.\"}},"
        "\"required\":[\"path\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = list_directory_run,
};

/* ---- directory_tree ----------------------------------------------------- */

static rig_result *directory_tree_run(rig_call *call) {
    const char *path = rig_call_str(call, "path", NULL);
    if (!path || !*path)
        return rig_result_error("A path is needed: call directory_tree with a directory.");
    walker *w = calloc(1, sizeof *w);
    if (!w)
        return rig_result_error("Out of memory reading the tree of '%s'.", path);
    w->call = call;
    w->tree = true;
    rig_json_writer_init(&w->jw, 0);
    w->max_depth = rig_call_int(call, "max_depth", 3);
    w->recursive = true;
    w->hidden = true;
    w->remaining = TREE_CAP;
    w->excl = exclude_rules(call, w);
    rig_result *fail = NULL;
    int fd = open_dir(call, w, "directory_tree", path, &fail);
    if (fd < 0) {
        walker_done(w);
        free(w);
        return fail;
    }
    rig_json_write_array_begin(&w->jw);
    walk(w, fd, 1);
    rig_json_write_array_end(&w->jw);
    close(fd);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w->jw, &len);
    rig_result *r = NULL;
    if (w->cancelled)
        r = rig_result_error("Reading the tree of '%s' was cancelled.", path);
    else if (w->oom || !json)
        r = rig_result_error("Out of memory reading the tree of '%s'.", path);
    else {
        r = rig_result_new();
        rig_result_textn(r, json, len);
        w->hidden_n = 0;
        add_notes(w, r, "directory_tree", path, TREE_CAP);
    }
    walker_done(w);
    free(w);
    return r;
}

static const rig_builtin_spec directory_tree_spec = {
    .name = "directory_tree",
    .title = "Show a directory tree",
    .description =
        "Show the tree under a directory inside the allowed directories as JSON: an array "
        "of {\"name\", \"type\": \"file\"|\"directory\"|\"symlink\"|\"other\", \"children\": "
        "[...]} sorted by name; a symlink also has \"target\" and is never followed. A "
        "directory has \"children\" only when it was expanded: those at max_depth (default "
        "3 levels) are not. .git and entries matched by ignore files found on the way (.gitignore inside a "
        "git repository, .ignore, .rgignore) or "
        "by exclude_patterns are left out. At most 1000 entries; a note after the JSON says "
        "how many more there are. For sizes and a flat listing use list_directory.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The directory at "
        "the top of the tree: absolute, or relative to the first allowed directory.\"},"
        "\"max_depth\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"How many levels "
        "to show: 1 is the directory's own entries (default 3).\"},"
        "\"exclude_patterns\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
        "\"minLength\":1},\"maxItems\":100,\"description\":\"Glob patterns of entries to "
        "leave out, in .gitignore syntax: 'node_modules', '*.tmp', 'build/' (directories "
        "only), 'docs/**/*.png' (relative to the top directory).\"}},"
        "\"required\":[\"path\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = directory_tree_run,
};

/* ---- get_file_info ------------------------------------------------------ */

static void iso_time(char *out, size_t cap, int64_t sec) {
    time_t t = (time_t)sec;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(out, cap, "?");
        return;
    }
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static rig_result *get_file_info_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *get_file_info_run(rig_call *call) {
    return rig__fs_with_roots(call, get_file_info_run_in);
}

static rig_result *get_file_info_run_in(rig_call *call, rig_roots *roots) {
    const char *path = rig_call_str(call, "path", NULL);
    if (!path || !*path)
        return rig_result_error("A path is needed: call get_file_info with a path.");
    rig_error err = {0};
    /* O_PATH | O_NOFOLLOW: a symlink as the last component is the link itself. */
    int fd = rig_roots_open(roots, path, O_PATH | O_NOFOLLOW, 0, NULL, &err);
    if (fd < 0) {
        if (err.code == RIG_ENOENT)
            return rig_result_error("No such file or directory: '%s'. Check the path, or call "
                                    "list_directory on its parent to see what exists.",
                                    path);
        return rig_result_error("%s", err.message);
    }
    struct statx sx;
    bool have_btime = false;
    struct stat st;
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME,
              &sx) == 0) {
        memset(&st, 0, sizeof st);
        st.st_mode = sx.stx_mode;
        st.st_size = (off_t)sx.stx_size;
        st.st_nlink = sx.stx_nlink;
        st.st_mtim.tv_sec = sx.stx_mtime.tv_sec;
        st.st_atim.tv_sec = sx.stx_atime.tv_sec;
        st.st_ctim.tv_sec = sx.stx_ctime.tv_sec;
        have_btime = (sx.stx_mask & STATX_BTIME) != 0;
    } else if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        close(fd);
        return rig_result_error("'%s': %s.", path, strerror(e));
    }
    const char *type = S_ISREG(st.st_mode)   ? "file"
                       : S_ISDIR(st.st_mode) ? "directory"
                       : S_ISLNK(st.st_mode) ? "symlink"
                                             : "other";
    char target[PATH_MAX];
    ssize_t tn = -1;
    if (S_ISLNK(st.st_mode)) {
        tn = readlinkat(fd, "", target, sizeof target - 1);
        if (tn < 0) { /* kernels without readlinkat on an O_PATH link: the parent */
            char leaf[NAME_MAX + 1];
            int pfd = rig_roots_open_parent(roots, path, leaf, sizeof leaf, NULL);
            if (pfd >= 0) {
                tn = readlinkat(pfd, leaf, target, sizeof target - 1);
                close(pfd);
            }
        }
        target[tn > 0 ? tn : 0] = '\0';
    }
    close(fd);
    char created[32] = "", modified[32], accessed[32], perms[8], size[32];
    if (have_btime)
        iso_time(created, sizeof created, sx.stx_btime.tv_sec);
    iso_time(modified, sizeof modified, st.st_mtim.tv_sec);
    iso_time(accessed, sizeof accessed, st.st_atim.tv_sec);
    snprintf(perms, sizeof perms, "%04o", (unsigned)(st.st_mode & 07777));
    human_size(size, sizeof size, (long long)st.st_size);

    rig_result *r = rig_result_new();
    rig__buf t = {0};
    rig__buf_addf(&t, "path: %s\ntype: %s\nsize: %lld bytes", path, type, (long long)st.st_size);
    if (st.st_size >= 1024)
        rig__buf_addf(&t, " (%s)", size);
    if (S_ISLNK(st.st_mode))
        rig__buf_addf(&t, "\ntarget: %s", tn >= 0 ? target : "(unreadable)");
    rig__buf_addf(&t, "\npermissions: %s\ncreated: %s\nmodified: %s\naccessed: %s", perms,
             have_btime ? created : "(not recorded by this file system)", modified, accessed);
    rig_result_textn(r, t.p ? t.p : "", t.len);
    bool oom = t.oom;
    free(t.p);
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "path");
        rig_json_write_string(w, path);
        rig_json_write_key(w, "type");
        rig_json_write_string(w, type);
        rig_json_write_key(w, "size");
        rig_json_write_int(w, (int64_t)st.st_size);
        rig_json_write_key(w, "permissions");
        rig_json_write_string(w, perms);
        if (have_btime) {
            rig_json_write_key(w, "created");
            rig_json_write_string(w, created);
        }
        rig_json_write_key(w, "modified");
        rig_json_write_string(w, modified);
        rig_json_write_key(w, "accessed");
        rig_json_write_string(w, accessed);
        if (S_ISLNK(st.st_mode) && tn >= 0) {
            rig_json_write_key(w, "target");
            rig_json_write_string(w, target);
        }
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
    if (oom) {
        rig_result_free(r);
        return rig_result_error("Out of memory describing '%s'.", path);
    }
    return r;
}

static const rig_builtin_spec get_file_info_spec = {
    .name = "get_file_info",
    .title = "Get file information",
    .description =
        "Describe a file, directory or symlink inside the allowed directories without "
        "reading it: its type (file, directory, symlink, other), size in bytes, permissions "
        "in octal (e.g. \"0644\"), and created (when the file system records it), modified "
        "and accessed times in ISO 8601 UTC. A symlink is described itself, never followed, "
        "with its target. Use it to check that a path exists, or how large a file is before "
        "reading it.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The path to "
        "describe: absolute, or relative to the first allowed directory.\"}},"
        "\"required\":[\"path\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\"},"
        "\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"directory\",\"symlink\","
        "\"other\"]},"
        "\"size\":{\"type\":\"integer\",\"minimum\":0},"
        "\"permissions\":{\"type\":\"string\"},"
        "\"created\":{\"type\":\"string\"},"
        "\"modified\":{\"type\":\"string\"},"
        "\"accessed\":{\"type\":\"string\"},"
        "\"target\":{\"type\":\"string\"}},"
        "\"required\":[\"path\",\"type\",\"size\",\"permissions\",\"modified\","
        "\"accessed\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = get_file_info_run,
};

/* ---- read_multiple_files ------------------------------------------------ */

/* Append `n` bytes as UTF-8, invalid bytes as U+FFFD. */
static void add_utf8(rig__buf *b, const unsigned char *p, size_t n, size_t *bad) {
    const unsigned char *end = p + n;
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p < 0x80)
            p++;
        rig__buf_add(b, run, (size_t)(p - run));
        if (p >= end)
            break;
        size_t len = rig__utf8_seq(p, end);
        if (len) {
            rig__buf_add(b, p, len);
            p += len;
        } else {
            rig__buf_add(b, "\xEF\xBF\xBD", 3);
            (*bad)++;
            p++;
        }
    }
}

/* One file's section: "==> path <==" and its text, or why not. True when
 * the file was read. */
static bool read_one(rig_roots *roots, const char *path, size_t budget, rig__buf *out) {
    rig__buf_addf(out, "==> %s <==\n", path);
    rig_error err = {0};
    int fd = rig_roots_open(roots, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0, NULL, &err);
    if (fd < 0) {
        if (err.code == RIG_ENOENT)
            rig__buf_addf(out, "[Error: no such file: '%s'. Check the path, or call list_directory "
                          "to see what exists.]\n",
                     path);
        else
            rig__buf_addf(out, "[Error: %s]\n", err.message);
        return false;
    }
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) != 0) {
        rig__buf_addf(out, "[Error: '%s': %s.]\n", path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        rig__buf_addf(out, "[Error: '%s' is a directory; call list_directory to see what it "
                      "holds.]\n",
                 path);
    } else if (!S_ISREG(st.st_mode)) {
        rig__buf_addf(out, "[Error: '%s' is not a regular file.]\n", path);
    } else {
        size_t want = budget < MULTI_MAX_BYTES ? budget : MULTI_MAX_BYTES;
        unsigned char *data = malloc(want + 1);
        size_t got = 0;
        while (data && got < want + 1) { /* one byte more: is there more? */
            ssize_t k = pread(fd, data + got, want + 1 - got, (off_t)got);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                if (k < 0)
                    got = SIZE_MAX;
                break;
            }
            got += (size_t)k;
        }
        if (!data) {
            out->oom = true;
        } else if (got == SIZE_MAX) {
            rig__buf_addf(out, "[Error: reading '%s' failed: %s.]\n", path, strerror(errno));
        } else if (memchr(data, '\0', got < 8192 ? got : 8192)) {
            rig__buf_addf(out, "[Error: '%s' is binary (%lld bytes), not text. Call read_file "
                          "with binary=true to get it.]\n",
                     path, (long long)st.st_size);
        } else if (got == 0) {
            rig__buf_addf(out, "[The file is empty.]\n");
            ok = true;
        } else {
            bool more = got > want;
            size_t n = more ? want : got, lines = 0, cut = n;
            for (size_t i = 0; i < n; i++)
                if (data[i] == '\n' && ++lines == MULTI_MAX_LINES) {
                    cut = i + 1;
                    more = more || cut < got;
                    break;
                }
            if (more && cut == n) {
                /* stop at the last whole line, if there is one */
                size_t k = n;
                while (k && data[k - 1] != '\n')
                    k--;
                if (k)
                    cut = k;
                else /* one long line: cut at a character boundary */
                    while (cut > 1 && (data[cut] & 0xC0) == 0x80)
                        cut--;
            }
            size_t nl = 0;
            for (size_t i = 0; i < cut; i++)
                nl += data[i] == '\n';
            size_t bad = 0;
            add_utf8(out, data, cut, &bad);
            if (data[cut - 1] != '\n')
                rig__buf_add(out, "\n", 1);
            if (more)
                rig__buf_addf(out, "[Only the first %zu line%s shown (%zu of %lld bytes). Call "
                              "read_file with path='%s' and offset=%zu to read on.]\n",
                         nl ? nl : 1, nl > 1 ? "s" : "", cut, (long long)st.st_size, path,
                         nl + 1);
            if (bad)
                rig__buf_addf(out, "[%zu byte%s not valid UTF-8 shown as U+FFFD.]\n", bad,
                         bad == 1 ? "" : "s");
            ok = true;
        }
        free(data);
    }
    close(fd);
    return ok;
}

static rig_result *read_multiple_files_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *read_multiple_files_run(rig_call *call) {
    return rig__fs_with_roots(call, read_multiple_files_run_in);
}

static rig_result *read_multiple_files_run_in(rig_call *call, rig_roots *roots) {
    rig_json_val arr = rig_json_get(rig_call_args(call), "paths");
    size_t n = rig_json_len(arr);
    if (!n)
        return rig_result_error("paths is needed: call read_multiple_files with 1 to 100 "
                                "file paths.");
    rig_result *r = rig_result_new();
    if (!r)
        return rig_result_error("Out of memory.");
    size_t good = 0, used = 0, i = 0;
    rig_json_iter it = rig_json_iter_init(arr);
    rig_json_val v;
    bool oom = false;
    while (rig_json_iter_next(&it, &v)) {
        i++;
        const char *path = rig_json_str_dup(v, rig_call_arena(call), NULL);
        rig__buf one = {0};
        if (!path) {
            oom = true;
            break;
        }
        if (rig_call_cancelled(call)) {
            rig_result_free(r);
            return rig_result_error("The reads were cancelled.");
        }
        if (used >= MULTI_TOTAL_BYTES) {
            rig__buf_addf(&one, "==> %s <==\n[Not read: this result is full. Call "
                           "read_multiple_files again with the paths from here on.]\n",
                     path);
        } else if (read_one(roots, path, MULTI_TOTAL_BYTES - used, &one)) {
            good++;
        }
        used += one.len;
        if (one.oom)
            oom = true;
        else
            rig_result_textn(r, one.p, one.len);
        free(one.p);
        if (oom)
            break;
    }
    if (oom) {
        rig_result_free(r);
        return rig_result_error("Out of memory reading the files.");
    }
    if (!good)
        rig_result_set_error(r, true);
    return r;
}

static const rig_builtin_spec read_multiple_files_spec = {
    .name = "read_multiple_files",
    .title = "Read several files",
    .description =
        "Read several text files inside the allowed directories in one call, faster than "
        "read_file one at a time. Each file comes back as its own text block, headed "
        "'==> path <==', with its first 2000 lines (at most 45,000 bytes); a longer file "
        "ends with a note giving the read_file offset that continues. Each file succeeds or "
        "fails on its own: a missing, binary or unreadable file gets an '[Error: ...]' line "
        "and the others are still read. The call fails only when no file could be read. "
        "Binary files need read_file with binary=true.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":100,\"items\":{\"type\":"
        "\"string\",\"minLength\":1},\"description\":\"The files to read (1 to 100): "
        "absolute, or relative to the first allowed directory.\"}},"
        "\"required\":[\"paths\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = read_multiple_files_run,
};

/* ---- constructors ------------------------------------------------------- */


rig_tool *rig__list_directory_tool_new(rig_roots *roots, rig_error *err) {
    return rig__fs_tool_new(&list_directory_spec, roots, err);
}

rig_tool *rig__directory_tree_tool_new(rig_roots *roots, rig_error *err) {
    return rig__fs_tool_new(&directory_tree_spec, roots, err);
}

rig_tool *rig__get_file_info_tool_new(rig_roots *roots, rig_error *err) {
    return rig__fs_tool_new(&get_file_info_spec, roots, err);
}

rig_tool *rig__read_multiple_files_tool_new(rig_roots *roots, rig_error *err) {
    return rig__fs_tool_new(&read_multiple_files_spec, roots, err);
}
