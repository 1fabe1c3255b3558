/* error.c — status code names and the rig_error record (see rig/error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rig/error.h"

const char *rig_strerror(int code)
{
    switch (code) {
    case RIG_OK: return "success";
    case RIG_EINVAL: return "invalid argument";
    case RIG_ENOMEM: return "out of memory";
    case RIG_EEXIST: return "name already in use";
    case RIG_ENOENT: return "no such name";
    case RIG_ESCHEMA: return "invalid JSON Schema";
    case RIG_EVALIDATE: return "arguments do not match the schema";
    case RIG_EJSON: return "invalid JSON";
    case RIG_ETIMEDOUT: return "deadline passed";
    case RIG_ECANCELED: return "cancelled";
    case RIG_EBLOCKED: return "blocked by a hook";
    case RIG_EPARAMS: return "parameters not accepted";
    case RIG_ETOOL: return "the tool reported an error";
    case RIG_ESTATE: return "wrong state for this operation";
    case RIG_ENOTSUP: return "not supported by the other side";
    case RIG_EPEER: return "the other side answered with an error";
    default: return "unknown error";
    }
}

/* Step back from `n` to the start of a UTF-8 sequence so a cut message stays
 * valid UTF-8 (it may reach a model as JSON). */
static size_t utf8_floor(const char *s, size_t n)
{
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

int rig_error_set(rig_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (n < 0)
        err->message[0] = '\0';
    else if ((size_t)n >= sizeof err->message)
        err->message[utf8_floor(err->message, sizeof err->message - 1)] = '\0';
    return code;
}

void rig_error_clear(rig_error *err)
{
    if (!err)
        return;
    err->code = 0;
    err->message[0] = '\0';
}
