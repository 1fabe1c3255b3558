/* custom_tool.c — how to write a tool for rig in C.
 *
 * A tool is a name, a description, a JSON Schema for its arguments and a
 * plain function. This one searches a small set of notes. Around it sit two
 * hooks: a before hook that blocks searches for secrets, and an after hook
 * that writes an audit line for every call. The program lists the tool the
 * way an MCP client sees it, then makes three calls and prints what a model
 * would get back.
 *
 * Build: the Meson build makes build/examples/custom_tool; outside it,
 *   cc custom_tool.c $(pkg-config --cflags --libs rig) -o custom_tool */
#define _GNU_SOURCE /* strcasestr */
#include <stdio.h>
#include <string.h>

#include <rig/rig.h>

static const char *const notes[] = {
    "Deploy checklist: run the tests, tag the release, update the changelog.",
    "The staging database is rebuilt every night at 02:00.",
    "Release notes go in docs/releases/ as one file per version.",
    "Ask Ana before changing the deploy pipeline.",
};

/* The executor: arguments arrive validated, with defaults filled in. */
static rig_result *search_notes(rig_call *call)
{
    const char *query = rig_call_str(call, "query", NULL);
    int64_t limit = rig_call_int(call, "limit", 5);
    rig_result *r = rig_result_new();
    int found = 0;
    for (size_t i = 0; i < sizeof notes / sizeof *notes && found < limit; i++) {
        if (rig_call_cancelled(call))
            break;
        if (strcasestr(notes[i], query))
            rig_result_textf(r, "%d. %s", ++found, notes[i]);
    }
    if (!found) {
        rig_result_free(r);
        /* An error result tells the model what went wrong and what to try. */
        return rig_result_error("No note mentions '%s'. Try a shorter or more general word.",
                                query);
    }
    return r;
}

/* Before hook: refuse searches for secrets. Returning an error blocks the
 * call; the message reaches the model as an error result. */
static int block_secrets(rig_call *call, rig_json_val args, char **replace, void *ud,
                         rig_error *err)
{
    (void)call, (void)replace, (void)ud;
    char query[256];
    if (rig_json_str_copy(rig_json_get(args, "query"), query, sizeof query, NULL) == 0 &&
        (strcasestr(query, "password") || strcasestr(query, "secret")))
        return rig_error_set(err, RIG_EBLOCKED,
                             "searching notes for secrets is not allowed; ask the user instead");
    return RIG_OK;
}

/* After hook: audit every call. Returning NULL keeps the result. */
static rig_result *audit(rig_call *call, rig_json_val args, const rig_result *result, void *ud)
{
    int *calls = ud;
    size_t len = 0;
    const char *raw = rig_json_raw(args, &len);
    fprintf(stderr, "audit: %s %.*s -> %s\n", rig_tool_name(rig_call_tool(call)), (int)len, raw,
            rig_result_is_error(result) ? "error" : "ok");
    ++*calls;
    return NULL;
}

static const char schema[] =
    "{\"type\":\"object\","
    " \"properties\":{"
    "   \"query\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Words to look for\"},"
    "   \"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":20,\"default\":5,"
    "              \"description\":\"Most notes to return\"}},"
    " \"required\":[\"query\"],"
    " \"additionalProperties\":false}";

static void show(rig_toolset *ts, const char *args)
{
    rig_error err;
    rig_result *r = rig_toolset_call(ts, "search_notes", args, strlen(args), NULL, &err);
    printf("call %s\n", args);
    for (size_t i = 0; i < rig_result_count(r); i++)
        printf("  %s%s\n", rig_result_is_error(r) ? "error: " : "", rig_result_block(r, i)->text);
    rig_result_free(r);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* results and audit lines in the order they happen */
    rig_error err;
    rig_tool *tool = rig_tool_new("search_notes", &err);
    if (!tool || rig_tool_set_input_schema(tool, schema, sizeof schema - 1, &err) != RIG_OK) {
        fprintf(stderr, "custom_tool: %s\n", err.message);
        return 1;
    }
    rig_tool_set_title(tool, "Search notes");
    rig_tool_set_description(tool, "Search the team's notes for a word or phrase. Returns the "
                                   "matching notes, numbered.");
    rig_tool_set_annotations(tool, &(rig_annotations){.read_only = RIG_HINT_TRUE,
                                                      .open_world = RIG_HINT_FALSE});
    rig_tool_set_executor(tool, search_notes, NULL, NULL);
    int audited = 0;
    rig_tool_before(tool, block_secrets, NULL);
    rig_tool_after(tool, audit, &audited);

    rig_toolset *ts = rig_toolset_new();
    if (!ts || rig_toolset_add(ts, tool, &err) != RIG_OK) {
        fprintf(stderr, "custom_tool: %s\n", ts ? err.message : "out of memory");
        return 1;
    }

    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_toolset_export(ts, &(rig_export_opts){.format = RIG_FORMAT_MCP}, &w, &err);
    size_t len;
    printf("%s\n", rig_json_writer_finish(&w, &len));
    rig_json_writer_free(&w);

    show(ts, "{\"query\":\"deploy\"}");
    show(ts, "{\"query\":\"release\",\"limit\":\"1\"}"); /* "1" is read as 1 */
    show(ts, "{\"query\":\"admin password\"}");         /* blocked by the hook */
    show(ts, "{\"query\":\"\"}");                       /* fails validation */

    rig_toolset_free(ts);
    printf("audited %d calls\n", audited);
    return 0;
}
