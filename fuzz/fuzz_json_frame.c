/* fuzz_json_frame.c — the newline framer against a naive reference split.
 *
 * Input layout: byte 0 picks max_frame (1..64), byte 1 the number of chunk
 * sizes that follow (0..15), then the chunk sizes (0..40 each, used in turn;
 * 0 means "call again with nothing new"), then the stream itself.
 *
 * The stream is fed the way json.h tells a caller to: append a chunk, call
 * rig_json_framer_next until it returns 0, drop out.consumed bytes from the
 * front, repeat; at the end rig_json_framer_finish. What it yields must be
 * what the reference gives for the whole stream at once: split on "\n", strip
 * one trailing "\r", a line longer than max_frame is one RIG_JSON_EFRAME, a
 * line of only spaces, tabs and CRs is skipped, any other line is a frame.
 * (A long blank line is reported as too long, like any other: the framer
 * cannot know it will stay blank without buffering it.) And the caller's
 * pending bytes never exceed max_frame + 1 + the chunk just appended: the
 * framer must not make its caller buffer an oversized frame. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { EV_FRAME, EV_TOOLONG };

typedef struct event {
    int kind;
    const uint8_t *p; /* the frame's bytes in the stream (reference) */
    size_t len;       /* frame length; for EV_TOOLONG the line's raw length */
} event;

static bool blank(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

/* The reference: the whole stream at once. */
static size_t reference(const uint8_t *s, size_t n, size_t max_frame, event *ev) {
    size_t count = 0, start = 0;
    while (start < n) {
        const uint8_t *nl = memchr(s + start, '\n', n - start);
        size_t end = nl ? (size_t)(nl - s) : n, raw = end - start, len = raw;
        if (len && s[start + len - 1] == '\r')
            len--;
        if (len > max_frame)
            ev[count++] = (event){EV_TOOLONG, s + start, raw};
        else if (!blank(s + start, len))
            ev[count++] = (event){EV_FRAME, s + start, len};
        start = end + 1;
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2)
        return 0;
    size_t max_frame = 1 + data[0] % 64, nchunks = data[1] % 16;
    if (size < 2 + nchunks)
        return 0;
    const uint8_t *chunks = data + 2, *s = data + 2 + nchunks;
    size_t n = size - 2 - nchunks;

    /* at most one event per line: n + 1 lines */
    event *want = malloc((n + 1) * sizeof *want);
    FUZZ_CHECK(want, "out of memory");
    size_t nwant = reference(s, n, max_frame, want), got = 0;

    rig_json_framer f;
    rig_json_framer_init(&f, max_frame);
    char *buf = malloc(n + 1); /* the caller's read buffer: pending bytes first */
    FUZZ_CHECK(buf, "out of memory");
    size_t pending = 0, fed = 0, turn = 0, empty_turns = 0;
    bool done = false;

    while (!done) {
        size_t chunk = nchunks ? chunks[turn++ % nchunks] % 41 : 16;
        if (chunk == 0 && ++empty_turns > 64)
            chunk = 1; /* a run of empty reads must still end */
        if (chunk > n - fed)
            chunk = n - fed;
        memcpy(buf + pending, s + fed, chunk);
        pending += chunk;
        fed += chunk;
        FUZZ_CHECK(pending <= max_frame + 1 + chunk,
                   "the caller holds %zu pending bytes (max_frame %zu, chunk %zu)", pending,
                   max_frame, chunk);
        done = fed == n;
        size_t pos = 0;
        for (;;) {
            rig_json_frame fr = {NULL, 12345, 12345};
            int rc = done ? rig_json_framer_finish(&f, buf + pos, pending - pos, &fr)
                          : rig_json_framer_next(&f, buf + pos, pending - pos, &fr);
            FUZZ_CHECK(rc == 0 || rc == 1 || rc == RIG_JSON_EFRAME, "framer returned %d", rc);
            FUZZ_CHECK(fr.consumed <= pending - pos, "consumed %zu of %zu bytes", fr.consumed,
                       pending - pos);
            if (rc == 1) {
                FUZZ_CHECK(got < nwant, "framer yields a frame past the reference's %zu events",
                           nwant);
                const event *e = &want[got++];
                FUZZ_CHECK(e->kind == EV_FRAME, "event %zu: framer gives a frame (%zu bytes), "
                           "reference says too long (%zu)", got - 1, fr.len, e->len);
                FUZZ_CHECK(fr.len == e->len && memcmp(fr.data, e->p, e->len) == 0,
                           "event %zu: frame of %zu bytes, reference %zu bytes", got - 1, fr.len,
                           e->len);
                FUZZ_CHECK(fr.data >= buf + pos && fr.data + fr.len <= buf + pending,
                           "frame points outside the buffer");
                FUZZ_CHECK(fr.consumed > 0, "frame yielded without consuming anything");
            } else if (rc == RIG_JSON_EFRAME) {
                FUZZ_CHECK(got < nwant, "framer reports a long frame past the reference's %zu "
                           "events", nwant);
                const event *e = &want[got++];
                FUZZ_CHECK(e->kind == EV_TOOLONG, "event %zu: framer says too long (%zu bytes), "
                           "reference gives a frame of %zu", got - 1, fr.len, e->len);
                FUZZ_CHECK(fr.len > max_frame && fr.len <= e->len,
                           "event %zu: too-long length %zu (max_frame %zu, line %zu)", got - 1,
                           fr.len, max_frame, e->len);
            } /* rc 0: out->data means nothing (it may still point at a skipped blank line) */
            pos += fr.consumed;
            if (rc == 0)
                break;
        }
        memmove(buf, buf + pos, pending - pos);
        pending -= pos;
        /* what is left is part of one line that has not ended */
        FUZZ_CHECK(!memchr(buf, '\n', pending), "the framer leaves a newline unconsumed");
        FUZZ_CHECK(pending <= max_frame + 1, "the framer leaves %zu bytes pending (max_frame %zu)",
                   pending, max_frame);
    }
    FUZZ_CHECK(got == nwant, "framer gives %zu events, reference %zu", got, nwant);
    FUZZ_CHECK(pending == 0, "%zu bytes pending after finish", pending);
    free(buf);
    free(want);
    return 0;
}
