/* fs_edit.c — `edit_file`: replace pieces of a text file, confined to the
 * roots (rig/roots.h), and show what changed as a unified diff.
 *
 * Each edit {oldText, newText} applies in order to the text the previous
 * ones left; all apply or none, and the result is written atomically
 * (rig__fs_replace, fs_write.c: temporary file, fsync, rename, mode kept).
 *
 * oldText is looked for rung by rung, the first rung that finds it
 * deciding: exactly one match there wins, several are ambiguous (an error
 * naming their lines). The rungs: (1) the exact bytes; then whole lines,
 * (2) trailing whitespace ignored, (3) common indentation removed from
 * both (newText re-indented to the file's indentation there), (4) every
 * whitespace run as one space, (5) as 4 with typographic quotes and dashes
 * as ASCII, (6) for three lines or more, a block whose first and last
 * lines match (trimmed) and at least half of whose inner lines are among
 * the file's. A match much longer than oldText (more than twice as long
 * plus 200 bytes) is refused rather than replaced.
 *
 * A CRLF file (every '\n' preceded by '\r') is edited as LF text and
 * written back as CRLF; whether the file ends with a newline is kept. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "rig/json.h"
#include "tools/builtins.h"
#include "tools/fs.h"
#include "util/buf.h"
#include "util/sha256.h"

#define EDIT_MAX_BYTES (16u * 1024 * 1024) /* files larger are refused */
#define DIFF_CONTEXT 3
#define DIFF_LCS_CELLS (4u * 1024 * 1024) /* larger middles: one replace */
#define SHOW_LINES 10                     /* line numbers named when ambiguous */
#define ANCHOR_REACH 10                   /* rung 6: extra lines a block may span */

/* ---- lines ---------------------------------------------------------------- */

typedef struct span {
    size_t off, len;
} span;

typedef struct lines {
    span *v;
    size_t n;
} lines;

/* Split t on '\n' (no '\n' in the spans); a final '\n' ends the last line
 * rather than starting an empty one. false when out of memory. */
static bool split_lines(const char *t, size_t n, lines *L)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += t[i] == '\n';
    if (n > 0 && t[n - 1] != '\n')
        count++;
    L->n = 0;
    L->v = malloc((count ? count : 1) * sizeof *L->v);
    if (!L->v)
        return false;
    size_t start = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n') {
            L->v[L->n++] = (span){start, i - start};
            start = i + 1;
        }
    if (start < n)
        L->v[L->n++] = (span){start, n - start};
    return true;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static span trim(const char *t, span s)
{
    while (s.len && is_ws(t[s.off]))
        s.off++, s.len--;
    while (s.len && is_ws(t[s.off + s.len - 1]))
        s.len--;
    return s;
}

static size_t rtrim_len(const char *s, size_t n)
{
    while (n && is_ws(s[n - 1]))
        n--;
    return n;
}

static size_t lead_ws(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

static bool span_eq(const char *a, span x, const char *b, span y)
{
    return x.len == y.len && memcmp(a + x.off, b + y.off, x.len) == 0;
}

static size_t line_of(const char *t, size_t off)
{
    size_t no = 1;
    for (size_t i = 0; i < off; i++)
        no += t[i] == '\n';
    return no;
}

/* Append line s normalized for rung 2 (trailing whitespace dropped), 4
 * (whitespace runs as one space, ends trimmed) or 5 (4 plus typographic
 * quotes and dashes as ASCII). */
static void norm_line(int rung, const char *s, size_t n, rig__buf *o)
{
    if (rung == 2) {
        rig__buf_add(o, s, rtrim_len(s, n));
        return;
    }
    bool pending = false, any = false;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (is_ws((char)c)) {
            pending = any;
            i++;
            continue;
        }
        if (pending)
            rig__buf_addc(o, ' ');
        pending = false;
        any = true;
        if (rung == 5 && c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80) {
            unsigned char d = (unsigned char)s[i + 2];
            char m = d == 0x98 || d == 0x99 ? '\'' : d == 0x9C || d == 0x9D ? '"'
                                                 : d == 0x93 || d == 0x94 ? '-'
                                                                          : 0;
            if (m) {
                rig__buf_addc(o, m);
                i += 3;
                continue;
            }
        }
        rig__buf_addc(o, (char)c);
        i++;
    }
}

/* Every line of t normalized for `rung`, in `store`, as spans into it. */
static bool norm_all(int rung, const char *t, const lines *L, rig__buf *store, span *out)
{
    store->len = 0;
    for (size_t i = 0; i < L->n; i++) {
        size_t at = store->len;
        norm_line(rung, t + L->v[i].off, L->v[i].len, store);
        out[i] = (span){at, store->len - at};
    }
    if (!store->p)
        rig__buf_reserve(store, 1);
    return !store->oom;
}

/* ---- finding oldText ------------------------------------------------------ */

typedef struct found {
    int rung;             /* 1..6, or 0: not found */
    size_t count;         /* matches at that rung */
    size_t shown[SHOW_LINES];
    size_t off, len;      /* the first match, in bytes */
    size_t first, nlines; /* its lines (rungs 2..6) */
    size_t wi, oi;        /* rung 3: indentation of the file there, of oldText */
} found;

static void add_hit(found *f, int rung, size_t off, size_t len, size_t line, size_t first,
                    size_t nlines)
{
    if (f->count == 0) {
        f->rung = rung;
        f->off = off;
        f->len = len;
        f->first = first;
        f->nlines = nlines;
    }
    if (f->count < SHOW_LINES)
        f->shown[f->count] = line;
    f->count++;
}

/* The common indentation of lines [i, i+k) of t (blank lines aside). */
static size_t common_indent(const char *t, const span *v, size_t k)
{
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < k; j++) {
        const char *s = t + v[j].off;
        if (rtrim_len(s, v[j].len) == 0)
            continue;
        size_t w = lead_ws(s, v[j].len);
        if (w < best)
            best = w;
    }
    return best == SIZE_MAX ? 0 : best;
}

static bool window_dedent_eq(const char *t, const span *fv, size_t wi, const char *o,
                             const span *ov, size_t oi, size_t k)
{
    for (size_t j = 0; j < k; j++) {
        const char *a = t + fv[j].off, *b = o + ov[j].off;
        size_t al = rtrim_len(a, fv[j].len), bl = rtrim_len(b, ov[j].len);
        if (al == 0 || bl == 0) {
            if (al != bl)
                return false;
            continue;
        }
        if (al < wi || bl < oi)
            return false;
        if (al - wi != bl - oi || memcmp(a + wi, b + oi, al - wi) != 0)
            return false;
    }
    return true;
}

/* Look for old (olen bytes; a final '\n' already noted by the caller) in
 * t. false when out of memory. */
static bool search(const char *t, size_t n, const char *old, size_t olen, found *f)
{
    *f = (found){0};
    for (const char *p = t; n >= olen && p <= t + n - olen;) {
        p = memmem(p, (size_t)(t + n - p), old, olen);
        if (!p)
            break;
        size_t off = (size_t)(p - t);
        add_hit(f, 1, off, olen, line_of(t, off), 0, 0);
        p++;
    }
    if (f->count)
        return true;

    size_t ol = olen;
    if (ol && old[ol - 1] == '\n')
        ol--;
    lines L = {0}, O = {0};
    rig__buf fs = {0}, os = {0};
    span *fn = NULL, *on = NULL;
    bool ok = false;
    if (!split_lines(t, n, &L) || !split_lines(old, ol, &O))
        goto out;
    if (O.n == 0) /* oldText was "\n": one empty line */
        O.v[O.n++] = (span){0, 0};
    size_t k = O.n;
    fn = malloc((L.n ? L.n : 1) * sizeof *fn);
    on = malloc(k * sizeof *on);
    if (!fn || !on)
        goto out;

    for (int rung = 2; rung <= 5 && L.n >= k; rung++) {
        if (rung == 3) {
            size_t oi = common_indent(old, O.v, k);
            for (size_t i = 0; i + k <= L.n; i++) {
                size_t wi = common_indent(t, L.v + i, k);
                if (window_dedent_eq(t, L.v + i, wi, old, O.v, oi, k)) {
                    if (f->count == 0)
                        f->wi = wi, f->oi = oi;
                    size_t end = L.v[i + k - 1].off + L.v[i + k - 1].len;
                    add_hit(f, 3, L.v[i].off, end - L.v[i].off, i + 1, i, k);
                }
            }
        } else {
            if (!norm_all(rung, t, &L, &fs, fn) || !norm_all(rung, old, &O, &os, on))
                goto out;
            for (size_t i = 0; i + k <= L.n; i++) {
                size_t j = 0;
                while (j < k && span_eq(fs.p, fn[i + j], os.p, on[j]))
                    j++;
                if (j == k) {
                    size_t end = L.v[i + k - 1].off + L.v[i + k - 1].len;
                    add_hit(f, rung, L.v[i].off, end - L.v[i].off, i + 1, i, k);
                }
            }
        }
        if (f->count) {
            ok = true;
            goto out;
        }
    }

    if (k >= 3) { /* rung 6: the block anchor */
        span ofirst = trim(old, O.v[0]), olast = trim(old, O.v[k - 1]);
        for (size_t i = 0; i < L.n; i++) {
            if (!span_eq(t, trim(t, L.v[i]), old, ofirst))
                continue;
            size_t reach = i + k - 1 + ANCHOR_REACH + k;
            for (size_t j = i + 2; j < L.n && j <= reach; j++) {
                if (!span_eq(t, trim(t, L.v[j]), old, olast))
                    continue;
                size_t same = 0;
                for (size_t q = 1; q + 1 < k; q++) {
                    span oq = trim(old, O.v[q]);
                    for (size_t r = i + 1; r < j; r++)
                        if (span_eq(t, trim(t, L.v[r]), old, oq)) {
                            same++;
                            break;
                        }
                }
                if (2 * same >= k - 2) {
                    size_t end = L.v[j].off + L.v[j].len;
                    add_hit(f, 6, L.v[i].off, end - L.v[i].off, i + 1, i, j - i + 1);
                    break;
                }
            }
        }
    }
    ok = true;
out:
    free(L.v);
    free(O.v);
    free(fn);
    free(on);
    rig__buf_free(&fs);
    rig__buf_free(&os);
    return ok;
}

static const char *rung_name(int rung)
{
    switch (rung) {
    case 2: return "ignoring trailing whitespace";
    case 3: return "ignoring indentation";
    case 4: return "ignoring whitespace differences";
    case 5: return "ignoring whitespace and typographic quotes or dashes";
    case 6: return "by its first and last lines";
    default: return "exactly";
    }
}

/* "the closest line is line N: ..." for oldText that was not found. */
static void closest_line(const char *t, size_t n, const char *old, size_t olen, rig__buf *msg)
{
    lines L = {0}, O = {0};
    if (!split_lines(t, n, &L) || !split_lines(old, olen, &O)) {
        free(L.v);
        free(O.v);
        return;
    }
    span want = {0, 0};
    for (size_t j = 0; j < O.n; j++) {
        want = trim(old, O.v[j]);
        if (want.len)
            break;
    }
    size_t best = 0, best_i = SIZE_MAX;
    for (size_t i = 0; i < L.n && want.len; i++) {
        span s = trim(t, L.v[i]);
        size_t c = 0;
        while (c < s.len && c < want.len && t[s.off + c] == old[want.off + c])
            c++;
        if (c > best)
            best = c, best_i = i;
    }
    if (best_i != SIZE_MAX) {
        span s = L.v[best_i];
        int shown = s.len > 200 ? 200 : (int)s.len;
        rig__buf_addf(msg, " The closest line is line %zu: \"%.*s\"%s.", best_i + 1, shown,
                t + s.off, s.len > 200 ? "..." : "");
    } else {
        rig__buf_addf(msg, " No line of the file starts like oldText's first line.");
    }
    free(L.v);
    free(O.v);
}

/* ---- applying one edit ----------------------------------------------------- */

/* Replace the match f of old in t (n bytes) by neu, into out. NULL, or
 * the reason it cannot (static text). */
static const char *apply(const char *t, size_t n, const found *f, const char *old, size_t olen,
                         const char *neu, size_t nlen, rig__buf *out)
{
    size_t start = f->off, end = f->off + f->len;
    rig__buf rep = {0};
    if (f->rung == 1) {
        rig__buf_add(&rep, neu, nlen);
    } else {
        bool old_nl = olen && old[olen - 1] == '\n';
        bool new_nl = nlen && neu[nlen - 1] == '\n';
        if (old_nl && new_nl)
            nlen--;
        if (old_nl && !new_nl && end < n && t[end] == '\n')
            end++;
        if (f->rung == 3) {
            /* the file's indentation there: the first indented line's */
            const char *ind = "";
            for (size_t p = start; p < end;) {
                const char *e = memchr(t + p, '\n', end - p);
                size_t ll = e ? (size_t)(e - (t + p)) : end - p;
                if (rtrim_len(t + p, ll)) {
                    ind = t + p;
                    break;
                }
                p += ll + 1;
            }
            for (size_t p = 0; p <= nlen;) {
                const char *e = memchr(neu + p, '\n', nlen - p);
                size_t ll = e ? (size_t)(e - (neu + p)) : nlen - p;
                if (rtrim_len(neu + p, ll)) {
                    size_t drop = lead_ws(neu + p, ll);
                    if (drop > f->oi)
                        drop = f->oi;
                    rig__buf_add(&rep, ind, f->wi);
                    rig__buf_add(&rep, neu + p + drop, ll - drop);
                }
                if (!e)
                    break;
                rig__buf_addc(&rep, '\n');
                p += ll + 1;
            }
        } else {
            rig__buf_add(&rep, neu, nlen);
        }
    }
    if (end - start > 2 * olen + 200) {
        rig__buf_free(&rep);
        return "matched a region far larger than oldText";
    }
    out->len = 0;
    rig__buf_add(out, t, start);
    rig__buf_add(out, rep.p ? rep.p : "", rep.len);
    rig__buf_add(out, t + end, n - end);
    bool oom = rep.oom || out->oom;
    rig__buf_free(&rep);
    return oom ? "ran out of memory" : NULL;
}

/* ---- the diff ----------------------------------------------------------- */

typedef struct dline {
    const char *s;
    size_t len;
    bool nonl; /* the last line, with no newline after it */
} dline;

static dline *diff_lines(const char *t, size_t n, size_t *count)
{
    lines L = {0};
    if (!split_lines(t, n, &L))
        return NULL;
    dline *d = malloc((L.n ? L.n : 1) * sizeof *d);
    if (d)
        for (size_t i = 0; i < L.n; i++)
            d[i] = (dline){t + L.v[i].off, L.v[i].len, i + 1 == L.n && t[n - 1] != '\n'};
    *count = L.n;
    free(L.v);
    return d;
}

static bool dl_eq(const dline *a, const dline *b)
{
    return a->len == b->len && a->nonl == b->nonl && memcmp(a->s, b->s, a->len) == 0;
}

typedef struct op {
    char kind; /* ' ', '-', '+' */
    size_t ai, bi; /* lines of a and b before this one */
} op;

static void put_line(rig__buf *o, char kind, const dline *l)
{
    rig__buf_addc(o, kind);
    rig__buf_add(o, l->s, l->len);
    rig__buf_addc(o, '\n');
    if (l->nonl)
        rig__buf_add(o, "\\ No newline at end of file\n", 28);
}

static void put_range(rig__buf *o, char sign, size_t start, size_t count)
{
    if (count == 1)
        rig__buf_addf(o, "%c%zu", sign, start + 1);
    else
        rig__buf_addf(o, "%c%zu,%zu", sign, count ? start + 1 : start, count);
}

/* The unified diff of a -> b, labelled with path; false when out of memory. */
static bool unified_diff(const char *path, const char *a, size_t an, const char *b, size_t bn,
                         rig__buf *o)
{
    size_t na = 0, nb = 0;
    dline *A = diff_lines(a, an, &na), *B = diff_lines(b, bn, &nb);
    op *ops = NULL;
    unsigned *dp = NULL;
    bool ok = false;
    if (!A || !B)
        goto out;
    size_t pre = 0, suf = 0;
    while (pre < na && pre < nb && dl_eq(&A[pre], &B[pre]))
        pre++;
    while (suf < na - pre && suf < nb - pre && dl_eq(&A[na - 1 - suf], &B[nb - 1 - suf]))
        suf++;
    size_t ma = na - pre - suf, mb = nb - pre - suf;
    ops = malloc((na + nb + 1) * sizeof *ops);
    if (!ops)
        goto out;
    size_t m = 0, ai = 0, bi = 0;
    for (; ai < pre; ai++, bi++)
        ops[m++] = (op){' ', ai, bi};
    bool lcs = ma && mb && (ma + 1) * (mb + 1) <= DIFF_LCS_CELLS;
    if (lcs) {
        size_t w = mb + 1;
        dp = calloc((ma + 1) * w, sizeof *dp);
        if (!dp)
            goto out;
        for (size_t i = ma; i-- > 0;)
            for (size_t j = mb; j-- > 0;)
                dp[i * w + j] = dl_eq(&A[pre + i], &B[pre + j])
                                    ? dp[(i + 1) * w + j + 1] + 1
                                    : (dp[(i + 1) * w + j] >= dp[i * w + j + 1]
                                           ? dp[(i + 1) * w + j]
                                           : dp[i * w + j + 1]);
        size_t i = 0, j = 0;
        while (i < ma || j < mb) {
            if (i < ma && j < mb && dl_eq(&A[pre + i], &B[pre + j])) {
                ops[m++] = (op){' ', ai++, bi++};
                i++, j++;
            } else if (j == mb || (i < ma && dp[(i + 1) * w + j] >= dp[i * w + j + 1])) {
                ops[m++] = (op){'-', ai++, bi};
                i++;
            } else {
                ops[m++] = (op){'+', ai, bi++};
                j++;
            }
        }
    } else {
        for (size_t i = 0; i < ma; i++)
            ops[m++] = (op){'-', ai++, bi};
        for (size_t j = 0; j < mb; j++)
            ops[m++] = (op){'+', ai, bi++};
    }
    for (size_t s = 0; s < suf; s++)
        ops[m++] = (op){' ', ai++, bi++};

    rig__buf_addf(o, "--- a%s%s\n+++ b%s%s\n", path[0] == '/' ? "" : "/", path,
            path[0] == '/' ? "" : "/", path);
    size_t c = 0;
    while (c < m) {
        while (c < m && ops[c].kind == ' ')
            c++;
        if (c == m)
            break;
        size_t h0 = c > DIFF_CONTEXT ? c - DIFF_CONTEXT : 0;
        size_t last = c; /* the last change in this hunk */
        for (size_t q = c + 1; q < m; q++) {
            if (ops[q].kind == ' ')
                continue;
            if (q - last - 1 > 2 * DIFF_CONTEXT)
                break;
            last = q;
        }
        size_t h1 = last + 1 + DIFF_CONTEXT < m ? last + 1 + DIFF_CONTEXT : m;
        size_t ca = 0, cb = 0;
        for (size_t q = h0; q < h1; q++) {
            ca += ops[q].kind != '+';
            cb += ops[q].kind != '-';
        }
        rig__buf_add(o, "@@ ", 3);
        put_range(o, '-', ops[h0].ai, ca);
        rig__buf_addc(o, ' ');
        put_range(o, '+', ops[h0].bi, cb);
        rig__buf_add(o, " @@\n", 4);
        for (size_t q = h0; q < h1; q++)
            put_line(o, ops[q].kind, ops[q].kind == '+' ? &B[ops[q].bi] : &A[ops[q].ai]);
        c = h1;
    }
    ok = !o->oom;
out:
    free(A);
    free(B);
    free(ops);
    free(dp);
    return ok;
}

/* ---- the tool -------------------------------------------------------------- */

/* s with "\r\n" as "\n" (crlf_to_lf) or "\n" as "\r\n", into o. */
static void convert_eol(const char *s, size_t n, bool to_lf, rig__buf *o)
{
    o->len = 0;
    rig__buf_reserve(o, to_lf ? n : n * 2);
    for (size_t i = 0; i < n; i++) {
        if (to_lf && s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
            continue;
        if (!to_lf && s[i] == '\n')
            rig__buf_addc(o, '\r');
        rig__buf_addc(o, s[i]);
    }
    if (!o->p)
        rig__buf_reserve(o, 1);
}

static rig_result *read_whole(int pfd, const char *leaf, const char *path, rig__buf *raw,
                              struct stat *st)
{
    int fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return rig_result_error("Opening '%s' failed: %s.", path, strerror(errno));
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return rig_result_error("'%s' is not a regular file; edit_file edits text files only.",
                                path);
    }
    if ((unsigned long long)st->st_size > EDIT_MAX_BYTES) {
        close(fd);
        return rig_result_error("'%s' is %lld bytes, more than edit_file handles (%u MiB), "
                                "and it was not changed. Files this large are usually data "
                                "or logs, not code: find the place with grep and read_file "
                                "offset/limit; to change it, write the new content with "
                                "write_file if it is small enough, or leave it to a program.",
                                path, (long long)st->st_size, EDIT_MAX_BYTES >> 20);
    }
    rig__buf_reserve(raw, (size_t)st->st_size + 1);
    for (;;) {
        if (!rig__buf_reserve(raw, 65536))
            break;
        ssize_t k = read(fd, raw->p + raw->len, raw->cap - raw->len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            return rig_result_error("Reading '%s' failed: %s.", path, strerror(e));
        }
        if (k == 0)
            break;
        raw->len += (size_t)k;
        raw->p[raw->len] = '\0';
        if (raw->len > EDIT_MAX_BYTES)
            break;
    }
    close(fd);
    if (raw->oom)
        return rig_result_error("Out of memory reading '%s'.", path);
    if (raw->len > EDIT_MAX_BYTES)
        return rig_result_error("'%s' is more than edit_file handles (%u bytes).", path,
                                EDIT_MAX_BYTES);
    if (memchr(raw->p, '\0', raw->len))
        return rig_result_error("'%s' holds NUL bytes: it looks binary, and edit_file edits "
                                "text files only.",
                                path);
    return NULL;
}

static rig_result *edit_file_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *edit_file_run(rig_call *call)
{
    return rig__fs_with_roots(call, edit_file_run_in);
}

static rig_result *edit_file_run_in(rig_call *call, rig_roots *roots)
{
    const char *path = rig_call_str(call, "path", NULL);
    bool dry = rig_call_bool(call, "dry_run", false);
    const char *want_sha = rig_call_str(call, "expected_sha256", NULL);
    rig_json_val edits = rig_json_get(rig_call_args(call), "edits");
    if (!path || !*path)
        return rig_result_error("A path is needed: call edit_file with the file's path.");
    size_t nedits = rig_json_is_array(edits) ? rig_json_len(edits) : 0;
    if (nedits == 0)
        return rig_result_error("edits is needed: a list of {oldText, newText}.");

    char leaf[NAME_MAX + 1];
    rig_error err = {0};
    int pfd = rig_roots_open_parent(roots, path, leaf, sizeof leaf, &err);
    if (pfd < 0) {
        if (err.code == RIG_ENOENT)
            return rig_result_error("No such file: '%s'. Check the path; edit_file changes "
                                    "existing files (write_file creates them).",
                                    path);
        return rig_result_error("%s", err.message);
    }
    rig_result *res = NULL;
    rig__buf raw = {0}, cur = {0}, next = {0}, tmp = {0}, o = {0}, n = {0}, msg = {0}, diff = {0};
    struct stat lst, st;
    if (fstatat(pfd, leaf, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
        res = errno == ENOENT ? rig_result_error("No such file: '%s'. Check the path; edit_file "
                                                 "changes existing files (write_file creates "
                                                 "them).",
                                                 path)
                              : rig_result_error("'%s': %s.", path, strerror(errno));
        goto done;
    }
    if (S_ISLNK(lst.st_mode)) {
        res = rig_result_error("'%s' is a symbolic link; edit the file it leads to by its own "
                               "path.",
                               path);
        goto done;
    }
    if (S_ISDIR(lst.st_mode)) {
        res = rig_result_error("'%s' is a directory, not a file.", path);
        goto done;
    }
    if ((res = read_whole(pfd, leaf, path, &raw, &st)))
        goto done;

    char sha[65];
    rig__sha256_hex(raw.p, raw.len, sha);
    if (want_sha && strcasecmp(want_sha, sha) != 0) {
        res = rig_result_error("'%s' has changed since it was read: its SHA-256 is %s, not %s. "
                               "Nothing was edited; read the file again.",
                               path, sha, want_sha);
        goto done;
    }

    /* The working text: LF line ends, when the file uses CRLF throughout. */
    size_t nl = 0, crlf_count = 0;
    for (size_t i = 0; i < raw.len; i++)
        if (raw.p[i] == '\n') {
            nl++;
            crlf_count += i > 0 && raw.p[i - 1] == '\r';
        }
    bool crlf = nl > 0 && crlf_count == nl;
    bool fix_args = crlf || crlf_count == 0; /* oldText/newText's CRLF as LF */
    if (crlf)
        convert_eol(raw.p, raw.len, true, &cur);
    else
        rig__buf_add(&cur, raw.p, raw.len);
    if (!cur.p)
        rig__buf_reserve(&cur, 1);
    const char *orig = NULL;
    size_t orig_len = cur.len;
    char *orig_copy = malloc(cur.len + 1);
    if (!orig_copy || cur.oom) {
        free(orig_copy);
        res = rig_result_error("Out of memory editing '%s'.", path);
        goto done;
    }
    memcpy(orig_copy, cur.p, cur.len + 1);
    orig = orig_copy;

    rig__buf notes = {0};
    for (size_t e = 0; e < nedits; e++) {
        rig_json_val ed = rig_json_at(edits, e);
        rig_json_val ov = rig_json_get(ed, "oldText"), nv = rig_json_get(ed, "newText");
        size_t ol = 0, nl2 = 0;
        const char *os = rig_json_is_string(ov) ? rig_json_str_dup(ov, rig_call_arena(call), &ol)
                                                : NULL;
        const char *ns = rig_json_is_string(nv) ? rig_json_str_dup(nv, rig_call_arena(call), &nl2)
                                                : NULL;
        if (!os || !ns) {
            res = rig_result_error("Edit %zu of %zu needs oldText and newText strings. Nothing "
                                   "was edited.",
                                   e + 1, nedits);
            break;
        }
        if (ol == 0) {
            res = rig_result_error("Edit %zu of %zu has an empty oldText; give the text to "
                                   "replace. Nothing was edited.",
                                   e + 1, nedits);
            break;
        }
        if (fix_args) {
            convert_eol(os, ol, true, &o);
            convert_eol(ns, nl2, true, &n);
        } else {
            o.len = n.len = 0;
            rig__buf_add(&o, os, ol);
            rig__buf_add(&n, ns, nl2);
            rig__buf_reserve(&n, 1);
        }
        found f;
        if (o.oom || n.oom || !search(cur.p, cur.len, o.p, o.len, &f)) {
            res = rig_result_error("Out of memory editing '%s'.", path);
            break;
        }
        if (f.count == 0) {
            msg.len = 0;
            rig__buf_addf(&msg, "Edit %zu of %zu: oldText was not found in '%s'.", e + 1, nedits,
                    path);
            closest_line(cur.p, cur.len, o.p, o.len, &msg);
            rig__buf_addf(&msg, " Read the file again and copy the text exactly. Nothing was edited.");
            res = rig_result_error("%s", msg.oom ? "oldText was not found." : msg.p);
            break;
        }
        if (f.count > 1) {
            msg.len = 0;
            rig__buf_addf(&msg, "Edit %zu of %zu: oldText matches %zu places in '%s' (%s), at lines ",
                    e + 1, nedits, f.count, path, rung_name(f.rung));
            for (size_t i = 0; i < f.count && i < SHOW_LINES; i++)
                rig__buf_addf(&msg, "%s%zu", i ? ", " : "", f.shown[i]);
            if (f.count > SHOW_LINES)
                rig__buf_addf(&msg, ", ...");
            rig__buf_addf(&msg, ". Add more surrounding lines to oldText so that it matches only one "
                          "place. Nothing was edited.");
            res = rig_result_error("%s", msg.oom ? "oldText matches several places." : msg.p);
            break;
        }
        const char *why = apply(cur.p, cur.len, &f, o.p, o.len, n.p, n.len, &next);
        if (why) {
            res = rig_result_error("Edit %zu of %zu: oldText %s (%zu bytes at line %zu, for "
                                   "%zu bytes of oldText, matching %s); refused. Give the "
                                   "exact text. Nothing was edited.",
                                   e + 1, nedits, why, f.len, f.shown[0], o.len,
                                   rung_name(f.rung));
            break;
        }
        if (f.rung > 1)
            rig__buf_addf(&notes, " Edit %zu matched %s at line %zu.", e + 1, rung_name(f.rung),
                    f.shown[0]);
        rig__buf swap = cur;
        cur = next;
        next = swap;
    }
    if (res) {
        free(orig_copy);
        rig__buf_free(&notes);
        goto done;
    }

    /* Keep whether the file ended with a newline. */
    bool had_final = orig_len > 0 && orig[orig_len - 1] == '\n';
    if (orig_len > 0 && cur.len > 0) {
        bool has_final = cur.p[cur.len - 1] == '\n';
        if (had_final && !has_final)
            rig__buf_addc(&cur, '\n');
        else if (!had_final && has_final)
            cur.p[--cur.len] = '\0';
    }
    if (!unified_diff(path, orig, orig_len, cur.p, cur.len, &diff) || cur.oom) {
        free(orig_copy);
        rig__buf_free(&notes);
        res = rig_result_error("Out of memory editing '%s'.", path);
        goto done;
    }
    bool same = orig_len == cur.len && memcmp(orig, cur.p, cur.len) == 0;
    free(orig_copy);

    const char *out = cur.p;
    size_t out_len = cur.len;
    if (crlf) {
        convert_eol(cur.p, cur.len, false, &tmp);
        if (tmp.oom) {
            rig__buf_free(&notes);
            res = rig_result_error("Out of memory editing '%s'.", path);
            goto done;
        }
        out = tmp.p;
        out_len = tmp.len;
    }
    char new_sha[65];
    rig__sha256_hex(out, out_len, new_sha);
    const char *nt = notes.p ? notes.p : "";
    if (same) {
        res = rig_result_new();
        rig_result_textf(res, "No change: the edits leave '%s' as it was (SHA-256 %s).%s", path,
                         sha, nt);
    } else if (dry) {
        res = rig_result_new();
        rig_result_textf(res, "Dry run: %zu edit%s would change '%s' as below; nothing was "
                              "written. Its SHA-256 would be %s.%s",
                         nedits, nedits == 1 ? "" : "s", path, new_sha, nt);
        rig_result_textn(res, diff.p, diff.len);
    } else {
        const char *stage = "writing";
        int werr = rig__fs_replace(pfd, leaf, out, out_len, &st, &stage);
        if (werr) {
            res = rig_result_error("Writing '%s' failed while %s it: %s. The file is "
                                   "unchanged.",
                                   path, stage, strerror(werr));
        } else {
            res = rig_result_new();
            rig_result_textf(res, "Edited '%s': %zu edit%s applied. SHA-256 now %s.%s", path,
                             nedits, nedits == 1 ? "" : "s", new_sha, nt);
            rig_result_textn(res, diff.p, diff.len);
        }
    }
    rig__buf_free(&notes);
done:
    close(pfd);
    rig__buf_free(&raw);
    rig__buf_free(&cur);
    rig__buf_free(&next);
    rig__buf_free(&tmp);
    rig__buf_free(&o);
    rig__buf_free(&n);
    rig__buf_free(&msg);
    rig__buf_free(&diff);
    return res;
}

static const rig_builtin_spec edit_file_spec = {
    .name = "edit_file",
    .title = "Edit a file",
    .description =
        "Replace pieces of a text file inside the allowed directories and return a unified "
        "diff of the change. Each edit replaces oldText, which must match one place only, by "
        "newText; edits apply in order and all or none, written atomically. Copy oldText from "
        "the file with a few lines of context; small differences in whitespace, indentation "
        "and typographic quotes are tolerated, and an ambiguous or missing oldText is an "
        "error that says where to look. Line endings (CRLF) and the final newline are kept. "
        "dry_run=true only shows the diff. expected_sha256 refuses the edit when the file "
        "changed since it was read.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The file to edit: "
        "absolute, or relative to the first allowed directory.\"},"
        "\"edits\":{\"type\":\"array\",\"minItems\":1,\"description\":\"Replacements, "
        "applied in order.\",\"items\":{\"type\":\"object\",\"properties\":{"
        "\"oldText\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Text to find: "
        "it must match one place.\"},"
        "\"newText\":{\"type\":\"string\",\"description\":\"Text to put in its place.\"}},"
        "\"required\":[\"oldText\",\"newText\"],\"additionalProperties\":false}},"
        "\"dry_run\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Show the diff "
        "without writing.\"},"
        "\"expected_sha256\":{\"type\":\"string\",\"pattern\":\"^[0-9a-fA-F]{64}$\","
        "\"description\":\"The SHA-256 (hex) the file must have now, or nothing is "
        "edited.\"}},"
        "\"required\":[\"path\",\"edits\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_FALSE,
                    .destructive = RIG_HINT_TRUE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = edit_file_run,
};

rig_tool *rig__edit_file_tool_new(rig_roots *roots, rig_error *err)
{
    return rig__fs_tool_new(&edit_file_spec, roots, err);
}
