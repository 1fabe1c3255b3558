/* rig/tool.h — one tool: its name, description, schemas, annotations,
 * provider-native specs, executor and hooks; and rig_call, the context an
 * executor runs in.
 *
 * A tool is built with setters (curl style: new options never break old
 * callers) and then added to a rig_toolset, which owns it. An executor is a
 * plain synchronous function running on a worker thread:
 *
 *     static rig_result *greet(rig_call *call) {
 *         const char *who = rig_call_str(call, "name", NULL);
 *         return rig_result_error ... or a result with rig_result_textf(...)
 *     }
 *
 * It reads arguments already validated against the input schema (with
 * defaults filled in), checks rig_call_cancelled() in long loops, and never
 * writes to stdout. */
#ifndef RIG_TOOL_H
#define RIG_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/arena.h"
#include "rig/common.h"
#include "rig/content.h"
#include "rig/error.h"
#include "rig/json.h"
#include "rig/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rig_tool rig_tool;
typedef struct rig_call rig_call;

/* ---- names ---------------------------------------------------------- */

#define RIG_TOOL_NAME_MAX 128

/* MCP's rule: 1-128 characters of [A-Za-z0-9_.-]. Fills `err` when not. */
RIG_API bool rig_tool_name_valid(const char *name, rig_error *err);

/* ---- creating ------------------------------------------------------- */

typedef rig_result *(*rig_tool_fn)(rig_call *call);
typedef void (*rig_close_fn)(void *data);

/* A tool with `name` and the default input schema {"type":"object"}.
 * NULL (and `err` filled) for an invalid name or no memory. */
RIG_API rig_tool *rig_tool_new(const char *name, rig_error *err);

/* Free a tool that was never added to a toolset (a toolset frees its own). */
RIG_API void rig_tool_free(rig_tool *t);

RIG_API int rig_tool_set_title(rig_tool *t, const char *title);
RIG_API int rig_tool_set_description(rig_tool *t, const char *description);

/* The input schema must describe an object (its "type" is "object" or
 * absent). RIG_ESCHEMA / RIG_EJSON with `err` filled otherwise. */
RIG_API int rig_tool_set_input_schema(rig_tool *t, const char *json, size_t len, rig_error *err);
RIG_API int rig_tool_set_output_schema(rig_tool *t, const char *json, size_t len, rig_error *err);
/* `_meta`: a JSON object passed through to MCP listings. */
RIG_API int rig_tool_set_meta(rig_tool *t, const char *json, size_t len, rig_error *err);

/* MCP annotations. Each hint is unset (RIG_HINT_UNSET) unless given; an
 * unset hint takes MCP's default: readOnly false, destructive true,
 * idempotent false, openWorld true. */
typedef enum rig_hint { RIG_HINT_UNSET = 0, RIG_HINT_TRUE, RIG_HINT_FALSE } rig_hint;

typedef struct rig_annotations {
    rig_hint read_only;
    rig_hint destructive;
    rig_hint idempotent;
    rig_hint open_world;
} rig_annotations;

RIG_API void rig_tool_set_annotations(rig_tool *t, const rig_annotations *a);
RIG_API rig_annotations rig_tool_annotations(const rig_tool *t);
/* The effective hints, defaults applied. */
RIG_API bool rig_tool_read_only(const rig_tool *t);
RIG_API bool rig_tool_destructive(const rig_tool *t);
RIG_API bool rig_tool_idempotent(const rig_tool *t);
RIG_API bool rig_tool_open_world(const rig_tool *t);

/* A provider's native form of this tool (HUD's NativeToolSpec). */
typedef enum rig_provider {
    RIG_PROVIDER_OPENAI,     /* the Responses API's built-in tools */
    RIG_PROVIDER_ANTHROPIC,
    RIG_PROVIDER_GEMINI
} rig_provider;

typedef struct rig_native_spec {
    rig_provider provider;
    const char *api_type;    /* "bash_20250124", "shell", "computer_use", ... */
    const char *api_name;    /* the name the model calls it by; NULL: the tool's */
    const char *beta;        /* a beta header it needs, or NULL */
    const char *role;        /* "shell", "editor", "computer", "memory", or NULL */
    const char *const *supported_models; /* case-insensitive globs, NULL-ended; NULL: all */
    const char *extra_json;  /* more members for the native entry, a JSON object, or NULL:
                              * e.g. {"display_width_px":1280} */
} rig_native_spec;

/* Copies everything in `spec`. RIG_EINVAL for a missing api_type or an
 * extra_json that is not an object; RIG_EEXIST for a second spec for the
 * same provider. */
RIG_API int rig_tool_add_native(rig_tool *t, const rig_native_spec *spec, rig_error *err);
/* The spec for `provider` that supports `model` (NULL model: none does). */
RIG_API const rig_native_spec *rig_tool_native(const rig_tool *t, rig_provider provider,
                                               const char *model);
/* The tool's role: the first role named by any of its native specs. */
RIG_API const char *rig_tool_role(const rig_tool *t);

/* The executor and its state. `close` (may be NULL) runs on `data` once no
 * tool uses it any more. */
RIG_API void rig_tool_set_executor(rig_tool *t, rig_tool_fn fn, void *data, rig_close_fn close);
/* Give `t` its own executor function over `from`'s state (a factory's tools
 * sharing one connection or session). The state is closed after the last
 * tool using it is freed. */
RIG_API void rig_tool_share_executor(rig_tool *t, const rig_tool *from, rig_tool_fn fn);

enum rig_tool_flag {
    /* Pure, bounded work (think, a clock): run on the caller's thread,
     * skipping the worker hand-off. Deadlines are then not enforced. */
    RIG_TOOL_INLINE = 1 << 0,
    /* Not listed (a hub's inner tools), still callable by the hub. */
    RIG_TOOL_HIDDEN = 1 << 1
};
RIG_API void rig_tool_set_flags(rig_tool *t, unsigned flags);
RIG_API unsigned rig_tool_flags(const rig_tool *t);

/* ---- reading -------------------------------------------------------- */

RIG_API const char *rig_tool_name(const rig_tool *t);
RIG_API const char *rig_tool_title(const rig_tool *t);           /* NULL if none */
RIG_API const char *rig_tool_description(const rig_tool *t);     /* "" if none */
RIG_API const rig_schema *rig_tool_input_schema(const rig_tool *t);
RIG_API const rig_schema *rig_tool_output_schema(const rig_tool *t); /* NULL if none */
RIG_API const char *rig_tool_meta_json(const rig_tool *t, size_t *len); /* NULL if none */

/* ---- hooks ---------------------------------------------------------- */

/* A before hook sees the (validated) arguments. It may
 *   - return RIG_OK and leave *replace NULL: the call goes on unchanged;
 *   - return RIG_OK and set *replace to new arguments (a JSON object text,
 *     malloc'd; the toolset frees it): they replace the arguments and are
 *     validated again;
 *   - return an error code with a message in `err`: the call is blocked and
 *     the model gets an error result carrying that message.
 * Hooks run in registration order, each seeing the previous one's output. */
typedef int (*rig_before_fn)(rig_call *call, rig_json_val args, char **replace,
                             void *ud, rig_error *err);

/* An after hook sees the arguments and the result. Returning a new result
 * replaces it (the toolset frees the old one); returning NULL keeps it. */
typedef rig_result *(*rig_after_fn)(rig_call *call, rig_json_val args, const rig_result *result,
                                    void *ud);

RIG_API int rig_tool_before(rig_tool *t, rig_before_fn fn, void *ud);
RIG_API int rig_tool_after(rig_tool *t, rig_after_fn fn, void *ud);

/* ---- events (HUD's callbacks) --------------------------------------- */

/* `data` is a JSON object text (or NULL) given by whoever triggered it. */
typedef void (*rig_event_fn)(const char *event, const rig_tool *t, const char *data, void *ud);

RIG_API int rig_tool_on(rig_tool *t, const char *event, rig_event_fn fn, void *ud);
/* Remove the callback registered with the same event, fn and ud. RIG_ENOENT if none. */
RIG_API int rig_tool_off(rig_tool *t, const char *event, rig_event_fn fn, void *ud);

/* ---- the call context (inside an executor or hook) ------------------ */

/* The validated arguments, always an object. */
RIG_API rig_json_val rig_call_args(const rig_call *c);
RIG_API const rig_tool *rig_call_tool(const rig_call *c);
RIG_API void *rig_call_data(const rig_call *c);
/* The session this call belongs to ("" when the caller gave none); tools
 * keeping per-conversation state (think, update_todos) key it by this. */
RIG_API const char *rig_call_session(const rig_call *c);
/* Scratch memory freed when the call ends. */
RIG_API rig_arena *rig_call_arena(rig_call *c);

/* True once the call was cancelled or its deadline passed. */
RIG_API bool rig_call_cancelled(const rig_call *c);
/* Milliseconds left before the deadline; INT64_MAX when there is none. */
RIG_API int64_t rig_call_remaining_ms(const rig_call *c);
/* Sleep up to `ms`, waking early on cancellation or the deadline. RIG_OK
 * when the time passed, RIG_ECANCELED or RIG_ETIMEDOUT otherwise. */
RIG_API int rig_call_sleep(rig_call *c, int64_t ms);

/* The `security_risk` ("LOW", ...) and `summary` the model attached, when
 * the export added those fields; NULL otherwise. */
RIG_API const char *rig_call_security_risk(const rig_call *c);
RIG_API const char *rig_call_summary(const rig_call *c);

/* ---- talking to the caller while the tool runs --------------------------
 *
 * A caller (the MCP server, for one) may hand a call a peer: the functions
 * that carry progress, log messages and questions back to its client. Each
 * is optional; without a peer, progress and logs are dropped and questions
 * fail with RIG_ENOTSUP. */

/* MCP's logging levels (RFC 5424's severities, least severe first). */
typedef enum rig_log_level {
    RIG_LOG_DEBUG,
    RIG_LOG_INFO,
    RIG_LOG_NOTICE,
    RIG_LOG_WARNING,
    RIG_LOG_ERROR,
    RIG_LOG_CRITICAL,
    RIG_LOG_ALERT,
    RIG_LOG_EMERGENCY
} rig_log_level;

/* "debug", "info", ... ; NULL for a level out of range. */
RIG_API const char *rig_log_level_name(rig_log_level level);
/* The level named `name`, or -1. */
RIG_API int rig_log_level_parse(const char *name);

typedef void (*rig_progress_fn)(double progress, double total, const char *message, void *ud);

typedef struct rig_call_peer {
    rig_progress_fn progress;
    /* `data` is JSON text of one value (checked before it comes here);
     * `logger` may be NULL. */
    void (*log)(rig_log_level level, const char *logger, const char *data, size_t len, void *ud);
    /* Send request `method` with `params` (JSON text of an object) to the
     * client and wait for its answer: RIG_OK with *answer the result's JSON
     * text (malloc'd, NUL-ended), or an error code with `err` saying why. */
    int (*ask)(rig_call *call, const char *method, const char *params, size_t len, char **answer,
               size_t *answer_len, rig_error *err, void *ud);
    /* Close the stream carrying the call's messages; the client comes back
     * after `retry_ms` for the rest (MCP Streamable HTTP's SSE polling). */
    void (*close_stream)(unsigned retry_ms, void *ud);
    /* Runs once when the call is gone for good, after every other function
     * above has returned, so their `ud` can be freed here. May be NULL. */
    void (*end)(void *ud);
} rig_call_peer;

/* Report progress: `progress` so far of `total` (total <= 0: unknown), with
 * an optional message (an MCP client that asked for progress gets
 * notifications/progress). */
RIG_API void rig_call_progress(rig_call *c, double progress, double total, const char *message);

/* Log `data` (JSON text of any value; a string must be quoted) at `level`.
 * An MCP client gets notifications/message if it asked for that level. */
RIG_API void rig_call_log(rig_call *c, rig_log_level level, const char *logger, const char *data);
/* The same with a formatted message sent as a JSON string. */
RIG_API void rig_call_logf(rig_call *c, rig_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Close the stream that carries this call's messages to the client now:
 * the client reconnects after `retry_ms` and gets what followed (Streamable
 * HTTP's SSE polling, SEP-1699), so a long call need not hold a connection
 * open. Transports without streams (stdio) ignore it. */
RIG_API void rig_call_close_stream(rig_call *c, unsigned retry_ms);

/* Ask the caller's client (MCP: sampling/createMessage, elicitation/create,
 * roots/list) and wait for the answer, the call's cancellation or its
 * deadline. Returns RIG_OK with *answer (free it), RIG_ENOTSUP when the
 * client cannot answer that method, RIG_EPEER when it answered with an
 * error, RIG_ECANCELED, RIG_ETIMEDOUT, or RIG_ESTATE for an inline tool
 * (which runs on the thread that would carry the answer). */
RIG_API int rig_call_ask(rig_call *c, const char *method, const char *params, char **answer,
                         size_t *answer_len, rig_error *err);

/* Trigger the tool's (and the toolset's) callbacks for `event`. */
RIG_API void rig_call_emit(rig_call *c, const char *event, const char *data_json);

/* Typed argument getters: the value of top-level argument `key`, or the
 * fallback when it is absent or of another type. Strings are decoded into
 * the call's arena and live until the call ends. */
RIG_API const char *rig_call_str(rig_call *c, const char *key, size_t *len);
RIG_API int64_t rig_call_int(const rig_call *c, const char *key, int64_t fallback);
RIG_API double rig_call_double(const rig_call *c, const char *key, double fallback);
RIG_API bool rig_call_bool(const rig_call *c, const char *key, bool fallback);
RIG_API bool rig_call_has(const rig_call *c, const char *key);

#ifdef __cplusplus
}
#endif
#endif
