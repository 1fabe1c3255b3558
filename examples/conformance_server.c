/* conformance_server.c — an MCP server with every fixture the official MCP
 * conformance suite (@modelcontextprotocol/conformance) looks for: its
 * tools, resources, prompts and completion, with the names, texts and
 * timings its scenarios check (tests/conformance/EXPECTATIONS.md is the
 * spec). It is also an example of a whole MCP server built on librig's
 * public API alone: tools that report progress, log, ask the client
 * (sampling, elicitation) and close their stream; static, computed and
 * templated resources with subscriptions; prompts; completion.
 *
 * Usage:
 *   conformance_server                      serve one client over stdio
 *   conformance_server --http HOST:PORT     serve Streamable HTTP at /mcp
 *                                           (PORT 0: any free port)
 * Then: tests/conformance/run.sh http://HOST:PORT/mcp
 *
 * Build: the Meson build makes build/examples/conformance_server; outside it,
 *   cc conformance_server.c $(pkg-config --cflags --libs rig) -lpthread */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig/rig.h"
#include "rig/mcp.h"

#define PROG "conformance_server"

/* The suite's TEST_IMAGE_BASE64: a 1x1 red PNG. Tools and prompts hand
 * rig base64 directly; resources take raw bytes (rig encodes them), so the
 * same image is also kept decoded. */
static const char image_base64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
static const unsigned char image_png[70] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
    0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
    0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8,
    0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
/* A 44-byte WAV header with 2 data bytes; the suite wants "audio/wav". */
static const char audio_base64[] = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/* ---- tools: plain content ------------------------------------------------ */

static rig_result *simple_text(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_text(r, "This is a simple text response for testing.");
    return r;
}

static rig_result *image_content(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_image(r, image_base64, "image/png");
    return r;
}

static rig_result *audio_content(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_audio(r, audio_base64, "audio/wav");
    return r;
}

static rig_result *embedded_resource(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_resource_text(r, "test://embedded-resource", "text/plain",
                             "This is an embedded resource content.");
    return r;
}

static rig_result *multiple_content_types(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_text(r, "Multiple content types test:");
    rig_result_image(r, image_base64, "image/png");
    rig_result_resource_text(r, "test://mixed-content-resource", "application/json",
                             "{\"test\":\"data\",\"value\":123}");
    return r;
}

/* An error the model should see is a result with isError, not a protocol
 * error: the suite checks for exactly that. */
static rig_result *error_handling(rig_call *call)
{
    (void)call;
    return rig_result_error("This tool intentionally returns an error for testing");
}

static rig_result *json_schema_tool(rig_call *call)
{
    size_t len = 0;
    const char *args = rig_json_raw(rig_call_args(call), &len);
    rig_result *r = rig_result_new();
    rig_result_textf(r, "JSON Schema 2020-12 tool called with: %.*s", (int)len,
                     args ? args : "{}");
    return r;
}

/* ---- tools: talking to the client while running --------------------------- */

/* Three log lines 50 ms apart, before the result: the scenario counts the
 * notifications/message it got by the time the result is in (plus 200 ms). */
static rig_result *tool_with_logging(rig_call *call)
{
    rig_call_logf(call, RIG_LOG_INFO, "Tool execution started");
    if (rig_call_sleep(call, 50) != RIG_OK)
        return rig_result_error("Cancelled.");
    rig_call_logf(call, RIG_LOG_INFO, "Tool processing data");
    if (rig_call_sleep(call, 50) != RIG_OK)
        return rig_result_error("Cancelled.");
    rig_call_logf(call, RIG_LOG_INFO, "Tool execution completed");
    rig_result *r = rig_result_new();
    rig_result_text(r, "Tool with logging executed successfully");
    return r;
}

/* Progress 0, 50, 100 of 100, 50 ms apart. The server adds the client's
 * progressToken (and drops progress when the client asked for none). */
static rig_result *tool_with_progress(rig_call *call)
{
    for (int step = 0; step <= 100; step += 50) {
        char msg[64];
        snprintf(msg, sizeof msg, "Completed step %d of 100", step);
        rig_call_progress(call, step, 100, msg);
        if (step < 100 && rig_call_sleep(call, 50) != RIG_OK)
            return rig_result_error("Cancelled.");
    }
    rig_result *r = rig_result_new();
    rig_result_text(r, "Progress test completed: 3 steps reported.");
    return r;
}

/* The client's answer to a question, parsed; NULL (and *failure set) when
 * the question failed. */
static rig_json_doc *ask(rig_call *call, const char *method, const char *params,
                         rig_result **failure)
{
    char *answer = NULL;
    size_t len = 0;
    rig_error err;
    rig_error_clear(&err);
    int rc = rig_call_ask(call, method, params, &answer, &len, &err);
    if (rc != RIG_OK) {
        *failure = rig_result_error("%s failed: %s", method,
                                    err.message[0] ? err.message : rig_strerror(rc));
        return NULL;
    }
    /* The answer is ours; the document keeps a copy so it can go now. */
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(answer, len, &(rig_json_options){.flags = RIG_JSON_COPY_INPUT},
                                       &jerr);
    free(answer);
    if (!doc)
        *failure = rig_result_error("%s: the client's answer is not JSON", method);
    return doc;
}

static rig_result *sampling(rig_call *call)
{
    const char *prompt = rig_call_str(call, "prompt", NULL);
    /* maxTokens is required by the client's schema check. */
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "messages");
    rig_json_write_array_begin(&w);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "role");
    rig_json_write_string(&w, "user");
    rig_json_write_key(&w, "content");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "type");
    rig_json_write_string(&w, "text");
    rig_json_write_key(&w, "text");
    rig_json_write_string(&w, prompt ? prompt : "");
    rig_json_write_object_end(&w);
    rig_json_write_object_end(&w);
    rig_json_write_array_end(&w);
    rig_json_write_key(&w, "maxTokens");
    rig_json_write_int(&w, 100);
    rig_json_write_object_end(&w);
    const char *params = rig_json_writer_finish(&w, NULL);
    rig_result *failure = NULL;
    rig_json_doc *doc = params ? ask(call, "sampling/createMessage", params, &failure) : NULL;
    rig_json_writer_free(&w);
    if (!doc)
        return failure ? failure : rig_result_error("Out of memory.");

    /* CreateMessageResult.content is one block (or, since 2025-11-25, an
     * array of them): take the first text. */
    rig_json_val content = rig_json_get(rig_json_doc_root(doc), "content");
    if (rig_json_is_array(content))
        content = rig_json_at(content, 0);
    const char *text = rig_json_str_dup(rig_json_get(content, "text"), rig_call_arena(call), NULL);
    rig_json_doc_free(doc);
    rig_result *r = rig_result_new();
    rig_result_textf(r, "LLM response: %s", text ? text : "(no text)");
    return r;
}

/* elicitation/create with `message` and `schema`, answered with the text
 * "<prefix>: action=<action>, content=<content as JSON>". */
static rig_result *elicit(rig_call *call, const char *message, const char *schema,
                          const char *prefix)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "message");
    rig_json_write_string(&w, message);
    rig_json_write_key(&w, "requestedSchema");
    rig_json_write_raw(&w, schema, strlen(schema));
    rig_json_write_object_end(&w);
    const char *params = rig_json_writer_finish(&w, NULL);
    rig_result *failure = NULL;
    rig_json_doc *doc = params ? ask(call, "elicitation/create", params, &failure) : NULL;
    rig_json_writer_free(&w);
    if (!doc)
        return failure ? failure : rig_result_error("Out of memory.");

    rig_json_val root = rig_json_doc_root(doc);
    const char *action = rig_json_str_dup(rig_json_get(root, "action"), rig_call_arena(call), NULL);
    size_t clen = 0;
    const char *content = rig_json_raw(rig_json_get(root, "content"), &clen);
    rig_result *r = rig_result_new();
    rig_result_textf(r, "%s: action=%s, content=%.*s", prefix, action ? action : "(none)",
                     content ? (int)clen : 4, content ? content : "null");
    rig_json_doc_free(doc);
    return r;
}

static rig_result *elicitation(rig_call *call)
{
    const char *message = rig_call_str(call, "message", NULL);
    return elicit(call, message ? message : "Please provide your information",
                  "{\"type\":\"object\",\"properties\":{"
                  "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
                  "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
                  "\"required\":[\"username\",\"email\"]}",
                  "User response");
}

/* SEP-1034: every primitive kind of field with a default. */
static rig_result *elicitation_defaults(rig_call *call)
{
    return elicit(call, "Please review and update the form fields with defaults",
                  "{\"type\":\"object\",\"properties\":{"
                  "\"name\":{\"type\":\"string\",\"description\":\"User name\","
                  "\"default\":\"John Doe\"},"
                  "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
                  "\"score\":{\"type\":\"number\",\"description\":\"User score\","
                  "\"default\":95.5},"
                  "\"status\":{\"type\":\"string\",\"description\":\"User status\","
                  "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
                  "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\","
                  "\"default\":true}},"
                  "\"required\":[]}",
                  "Elicitation completed");
}

/* SEP-1330: the five enum forms (untitled, titled, legacy enumNames; single
 * and multiple choice). */
static rig_result *elicitation_enums(rig_call *call)
{
    return elicit(
        call, "Please select options from the enum fields",
        "{\"type\":\"object\",\"properties\":{"
        "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one option\","
        "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
        "\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one option with titles\","
        "\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
        "{\"const\":\"value2\",\"title\":\"Second Option\"},"
        "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
        "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one option (legacy)\","
        "\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
        "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
        "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options\","
        "\"minItems\":1,\"maxItems\":3,"
        "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
        "\"titledMulti\":{\"type\":\"array\","
        "\"description\":\"Select multiple options with titles\",\"minItems\":1,\"maxItems\":3,"
        "\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":\"First Choice\"},"
        "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
        "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},"
        "\"required\":[]}",
        "Elicitation completed");
}

/* SEP-1699: close the SSE stream before answering; the client comes back
 * with Last-Event-ID after `retry` and must get the result on the resumed
 * stream. The sleep makes sure the result comes after the close. */
static rig_result *reconnection(rig_call *call)
{
    rig_call_close_stream(call, 500);
    if (rig_call_sleep(call, 150) != RIG_OK)
        return rig_result_error("Cancelled.");
    rig_result *r = rig_result_new();
    rig_result_text(r, "Reconnection test completed successfully. If you received this, the "
                       "client properly reconnected after stream closure.");
    return r;
}

/* ---- the tool table -------------------------------------------------------- */

static const char no_args[] = "{\"type\":\"object\",\"properties\":{}}";

typedef struct tool_spec {
    const char *name;
    const char *description;
    const char *schema; /* NULL: no arguments */
    rig_tool_fn fn;
    bool inline_ok; /* pure and instant: may run on the transport's thread */
} tool_spec;

static const tool_spec tools[] = {
    {"test_simple_text", "Tests simple text content response", NULL, simple_text, true},
    {"test_image_content", "Tests image content response", NULL, image_content, true},
    {"test_audio_content", "Tests audio content response", NULL, audio_content, true},
    {"test_embedded_resource", "Tests embedded resource content response", NULL,
     embedded_resource, true},
    {"test_multiple_content_types", "Tests response with multiple content types (text, image, "
                                    "resource)",
     NULL, multiple_content_types, true},
    /* These sleep or wait for the client: never inline, they would stall
     * the thread that carries the client's answers. */
    {"test_tool_with_logging", "Tests tool that emits log messages during execution", NULL,
     tool_with_logging, false},
    {"test_error_handling", "Tests error response handling", NULL, error_handling, true},
    {"test_tool_with_progress", "Tests tool that reports progress notifications", NULL,
     tool_with_progress, false},
    {"test_sampling", "Tests server-initiated sampling (LLM completion request)",
     "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
     "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
     sampling, false},
    {"test_elicitation", "Tests server-initiated elicitation (user input request)",
     "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
     "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
     elicitation, false},
    {"test_elicitation_sep1034_defaults",
     "Tests elicitation with default values for all primitive types (SEP-1034)", NULL,
     elicitation_defaults, false},
    {"test_elicitation_sep1330_enums",
     "Tests elicitation with enum schema improvements (SEP-1330)", NULL, elicitation_enums,
     false},
    {"json_schema_2020_12_tool",
     "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
     "\"$defs\":{\"address\":{\"type\":\"object\",\"properties\":{"
     "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
     "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"}},"
     "\"additionalProperties\":false}",
     json_schema_tool, true},
    {"test_reconnection",
     "Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes "
     "the stream mid-call and the client resumes it to get the result",
     NULL, reconnection, false},
};

static int add_tools(rig_toolset *ts, rig_error *err)
{
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++) {
        const tool_spec *t = &tools[i];
        const char *schema = t->schema ? t->schema : no_args;
        rig_tool *tool = rig_tool_new(t->name, err);
        if (!tool)
            return err->code;
        if (rig_tool_set_input_schema(tool, schema, strlen(schema), err) != RIG_OK ||
            rig_tool_set_description(tool, t->description) != RIG_OK) {
            rig_tool_free(tool);
            return err->code ? err->code : rig_error_set(err, RIG_ENOMEM, "out of memory");
        }
        rig_tool_set_executor(tool, t->fn, NULL, NULL);
        if (t->inline_ok)
            rig_tool_set_flags(tool, RIG_TOOL_INLINE);
        if (rig_toolset_add(ts, tool, err) != RIG_OK) {
            rig_tool_free(tool);
            return err->code;
        }
    }
    return RIG_OK;
}

/* ---- resources -------------------------------------------------------------- */

/* test://watched-resource changes every 3 s (what its description says);
 * subscribers get notifications/resources/updated each time. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    unsigned version;
    rig_mcp_server *server;
} watched = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, NULL};

static void *watch_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&watched.mu);
    while (!watched.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 3;
        while (!watched.stop &&
               pthread_cond_timedwait(&watched.cv, &watched.mu, &until) != ETIMEDOUT) {
        }
        if (watched.stop)
            break;
        watched.version++;
        /* Not under the lock: a read of the resource takes it. */
        pthread_mutex_unlock(&watched.mu);
        rig_mcp_server_resource_updated(watched.server, "test://watched-resource");
        pthread_mutex_lock(&watched.mu);
    }
    pthread_mutex_unlock(&watched.mu);
    return NULL;
}

static int read_watched(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out,
                        void *ud, rig_error *err)
{
    (void)vars, (void)ud, (void)err;
    pthread_mutex_lock(&watched.mu);
    unsigned version = watched.version;
    pthread_mutex_unlock(&watched.mu);
    char text[96];
    snprintf(text, sizeof text, "Watched resource content, update %u", version);
    return rig_mcp_contents_text(out, uri, "text/plain", text);
}

/* test://template/{id}/data: JSON naming the id (the suite checks that the
 * text contains it). Written with the JSON writer so any id is escaped. */
static int read_template(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out,
                         void *ud, rig_error *err)
{
    (void)ud;
    const char *id = rig_mcp_var(vars, "id");
    if (!id)
        return rig_error_set(err, RIG_ENOENT, "no id in '%s'", uri);
    char data[160];
    snprintf(data, sizeof data, "Data for ID: %s", id);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "id");
    rig_json_write_string(&w, id);
    rig_json_write_key(&w, "templateTest");
    rig_json_write_bool(&w, true);
    rig_json_write_key(&w, "data");
    rig_json_write_string(&w, data);
    rig_json_write_object_end(&w);
    const char *json = rig_json_writer_finish(&w, NULL);
    int rc = json ? rig_mcp_contents_text(out, uri, "application/json", json) : RIG_ENOMEM;
    rig_json_writer_free(&w);
    return rc;
}

static int add_resources(rig_mcp_server *s, rig_error *err)
{
    int rc = rig_mcp_server_add_resource(
        s,
        &(rig_mcp_resource){.uri = "test://static-text",
                            .name = "static-text",
                            .title = "Static Text Resource",
                            .description = "A static text resource for testing",
                            .mime_type = "text/plain",
                            .text = "This is the content of the static text resource."},
        err);
    if (rc == RIG_OK)
        rc = rig_mcp_server_add_resource(
            s,
            &(rig_mcp_resource){.uri = "test://static-binary",
                                .name = "static-binary",
                                .title = "Static Binary Resource",
                                .description = "A static binary resource (image) for testing",
                                .mime_type = "image/png",
                                .blob = image_png,
                                .blob_len = sizeof image_png},
            err);
    if (rc == RIG_OK)
        rc = rig_mcp_server_add_resource(
            s,
            &(rig_mcp_resource){.uri = "test://watched-resource",
                                .name = "watched-resource",
                                .title = "Watched Resource",
                                .description = "A resource that auto-updates every 3 seconds",
                                .mime_type = "text/plain",
                                .read = read_watched},
            err);
    if (rc == RIG_OK)
        rc = rig_mcp_server_add_template(
            s,
            &(rig_mcp_resource){.uri = "test://template/{id}/data",
                                .name = "template",
                                .title = "Resource Template",
                                .description = "A resource template with parameter substitution",
                                .mime_type = "application/json",
                                .read = read_template},
            err);
    return rc;
}

/* ---- prompts ----------------------------------------------------------------- */

static int prompt_simple(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud,
                         rig_error *err)
{
    (void)args, (void)ud, (void)err;
    rig_result *b = rig_result_new();
    rig_result_text(b, "This is a simple prompt for testing.");
    int rc = rig_mcp_messages_add(out, "user", b);
    rig_result_free(b);
    return rc;
}

static int prompt_with_arguments(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud,
                                 rig_error *err)
{
    (void)ud, (void)err;
    /* Both are required, so the server has checked they are there. */
    rig_result *b = rig_result_new();
    rig_result_textf(b, "Prompt with arguments: arg1='%s', arg2='%s'", rig_mcp_var(args, "arg1"),
                     rig_mcp_var(args, "arg2"));
    int rc = rig_mcp_messages_add(out, "user", b);
    rig_result_free(b);
    return rc;
}

/* Each block becomes its own message: the resource, then the request. */
static int prompt_with_embedded_resource(const rig_mcp_vars *args, rig_mcp_messages *out,
                                         void *ud, rig_error *err)
{
    (void)ud, (void)err;
    rig_result *b = rig_result_new();
    rig_result_resource_text(b, rig_mcp_var(args, "resourceUri"), "text/plain",
                             "Embedded resource content for testing.");
    rig_result_text(b, "Please process the embedded resource above.");
    int rc = rig_mcp_messages_add(out, "user", b);
    rig_result_free(b);
    return rc;
}

static int prompt_with_image(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud,
                             rig_error *err)
{
    (void)args, (void)ud, (void)err;
    rig_result *b = rig_result_new();
    rig_result_image(b, image_base64, "image/png");
    rig_result_text(b, "Please analyze the image above.");
    int rc = rig_mcp_messages_add(out, "user", b);
    rig_result_free(b);
    return rc;
}

static const rig_mcp_prompt_arg two_args[] = {
    {.name = "arg1", .description = "First test argument", .required = true},
    {.name = "arg2", .description = "Second test argument", .required = true},
};
static const rig_mcp_prompt_arg uri_arg[] = {
    {.name = "resourceUri", .description = "URI of the resource to embed", .required = true},
};

static const rig_mcp_prompt prompts[] = {
    {.name = "test_simple_prompt",
     .title = "Simple Test Prompt",
     .description = "A simple prompt without arguments",
     .get = prompt_simple},
    {.name = "test_prompt_with_arguments",
     .title = "Prompt With Arguments",
     .description = "A prompt with required arguments",
     .args = two_args,
     .n_args = 2,
     .get = prompt_with_arguments},
    {.name = "test_prompt_with_embedded_resource",
     .title = "Prompt With Embedded Resource",
     .description = "A prompt that includes an embedded resource",
     .args = uri_arg,
     .n_args = 1,
     .get = prompt_with_embedded_resource},
    {.name = "test_prompt_with_image",
     .title = "Prompt With Image",
     .description = "A prompt that includes image content",
     .get = prompt_with_image},
};

/* ---- completion ---------------------------------------------------------------- */

/* Offer the known values of an argument that start with what was typed. The
 * suite only checks that a list comes back (an empty one passes). */
static int complete(const char *ref_type, const char *ref, const char *arg, const char *value,
                    const rig_mcp_vars *context, rig_mcp_completion *out, void *ud,
                    rig_error *err)
{
    (void)context, (void)ud, (void)err;
    static const char *const arg1[] = {"testValue1", "test-alpha", "example"};
    static const char *const arg2[] = {"testValue2", "test-beta", "sample"};
    static const char *const ids[] = {"1", "2", "3", "123"};
    const char *const *known = NULL;
    size_t n = 0;
    if (strcmp(ref_type, "ref/prompt") == 0 && strcmp(ref, "test_prompt_with_arguments") == 0) {
        if (strcmp(arg, "arg1") == 0)
            known = arg1, n = sizeof arg1 / sizeof *arg1;
        else if (strcmp(arg, "arg2") == 0)
            known = arg2, n = sizeof arg2 / sizeof *arg2;
    } else if (strcmp(ref_type, "ref/resource") == 0 && strcmp(arg, "id") == 0) {
        known = ids, n = sizeof ids / sizeof *ids;
    }
    for (size_t i = 0; i < n; i++)
        if (strncmp(known[i], value, strlen(value)) == 0 &&
            rig_mcp_completion_add(out, known[i]) != RIG_OK)
            return RIG_ENOMEM;
    return RIG_OK;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [--http HOST:PORT]\n"
               "  without --http: serve one MCP client over stdin/stdout\n"
               "  --http HOST:PORT: serve MCP Streamable HTTP at http://HOST:PORT/mcp\n"
               "                    (PORT 0 picks a free port; [::1]:PORT for IPv6)\n");
}

/* Split "HOST:PORT" (or "[V6]:PORT") into host (brackets removed, written
 * into `host`) and port. */
static bool parse_host_port(const char *arg, char *host, size_t cap, unsigned *port)
{
    const char *colon = strrchr(arg, ':');
    if (!colon || colon == arg || !colon[1])
        return false;
    const char *h = arg;
    size_t hlen = (size_t)(colon - arg);
    if (h[0] == '[') {
        if (hlen < 3 || h[hlen - 1] != ']')
            return false;
        h++, hlen -= 2;
    } else if (memchr(h, ':', hlen)) {
        return false; /* a bare IPv6 address is ambiguous: ask for brackets */
    }
    if (hlen + 1 > cap)
        return false;
    char *end;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (*end || errno || p > 65535 || colon[1] == '-' || colon[1] == '+')
        return false;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (unsigned)p;
    return true;
}

static void on_ready(unsigned port, void *ud)
{
    const char *host = ud;
    bool v6 = strchr(host, ':') != NULL;
    fprintf(stderr, "listening on http://%s%s%s:%u/mcp\n", v6 ? "[" : "", host, v6 ? "]" : "",
            port);
}

int main(int argc, char **argv)
{
    const char *http = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--http") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, PROG ": --http needs HOST:PORT, e.g. --http 127.0.0.1:3000\n");
                return 2;
            }
            http = argv[++i];
        } else if (strncmp(argv[i], "--http=", 7) == 0) {
            http = argv[i] + 7;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, PROG ": unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    char host[256];
    unsigned port = 0;
    if (http && !parse_host_port(http, host, sizeof host, &port)) {
        fprintf(stderr,
                PROG ": --http wants HOST:PORT with PORT 0-65535 (IPv6 as [::1]:PORT), "
                     "not '%s'\n",
                http);
        return 2;
    }

    rig_error err;
    rig_error_clear(&err);
    rig_toolset *ts = rig_toolset_new();
    if (!ts) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    /* A full suite run leaves ~40 sessions open, and the sampling and
     * elicitation tools hold a worker while they wait for the client: more
     * workers than the default so a slow client never starves the rest. */
    rig_toolset_set_workers(ts, 16);
    int rc = add_tools(ts, &err);
    rig_mcp_server *server = NULL;
    if (rc == RIG_OK) {
        server = rig_mcp_server_new(
            ts, &(rig_mcp_info){.name = "mcp-conformance-test-server", .version = "1.0.0"},
            &err);
        if (!server)
            rc = err.code ? err.code : RIG_ENOMEM;
    }
    if (rc == RIG_OK)
        rc = add_resources(server, &err);
    for (size_t i = 0; rc == RIG_OK && i < sizeof prompts / sizeof *prompts; i++)
        rc = rig_mcp_server_add_prompt(server, &prompts[i], &err);
    if (rc != RIG_OK) {
        fprintf(stderr, PROG ": setting up: %s\n", err.message[0] ? err.message : rig_strerror(rc));
        rig_mcp_server_free(server);
        rig_toolset_free(ts);
        return 1;
    }
    rig_mcp_server_set_completion(server, complete, NULL);

    watched.server = server;
    pthread_t watcher;
    bool watching = pthread_create(&watcher, NULL, watch_loop, NULL) == 0;

    if (http)
        rc = rig_mcp_serve_http(server, &(rig_mcp_http_opts){.host = host, .port = port},
                                on_ready, host, &err);
    else
        rc = rig_mcp_serve_stdio(server, 0, 1, &err);
    if (rc != RIG_OK)
        fprintf(stderr, PROG ": %s\n", err.message[0] ? err.message : rig_strerror(rc));

    /* Stop the watcher before the server it notifies goes away. */
    if (watching) {
        pthread_mutex_lock(&watched.mu);
        watched.stop = true;
        pthread_cond_signal(&watched.cv);
        pthread_mutex_unlock(&watched.mu);
        pthread_join(watcher, NULL);
    }
    rig_mcp_server_free(server);
    rig_toolset_free(ts);
    return rc == RIG_OK ? 0 : 1;
}
