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

typedef struct rig_mcp_conn rig_mcp_conn;

/* Send one whole message (a JSON object, no newline). Called only from
 * rig_mcp_conn_receive and rig_mcp_conn_flush, i.e. on the transport's own
 * thread. Return 0, or nonzero when the peer is gone (the connection then
 * stops sending). */
typedef int (*rig_mcp_send_fn)(const char *json, size_t len, void *ud);
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

/* Serve one client over file descriptors (newline-delimited JSON, as MCP's
 * stdio transport) until the input ends, then wait for running calls to
 * answer. Nothing but MCP messages is written to out_fd. While it runs it
 * handles SIGINT and SIGTERM (stop reading, finish; a second one cancels the
 * running calls) and blocks SIGPIPE on the calling thread (threads started
 * meanwhile inherit that mask: a tool that spawns processes resets it in
 * the child). The caller's descriptors are left as they were. */
RIG_API int rig_mcp_serve_stdio(rig_mcp_server *s, int in_fd, int out_fd, rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
