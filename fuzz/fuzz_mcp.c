/* fuzz_mcp.c — the MCP protocol engine on hostile sessions.
 *
 * The input is a session: messages separated by newlines, as on MCP's stdio
 * transport, fed one by one to a connection over the built-in tools, a
 * tool that reports progress, one that logs and asks the client (sampling),
 * a resource, a template, a prompt and completion. Checked, for every
 * message the engine sends:
 *
 *   - it is one JSON object with "jsonrpc":"2.0";
 *   - it is exactly one of a result (with an id), an error (with an id,
 *     possibly null, and an integer code and a string message), a
 *     notification rig sends (a method, no id), or the sampling request
 *     of the tool that asks (an integer id);
 *   - progress for a token increases (checked when the session names each
 *     token once: a token reused after its call ended starts again).
 *
 * Tool calls have a 50 ms deadline so a hostile `sleep` cannot stall the
 * fuzzer; the connection is freed with calls still running, which must be
 * safe. */
#include <pthread.h>
#include <time.h>

#include "fuzz_common.h"

#include "rig/rig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rig_toolset *g_ts;
static rig_mcp_server *g_server;

static rig_result *steps(rig_call *call)
{
    int64_t n = rig_call_int(call, "n", 3);
    for (int64_t i = 1; i <= n && i <= 50; i++)
        rig_call_progress(call, (double)i, (double)n, NULL);
    return rig_result_content("stepped", NULL, NULL);
}

static rig_result *asks(rig_call *call)
{
    rig_call_logf(call, RIG_LOG_INFO, "asking");
    char *answer = NULL;
    rig_error err;
    int rc = rig_call_ask(call, "sampling/createMessage", "{\"messages\":[],\"maxTokens\":1}",
                          &answer, NULL, &err);
    rig_result *r = rc == RIG_OK ? rig_result_content(answer, NULL, NULL)
                                 : rig_result_error("%s", err.message);
    free(answer);
    return r;
}

static int read_item(const char *uri, const rig_mcp_vars *vars, rig_mcp_contents *out, void *ud,
                     rig_error *err)
{
    (void)ud;
    const char *id = rig_mcp_var(vars, "id");
    if (!id || strcmp(id, "missing") == 0)
        return rig_error_set(err, RIG_ENOENT, "no item");
    return rig_mcp_contents_text(out, uri, "text/plain", id);
}

static int get_prompt(const rig_mcp_vars *args, rig_mcp_messages *out, void *ud, rig_error *err)
{
    (void)ud;
    (void)err;
    rig_result *b = rig_result_new();
    rig_result_text(b, rig_mcp_var(args, "topic"));
    int rc = rig_mcp_messages_add(out, "user", b);
    rig_result_free(b);
    return rc;
}

static int complete(const char *ref_type, const char *ref, const char *arg, const char *value,
                    const rig_mcp_vars *ctx, rig_mcp_completion *out, void *ud, rig_error *err)
{
    (void)ref_type;
    (void)ref;
    (void)arg;
    (void)ctx;
    (void)ud;
    (void)err;
    static const char *const words[] = {"alpha", "beta", "gamma"};
    for (size_t i = 0; i < 3; i++)
        if (strncmp(words[i], value, strlen(value)) == 0)
            rig_mcp_completion_add(out, words[i]);
    return RIG_OK;
}

static void setup(void)
{
    if (g_server)
        return;
    rig_error err;
    g_ts = rig_toolset_new();
    rig_toolset_set_timeout(g_ts, 50);
    rig_registry *reg = rig_registry_new();
    FUZZ_CHECK(rig_registry_add_builtins(reg, &err) == RIG_OK, "builtins: %s", err.message);
    FUZZ_CHECK(rig_registry_resolve(reg, "default", NULL, 0, g_ts, &err) == RIG_OK, "%s",
               err.message);
    rig_registry_free(reg);
    rig_tool *t = rig_tool_new("steps", &err);
    rig_tool_set_executor(t, steps, NULL, NULL);
    FUZZ_CHECK(rig_toolset_add(g_ts, t, &err) == RIG_OK, "%s", err.message);
    t = rig_tool_new("asks", &err);
    rig_tool_set_executor(t, asks, NULL, NULL);
    FUZZ_CHECK(rig_toolset_add(g_ts, t, &err) == RIG_OK, "%s", err.message);
    g_server = rig_mcp_server_new(g_ts, NULL, &err);
    FUZZ_CHECK(g_server != NULL, "%s", err.message);
    rig_mcp_resource res = {.uri = "test://static", .name = "static", .text = "hello"};
    FUZZ_CHECK(rig_mcp_server_add_resource(g_server, &res, &err) == RIG_OK, "%s", err.message);
    rig_mcp_resource tpl = {.uri = "test://item/{id}/data", .name = "item", .read = read_item};
    FUZZ_CHECK(rig_mcp_server_add_template(g_server, &tpl, &err) == RIG_OK, "%s", err.message);
    rig_mcp_prompt_arg arg = {.name = "topic", .required = true};
    rig_mcp_prompt pr = {.name = "about", .args = &arg, .n_args = 1, .get = get_prompt};
    FUZZ_CHECK(rig_mcp_server_add_prompt(g_server, &pr, &err) == RIG_OK, "%s", err.message);
    rig_mcp_server_set_completion(g_server, complete, NULL);
}

/* What the engine sent in one session. */
typedef struct session {
    pthread_mutex_t mu;
    bool check_progress;   /* every "progressToken" in the input is its own */
    char tokens[16][32];   /* progress tokens seen, with their last value */
    double last[16];
    int ntokens;
} session;

static void check_message(session *s, const char *json, size_t len)
{
    rig_json_error jerr;
    rig_json_doc *d = rig_json_parse(json, len, NULL, &jerr);
    FUZZ_CHECK(d != NULL, "the engine sent text that does not parse: %.*s", (int)len, json);
    rig_json_val r = rig_json_doc_root(d);
    FUZZ_CHECK(rig_json_is_object(r), "a message that is not an object");
    FUZZ_CHECK(rig_json_str_eq(rig_json_get(r, "jsonrpc"), "2.0"), "no \"jsonrpc\":\"2.0\"");
    bool has_result = rig_json_exists(rig_json_get(r, "result"));
    bool has_error = rig_json_exists(rig_json_get(r, "error"));
    bool has_method = rig_json_exists(rig_json_get(r, "method"));
    rig_json_val id = rig_json_get(r, "id");
    FUZZ_CHECK(has_result + has_error + has_method == 1, "not exactly one of result, error, "
               "method: %.*s", (int)len, json);
    bool progress = rig_json_str_eq(rig_json_get(r, "method"), "notifications/progress");
    if (has_method && rig_json_exists(id)) {
        /* rig's own request: only a tool's question, with an integer id. */
        int64_t n;
        FUZZ_CHECK(rig_json_str_eq(rig_json_get(r, "method"), "sampling/createMessage") &&
                       rig_json_get_int64(id, &n) == 0,
                   "an unexpected request: %.*s", (int)len, json);
    } else if (has_method && !progress) {
        static const char *const known[] = {"notifications/message", "notifications/cancelled",
                                            "notifications/resources/updated",
                                            "notifications/tools/list_changed"};
        bool ok = false;
        for (size_t i = 0; i < sizeof known / sizeof *known; i++)
            ok |= rig_json_str_eq(rig_json_get(r, "method"), known[i]);
        FUZZ_CHECK(ok, "an unexpected notification: %.*s", (int)len, json);
    } else if (has_method) {
        FUZZ_CHECK(!rig_json_exists(id), "a notification with an id");
        size_t tn = 0;
        const char *tok = rig_json_raw(rig_json_pointer(r, "/params/progressToken"), &tn);
        double p = 0;
        FUZZ_CHECK(tok && rig_json_get_double(rig_json_pointer(r, "/params/progress"), &p) == 0,
                   "progress without a token or a number");
        pthread_mutex_lock(&s->mu);
        for (int i = 0; s->check_progress && i < s->ntokens; i++)
            if (strlen(s->tokens[i]) == tn && memcmp(s->tokens[i], tok, tn) == 0)
                FUZZ_CHECK(p > s->last[i], "progress went from %g to %g", s->last[i], p);
        if (s->ntokens < 16 && tn < 32) {
            memcpy(s->tokens[s->ntokens], tok, tn);
            s->tokens[s->ntokens][tn] = '\0';
            s->last[s->ntokens++] = p;
        }
        pthread_mutex_unlock(&s->mu);
    } else {
        FUZZ_CHECK(rig_json_exists(id), "an answer without an id");
        if (has_error) {
            int64_t code;
            FUZZ_CHECK(rig_json_get_int64(rig_json_pointer(r, "/error/code"), &code) == 0,
                       "an error without an integer code");
            FUZZ_CHECK(rig_json_is_string(rig_json_pointer(r, "/error/message")),
                       "an error without a message");
        }
    }
    rig_json_doc_free(d);
}

static int on_send(const char *json, size_t len, const rig_mcp_route *route, void *ud)
{
    if (route && route->close)
        return 0;
    check_message(ud, json, len);
    return 0;
}

static void on_wake(void *ud)
{
    (void)ud;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    session s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mu, NULL);
    /* A token named twice may be reused after its first call ended, which
     * restarts its progress; only a session naming each once is checked. */
    int named = 0;
    for (size_t i = 0; i + 15 <= size; i++)
        named += memcmp(data + i, "\"progressToken\"", 15) == 0;
    s.check_progress = named <= 1;
    rig_mcp_conn *c = rig_mcp_conn_new(g_server, on_send, on_wake, &s);
    FUZZ_CHECK(c != NULL, "no connection");
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        rig_mcp_conn_receive(c, p, n);
        rig_mcp_conn_flush(c);
        p += n + (nl ? 1 : 0);
    }
    /* Let quick calls answer, then leave with the rest still running. */
    for (int i = 0; i < 20 && rig_mcp_conn_pending(c); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        rig_mcp_conn_flush(c);
    }
    rig_mcp_conn_flush(c);
    rig_mcp_conn_free(c);
    pthread_mutex_destroy(&s.mu);
    return 0;
}
