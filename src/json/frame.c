/* frame.c — splitting newline-delimited JSON into frames, in place.
 *
 * JSON text never holds a raw newline (inside strings it must be escaped), so a
 * frame ends at the first '\n' and memchr finds it. The framer keeps only how
 * far it has looked into the pending frame, so a frame that arrives a few bytes
 * at a time is scanned once, not once per read. When the pending frame grows
 * past the limit with no newline in sight, it is reported and from then on its
 * bytes are dropped as they come, so a peer cannot make us buffer an endless
 * line. */
#include <string.h>

#include "json/internal.h"

void rig_json_framer_init(rig_json_framer *f, size_t max_frame) {
    f->max_frame = max_frame ? max_frame : RIG_JSON_DEFAULT_MAX_SIZE;
    f->scanned = 0;
    f->discarding = false;
}

static bool blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return false;
    return true;
}

/* Can n bytes with no newline yet still become a frame within the limit? A
 * final '\r' does not count, since it will be stripped. */
static bool within_limit(const rig_json_framer *f, const char *p, size_t n) {
    if (n <= f->max_frame)
        return true;
    return n == f->max_frame + 1 && p[n - 1] == '\r';
}

int rig_json_framer_next(rig_json_framer *f, const char *buf, size_t len, rig_json_frame *out) {
    size_t pos = 0; /* start of the pending frame in buf */
    out->data = NULL;
    out->len = 0;
    out->consumed = 0;
    for (;;) {
        if (f->discarding) {
            const char *nl = memchr(buf + pos, '\n', len - pos);
            if (!nl) {
                out->consumed = len;
                return 0;
            }
            pos = (size_t)(nl - buf) + 1;
            f->discarding = false;
            f->scanned = 0;
            continue;
        }
        size_t from = pos + f->scanned;
        if (from > len) /* the caller gave us less than before: rescan */
            from = pos;
        const char *nl = memchr(buf + from, '\n', len - from);
        if (!nl) {
            size_t have = len - pos;
            if (!within_limit(f, buf + pos, have)) {
                f->discarding = true;
                f->scanned = 0;
                out->data = buf + pos;
                out->len = have;
                out->consumed = len;
                return RIG_JSON_EFRAME;
            }
            f->scanned = have;
            out->consumed = pos;
            return 0;
        }
        size_t next = (size_t)(nl - buf) + 1, n = (size_t)(nl - buf) - pos;
        f->scanned = 0;
        if (n && buf[pos + n - 1] == '\r')
            n--;
        out->data = buf + pos;
        out->len = n;
        out->consumed = next;
        if (n > f->max_frame)
            return RIG_JSON_EFRAME;
        if (!blank(buf + pos, n))
            return 1;
        pos = next;
    }
}

int rig_json_framer_finish(rig_json_framer *f, const char *buf, size_t len, rig_json_frame *out) {
    int rc = rig_json_framer_next(f, buf, len, out);
    if (rc != 0)
        return rc;
    size_t pos = out->consumed;
    f->scanned = 0;
    if (f->discarding) { /* the oversized frame ended with the input */
        f->discarding = false;
        out->consumed = len;
        return 0;
    }
    size_t n = len - pos;
    if (n && buf[pos + n - 1] == '\r')
        n--;
    out->data = buf + pos;
    out->len = n;
    out->consumed = len;
    if (n > f->max_frame)
        return RIG_JSON_EFRAME;
    if (blank(buf + pos, n)) {
        out->data = NULL;
        out->len = 0;
        return 0;
    }
    return 1;
}
