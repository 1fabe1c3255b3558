/* jsonrpc.h — JSON-RPC 2.0 messages as MCP uses them: telling requests,
 * notifications and responses apart, checking their envelope, and writing
 * answers that echo the request's id exactly as it was sent. Internal. */
#ifndef RIG_MCP_JSONRPC_H
#define RIG_MCP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/json.h"
#include "util/compiler.h"

typedef enum rpc_kind {
    RPC_INVALID,      /* answer with `code` and `why` (id: `id`, or null) */
    RPC_REQUEST,      /* method + id */
    RPC_NOTIFICATION, /* method, no id */
    RPC_RESPONSE      /* id + result or error: an answer to a request we sent */
} rpc_kind;

typedef struct rpc_msg {
    rpc_kind kind;
    rig_json_val root;
    rig_json_val id;     /* missing for notifications and for an unusable id */
    rig_json_val method; /* a string for requests and notifications */
    rig_json_val params; /* an object, or missing */
    int code;            /* RPC_INVALID: the JSON-RPC error code */
    const char *why;     /* RPC_INVALID: a static message */
} rpc_msg;

/* Classify the parsed message at root (a parse failure is the caller's:
 * -32700). Batches (arrays) are invalid: MCP dropped them in 2025-06-18. */
RIG_INTERNAL void rig__rpc_classify(rig_json_val root, rpc_msg *m);

/* {"jsonrpc":"2.0","id":<id as sent, or null>,"error":{"code","message"}}
 * into w (reset first). */
RIG_INTERNAL int rig__rpc_write_error(rig_json_writer *w, rig_json_val id, int code,
                                      const char *message);

/* Begin {"jsonrpc":"2.0","id":<id>,"result": — the caller writes the result
 * value and calls rig__rpc_end. */
RIG_INTERNAL void rig__rpc_begin_result(rig_json_writer *w, rig_json_val id);
/* The same with the id's JSON text, kept from a request answered later. */
RIG_INTERNAL void rig__rpc_begin_result_raw(rig_json_writer *w, const char *id, size_t len);
/* Begin {"jsonrpc":"2.0","method":<method>,"params": — for notifications. */
RIG_INTERNAL void rig__rpc_begin_notification(rig_json_writer *w, const char *method);
/* Begin {"jsonrpc":"2.0","id":<id>,"method":<method>,"params": — rig's own
 * requests to the client. */
RIG_INTERNAL void rig__rpc_begin_request(rig_json_writer *w, int64_t id, const char *method);
RIG_INTERNAL void rig__rpc_end(rig_json_writer *w);

#endif
