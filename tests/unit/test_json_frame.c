/* test_json_frame.c — the newline framer (rig_json_framer_*).
 *
 * Most tests drive the framer the way a real reader does (see the comment
 * above rig_json_framer in json.h): bytes arrive in chunks and are appended to
 * a buffer, the framer is called until it has nothing more, the consumed
 * prefix is dropped, and the rest is kept for the next read. The same input
 * fed in every chunk size must produce the same frames, and the caller must
 * never hold more than one frame's limit plus one read. */
#include "testing.h"

/* ---------------------------------------------------------------- a caller */

typedef struct event {
    int rc;     /* 1 or RIG_JSON_EFRAME */
    char *data; /* frames only: a copy */
    size_t len;
} event;

typedef struct events {
    event *v;
    size_t n, cap;
} events;

static void events_add(events *e, int rc, const char *data, size_t len) {
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 16;
        e->v = realloc(e->v, e->cap * sizeof *e->v);
        assert_non_null(e->v);
    }
    event *ev = &e->v[e->n++];
    ev->rc = rc;
    ev->len = len;
    ev->data = NULL;
    if (rc == 1) {
        ev->data = malloc(len + 1);
        assert_non_null(ev->data);
        memcpy(ev->data, data, len);
        ev->data[len] = '\0';
    }
}

static void events_free(events *e) {
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i].data);
    free(e->v);
    memset(e, 0, sizeof *e);
}

typedef struct stream_stats {
    size_t peak;       /* most bytes the caller's buffer ever held */
    size_t max_retain; /* most bytes kept between reads */
} stream_stats;

/* Feeds input[0..len) in chunks of `chunk` bytes through a caller loop that
 * compacts its buffer after every read, then calls finish until it has
 * nothing more. Records frames and oversize reports in *out. */
static void run_stream(const char *input, size_t len, size_t chunk, size_t max_frame,
                       events *out, stream_stats *st) {
    rig_json_framer f;
    rig_json_framer_init(&f, max_frame);
    size_t cap = chunk + 64, blen = 0, in = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    stream_stats s = {0, 0};
    rig_json_frame fr;
    int rc;
    while (in < len) {
        size_t k = len - in < chunk ? len - in : chunk;
        if (blen + k > cap) {
            while (blen + k > cap)
                cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + blen, input + in, k);
        blen += k;
        in += k;
        if (blen > s.peak)
            s.peak = blen;
        size_t pos = 0;
        while ((rc = rig_json_framer_next(&f, buf + pos, blen - pos, &fr)) != 0) {
            assert_true(rc == 1 || rc == RIG_JSON_EFRAME);
            assert_true(fr.consumed <= blen - pos);
            if (rc == 1) {
                /* zero copy: the frame lies inside the caller's buffer */
                assert_true(fr.data >= buf + pos && fr.data + fr.len <= buf + pos + fr.consumed);
                /* the newline itself is never part of a frame */
                assert_null(memchr(fr.data, '\n', fr.len));
            }
            pos += fr.consumed;
            events_add(out, rc, fr.data, fr.len);
        }
        assert_true(fr.consumed <= blen - pos);
        pos += fr.consumed;
        memmove(buf, buf + pos, blen - pos);
        blen -= pos;
        /* What is kept is one pending frame within the limit, plus at most a
         * '\r' that may still turn out to precede its newline. */
        size_t fmax = max_frame ? max_frame : RIG_JSON_DEFAULT_MAX_SIZE;
        if (blen > fmax && !(blen == fmax + 1 && buf[blen - 1] == '\r'))
            fail_msg("chunk %zu: caller keeps %zu bytes, limit %zu", chunk, blen, fmax);
        if (blen > s.max_retain)
            s.max_retain = blen;
    }
    size_t pos = 0;
    while ((rc = rig_json_framer_finish(&f, buf + pos, blen - pos, &fr)) != 0) {
        assert_true(rc == 1 || rc == RIG_JSON_EFRAME);
        assert_true(fr.consumed <= blen - pos);
        pos += fr.consumed;
        events_add(out, rc, fr.data, fr.len);
    }
    pos += fr.consumed;
    assert_int_equal(pos, blen); /* finish consumes everything */
    free(buf);
    if (st)
        *st = s;
}

/* expected: frames as strings, NULL meaning one RIG_JSON_EFRAME report. */
static void check_events(const events *got, const char *const *expected, size_t n, size_t chunk) {
    if (got->n != n)
        fail_msg("chunk %zu: %zu events, expected %zu", chunk, got->n, n);
    for (size_t i = 0; i < n; i++) {
        const event *e = &got->v[i];
        if (!expected[i]) {
            if (e->rc != RIG_JSON_EFRAME)
                fail_msg("chunk %zu: event %zu is a frame \"%s\", expected EFRAME", chunk, i,
                         e->data);
        } else {
            if (e->rc != 1)
                fail_msg("chunk %zu: event %zu is EFRAME, expected \"%s\"", chunk, i,
                         expected[i]);
            if (e->len != strlen(expected[i]) || memcmp(e->data, expected[i], e->len) != 0)
                fail_msg("chunk %zu: event %zu is \"%s\", expected \"%s\"", chunk, i, e->data,
                         expected[i]);
        }
    }
}

/* ---------------------------------------------------------------- basics */

static void test_frames_in_one_buffer(void **state) {
    (void)state;
    const char text[] = "{\"a\":1}\n[2]\r\n\n   \n\t\r\n \"x y\" \nlast";
    size_t len = sizeof text - 1;
    char *buf = exact_copy(text, len);
    rig_json_framer f;
    rig_json_framer_init(&f, 0);
    rig_json_frame fr;
    size_t pos = 0;

    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), 1);
    assert_ptr_equal(fr.data, buf);
    assert_int_equal(fr.len, 7);
    assert_memory_equal(fr.data, "{\"a\":1}", 7);
    assert_int_equal(fr.consumed, 8);
    pos += fr.consumed;

    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), 1);
    assert_ptr_equal(fr.data, buf + 8);
    assert_int_equal(fr.len, 3); /* "\r\n" stripped */
    assert_memory_equal(fr.data, "[2]", 3);
    assert_int_equal(fr.consumed, 5);
    pos += fr.consumed;

    /* "\n", "   \n", "\t\r\n" are skipped; leading and trailing spaces of a real
     * frame are kept (only the newline and a final '\r' go) */
    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), 1);
    assert_int_equal(fr.len, 7);
    assert_memory_equal(fr.data, " \"x y\" ", 7);
    assert_ptr_equal(fr.data, buf + 21);
    assert_int_equal(fr.consumed, 1 + 4 + 3 + 8);
    pos += fr.consumed;
    assert_int_equal(pos, 29);

    /* "last" has no newline: nothing yet, nothing consumed */
    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), 0);
    assert_int_equal(fr.consumed, 0);
    assert_int_equal(f.scanned, 4);

    assert_int_equal(rig_json_framer_finish(&f, buf + pos, len - pos, &fr), 1);
    assert_int_equal(fr.len, 4);
    assert_ptr_equal(fr.data, buf + 29);
    assert_memory_equal(fr.data, "last", 4);
    assert_int_equal(fr.consumed, 4);
    pos += fr.consumed;
    assert_int_equal(pos, len);

    /* and after the end, nothing */
    assert_int_equal(rig_json_framer_finish(&f, buf + pos, 0, &fr), 0);
    assert_int_equal(fr.consumed, 0);
    free(buf);
}

static void test_crlf_stripping(void **state) {
    (void)state;
    const char text[] = "a\r\nb\r\r\nc\rd\n\r\n\re\r";
    static const char *const want[] = {"a", "b\r", "c\rd", "\re"};
    events ev = {0};
    run_stream(text, sizeof text - 1, sizeof text, 0, &ev, NULL);
    check_events(&ev, want, 4, 0);
    events_free(&ev);
}

static void test_blank_lines_skipped(void **state) {
    (void)state;
    const char text[] = "\n\n \n\t\t\n \r\n\r\n";
    size_t len = sizeof text - 1;
    rig_json_framer f;
    rig_json_framer_init(&f, 0);
    rig_json_frame fr;
    /* only blank lines: no frame, all of them consumed in one call */
    assert_int_equal(rig_json_framer_next(&f, text, len, &fr), 0);
    assert_int_equal(fr.consumed, len);
    assert_int_equal(rig_json_framer_finish(&f, text + len, 0, &fr), 0);
    assert_null(fr.data);
    assert_int_equal(fr.len, 0);

    /* a whitespace-only tail without newline is no frame either */
    rig_json_framer_init(&f, 0);
    const char tail[] = "\n \t \r";
    assert_int_equal(rig_json_framer_next(&f, tail, 5, &fr), 0);
    assert_int_equal(fr.consumed, 1);
    assert_int_equal(rig_json_framer_finish(&f, tail + 1, 4, &fr), 0);
    assert_null(fr.data);
    assert_int_equal(fr.len, 0);
    assert_int_equal(fr.consumed, 4);

    /* blank lines before a pending frame are consumed, the frame is kept */
    rig_json_framer_init(&f, 0);
    const char lead[] = "\n\n  \nabc";
    assert_int_equal(rig_json_framer_next(&f, lead, 8, &fr), 0);
    assert_int_equal(fr.consumed, 5);
    assert_int_equal(f.scanned, 3);
    assert_int_equal(rig_json_framer_finish(&f, lead + 5, 3, &fr), 1);
    assert_int_equal(fr.len, 3);
    assert_memory_equal(fr.data, "abc", 3);
}

static void test_final_frame_via_finish(void **state) {
    (void)state;
    rig_json_framer f;
    rig_json_frame fr;
    static const struct {
        const char *in;
        const char *frame; /* NULL: none */
    } cases[] = {
        {"{}", "{}"},
        {"{}\r", "{}"},
        {"  1  ", "  1  "},
        {"", NULL},
        {"\r", NULL},
        {"   ", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].in);
        char *buf = exact_copy(cases[i].in, len);
        rig_json_framer_init(&f, 0);
        assert_int_equal(rig_json_framer_next(&f, buf, len, &fr), 0);
        assert_int_equal(fr.consumed, 0);
        int rc = rig_json_framer_finish(&f, buf, len, &fr);
        if (cases[i].frame) {
            assert_int_equal(rc, 1);
            assert_int_equal(fr.len, strlen(cases[i].frame));
            assert_memory_equal(fr.data, cases[i].frame, fr.len);
        } else {
            assert_int_equal(rc, 0);
        }
        assert_int_equal(fr.consumed, len);
        free(buf);
    }

    /* finish can be called in a loop over a whole buffer */
    const char text[] = "a\nb\n\nc";
    static const char *const want[] = {"a", "b", "c"};
    rig_json_framer_init(&f, 0);
    size_t pos = 0, n = 0, len = sizeof text - 1;
    int rc;
    while ((rc = rig_json_framer_finish(&f, text + pos, len - pos, &fr)) != 0) {
        assert_int_equal(rc, 1);
        assert_true(n < 3);
        assert_int_equal(fr.len, 1);
        assert_memory_equal(fr.data, want[n], 1);
        n++;
        pos += fr.consumed;
    }
    pos += fr.consumed;
    assert_int_equal(n, 3);
    assert_int_equal(pos, len);
}

/* ---------------------------------------------------------------- chunking */

static void test_every_chunk_size(void **state) {
    (void)state;
    const char text[] = "{\"id\":1,\"method\":\"ping\"}\n"
                        "\n"
                        "[1,2,3]\r\n"
                        "   \t \n"
                        "\r\n"
                        "\"caf\xC3\xA9 \\n\"\n"
                        "{\"big\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\"}\r\n"
                        "\n\n\n"
                        " true \n"
                        "null";
    static const char *const want[] = {
        "{\"id\":1,\"method\":\"ping\"}",
        "[1,2,3]",
        "\"caf\xC3\xA9 \\n\"",
        "{\"big\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\"}",
        " true ",
        "null",
    };
    size_t len = sizeof text - 1, nwant = sizeof want / sizeof want[0];
    for (size_t chunk = 1; chunk <= len + 1; chunk++) {
        events ev = {0};
        stream_stats st;
        run_stream(text, len, chunk, 0, &ev, &st);
        check_events(&ev, want, nwant, chunk);
        assert_true(st.peak <= st.max_retain + chunk);
        events_free(&ev);
    }
}

/* ---------------------------------------------------------------- limits */

static void test_oversized_in_small_chunks(void **state) {
    (void)state;
    enum { MAX = 64 };
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
#define APPEND(s, n)                        \
    do {                                    \
        memcpy(text + len, (s), (n));       \
        len += (n);                         \
    } while (0)
    APPEND("ok1\n", 4);
    for (int i = 0; i < 1000; i++)
        APPEND("x", 1);
    APPEND("\n", 1);
    APPEND("ok2\r\n", 5);
    for (int i = 0; i < 70; i++) /* 70 > 64: too long even without "\r\n" */
        APPEND("y", 1);
    APPEND("\r\n", 2);
    APPEND("{\"next\":true}\n", 14);
    for (int i = 0; i < MAX; i++) /* exactly MAX: fine */
        APPEND("z", 1);
    APPEND("\n", 1);
    for (int i = 0; i < 300; i++) /* oversized, cut by the end of input */
        APPEND("w", 1);
#undef APPEND
    char zs[MAX + 1];
    memset(zs, 'z', MAX);
    zs[MAX] = '\0';
    const char *const want[] = {"ok1", NULL, "ok2", NULL, "{\"next\":true}", zs, NULL};
    size_t nwant = sizeof want / sizeof want[0];

    size_t chunks[] = {1, 2, 3, 5, 7, 8, 13, 16, 31, 63, 64, 65, 66, 100, 127, 200, 1000, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        size_t chunk = chunks[c];
        events ev = {0};
        stream_stats st;
        run_stream(text, len, chunk, MAX, &ev, &st);
        check_events(&ev, want, nwant, chunk);
        /* the caller never held more than a frame's limit and one read (one
         * byte more is possible only for a pending frame ending in '\r',
         * which this input does not have at the limit) */
        if (st.peak > MAX + chunk)
            fail_msg("chunk %zu: caller buffered %zu bytes", chunk, st.peak);
        /* every report says how much was seen: more than the limit */
        for (size_t i = 0; i < ev.n; i++)
            if (ev.v[i].rc == RIG_JSON_EFRAME) {
                assert_true(ev.v[i].len > MAX);
                if (chunk < len)
                    assert_true(ev.v[i].len <= MAX + 1 + chunk);
            }
        /* fed a byte at a time, the report comes at the first byte too many */
        if (chunk == 1) {
            assert_int_equal(ev.v[1].len, MAX + 1);
            assert_int_equal(ev.v[3].len, MAX + 1);
            assert_int_equal(ev.v[6].len, MAX + 1);
        }
        events_free(&ev);
    }
    free(text);
}

static void test_oversized_complete_in_one_buffer(void **state) {
    (void)state;
    const char text[] = "0123456789\n{}\n0123456789\r\nabcdefgh\nABCDEFGHIJKL";
    size_t len = sizeof text - 1;
    char *buf = exact_copy(text, len);
    rig_json_framer f;
    rig_json_framer_init(&f, 8);
    rig_json_frame fr;
    size_t pos = 0;

    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), RIG_JSON_EFRAME);
    assert_ptr_equal(fr.data, buf);
    assert_int_equal(fr.len, 10);
    assert_int_equal(fr.consumed, 11);
    assert_false(f.discarding); /* its newline is already here */
    pos += fr.consumed;

    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), 1);
    assert_int_equal(fr.len, 2);
    assert_memory_equal(fr.data, "{}", 2);
    pos += fr.consumed;

    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), RIG_JSON_EFRAME);
    assert_int_equal(fr.len, 10); /* after the '\r' is stripped */
    assert_int_equal(fr.consumed, 12);
    pos += fr.consumed;

    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), 1);
    assert_int_equal(fr.len, 8);
    assert_memory_equal(fr.data, "abcdefgh", 8);
    pos += fr.consumed;

    /* the last line has no newline and is already too long: reported now,
     * and its bytes are dropped */
    assert_int_equal(rig_json_framer_next(&f, buf + pos, len - pos, &fr), RIG_JSON_EFRAME);
    assert_int_equal(fr.len, 12);
    assert_int_equal(fr.consumed, 12);
    pos += fr.consumed;
    assert_int_equal(pos, len);
    assert_int_equal(rig_json_framer_next(&f, buf + pos, 0, &fr), 0);
    assert_int_equal(fr.consumed, 0);
    /* the end of input ends the oversized frame without a second report */
    assert_int_equal(rig_json_framer_finish(&f, buf + pos, 0, &fr), 0);
    assert_false(f.discarding);

    /* the framer is ready for a new stream */
    assert_int_equal(rig_json_framer_next(&f, "[]\n", 3, &fr), 1);
    assert_int_equal(fr.len, 2);
    free(buf);
}

/* One line against max_frame 8, whole and a byte at a time. */
static void check_limit_case(const char *line, int want_rc, size_t want_len) {
    size_t len = strlen(line);
    size_t chunks[] = {1, 2, 3, len};
    for (size_t c = 0; c < 4; c++) {
        events ev = {0};
        run_stream(line, len, chunks[c], 8, &ev, NULL);
        if (ev.n != 1)
            fail_msg("\"%s\" chunk %zu: %zu events", line, chunks[c], ev.n);
        if (ev.v[0].rc != want_rc)
            fail_msg("\"%s\" chunk %zu: rc %d, expected %d", line, chunks[c], ev.v[0].rc,
                     want_rc);
        if (want_rc == 1 && ev.v[0].len != want_len)
            fail_msg("\"%s\" chunk %zu: len %zu, expected %zu", line, chunks[c], ev.v[0].len,
                     want_len);
        if (want_rc == RIG_JSON_EFRAME)
            assert_true(ev.v[0].len > 8);
        events_free(&ev);
    }
}

static void test_limit_boundaries(void **state) {
    (void)state;
    check_limit_case("12345678\n", 1, 8);
    check_limit_case("123456789\n", RIG_JSON_EFRAME, 0);
    check_limit_case("12345678\r\n", 1, 8);
    check_limit_case("123456789\r\n", RIG_JSON_EFRAME, 0);
    check_limit_case("12345678\rX\n", RIG_JSON_EFRAME, 0); /* the '\r' was content */
    /* without a newline, through finish */
    check_limit_case("12345678", 1, 8);
    check_limit_case("12345678\r", 1, 8);
    check_limit_case("123456789", RIG_JSON_EFRAME, 0);
    check_limit_case("123456789\r", RIG_JSON_EFRAME, 0);

    /* a byte at a time, the report for "123456789\r\n" comes at the '9' (with
     * 9 bytes seen), and a held '\r' is reported as soon as a byte other than
     * '\n' follows it */
    events ev = {0};
    run_stream("123456789\r\n", 11, 1, 8, &ev, NULL);
    assert_int_equal(ev.n, 1);
    assert_int_equal(ev.v[0].len, 9);
    events_free(&ev);
    run_stream("12345678\rX\n", 11, 1, 8, &ev, NULL);
    assert_int_equal(ev.n, 1);
    assert_int_equal(ev.v[0].len, 10);
    events_free(&ev);

    /* the framer holds a full-length frame plus its '\r' while waiting */
    rig_json_framer f;
    rig_json_frame fr;
    rig_json_framer_init(&f, 8);
    assert_int_equal(rig_json_framer_next(&f, "12345678\r", 9, &fr), 0);
    assert_int_equal(fr.consumed, 0);
    assert_int_equal(rig_json_framer_next(&f, "12345678\r\n", 10, &fr), 1);
    assert_int_equal(fr.len, 8);
    assert_int_equal(fr.consumed, 10);
}

static void test_max_frame_zero_is_default(void **state) {
    (void)state;
    rig_json_framer f;
    rig_json_framer_init(&f, 0);
    assert_int_equal(f.max_frame, RIG_JSON_DEFAULT_MAX_SIZE);
    assert_int_equal(f.scanned, 0);
    assert_false(f.discarding);
    rig_json_framer_init(&f, 1);
    assert_int_equal(f.max_frame, 1);

    /* a frame far over any small limit passes with the default */
    size_t n = 1 << 20;
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    memset(buf, 'a', n);
    buf[n] = '\n';
    rig_json_framer_init(&f, 0);
    rig_json_frame fr;
    assert_int_equal(rig_json_framer_next(&f, buf, n + 1, &fr), 1);
    assert_int_equal(fr.len, n);
    assert_int_equal(fr.consumed, n + 1);
    free(buf);

    /* max_frame 1 still delivers one-byte frames */
    rig_json_framer_init(&f, 1);
    assert_int_equal(rig_json_framer_next(&f, "1\r\n", 3, &fr), 1);
    assert_int_equal(fr.len, 1);
    assert_int_equal(rig_json_framer_next(&f, "12\n", 3, &fr), RIG_JSON_EFRAME);
}

/* ---------------------------------------------------------------- scanning */

static void test_scanned_grows_without_rescan(void **state) {
    (void)state;
    size_t n = 1 << 20;
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)('a' + i % 26);
    buf[n] = '\n';
    rig_json_framer f;
    rig_json_framer_init(&f, 0);
    rig_json_frame fr;
    /* the caller keeps the whole pending frame and calls after every byte */
    for (size_t have = 1; have <= n; have++) {
        int rc = rig_json_framer_next(&f, buf, have, &fr);
        if (rc != 0 || fr.consumed != 0 || f.scanned != have)
            fail_msg("after %zu bytes: rc %d consumed %zu scanned %zu", have, rc, fr.consumed,
                     f.scanned);
    }
    assert_int_equal(rig_json_framer_next(&f, buf, n + 1, &fr), 1);
    assert_int_equal(fr.len, n);
    assert_int_equal(fr.consumed, n + 1);
    assert_int_equal(f.scanned, 0);
    free(buf);

    /* Evidence that scanned bytes are not looked at again: a newline planted
     * in the part already scanned (which a real caller never does) is not
     * seen; only the bytes after it are searched. */
    char t[] = "abcdef";
    rig_json_framer_init(&f, 0);
    assert_int_equal(rig_json_framer_next(&f, t, 6, &fr), 0);
    assert_int_equal(f.scanned, 6);
    char u[] = "ab\ndefg";
    assert_int_equal(rig_json_framer_next(&f, u, 7, &fr), 0);
    assert_int_equal(f.scanned, 7);

    /* a caller that hands over less than before gets a rescan, not a
     * read past its buffer */
    char *v = exact_copy("ab\n", 3);
    assert_int_equal(rig_json_framer_next(&f, v, 3, &fr), 1);
    assert_int_equal(fr.len, 2);
    assert_int_equal(f.scanned, 0);
    free(v);
}

/* Oversized frames dropped while waiting, then normal frames, with the
 * boundary of the drop falling at every position of a chunk. */
static void test_discard_then_frame_same_chunk(void **state) {
    (void)state;
    rig_json_framer f;
    rig_json_framer_init(&f, 4);
    rig_json_frame fr;
    assert_int_equal(rig_json_framer_next(&f, "abcdefg", 7, &fr), RIG_JSON_EFRAME);
    assert_int_equal(fr.len, 7);
    assert_int_equal(fr.consumed, 7);
    assert_true(f.discarding);
    /* more of it: dropped silently */
    assert_int_equal(rig_json_framer_next(&f, "hijk", 4, &fr), 0);
    assert_int_equal(fr.consumed, 4);
    /* its end and a whole frame in one read: the frame comes intact */
    const char *rest = "lmn\n{}\n";
    assert_int_equal(rig_json_framer_next(&f, rest, 7, &fr), 1);
    assert_ptr_equal(fr.data, rest + 4);
    assert_int_equal(fr.len, 2);
    assert_int_equal(fr.consumed, 7);
    assert_false(f.discarding);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_in_one_buffer),
        cmocka_unit_test(test_crlf_stripping),
        cmocka_unit_test(test_blank_lines_skipped),
        cmocka_unit_test(test_final_frame_via_finish),
        cmocka_unit_test(test_every_chunk_size),
        cmocka_unit_test(test_oversized_in_small_chunks),
        cmocka_unit_test(test_oversized_complete_in_one_buffer),
        cmocka_unit_test(test_limit_boundaries),
        cmocka_unit_test(test_max_frame_zero_is_default),
        cmocka_unit_test(test_scanned_grows_without_rescan),
        cmocka_unit_test(test_discard_then_frame_same_chunk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
