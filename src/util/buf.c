/* buf.c — the growable byte buffer of buf.h. */
#include "util/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rig__buf_reserve(rig__buf *b, size_t more)
{
    if (b->oom)
        return false;
    if (more > SIZE_MAX / 4 - b->len) {
        b->oom = true;
        return false;
    }
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void rig__buf_add(rig__buf *b, const void *s, size_t n)
{
    if (!rig__buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void rig__buf_adds(rig__buf *b, const char *s)
{
    rig__buf_add(b, s, strlen(s));
}

void rig__buf_addc(rig__buf *b, char c)
{
    rig__buf_add(b, &c, 1);
}

void rig__buf_addf(rig__buf *b, const char *fmt, ...)
{
    /* Most texts fit the stack; a longer one is formatted again in place. */
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        rig__buf_add(b, tmp, (size_t)n);
        return;
    }
    if (!rig__buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void rig__buf_free(rig__buf *b)
{
    free(b->p);
    *b = (rig__buf){0};
}
