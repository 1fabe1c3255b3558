/* test_toolset.c — the call path: lookup, argument errors, validation with
 * coercion and defaults, hooks, events, deadlines, cancellation, the output
 * cap and the security_risk/summary fields. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "testing.h"

/* ---- tools used below ---- */

static const char five_args_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1},"
    "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":10},"
    "\"force\":{\"type\":\"boolean\"},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"fast\",\"slow\"]},"
    "\"ratio\":{\"type\":\"number\"}},"
    "\"required\":[\"path\"],\"additionalProperties\":false}";

/* Echo the arguments back as text: the test reads what the tool saw. */
static rig_result *echo(rig_call *call)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_value(&w, rig_call_args(call));
    size_t len;
    const char *s = rig_json_writer_finish(&w, &len);
    rig_result *r = rig_result_new();
    rig_result_textn(r, s, len);
    rig_json_writer_free(&w);
    return r;
}

static rig_tool *make_tool(const char *name, const char *schema, rig_tool_fn fn, unsigned flags)
{
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    assert_non_null(t);
    if (schema)
        assert_int_equal(rig_tool_set_input_schema(t, schema, strlen(schema), &err), RIG_OK);
    rig_tool_set_executor(t, fn, NULL, NULL);
    rig_tool_set_flags(t, flags);
    return t;
}

static rig_toolset *toolset_with(rig_tool *t)
{
    rig_toolset *ts = rig_toolset_new();
    assert_non_null(ts);
    rig_error err;
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_OK);
    return ts;
}

/* The first text block of a result. */
static const char *text_of(const rig_result *r)
{
    for (size_t i = 0; i < rig_result_count(r); i++)
        if (rig_result_block(r, i)->type == RIG_CONTENT_TEXT)
            return rig_result_block(r, i)->text;
    return "";
}

static rig_result *call(rig_toolset *ts, const char *name, const char *args, rig_error *err)
{
    return rig_toolset_call(ts, name, args, args ? strlen(args) : 0, NULL, err);
}

/* ---- names and the table ---- */

static void test_tool_names(void **state)
{
    (void)state;
    rig_error err;
    assert_true(rig_tool_name_valid("read_file", &err));
    assert_true(rig_tool_name_valid("a.b-c_D9", &err));
    assert_false(rig_tool_name_valid("", &err));
    assert_int_equal(err.code, RIG_EINVAL);
    assert_false(rig_tool_name_valid(NULL, &err));
    assert_false(rig_tool_name_valid("has space", &err));
    assert_non_null(strstr(err.message, "position 4"));
    assert_false(rig_tool_name_valid("slash/no", &err));
    assert_false(rig_tool_name_valid("ünïcode", &err));
    char longname[130];
    memset(longname, 'a', 129);
    longname[129] = '\0';
    assert_false(rig_tool_name_valid(longname, &err));
    longname[128] = '\0';
    assert_true(rig_tool_name_valid(longname, &err));
    assert_null(rig_tool_new("bad name", &err));
}

static void test_definition(void **state)
{
    (void)state;
    rig_error err;
    rig_tool *t = rig_tool_new("def", &err);
    /* MCP's defaults when no hint is given */
    assert_false(rig_tool_read_only(t));
    assert_true(rig_tool_destructive(t));
    assert_false(rig_tool_idempotent(t));
    assert_true(rig_tool_open_world(t));
    rig_tool_set_annotations(t, &(rig_annotations){.read_only = RIG_HINT_TRUE,
                                                   .destructive = RIG_HINT_FALSE});
    assert_true(rig_tool_read_only(t));
    assert_false(rig_tool_destructive(t));
    assert_true(rig_tool_open_world(t));
    assert_int_equal(rig_tool_annotations(t).idempotent, RIG_HINT_UNSET);

    /* schemas that cannot describe arguments */
    const char *bad[] = {"{\"type\":\"array\"}", "[1]", "{\"type\":5}", "{\"properties\":[]}",
                         "{\"$ref\":\"#/$defs/none\"}", "{\"$ref\":\"#\"}", "{\"pattern\":\"(\"}", "{",
                         "{\"minLength\":-1}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = rig_tool_set_input_schema(t, bad[i], strlen(bad[i]), &err);
        if (rc != RIG_ESCHEMA && rc != RIG_EJSON)
            fail_msg("schema %s accepted (%d)", bad[i], rc);
        assert_non_null(strstr(err.message, "tool 'def'"));
    }
    /* the old schema stays after a failed set */
    assert_true(rig_json_str_eq(rig_json_get(rig_schema_root(rig_tool_input_schema(t)), "type"),
                                "object"));
    assert_int_equal(rig_tool_set_meta(t, "[]", 2, &err), RIG_EJSON);
    assert_int_equal(rig_tool_set_meta(t, "{\"v\":1}", 7, &err), RIG_OK);
    size_t len;
    assert_string_equal(rig_tool_meta_json(t, &len), "{\"v\":1}");

    /* native specs: model globs are case-insensitive; NULL model matches none */
    const char *const models[] = {"claude-*", "CLAUDE-OPUS-4", NULL};
    rig_native_spec spec = {.provider = RIG_PROVIDER_ANTHROPIC, .api_type = "bash_20250124",
                            .api_name = "bash", .role = "shell", .supported_models = models};
    assert_int_equal(rig_tool_add_native(t, &spec, &err), RIG_OK);
    assert_int_equal(rig_tool_add_native(t, &spec, &err), RIG_EEXIST);
    assert_non_null(rig_tool_native(t, RIG_PROVIDER_ANTHROPIC, "Claude-Sonnet-4-5"));
    assert_non_null(rig_tool_native(t, RIG_PROVIDER_ANTHROPIC, "claude-opus-4"));
    assert_null(rig_tool_native(t, RIG_PROVIDER_ANTHROPIC, "gpt-5"));
    assert_null(rig_tool_native(t, RIG_PROVIDER_ANTHROPIC, NULL));
    assert_null(rig_tool_native(t, RIG_PROVIDER_OPENAI, "claude-x"));
    assert_string_equal(rig_tool_role(t), "shell");
    rig_native_spec bad_spec = {.provider = RIG_PROVIDER_GEMINI, .api_type = "computer_use",
                                .extra_json = "[1]"};
    assert_int_equal(rig_tool_add_native(t, &bad_spec, &err), RIG_EINVAL);
    bad_spec = (rig_native_spec){.provider = RIG_PROVIDER_GEMINI};
    assert_int_equal(rig_tool_add_native(t, &bad_spec, &err), RIG_EINVAL);
    bad_spec = (rig_native_spec){.provider = (rig_provider)7, .api_type = "x"};
    assert_int_equal(rig_tool_add_native(t, &bad_spec, &err), RIG_EINVAL);
    rig_tool_free(t);
}

static void test_add_get_remove(void **state)
{
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    char name[16];
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(rig_toolset_add(ts, make_tool(name, NULL, echo, 0), &err), RIG_OK);
    }
    assert_int_equal(rig_toolset_count(ts), 100);
    assert_string_equal(rig_tool_name(rig_toolset_at(ts, 42)), "t42");
    assert_non_null(rig_toolset_get(ts, "t99"));
    assert_null(rig_toolset_get(ts, "t100"));

    rig_tool *dup = make_tool("t7", NULL, echo, 0);
    assert_int_equal(rig_toolset_add(ts, dup, &err), RIG_EEXIST);
    assert_non_null(strstr(err.message, "'t7' is already"));
    rig_tool_free(dup); /* the caller still owns it on failure */

    assert_int_equal(rig_toolset_remove(ts, "t7"), RIG_OK);
    assert_int_equal(rig_toolset_remove(ts, "t7"), RIG_ENOENT);
    assert_null(rig_toolset_get(ts, "t7"));
    assert_int_equal(rig_toolset_count(ts), 99);
    assert_non_null(rig_toolset_get(ts, "t8"));
    assert_string_equal(rig_tool_name(rig_toolset_at(ts, 7)), "t8"); /* order kept */
    assert_int_equal(rig_toolset_add(ts, make_tool("t7", NULL, echo, 0), &err), RIG_OK);
    rig_toolset_free(ts);
}

static void test_unknown_tool_lists_available(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("alpha", NULL, echo, 0));
    rig_error err;
    assert_int_equal(rig_toolset_add(ts, make_tool("beta", NULL, echo, 0), &err), RIG_OK);
    rig_tool *hidden = make_tool("gamma", NULL, echo, RIG_TOOL_HIDDEN);
    assert_int_equal(rig_toolset_add(ts, hidden, &err), RIG_OK);
    rig_result *r = call(ts, "nope", "{}", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_ENOENT);
    assert_string_equal(text_of(r), "Tool 'nope' not found. Available: [alpha, beta]");
    rig_result_free(r);
    r = call(ts, NULL, "{}", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EINVAL);
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* ---- arguments ---- */

static void test_bad_arguments(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("five", five_args_schema, echo, 0));
    rig_error err;
    const struct {
        const char *args;
        int code;
        const char *needle;
    } cases[] = {
        {"{\"path\":", RIG_EJSON, "not valid JSON"},
        {"[1,2]", RIG_EJSON, "must be a JSON object, not array"},
        {"\"str\"", RIG_EJSON, "not string"},
        {"{\"path\":\"\"}", RIG_EVALIDATE, "'/path'"},
        {"{}", RIG_EVALIDATE, "missing required property 'path'"},
        {"{\"path\":\"a\",\"count\":0}", RIG_EVALIDATE, "'/count'"},
        {"{\"path\":\"a\",\"count\":\"ten\"}", RIG_EVALIDATE, "'/count'"},
        {"{\"path\":\"a\",\"mode\":\"medium\"}", RIG_EVALIDATE, "'/mode'"},
        {"{\"path\":\"a\",\"extra\":1}", RIG_EVALIDATE, "'extra'"},
        {"{\"path\":\"a\",\"force\":\"yes\"}", RIG_EVALIDATE, "'/force'"},
        {"{\"path\":\"\xff\"}", RIG_EJSON, "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rig_result *r = call(ts, "five", cases[i].args, &err);
        assert_true(rig_result_is_error(r));
        if (err.code != cases[i].code || !strstr(text_of(r), cases[i].needle))
            fail_msg("case %zu: code %d, text %s", i, err.code, text_of(r));
        assert_non_null(strstr(text_of(r), "tool 'five'"));
        rig_result_free(r);
    }
    rig_toolset_free(ts);
}

static void test_validation_never_echoes_values(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("five", five_args_schema, echo, 0));
    rig_error err;
    rig_result *r = call(ts, "five", "{\"path\":\"a\",\"mode\":\"sk-SECRET123\"}", &err);
    assert_true(rig_result_is_error(r));
    assert_null(strstr(text_of(r), "SECRET"));
    assert_null(strstr(err.message, "SECRET"));
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void test_coercion_and_defaults(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("five", five_args_schema, echo, 0));
    rig_error err;
    rig_result *r = call(ts, "five", "{\"path\":\"a\",\"force\":\"true\",\"ratio\":\"0.5\"}", &err);
    assert_false(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_OK);
    assert_string_equal(text_of(r), "{\"path\":\"a\",\"force\":true,\"ratio\":0.5,\"count\":10}");
    rig_result_free(r);
    /* Present values win over defaults; nothing else is guessed. */
    r = call(ts, "five", "{\"path\":\"a\",\"count\":\"7\"}", &err);
    assert_string_equal(text_of(r), "{\"path\":\"a\",\"count\":7}");
    rig_result_free(r);
    /* Blank or absent arguments are {}. */
    rig_toolset *ts2 = toolset_with(make_tool("noargs", NULL, echo, 0));
    r = call(ts2, "noargs", NULL, &err);
    assert_string_equal(text_of(r), "{}");
    rig_result_free(r);
    r = call(ts2, "noargs", " \n", &err);
    assert_string_equal(text_of(r), "{}");
    rig_result_free(r);
    rig_toolset_free(ts2);
    rig_toolset_free(ts);
}

static void test_hostile_arguments(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("five", five_args_schema, echo, 0));
    rig_error err;
    /* 10^5-deep nesting: the parser's depth limit answers. */
    size_t depth = 100000;
    char *deep = malloc(depth * 2 + 16);
    size_t n = 0;
    n += (size_t)sprintf(deep, "{\"path\":");
    for (size_t i = 0; i < depth; i++)
        deep[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    rig_result *r = rig_toolset_call(ts, "five", deep, n, NULL, &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EJSON);
    rig_result_free(r);
    free(deep);
    /* A megabyte string passes through intact (the output cap aside). */
    rig_toolset_set_output_cap(ts, 0);
    size_t big = 1 << 20;
    char *args = malloc(big + 32);
    assert_non_null(args);
    /* (memcpy, not sprintf: GCC's -Warray-bounds under ASan misreads the
     * sprintf'd offset and fails the build.) */
    static const char head[] = "{\"path\":\"";
    memcpy(args, head, sizeof head - 1);
    n = sizeof head - 1;
    memset(args + n, 'x', big);
    n += big;
    n += (size_t)sprintf(args + n, "\"}");
    r = rig_toolset_call(ts, "five", args, n, NULL, &err);
    assert_false(rig_result_is_error(r));
    /* {"path":" + the string + ","count":10} */
    assert_int_equal(rig_result_block(r, 0)->text_len, 9 + big + 13);
    rig_result_free(r);
    free(args);
    rig_toolset_free(ts);
}

/* ---- hooks ---- */

static char trace[256];

static int before_append(rig_call *c, rig_json_val args, char **replace, void *ud, rig_error *e)
{
    (void)c, (void)args, (void)replace, (void)e;
    strcat(trace, ud);
    return RIG_OK;
}

static int before_rewrite(rig_call *c, rig_json_val args, char **replace, void *ud, rig_error *e)
{
    (void)c, (void)ud, (void)e;
    assert_true(rig_json_str_eq(rig_json_get(args, "path"), "orig"));
    *replace = strdup("{\"path\":\"rewritten\",\"count\":\"3\"}");
    return RIG_OK;
}

static int before_block(rig_call *c, rig_json_val args, char **replace, void *ud, rig_error *e)
{
    (void)c, (void)replace, (void)ud;
    if (rig_json_str_eq(rig_json_get(args, "path"), "/etc/passwd"))
        return rig_error_set(e, RIG_EBLOCKED, "reading /etc/passwd is not allowed");
    return RIG_OK;
}

static rig_result *after_replace(rig_call *c, rig_json_val args, const rig_result *res, void *ud)
{
    (void)c, (void)args, (void)ud;
    rig_result *r = rig_result_new();
    rig_result_textf(r, "audited: %s", text_of(res));
    return r;
}

static rig_result *after_keep(rig_call *c, rig_json_val args, const rig_result *res, void *ud)
{
    (void)c, (void)args, (void)res;
    strcat(trace, ud);
    return NULL;
}

static void test_hooks(void **state)
{
    (void)state;
    rig_tool *t = make_tool("five", five_args_schema, echo, 0);
    trace[0] = '\0';
    assert_int_equal(rig_tool_before(t, before_append, "1"), RIG_OK);
    assert_int_equal(rig_tool_before(t, before_append, "2"), RIG_OK);
    assert_int_equal(rig_tool_before(t, before_block, NULL), RIG_OK);
    assert_int_equal(rig_tool_after(t, after_keep, "a"), RIG_OK);
    assert_int_equal(rig_tool_after(t, after_replace, NULL), RIG_OK);
    rig_toolset *ts = toolset_with(t);
    assert_int_equal(rig_toolset_before(ts, before_append, "T"), RIG_OK);
    assert_int_equal(rig_toolset_after(ts, after_keep, "Z"), RIG_OK);
    rig_error err;
    rig_result *r = call(ts, "five", "{\"path\":\"x\"}", &err);
    assert_string_equal(trace, "T12aZ"); /* toolset first before, last after */
    assert_string_equal(text_of(r), "audited: {\"path\":\"x\",\"count\":10}");
    rig_result_free(r);

    trace[0] = '\0';
    r = call(ts, "five", "{\"path\":\"/etc/passwd\"}", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EBLOCKED);
    assert_string_equal(text_of(r), "Tool 'five' was blocked: reading /etc/passwd is not allowed");
    assert_string_equal(trace, "T12"); /* no after hooks for a blocked call */
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void test_hook_rewrites_are_validated(void **state)
{
    (void)state;
    rig_tool *t = make_tool("five", five_args_schema, echo, 0);
    rig_tool_before(t, before_rewrite, NULL);
    rig_toolset *ts = toolset_with(t);
    rig_error err;
    rig_result *r = call(ts, "five", "{\"path\":\"orig\"}", &err);
    assert_false(rig_result_is_error(r));
    assert_string_equal(text_of(r), "{\"path\":\"rewritten\",\"count\":3}");
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* ---- events ---- */

static char events[256];

static void on_event(const char *event, const rig_tool *t, const char *data, void *ud)
{
    char line[128];
    snprintf(line, sizeof line, "%s%s:%s:%s;", (const char *)ud, event, rig_tool_name(t),
             data ? data : "-");
    strcat(events, line);
}

static rig_result *emitter(rig_call *call)
{
    rig_call_emit(call, "progress", "{\"pct\":50}");
    return rig_result_content("ok", NULL, NULL);
}

static void test_events(void **state)
{
    (void)state;
    events[0] = '\0';
    rig_toolset *ts = rig_toolset_new();
    assert_int_equal(rig_toolset_on(ts, "add", on_event, "S"), RIG_OK);
    assert_int_equal(rig_toolset_on(ts, "*", on_event, "*"), RIG_OK);
    rig_tool *t = make_tool("em", NULL, emitter, RIG_TOOL_INLINE);
    assert_int_equal(rig_tool_on(t, "progress", on_event, "T"), RIG_OK);
    rig_error err;
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_OK);
    rig_result *r = call(ts, "em", "{}", &err);
    rig_result_free(r);
    assert_int_equal(rig_toolset_off(ts, "*", on_event, "*"), RIG_OK);
    assert_int_equal(rig_toolset_off(ts, "*", on_event, "*"), RIG_ENOENT);
    assert_int_equal(rig_toolset_remove(ts, "em"), RIG_OK);
    assert_string_equal(events,
                        "Sadd:em:{\"name\":\"em\"};*add:em:{\"name\":\"em\"};"
                        "Tprogress:em:{\"pct\":50};*progress:em:{\"pct\":50};");
    rig_toolset_free(ts);
}

/* ---- deadlines and cancellation ---- */

static rig_result *slow(rig_call *call)
{
    int rc = rig_call_sleep(call, 10000);
    if (rc != RIG_OK)
        return rig_result_error("interrupted: %s", rig_strerror(rc));
    return rig_result_content("slept", NULL, NULL);
}

/* Ignores cancellation entirely: the caller must still be answered. */
static atomic_int stubborn_started, stubborn_done;
static rig_result *stubborn(rig_call *call)
{
    (void)call;
    atomic_store(&stubborn_started, 1);
    struct timespec ts = {0, 300 * 1000000};
    nanosleep(&ts, NULL);
    atomic_store(&stubborn_done, 1);
    return rig_result_content("late", NULL, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_deadline(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("slow", NULL, slow, 0));
    rig_error err;
    rig_call_opts opts = {.timeout_ms = 100};
    double t0 = now_s();
    rig_result *r = rig_toolset_call(ts, "slow", "{}", 2, &opts, &err);
    double took = now_s() - t0;
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_ETIMEDOUT);
    assert_non_null(strstr(text_of(r), "deadline"));
    assert_true(took < 5.0);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void test_deadline_with_stubborn_tool(void **state)
{
    (void)state;
    atomic_store(&stubborn_started, 0);
    atomic_store(&stubborn_done, 0);
    rig_toolset *ts = toolset_with(make_tool("stub", NULL, stubborn, 0));
    rig_error err;
    rig_call_opts opts = {.timeout_ms = 20};
    rig_result *r = rig_toolset_call(ts, "stub", "{}", 2, &opts, &err);
    assert_int_equal(err.code, RIG_ETIMEDOUT);
    assert_int_equal(atomic_load(&stubborn_done), 0); /* answered before the tool ended */
    rig_result_free(r);
    /* Freeing waits for a tool that started; one the deadline caught still
     * in the queue never runs. */
    rig_toolset_free(ts);
    assert_int_equal(atomic_load(&stubborn_done), atomic_load(&stubborn_started));
}

/* Once the deadline timer has stopped a call, the tool's own sleep says
 * why: the deadline, not a cancellation (the timer wakes sleepers through
 * the cancel flag). */
static atomic_int late_sleep_rc;
static rig_result *wakes_late(rig_call *call)
{
    if (rig_call_has(call, "warm"))
        return rig_result_content("warm", NULL, NULL);
    struct timespec ts = {0, 300 * 1000000};
    nanosleep(&ts, NULL); /* past the deadline; the timer answers meanwhile */
    atomic_store(&late_sleep_rc, rig_call_sleep(call, 10));
    return rig_result_content("late", NULL, NULL);
}

static void test_sleep_after_deadline(void **state)
{
    (void)state;
    atomic_store(&late_sleep_rc, 1);
    rig_toolset *ts = toolset_with(make_tool("late", NULL, wakes_late, 0));
    rig_error err;
    /* Start the workers first, so the tool starts well before its deadline
     * even under valgrind. */
    rig_result_free(rig_toolset_call(ts, "late", "{\"warm\":1}", 10, NULL, &err));
    rig_call_opts opts = {.timeout_ms = 100};
    rig_result *r = rig_toolset_call(ts, "late", "{}", 2, &opts, &err);
    assert_int_equal(err.code, RIG_ETIMEDOUT);
    rig_result_free(r);
    rig_toolset_free(ts); /* waits for the tool */
    assert_int_equal(atomic_load(&late_sleep_rc), RIG_ETIMEDOUT);
}

struct done_box {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;
    int status;
    char text[256];
};

static void on_done(rig_result *res, int status, void *ud)
{
    struct done_box *b = ud;
    pthread_mutex_lock(&b->mu);
    b->calls++;
    b->status = status;
    snprintf(b->text, sizeof b->text, "%s", text_of(res));
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    rig_result_free(res);
}

static void wait_done(struct done_box *b)
{
    pthread_mutex_lock(&b->mu);
    while (!b->calls)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

static void test_cancel(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("slow", NULL, slow, 0));
    struct done_box b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    double t0 = now_s();
    rig_job *j = rig_toolset_submit(ts, "slow", "{}", 2, NULL, on_done, &b);
    assert_non_null(j);
    struct timespec pause = {0, 20 * 1000000};
    nanosleep(&pause, NULL);
    rig_job_cancel(j);
    wait_done(&b);
    assert_true(now_s() - t0 < 5.0);
    assert_int_equal(b.status, RIG_ECANCELED);
    assert_non_null(strstr(b.text, "cancelled"));
    rig_job_cancel(j); /* again: harmless */
    rig_job_release(j);
    rig_toolset_free(ts);
    assert_int_equal(b.calls, 1); /* exactly once, though the tool also returned */
}

static void test_submit_many(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("five", five_args_schema, echo, 0));
    rig_toolset_set_workers(ts, 3);
    enum { N = 200 };
    static struct done_box boxes[N];
    rig_job *jobs[N];
    for (int i = 0; i < N; i++) {
        boxes[i] = (struct done_box){.mu = PTHREAD_MUTEX_INITIALIZER,
                                     .cv = PTHREAD_COND_INITIALIZER};
        char args[64];
        int n = snprintf(args, sizeof args, "{\"path\":\"p%d\",\"count\":%d}", i, i % 100 + 1);
        jobs[i] = rig_toolset_submit(ts, "five", args, (size_t)n, NULL, on_done, &boxes[i]);
    }
    for (int i = 0; i < N; i++) {
        wait_done(&boxes[i]);
        char want[64];
        snprintf(want, sizeof want, "{\"path\":\"p%d\",\"count\":%d}", i, i % 100 + 1);
        assert_string_equal(boxes[i].text, want);
        assert_int_equal(boxes[i].calls, 1);
        rig_job_release(jobs[i]);
    }
    /* A failure before queueing also completes through `done`. */
    struct done_box b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    rig_job *j = rig_toolset_submit(ts, "missing", "{}", 2, NULL, on_done, &b);
    wait_done(&b);
    assert_int_equal(b.status, RIG_ENOENT);
    rig_job_release(j);
    rig_toolset_free(ts);
}

/* A timeout or sleep too long to count in nanoseconds means "no deadline"
 * and "sleep until stopped", not a deadline that wrapped into the past. */
static rig_result *sleep_forever(rig_call *call)
{
    return rig_result_content(rig_strerror(rig_call_sleep(call, INT64_MAX)), NULL, NULL);
}

static void test_huge_timeouts(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("five", five_args_schema, echo, 0));
    rig_error err;
    rig_call_opts opts = {.timeout_ms = INT64_MAX};
    rig_result *r = rig_toolset_call(ts, "five", "{\"path\":\"a\"}", 12, &opts, &err);
    assert_int_equal(err.code, RIG_OK);
    assert_string_equal(text_of(r), "{\"path\":\"a\",\"count\":10}");
    rig_result_free(r);
    rig_toolset_set_timeout(ts, INT64_MAX);
    r = rig_toolset_call(ts, "five", "{\"path\":\"a\"}", 12, NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    rig_result_free(r);

    /* rig_call_sleep(INT64_MAX) sleeps until the deadline (an inline tool:
     * nothing but the sleep itself watches the clock). */
    rig_toolset_add(ts, make_tool("forever", NULL, sleep_forever, RIG_TOOL_INLINE), &err);
    opts.timeout_ms = 50;
    double t0 = now_s();
    r = rig_toolset_call(ts, "forever", "{}", 2, &opts, &err);
    assert_true(now_s() - t0 >= 0.045);
    assert_string_equal(text_of(r), rig_strerror(RIG_ETIMEDOUT));
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* Jobs answered by whoever comes first (worker, cancel, deadline timer,
 * rig_toolset_free), each exactly once; run under TSan and ASan. */
static atomic_int race_done_calls;

static void race_done(rig_result *res, int status, void *ud)
{
    (void)status, (void)ud;
    atomic_fetch_add(&race_done_calls, 1);
    rig_result_free(res);
}

static rig_result *nap(rig_call *call)
{
    rig_call_sleep(call, rig_call_int(call, "ms", 0));
    return rig_result_content("woke", NULL, NULL);
}

struct canceller {
    rig_job **jobs;
    int n;
};

static void *cancel_all(void *arg)
{
    struct canceller *c = arg;
    for (int i = c->n - 1; i >= 0; i--)
        rig_job_cancel(c->jobs[i]);
    return NULL;
}

static void test_completion_races(void **state)
{
    (void)state;
    enum { N = 300 };
    for (int round = 0; round < 3; round++) {
        atomic_store(&race_done_calls, 0);
        rig_toolset *ts = toolset_with(make_tool("nap", NULL, nap, 0));
        rig_toolset_set_workers(ts, 4);
        rig_job *jobs[N];
        for (int i = 0; i < N; i++) {
            char args[32];
            int n = snprintf(args, sizeof args, "{\"ms\":%d}", i % 5);
            rig_call_opts opts = {.timeout_ms = 1 + i % 3};
            jobs[i] = rig_toolset_submit(ts, "nap", args, (size_t)n, &opts, race_done, NULL);
            assert_non_null(jobs[i]);
        }
        struct canceller c = {jobs, round == 0 ? N : N / 2};
        pthread_t th;
        pthread_create(&th, NULL, cancel_all, &c);
        if (round == 2)
            rig_toolset_free(ts); /* with jobs still queued and running */
        pthread_join(th, NULL);
        if (round != 2)
            rig_toolset_free(ts);
        assert_int_equal(atomic_load(&race_done_calls), N);
        for (int i = 0; i < N; i++) {
            rig_job_cancel(jobs[i]); /* after done ran, even after the free */
            rig_job_release(jobs[i]);
        }
        assert_int_equal(atomic_load(&race_done_calls), N);
    }
}

/* Adds, removes, lookups, calls and exports from many threads at once. */
static atomic_int table_stop;

static void *churn_table(void *arg)
{
    rig_toolset *ts = arg;
    char name[16];
    for (int i = 0; !atomic_load(&table_stop); i++) {
        snprintf(name, sizeof name, "t%d", i % 8);
        rig_tool *t = make_tool(name, NULL, echo, i % 2 ? RIG_TOOL_INLINE : 0);
        if (rig_toolset_add(ts, t, NULL) != RIG_OK)
            rig_tool_free(t);
        snprintf(name, sizeof name, "t%d", (i + 3) % 8);
        rig_toolset_remove(ts, name);
    }
    return NULL;
}

static void *call_table(void *arg)
{
    rig_toolset *ts = arg;
    char name[16];
    for (int i = 0; !atomic_load(&table_stop); i++) {
        snprintf(name, sizeof name, "t%d", i % 8);
        rig_result_free(rig_toolset_call(ts, name, "{\"k\":1}", 7, NULL, NULL));
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        rig_export_opts o = {.format = (rig_format)(i % 5), .security_risk = i % 2};
        rig_toolset_export(ts, &o, &w, NULL);
        rig_json_writer_free(&w);
    }
    return NULL;
}

static void test_concurrent_table(void **state)
{
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    atomic_store(&table_stop, 0);
    pthread_t th[4];
    pthread_create(&th[0], NULL, churn_table, ts);
    pthread_create(&th[1], NULL, churn_table, ts);
    pthread_create(&th[2], NULL, call_table, ts);
    pthread_create(&th[3], NULL, call_table, ts);
    struct timespec run = {0, 300 * 1000000};
    nanosleep(&run, NULL);
    atomic_store(&table_stop, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    rig_toolset_free(ts);
}

/* ---- results ---- */

static rig_result *chatty(rig_call *call)
{
    int64_t n = rig_call_int(call, "n", 0);
    char *s = malloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++)
        s[i] = (char)('a' + i % 26);
    s[n] = '\0';
    rig_result *r = rig_result_new();
    rig_result_text(r, s);
    free(s);
    return r;
}

static void test_output_cap(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("chatty", NULL, chatty, RIG_TOOL_INLINE));
    rig_error err;
    rig_result *r = call(ts, "chatty", "{\"n\":50000}", &err);
    assert_int_equal(rig_result_block(r, 0)->text_len, 50000); /* at the cap: untouched */
    rig_result_free(r);
    r = call(ts, "chatty", "{\"n\":120000}", &err);
    const char *text = text_of(r);
    assert_non_null(strstr(text, "70000 characters cut"));
    assert_memory_equal(text, "abcdefghij", 10); /* the head */
    /* The tail: 25000 characters ending where the output ended. */
    size_t len = rig_result_block(r, 0)->text_len;
    char last = (char)('a' + (120000 - 1) % 26);
    assert_int_equal(text[len - 1], last);
    rig_result_free(r);
    rig_toolset_set_output_cap(ts, 0);
    r = call(ts, "chatty", "{\"n\":120000}", &err);
    assert_int_equal(rig_result_block(r, 0)->text_len, 120000);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static rig_result *returns_null(rig_call *call)
{
    (void)call;
    return NULL;
}

static rig_result *wrong_structured(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_structured(r, "{\"n\":\"not a number\"}", 20);
    return r;
}

static rig_result *good_structured(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_structured(r, "{\"n\":3}", 7);
    return r;
}

static void test_tool_failures(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("null", NULL, returns_null, 0));
    rig_error err;
    rig_result *r = call(ts, "null", "{}", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_ETOOL);
    assert_non_null(strstr(text_of(r), "returned no result"));
    rig_result_free(r);

    static const char out[] = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
                              "\"required\":[\"n\"]}";
    rig_tool *bad = make_tool("bad", NULL, wrong_structured, 0);
    assert_int_equal(rig_tool_set_output_schema(bad, out, sizeof out - 1, &err), RIG_OK);
    rig_tool *good = make_tool("good", NULL, good_structured, 0);
    assert_int_equal(rig_tool_set_output_schema(good, out, sizeof out - 1, &err), RIG_OK);
    rig_toolset_add(ts, bad, &err);
    rig_toolset_add(ts, good, &err);
    r = call(ts, "bad", "{}", &err);
    assert_true(rig_result_is_error(r));
    assert_non_null(strstr(text_of(r), "does not match its output schema"));
    rig_result_free(r);
    r = call(ts, "good", "{}", &err);
    assert_false(rig_result_is_error(r));
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_result_write(r, &w);
    size_t len;
    const char *json = rig_json_writer_finish(&w, &len);
    /* structuredContent is also rendered as text for older clients */
    assert_string_equal(json, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"n\\\":3}\"}],"
                              "\"structuredContent\":{\"n\":3}}");
    rig_json_writer_free(&w);
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* ---- security_risk and summary ---- */

static rig_result *risk_echo(rig_call *call)
{
    rig_result *r = echo(call);
    rig_result_textf(r, "risk=%s summary=%s", rig_call_security_risk(call) ?: "-",
                     rig_call_summary(call) ?: "-");
    return r;
}

static void test_risk_fields_stripped(void **state)
{
    (void)state;
    rig_tool *w = make_tool("writer", five_args_schema, risk_echo, 0);
    rig_toolset *ts = toolset_with(w);
    rig_error err;
    rig_result *r = call(ts, "writer", "{\"security_risk\":\"LOW\",\"path\":\"a\","
                                       "\"summary\":\"write a\"}", &err);
    assert_false(rig_result_is_error(r));
    assert_string_equal(rig_result_block(r, 0)->text, "{\"path\":\"a\",\"count\":10}");
    assert_string_equal(rig_result_block(r, 1)->text, "risk=LOW summary=write a");
    rig_result_free(r);

    /* A read-only tool gets no such fields; its schema decides. */
    rig_tool *ro = make_tool("reader", five_args_schema, risk_echo, 0);
    rig_tool_set_annotations(ro, &(rig_annotations){.read_only = RIG_HINT_TRUE});
    rig_toolset_add(ts, ro, &err);
    r = call(ts, "reader", "{\"security_risk\":\"LOW\",\"path\":\"a\"}", &err);
    assert_true(rig_result_is_error(r));
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static rig_result *session_echo(rig_call *call)
{
    return rig_result_content(rig_call_session(call), NULL, NULL);
}

static void test_session(void **state)
{
    (void)state;
    rig_toolset *ts = toolset_with(make_tool("s", NULL, session_echo, 0));
    rig_call_opts opts = {.session = "abc"};
    rig_error err;
    rig_result *r = rig_toolset_call(ts, "s", "{}", 2, &opts, &err);
    assert_string_equal(text_of(r), "abc");
    rig_result_free(r);
    r = call(ts, "s", "{}", &err);
    assert_string_equal(text_of(r), "");
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* ---- shared executor state ---- */

static int closed;
static void close_state(void *data)
{
    closed += *(int *)data;
}
static rig_result *read_state(rig_call *call)
{
    return rig_result_error("%d", *(int *)rig_call_data(call));
}

static void test_shared_state(void **state)
{
    (void)state;
    static int value = 7;
    closed = 0;
    rig_tool *a = make_tool("a", NULL, read_state, 0);
    rig_tool_set_executor(a, read_state, &value, close_state);
    rig_tool *b = make_tool("b", NULL, echo, 0);
    rig_tool_share_executor(b, a, read_state);
    rig_toolset *ts = toolset_with(a);
    rig_error err;
    rig_toolset_add(ts, b, &err);
    rig_result *r = call(ts, "b", "{}", &err);
    assert_string_equal(text_of(r), "7");
    rig_result_free(r);
    rig_toolset_remove(ts, "a");
    assert_int_equal(closed, 0); /* b still uses it */
    rig_toolset_free(ts);
    assert_int_equal(closed, 7); /* closed once, with the last tool */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tool_names),
        cmocka_unit_test(test_definition),
        cmocka_unit_test(test_add_get_remove),
        cmocka_unit_test(test_unknown_tool_lists_available),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_validation_never_echoes_values),
        cmocka_unit_test(test_coercion_and_defaults),
        cmocka_unit_test(test_hostile_arguments),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_hook_rewrites_are_validated),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_deadline_with_stubborn_tool),
        cmocka_unit_test(test_sleep_after_deadline),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_submit_many),
        cmocka_unit_test(test_huge_timeouts),
        cmocka_unit_test(test_completion_races),
        cmocka_unit_test(test_concurrent_table),
        cmocka_unit_test(test_output_cap),
        cmocka_unit_test(test_tool_failures),
        cmocka_unit_test(test_risk_fields_stripped),
        cmocka_unit_test(test_session),
        cmocka_unit_test(test_shared_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
