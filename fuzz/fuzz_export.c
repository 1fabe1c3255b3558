/* fuzz_export.c — the provider exporter and the call path, on hostile
 * schemas and hostile arguments.
 *
 * The input is up to three parts separated by 0xFF bytes (a byte that never
 * occurs in UTF-8, so JSON text cannot contain it):
 *
 *     input schema [0xFF output schema [0xFF arguments]]
 *
 * An empty output schema means none; missing arguments mean "{}". When rig
 * accepts the input schema, it goes into a toolset three times: "fz" (not
 * read-only, with a native spec for every provider), "fz_ro" (read-only) and
 * "fz_gen" (not read-only, no natives, with the output schema, a title,
 * annotations and _meta), beside "bash", a generic tool with a shell role.
 * Then:
 *
 *   - Export, in all five formats, with security_risk off and on, with no
 *     model and with one every native supports. Each output is a JSON object
 *     with a "tools" array (Anthropic also "betas"); writing its parse again
 *     gives the same bytes (so no key is written twice); the pretty form is
 *     the same value. Each entry has the shape of its format, and every
 *     schema in it says "type":"object". The MCP listing without
 *     security_risk carries the tool's schema unchanged; with it, the added
 *     fields come first and are never required, and never appear for the
 *     read-only tool. Gemini schemas use only the OpenAPI subset Gemini
 *     knows (no $ref, $defs, additionalProperties; upper-case type names;
 *     each keyword of the right type). The number of entries is what
 *     rig_toolset_exports_tool says.
 *   - Call "fz" and "fz_ro" with the arguments: the call returns a result
 *     and a known status; when the tool ran, the arguments it saw are an
 *     object that satisfies its input schema without any normalizing (a tool
 *     trusts its validated arguments), without security_risk and summary
 *     (unless the schema declares them, or the tool is read-only). "fz_gen"
 *     returns its arguments as structured content, so the output schema check
 *     runs on them too. */
#include "fuzz_common.h"

#include "rig/rig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the executor ------------------------------------------------------ */

struct seen {
    bool ran;
    char *args; /* what the executor saw, written out */
    size_t len;
};

static rig_result *look(rig_call *call)
{
    struct seen *s = rig_call_data(call);
    rig_json_val args = rig_call_args(call);
    FUZZ_CHECK(rig_json_is_object(args), "the executor's arguments are a %s, not an object",
               rig_json_type_name(rig_json_typeof(args)));
    /* Read every argument the ways a tool would. */
    rig_json_iter it = rig_json_iter_init(args);
    rig_json_val k, v;
    char key[64];
    while (rig_json_iter_member(&it, &k, &v)) {
        if (rig_json_str_copy(k, key, sizeof key, NULL) != 0)
            continue;
        size_t n = 0;
        const char *str = rig_call_str(call, key, &n);
        FUZZ_CHECK(!str || str[n] == '\0', "rig_call_str is not NUL-terminated");
        (void)rig_call_int(call, key, 0);
        (void)rig_call_double(call, key, 0);
        (void)rig_call_bool(call, key, false);
        FUZZ_CHECK(rig_call_has(call, key) || strlen(key) != rig_json_str_len(k),
                   "rig_call_has misses a key iteration yields");
    }
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_value(&w, args);
    size_t len = 0;
    char *text = rig_json_writer_detach(&w, &len);
    rig_json_writer_free(&w);
    FUZZ_CHECK(text, "the arguments could not be written");
    rig_result *r = rig_result_new();
    rig_result_text(r, "ok");
    if (s) {
        free(s->args);
        s->ran = true;
        s->args = text;
        s->len = len;
    } else {
        /* fz_gen: hand the arguments back as structured content, so the
         * output schema is checked against them. */
        rig_result_structured(r, text, len);
        free(text);
    }
    return r;
}

/* ---- building the toolset ---------------------------------------------- */

static rig_tool *fz_tool(const char *name, const char *schema, size_t len, void *seen)
{
    rig_tool *t = rig_tool_new(name, NULL);
    FUZZ_CHECK(t, "rig_tool_new(%s) failed", name);
    if (rig_tool_set_input_schema(t, schema, len, NULL) != RIG_OK) {
        rig_tool_free(t);
        return NULL;
    }
    rig_tool_set_executor(t, look, seen, NULL);
    rig_tool_set_flags(t, RIG_TOOL_INLINE);
    return t;
}

static void add_native(rig_tool *t, rig_native_spec spec)
{
    rig_error err;
    FUZZ_CHECK(rig_tool_add_native(t, &spec, &err) == RIG_OK, "rig_tool_add_native: %s",
               err.message);
}

static void add(rig_toolset *ts, rig_tool *t)
{
    rig_error err;
    FUZZ_CHECK(rig_toolset_add(ts, t, &err) == RIG_OK, "rig_toolset_add: %s", err.message);
}

/* ---- checks on an export ----------------------------------------------- */

static bool str_is(rig_json_val v, const char *s)
{
    return rig_json_str_eq(v, s);
}

static void check_object_schema(rig_json_val s, const char *where)
{
    FUZZ_CHECK(rig_json_is_object(s), "%s: the schema is not an object", where);
    FUZZ_CHECK(str_is(rig_json_get(s, "type"), "object"), "%s: the schema has no \"type\":\"object\"",
               where);
}

static bool one_of(rig_json_val v, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (str_is(v, names[i]))
            return true;
    return false;
}

/* A schema in Gemini's OpenAPI subset, recursively. */
static void check_gemini_schema(rig_json_val s, int depth)
{
    static const char *const keys[] = {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
        "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
        "pattern", "anyOf", "default", "items", "minimum", "maximum"};
    static const char *const types[] = {"STRING", "NUMBER", "INTEGER", "BOOLEAN",
                                        "ARRAY",  "OBJECT", "NULL"};
    static const char *const formats[] = {"enum", "date-time", "int32", "int64", "float",
                                          "double"};
    FUZZ_CHECK(depth < 200, "gemini schema nested %d deep", depth);
    FUZZ_CHECK(rig_json_is_object(s), "gemini: a schema that is not an object");
    rig_json_iter it = rig_json_iter_init(s);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        char name[32] = "";
        rig_json_str_copy(k, name, sizeof name, NULL);
        FUZZ_CHECK(one_of(k, keys, sizeof keys / sizeof *keys),
                   "gemini: keyword '%s' is not in Gemini's schema subset", name);
        rig_json_type t = rig_json_typeof(v);
        if (str_is(k, "type")) {
            FUZZ_CHECK(one_of(v, types, sizeof types / sizeof *types), "gemini: bad type name");
        } else if (str_is(k, "format")) {
            FUZZ_CHECK(one_of(v, formats, sizeof formats / sizeof *formats), "gemini: bad format");
        } else if (str_is(k, "title") || str_is(k, "description") || str_is(k, "pattern")) {
            FUZZ_CHECK(t == RIG_JSON_STRING, "gemini: '%s' is a %s", name, rig_json_type_name(t));
        } else if (str_is(k, "nullable")) {
            FUZZ_CHECK(t == RIG_JSON_BOOL, "gemini: 'nullable' is a %s", rig_json_type_name(t));
        } else if (str_is(k, "minimum") || str_is(k, "maximum")) {
            FUZZ_CHECK(t == RIG_JSON_INT || t == RIG_JSON_DOUBLE, "gemini: '%s' is a %s", name,
                       rig_json_type_name(t));
        } else if (str_is(k, "minItems") || str_is(k, "maxItems") || str_is(k, "minLength") ||
                   str_is(k, "maxLength") || str_is(k, "minProperties") ||
                   str_is(k, "maxProperties")) {
            int64_t n = -1;
            FUZZ_CHECK(rig_json_get_int64(v, &n) == 0 && n >= 0,
                       "gemini: '%s' is not a non-negative integer", name);
        } else if (str_is(k, "enum") || str_is(k, "required")) {
            FUZZ_CHECK(t == RIG_JSON_ARRAY, "gemini: '%s' is a %s", name, rig_json_type_name(t));
            rig_json_iter eit = rig_json_iter_init(v);
            rig_json_val e;
            while (rig_json_iter_next(&eit, &e))
                FUZZ_CHECK(rig_json_is_string(e), "gemini: '%s' holds a non-string", name);
        } else if (str_is(k, "properties")) {
            FUZZ_CHECK(t == RIG_JSON_OBJECT, "gemini: 'properties' is a %s",
                       rig_json_type_name(t));
            rig_json_iter pit = rig_json_iter_init(v);
            rig_json_val pk, pv;
            while (rig_json_iter_member(&pit, &pk, &pv))
                check_gemini_schema(pv, depth + 1);
        } else if (str_is(k, "items")) {
            check_gemini_schema(v, depth + 1);
        } else if (str_is(k, "anyOf")) {
            FUZZ_CHECK(t == RIG_JSON_ARRAY, "gemini: 'anyOf' is a %s", rig_json_type_name(t));
            rig_json_iter ait = rig_json_iter_init(v);
            rig_json_val e;
            while (rig_json_iter_next(&ait, &e))
                check_gemini_schema(e, depth + 1);
        }
    }
}

/* The schema as the MCP listing must show it without security_risk: the
 * tool's own, with "type":"object" first when it had no type. */
static void check_mcp_schema_unchanged(rig_json_val got, rig_json_val root)
{
    if (rig_json_is_object(root) && rig_json_exists(rig_json_get(root, "type"))) {
        FUZZ_CHECK(rig_json_equal(got, root), "mcp: inputSchema differs from the tool's schema");
        return;
    }
    /* Every member of the tool's schema is there, plus the type. */
    size_t extra = rig_json_is_object(root) ? rig_json_len(root) : 0;
    FUZZ_CHECK(rig_json_len(got) == extra + 1, "mcp: inputSchema has %zu members, want %zu",
               rig_json_len(got), extra + 1);
    rig_json_iter it = rig_json_iter_init(rig_json_is_object(root) ? root : (rig_json_val){0});
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        size_t kl = rig_json_str_len(k);
        char *key = malloc(kl + 1);
        FUZZ_CHECK(key, "out of memory");
        rig_json_str_copy(k, key, kl + 1, NULL);
        FUZZ_CHECK(rig_json_equal(rig_json_getn(got, key, kl), v),
                   "mcp: a member of the tool's schema changed");
        free(key);
    }
}

/* Does the tool's schema name `key` as a property or a required one? Then
 * the name is the tool's: no field is added, and the call keeps it. */
static bool owns(rig_json_val root, const char *key)
{
    if (rig_json_exists(rig_json_get(rig_json_get(root, "properties"), key)))
        return true;
    rig_json_iter it = rig_json_iter_init(rig_json_get(root, "required"));
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        if (str_is(e, key))
            return true;
    return false;
}

/* With security_risk on, the tool's schema `root` as `got` shows it. */
static void check_risk_schema(rig_json_val got, rig_json_val root, const char *where)
{
    rig_json_val props = rig_json_get(got, "properties");
    rig_json_iter it = rig_json_iter_init(props);
    rig_json_val k, v;
    bool first = true;
    const char *const added[] = {"security_risk", "summary"};
    for (int i = 0; i < 2; i++) {
        if (owns(root, added[i]))
            continue; /* the tool's own */
        FUZZ_CHECK(rig_json_iter_member(&it, &k, &v) && str_is(k, added[i]),
                   "%s: '%s' is not listed %s", where, added[i], first ? "first" : "second");
        first = false;
    }
    rig_json_iter rit = rig_json_iter_init(rig_json_get(got, "required"));
    rig_json_val r;
    while (rig_json_iter_next(&rit, &r))
        for (int i = 0; i < 2; i++)
            FUZZ_CHECK(!str_is(r, added[i]) || owns(root, added[i]),
                       "%s: '%s' is required", where, added[i]);
}

static const char *tool_name_of(rig_json_val e, rig_format f)
{
    static char buf[RIG_TOOL_NAME_MAX + 1];
    rig_json_val n = f == RIG_FORMAT_OPENAI ? rig_json_get(rig_json_get(e, "function"), "name")
                                            : rig_json_get(e, "name");
    buf[0] = '\0';
    rig_json_str_copy(n, buf, sizeof buf, NULL);
    return buf;
}

/* One function entry of any format: its shape and its input schema. */
static void check_entry(rig_json_val e, rig_format f, bool risk, rig_json_val root)
{
    const char *fmt = rig_format_name(f);
    rig_json_val schema = {0};
    switch (f) {
    case RIG_FORMAT_MCP:
        schema = rig_json_get(e, "inputSchema");
        FUZZ_CHECK(rig_json_is_string(rig_json_get(e, "description")), "mcp: no description");
        if (rig_json_exists(rig_json_get(e, "outputSchema")))
            check_object_schema(rig_json_get(e, "outputSchema"), "mcp outputSchema");
        break;
    case RIG_FORMAT_OPENAI:
        FUZZ_CHECK(str_is(rig_json_get(e, "type"), "function"), "openai: type is not function");
        schema = rig_json_get(rig_json_get(e, "function"), "parameters");
        break;
    case RIG_FORMAT_RESPONSES:
        FUZZ_CHECK(rig_json_typeof(rig_json_get(e, "strict")) == RIG_JSON_BOOL,
                   "responses: no strict");
        schema = rig_json_get(e, "parameters");
        break;
    case RIG_FORMAT_ANTHROPIC: schema = rig_json_get(e, "input_schema"); break;
    case RIG_FORMAT_GEMINI:
        schema = rig_json_get(e, "parameters");
        if (rig_json_exists(schema)) {
            check_gemini_schema(schema, 0);
            FUZZ_CHECK(str_is(rig_json_get(schema, "type"), "OBJECT"),
                       "gemini: parameters are not an OBJECT");
        }
        break;
    }
    const char *name = tool_name_of(e, f);
    FUZZ_CHECK(*name, "%s: an entry without a name", fmt);
    if (f == RIG_FORMAT_GEMINI)
        return;
    check_object_schema(schema, fmt);
    bool fuzzed = strncmp(name, "fz", 2) == 0;
    bool ro = strcmp(name, "fz_ro") == 0;
    if (!fuzzed)
        return;
    if (risk && !ro) {
        check_risk_schema(schema, root, fmt);
    } else if (f == RIG_FORMAT_MCP) {
        check_mcp_schema_unchanged(schema, root);
    }
}

/* The export nests the schema a few levels down: allow it. */
static const rig_json_options deep = {.max_depth = 100000};

static void check_export(const rig_toolset *ts, rig_format f, const char *model, bool risk,
                         rig_json_val root)
{
    rig_export_opts o = {.format = f, .model = model, .security_risk = risk};
    rig_json_writer w, p;
    rig_json_writer_init(&w, 0);
    rig_json_writer_init(&p, RIG_JSON_WRITE_PRETTY);
    rig_error err;
    int rc = rig_toolset_export(ts, &o, &w, &err);
    FUZZ_CHECK(rc == RIG_OK, "export %s: %d %s", rig_format_name(f), rc, err.message);
    size_t len = 0, plen = 0;
    const char *out = rig_json_writer_finish(&w, &len);
    FUZZ_CHECK(out, "export %s: no complete output (writer error %d)", rig_format_name(f),
               rig_json_writer_error(&w));
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(out, len, &deep, &jerr);
    FUZZ_CHECK(doc, "export %s: the output is not JSON: %s at byte %zu", rig_format_name(f),
               jerr.reason, jerr.offset);
    FUZZ_CHECK(fz_utf8_valid((const uint8_t *)out, len), "export: invalid UTF-8");
    rig_json_val top = rig_json_doc_root(doc);
    FUZZ_CHECK(rig_json_is_object(top), "export %s: not an object", rig_format_name(f));
    rig_json_val tools = rig_json_get(top, "tools");
    FUZZ_CHECK(rig_json_is_array(tools), "export %s: no tools array", rig_format_name(f));
    FUZZ_CHECK(rig_json_len(top) == (f == RIG_FORMAT_ANTHROPIC ? 2u : 1u),
               "export %s: %zu members at the top", rig_format_name(f), rig_json_len(top));
    if (f == RIG_FORMAT_ANTHROPIC)
        FUZZ_CHECK(rig_json_is_array(rig_json_get(top, "betas")), "anthropic: no betas array");

    /* No key twice: writing the parse again gives the same bytes. */
    rig_json_writer again;
    rig_json_writer_init(&again, 0);
    rig_json_write_value(&again, top);
    size_t alen = 0;
    const char *a = rig_json_writer_finish(&again, &alen);
    FUZZ_CHECK(a && alen == len && memcmp(a, out, len) == 0,
               "export %s: the output does not write back to itself (a key twice?)",
               rig_format_name(f));
    rig_json_writer_free(&again);

    /* The pretty form is the same value. */
    FUZZ_CHECK(rig_toolset_export(ts, &o, &p, &err) == RIG_OK, "pretty export failed");
    const char *pout = rig_json_writer_finish(&p, &plen);
    FUZZ_CHECK(pout, "pretty export incomplete");
    rig_json_doc *pdoc = rig_json_parse(pout, plen, &deep, NULL);
    FUZZ_CHECK(pdoc && rig_json_equal(rig_json_doc_root(pdoc), top),
               "export %s: pretty and compact differ", rig_format_name(f));
    rig_json_doc_free(pdoc);

    /* Entries: as many as rig_toolset_exports_tool says, each well formed. */
    size_t want = 0;
    for (size_t i = 0; i < rig_toolset_count(ts); i++)
        want += rig_toolset_exports_tool(ts, &o, rig_toolset_at(ts, i), NULL);
    size_t got = 0;
    rig_json_iter it = rig_json_iter_init(tools);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e)) {
        FUZZ_CHECK(rig_json_is_object(e), "export %s: an entry is not an object",
                   rig_format_name(f));
        rig_json_val decls = rig_json_get(e, "functionDeclarations");
        if (f == RIG_FORMAT_GEMINI && rig_json_exists(decls)) {
            FUZZ_CHECK(rig_json_len(decls) > 0, "gemini: empty functionDeclarations");
            rig_json_iter dit = rig_json_iter_init(decls);
            rig_json_val d;
            while (rig_json_iter_next(&dit, &d)) {
                check_entry(d, f, risk, root);
                got++;
            }
            continue;
        }
        got++;
        bool generic = f == RIG_FORMAT_MCP || f == RIG_FORMAT_OPENAI ||
                       (f == RIG_FORMAT_RESPONSES && str_is(rig_json_get(e, "type"), "function")) ||
                       (f == RIG_FORMAT_ANTHROPIC && rig_json_exists(rig_json_get(e, "input_schema")));
        if (generic)
            check_entry(e, f, risk, root);
        else
            FUZZ_CHECK(model, "export %s: a native entry without a model", rig_format_name(f));
    }
    FUZZ_CHECK(got == want, "export %s: %zu entries, rig_toolset_exports_tool says %zu",
               rig_format_name(f), got, want);
    rig_json_doc_free(doc);
    rig_json_writer_free(&w);
    rig_json_writer_free(&p);
}

/* ---- checks on a call -------------------------------------------------- */

static void check_call(rig_toolset *ts, const char *name, const char *args, size_t len,
                       struct seen *seen, bool ro)
{
    rig_tool *t = rig_toolset_get(ts, name);
    if (seen) {
        free(seen->args);
        *seen = (struct seen){0};
    }
    rig_error err;
    rig_result *r = rig_toolset_call(ts, name, args, len, NULL, &err);
    FUZZ_CHECK(r, "rig_toolset_call returned NULL");
    switch (err.code) {
    case RIG_OK:
    case RIG_EJSON:
    case RIG_EVALIDATE:
    case RIG_ETOOL:
    case RIG_ENOMEM: break;
    default: FUZZ_CHECK(false, "call %s: unexpected status %d (%s)", name, err.code, err.message);
    }
    FUZZ_CHECK((err.code == RIG_OK) == !rig_result_is_error(r),
               "call %s: status %d but isError %d", name, err.code, rig_result_is_error(r));
    FUZZ_CHECK(rig_result_count(r) > 0, "call %s: a result without content", name);
    if (err.code != RIG_OK)
        FUZZ_CHECK(strstr(err.message, name), "call %s: the error does not name the tool: %s",
                   name, err.message);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    FUZZ_CHECK(rig_result_write(r, &w) == 0 && rig_json_writer_finish(&w, NULL),
               "the result does not write");
    rig_json_writer_free(&w);
    rig_result_free(r);
    if (!seen)
        return;
    FUZZ_CHECK(seen->ran == (err.code == RIG_OK), "call %s: status %d, ran %d", name, err.code,
               seen->ran);
    if (!seen->ran)
        return;
    /* The tool trusts its arguments: they satisfy its schema as they are. */
    rig_json_doc *d = rig_json_parse(seen->args, seen->len, NULL, NULL);
    FUZZ_CHECK(d, "the executor's arguments do not parse");
    rig_json_val a = rig_json_doc_root(d);
    rig_error verr;
    int vrc = rig_schema_validate(rig_tool_input_schema(t), a, 0, NULL, NULL, &verr);
    FUZZ_CHECK(vrc == RIG_OK, "call %s: the tool got arguments its schema refuses: %s\n  %.*s",
               name, verr.message, (int)(seen->len < 300 ? seen->len : 300), seen->args);
    if (!ro) {
        rig_json_val root = rig_schema_root(rig_tool_input_schema(t));
        if (!owns(root, "security_risk"))
            FUZZ_CHECK(!rig_json_exists(rig_json_get(a, "security_risk")),
                       "call %s: security_risk reached the tool", name);
        if (!owns(root, "summary"))
            FUZZ_CHECK(!rig_json_exists(rig_json_get(a, "summary")),
                       "call %s: summary reached the tool", name);
    }
    rig_json_doc_free(d);
}

/* ---- the target -------------------------------------------------------- */

static const char *const any_model[] = {"*", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    const char *sep1 = memchr(in, 0xFF, size);
    size_t slen = sep1 ? (size_t)(sep1 - in) : size;
    const char *out = NULL, *args = "{}";
    size_t olen = 0, alen = 2;
    if (sep1) {
        const char *rest = sep1 + 1;
        size_t rlen = size - slen - 1;
        const char *sep2 = memchr(rest, 0xFF, rlen);
        out = rest;
        olen = sep2 ? (size_t)(sep2 - rest) : rlen;
        if (sep2) {
            args = sep2 + 1;
            alen = rlen - olen - 1;
        }
    }
    /* Exact-size copies, so a read past the end is caught. */
    char *schema = malloc(slen ? slen : 1);
    char *argbuf = malloc(alen ? alen : 1);
    FUZZ_CHECK(schema && argbuf, "out of memory");
    memcpy(schema, in, slen);
    memcpy(argbuf, args, alen);

    struct seen seen_fz = {0}, seen_ro = {0};
    rig_tool *fz = fz_tool("fz", schema, slen, &seen_fz);
    if (!fz)
        goto out;
    rig_tool *ro = fz_tool("fz_ro", schema, slen, &seen_ro);
    rig_tool *gen = fz_tool("fz_gen", schema, slen, NULL);
    FUZZ_CHECK(ro && gen, "the same schema compiled once and failed the second time");
    rig_tool_set_annotations(ro, &(rig_annotations){.read_only = RIG_HINT_TRUE});
    rig_tool_set_annotations(gen, &(rig_annotations){.destructive = RIG_HINT_FALSE,
                                                     .open_world = RIG_HINT_TRUE});
    rig_tool_set_title(gen, "Fuzzed \"tool\"");
    static const char meta[] = "{\"k\": [1, {\"a\": null}]}";
    rig_tool_set_meta(gen, meta, sizeof meta - 1, NULL);
    if (olen > 0 && rig_tool_set_output_schema(gen, out, olen, NULL) != RIG_OK) {
        /* An output schema rig refuses is fine; the tool goes on without. */
    }
    add_native(fz, (rig_native_spec){.provider = RIG_PROVIDER_ANTHROPIC,
                                     .api_type = "bash_20250124", .api_name = "bash",
                                     .beta = "computer-use-2025-01-24", .role = "shell"});
    add_native(fz, (rig_native_spec){.provider = RIG_PROVIDER_OPENAI, .api_type = "shell",
                                     .role = "shell", .supported_models = any_model,
                                     .extra_json = "{\"environment\":{\"type\":\"local\"}}"});
    add_native(fz, (rig_native_spec){.provider = RIG_PROVIDER_GEMINI, .api_type = "computer_use",
                                     .extra_json = "{\"environment\":\"ENVIRONMENT_BROWSER\"}"});
    rig_tool *bash = rig_tool_new("bash", NULL);
    FUZZ_CHECK(bash, "rig_tool_new(bash)");
    add_native(bash, (rig_native_spec){.provider = RIG_PROVIDER_GEMINI, .api_type = "x_shell",
                                       .role = "shell", .supported_models = (const char *const[]){
                                                            "nothing-matches", NULL}});

    rig_toolset *ts = rig_toolset_new();
    FUZZ_CHECK(ts, "rig_toolset_new");
    add(ts, fz);
    add(ts, ro);
    add(ts, gen);
    add(ts, bash);

    rig_json_val root = rig_schema_root(rig_tool_input_schema(fz));
    for (rig_format f = RIG_FORMAT_MCP; f <= RIG_FORMAT_GEMINI; f++)
        for (int risk = 0; risk <= 1; risk++) {
            check_export(ts, f, NULL, risk, root);
            check_export(ts, f, "claude-sonnet-4-5", risk, root);
        }

    check_call(ts, "fz", argbuf, alen, &seen_fz, false);
    check_call(ts, "fz_ro", argbuf, alen, &seen_ro, true);
    check_call(ts, "fz_gen", argbuf, alen, NULL, false);
    rig_toolset_free(ts);
    free(seen_fz.args);
    free(seen_ro.args);
out:
    free(schema);
    free(argbuf);
    return 0;
}
