/* fs_glob.c — `glob`: find files by name pattern under a directory inside
 * the roots (rig/roots.h), newest first.
 *
 * The pattern is matched against each file's path relative to the start
 * directory: `*` and `?` never cross a '/', `[...]` is a set, `**` is any
 * number of directories (fs_list.c's rig__glob_match). The walk is
 * list_directory's: children opened relative to their directory's
 * descriptor with O_NOFOLLOW, so symlinked directories are never entered
 * and nothing outside the roots is reached; `.git` is skipped and the
 * ignore files met on the way are honoured (rig__ignore). Directories
 * the pattern cannot reach below are not entered. Hidden entries (names
 * starting with '.') are only looked at when the pattern names one.
 *
 * Memory is bounded by the cap: a min-heap keeps the GLOB_CAP newest
 * matches; the rest are only counted. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "rig/json.h"
#include "tools/builtins.h"
#include "tools/fs.h"

#define GLOB_CAP 1000        /* files shown */
#define VISIT_MAX 500000     /* entries looked at before giving up */
#define DEPTH_MAX 64         /* directory levels entered */
#define SEG_MAX 64           /* segments of a pattern */

typedef struct match {
    char *path; /* relative to the start */
    int64_t sec;
    long nsec;
} match;

typedef struct globber {
    rig_call *call;
    const char *pattern;
    char *segs[SEG_MAX];
    size_t nseg;
    long dd;                 /* index of the first segment holding "**", or -1 */
    bool hidden;             /* look at names starting with '.' */
    rig__ignore *ig;
    char rel[PATH_MAX];
    size_t rel_len;
    match *heap;             /* min-heap: the oldest kept match at [0] */
    size_t n;
    size_t total, visited, ignored, unreadable;
    bool stopped, too_deep, cancelled, oom;
} globber;

/* Is a newer than b? Equal times: the smaller path counts as newer, so the
 * order is total and the output stable. */
static bool newer(const match *a, const match *b) {
    if (a->sec != b->sec)
        return a->sec > b->sec;
    if (a->nsec != b->nsec)
        return a->nsec > b->nsec;
    return strcmp(a->path, b->path) < 0;
}

static void heap_down(match *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && newer(&h[m], &h[l]))
            m = l;
        if (r < n && newer(&h[m], &h[r]))
            m = r;
        if (m == i)
            return;
        match t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_up(match *h, size_t i) {
    while (i && newer(&h[(i - 1) / 2], &h[i])) {
        match t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int newest_first(const void *a, const void *b) {
    const match *x = a, *y = b;
    return newer(x, y) ? -1 : newer(y, x) ? 1 : 0;
}

/* A match at g->rel + "/" + name, modified at st. */
static void add_match(globber *g, const char *sub, const struct stat *st) {
    g->total++;
    match m = {NULL, (int64_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec};
    if (g->n == GLOB_CAP) {
        m.path = (char *)sub;
        if (!newer(&m, &g->heap[0]))
            return;
        char *p = strdup(sub);
        if (!p) {
            g->oom = true;
            return;
        }
        free(g->heap[0].path);
        m.path = p;
        g->heap[0] = m;
        heap_down(g->heap, g->n, 0);
        return;
    }
    m.path = strdup(sub);
    if (!m.path) {
        g->oom = true;
        return;
    }
    g->heap[g->n] = m;
    heap_up(g->heap, g->n++);
}

/* May a directory named `name` at level `level` (1: in the start directory)
 * hold matches? */
static bool could_enter(const globber *g, size_t level, const char *name) {
    if (g->dd >= 0 && (size_t)g->dd <= level - 1)
        return true;
    if (level >= g->nseg)
        return false;
    return fnmatch(g->segs[level - 1], name, 0) == 0;
}

static bool is_dir_entry(int dirfd, const struct dirent *de, struct stat *st, bool *have_st) {
    *have_st = false;
    if (de->d_type != DT_UNKNOWN)
        return de->d_type == DT_DIR;
    if (fstatat(dirfd, de->d_name, st, AT_SYMLINK_NOFOLLOW) != 0)
        return false;
    *have_st = true;
    return S_ISDIR(st->st_mode);
}

/* Look through the directory open as dirfd (kept open: the caller owns
 * it), whose entries are at `level`. */
static void walk(globber *g, int dirfd, size_t level) {
    if (!rig__ignore_push(g->ig, dirfd, g->rel_len)) {
        g->oom = true;
        return;
    }
    int dfd = dup(dirfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        g->unreadable++;
        rig__ignore_pop(g->ig);
        return;
    }
    struct dirent *de;
    while (!g->stopped && !g->cancelled && !g->oom && (de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, ".git") == 0)
            continue;
        if (name[0] == '.' && !g->hidden)
            continue;
        if (++g->visited >= VISIT_MAX) {
            g->stopped = true;
            break;
        }
        if ((g->visited & 1023) == 0 && rig_call_cancelled(g->call)) {
            g->cancelled = true;
            break;
        }
        size_t saved;
        if (!rig__rel_push(g->rel, &g->rel_len, name, &saved)) {
            g->too_deep = true;
            continue;
        }
        struct stat st;
        bool have_st;
        bool dir = is_dir_entry(dirfd, de, &st, &have_st);
        if (rig__ignore_hit(g->ig, g->rel, name, dir)) {
            g->ignored++;
        } else if (dir) {
            if (could_enter(g, level, name)) {
                if (level >= DEPTH_MAX) {
                    g->too_deep = true;
                } else {
                    int fd = openat(dirfd, name,
                                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (fd < 0) {
                        g->unreadable++;
                    } else {
                        walk(g, fd, level + 1);
                        close(fd);
                    }
                }
            }
        } else if (rig__glob_match(g->pattern, g->rel)) {
            if (have_st || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                add_match(g, g->rel, &st);
        }
        rig__rel_pop(g->rel, &g->rel_len, saved);
    }
    closedir(d);
    rig__ignore_pop(g->ig);
}

static void globber_done(globber *g) {
    for (size_t i = 0; i < g->n; i++)
        free(g->heap[i].path);
    free(g->heap);
    free(g->segs[0]);
    rig__ignore_free(g->ig);
}

/* Split the pattern into its segments (one copy, cut at '/'): 0, or
 * ENOMEM, or E2BIG for too many. */
static int split_segments(globber *g, const char *pattern) {
    char *copy = strdup(pattern);
    if (!copy)
        return ENOMEM;
    g->dd = -1;
    for (char *s = copy; s;) {
        char *slash = strchr(s, '/');
        if (slash)
            *slash = '\0';
        if (g->nseg == SEG_MAX) {
            g->nseg = 0;
            free(copy);
            return E2BIG;
        }
        if (g->dd < 0 && strstr(s, "**"))
            g->dd = (long)g->nseg;
        g->segs[g->nseg++] = s;
        s = slash ? slash + 1 : NULL;
    }
    return 0;
}

static rig_result *glob_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *glob_run(rig_call *call) {
    return rig__fs_with_roots(call, glob_run_in);
}

static rig_result *glob_run_in(rig_call *call, rig_roots *roots) {
    const char *pattern = rig_call_str(call, "pattern", NULL);
    const char *path = rig_call_str(call, "path", NULL);
    if (!pattern || !*pattern)
        return rig_result_error("A pattern is needed, such as '**/*.c' or 'src/*.h'.");
    while (pattern[0] == '.' && pattern[1] == '/')
        pattern += 2;
    if (pattern[0] == '/')
        return rig_result_error("The pattern '%s' is absolute. Give a pattern relative to the "
                                "directory searched, and that directory as path (e.g. "
                                "path='/src', pattern='**/*.c').",
                                pattern);
    for (const char *s = pattern; (s = strstr(s, "..")) != NULL; s += 2)
        if ((s == pattern || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
            return rig_result_error("The pattern '%s' climbs with '..'. Patterns match "
                                    "below path: pass the directory to search as path "
                                    "instead.",
                                    pattern);
    if (!*pattern || pattern[strlen(pattern) - 1] == '/')
        return rig_result_error("The pattern '%s' matches directories only; glob finds "
                                "files. Add a file part (e.g. '%s*'), or call "
                                "list_directory.",
                                pattern, pattern);
    if (!path || !*path)
        path = ".";

    globber *g = calloc(1, sizeof *g);
    if (!g)
        return rig_result_error("Out of memory searching '%s'.", path);
    g->call = call;
    g->pattern = pattern;
    g->hidden = pattern[0] == '.' || strstr(pattern, "/.") != NULL;
    g->ig = rig__ignore_new(roots, path);
    g->heap = malloc(GLOB_CAP * sizeof *g->heap);
    rig_result *r = NULL;
    if (!g->ig || !g->heap) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    int se = split_segments(g, pattern);
    if (se) {
        r = se == E2BIG ? rig_result_error("The pattern '%s' has more than %d parts.", pattern, SEG_MAX)
                : rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }

    rig_error err = {0};
    int eno = 0;
    int fd = rig_roots_open(roots, path, O_RDONLY | O_DIRECTORY, 0, &eno, &err);
    if (fd < 0) {
        if (err.code == RIG_ENOENT)
            r = rig_result_error("No such directory: '%s'. Check the path, or call "
                                 "list_directory on its parent to see what exists.",
                                 path);
        else if (eno == ENOTDIR)
            r = rig_result_error("'%s' is not a directory: glob searches below a directory.",
                                 path);
        else
            r = rig_result_error("%s", err.message);
        goto out;
    }
    walk(g, fd, 1);
    close(fd);
    if (g->cancelled) {
        r = rig_result_error("Searching '%s' was cancelled.", path);
        goto out;
    }
    if (g->oom) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    qsort(g->heap, g->n, sizeof *g->heap, newest_first);

    /* Paths as the model gave the directory: "src/a.c" for path "src". */
    size_t plen = strlen(path);
    while (plen > 1 && path[plen - 1] == '/')
        plen--;
    bool bare = (plen == 1 && path[0] == '.');
    const char *sep = bare || (plen == 1 && path[0] == '/') ? "" : "/";
    if (bare)
        plen = 0;
    size_t cap = 1;
    for (size_t i = 0; i < g->n; i++)
        cap += plen + 1 + strlen(g->heap[i].path) + 1;
    char *text = malloc(cap), *at = text;
    r = rig_result_new();
    if (!text || !r) {
        free(text);
        rig_result_free(r);
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    for (size_t i = 0; i < g->n; i++)
        at += sprintf(at, "%.*s%s%s\n", (int)plen, path, plen ? sep : "", g->heap[i].path);
    if (g->n)
        rig_result_textn(r, text, (size_t)(at - text));
    else if (g->ignored)
        rig_result_textf(r, "No files match '%s' in '%s' (%zu entr%s matched by ignore files "
                            "%s skipped).",
                         pattern, path, g->ignored, g->ignored == 1 ? "y" : "ies",
                         g->ignored == 1 ? "was" : "were");
    else
        rig_result_textf(r, "No files match '%s' in '%s'.", pattern, path);
    free(text);
    if (g->total > g->n)
        rig_result_textf(r, "[Showing the %zu most recently modified of %zu matching files "
                            "(the limit is %d). Narrow the pattern or path to see the rest.]",
                         g->n, g->total, GLOB_CAP);
    if (g->stopped)
        rig_result_textf(r, "[The search stopped after looking at %d entries, so there may "
                            "be more matches. Narrow the path or the pattern.]",
                         VISIT_MAX);
    if (g->unreadable)
        rig_result_textf(r, "[%zu director%s could not be read.]", g->unreadable,
                         g->unreadable == 1 ? "y" : "ies");
    if (g->too_deep)
        rig_result_textf(r, "[Directories more than %d levels down were not searched; give "
                            "a deeper path.]",
                         DEPTH_MAX);
out:
    globber_done(g);
    free(g);
    return r;
}

static const rig_builtin_spec glob_spec = {
    .name = "glob",
    .title = "Find files by name",
    .description =
        "Find files whose paths match a glob pattern, under a directory inside the allowed "
        "directories (default: the first one). The pattern is matched against each file's "
        "path relative to that directory: '*' matches within one name, '?' one character, "
        "'[abc]' or '[a-z]' one of a set, and '**' any number of directories, so '**/*.c' "
        "finds C files at any depth and '*.txt' only at the top. Results are paths usable "
        "with read_file, one a line, most recently modified first. Files matched by "
        "ignore files found on the way (.gitignore inside a git repository, .ignore, "
        ".rgignore) are left out, .git is never searched, symlinked "
        "directories are not entered, and names starting with '.' are only searched when "
        "the pattern names one (e.g. '**/.env'). At most 1000 files are shown; a note says "
        "how many more matched. For directories use list_directory; to search inside files "
        "use a content search.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The glob to "
        "match against paths relative to path, e.g. '**/*.ts', 'src/**/test_*.py', "
        "braces ('*.{c,h}') are not supported: call once per pattern.\"},"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The directory to "
        "search: absolute, or relative to the first allowed directory (default: the first "
        "allowed directory).\"}},"
        "\"required\":[\"pattern\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = glob_run,
};

rig_tool *rig__glob_tool_new(rig_roots *roots, rig_error *err) {
    return rig__fs_tool_new(&glob_spec, roots, err);
}
