/* fs_grep.c — `grep`: search file contents with a regular expression
 * (PCRE2, JIT-compiled) under a directory or in one file inside the roots
 * (rig/roots.h).
 *
 * The walk is glob's: children opened relative to their directory's
 * descriptor with O_NOFOLLOW (symlinks are never followed, nothing outside
 * the roots is reached), `.git` skipped, ignore files honoured as ripgrep
 * honours them (rig__ignore: .ignore, .rgignore, and .gitignore inside a
 * git repository) and hidden names skipped unless no_ignore. Each
 * directory's entries are sorted by name before they are visited, so
 * results come out in path order and paging (offset, head_limit) is
 * deterministic and can stop early.
 *
 * Parallel search, ordered output: the calling thread walks the tree,
 * numbering the files; past the first few (a small tree is not worth a
 * thread) searcher threads, one per core, take them from a queue, open
 * them relative to their directory (shared, reference-counted) and search
 * them, and each file's results wait in a window of WINDOW slots until
 * every file before it is done. The caller merges slots in number order, which
 * applies the paging, so the output is exactly the serial one. The window
 * bounds the open descriptors and the memory held; a file gives at most
 * offset + head_limit + 1 result lines, all the page can use.
 *
 * Files are read into a per-searcher buffer (mapped when larger than
 * READ_MAX, skipped past FILE_MAX); a NUL in the first 8 KiB makes a file
 * binary, and binary files are skipped. A line-by-line search calls PCRE2
 * once per line, which costs more than the match itself on most files; so
 * when the pattern's meaning cannot depend on what lies past a line's ends
 * (no lookaround, no \A \z \Z \G, no verbs), a second compile with
 * PCRE2_MULTILINE scans the whole buffer and only the lines it lands on
 * are looked at; a match that spans a newline is checked again on its line
 * alone. With multiline the pattern runs over the whole file (PCRE2_MULTILINE
 * | PCRE2_DOTALL) and every line a match touches counts as matching. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "core/internal.h"
#include "rig/arena.h"
#include "rig/json.h"
#include "tools/builtins.h"
#include "tools/fs.h"
#include "util/buf.h"

#define VISIT_MAX 500000           /* entries looked at before giving up */
#define DEPTH_MAX 64               /* directory levels entered */
#define FILE_MAX (1024u << 20)     /* larger files are skipped */
#define READ_MAX (4u << 20)        /* larger files are read in chunks of this size */
#define WHOLE_MAX (64u << 20)      /* context and multiline read a file whole: at most this */
#define LINE_BYTES_MAX (64u << 20) /* a longer line is searched in pieces */
#define SNIFF 8192                 /* bytes looked at for a NUL */
#define HEAD_DEFAULT 250
#define CTX_MAX 100                /* lines of context at most */
#define LINE_SHOW_MAX 2000         /* longer lines are cut in content mode */
#define MATCH_LIMIT 1000000        /* PCRE2 steps per match attempt (its default: 10^7) */
#define INLINE_FILES 16            /* files searched by the caller before threads start */
#define THREADS_MAX 8
#define WINDOW 64                  /* files in flight (open descriptors, held results) */
#define PAD 64                     /* zeroed bytes after the text in a searcher's buffer */

enum mode { M_FILES, M_CONTENT, M_COUNT };

/* What every searcher reads and nobody writes once the search starts. */
typedef struct gconf {
    rig_call *call;
    pcre2_code *re;                /* matches one line (or, multiline, the file) */
    pcre2_code *scan;              /* the whole-buffer scanner, or NULL */
    pcre2_match_context *mctx;     /* the match limit */
    enum mode mode;
    bool multiline, numbers;
    size_t before, after;
    size_t line_cap;               /* result lines one file may give */
    const char *shown_prefix;      /* the path as given, for output */
    size_t prefix_len;
    const char *sep;
} gconf;

/* One searcher's scratch, reused from file to file. */
typedef struct searcher {
    pcre2_match_data *md;
    char *buf;
    size_t cap;
} searcher;

/* What searching one file gave. */
typedef struct fres {
    rig__buf out;                    /* result lines, each ending in '\n' */
    size_t lines;
    bool matched, searched, binary, too_big, too_big_whole, unreadable, match_error, full;
} fres;

/* A file handed to the searcher threads: its number in walk order. */
/* A directory of the walk, shared by the walk and the jobs of its files:
 * the searchers open the files themselves (relative to it, O_NOFOLLOW), so
 * the walk's thread does not pay for every open; the last one out closes
 * it. At most WINDOW jobs are out, so few stay open. */
typedef struct dref {
    int fd;
    atomic_int refs;
} dref;

static void dref_put(dref *d) {
    if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) == 1) {
        close(d->fd);
        free(d);
    }
}

/* A file handed to the searcher threads: its number in walk order, its
 * directory and its path (the name is the last component). */
typedef struct job {
    size_t seq;
    dref *dir;
    char *rel;
} job;

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    job q[WINDOW];
    size_t qhead, qlen;
    fres slot[WINDOW];
    bool ready[WINDOW];
    size_t next_seq, merged;       /* numbers given out / merged so far */
    bool closing, skip;            /* no more jobs / search no more (stopped) */
    pthread_t th[THREADS_MAX];
    size_t nth;
    const gconf *c;
} pool;

typedef struct grepper {
    gconf c;
    bool no_ignore;
    const char *glob;              /* file name filter, or NULL */
    bool glob_path;                /* the filter has a '/': match the relative path */
    const char *type_globs;        /* `type`: its globs, space-separated, or NULL */
    const char **excl;             /* exclude_patterns (in the call's arena) */
    size_t nexcl;
    size_t excluded;
    size_t offset, limit;
    rig__ignore *ig;
    char rel[PATH_MAX];
    size_t rel_len;
    searcher self;                 /* the caller's, for inline files */
    size_t inline_left;
    pool *pl;                      /* NULL until threads start, or single-threaded */
    size_t nthreads;
    rig__buf out;
    size_t seen;                   /* result lines produced (shown or not) */
    size_t files_searched, files_matched, binary, too_big, too_big_whole, unreadable, ignored,
        visited;
    bool truncated, stopped, too_deep, cancelled, match_error;
} grepper;

/* ---- searching one file (any thread) ------------------------------------ */

/* Room for one more result line in this file's results? */
static bool room(const gconf *c, fres *res) {
    if (res->lines >= c->line_cap) {
        res->full = true;
        return false;
    }
    res->lines++;
    return true;
}

static void out_path(const gconf *c, fres *res, const char *rel, size_t rel_len) {
    if (c->prefix_len) {
        rig__buf_add(&res->out, c->shown_prefix, c->prefix_len);
        if (rel_len)
            rig__buf_add(&res->out, c->sep, strlen(c->sep));
    }
    rig__buf_add(&res->out, rel, rel_len);
}

/* One line of content output: `mark` ':' for a match, '-' for context. */
static void emit_line(const gconf *c, fres *res, const char *rel, size_t rel_len,
                      const char *line, size_t len, size_t lineno, char mark) {
    if (!room(c, res))
        return;
    out_path(c, res, rel, rel_len);
    rig__buf_add(&res->out, &mark, 1);
    if (c->numbers) {
        rig__buf_addf(&res->out, "%zu", lineno);
        rig__buf_add(&res->out, &mark, 1);
    }
    if (len && line[len - 1] == '\r')
        len--;
    if (len > LINE_SHOW_MAX) {
        rig__buf_add(&res->out, line, LINE_SHOW_MAX);
        rig__buf_addf(&res->out, " [... %zu more bytes]", len - LINE_SHOW_MAX);
    } else {
        rig__buf_add(&res->out, line, len);
    }
    rig__buf_add(&res->out, "\n", 1);
}

static void emit_sep(const gconf *c, fres *res) {
    if (room(c, res))
        rig__buf_add(&res->out, "--\n", 3);
}

/* pcre2_match of `re` on [s, s+n) from `start`: 1 match, 0 none, -1 error
 * (e.g. the match limit: counted as no match, and said in a note). */
static int run_match(const gconf *c, const pcre2_code *re, searcher *s, fres *res,
                     const char *subj, size_t n, size_t start) {
    int rc = pcre2_match(re, (PCRE2_SPTR)subj, n, start, 0, s->md, c->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    res->match_error = true;
    return -1;
}

/* The start of the first line at or after `from` (a line start) that the
 * pattern matches on its own, or n when there is none. */
static size_t next_line_hit(const gconf *c, searcher *s, fres *res, const char *buf, size_t n,
                            size_t from) {
    size_t lines = 0;
    for (size_t ls = from; ls < n;) {
        const char *nl = memchr(buf + ls, '\n', n - ls);
        size_t le = nl ? (size_t)(nl - buf) : n;
        if (run_match(c, c->re, s, res, buf + ls, le - ls, 0) > 0)
            return ls;
        /* Often enough that a pattern slow on every line (MATCH_LIMIT steps
         * each) still notices the deadline within a fraction of a second. */
        if ((++lines & 15) == 0 && rig_call_cancelled(c->call))
            return n;
        ls = nl ? le + 1 : n;
    }
    return n;
}

/* The start of the first line at or after `from` (a line start) that the
 * pattern matches, or n when there is none. Not for multiline. */
static size_t next_hit(const gconf *c, searcher *s, fres *res, const char *buf, size_t n,
                       size_t from) {
    if (c->scan) {
        size_t calls = 0;
        for (size_t pos = from; pos < n;) {
            if ((++calls & 63) == 0 && rig_call_cancelled(c->call))
                return n;
            /* Not run_match: a scan that hits the limit is no failure of any
             * line's, and the lines are then tried one by one. */
            int rc = pcre2_match(c->scan, (PCRE2_SPTR)buf, n, pos, 0, s->md, c->mctx);
            if (rc == PCRE2_ERROR_NOMATCH)
                return n;
            if (rc < 0)
                return next_line_hit(c, s, res, buf, n, pos);
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
            size_t ms = ov[0];
            if (ms >= n && buf[n - 1] == '\n')
                return n; /* an empty match after the last newline: no line there */
            const char *nl = ms > pos ? memrchr(buf + pos, '\n', ms - pos) : NULL;
            size_t ls = nl ? (size_t)(nl - buf) + 1 : pos;
            const char *e = ms < n ? memchr(buf + ms, '\n', n - ms) : NULL;
            size_t le = e ? (size_t)(e - buf) : n;
            /* The line alone has the last word: a match across a newline,
             * or one that \K or a lookaround the list below missed moved,
             * may not stand on it. One more match per matching line. */
            if (run_match(c, c->re, s, res, buf + ls, le - ls, 0) > 0)
                return ls;
            pos = e ? le + 1 : n;
        }
        return n;
    }
    return next_line_hit(c, s, res, buf, n, from);
}

/* Newlines in [p, p+n). */
static size_t count_nl(const char *p, size_t n) {
    size_t k = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        k++;
    return k;
}

typedef struct ring_ent {
    size_t start, len, lineno;
} ring_ent;

/* Where a jumping search stands between chunks of a file. */
typedef struct jstate {
    size_t count;                  /* matching lines so far */
    size_t lineno;                 /* the number of the line the next chunk starts with */
} jstate;

/* No context, line by line: jump from hit to hit through the `n` bytes at
 * buf, whole lines of the file (a chunk, or all of it). False when the
 * file needs no more looking at. */
static bool search_jumping(const gconf *c, searcher *s, fres *res, const char *rel,
                           size_t rel_len, const char *buf, size_t n, jstate *js) {
    size_t counted_to = 0;
    bool numbering = c->mode == M_CONTENT && c->numbers;
    for (size_t ls = next_hit(c, s, res, buf, n, 0); ls < n;) {
        js->count++;
        const char *nl = memchr(buf + ls, '\n', n - ls);
        size_t le = nl ? (size_t)(nl - buf) : n;
        if (c->mode == M_FILES)
            return false;
        if (c->mode == M_CONTENT) {
            if (numbering) {
                js->lineno += count_nl(buf + counted_to, ls - counted_to);
                counted_to = ls;
            }
            emit_line(c, res, rel, rel_len, buf + ls, le - ls, js->lineno, ':');
            if (res->full)
                return false;
        }
        if ((js->count & 4095) == 0 && rig_call_cancelled(c->call))
            return false;
        ls = nl ? next_hit(c, s, res, buf, n, le + 1) : n;
    }
    if (numbering)
        js->lineno += count_nl(buf + counted_to, n - counted_to);
    return !rig_call_cancelled(c->call);
}

/* Line by line: context, and multiline matches. */
static size_t search_lines(const gconf *c, searcher *s, fres *res, const char *rel,
                           size_t rel_len, const char *buf, size_t n) {
    size_t count = 0, printed_to = 0; /* last line number printed (0: none) */
    size_t after_left = 0;
    ring_ent ring[CTX_MAX];
    size_t rhead = 0, rlen = 0;
    /* multiline: the current match, as the byte range of the lines it marks */
    size_t mfrom = 0, mto = 0;     /* match start, and last byte it marks */
    bool have_m = false, m_done = false;
    size_t msearch = 0;
    size_t nh = c->multiline ? 0 : next_hit(c, s, res, buf, n, 0);

    size_t lineno = 0;
    for (size_t ls = 0; ls < n && !res->full;) {
        lineno++;
        const char *nl = memchr(buf + ls, '\n', n - ls);
        size_t le = nl ? (size_t)(nl - buf) : n; /* end, without the newline */
        size_t next = nl ? le + 1 : n;
        bool hit;
        if (c->multiline) {
            while (!m_done && (!have_m || mto < ls)) {
                int rc = msearch <= n ? run_match(c, c->re, s, res, buf, n, msearch) : 0;
                if (rc <= 0) {
                    m_done = true;
                    have_m = false;
                    break;
                }
                PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
                mfrom = ov[0];
                mto = ov[1] > ov[0] ? ov[1] - 1 : ov[0];
                have_m = true;
                if (ov[1] > ov[0]) {
                    msearch = ov[1];
                } else {
                    /* empty match: go on one character later (a match may
                     * still start further on this line) */
                    size_t k = ov[1] + 1;
                    while (k < n && ((unsigned char)buf[k] & 0xC0) == 0x80)
                        k++;
                    msearch = k;
                }
            }
            hit = have_m && mfrom <= le && mto >= ls;
        } else {
            hit = ls == nh;
            if (hit)
                nh = next_hit(c, s, res, buf, n, next);
        }
        if (hit) {
            count++;
            if (c->mode == M_FILES)
                break;
            if (c->mode == M_CONTENT) {
                size_t first = rlen ? ring[(rhead + CTX_MAX - rlen) % CTX_MAX].lineno : lineno;
                if (printed_to && first > printed_to + 1 && (c->before || c->after))
                    emit_sep(c, res);
                for (size_t k = rlen; k > 0; k--) {
                    ring_ent *r = &ring[(rhead + CTX_MAX - k) % CTX_MAX];
                    emit_line(c, res, rel, rel_len, buf + r->start, r->len, r->lineno, '-');
                }
                rlen = 0;
                emit_line(c, res, rel, rel_len, buf + ls, le - ls, lineno, ':');
                printed_to = lineno;
                after_left = c->after;
            }
        } else if (c->mode == M_CONTENT) {
            if (after_left) {
                after_left--;
                emit_line(c, res, rel, rel_len, buf + ls, le - ls, lineno, '-');
                printed_to = lineno;
            } else if (c->before) {
                ring[rhead] = (ring_ent){ls, le - ls, lineno};
                rhead = (rhead + 1) % CTX_MAX;
                if (rlen < c->before)
                    rlen++;
            }
        }
        if ((lineno & 255) == 0 && rig_call_cancelled(c->call))
            break;
        ls = next;
    }
    return count;
}

/* Does the search look at lines one at a time (and so may read a file in
 * chunks)? Context and multiline need the whole file at hand. */
static bool jumps(const gconf *c) {
    return !c->multiline && (c->mode != M_CONTENT || (!c->before && !c->after));
}

/* The file's closing result line: its path (files mode) or its count. */
static void file_done(const gconf *c, fres *res, const char *rel, size_t rel_len, size_t count) {
    res->matched = count > 0;
    if (!count || c->mode == M_CONTENT || !room(c, res))
        return;
    out_path(c, res, rel, rel_len);
    if (c->mode == M_COUNT)
        rig__buf_addf(&res->out, ":%zu", count);
    rig__buf_add(&res->out, "\n", 1);
}

/* Make s->buf hold at least n bytes, and PAD more. PCRE2's JIT reads a
 * little past the subject's end (harmlessly, within the vector it loads);
 * bytes there never written make valgrind report every match, so the PAD
 * bytes after what was read are zeroed (pad_after). */
static bool buf_room(searcher *s, size_t n) {
    if (s->cap >= n)
        return true;
    size_t cap = s->cap ? s->cap : 65536;
    while (cap < n)
        cap *= 2;
    char *p = realloc(s->buf, cap + PAD);
    if (!p)
        return false;
    s->buf = p;
    s->cap = cap;
    return true;
}

static void pad_after(searcher *s, size_t n) { memset(s->buf + n, 0, PAD); }

/* Give back a buffer grown past READ_MAX (a whole file read for context,
 * or a very long line): it is not needed for the next file. */
static void shrink(searcher *s) {
    if (s->cap > READ_MAX) {
        free(s->buf);
        s->buf = NULL;
        s->cap = 0;
    }
}

/* Read up to n bytes into p; the bytes read (fewer at the end of
 * the file, or when it shrank meanwhile), or -1 on an error. */
static ssize_t read_full(int fd, char *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return got ? (ssize_t)got : -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* A file larger than READ_MAX, line by line: read in chunks of whole
 * lines (never mapped: a file cut short while it is mapped would kill the
 * process with SIGBUS), no further than the size it had at the start. */
static void search_stream(const gconf *c, searcher *s, int fd, size_t size, const char *rel,
                          size_t rel_len, fres *res) {
    jstate js = {0, 1};
    size_t len = 0, total = 0;
    bool first = true;
    bool cut = false, cut_hit = false; /* inside a line longer than LINE_BYTES_MAX */
    if (!buf_room(s, READ_MAX)) {
        res->out.oom = true;
        return;
    }
    for (;;) {
        size_t want = s->cap - len;
        if (want > size - total)
            want = size - total;
        ssize_t k = want ? read_full(fd, s->buf + len, want) : 0;
        if (k < 0) {
            res->unreadable = !total;
            break;
        }
        total += (size_t)k;
        len += (size_t)k;
        pad_after(s, len);
        bool eof = (size_t)k < want || total >= size;
        if (first) {
            if (memchr(s->buf, '\0', len < SNIFF ? len : SNIFF)) {
                res->binary = true;
                return;
            }
            res->searched = true;
            first = false;
        }
        /* whole lines only, but for the last one */
        const char *nl = len ? memrchr(s->buf, '\n', len) : NULL;
        size_t end = eof ? len : nl ? (size_t)(nl - s->buf) + 1 : 0;
        if (!end && !eof) {
            /* one line longer than the buffer: make room, up to a limit */
            if (s->cap < LINE_BYTES_MAX && buf_room(s, s->cap * 2))
                continue;
            end = len; /* searched as a line of its own, cut there */
        }
        /* The rest of a line cut at the last buffer's end: once the line
         * has matched, its rest is skipped (a line counts once). */
        size_t start = 0;
        const char *first_nl = memchr(s->buf, '\n', end);
        if (cut && cut_hit) {
            start = first_nl ? (size_t)(first_nl - s->buf) + 1 : end;
            if (first_nl)
                js.lineno++;
        }
        size_t hits = js.count;
        if (end > start &&
            !search_jumping(c, s, res, rel, rel_len, s->buf + start, end - start, &js))
            break;
        bool ends_cut = end == len && !eof && (len == 0 || s->buf[len - 1] != '\n');
        if (ends_cut) {
            /* hit in this line: in this piece, or (no newline since) before */
            bool same_line = cut && !first_nl;
            cut_hit = (same_line && cut_hit) || js.count > hits;
            cut = true;
        } else {
            cut = false;
        }
        if (eof)
            break;
        memmove(s->buf, s->buf + end, len - end);
        len -= end;
    }
    file_done(c, res, rel, rel_len, js.count);
}

/* Search the regular file open as fd (closed here). */
static void search_fd(const gconf *c, searcher *s, int fd, const char *rel, size_t rel_len,
                      fres *res) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    if ((uintmax_t)st.st_size > FILE_MAX) {
        res->too_big = true;
        close(fd);
        return;
    }
    if ((uintmax_t)st.st_size > WHOLE_MAX && !jumps(c)) {
        res->too_big_whole = true;
        close(fd);
        return;
    }
    size_t n = (size_t)st.st_size;
    if (n == 0) {
        res->searched = true;
        close(fd);
        return;
    }
    if (n > READ_MAX && jumps(c)) {
        search_stream(c, s, fd, n, rel, rel_len, res);
        close(fd);
        shrink(s);
        return;
    }
    if (!buf_room(s, n)) {
        close(fd);
        res->out.oom = true;
        return;
    }
    /* The file may shrink while it is read: search what was there. */
    ssize_t got = read_full(fd, s->buf, n);
    close(fd);
    if (got <= 0) {
        res->unreadable = got < 0;
        res->searched = got == 0;
        return;
    }
    n = (size_t)got;
    pad_after(s, n);
    if (memchr(s->buf, '\0', n < SNIFF ? n : SNIFF)) {
        res->binary = true;
        return;
    }
    res->searched = true;
    if (jumps(c)) {
        jstate js = {0, 1};
        search_jumping(c, s, res, rel, rel_len, s->buf, n, &js);
        file_done(c, res, rel, rel_len, js.count);
    } else {
        file_done(c, res, rel, rel_len, search_lines(c, s, res, rel, rel_len, s->buf, n));
    }
    shrink(s);
}

/* Open `name` in the directory open as dirfd, never through a symlink, and
 * search it. */
static void open_and_search(const gconf *c, searcher *s, int dirfd, const char *name,
                            const char *rel, size_t rel_len, fres *res) {
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0)
        search_fd(c, s, fd, rel, rel_len, res);
    else if (errno != ELOOP) /* ELOOP: a symlink put there since the walk saw a file */
        res->unreadable = true;
}

/* ---- the searcher threads ----------------------------------------------- */

/* Take the job at the queue's head and search it with `s`, leaving the
 * result in its slot. With pl->mu held (let go meanwhile); the queue is
 * not empty. */
static void run_job(pool *pl, searcher *s) {
    job j = pl->q[pl->qhead];
    pl->qhead = (pl->qhead + 1) % WINDOW;
    pl->qlen--;
    bool skip = pl->skip;
    pthread_mutex_unlock(&pl->mu);
    fres res = {0};
    if (skip || !s->md || rig_call_cancelled(pl->c->call)) {
        res.out.oom = !s->md;
    } else {
        const char *slash = strrchr(j.rel, '/');
        open_and_search(pl->c, s, j.dir->fd, slash ? slash + 1 : j.rel, j.rel, strlen(j.rel),
                        &res);
    }
    dref_put(j.dir);
    free(j.rel);
    pthread_mutex_lock(&pl->mu);
    pl->slot[j.seq % WINDOW] = res;
    pl->ready[j.seq % WINDOW] = true;
    pthread_cond_signal(&pl->done);
}

static void *searcher_main(void *arg) {
    pool *pl = arg;
    searcher s = {pcre2_match_data_create_from_pattern(pl->c->re, NULL), NULL, 0};
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        while (!pl->qlen && !pl->closing)
            pthread_cond_wait(&pl->work, &pl->mu);
        if (!pl->qlen)
            break;
        run_job(pl, &s);
    }
    pthread_mutex_unlock(&pl->mu);
    pcre2_match_data_free(s.md);
    free(s.buf);
    return NULL;
}

/* ---- merging, in walk order (the calling thread) ------------------------ */

/* Take one file's results: its counts, and its lines through the page. */
static void merge(grepper *g, fres *res) {
    if (g->truncated) {
        free(res->out.p); /* a file after the page: not looked at, as far as counts go */
        return;
    }
    g->files_searched += res->searched;
    g->files_matched += res->matched;
    g->binary += res->binary;
    g->too_big += res->too_big;
    g->too_big_whole += res->too_big_whole;
    g->unreadable += res->unreadable;
    g->match_error |= res->match_error;
    if (res->out.oom)
        g->out.oom = true;
    const char *p = res->out.p, *end = p + res->out.len;
    while (p < end && !g->truncated) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        if (g->seen >= g->offset + g->limit)
            g->truncated = true; /* the first line past the page: there are more */
        else if (g->seen++ >= g->offset)
            rig__buf_add(&g->out, p, (size_t)(next - p));
        p = next;
    }
    free(res->out.p);
}

/* Nothing more to search: the page is full, or the call is over. */
static bool halted(const grepper *g) { return g->truncated || g->cancelled || g->out.oom; }

/* Merge the finished results at the head of the window, in order; with
 * `wait`, wait for at least one first (unless none is outstanding). With
 * pl->mu held; it is let go while merging. */
static void drain(grepper *g, bool wait) {
    pool *pl = g->pl;
    for (;;) {
        while (pl->merged < pl->next_seq && pl->ready[pl->merged % WINDOW]) {
            size_t i = pl->merged % WINDOW;
            fres res = pl->slot[i];
            pl->ready[i] = false;
            pl->merged++;
            pthread_mutex_unlock(&pl->mu);
            merge(g, &res);
            pthread_mutex_lock(&pl->mu);
            if (halted(g))
                pl->skip = true;
            wait = false;
        }
        if (!wait || pl->merged == pl->next_seq)
            return;
        if (pl->qlen) {
            /* Rather than wait, search a file too: the searchers may be off
             * the CPU, or the head of the window slow. */
            run_job(pl, &g->self);
            continue;
        }
        pthread_cond_wait(&pl->done, &pl->mu);
    }
}

/* Start the searcher threads; on failure the caller searches alone. */
static void pool_start(grepper *g) {
    pool *pl = calloc(1, sizeof *pl);
    if (!pl) {
        g->nthreads = 1;
        return;
    }
    pl->c = &g->c;
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->work, NULL);
    pthread_cond_init(&pl->done, NULL);
    for (size_t i = 0; i < g->nthreads && i < THREADS_MAX; i++)
        if (pthread_create(&pl->th[pl->nth], NULL, searcher_main, pl) == 0)
            pl->nth++;
    if (!pl->nth) {
        pthread_cond_destroy(&pl->done);
        pthread_cond_destroy(&pl->work);
        pthread_mutex_destroy(&pl->mu);
        free(pl);
        g->nthreads = 1;
        return;
    }
    g->pl = pl;
}

/* Wait for every file handed out, merge the rest, and stop the threads. */
static void pool_finish(grepper *g) {
    pool *pl = g->pl;
    if (!pl)
        return;
    pthread_mutex_lock(&pl->mu);
    if (halted(g))
        pl->skip = true;
    while (pl->merged < pl->next_seq)
        drain(g, true);
    pl->closing = true;
    pthread_cond_broadcast(&pl->work);
    pthread_mutex_unlock(&pl->mu);
    for (size_t i = 0; i < pl->nth; i++)
        pthread_join(pl->th[i], NULL);
    pthread_cond_destroy(&pl->done);
    pthread_cond_destroy(&pl->work);
    pthread_mutex_destroy(&pl->mu);
    free(pl);
    g->pl = NULL;
}

/* Hand the file open as fd (at g->rel) to the searchers. */
static void submit(grepper *g, dref *dir) {
    pool *pl = g->pl;
    char *rel = strndup(g->rel, g->rel_len);
    if (!rel) {
        g->out.oom = true;
        return;
    }
    atomic_fetch_add_explicit(&dir->refs, 1, memory_order_relaxed);
    pthread_mutex_lock(&pl->mu);
    while (pl->next_seq - pl->merged >= WINDOW)
        drain(g, true);
    pl->q[(pl->qhead + pl->qlen) % WINDOW] = (job){pl->next_seq++, dir, rel};
    pl->qlen++;
    pthread_cond_signal(&pl->work);
    drain(g, false);
    pthread_mutex_unlock(&pl->mu);
}

/* Search the file `name` in dir (at g->rel): here for the first few
 * files, then on the searcher threads. */
static void take_file(grepper *g, dref *dir, const char *name) {
    if (!g->pl && !g->inline_left && g->nthreads > 1)
        pool_start(g);
    if (g->pl) {
        submit(g, dir);
        return;
    }
    if (g->inline_left)
        g->inline_left--;
    if (rig_call_cancelled(g->c.call)) {
        g->cancelled = true; /* the walk checks only every 256 entries */
        return;
    }
    fres res = {0};
    open_and_search(&g->c, &g->self, dir->fd, name, g->rel, g->rel_len, &res);
    merge(g, &res);
}

/* ---- the walk (the calling thread) -------------------------------------- */

/* ripgrep's file types (`rg --type-list`), the common ones. */
static const struct ftype {
    const char *name, *globs;
} ftypes[] = {
    {"asm", "*.asm *.s *.S"}, {"c", "*.c *.h"}, {"clojure", "*.clj *.cljc *.cljs *.edn"},
    {"cmake", "CMakeLists.txt *.cmake"}, {"cpp", "*.cpp *.cc *.cxx *.c++ *.hpp *.hh *.hxx *.h *.inl"},
    {"cs", "*.cs"}, {"css", "*.css *.scss *.sass *.less"}, {"csv", "*.csv"},
    {"dart", "*.dart"}, {"docker", "Dockerfile *.dockerfile"}, {"elixir", "*.ex *.exs"},
    {"erlang", "*.erl *.hrl"}, {"fortran", "*.f *.for *.f90 *.f95 *.f03"},
    {"go", "*.go"}, {"groovy", "*.groovy *.gradle"}, {"haskell", "*.hs *.lhs"},
    {"html", "*.html *.htm *.xhtml"}, {"ini", "*.ini *.cfg"}, {"java", "*.java"},
    {"js", "*.js *.mjs *.cjs *.jsx"}, {"json", "*.json *.jsonl *.geojson"},
    {"julia", "*.jl"}, {"kotlin", "*.kt *.kts"}, {"lua", "*.lua"},
    {"make", "Makefile makefile GNUmakefile *.mk *.mak"}, {"md", "*.md *.markdown *.mdx"},
    {"meson", "meson.build meson_options.txt meson.options"}, {"nim", "*.nim"},
    {"objc", "*.h *.m"}, {"ocaml", "*.ml *.mli"}, {"perl", "*.pl *.pm *.t"},
    {"php", "*.php *.phtml"}, {"powershell", "*.ps1 *.psm1 *.psd1"}, {"proto", "*.proto"},
    {"py", "*.py *.pyi"}, {"r", "*.R *.r *.Rmd"}, {"rst", "*.rst"},
    {"ruby", "*.rb *.gemspec Gemfile Rakefile"}, {"rust", "*.rs"}, {"scala", "*.scala *.sc"},
    {"sh", "*.sh *.bash *.zsh *.ksh"}, {"sql", "*.sql"}, {"svelte", "*.svelte"},
    {"swift", "*.swift"}, {"tex", "*.tex *.bib *.sty *.cls"}, {"tf", "*.tf *.tfvars"},
    {"toml", "*.toml"}, {"ts", "*.ts *.tsx *.mts *.cts"}, {"txt", "*.txt"},
    {"vim", "*.vim"}, {"vue", "*.vue"}, {"xml", "*.xml *.xsd *.xsl *.xslt *.svg"},
    {"yaml", "*.yaml *.yml"}, {"zig", "*.zig"},
    /* names people reach for */
    {"python", "*.py *.pyi"}, {"javascript", "*.js *.mjs *.cjs *.jsx"},
    {"typescript", "*.ts *.tsx *.mts *.cts"}, {"markdown", "*.md *.markdown *.mdx"},
    {"shell", "*.sh *.bash *.zsh *.ksh"}, {"golang", "*.go"}, {"rb", "*.rb *.gemspec Gemfile Rakefile"},
    {"rs", "*.rs"}, {"yml", "*.yaml *.yml"}, {"c++", "*.cpp *.cc *.cxx *.c++ *.hpp *.hh *.hxx *.h *.inl"},
};

static const char *type_globs(const char *name) {
    for (size_t i = 0; i < sizeof ftypes / sizeof *ftypes; i++)
        if (strcasecmp(ftypes[i].name, name) == 0)
            return ftypes[i].globs;
    return NULL;
}

/* Does `name` match one of the space-separated globs? */
static bool any_glob(const char *globs, const char *name) {
    char one[64];
    for (const char *p = globs; *p;) {
        size_t n = strcspn(p, " ");
        if (n < sizeof one) {
            memcpy(one, p, n);
            one[n] = '\0';
            if (fnmatch(one, name, 0) == 0)
                return true;
        }
        p += n;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* Is the entry at g->rel (last component `name`) left out by
 * exclude_patterns? A pattern with a '/' matches the path relative to the
 * search's start, one without matches the name; a trailing '/' means
 * directories only. */
static bool excluded(const grepper *g, const char *name, bool dir) {
    for (size_t i = 0; i < g->nexcl; i++) {
        const char *p = g->excl[i];
        size_t n = strlen(p);
        char pat[PATH_MAX];
        if (!n || n >= sizeof pat)
            continue;
        memcpy(pat, p, n + 1);
        if (pat[n - 1] == '/') {
            if (!dir)
                continue;
            pat[--n] = '\0';
        }
        bool anchored = strchr(pat, '/') != NULL; /* as in .gitignore */
        const char *q = pat[0] == '/' ? pat + 1 : pat;
        if (rig__glob_match(q, anchored ? g->rel : name))
            return true;
    }
    return false;
}

static bool name_passes(const grepper *g, const char *name) {
    if (g->type_globs && !any_glob(g->type_globs, name))
        return false;
    if (!g->glob)
        return true;
    if (g->glob_path)
        return rig__glob_match(g->glob, g->rel);
    return fnmatch(g->glob, name, 0) == 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

enum kind { K_FILE, K_DIR, K_OTHER };

/* What the entry is, from readdir's type (a stat only when the file system
 * does not say): a regular file, a directory, or something not searched. */
static int kind_at(int dirfd, const char *name, unsigned char type) {
    if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return K_OTHER;
        return S_ISDIR(st.st_mode) ? K_DIR : S_ISREG(st.st_mode) ? K_FILE : K_OTHER;
    }
    return type == DT_DIR ? K_DIR : type == DT_REG ? K_FILE : K_OTHER;
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

/* Walk the directory open as dirfd (which it takes over, and closes once
 * the last of its files is searched). */
static void walk(grepper *g, int dirfd, size_t level) {
    dref *dir = malloc(sizeof *dir);
    if (!dir) {
        close(dirfd);
        g->out.oom = true;
        return;
    }
    dir->fd = dirfd;
    atomic_init(&dir->refs, 1);
    if (!g->no_ignore && !rig__ignore_push(g->ig, dirfd, g->rel_len)) {
        g->out.oom = true;
        dref_put(dir);
        return;
    }
    size_t n = 0;
    char **names = read_names(g, dirfd, &n);
    if (!names) {
        g->unreadable++;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (halted(g) || g->stopped)
            break;
        const char *name = names[i];
        if (++g->visited >= VISIT_MAX) {
            g->stopped = true;
            break;
        }
        if ((g->visited & 255) == 0 && rig_call_cancelled(g->c.call)) {
            g->cancelled = true;
            break;
        }
        size_t saved;
        if (!rig__rel_push(g->rel, &g->rel_len, name, &saved)) {
            g->too_deep = true;
            continue;
        }
        int kind = kind_at(dirfd, name, (unsigned char)name[-1]);
        if (kind == K_OTHER) {
            /* symlinks are never followed; devices, FIFOs, sockets never read */
        } else if (g->nexcl && excluded(g, name, kind == K_DIR)) {
            g->excluded++;
        } else if (!g->no_ignore && rig__ignore_hit(g->ig, g->rel, name, kind == K_DIR)) {
            g->ignored++;
        } else if (kind == K_DIR) {
            if (level >= DEPTH_MAX) {
                g->too_deep = true;
            } else {
                int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                    g->unreadable++;
                else
                    walk(g, fd, level + 1);
            }
        } else if (name_passes(g, name)) {
            take_file(g, dir, name);
        }
        rig__rel_pop(g->rel, &g->rel_len, saved);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i] - 1);
    free(names);
out:
    if (!g->no_ignore)
        rig__ignore_pop(g->ig);
    dref_put(dir);
}

/* Is the pattern's meaning bound to the line, whatever lies past its ends?
 * Only then may the whole buffer be scanned (see the top of the file).
 * Conservative: a lookaround, \A \z \Z \G or a verb anywhere, even
 * escaped, says no. */
static bool line_local(const char *p, size_t n) {
    /* Lookarounds (atomic and not), verbs, \A \z \Z \G; and what cannot
     * give back what it took past a newline, so fails where the line alone
     * matches: possessive quantifiers, atomic groups, \R and \X (which take
     * \r\n whole). \K moves a match's start. */
    static const char *const risky[] = {"(?=",  "(?!", "(?<=", "(?<!", "(*",  "(?*", "(?<*",
                                        "(?>",  "*+",  "++",   "?+",   "}+",  "\\A", "\\z",
                                        "\\Z", "\\G", "\\R",  "\\X",  "\\K"};
    for (size_t i = 0; i < sizeof risky / sizeof *risky; i++)
        if (memmem(p, n, risky[i], strlen(risky[i])))
            return false;
    /* An option group that turns an option off or resets them, (?-m) or
     * (?^): multiline off makes ^ and $ mean the buffer's ends. */
    for (const char *q = p, *end = p + n; (q = memmem(q, (size_t)(end - q), "(?", 2)) != NULL;) {
        q += 2;
        while (q < end && (*q == '-' || *q == '^' || (*q >= 'a' && *q <= 'z') ||
                           (*q >= 'A' && *q <= 'Z'))) {
            if (*q == '-' || *q == '^')
                return false;
            q++;
        }
    }
    return true;
}

/* The pattern compiled, or NULL with an error result in *err. */
static pcre2_code *compile(const char *pattern, size_t len, uint32_t opts, rig_result **err) {
    int ec;
    PCRE2_SIZE eo;
    /* Lines end at \n, whatever newline PCRE2 was built with: the scan's ^
     * and $ must mean what the line splitting means. */
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (cc)
        pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len, opts, &ec, &eo, cc);
    pcre2_compile_context_free(cc);
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

static rig_result *grep_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *grep_run(rig_call *call) {
    return rig__fs_with_roots(call, grep_run_in);
}

static rig_result *grep_run_in(rig_call *call, rig_roots *roots) {
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
    gconf *c = &g->c;
    c->call = call;
    c->mode = !mode || strcmp(mode, "files_with_matches") == 0 || strcmp(mode, "paths") == 0
                  ? M_FILES
              : strcmp(mode, "content") == 0 ? M_CONTENT
                                             : M_COUNT;
    c->multiline = rig_call_bool(call, "multiline", false);
    c->numbers = rig_call_bool(call, "line_numbers", true);
    g->no_ignore = rig_call_bool(call, "no_ignore", false);
    g->glob = rig_call_str(call, "glob", NULL);
    if (g->glob && !*g->glob)
        g->glob = NULL;
    g->glob_path = g->glob && strchr(g->glob, '/');
    const char *type = rig_call_str(call, "type", NULL);
    if (type && *type && !(g->type_globs = type_globs(type))) {
        char known[1024] = "";
        for (size_t i = 0; i < sizeof ftypes / sizeof *ftypes && strlen(known) + 16 < sizeof known; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     ftypes[i].name);
        free(g);
        return rig_result_error("Unknown file type '%s'. Known types: %s. Or filter by name "
                                "with glob, e.g. '*.ext'.",
                                type, known);
    }
    rig_json_val excl = rig_json_get(rig_call_args(call), "exclude_patterns");
    size_t nexcl = rig_json_len(excl);
    if (nexcl) {
        g->excl = rig_arena_alloc(rig_call_arena(call), nexcl * sizeof *g->excl);
        rig_json_iter it = rig_json_iter_init(excl);
        rig_json_val v;
        while (g->excl && rig_json_iter_next(&it, &v)) {
            const char *e = rig_json_str_dup(v, rig_call_arena(call), NULL);
            if (e && *e)
                g->excl[g->nexcl++] = e;
        }
    }
    size_t ctx = clamp_ctx(rig_call_int(call, "context", 0));
    c->before = rig_call_has(call, "before") ? clamp_ctx(rig_call_int(call, "before", 0)) : ctx;
    c->after = rig_call_has(call, "after") ? clamp_ctx(rig_call_int(call, "after", 0)) : ctx;
    int64_t off = rig_call_int(call, "offset", 0);
    int64_t lim = rig_call_int(call, "head_limit",
                               rig_call_int(call, "max_results", HEAD_DEFAULT));
    g->offset = off < 0 ? 0 : (size_t)off;
    g->limit = lim <= 0 ? HEAD_DEFAULT : (size_t)lim;
    c->line_cap = g->offset + g->limit + 1 > g->offset ? g->offset + g->limit + 1 : SIZE_MAX;

    uint32_t opts = PCRE2_UTF;
#ifdef PCRE2_MATCH_INVALID_UTF
    opts |= PCRE2_MATCH_INVALID_UTF;
#else
    opts |= PCRE2_NO_UTF_CHECK; /* FIXME: without it, invalid UTF-8 is undefined */
#endif
    bool fixed = rig_call_bool(call, "fixed_strings", false);
    if (fixed)
        opts |= PCRE2_LITERAL;
    if (rig_call_bool(call, "case_insensitive", false))
        opts |= PCRE2_CASELESS;
    if (c->multiline && !fixed) /* PCRE2 takes neither with LITERAL; a literal needs neither */
        opts |= PCRE2_MULTILINE | PCRE2_DOTALL;
    rig_result *r = NULL;
    c->re = compile(pattern, plen_raw, opts, &r);
    if (!c->re)
        goto out;
    c->mctx = pcre2_match_context_create(NULL);
    if (!c->mctx) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    pcre2_set_match_limit(c->mctx, MATCH_LIMIT);
    if (!c->multiline && (fixed || line_local(pattern, plen_raw))) {
        rig_result *ignored = NULL;
        /* A literal has no anchors for MULTILINE to change (and PCRE2 takes
         * no MULTILINE with LITERAL): the same compile scans. */
        c->scan = compile(pattern, plen_raw, fixed ? opts : opts | PCRE2_MULTILINE, &ignored);
        rig_result_free(ignored); /* NULL: no scan, line by line it is */
    }
    g->self.md = pcre2_match_data_create_from_pattern(c->re, NULL);
    g->ig = rig__ignore_new(roots, path);
    if (!g->self.md || !g->ig) {
        r = rig_result_error("Out of memory searching '%s'.", path);
        goto out;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    g->nthreads = ncpu < 1 ? 1 : ncpu > THREADS_MAX ? THREADS_MAX : (size_t)ncpu;
    g->inline_left = INLINE_FILES;

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
    c->shown_prefix = path;
    if (S_ISDIR(st.st_mode)) {
        bool bare = plen == 1 && path[0] == '.';
        c->sep = bare || (plen == 1 && path[0] == '/') ? "" : "/";
        c->prefix_len = bare ? 0 : plen;
        walk(g, fd, 1); /* which closes fd */
        pool_finish(g);
    } else {
        c->sep = "";
        c->prefix_len = plen; /* rel stays "": the path is the file */
        fres res = {0};
        search_fd(c, &g->self, fd, "", 0, &res);
        merge(g, &res);
    }
    if (rig_call_cancelled(call))
        g->cancelled = true; /* the searchers stop without saying so */
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
                         g->ignored ? "; entries matched by ignore files were skipped, "
                                      "no_ignore=true searches them"
                         : g->excluded ? "; entries matched by exclude_patterns were skipped"
                                       : "");
    }
    /* The page in numbers, for clients that page without reading the text. */
    size_t shown = g->seen > g->offset ? (g->truncated ? g->limit : g->seen - g->offset) : 0;
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "mode");
        rig_json_write_string(w, c->mode == M_FILES     ? "files_with_matches"
                                 : c->mode == M_CONTENT ? "content"
                                                        : "count");
        rig_json_write_key(w, "offset");
        rig_json_write_uint(w, g->offset);
        rig_json_write_key(w, "shown");
        rig_json_write_uint(w, shown);
        rig_json_write_key(w, "truncated");
        rig_json_write_bool(w, g->truncated);
        if (g->truncated) {
            rig_json_write_key(w, "next_offset");
            rig_json_write_uint(w, g->offset + g->limit);
        }
        rig_json_write_key(w, "files_searched");
        rig_json_write_uint(w, g->files_searched);
        rig_json_write_key(w, "files_matched");
        rig_json_write_uint(w, g->files_matched);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
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
    if (g->too_big_whole)
        rig_result_textf(r, "[%zu file%s larger than %u MiB skipped: with context or "
                            "multiline a file is searched whole; search %s without them.]",
                         g->too_big_whole, g->too_big_whole == 1 ? "" : "s", WHOLE_MAX >> 20,
                         g->too_big_whole == 1 ? "it" : "them");
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
    free(g->self.buf);
    pcre2_match_data_free(g->self.md);
    pcre2_code_free(c->scan);
    pcre2_match_context_free(c->mctx);
    pcre2_code_free(c->re);
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
        "files by name with glob (e.g. '*.c', or 'src/**/*.h' to match the relative path) "
        "or type (e.g. 'py'), and leave some out with exclude_patterns. "
        "Files matched by ignore files (.gitignore inside a git repository, .ignore, "
        ".rgignore, as ripgrep reads them), names starting with '.', .git and binary files are "
        "skipped (no_ignore=true searches ignored and hidden files). Lines are matched one "
        "at a time unless multiline=true, where '.' also matches newlines and a match may "
        "span lines. At most head_limit results (default 250) are shown; a note says when "
        "there are more and which offset to pass to see them (structuredContent has "
        "truncated and next_offset).",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The regular "
        "expression to search for (or the text, with fixed_strings).\"},"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The file or "
        "directory to search: absolute, or relative to the first allowed directory "
        "(default: the first allowed directory).\"},"
        "\"output_mode\":{\"type\":\"string\",\"enum\":[\"content\",\"files_with_matches\","
        "\"paths\",\"count\"],\"description\":\"What to show (default files_with_matches; "
        "paths is the same).\"},"
        "\"glob\":{\"type\":\"string\",\"description\":\"Only search files whose name "
        "matches this glob, e.g. '*.py'; with a '/', matched against the path relative to "
        "path.\"},"
        "\"type\":{\"type\":\"string\",\"description\":\"Only search files of this type, "
        "as ripgrep names them: c, cpp, py, js, ts, go, rust, java, md, json, yaml, sh, "
        "html, css, ...\"},"
        "\"exclude_patterns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
        "\"description\":\"Globs of files or directories to leave out, e.g. ['*.min.js', "
        "'vendor/', 'tests/fixtures/**'] (with a '/', matched against the path relative to "
        "path).\"},"
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
        "ignore files and hidden files.\"},"
        "\"head_limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Results "
        "(lines, files or counts) to show at most (default 250).\"},"
        "\"max_results\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The same "
        "as head_limit.\"},"
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
    return rig__fs_tool_new(&grep_spec, roots, err);
}
