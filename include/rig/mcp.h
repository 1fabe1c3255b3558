/* rig/mcp.h — an MCP server over a rig_toolset.
 *
 * The protocol engine and the transports are separate, as DESIGN.md's call
 * path has them. A rig_mcp_server holds what every client sees (the
 * toolset, the server's name and instructions); a rig_mcp_conn is one
 * client's session: it takes whole JSON-RPC messages from a transport and
 * hands messages back through the transport's send function. Tool calls run
 * on the toolset's workers; their answers are queued, the transport is woken
 * (wake callback, from any thread) and delivers them with rig_mcp_conn_flush
 * on its own thread, so a transport never writes from two threads.
 *
 * Protocol revisions: 2025-11-25, negotiating down to 2025-06-18 and
 * 2025-03-26 (the client's version if supported, else the latest). */
#ifndef RIG_MCP_H
#define RIG_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/content.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIG_MCP_LATEST_VERSION "2025-11-25"

/* JSON-RPC error codes (the spec's; MCP adds none for what rig reports). */
enum rig_mcp_error {
    RIG_MCP_PARSE_ERROR = -32700,
    RIG_MCP_INVALID_REQUEST = -32600,
    RIG_MCP_METHOD_NOT_FOUND = -32601,
    RIG_MCP_INVALID_PARAMS = -32602,
    RIG_MCP_INTERNAL_ERROR = -32603
};

typedef struct rig_mcp_info {
    const char *name;         /* serverInfo.name, e.g. "rig" */
    const char *version;      /* serverInfo.version */
    const char *title;        /* optional */
    const char *instructions; /* optional: InitializeResult.instructions */
} rig_mcp_info;

typedef struct rig_mcp_server rig_mcp_server;

/* A server over `ts`, which must outlive it. Copies `info`. */
RIG_API rig_mcp_server *rig_mcp_server_new(rig_toolset *ts, const rig_mcp_info *info,
                                           rig_error *err);
RIG_API void rig_mcp_server_free(rig_mcp_server *s);

/* tools/list pages: at most this many tools a page (default 100). */
RIG_API void rig_mcp_server_set_page_size(rig_mcp_server *s, unsigned n);

/* ---- resources --------------------------------------------------------
 *
 * A resource is a URI the client may read: static text or bytes given at
 * registration, or a read function. A template is a URI with RFC 6570
 * {name} parts (level 1: each matches one or more characters other than
 * '/'); a read of a matching URI goes to its function with the parts'
 * values. */

/* Named values: a template's variables, a prompt's arguments. */
typedef struct rig_mcp_vars rig_mcp_vars;
/* The value of `name`, or NULL. */
RIG_API const char *rig_mcp_var(const rig_mcp_vars *v, const char *name);

/* What a read returns: one or more contents. */
typedef struct rig_mcp_contents rig_mcp_contents;
RIG_API int rig_mcp_contents_text(rig_mcp_contents *c, const char *uri, const char *mime_type,
                                  const char *text);
/* `data` is raw bytes; rig base64-encodes them. */
RIG_API int rig_mcp_contents_blob(rig_mcp_contents *c, const char *uri, const char *mime_type,
                                  const void *data, size_t len);

/* Return RIG_OK, RIG_ENOENT for "no such resource" (the client gets MCP's
 * -32002), or another code with `err` saying why. */
typedef int (*rig_mcp_read_fn)(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out,
                               void *ud, rig_error *err);

typedef struct rig_mcp_resource {
    const char *uri; /* a template for rig_mcp_server_add_template */
    const char *name;
    const char *title;       /* optional */
    const char *description; /* optional */
    const char *mime_type;   /* optional */
    /* Either a read function ... */
    rig_mcp_read_fn read;
    void *ud;
    /* ... or static content (copied): text, or `blob_len` bytes. */
    const char *text;
    const void *blob;
    size_t blob_len;
} rig_mcp_resource;

/* Add a resource (a template). Clients are told the list changed. Errors:
 * RIG_EINVAL (no uri or name, neither read nor content), RIG_EEXIST. */
RIG_API int rig_mcp_server_add_resource(rig_mcp_server *s, const rig_mcp_resource *r,
                                        rig_error *err);
RIG_API int rig_mcp_server_add_template(rig_mcp_server *s, const rig_mcp_resource *r,
                                        rig_error *err);
/* Remove a resource or template by its uri; RIG_ENOENT if none. */
RIG_API int rig_mcp_server_remove_resource(rig_mcp_server *s, const char *uri);
/* Tell the clients that subscribed to `uri` it changed
 * (notifications/resources/updated). Any thread. */
RIG_API void rig_mcp_server_resource_updated(rig_mcp_server *s, const char *uri);

/* ---- prompts ----------------------------------------------------------- */

typedef struct rig_mcp_prompt_arg {
    const char *name;
    const char *title;       /* optional */
    const char *description; /* optional */
    bool required;
} rig_mcp_prompt_arg;

/* What prompts/get returns: messages, and optionally a description. */
typedef struct rig_mcp_messages rig_mcp_messages;
/* Each content block of `blocks` becomes one message from `role` ("user" or
 * "assistant"); the blocks are copied. */
RIG_API int rig_mcp_messages_add(rig_mcp_messages *m, const char *role, const rig_result *blocks);
RIG_API int rig_mcp_messages_description(rig_mcp_messages *m, const char *description);

/* Arguments come checked: every required one is there. Return RIG_OK, or a
 * code with `err` (RIG_EINVAL: the client gets -32602 with err's text). */
typedef int (*rig_mcp_prompt_fn)(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud,
                                 rig_error *err);

typedef struct rig_mcp_prompt {
    const char *name;
    const char *title;       /* optional */
    const char *description; /* optional */
    const rig_mcp_prompt_arg *args;
    size_t n_args;
    rig_mcp_prompt_fn get;
    void *ud;
} rig_mcp_prompt;

RIG_API int rig_mcp_server_add_prompt(rig_mcp_server *s, const rig_mcp_prompt *p, rig_error *err);
RIG_API int rig_mcp_server_remove_prompt(rig_mcp_server *s, const char *name);

/* ---- completion (completion/complete) ----------------------------------- */

typedef struct rig_mcp_completion rig_mcp_completion;
/* Offer one value (MCP allows 100 an answer; more are counted in total). */
RIG_API int rig_mcp_completion_add(rig_mcp_completion *c, const char *value);
/* The number of matches in all (default: those added) and whether there
 * are more than were sent. */
RIG_API void rig_mcp_completion_total(rig_mcp_completion *c, size_t total, bool has_more);

/* `ref_type` is "ref/prompt" (ref: the prompt's name) or "ref/resource"
 * (ref: the template's uri); `arg` and `value` the argument being typed;
 * `context` the arguments already filled in. Return RIG_OK (no values is
 * fine) or a code with `err`. */
typedef int (*rig_mcp_complete_fn)(const char *ref_type, const char *ref, const char *arg,
                                   const char *value, const rig_mcp_vars *context,
                                   rig_mcp_completion *out, void *ud, rig_error *err);
/* Declares the completions capability. */
RIG_API void rig_mcp_server_set_completion(rig_mcp_server *s, rig_mcp_complete_fn fn, void *ud);

/* ---- logging ------------------------------------------------------------ */

/* Send a log message (`data`: JSON text of any value) to every client whose
 * level admits it (notifications/message). Any thread. A tool logs with
 * rig_call_log instead, so the line travels with its request. */
RIG_API void rig_mcp_server_log(rig_mcp_server *s, rig_log_level level, const char *logger,
                                const char *data);

/* ---- the client's roots ---------------------------------------------------
 *
 * A client that declares the roots capability is asked for its roots
 * (roots/list) once it says it is initialized, and again each time it says
 * they changed (notifications/roots/list_changed), provided an application
 * registered rig_mcp_server_on_roots. The answer's file:// URIs become
 * local paths (percent-decoded; host empty or "localhost"); other URIs are
 * left out. An error answer, or one not shaped as MCP says, goes to no
 * application: it is logged to the client (notifications/message,
 * "warning") and the session keeps the roots it had. The session's key is
 * the one its tool calls carry (rig_call_session). */

/* The client of `session` offers these roots: `n` absolute paths (0: it
 * offers none). Called on the transport's thread, never concurrently for
 * one session. `note` starts empty; a message put there (e.g. which roots
 * could not be used) is logged to that client as a warning. */
typedef void (*rig_mcp_roots_fn)(const char *session, const char *const *paths, size_t n,
                                 void *ud, rig_error *note);
/* Register (NULL: none; then no roots/list is sent). Set before serving. */
RIG_API void rig_mcp_server_on_roots(rig_mcp_server *s, rig_mcp_roots_fn fn, void *ud);

/* A session ended: its client left (end of input), ended it (HTTP DELETE),
 * it expired or made room for another, or its transport stopped. For the
 * application to drop what it keeps per session. Called on the transport's
 * thread, once per session, after which the key is never used again. Set
 * before serving. */
typedef void (*rig_mcp_session_fn)(const char *session, void *ud);
RIG_API void rig_mcp_server_on_session_end(rig_mcp_server *s, rig_mcp_session_fn fn, void *ud);

/* ---- sessions ------------------------------------------------------------ */

typedef struct rig_mcp_conn rig_mcp_conn;

/* Where a message belongs, for transports that keep one stream per request
 * (Streamable HTTP). `related` is the JSON text of the id of the client's
 * request the message answers or was caused by (progress, a log line or a
 * question from its tool), NULL for one that belongs to no request
 * (list_changed, a resource update). `final`: this is the answer itself,
 * the last message of that request. `close`: no message (json is NULL),
 * but a request to close the related request's stream now: with `final`,
 * because the request is over without an answer (it was cancelled); else
 * the client reconnects after `retry_ms` (rig_call_close_stream). */
typedef struct rig_mcp_route {
    const char *related;
    size_t related_len;
    bool final;
    bool close;
    unsigned retry_ms;
} rig_mcp_route;

/* Send one whole message (a JSON object, no newline). Called only from
 * rig_mcp_conn_receive and rig_mcp_conn_flush, i.e. on the transport's own
 * thread. Return 0, or nonzero when the peer is gone (the connection then
 * stops sending). */
typedef int (*rig_mcp_send_fn)(const char *json, size_t len, const rig_mcp_route *route,
                               void *ud);
/* "Call rig_mcp_conn_flush soon, on your thread": called from any thread. */
typedef void (*rig_mcp_wake_fn)(void *ud);

RIG_API rig_mcp_conn *rig_mcp_conn_new(rig_mcp_server *s, rig_mcp_send_fn send,
                                       rig_mcp_wake_fn wake, void *ud);
/* Cancels the calls still running (their answers are dropped) and waits for
 * none: the calls end on their own; a conn may be freed at any time. */
RIG_API void rig_mcp_conn_free(rig_mcp_conn *c);

/* Handle one message (not kept: the buffer is the caller's again when this
 * returns). Answers that are ready at once (errors, lists, initialize,
 * ping) are sent before this returns; tool calls answer later through
 * wake + flush. Returns 0, or nonzero if the send function failed. */
RIG_API int rig_mcp_conn_receive(rig_mcp_conn *c, const char *msg, size_t len);

/* Send what finished since the last flush (tool results, progress). */
RIG_API int rig_mcp_conn_flush(rig_mcp_conn *c);

/* Calls still running. A call leaves this count only once its answer is
 * queued for flush, and `wake` is never called once the count was seen at 0
 * (nor after rig_mcp_conn_free), so a transport that finds it 0 and then
 * flushes has sent everything and may tear its wake-up down. */
RIG_API size_t rig_mcp_conn_pending(const rig_mcp_conn *c);

/* The session's key, as its tool calls see it (rig_call_session) and the
 * roots and session-end callbacks are given it: "mcp-1", "mcp-2", ... */
RIG_API const char *rig_mcp_conn_session(const rig_mcp_conn *c);

/* The protocol version the session speaks (before initialize: the latest). */
RIG_API const char *rig_mcp_conn_version(const rig_mcp_conn *c);
/* Whether `version` is one rig speaks. */
RIG_API bool rig_mcp_version_supported(const char *version, size_t len);

/* Serve one client over file descriptors (newline-delimited JSON, as MCP's
 * stdio transport) until the input ends, then wait for running calls to
 * answer. Nothing but MCP messages is written to out_fd. While it runs it
 * handles SIGINT and SIGTERM (stop reading, finish; a second one cancels the
 * running calls) and blocks SIGPIPE on the calling thread (threads started
 * meanwhile inherit that mask: a tool that spawns processes resets it in
 * the child). The caller's descriptors are left as they were. */
RIG_API int rig_mcp_serve_stdio(rig_mcp_server *s, int in_fd, int out_fd, rig_error *err);

/* ---- Streamable HTTP ----------------------------------------------------
 *
 * One endpoint (default /mcp): POST a message (a request is answered with
 * JSON, or an SSE stream when its call sends more than the answer: progress,
 * logs, questions to the client), GET an SSE stream for messages that belong
 * to no request (list_changed, resource updates), DELETE to end a session.
 * Sessions (Mcp-Session-Id) start at initialize. SSE event ids let a client
 * that lost a stream resume it (GET with Last-Event-ID). Requests with a
 * foreign Host or Origin are refused (DNS rebinding), as are ones without
 * the bearer token when one is set. The server is one libuv loop on a
 * thread of its own; tool calls run on the toolset's workers. */

typedef struct rig_mcp_http_opts {
    const char *host;            /* address to bind; default "127.0.0.1" */
    unsigned port;               /* 0: any free port (see rig_mcp_http_port) */
    const char *path;            /* default "/mcp" */
    const char *token;           /* clients must send "Authorization: Bearer <token>" */
    const char *const *origins;  /* NULL-ended Origins allowed beyond loopback ones */
    size_t max_body;             /* bytes a POST may carry; default 4 MiB */
    unsigned max_sessions;       /* default 1000; when full, the longest idle one goes */
    unsigned session_idle_s;     /* a session unused this long ends; default 3600 */
    unsigned conn_timeout_s;     /* an idle or stalled connection closes; default 30 */
    unsigned max_connections;    /* default 512 */
    /* Instead of one `token` for everyone: admit each session by its own
     * bearer token (an environment hands one to each episode). Called on
     * the server's thread with the request's token (never NULL: a request
     * without one is refused first) and the session's key ("mcp-N", as
     * rig_mcp_conn_session says): with `initialize` true for the request
     * that creates the session — the place to give that session its roots
     * — and false for every later one, so a token revoked since is refused
     * at once. Return true to admit. A session is bound to the token it
     * began with: another token cannot act in it. `token` is then ignored. */
    bool (*authorize)(const char *token, size_t len, const char *session, bool initialize,
                      void *ud);
    void *authorize_ud;
} rig_mcp_http_opts;

typedef struct rig_mcp_http rig_mcp_http;

/* Listen and serve in the background. */
RIG_API rig_mcp_http *rig_mcp_http_start(rig_mcp_server *s, const rig_mcp_http_opts *opts,
                                         rig_error *err);
/* The port it listens on. */
RIG_API unsigned rig_mcp_http_port(const rig_mcp_http *h);
/* Live sessions. */
RIG_API size_t rig_mcp_http_sessions(rig_mcp_http *h);
/* Stop listening, end every session (their calls are cancelled), free. */
RIG_API void rig_mcp_http_stop(rig_mcp_http *h);

/* Start, then serve until SIGINT or SIGTERM; `ready` (may be NULL) is
 * called once listening, with the port. */
RIG_API int rig_mcp_serve_http(rig_mcp_server *s, const rig_mcp_http_opts *opts,
                               void (*ready)(unsigned port, void *ud), void *ud, rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
