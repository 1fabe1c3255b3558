/* rig/toolset.h — a set of tools and everything that is the same for every
 * call: name lookup, argument validation with coercion and defaults, hooks,
 * the worker pool, deadlines, cancellation, the output cap and events.
 *
 * The path of a call:
 *   lookup → strip security_risk/summary → validate (+defaults) →
 *   toolset before hooks → tool before hooks → executor (worker thread) →
 *   output schema check → tool after hooks → toolset after hooks → cap
 *
 * Every failure on that path comes back as an error result the model can
 * act on ("Tool 'x' not found. Available: [a, b]"), never as a crash or a
 * lost call.
 *
 * Threads: calls, submits, add, remove, lookups and exports may come from
 * any thread at once. Hooks, listeners and settings are read without locks:
 * set them up before the first call. rig_toolset_count/rig_toolset_at walk
 * the table without a lock: use them where nothing removes tools meanwhile
 * (the export takes the lock itself). Do not free a toolset from a `done`
 * callback (it runs on a worker the free waits for), and mind that a tool
 * calling its own toolset synchronously waits for a free worker. */
#ifndef RIG_TOOLSET_H
#define RIG_TOOLSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/common.h"
#include "rig/content.h"
#include "rig/error.h"
#include "rig/tool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rig_toolset rig_toolset;

/* Limits, with the value of the system we match. */
#define RIG_OUTPUT_CAP_DEFAULT 50000      /* characters of text per result (OpenHands) */
#define RIG_TIMEOUT_DEFAULT_MS 300000     /* per call (FastMCP's 300 s) */
#define RIG_WORKERS_DEFAULT 16

RIG_API rig_toolset *rig_toolset_new(void);
/* Answers queued calls as cancelled, waits for running ones to finish,
 * then frees every tool. */
RIG_API void rig_toolset_free(rig_toolset *ts);

/* Add `t`; the toolset owns it from then on. RIG_EEXIST (and `err` filled)
 * when the name is taken; the caller still owns `t` on failure. */
RIG_API int rig_toolset_add(rig_toolset *ts, rig_tool *t, rig_error *err);
/* Remove and free the tool called `name` (after its running calls end).
 * RIG_ENOENT when there is none. */
RIG_API int rig_toolset_remove(rig_toolset *ts, const char *name);
/* The tool, valid until it is removed (a call in flight keeps its own
 * reference, so removing never pulls a tool from under a running call). */
RIG_API rig_tool *rig_toolset_get(const rig_toolset *ts, const char *name);
/* Tools in the order they were added, hidden ones included. */
RIG_API size_t rig_toolset_count(const rig_toolset *ts);
RIG_API rig_tool *rig_toolset_at(const rig_toolset *ts, size_t i);
/* The tool a model calls by `name` under `provider`'s native format: a tool
 * whose native api_name is `name`, else the tool called `name`. */
RIG_API rig_tool *rig_toolset_find_native(const rig_toolset *ts, rig_provider provider,
                                          const char *name);

/* Settings. */
RIG_API void rig_toolset_set_output_cap(rig_toolset *ts, size_t max_chars); /* 0: no cap */
RIG_API void rig_toolset_set_timeout(rig_toolset *ts, int64_t ms);          /* 0: none */
/* The most worker threads (default RIG_WORKERS_DEFAULT); takes effect
 * before the first call. The pool starts with one a core and grows, up to
 * this, when every worker is busy and none has taken a queued call for
 * 10 ms: tools that compute get no more threads than cores, tools that
 * block (sleep, I/O) get theirs. */
RIG_API void rig_toolset_set_workers(rig_toolset *ts, unsigned n);

/* Hooks for every tool, run before the tool's own before hooks and after
 * its own after hooks. */
RIG_API int rig_toolset_before(rig_toolset *ts, rig_before_fn fn, void *ud);
RIG_API int rig_toolset_after(rig_toolset *ts, rig_after_fn fn, void *ud);

/* Events: "add" and "remove" (data {"name":...}), and whatever tools emit.
 * `event` "*" receives every event. */
RIG_API int rig_toolset_on(rig_toolset *ts, const char *event, rig_event_fn fn, void *ud);
RIG_API int rig_toolset_off(rig_toolset *ts, const char *event, rig_event_fn fn, void *ud);

/* ---- calling ------------------------------------------------------- */

typedef struct rig_call_opts {
    const char *session;   /* per-conversation state key; NULL: "" */
    int64_t timeout_ms;    /* 0: the toolset's timeout; < 0: none */
    rig_provider provider; /* with `native`: resolve `name` as a native api_name */
    bool native;
    /* Where the tool's progress, log messages and questions go while it
     * runs (see rig_call_peer), with `peer_ud`; NULL: nowhere. The peer's
     * `end` runs once even when the call cannot start. */
    const rig_call_peer *peer;
    void *peer_ud;
} rig_call_opts;

/* Run tool `name` with `args` (JSON text of an object; NULL or "" mean {})
 * and wait for its result. Always returns a result (free it with
 * rig_result_free); failures are error results, and `err`, when given, gets
 * the status: RIG_OK, RIG_ENOENT (no such tool), RIG_EJSON (arguments not
 * JSON or not an object), RIG_EVALIDATE, RIG_EBLOCKED, RIG_ETIMEDOUT,
 * RIG_ECANCELED, RIG_ETOOL (the tool returned an error result). */
RIG_API rig_result *rig_toolset_call(rig_toolset *ts, const char *name, const char *args,
                                     size_t len, const rig_call_opts *opts, rig_error *err);

/* The same, without waiting: `done` runs exactly once, on whichever thread
 * finished the call (a worker; the caller's, for an error found before the
 * call was queued or for an inline tool; the one that cancelled it; or the
 * deadline timer), and owns the result it is given. The returned job handle
 * lets the caller cancel; release it with rig_job_release whether or not it
 * ran (NULL only when out of memory, after `done` reported that). */
typedef struct rig_job rig_job;
typedef void (*rig_done_fn)(rig_result *result, int status, void *ud);

RIG_API rig_job *rig_toolset_submit(rig_toolset *ts, const char *name, const char *args,
                                    size_t len, const rig_call_opts *opts, rig_done_fn done,
                                    void *ud);
/* Ask the call to stop: `done` runs promptly with a cancelled error result
 * (the tool itself stops at its next rig_call_cancelled check). Safe at any
 * time, also after `done` ran. */
RIG_API void rig_job_cancel(rig_job *job);
RIG_API void rig_job_release(rig_job *job);

#ifdef __cplusplus
}
#endif
#endif
