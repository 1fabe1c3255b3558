/* jsonrpc.c — the JSON-RPC 2.0 envelope (see jsonrpc.h). */
#include <string.h>

#include "mcp/jsonrpc.h"

static void invalid(rpc_msg *m, int code, const char *why)
{
    m->kind = RPC_INVALID;
    m->code = code;
    m->why = why;
}

void rig__rpc_classify(rig_json_val root, rpc_msg *m)
{
    memset(m, 0, sizeof *m);
    m->root = root;
    if (!rig_json_is_object(root)) {
        invalid(m, -32600, rig_json_is_array(root)
                               ? "Invalid Request: batches are not supported; send one message"
                               : "Invalid Request: a message must be a JSON object");
        return;
    }
    /* An id that is a string or a number is echoed in any error, so the
     * client can match it; null, or any other type, is no usable id. */
    rig_json_val id = rig_json_get(root, "id");
    bool has_id = rig_json_exists(id);
    bool good_id = rig_json_is_string(id) || rig_json_is_number(id);
    if (good_id)
        m->id = id;
    if (!rig_json_str_eq(rig_json_get(root, "jsonrpc"), "2.0")) {
        invalid(m, -32600, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
        return;
    }
    if (has_id && !good_id) {
        invalid(m, -32600, "Invalid Request: \"id\" must be a string or a number");
        return;
    }
    rig_json_val method = rig_json_get(root, "method");
    if (rig_json_exists(method)) {
        if (!rig_json_is_string(method)) {
            invalid(m, -32600, "Invalid Request: \"method\" must be a string");
            return;
        }
        m->method = method;
        rig_json_val params = rig_json_get(root, "params");
        if (rig_json_exists(params) && !rig_json_is_object(params)) {
            invalid(m, -32602, "Invalid params: \"params\" must be an object");
            return;
        }
        m->params = params;
        m->kind = has_id ? RPC_REQUEST : RPC_NOTIFICATION;
        return;
    }
    bool result = rig_json_exists(rig_json_get(root, "result"));
    bool error = rig_json_exists(rig_json_get(root, "error"));
    if (has_id && result != error) {
        m->kind = RPC_RESPONSE;
        return;
    }
    invalid(m, -32600, "Invalid Request: a message needs a \"method\", or an \"id\" with "
                       "\"result\" or \"error\"");
}

static void begin(rig_json_writer *w)
{
    rig_json_writer_reset(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "jsonrpc");
    rig_json_write_string(w, "2.0");
}

static void write_id(rig_json_writer *w, rig_json_val id)
{
    rig_json_write_key(w, "id");
    if (rig_json_exists(id))
        rig_json_write_value(w, id);
    else
        rig_json_write_null(w);
}

int rig__rpc_write_error(rig_json_writer *w, rig_json_val id, int code, const char *message)
{
    begin(w);
    write_id(w, id);
    rig_json_write_key(w, "error");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "code");
    rig_json_write_int(w, code);
    rig_json_write_key(w, "message");
    rig_json_write_string(w, message);
    rig_json_write_object_end(w);
    rig_json_write_object_end(w);
    return rig_json_writer_error(w);
}

void rig__rpc_begin_result(rig_json_writer *w, rig_json_val id)
{
    begin(w);
    write_id(w, id);
    rig_json_write_key(w, "result");
}

void rig__rpc_begin_result_raw(rig_json_writer *w, const char *id, size_t len)
{
    begin(w);
    rig_json_write_key(w, "id");
    rig_json_write_raw(w, id, len);
    rig_json_write_key(w, "result");
}

void rig__rpc_begin_notification(rig_json_writer *w, const char *method)
{
    begin(w);
    rig_json_write_key(w, "method");
    rig_json_write_string(w, method);
    rig_json_write_key(w, "params");
}

void rig__rpc_begin_request(rig_json_writer *w, int64_t id, const char *method)
{
    begin(w);
    rig_json_write_key(w, "id");
    rig_json_write_int(w, id);
    rig_json_write_key(w, "method");
    rig_json_write_string(w, method);
    rig_json_write_key(w, "params");
}

void rig__rpc_end(rig_json_writer *w)
{
    rig_json_write_object_end(w);
}
