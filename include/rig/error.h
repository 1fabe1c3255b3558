/* rig/error.h — status codes and the error record every fallible librig call
 * can fill.
 *
 * Functions return 0 (RIG_OK) or a negative RIG_E* code, libuv style, and
 * never print. Where a code alone cannot say enough ("which tool? which
 * key?"), the function also takes an optional rig_error * and writes a
 * sentence into it that a person or a model can act on. Passing NULL is
 * always allowed. */
#ifndef RIG_ERROR_H
#define RIG_ERROR_H

#include "rig/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rig_status {
    RIG_OK = 0,
    RIG_EINVAL = -1,     /* a bad argument: a name, a value, a flag */
    RIG_ENOMEM = -2,     /* allocation failed */
    RIG_EEXIST = -3,     /* the name is already taken */
    RIG_ENOENT = -4,     /* no such tool, factory or preset */
    RIG_ESCHEMA = -5,    /* a JSON Schema that cannot be compiled */
    RIG_EVALIDATE = -6,  /* arguments that do not satisfy the schema */
    RIG_EJSON = -7,      /* text that is not JSON, or JSON of the wrong shape */
    RIG_ETIMEDOUT = -8,  /* the call's deadline passed */
    RIG_ECANCELED = -9,  /* the call was cancelled */
    RIG_EBLOCKED = -10,  /* a before hook refused the call */
    RIG_EPARAMS = -11,   /* params given where none are accepted */
    RIG_ETOOL = -12,     /* the tool itself failed (an error result) */
    RIG_ESTATE = -13,    /* the object is in the wrong state for this call */
    RIG_ENOTSUP = -14,   /* the other side cannot do this (a capability it lacks) */
    RIG_EPEER = -15      /* the other side answered with an error */
};

/* The name of a status code's meaning, e.g. "no such tool". Never NULL. */
RIG_API const char *rig_strerror(int code);

#define RIG_ERROR_MESSAGE_MAX 512

typedef struct rig_error {
    int code;                               /* a RIG_E* value, 0 if none */
    char message[RIG_ERROR_MESSAGE_MAX];    /* one or more sentences, NUL-ended */
} rig_error;

/* Record `code` and a printf-style message in `err` (which may be NULL), and
 * return `code` so a caller can write `return rig_error_set(err, ...);`.
 * A message longer than the buffer is cut on a UTF-8 boundary. */
RIG_API int rig_error_set(rig_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clear `err` to code 0 and an empty message. NULL is allowed. */
RIG_API void rig_error_clear(rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
