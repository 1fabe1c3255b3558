/* buf.h — a growable byte buffer, always NUL-terminated, for building a
 * tool's text. It remembers running out of memory: after a failed growth
 * every add does nothing and `oom` stays set, so a builder checks once at
 * the end instead of after every add. Internal. */
#ifndef RIG_UTIL_BUF_H
#define RIG_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

typedef struct rig__buf {
    char *p;    /* NULL until the first add */
    size_t len, cap;
    bool oom;
} rig__buf;

/* Room for `more` bytes (and the NUL) past len; false when out of memory. */
RIG_INTERNAL bool rig__buf_reserve(rig__buf *b, size_t more);
RIG_INTERNAL void rig__buf_add(rig__buf *b, const void *s, size_t n);
RIG_INTERNAL void rig__buf_adds(rig__buf *b, const char *s);
RIG_INTERNAL void rig__buf_addc(rig__buf *b, char c);
RIG_INTERNAL void rig__buf_addf(rig__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Free the bytes; the buffer is empty (and usable) again. */
RIG_INTERNAL void rig__buf_free(rig__buf *b);

#endif
