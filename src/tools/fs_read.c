/* fs_read.c — `read_file`: a text file as lines (a window of them, with
 * numbers if asked), or a binary file as an image, audio, PDF or base64
 * blob, confined to the roots (rig/roots.h).
 *
 * Text is streamed: one 64 KiB buffer, the lines of the window and the
 * output (at most RIG_FS_READ_MAX_TEXT bytes plus one line) are all that
 * is held, however large the file; the rest of it is only scanned for
 * newlines, to say how many lines there are (within the first SCAN_MAX
 * bytes: past them, once the window is done, the scan stops and the note
 * says "at least", so paging through a huge file costs its window, not
 * the whole file). The read goes no further than the size fstat gave when
 * it began, so a file that grows meanwhile (a busy log) cannot keep it
 * going; a file that changed while it was read (its size or mtime differ
 * at the end) gets a note saying so. Lines split on '\n' only, so a CRLF
 * file keeps its '\r's. Bytes that are not UTF-8 become U+FFFD; a
 * line longer than RIG_FS_READ_MAX_LINE_CHARS characters is cut with a
 * marker; a window that does not fit in the output budget stops at a line
 * boundary. Every partial read ends with a note saying which lines were
 * shown, of how many, and the offset that continues.
 *
 * Binary: a file whose first 8 KiB hold a NUL byte, or more than 30% bytes
 * that are neither printable ASCII, common whitespace, ESC nor >= 0x80
 * (UTF-8), or that starts with a known image, audio or PDF signature. It is
 * only returned when the call says binary=true, whole, up to
 * RIG_FS_READ_BINARY_MAX bytes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "json/internal.h"
#include "tools/builtins.h"
#include "tools/fs.h"
#include "util/buf.h"
#include "util/base64.h"

#define SNIFF_BYTES 8192
#define CHUNK (64 * 1024)
#define SCAN_MAX ((off_t)64 << 20) /* bytes scanned to count lines, past the window */
/* A shown line's raw bytes: enough for RIG_FS_READ_MAX_LINE_CHARS characters
 * of 4 bytes each, and the whole of the last one. */
#define LINE_RAW_MAX (RIG_FS_READ_MAX_LINE_CHARS * 4 + 8)

/* ---- what a file is ----------------------------------------------------- */

typedef enum kind { K_TEXT, K_IMAGE, K_AUDIO, K_PDF, K_BINARY } kind;

typedef struct sniff {
    kind kind;
    const char *mime; /* for binary kinds */
    const char *what; /* "a PNG image", "binary data" */
} sniff;

static bool starts(const unsigned char *p, size_t n, const char *magic, size_t m) {
    return n >= m && memcmp(p, magic, m) == 0;
}

static sniff sniff_bytes(const unsigned char *p, size_t n) {
    static const struct {
        const char *magic;
        size_t len, at; /* the signature, its length, where it is */
        kind kind;
        const char *mime, *what;
    } sigs[] = {
        {"\x89PNG\r\n\x1a\n", 8, 0, K_IMAGE, "image/png", "a PNG image"},
        {"\xff\xd8\xff", 3, 0, K_IMAGE, "image/jpeg", "a JPEG image"},
        {"GIF87a", 6, 0, K_IMAGE, "image/gif", "a GIF image"},
        {"GIF89a", 6, 0, K_IMAGE, "image/gif", "a GIF image"},
        {"WEBP", 4, 8, K_IMAGE, "image/webp", "a WebP image"},
        {"WAVE", 4, 8, K_AUDIO, "audio/wav", "a WAV audio file"},
        {"ID3", 3, 0, K_AUDIO, "audio/mpeg", "an MP3 audio file"},
        {"OggS", 4, 0, K_AUDIO, "audio/ogg", "an Ogg audio file"},
        {"fLaC", 4, 0, K_AUDIO, "audio/flac", "a FLAC audio file"},
        {"%PDF-", 5, 0, K_PDF, "application/pdf", "a PDF document"},
    };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (sigs[i].at && !starts(p, n, "RIFF", 4))
            continue;
        if (n >= sigs[i].at + sigs[i].len &&
            memcmp(p + sigs[i].at, sigs[i].magic, sigs[i].len) == 0)
            return (sniff){sigs[i].kind, sigs[i].mime, sigs[i].what};
    }
    size_t odd = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == 0)
            return (sniff){K_BINARY, "application/octet-stream", "binary data"};
        if (!((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
              c == '\v' || c == '\b' || c == 0x1b))
            odd++;
    }
    if (odd * 10 > n * 3)
        return (sniff){K_BINARY, "application/octet-stream", "binary data"};
    return (sniff){K_TEXT, NULL, "text"};
}

/* ---- a seam for tests -------------------------------------------------- */

static rig__fs_pread_fn pread_fn = pread;

void rig__fs_set_pread_fn(rig__fs_pread_fn fn) { pread_fn = fn ? fn : pread; }

/* read(2) until `n` bytes or end of file, from `off`. -1 on error. */
static ssize_t pread_full(int fd, void *p, size_t n, off_t off) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread_fn(fd, (char *)p + got, n - got, off + (off_t)got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* ---- binary ------------------------------------------------------------- */

/* "file://" + the real path of `fd` (or the path as given), percent-encoded. */
static void file_uri(int fd, const char *path, rig__buf *out) {
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, real, sizeof real - 1);
    if (n > 0 && real[0] == '/')
        real[n] = '\0';
    else
        snprintf(real, sizeof real, "%s", path);
    rig__buf_add(out, "file://", 7);
    for (const unsigned char *s = (const unsigned char *)real; *s; s++) {
        if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
            strchr("/-._~", *s))
            rig__buf_add(out, s, 1);
        else
            rig__buf_addf(out, "%%%02X", *s);
    }
}

static rig_result *read_binary(rig_call *call, int fd, const char *path, const struct stat *st,
                               sniff s) {
    if (st->st_size > RIG_FS_READ_BINARY_MAX)
        return rig_result_error("'%s' is %s (%lld bytes), larger than the %d MiB a binary read "
                                "may return. It cannot be read whole with read_file.",
                                path, s.what, (long long)st->st_size,
                                RIG_FS_READ_BINARY_MAX / (1024 * 1024));
    size_t want = (size_t)st->st_size;
    unsigned char *data = malloc(want ? want : 1);
    if (!data)
        return rig_result_error("Out of memory reading '%s' (%zu bytes).", path, want);
    /* Up to the size fstat gave: a file that grows meanwhile is read no
     * further, so the cap holds. */
    ssize_t got = pread_full(fd, data, want, 0);
    if (got < 0) {
        int e = errno;
        free(data);
        return rig_result_error("Reading '%s' failed: %s.", path, strerror(e));
    }
    if (rig_call_cancelled(call)) {
        free(data);
        return rig_result_error("The read of '%s' was cancelled.", path);
    }
    size_t n = (size_t)got;
    char *b64 = malloc(rig__base64_len(n) + 1);
    if (!b64) {
        free(data);
        return rig_result_error("Out of memory encoding '%s' (%zu bytes).", path, n);
    }
    rig__base64_encode(data, n, b64);
    free(data);

    rig_result *r = rig_result_new();
    if (!r) {
        free(b64);
        return rig_result_error("Out of memory reading '%s'.", path);
    }
    rig_result_textf(r, "'%s': %s (%s, %zu bytes).", path, s.what, s.mime, n);
    if (s.kind == K_IMAGE) {
        rig_result_image(r, b64, s.mime);
    } else if (s.kind == K_AUDIO) {
        rig_result_audio(r, b64, s.mime);
    } else {
        rig__buf uri = {0};
        file_uri(fd, path, &uri);
        if (uri.oom) {
            free(b64);
            rig_result_free(r);
            return rig_result_error("Out of memory reading '%s'.", path);
        }
        rig_result_resource_blob(r, uri.p, s.mime, b64);
        free(uri.p);
    }
    free(b64);
    return r;
}

/* ---- text --------------------------------------------------------------- */

typedef struct text_reader {
    int64_t first, last;   /* the window, 1-based, inclusive */
    bool numbers;
    rig__buf out;
    /* the line being collected */
    unsigned char line[LINE_RAW_MAX];
    size_t line_len;       /* bytes kept in line[] */
    size_t line_more;      /* characters (lead bytes) beyond line[] */
    /* results */
    int64_t shown_first, shown_last; /* 0: none */
    bool full;             /* the output budget stopped the window */
    size_t cut_lines, bad_bytes;
} text_reader;

static void put_char_count(text_reader *tr, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            tr->line_more++;
}

static void collect(text_reader *tr, const unsigned char *p, size_t n) {
    size_t room = LINE_RAW_MAX - tr->line_len;
    size_t k = n < room ? n : room;
    memcpy(tr->line + tr->line_len, p, k);
    tr->line_len += k;
    if (k < n)
        put_char_count(tr, p + k, n - k);
}

/* Line `no` is complete, the `n` bytes at `line` (tr->line, or straight
 * from the chunk read when it lies whole in it): decode it into the output
 * (or stop the window when it does not fit). */
static void emit(text_reader *tr, int64_t no, bool newline, const unsigned char *line,
                 size_t n) {
    size_t mark = tr->out.len;
    if (tr->numbers)
        rig__buf_addf(&tr->out, "%" PRId64 "\t", no);
    static const unsigned char fffd[3] = {0xEF, 0xBF, 0xBD};
    const unsigned char *p = line, *end = line + n;
    size_t chars = 0, bad = 0;
    const unsigned char *stop = NULL;
    while (p < end) {
        if (chars == RIG_FS_READ_MAX_LINE_CHARS && !stop)
            stop = p;
        if (!stop && *p < 0x80) {
            /* a run of ASCII, the common case: one copy */
            size_t lim = (size_t)(end - p), room = RIG_FS_READ_MAX_LINE_CHARS - chars, k = 1;
            if (lim > room)
                lim = room;
            while (k < lim && p[k] < 0x80)
                k++;
            rig__buf_add(&tr->out, p, k);
            chars += k;
            p += k;
            continue;
        }
        size_t len = 1;
        bool ok = true;
        if (*p >= 0x80) {
            len = rig__utf8_seq(p, end);
            if (!len) {
                len = 1;
                ok = false;
            }
        }
        if (!stop) {
            if (ok)
                rig__buf_add(&tr->out, p, len);
            else {
                rig__buf_add(&tr->out, fffd, 3);
                bad++;
            }
        }
        chars++;
        p += len;
    }
    size_t total = chars + tr->line_more;
    if (total > RIG_FS_READ_MAX_LINE_CHARS) {
        rig__buf_addf(&tr->out, " [... line cut: %zu of its %zu characters shown]",
                 (size_t)RIG_FS_READ_MAX_LINE_CHARS, total);
        tr->cut_lines++;
    }
    if (newline)
        rig__buf_add(&tr->out, "\n", 1);
    tr->line_len = 0;
    tr->line_more = 0;
    if (tr->out.len > RIG_FS_READ_MAX_TEXT && tr->shown_last) {
        /* Does not fit: leave it for the next call. */
        tr->out.len = mark;
        if (tr->out.p)
            tr->out.p[mark] = '\0';
        tr->full = true;
        return;
    }
    tr->bad_bytes += bad;
    if (!tr->shown_first)
        tr->shown_first = no;
    tr->shown_last = no;
}

static bool wanted(const text_reader *tr, int64_t no) {
    return !tr->full && no >= tr->first && no <= tr->last;
}

static rig_result *read_text(rig_call *call, int fd, const char *path, const struct stat *st) {
    bool has_offset = rig_call_has(call, "offset"), has_limit = rig_call_has(call, "limit");
    if (!has_offset && !has_limit && st->st_size > RIG_FS_READ_WHOLE_MAX)
        return rig_result_error(
            "'%s' is %.1f MiB (%lld bytes), too large to read whole. Call read_file with "
            "offset and limit to read part of it (e.g. offset=1, limit=%d), or use grep to "
            "find the lines you need.",
            path, (double)st->st_size / (1024 * 1024), (long long)st->st_size,
            RIG_FS_READ_DEFAULT_LIMIT);
    int64_t offset = rig_call_int(call, "offset", 1);
    int64_t limit = rig_call_int(call, "limit", RIG_FS_READ_DEFAULT_LIMIT);
    if (offset < 1 || limit < 1) /* the schema already said so */
        return rig_result_error("offset and limit must be at least 1.");

    text_reader *tr = calloc(1, sizeof *tr);
    unsigned char *chunk = malloc(CHUNK);
    if (!tr || !chunk) {
        free(tr);
        free(chunk);
        return rig_result_error("Out of memory reading '%s'.", path);
    }
    tr->first = offset;
    tr->last = limit > INT64_MAX - offset ? INT64_MAX : offset + limit - 1;
    tr->numbers = rig_call_bool(call, "line_numbers", false);

    int64_t no = 1;       /* the line being read */
    bool open = false;    /* has line `no` any bytes yet? */
    off_t at = 0;
    rig_result *fail = NULL;
    /* No further than the size at the start (0 may be a pseudo-file whose
     * size is unknown: then as far as a whole read may go). */
    off_t size = st->st_size > 0 ? st->st_size : (off_t)RIG_FS_READ_WHOLE_MAX + 1;
    bool counted = true, shrank = false;
    for (;;) {
        if (rig_call_cancelled(call)) {
            fail = rig_result_error("The read of '%s' was cancelled.", path);
            break;
        }
        if (at >= size)
            break;
        if (at >= SCAN_MAX && (tr->full || no > tr->last)) {
            counted = false; /* the window is done; the rest is not counted */
            break;
        }
        ssize_t n = pread_fn(fd, chunk, size - at < CHUNK ? (size_t)(size - at) : CHUNK, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fail = rig_result_error("Reading '%s' failed: %s.", path, strerror(errno));
            break;
        }
        if (n == 0) {
            shrank = st->st_size > 0; /* it ended before its size */
            break;
        }
        at += n;
        const unsigned char *p = chunk, *end = chunk + n;
        while (p < end) {
            const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
            const unsigned char *stop = nl ? nl : end;
            bool want = wanted(tr, no);
            if (want && nl && !tr->line_len) {
                /* the whole line is in the chunk: no copy into tr->line */
                emit(tr, no, true, p, (size_t)(nl - p));
                no++;
                open = false;
                p = nl + 1;
                continue;
            }
            if (want)
                collect(tr, p, (size_t)(stop - p));
            if (stop > p)
                open = true;
            if (!nl)
                break;
            if (want)
                emit(tr, no, true, tr->line, tr->line_len);
            no++;
            open = false;
            p = nl + 1;
        }
        if (tr->out.oom)
            break;
    }
    free(chunk);
    if (!fail && !tr->out.oom && open && wanted(tr, no))
        emit(tr, no, false, tr->line, tr->line_len);
    int64_t total = open ? no : no - 1;
    struct stat now;
    if (fstat(fd, &now) != 0)
        now = *st;
    bool changed = shrank || now.st_size != st->st_size ||
                   now.st_mtim.tv_sec != st->st_mtim.tv_sec ||
                   now.st_mtim.tv_nsec != st->st_mtim.tv_nsec;
    if (fail || tr->out.oom) {
        free(tr->out.p);
        free(tr);
        return fail ? fail : rig_result_error("Out of memory reading '%s'.", path);
    }

    rig_result *r = NULL;
    if (total == 0 && offset == 1) {
        r = rig_result_new();
        rig_result_textf(r, "[The file '%s' is empty.]", path);
    } else if (!tr->shown_last) {
        r = rig_result_error("offset=%" PRId64 " is past the end of '%s', which has %" PRId64
                             " line%s. Call read_file with an offset from 1 to %" PRId64 ".",
                             offset, path, total, total == 1 ? "" : "s",
                             total ? total : 1);
    } else {
        r = rig_result_new();
        rig_result_textn(r, tr->out.p ? tr->out.p : "", tr->out.len);
        rig__buf note = {0};
        if (!counted) {
            rig__buf_addf(&note, "[Lines %" PRId64 "-%" PRId64 " of at least %" PRId64 " shown (the "
                            "file is %.1f MiB; lines past the first %lld MiB were not counted)",
                     tr->shown_first, tr->shown_last, total, (double)st->st_size / (1024 * 1024),
                     (long long)(SCAN_MAX >> 20));
            if (tr->full)
                rig__buf_addf(&note, "; the rest of the lines asked for did not fit in one result");
            rig__buf_addf(&note, ". Call read_file with offset=%" PRId64 " to read more.]",
                     tr->shown_last + 1);
        } else if (tr->shown_first > 1 || tr->shown_last < total) {
            rig__buf_addf(&note, "[Lines %" PRId64 "-%" PRId64 " of %" PRId64 " shown", tr->shown_first,
                     tr->shown_last, total);
            if (tr->full)
                rig__buf_addf(&note, "; the rest of the lines asked for did not fit in one result");
            if (tr->shown_last < total)
                rig__buf_addf(&note, ". Call read_file with offset=%" PRId64 " to read more.]",
                         tr->shown_last + 1);
            else
                rig__buf_addf(&note, " (the end of the file).]");
        }
        if (tr->cut_lines)
            rig__buf_addf(&note, "%s[%zu line%s longer than %d characters %s cut; the rest of such a "
                            "line cannot be shown by read_file.]",
                     note.len ? "\n" : "", tr->cut_lines, tr->cut_lines == 1 ? "" : "s",
                     RIG_FS_READ_MAX_LINE_CHARS, tr->cut_lines == 1 ? "was" : "were");
        if (tr->bad_bytes)
            rig__buf_addf(&note, "%s[%zu byte%s not valid UTF-8 %s shown as U+FFFD.]",
                     note.len ? "\n" : "", tr->bad_bytes, tr->bad_bytes == 1 ? "" : "s",
                     tr->bad_bytes == 1 ? "is" : "are");
        if (note.len)
            rig_result_textn(r, note.p, note.len);
        bool oom = note.oom;
        free(note.p);
        if (oom) {
            rig_result_free(r);
            r = rig_result_error("Out of memory reading '%s'.", path);
        }
    }
    if (changed && r)
        rig_result_textf(r, "[The file changed while it was read (%lld bytes when the read "
                            "began, %lld at its end): what is shown may mix old and new "
                            "content. Read it again.]",
                         (long long)st->st_size, (long long)now.st_size);
    free(tr->out.p);
    free(tr);
    return r;
}

/* ---- the tool ----------------------------------------------------------- */

static rig_result *read_file_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *read_file_run(rig_call *call) {
    return rig__fs_with_roots(call, read_file_run_in);
}

static rig_result *read_file_run_in(rig_call *call, rig_roots *roots) {
    const char *path = rig_call_str(call, "path", NULL);
    if (!path || !*path)
        return rig_result_error("A path is needed: call read_file with the file's path.");
    rig_error err = {0};
    int fd = rig_roots_open(roots, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0, NULL, &err);
    if (fd < 0) {
        if (err.code == RIG_ENOENT)
            return rig_result_error("No such file: '%s'. Check the path, or call "
                                    "list_directory to see what exists.",
                                    path);
        return rig_result_error("%s", err.message);
    }
    rig_result *r;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        r = rig_result_error("'%s': %s.", path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        r = rig_result_error("'%s' is a directory, not a file. Call list_directory to see what "
                             "it holds.",
                             path);
    } else if (!S_ISREG(st.st_mode)) {
        r = rig_result_error("'%s' is not a regular file (a device, pipe or socket); read_file "
                             "reads regular files only.",
                             path);
    } else {
        unsigned char head[SNIFF_BYTES];
        ssize_t n = pread_full(fd, head, sizeof head, 0);
        if (n < 0) {
            r = rig_result_error("Reading '%s' failed: %s.", path, strerror(errno));
        } else {
            sniff s = sniff_bytes(head, (size_t)n);
            if (s.kind == K_TEXT)
                r = read_text(call, fd, path, &st);
            else if (rig_call_bool(call, "binary", false))
                r = read_binary(call, fd, path, &st, s);
            else
                r = rig_result_error(
                    "'%s' is %s (%s, %lld bytes), not text. Call read_file with binary=true "
                    "to get it as %s.",
                    path, s.what, s.mime, (long long)st.st_size,
                    s.kind == K_IMAGE   ? "an image content block"
                    : s.kind == K_AUDIO ? "an audio content block"
                    : s.kind == K_PDF   ? "an embedded PDF resource"
                                        : "base64 data (an embedded resource)");
        }
    }
    close(fd);
    return r;
}

static const rig_builtin_spec read_file_spec = {
    .name = "read_file",
    .title = "Read a file",
    .description =
        "Read a file inside the allowed directories. Text comes back as its lines (at most "
        "2000 per call by default; use offset and limit to page through larger files, and "
        "line_numbers to prefix each line with its number and a tab). A partial read ends "
        "with a note saying which lines were shown, of how many, and the offset that "
        "continues. Lines longer than 2000 characters are cut; bytes that are not UTF-8 are "
        "shown as U+FFFD. A file over 1 MiB must be read with offset/limit (or searched with "
        "grep). Binary files are only returned with binary=true: images and audio as image "
        "and audio content, PDF and anything else as an embedded base64 resource (at most "
        "20 MiB). For a directory, use list_directory.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The file to read: "
        "absolute, or relative to the first allowed directory.\"},"
        "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The first line to "
        "show, 1-based (default 1).\"},"
        "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"How many lines to "
        "show (default 2000).\"},"
        "\"binary\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Return a binary "
        "file (image, audio, PDF, other) as base64 content instead of refusing it. Offset and "
        "limit do not apply to binary files.\"},"
        "\"line_numbers\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Prefix "
        "each line with its line number and a tab.\"}},"
        "\"required\":[\"path\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = read_file_run,
};

rig_tool *rig__read_file_tool_new(rig_roots *roots, rig_error *err) {
    return rig__fs_tool_new(&read_file_spec, roots, err);
}


