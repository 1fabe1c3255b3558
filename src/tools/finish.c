/* finish.c — `finish`: the model says the task is done and hands over its
 * final message (OpenHands' FinishTool).
 *
 * The tool itself does nothing but echo the message; what makes it matter is
 * the "finish" event it emits, on which an agent loop or host stops the run
 * and takes the message as the answer. */
#include "tools/builtins.h"

static rig_result *finish_run(rig_call *call) {
    size_t len = 0;
    const char *message = rig_call_str(call, "message", &len);
    if (!message)
        return rig_result_error("Give the final message in 'message'.");
    rig_result *r = rig_result_new();
    rig_result_textn(r, message, len);
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "message");
        rig_json_write_stringn(w, message, len);
        rig_json_write_key(w, "finished");
        rig_json_write_bool(w, true);
        rig_json_write_object_end(w);
    }
    if (rig_result_structured_end(r) == RIG_OK)
        rig_call_emit(call, "finish", rig_result_structured_json(r, NULL));
    return r;
}

static const rig_builtin_spec finish_spec = {
    .name = "finish",
    .title = "Finish the task",
    .description =
        "Signal that the task is complete and give your final message to the user. Call it "
        "once, when the work is done or cannot go further, with a summary of what was done "
        "and anything the user must know (results, open issues, next steps). Nothing is run "
        "or changed; the message is returned as the final answer.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
        "\"description\":\"The final message to the user: what was done, the answer, and "
        "anything left open.\"}},"
        "\"required\":[\"message\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},"
        "\"finished\":{\"const\":true}},\"required\":[\"message\",\"finished\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = RIG_TOOL_INLINE,
    .fn = finish_run,
};

rig_tool *rig__finish_tool_new(rig_error *err) {
    return rig__builtin_new(&finish_spec, NULL, NULL, err);
}
