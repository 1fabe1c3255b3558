/* test_export.c — the provider formats: every format, with no model, a
 * model the native specs support and one they do not, with security_risk
 * off and on, compared byte for byte with the golden files in
 * tests/data/export/; then the facts those files show, asserted one by one
 * (role exclusion, betas, where security_risk/summary go, hidden tools), and
 * the other end of security_risk/summary: a call carrying them.
 *
 * The goldens live in $RIG_TEST_DATA/export (tests/meson.build sets it). To
 * write them anew after a deliberate change, run the test with
 * RIG_UPDATE_GOLDEN=1 and review the diff before committing:
 *
 *     RIG_UPDATE_GOLDEN=1 meson test -C build export
 *     git diff tests/data/export/ */
#include <errno.h>
#include <sys/stat.h>

#include "testing.h"

/* ---- the toolset the goldens show ------------------------------------- */

/* A plain tool with most of what schemas do: nested object, array, enum,
 * $ref into $defs, a nullable type array, const, oneOf, formats. */
static const char search_schema[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"query\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Text or pattern to find.\"},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"literal\",\"regex\",\"fuzzy\"],"
    "\"default\":\"literal\"},"
    "\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,"
    "\"maxItems\":20},"
    "\"options\":{\"type\":\"object\",\"properties\":{"
    "\"case_sensitive\":{\"type\":\"boolean\",\"default\":false},"
    "\"max_results\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,"
    "\"format\":\"int32\"}},"
    "\"additionalProperties\":false},"
    "\"range\":{\"$ref\":\"#/$defs/range\"},"
    "\"cursor\":{\"type\":[\"string\",\"null\"],\"description\":\"From the previous page.\"},"
    "\"version\":{\"const\":\"v2\"},"
    "\"since\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"sort\":{\"oneOf\":[{\"const\":\"name\"},"
    "{\"type\":\"object\",\"properties\":{\"field\":{\"type\":\"string\"},"
    "\"descending\":{\"type\":\"boolean\"}},\"required\":[\"field\"]}]}},"
    "\"required\":[\"query\"],"
    "\"additionalProperties\":false,"
    "\"$defs\":{\"range\":{\"type\":\"object\",\"description\":\"Lines, 1-based.\","
    "\"properties\":{\"start\":{\"type\":\"integer\",\"minimum\":1},"
    "\"end\":{\"type\":\"integer\"}},\"required\":[\"start\"]}}}";

static const char weather_in[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"city\":{\"type\":\"string\"},"
    "\"units\":{\"type\":\"string\",\"enum\":[\"metric\",\"imperial\"],\"default\":\"metric\"}},"
    "\"required\":[\"city\"]}";
static const char weather_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"temperature\":{\"type\":\"number\"},\"conditions\":{\"type\":\"string\"}},"
    "\"required\":[\"temperature\",\"conditions\"]}";
static const char weather_meta[] = "{\"ui\":{\"icon\":\"cloud\"},\"io.rig/version\":2}";

static const char read_file_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1}},"
    "\"required\":[\"path\"],\"additionalProperties\":false}";

/* No "type": legal for rig (it is an object schema all the same), but every
 * provider wants "type":"object" at the top, so the export adds it. */
static const char note_schema[] = "{\"properties\":{\"text\":{\"type\":\"string\"}}}";

static const char shell_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\"},\"restart\":{\"type\":\"boolean\"}}}";

static const char edit_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"enum\":[\"view\",\"create\",\"str_replace\",\"insert\"]},"
    "\"path\":{\"type\":\"string\"},"
    "\"old_str\":{\"type\":\"string\"},\"new_str\":{\"type\":\"string\"}},"
    "\"required\":[\"command\",\"path\"]}";

static const char computer_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"action\":{\"type\":\"string\",\"enum\":[\"screenshot\",\"click\",\"type\"]},"
    "\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"action\"]}";

static const char *const claude_models[] = {"claude-*", NULL};
static const char *const claude4_models[] = {"claude-sonnet-4*", "claude-opus-4*", NULL};
static const char *const gpt5_models[] = {"gpt-5*", NULL};
static const char *const codex_models[] = {"codex-*", NULL};
static const char *const gemini25_models[] = {"gemini-2.5-*", NULL};

static rig_result *ok_text(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_text(r, "ok");
    return r;
}

static rig_tool *tool(const char *name, const char *desc, const char *schema)
{
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    assert_non_null(t);
    if (desc)
        assert_int_equal(rig_tool_set_description(t, desc), RIG_OK);
    if (schema && rig_tool_set_input_schema(t, schema, strlen(schema), &err) != RIG_OK)
        fail_msg("schema of %s: %s", name, err.message);
    rig_tool_set_executor(t, ok_text, NULL, NULL);
    return t;
}

static void native(rig_tool *t, rig_native_spec spec)
{
    rig_error err;
    if (rig_tool_add_native(t, &spec, &err) != RIG_OK)
        fail_msg("native spec for %s: %s", rig_tool_name(t), err.message);
}

static void add(rig_toolset *ts, rig_tool *t)
{
    rig_error err;
    if (rig_toolset_add(ts, t, &err) != RIG_OK)
        fail_msg("add %s: %s", rig_tool_name(t), err.message);
}

static rig_toolset *golden_toolset(void)
{
    rig_toolset *ts = rig_toolset_new();
    assert_non_null(ts);
    rig_error err;

    add(ts, tool("search_files", "Search files for text.\nReturns matching lines.",
                 search_schema));

    rig_tool *t = tool("get_weather", "Current weather for a city.", weather_in);
    assert_int_equal(rig_tool_set_title(t, "Weather"), RIG_OK);
    assert_int_equal(rig_tool_set_output_schema(t, weather_out, strlen(weather_out), &err),
                     RIG_OK);
    assert_int_equal(rig_tool_set_meta(t, weather_meta, strlen(weather_meta), &err), RIG_OK);
    /* readOnly and openWorld left unset: absent from the annotations. */
    rig_tool_set_annotations(t, &(rig_annotations){.destructive = RIG_HINT_FALSE,
                                                   .idempotent = RIG_HINT_TRUE});
    add(ts, t);

    t = tool("read_file", "Read a text file.", read_file_schema);
    rig_tool_set_annotations(t, &(rig_annotations){.read_only = RIG_HINT_TRUE,
                                                   .open_world = RIG_HINT_FALSE});
    add(ts, t);

    add(ts, tool("list_roots", "List the workspace roots.", NULL));
    add(ts, tool("note", "Keep a note.", note_schema));

    t = tool("run_shell", "Run a shell command.", shell_schema);
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC,
                                .api_type = "bash_20250124",
                                .api_name = "bash",
                                .beta = "computer-use-2025-01-24",
                                .role = "shell",
                                .supported_models = claude_models});
    add(ts, t);

    t = tool("edit", "View and edit files.", edit_schema);
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC,
                                .api_type = "text_editor_20250728",
                                .api_name = "str_replace_based_edit_tool",
                                .role = "editor",
                                .supported_models = claude4_models,
                                .extra_json = "{\"max_characters\":10000}"});
    add(ts, t);

    t = tool("shell", "Run shell commands locally.", shell_schema);
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_OPENAI,
                                .api_type = "shell",
                                .role = "shell",
                                .supported_models = gpt5_models,
                                .extra_json = "{\"environment\":{\"type\":\"local\"}}"});
    add(ts, t);

    t = tool("computer", "Control the screen.", computer_schema);
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_GEMINI,
                                .api_type = "computer_use",
                                .role = "computer",
                                .supported_models = gemini25_models,
                                .extra_json = "{\"environment\":\"ENVIRONMENT_BROWSER\"}"});
    /* A second beta naming the one bash needs: it must be listed once. */
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC,
                                .api_type = "computer_20250124",
                                .api_name = "computer",
                                .beta = "computer-use-2025-01-24",
                                .role = "computer",
                                .supported_models = claude_models,
                                .extra_json = "{\"display_width_px\":1280,"
                                              "\"display_height_px\":800,"
                                              "\"display_number\":1}"});
    add(ts, t);

    /* Generic tools that collide with natives: "bash" has the shell role
     * through its OpenAI spec (local_shell, codex models only) and the
     * name of Anthropic's bash; the editor's name alone collides. */
    t = tool("bash", "Run a bash command.", shell_schema);
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_OPENAI,
                                .api_type = "local_shell",
                                .role = "shell",
                                .supported_models = codex_models});
    add(ts, t);
    add(ts, tool("str_replace_based_edit_tool", "Edit a file by replacing text.", edit_schema));

    t = tool("secret_helper", "Never listed.", NULL);
    rig_tool_set_flags(t, RIG_TOOL_HIDDEN);
    add(ts, t);
    return ts;
}

/* ---- goldens ---------------------------------------------------------- */

static char *export_text(const rig_toolset *ts, rig_format f, const char *model, bool risk,
                         unsigned flags)
{
    rig_json_writer w;
    rig_json_writer_init(&w, flags);
    rig_export_opts o = {.format = f, .model = model, .security_risk = risk};
    rig_error err;
    rig_error_clear(&err);
    int rc = rig_toolset_export(ts, &o, &w, &err);
    if (rc != RIG_OK)
        fail_msg("export %s/%s: %s", rig_format_name(f), model ? model : "-", err.message);
    size_t len;
    char *s = rig_json_writer_detach(&w, &len);
    rig_json_writer_free(&w);
    assert_non_null(s);
    assert_int_equal(strlen(s), len);
    return s;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static const char *data_dir(void)
{
    const char *d = getenv("RIG_TEST_DATA");
    if (!d || !*d)
        fail_msg("RIG_TEST_DATA is not set (tests/meson.build sets it to tests/data)");
    return d;
}

/* Compare `got` (plus a final newline) with the golden file `name`; with
 * RIG_UPDATE_GOLDEN=1 and `primary`, write it instead. */
static void check_golden(const char *name, const char *got, bool primary)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/export/%s.json", data_dir(), name);
    const char *upd = getenv("RIG_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0 && primary) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/export", data_dir());
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", dir, strerror(errno));
        FILE *f = fopen(path, "wb");
        if (!f)
            fail_msg("cannot write %s: %s", path, strerror(errno));
        fputs(got, f);
        fputc('\n', f);
        assert_int_equal(fclose(f), 0);
        return;
    }
    size_t len = 0;
    char *want = read_file(path, &len);
    if (!want)
        fail_msg("golden %s is missing; run with RIG_UPDATE_GOLDEN=1 to write it", path);
    size_t glen = strlen(got);
    bool same = len == glen + 1 && memcmp(want, got, glen) == 0 && want[glen] == '\n';
    if (!same) {
        /* Say where they part: line number and both lines. */
        size_t i = 0, line = 1, bol = 0;
        while (i < glen && i < len && got[i] == want[i]) {
            if (got[i] == '\n') {
                line++;
                bol = i + 1;
            }
            i++;
        }
        int gl = (int)strcspn(got + bol, "\n"), wl = (int)strcspn(want + bol, "\n");
        print_error("golden %s differs at line %zu:\n  want: %.*s\n  got:  %.*s\n"
                    "(RIG_UPDATE_GOLDEN=1 rewrites it; review the diff)\n",
                    path, line, wl, want + bol, gl, got + bol);
        free(want);
        fail();
    }
    free(want);
}

struct golden_case {
    rig_format format;
    const char *model;
    bool risk;
    const char *golden;
    /* false: this case must equal a golden another case writes (a model
     * the natives do not support, or a format without natives) */
    bool primary;
};

static const struct golden_case golden_cases[] = {
    {RIG_FORMAT_MCP, NULL, false, "mcp", true},
    {RIG_FORMAT_MCP, NULL, true, "mcp-risk", true},
    {RIG_FORMAT_MCP, "claude-sonnet-4-5", false, "mcp", false},
    {RIG_FORMAT_MCP, "gpt-5", true, "mcp-risk", false},

    {RIG_FORMAT_OPENAI, NULL, false, "openai", true},
    {RIG_FORMAT_OPENAI, NULL, true, "openai-risk", true},
    {RIG_FORMAT_OPENAI, "gpt-5", false, "openai", false},
    {RIG_FORMAT_OPENAI, "gpt-5", true, "openai-risk", false},

    {RIG_FORMAT_RESPONSES, NULL, false, "responses", true},
    {RIG_FORMAT_RESPONSES, NULL, true, "responses-risk", true},
    {RIG_FORMAT_RESPONSES, "gpt-5", false, "responses-gpt-5", true},
    {RIG_FORMAT_RESPONSES, "gpt-5", true, "responses-gpt-5-risk", true},
    {RIG_FORMAT_RESPONSES, "codex-mini-latest", false, "responses-codex-mini-latest", true},
    {RIG_FORMAT_RESPONSES, "claude-sonnet-4-5", false, "responses", false},
    {RIG_FORMAT_RESPONSES, "o3", true, "responses-risk", false},

    {RIG_FORMAT_ANTHROPIC, NULL, false, "anthropic", true},
    {RIG_FORMAT_ANTHROPIC, NULL, true, "anthropic-risk", true},
    {RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", false, "anthropic-claude-sonnet-4-5", true},
    {RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", true, "anthropic-claude-sonnet-4-5-risk", true},
    {RIG_FORMAT_ANTHROPIC, "CLAUDE-SONNET-4-5", false, "anthropic-claude-sonnet-4-5", false},
    {RIG_FORMAT_ANTHROPIC, "claude-3-7-sonnet-latest", false, "anthropic-claude-3-7-sonnet",
     true},
    {RIG_FORMAT_ANTHROPIC, "gpt-5", false, "anthropic", false},
    {RIG_FORMAT_ANTHROPIC, "gpt-5", true, "anthropic-risk", false},

    {RIG_FORMAT_GEMINI, NULL, false, "gemini", true},
    {RIG_FORMAT_GEMINI, NULL, true, "gemini-risk", true},
    {RIG_FORMAT_GEMINI, "gemini-2.5-pro", false, "gemini-gemini-2.5-pro", true},
    {RIG_FORMAT_GEMINI, "gemini-2.5-pro", true, "gemini-gemini-2.5-pro-risk", true},
    {RIG_FORMAT_GEMINI, "gemini-1.5-flash", false, "gemini", false},
    {RIG_FORMAT_GEMINI, "gemini-1.5-flash", true, "gemini-risk", false},
};

static void test_goldens(void **state)
{
    (void)state;
    rig_toolset *ts = golden_toolset();
    for (size_t i = 0; i < sizeof golden_cases / sizeof *golden_cases; i++) {
        const struct golden_case *c = &golden_cases[i];
        char *pretty = export_text(ts, c->format, c->model, c->risk, RIG_JSON_WRITE_PRETTY);
        check_golden(c->golden, pretty, c->primary);
        /* The compact form is the same document. */
        char *compact = export_text(ts, c->format, c->model, c->risk, 0);
        rig_json_doc *a = parse_ok(pretty), *b = parse_ok(compact);
        assert_true(rig_json_equal(rig_json_doc_root(a), rig_json_doc_root(b)));
        rig_json_doc_free(a);
        rig_json_doc_free(b);
        free(compact);
        free(pretty);
    }
    rig_toolset_free(ts);
}

/* ---- the facts, one by one ------------------------------------------- */

static rig_json_doc *export_doc(const rig_toolset *ts, rig_format f, const char *model, bool risk)
{
    char *s = export_text(ts, f, model, risk, 0);
    rig_json_doc *d = rig_json_parse(s, strlen(s), &(rig_json_options){
                                         .flags = RIG_JSON_COPY_INPUT}, NULL);
    assert_non_null(d);
    free(s);
    return d;
}

/* The name a listed entry goes by: a function's name, a native entry's
 * name, or its type when it has none (OpenAI's built-ins, Gemini's). */
static const char *entry_name(rig_json_val e, rig_format f, char *buf, size_t cap)
{
    rig_json_val n = f == RIG_FORMAT_OPENAI ? rig_json_get(rig_json_get(e, "function"), "name")
                                            : rig_json_get(e, "name");
    if (!rig_json_exists(n))
        n = rig_json_get(e, "type");
    if (!rig_json_exists(n)) { /* Gemini {"computerUse":{...}} */
        rig_json_iter it = rig_json_iter_init(e);
        rig_json_val k, v;
        if (rig_json_iter_member(&it, &k, &v))
            n = k;
    }
    assert_int_equal(rig_json_str_copy(n, buf, cap, NULL), 0);
    return buf;
}

/* The names listed, joined with spaces, in order. Gemini's declarations
 * come first, then its native entries. */
static void listed(const rig_toolset *ts, rig_format f, const char *model, char *out, size_t cap)
{
    rig_json_doc *d = export_doc(ts, f, model, false);
    rig_json_val tools = rig_json_get(rig_json_doc_root(d), "tools");
    assert_true(rig_json_is_array(tools));
    out[0] = '\0';
    rig_json_iter it = rig_json_iter_init(tools);
    rig_json_val e;
    char name[128];
    while (rig_json_iter_next(&it, &e)) {
        rig_json_val decls = rig_json_get(e, "functionDeclarations");
        if (rig_json_exists(decls)) {
            rig_json_iter dit = rig_json_iter_init(decls);
            rig_json_val de;
            while (rig_json_iter_next(&dit, &de))
                snprintf(out + strlen(out), cap - strlen(out), "%s%s", *out ? " " : "",
                         entry_name(de, f, name, sizeof name));
            continue;
        }
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", *out ? " " : "",
                 entry_name(e, f, name, sizeof name));
    }
    rig_json_doc_free(d);
}

static bool exports(const rig_toolset *ts, rig_format f, const char *model, const char *name,
                    bool *is_native)
{
    rig_export_opts o = {.format = f, .model = model};
    rig_tool *t = rig_toolset_get(ts, name);
    assert_non_null(t);
    return rig_toolset_exports_tool(ts, &o, t, is_native);
}

static void test_role_exclusion(void **state)
{
    (void)state;
    rig_toolset *ts = golden_toolset();
    char got[1024];
    bool nat = true;

    /* Claude: bash claims "shell" and the name "bash"; the editor claims
     * "editor" and str_replace_based_edit_tool; the computer "computer".
     * Skipped: "shell" (role), "bash" (role and name), the generic editor
     * (name). */
    listed(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", got, sizeof got);
    assert_string_equal(got, "search_files get_weather read_file list_roots note "
                             "bash str_replace_based_edit_tool computer");
    assert_true(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", "run_shell", &nat));
    assert_true(nat);
    assert_true(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", "edit", &nat));
    assert_true(nat);
    assert_false(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", "bash", &nat));
    assert_false(nat);
    assert_false(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", "shell", &nat));
    assert_false(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5",
                         "str_replace_based_edit_tool", &nat));
    assert_true(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", "search_files", &nat));
    assert_false(nat);

    /* Claude 3.7: bash and computer are native, the editor spec is for
     * Claude 4 only, so both editors are generic and both listed. */
    listed(ts, RIG_FORMAT_ANTHROPIC, "claude-3-7-sonnet-latest", got, sizeof got);
    assert_string_equal(got, "search_files get_weather read_file list_roots note edit "
                             "str_replace_based_edit_tool bash computer");

    /* No model: every tool generic, none skipped but the hidden one. */
    const char *all = "search_files get_weather read_file list_roots note run_shell edit "
                      "shell computer bash str_replace_based_edit_tool";
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++) {
        listed(ts, f, NULL, got, sizeof got);
        assert_string_equal(got, all);
        assert_true(exports(ts, f, NULL, "run_shell", &nat));
        assert_false(nat);
        assert_false(exports(ts, f, NULL, "secret_helper", &nat));
    }
    /* Formats without natives ignore the model. */
    listed(ts, RIG_FORMAT_MCP, "claude-sonnet-4-5", got, sizeof got);
    assert_string_equal(got, all);
    listed(ts, RIG_FORMAT_OPENAI, "gpt-5", got, sizeof got);
    assert_string_equal(got, all);

    /* GPT-5 under Responses: the OpenAI shell claims "shell"; run_shell and
     * bash (its local_shell is for codex only) are skipped by role. */
    listed(ts, RIG_FORMAT_RESPONSES, "gpt-5", got, sizeof got);
    assert_string_equal(got, "search_files get_weather read_file list_roots note edit "
                             "computer str_replace_based_edit_tool shell");
    /* Codex: local_shell claims it instead. */
    listed(ts, RIG_FORMAT_RESPONSES, "codex-mini-latest", got, sizeof got);
    assert_string_equal(got, "search_files get_weather read_file list_roots note edit "
                             "computer str_replace_based_edit_tool local_shell");
    assert_true(exports(ts, RIG_FORMAT_RESPONSES, "codex-mini-latest", "bash", &nat));
    assert_true(nat);
    assert_false(exports(ts, RIG_FORMAT_RESPONSES, "codex-mini-latest", "shell", &nat));

    /* Gemini 2.5: computer_use claims "computer". */
    listed(ts, RIG_FORMAT_GEMINI, "gemini-2.5-pro", got, sizeof got);
    assert_string_equal(got, "search_files get_weather read_file list_roots note run_shell "
                             "edit shell bash str_replace_based_edit_tool computerUse");
    rig_toolset_free(ts);
}

/* A later native tool whose role is taken is skipped, not listed twice. */
static void test_second_native_with_claimed_role(void **state)
{
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_tool *a = tool("bash_a", "first", shell_schema);
    native(a, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC, .api_type = "bash_20250124",
                                .api_name = "bash", .role = "shell"});
    rig_tool *b = tool("bash_b", "second", shell_schema);
    native(b, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC, .api_type = "bash_20241022",
                                .api_name = "bash2", .role = "shell"});
    /* No role, but the api_name taken: also skipped, as a name must be
     * unique in a request. */
    rig_tool *c = tool("bash_c", "third", shell_schema);
    native(c, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC, .api_type = "bash_20250124",
                                .api_name = "bash"});
    add(ts, a);
    add(ts, b);
    add(ts, c);
    char got[256];
    listed(ts, RIG_FORMAT_ANTHROPIC, "claude-opus-4-1", got, sizeof got);
    assert_string_equal(got, "bash");
    bool nat;
    assert_true(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-opus-4-1", "bash_a", &nat));
    assert_false(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-opus-4-1", "bash_b", &nat));
    assert_false(exports(ts, RIG_FORMAT_ANTHROPIC, "claude-opus-4-1", "bash_c", &nat));
    rig_toolset_free(ts);
}

static size_t count_str(rig_json_val arr, const char *s)
{
    size_t n = 0;
    rig_json_iter it = rig_json_iter_init(arr);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        n += rig_json_str_eq(e, s);
    return n;
}

static void test_betas(void **state)
{
    (void)state;
    rig_toolset *ts = golden_toolset();
    rig_json_doc *d = export_doc(ts, RIG_FORMAT_ANTHROPIC, "claude-sonnet-4-5", false);
    rig_json_val betas = rig_json_get(rig_json_doc_root(d), "betas");
    assert_int_equal(rig_json_len(betas), 1);
    assert_int_equal(count_str(betas, "computer-use-2025-01-24"), 1);
    rig_json_doc_free(d);
    /* Natives that do not apply bring no beta. */
    d = export_doc(ts, RIG_FORMAT_ANTHROPIC, NULL, false);
    assert_true(rig_json_is_array(rig_json_get(rig_json_doc_root(d), "betas")));
    assert_int_equal(rig_json_len(rig_json_get(rig_json_doc_root(d), "betas")), 0);
    rig_json_doc_free(d);
    /* Only Anthropic has betas. */
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++) {
        d = export_doc(ts, f, "claude-sonnet-4-5", true);
        rig_json_val root = rig_json_doc_root(d);
        assert_int_equal(rig_json_len(root), f == RIG_FORMAT_ANTHROPIC ? 2 : 1);
        assert_true(rig_json_is_array(rig_json_get(root, "tools")));
        rig_json_doc_free(d);
    }
    rig_toolset_free(ts);
}

/* The input schema of a listed function entry. */
static rig_json_val schema_of(rig_json_val e, rig_format f)
{
    switch (f) {
    case RIG_FORMAT_MCP: return rig_json_get(e, "inputSchema");
    case RIG_FORMAT_OPENAI: return rig_json_get(rig_json_get(e, "function"), "parameters");
    case RIG_FORMAT_RESPONSES: return rig_json_get(e, "parameters");
    case RIG_FORMAT_ANTHROPIC: return rig_json_get(e, "input_schema");
    case RIG_FORMAT_GEMINI: return rig_json_get(e, "parameters");
    }
    return (rig_json_val){0};
}

static void test_risk_fields(void **state)
{
    (void)state;
    rig_toolset *ts = golden_toolset();
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++) {
        for (int risk = 0; risk <= 1; risk++) {
            rig_json_doc *d = export_doc(ts, f, NULL, risk);
            rig_json_val tools = rig_json_get(rig_json_doc_root(d), "tools");
            if (f == RIG_FORMAT_GEMINI)
                tools = rig_json_get(rig_json_at(tools, 0), "functionDeclarations");
            size_t seen = 0;
            rig_json_iter it = rig_json_iter_init(tools);
            rig_json_val e;
            while (rig_json_iter_next(&it, &e)) {
                char name[128];
                entry_name(e, f, name, sizeof name);
                bool ro = strcmp(name, "read_file") == 0;
                rig_json_val s = schema_of(e, f);
                rig_json_val props = rig_json_get(s, "properties");
                rig_json_val req = rig_json_get(s, "required");
                if (risk && !ro) {
                    /* First, in this order, optional. */
                    rig_json_iter pit = rig_json_iter_init(props);
                    rig_json_val k, v;
                    assert_true(rig_json_iter_member(&pit, &k, &v));
                    assert_true(rig_json_str_eq(k, "security_risk"));
                    rig_json_val en = rig_json_get(v, "enum");
                    assert_int_equal(rig_json_len(en), 4);
                    assert_int_equal(count_str(en, "UNKNOWN") + count_str(en, "LOW") +
                                         count_str(en, "MEDIUM") + count_str(en, "HIGH"),
                                     4);
                    if (f != RIG_FORMAT_GEMINI)
                        assert_true(rig_json_str_eq(rig_json_get(v, "default"), "UNKNOWN"));
                    assert_true(rig_json_iter_member(&pit, &k, &v));
                    assert_true(rig_json_str_eq(k, "summary"));
                    assert_int_equal(count_str(req, "security_risk"), 0);
                    assert_int_equal(count_str(req, "summary"), 0);
                } else {
                    assert_false(rig_json_exists(rig_json_get(props, "security_risk")));
                    assert_false(rig_json_exists(rig_json_get(props, "summary")));
                }
                /* Every schema says it is an object (Gemini in its own words;
                 * Gemini leaves out a schema with no properties). */
                if (f == RIG_FORMAT_GEMINI)
                    assert_true(!rig_json_exists(s) ||
                                rig_json_str_eq(rig_json_get(s, "type"), "OBJECT"));
                else
                    assert_true(rig_json_str_eq(rig_json_get(s, "type"), "object"));
                seen++;
            }
            assert_int_equal(seen, 11);
            rig_json_doc_free(d);
        }
    }
    rig_toolset_free(ts);
}

/* A tool that has its own "summary" argument keeps it: the export does not
 * replace its definition, and a call passes it through to the tool. */
static void test_own_summary_property(void **state)
{
    (void)state;
    static const char schema[] =
        "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"},"
        "\"summary\":{\"type\":\"string\",\"description\":\"The issue's summary.\"}},"
        "\"required\":[\"title\",\"summary\"]}";
    rig_toolset *ts = rig_toolset_new();
    add(ts, tool("create_issue", "File an issue.", schema));
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_ANTHROPIC; f++) {
        rig_json_doc *d = export_doc(ts, f, NULL, true);
        rig_json_val s = schema_of(rig_json_at(rig_json_get(rig_json_doc_root(d), "tools"), 0), f);
        rig_json_val props = rig_json_get(s, "properties");
        assert_int_equal(rig_json_len(props), 3);
        rig_json_iter it = rig_json_iter_init(props);
        rig_json_val k, v;
        assert_true(rig_json_iter_member(&it, &k, &v));
        assert_true(rig_json_str_eq(k, "security_risk"));
        assert_true(rig_json_str_eq(rig_json_get(rig_json_get(props, "summary"), "description"),
                                    "The issue's summary."));
        assert_int_equal(count_str(rig_json_get(s, "required"), "summary"), 1);
        rig_json_doc_free(d);
    }
    rig_toolset_free(ts);
}

/* A name listed in "required" only is the tool's too: no optional field of
 * that name is added, and the call keeps it (else the model could never
 * satisfy the schema: the call would take out the field it requires). */
static void test_required_only_name(void **state)
{
    (void)state;
    static const char schema[] = "{\"type\":\"object\",\"required\":[\"summary\"]}";
    rig_toolset *ts = rig_toolset_new();
    add(ts, tool("t", "", schema));
    rig_json_doc *d = export_doc(ts, RIG_FORMAT_ANTHROPIC, NULL, true);
    rig_json_val s = schema_of(rig_json_at(rig_json_get(rig_json_doc_root(d), "tools"), 0),
                               RIG_FORMAT_ANTHROPIC);
    rig_json_val props = rig_json_get(s, "properties");
    assert_int_equal(rig_json_len(props), 1);
    assert_true(rig_json_exists(rig_json_get(props, "security_risk")));
    rig_json_doc_free(d);
    rig_error err;
    const char *args = "{\"summary\":\"kept\",\"security_risk\":\"LOW\"}";
    rig_result *r = rig_toolset_call(ts, "t", args, strlen(args), NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    rig_result_free(r);
    rig_toolset_free(ts);
}

static void test_hidden_and_hub(void **state)
{
    (void)state;
    rig_error err;
    rig_toolset *ts = rig_toolset_new();
    rig_tool *hub = rig_hub_new("files", "File tools.", &err);
    assert_non_null(hub);
    assert_int_equal(rig_hub_add(hub, tool("inner_read", "Read.", read_file_schema), &err),
                     RIG_OK);
    assert_int_equal(rig_hub_add(hub, tool("inner_write", "Write.", NULL), &err), RIG_OK);
    add(ts, hub);
    rig_tool *h = tool("hidden_one", "Hidden.", NULL);
    rig_tool_set_flags(h, RIG_TOOL_HIDDEN | RIG_TOOL_INLINE);
    native(h, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC, .api_type = "bash_20250124",
                                .api_name = "bash", .role = "shell"});
    add(ts, h);
    add(ts, tool("bash", "Generic bash.", shell_schema));
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++) {
        char got[256];
        listed(ts, f, "claude-sonnet-4-5", got, sizeof got);
        /* The hidden native claims nothing, so the generic bash stays. */
        assert_string_equal(got, "files bash");
        char *s = export_text(ts, f, NULL, true, 0);
        assert_null(strstr(s, "hidden_one"));
        free(s);
    }
    bool nat;
    assert_false(exports(ts, RIG_FORMAT_MCP, NULL, "hidden_one", &nat));
    /* An inner tool is not the toolset's: never exported. */
    rig_export_opts o = {.format = RIG_FORMAT_MCP};
    assert_false(rig_toolset_exports_tool(ts, &o, rig_hub_at(hub, 0), &nat));
    rig_toolset_free(ts);
}

static void test_format_parse(void **state)
{
    (void)state;
    assert_int_equal(rig_format_parse("mcp"), RIG_FORMAT_MCP);
    assert_int_equal(rig_format_parse("openai"), RIG_FORMAT_OPENAI);
    assert_int_equal(rig_format_parse("responses"), RIG_FORMAT_RESPONSES);
    assert_int_equal(rig_format_parse("anthropic"), RIG_FORMAT_ANTHROPIC);
    assert_int_equal(rig_format_parse("gemini"), RIG_FORMAT_GEMINI);
    assert_int_equal(rig_format_parse("Anthropic"), RIG_FORMAT_ANTHROPIC);
    assert_int_equal(rig_format_parse("GEMINI"), RIG_FORMAT_GEMINI);
    const char *bad[] = {"", "claude", "mcp ", " mcp", "openai-chat", "gemin", "mcpx", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(rig_format_parse(bad[i]), -1);
    assert_int_equal(rig_format_parse(NULL), -1);
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++)
        assert_int_equal(rig_format_parse(rig_format_name(f)), (int)f);
    assert_string_equal(rig_format_name((rig_format)99), "unknown");
    assert_string_equal(rig_format_name((rig_format)-1), "unknown");
}

static void test_export_errors(void **state)
{
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_error err;
    rig_export_opts o = {.format = RIG_FORMAT_MCP};
    assert_int_equal(rig_toolset_export(NULL, &o, &w, &err), RIG_EINVAL);
    assert_int_equal(rig_toolset_export(ts, NULL, &w, &err), RIG_EINVAL);
    assert_int_equal(rig_toolset_export(ts, &o, NULL, &err), RIG_EINVAL);
    o.format = (rig_format)5;
    assert_int_equal(rig_toolset_export(ts, &o, &w, &err), RIG_EINVAL);
    assert_int_equal(err.code, RIG_EINVAL);
    assert_int_equal(rig_json_writer_error(&w), 0);
    assert_null(rig_json_writer_finish(&w, NULL)); /* nothing was written */
    bool nat = true;
    o.format = RIG_FORMAT_MCP;
    assert_false(rig_toolset_exports_tool(NULL, &o, NULL, &nat));
    assert_false(nat);
    rig_tool *loose = tool("loose", NULL, NULL);
    assert_false(rig_toolset_exports_tool(ts, &o, loose, &nat));
    rig_tool_free(loose);

    /* An empty toolset is an empty list in every format. */
    static const char *const empty[] = {
        "{\"tools\":[]}", "{\"tools\":[]}", "{\"tools\":[]}", "{\"tools\":[],\"betas\":[]}",
        "{\"tools\":[]}"};
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++) {
        char *s = export_text(ts, f, "claude-sonnet-4-5", true, 0);
        assert_string_equal(s, empty[f]);
        free(s);
    }
    rig_json_writer_free(&w);
    rig_toolset_free(ts);
}

/* Gemini: a toolset of natives only has no empty functionDeclarations. */
static void test_gemini_natives_only(void **state)
{
    (void)state;
    rig_toolset *ts = rig_toolset_new();
    rig_tool *t = tool("computer", "Control the screen.", computer_schema);
    native(t, (rig_native_spec){.provider = RIG_PROVIDER_GEMINI, .api_type = "computer_use",
                                .extra_json = "{\"environment\":\"ENVIRONMENT_BROWSER\"}"});
    add(ts, t);
    char *s = export_text(ts, RIG_FORMAT_GEMINI, "gemini-2.5-computer-use-preview-10-2025", false,
                          0);
    assert_string_equal(s, "{\"tools\":[{\"computerUse\":{\"environment\":"
                           "\"ENVIRONMENT_BROWSER\"}}]}");
    free(s);
    rig_toolset_free(ts);
}

/* Gemini's schema subset, case by case. */
static void test_gemini_schema(void **state)
{
    (void)state;
    static const struct {
        const char *prop; /* one property's schema */
        const char *want; /* its Gemini form */
    } cases[] = {
        {"{\"type\":\"string\"}", "{\"type\":\"STRING\"}"},
        {"{\"type\":[\"integer\",\"null\"]}", "{\"type\":\"INTEGER\",\"nullable\":true}"},
        {"{\"type\":[\"integer\",\"null\"],\"nullable\":true}",
         "{\"type\":\"INTEGER\",\"nullable\":true}"},
        {"{\"type\":[\"string\",\"integer\"]}",
         "{\"anyOf\":[{\"type\":\"STRING\"},{\"type\":\"INTEGER\"}]}"},
        /* Both a type list and a oneOf: the oneOf's branches say more. */
        {"{\"type\":[\"string\",\"integer\"],\"oneOf\":[{\"type\":\"string\"},"
         "{\"type\":\"integer\",\"minimum\":1}]}",
         "{\"anyOf\":[{\"type\":\"STRING\"},{\"type\":\"INTEGER\",\"minimum\":1}]}"},
        {"{\"enum\":[\"a\",\"b\"]}", "{\"type\":\"STRING\",\"format\":\"enum\","
                                     "\"enum\":[\"a\",\"b\"]}"},
        {"{\"enum\":[1,2]}", "{}"},
        {"{\"const\":\"x\"}", "{\"type\":\"STRING\",\"format\":\"enum\",\"enum\":[\"x\"]}"},
        {"{\"type\":\"object\",\"additionalProperties\":false,\"properties\":"
         "{\"a\":{\"type\":\"boolean\"}}}",
         "{\"type\":\"OBJECT\",\"properties\":{\"a\":{\"type\":\"BOOLEAN\"}}}"},
        {"{\"type\":\"string\",\"format\":\"uri\"}", "{\"type\":\"STRING\"}"},
        /* Enums and formats only where Gemini has them. */
        {"{\"type\":\"integer\",\"enum\":[\"a\"]}", "{\"type\":\"INTEGER\"}"},
        {"{\"type\":\"string\",\"format\":\"int32\"}", "{\"type\":\"STRING\"}"},
        {"{\"type\":\"number\",\"format\":\"float\"}",
         "{\"type\":\"NUMBER\",\"format\":\"float\"}"},
        {"{\"type\":[\"null\"],\"enum\":[\"a\",null]}", "{\"nullable\":true}"},
        {"{\"type\":[\"string\",\"null\"],\"enum\":[\"a\"]}",
         "{\"type\":\"STRING\",\"nullable\":true,\"format\":\"enum\",\"enum\":[\"a\"]}"},
        {"{\"type\":\"string\",\"format\":\"date-time\"}",
         "{\"type\":\"STRING\",\"format\":\"date-time\"}"},
        {"{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/d\"}}",
         "{\"type\":\"ARRAY\",\"items\":{\"type\":\"NUMBER\",\"minimum\":0}}"},
        /* Recursion Gemini cannot express stops at a fixed depth. */
        {"{\"$ref\":\"#\"}", NULL},
        {"true", "{\"type\":\"OBJECT\"}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char schema[1024];
        snprintf(schema, sizeof schema,
                 "{\"type\":\"object\",\"properties\":{\"p\":%s},"
                 "\"$defs\":{\"d\":{\"type\":\"number\",\"minimum\":0}}}",
                 cases[i].prop);
        rig_toolset *ts = rig_toolset_new();
        add(ts, tool("t", "", schema));
        rig_json_doc *d = export_doc(ts, RIG_FORMAT_GEMINI, NULL, false);
        rig_json_val decl = rig_json_at(
            rig_json_get(rig_json_at(rig_json_get(rig_json_doc_root(d), "tools"), 0),
                         "functionDeclarations"),
            0);
        rig_json_val params = rig_json_get(decl, "parameters");
        assert_true(rig_json_str_eq(rig_json_get(params, "type"), "OBJECT"));
        assert_false(rig_json_exists(rig_json_get(params, "$defs")));
        rig_json_val p = rig_json_get(rig_json_get(params, "properties"), "p");
        if (cases[i].want) {
            /* Byte for byte, so a key written twice shows. */
            size_t len = 0;
            const char *raw = rig_json_raw(p, &len);
            if (!raw || len != strlen(cases[i].want) || memcmp(raw, cases[i].want, len) != 0)
                fail_msg("gemini form of %s: got %.*s, want %s", cases[i].prop, (int)len,
                         raw ? raw : "", cases[i].want);
        } else {
            assert_true(rig_json_is_object(p));
        }
        rig_json_doc_free(d);
        rig_toolset_free(ts);
    }
}

/* ---- the other end: a call carrying security_risk and summary --------- */

struct seen {
    char args[512];
    char risk[32];
    char summary[64];
    bool has_risk, has_summary;
};

static rig_result *record(rig_call *call)
{
    struct seen *s = rig_call_data(call);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_value(&w, rig_call_args(call));
    const char *txt = rig_json_writer_finish(&w, NULL);
    snprintf(s->args, sizeof s->args, "%s", txt ? txt : "?");
    rig_json_writer_free(&w);
    const char *r = rig_call_security_risk(call), *m = rig_call_summary(call);
    s->has_risk = r != NULL;
    s->has_summary = m != NULL;
    snprintf(s->risk, sizeof s->risk, "%s", r ? r : "");
    snprintf(s->summary, sizeof s->summary, "%s", m ? m : "");
    return ok_text(call);
}

static rig_tool *recording_tool(const char *name, const char *schema, struct seen *s, bool ro)
{
    rig_tool *t = tool(name, "", schema);
    rig_tool_set_executor(t, record, s, NULL);
    if (ro)
        rig_tool_set_annotations(t, &(rig_annotations){.read_only = RIG_HINT_TRUE});
    return t;
}

static void test_call_strips_notes(void **state)
{
    (void)state;
    struct seen w = {0}, r = {0}, own = {0};
    static const char write_schema[] =
        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
        "\"n\":{\"type\":\"integer\"}},\"required\":[\"path\"],\"additionalProperties\":false}";
    static const char own_schema[] =
        "{\"type\":\"object\",\"properties\":{\"summary\":{\"type\":\"string\"}},"
        "\"additionalProperties\":false}";
    rig_toolset *ts = rig_toolset_new();
    add(ts, recording_tool("write_note", write_schema, &w, false));
    add(ts, recording_tool("read_note", read_file_schema, &r, true));
    add(ts, recording_tool("own_summary", own_schema, &own, false));

    /* Not read-only: the notes are taken out before validation (else
     * additionalProperties:false would refuse them) and handed over. */
    const char *args = "{\"security_risk\":\"HIGH\",\"path\":\"a.txt\",\"summary\":"
                       "\"Write a note.\",\"n\":\"3\"}";
    rig_error err;
    rig_result *res = rig_toolset_call(ts, "write_note", args, strlen(args), NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    assert_false(rig_result_is_error(res));
    rig_result_free(res);
    assert_string_equal(w.args, "{\"path\":\"a.txt\",\"n\":3}");
    assert_true(w.has_risk);
    assert_string_equal(w.risk, "HIGH");
    assert_true(w.has_summary);
    assert_string_equal(w.summary, "Write a note.");

    /* Without them, nothing to report. */
    res = rig_toolset_call(ts, "write_note", "{\"path\":\"b\"}", 12, NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    rig_result_free(res);
    assert_string_equal(w.args, "{\"path\":\"b\"}");
    assert_false(w.has_risk);
    assert_false(w.has_summary);

    /* A non-string note is dropped all the same, and not reported. */
    args = "{\"path\":\"c\",\"security_risk\":3,\"summary\":null}";
    res = rig_toolset_call(ts, "write_note", args, strlen(args), NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    rig_result_free(res);
    assert_string_equal(w.args, "{\"path\":\"c\"}");
    assert_false(w.has_risk);
    assert_false(w.has_summary);

    /* Read-only: the export offers no such fields, so the call keeps them
     * and the tool's schema (additionalProperties:false) refuses them. */
    args = "{\"path\":\"a.txt\",\"security_risk\":\"LOW\"}";
    res = rig_toolset_call(ts, "read_note", args, strlen(args), NULL, &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    assert_true(rig_result_is_error(res));
    assert_non_null(strstr(err.message, "read_note"));
    rig_result_free(res);
    assert_string_equal(r.args, ""); /* never ran */
    args = "{\"path\":\"a.txt\",\"summary\":\"x\"}";
    res = rig_toolset_call(ts, "read_note", args, strlen(args), NULL, &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(res);
    res = rig_toolset_call(ts, "read_note", "{\"path\":\"a\"}", 12, NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    rig_result_free(res);
    assert_false(r.has_risk);

    /* A tool that declares "summary" itself gets it as an argument. */
    args = "{\"summary\":\"mine\",\"security_risk\":\"MEDIUM\"}";
    res = rig_toolset_call(ts, "own_summary", args, strlen(args), NULL, &err);
    assert_int_equal(err.code, RIG_OK);
    rig_result_free(res);
    assert_string_equal(own.args, "{\"summary\":\"mine\"}");
    assert_false(own.has_summary);
    assert_string_equal(own.risk, "MEDIUM");
    rig_toolset_free(ts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goldens),
        cmocka_unit_test(test_role_exclusion),
        cmocka_unit_test(test_second_native_with_claimed_role),
        cmocka_unit_test(test_betas),
        cmocka_unit_test(test_risk_fields),
        cmocka_unit_test(test_own_summary_property),
        cmocka_unit_test(test_required_only_name),
        cmocka_unit_test(test_hidden_and_hub),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_export_errors),
        cmocka_unit_test(test_gemini_natives_only),
        cmocka_unit_test(test_gemini_schema),
        cmocka_unit_test(test_call_strips_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
