/* export.c — a toolset written in each provider's tool format: MCP
 * tools/list, OpenAI chat, OpenAI Responses, Anthropic and Gemini; native
 * provider specs with HUD's role exclusion; the optional security_risk and
 * summary fields; and the JSON Schema → Gemini (OpenAPI subset) conversion.
 *
 * Schemas are copied from the tool's compiled schema document with
 * rig_json_write_value, so an export never re-encodes what it does not
 * change. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static const char *const format_names[] = {"mcp", "openai", "responses", "anthropic", "gemini"};

int rig_format_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof format_names / sizeof *format_names; i++)
        if (strcasecmp(name, format_names[i]) == 0)
            return (int)i;
    return -1;
}

const char *rig_format_name(rig_format f)
{
    return (unsigned)f < sizeof format_names / sizeof *format_names ? format_names[f] : "unknown";
}

/* The provider whose native specs a format uses, or -1 for none. OpenAI's
 * built-in tools exist only in the Responses API. */
static int native_provider(rig_format f)
{
    switch (f) {
    case RIG_FORMAT_RESPONSES: return RIG_PROVIDER_OPENAI;
    case RIG_FORMAT_ANTHROPIC: return RIG_PROVIDER_ANTHROPIC;
    case RIG_FORMAT_GEMINI: return RIG_PROVIDER_GEMINI;
    default: return -1;
    }
}

enum verdict { V_SKIP, V_GENERIC, V_NATIVE };

static const rig_native_spec *native_for(const rig_tool *t, const rig_export_opts *o)
{
    int p = native_provider(o->format);
    return p < 0 ? NULL : rig_tool_native(t, (rig_provider)p, o->model);
}

static bool in_list(const char **list, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

/* HUD's role exclusion, for every tool at once: natives supporting the
 * model claim their role and api_name in order (a later native with a
 * claimed role or api_name is skipped); then generic tools whose role is
 * claimed or whose name is a claimed api_name are skipped. */
static enum verdict *decide(const rig_toolset *ts, const rig_export_opts *o)
{
    size_t n = rig_toolset_count(ts);
    enum verdict *v = calloc(n ? n : 1, sizeof *v);
    const char **roles = calloc(n ? n : 1, sizeof *roles);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!v || !roles || !names) {
        free(v);
        free(roles);
        free(names);
        return NULL;
    }
    size_t nroles = 0, nnames = 0;
    for (size_t i = 0; i < n; i++) {
        const rig_tool *t = rig_toolset_at(ts, i);
        v[i] = V_SKIP;
        if (t->flags & RIG_TOOL_HIDDEN)
            continue;
        const rig_native_spec *s = native_for(t, o);
        if (!s) {
            v[i] = V_GENERIC;
            continue;
        }
        /* A claimed role, or an api_name already taken (tool names must be
         * unique in a request): the earlier native wins. */
        if ((s->role && in_list(roles, nroles, s->role)) || in_list(names, nnames, s->api_name))
            continue;
        if (s->role)
            roles[nroles++] = s->role;
        names[nnames++] = s->api_name;
        v[i] = V_NATIVE;
    }
    for (size_t i = 0; i < n; i++) {
        const rig_tool *t = rig_toolset_at(ts, i);
        if (v[i] != V_GENERIC)
            continue;
        const char *role = rig_tool_role(t);
        if ((role && in_list(roles, nroles, role)) || in_list(names, nnames, t->name))
            v[i] = V_SKIP;
    }
    free(roles);
    free(names);
    return v;
}

bool rig_toolset_exports_tool(const rig_toolset *ts, const rig_export_opts *opts,
                              const rig_tool *t, bool *native)
{
    if (native)
        *native = false;
    if (!ts || !opts || !t)
        return false;
    rig__toolset_read_lock(ts);
    enum verdict *v = decide(ts, opts);
    bool out = false;
    for (size_t i = 0; v && i < rig_toolset_count(ts); i++)
        if (rig_toolset_at(ts, i) == t) {
            out = v[i] != V_SKIP;
            if (native)
                *native = v[i] == V_NATIVE;
        }
    rig__toolset_read_unlock(ts);
    free(v);
    return out;
}

/* ---- schemas ---------------------------------------------------------- */

/* The optional security_risk and summary properties, each unless the
 * tool's schema `root` owns that name. */
static void write_risk_props(rig_json_writer *w, rig_json_val root)
{
    if (!rig__schema_owns(root, "security_risk")) {
        rig_json_write_key(w, "security_risk");
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "type");
        rig_json_write_string(w, "string");
        rig_json_write_key(w, "enum");
        rig_json_write_array_begin(w);
        rig_json_write_string(w, "UNKNOWN");
        rig_json_write_string(w, "LOW");
        rig_json_write_string(w, "MEDIUM");
        rig_json_write_string(w, "HIGH");
        rig_json_write_array_end(w);
        rig_json_write_key(w, "default");
        rig_json_write_string(w, "UNKNOWN");
        rig_json_write_key(w, "description");
        rig_json_write_string(w, "Your estimate of this call's risk: LOW for actions that are "
                                 "safe and easy to undo, MEDIUM for ones that change state, HIGH "
                                 "for ones that could lose data or reach outside the task.");
        rig_json_write_object_end(w);
    }
    if (!rig__schema_owns(root, "summary")) {
        rig_json_write_key(w, "summary");
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "type");
        rig_json_write_string(w, "string");
        rig_json_write_key(w, "description");
        rig_json_write_string(w, "A short summary of what this call does, for the person "
                                 "watching.");
        rig_json_write_object_end(w);
    }
}

/* An input or output schema as a provider wants it: always an object
 * schema that says "type":"object" (rig accepts a schema without "type" or
 * the schema `true`; MCP, OpenAI and Anthropic all require the type), and,
 * when `risk`, with security_risk and summary listed first in "properties"
 * (never required: requiring them broke weaker models). A schema that needs
 * neither change is copied as it is. */
static void write_object_schema(rig_json_writer *w, rig_json_val root, bool risk)
{
    bool obj = rig_json_typeof(root) == RIG_JSON_OBJECT;
    bool typed = obj && rig_json_exists(rig_json_get(root, "type"));
    if (typed && !risk) {
        rig_json_write_value(w, root);
        return;
    }
    rig_json_write_object_begin(w);
    if (!typed) {
        rig_json_write_key(w, "type");
        rig_json_write_string(w, "object");
    }
    bool had_props = false;
    rig_json_iter it = rig_json_iter_init(obj ? root : (rig_json_val){0});
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        rig_json_write_keyv(w, k);
        if (!risk || !rig_json_str_eq(k, "properties") || rig_json_typeof(v) != RIG_JSON_OBJECT) {
            rig_json_write_value(w, v);
            continue;
        }
        had_props = true;
        rig_json_write_object_begin(w);
        write_risk_props(w, root);
        rig_json_iter pit = rig_json_iter_init(v);
        rig_json_val pk, pv;
        while (rig_json_iter_member(&pit, &pk, &pv)) {
            rig_json_write_keyv(w, pk);
            rig_json_write_value(w, pv);
        }
        rig_json_write_object_end(w);
    }
    if (risk && !had_props) {
        rig_json_write_key(w, "properties");
        rig_json_write_object_begin(w);
        write_risk_props(w, root);
        rig_json_write_object_end(w);
    }
    rig_json_write_object_end(w);
}

static void write_input_schema(rig_json_writer *w, const rig_tool *t, bool risk)
{
    write_object_schema(w, rig_schema_root(t->input), risk);
}

/* ---- Gemini: JSON Schema → the OpenAPI 3.0 subset it accepts ----------- */

#define GEMINI_REF_DEPTH 16

static void gemini_schema(rig_json_writer *w, rig_json_val s, rig_json_val root, int depth);

/* The keywords Gemini shares with JSON Schema, copied when their value has
 * the type Gemini expects (rig ignores unknown and annotation keywords, so
 * a schema may carry "description": 5 or "nullable": "yes"; Gemini would
 * refuse the whole request). */
enum gemini_kind { G_ANY, G_STRING, G_NUMBER, G_BOOL, G_COUNT, G_NAMES };
static const struct {
    const char *key;
    enum gemini_kind kind;
} gemini_copied[] = {
    {"title", G_STRING},      {"description", G_STRING},   {"default", G_ANY},
    {"minimum", G_NUMBER},    {"maximum", G_NUMBER},       {"minLength", G_COUNT},
    {"maxLength", G_COUNT},   {"pattern", G_STRING},       {"minItems", G_COUNT},
    {"maxItems", G_COUNT},    {"minProperties", G_COUNT},  {"maxProperties", G_COUNT},
    {"required", G_NAMES},    {"nullable", G_BOOL}};

/* An array of strings only (an empty one too). */
static bool all_strings_in(rig_json_val arr)
{
    if (!rig_json_is_array(arr))
        return false;
    rig_json_iter it = rig_json_iter_init(arr);
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        if (!rig_json_is_string(e))
            return false;
    return true;
}

static void upper_type(rig_json_writer *w, rig_json_val name)
{
    char buf[16];
    size_t n = 0;
    if (rig_json_str_copy(name, buf, sizeof buf, &n) != 0)
        n = 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)toupper((unsigned char)buf[i]);
    rig_json_write_stringn(w, n ? buf : "STRING", n ? n : 6);
}

static rig_json_val deref(rig_json_val s, rig_json_val root, int *depth)
{
    for (;;) {
        rig_json_val ref = rig_json_get(s, "$ref");
        if (rig_json_typeof(ref) != RIG_JSON_STRING || ++*depth > GEMINI_REF_DEPTH)
            return s;
        char buf[512];
        if (rig_json_str_copy(ref, buf, sizeof buf, NULL) != 0 || buf[0] != '#')
            return (rig_json_val){0};
        s = rig_json_pointer(root, buf + 1);
    }
}

static void gemini_props(rig_json_writer *w, rig_json_val props, rig_json_val root, int depth)
{
    rig_json_write_object_begin(w);
    rig_json_iter it = rig_json_iter_init(props);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        rig_json_write_keyv(w, k);
        gemini_schema(w, v, root, depth + 1);
    }
    rig_json_write_object_end(w);
}

static void gemini_schema(rig_json_writer *w, rig_json_val s, rig_json_val root, int depth)
{
    s = deref(s, root, &depth);
    if (depth > GEMINI_REF_DEPTH || rig_json_typeof(s) != RIG_JSON_OBJECT) {
        /* Recursion Gemini cannot express, or `true`: any object will do. */
        rig_json_write_raw(w, "{\"type\":\"OBJECT\"}", 17);
        return;
    }
    rig_json_write_object_begin(w);
    /* oneOf has no Gemini form; anyOf is the closest (it accepts more). */
    rig_json_val any = rig_json_get(s, "anyOf");
    if (rig_json_typeof(any) != RIG_JSON_ARRAY)
        any = rig_json_get(s, "oneOf");
    bool combined = rig_json_typeof(any) == RIG_JSON_ARRAY;
    bool nullable = false;
    /* Gemini's enum is for strings: allowed when the type is STRING or
     * left open. */
    bool stringy = true, typed = false;
    rig_json_val one = {0}; /* the type written, if one was */
    rig_json_val type = rig_json_get(s, "type");
    if (rig_json_typeof(type) == RIG_JSON_STRING) {
        rig_json_write_key(w, "type");
        upper_type(w, type);
        typed = true;
        one = type;
        stringy = rig_json_str_eq(type, "string");
    } else if (rig_json_typeof(type) == RIG_JSON_ARRAY) {
        /* ["string","null"] → type STRING, nullable; several real types → anyOf. */
        size_t real = 0;
        rig_json_val first = {0};
        rig_json_iter it = rig_json_iter_init(type);
        rig_json_val e;
        while (rig_json_iter_next(&it, &e)) {
            if (rig_json_str_eq(e, "null")) {
                nullable = true;
            } else if (real++ == 0) {
                first = e;
            }
        }
        stringy = real == 0 || (real == 1 && rig_json_str_eq(first, "string"));
        if (real == 1) {
            rig_json_write_key(w, "type");
            upper_type(w, first);
            typed = true;
            one = first;
        } else if (real > 1 && !combined) {
            /* (With an anyOf/oneOf too, its branches, written below, say
             * more than the list of types; one "anyOf" key is all we may
             * write.) */
            rig_json_write_key(w, "anyOf");
            rig_json_write_array_begin(w);
            it = rig_json_iter_init(type);
            while (rig_json_iter_next(&it, &e)) {
                if (rig_json_str_eq(e, "null"))
                    continue;
                rig_json_write_object_begin(w);
                rig_json_write_key(w, "type");
                upper_type(w, e);
                rig_json_write_object_end(w);
            }
            rig_json_write_array_end(w);
        }
        if (nullable) {
            rig_json_write_key(w, "nullable");
            rig_json_write_bool(w, true);
        }
    }
    for (size_t i = 0; i < sizeof gemini_copied / sizeof *gemini_copied; i++) {
        const char *key = gemini_copied[i].key;
        rig_json_val v = rig_json_get(s, key);
        int64_t count;
        switch (gemini_copied[i].kind) {
        case G_ANY:
            if (!rig_json_exists(v))
                continue;
            break;
        case G_STRING:
            if (!rig_json_is_string(v))
                continue;
            break;
        case G_NUMBER:
            if (!rig_json_is_number(v))
                continue;
            break;
        case G_BOOL:
            if (rig_json_typeof(v) != RIG_JSON_BOOL || nullable)
                continue; /* nullable: written from the type list already */
            break;
        case G_COUNT:
            /* Written as an integer: "2.0" is a JSON Schema count, but
             * Gemini reads these as int64. */
            if (rig_json_get_int64(v, &count) != 0 || count < 0)
                continue;
            rig_json_write_key(w, key);
            rig_json_write_int(w, count);
            continue;
        case G_NAMES:
            if (!all_strings_in(v))
                continue;
            break;
        }
        rig_json_write_key(w, key);
        rig_json_write_value(w, v);
    }
    /* Gemini knows enum only for strings; const is a one-value enum. */
    rig_json_val en = rig_json_get(s, "enum"), cst = rig_json_get(s, "const");
    bool all_strings = all_strings_in(en);
    if (stringy && (all_strings || rig_json_typeof(cst) == RIG_JSON_STRING)) {
        if (!typed) {
            rig_json_write_key(w, "type");
            rig_json_write_string(w, "STRING");
        }
        rig_json_write_key(w, "format");
        rig_json_write_string(w, "enum");
        rig_json_write_key(w, "enum");
        if (all_strings) {
            rig_json_write_value(w, en);
        } else {
            rig_json_write_array_begin(w);
            rig_json_write_value(w, cst);
            rig_json_write_array_end(w);
        }
    } else {
        /* The formats Gemini knows, each for its own type. */
        static const struct {
            const char *format, *type;
        } formats[] = {{"date-time", "string"}, {"int32", "integer"}, {"int64", "integer"},
                       {"float", "number"},     {"double", "number"}};
        rig_json_val fmt = rig_json_get(s, "format");
        for (size_t i = 0; typed && i < sizeof formats / sizeof *formats; i++)
            if (rig_json_str_eq(fmt, formats[i].format) && rig_json_str_eq(one, formats[i].type)) {
                rig_json_write_key(w, "format");
                rig_json_write_string(w, formats[i].format);
            }
    }
    rig_json_val props = rig_json_get(s, "properties");
    if (rig_json_typeof(props) == RIG_JSON_OBJECT) {
        rig_json_write_key(w, "properties");
        gemini_props(w, props, root, depth);
    }
    rig_json_val items = rig_json_get(s, "items");
    if (rig_json_typeof(items) == RIG_JSON_OBJECT) {
        rig_json_write_key(w, "items");
        gemini_schema(w, items, root, depth + 1);
    }
    if (combined) {
        rig_json_write_key(w, "anyOf");
        rig_json_write_array_begin(w);
        rig_json_iter it = rig_json_iter_init(any);
        rig_json_val e;
        while (rig_json_iter_next(&it, &e))
            gemini_schema(w, e, root, depth + 1);
        rig_json_write_array_end(w);
    }
    rig_json_write_object_end(w);
}

/* ---- entries ---------------------------------------------------------- */

static void write_str_member(rig_json_writer *w, const char *key, const char *val)
{
    rig_json_write_key(w, key);
    rig_json_write_string(w, val ? val : "");
}

static void write_annotations(rig_json_writer *w, const rig_tool *t)
{
    const rig_annotations *a = &t->ann;
    if (!a->read_only && !a->destructive && !a->idempotent && !a->open_world && !t->title)
        return;
    rig_json_write_key(w, "annotations");
    rig_json_write_object_begin(w);
    if (t->title)
        write_str_member(w, "title", t->title);
    const struct {
        const char *key;
        rig_hint h;
    } hints[] = {{"readOnlyHint", a->read_only},
                 {"destructiveHint", a->destructive},
                 {"idempotentHint", a->idempotent},
                 {"openWorldHint", a->open_world}};
    for (size_t i = 0; i < 4; i++)
        if (hints[i].h != RIG_HINT_UNSET) {
            rig_json_write_key(w, hints[i].key);
            rig_json_write_bool(w, hints[i].h == RIG_HINT_TRUE);
        }
    rig_json_write_object_end(w);
}

static void write_generic(rig_json_writer *w, const rig_tool *t, const rig_export_opts *o)
{
    bool risk = o->security_risk && !rig_tool_read_only(t);
    rig_json_write_object_begin(w);
    switch (o->format) {
    case RIG_FORMAT_MCP:
        write_str_member(w, "name", t->name);
        if (t->title)
            write_str_member(w, "title", t->title);
        write_str_member(w, "description", t->description);
        rig_json_write_key(w, "inputSchema");
        write_input_schema(w, t, risk);
        if (t->output) {
            rig_json_write_key(w, "outputSchema");
            write_object_schema(w, rig_schema_root(t->output), false);
        }
        write_annotations(w, t);
        if (t->meta) {
            /* Re-written rather than pasted, so it takes the writer's
             * layout (compact or pretty) like everything around it. */
            rig_json_doc *meta = rig_json_parse(t->meta, t->meta_len, NULL, NULL);
            rig_json_write_key(w, "_meta");
            if (meta)
                rig_json_write_value(w, rig_json_doc_root(meta));
            else
                rig_json_write_raw(w, t->meta, t->meta_len);
            rig_json_doc_free(meta);
        }
        break;
    case RIG_FORMAT_OPENAI:
        write_str_member(w, "type", "function");
        rig_json_write_key(w, "function");
        rig_json_write_object_begin(w);
        write_str_member(w, "name", t->name);
        write_str_member(w, "description", t->description);
        rig_json_write_key(w, "parameters");
        write_input_schema(w, t, risk);
        rig_json_write_object_end(w);
        break;
    case RIG_FORMAT_RESPONSES:
        write_str_member(w, "type", "function");
        write_str_member(w, "name", t->name);
        write_str_member(w, "description", t->description);
        rig_json_write_key(w, "parameters");
        write_input_schema(w, t, risk);
        rig_json_write_key(w, "strict");
        rig_json_write_bool(w, false);
        break;
    case RIG_FORMAT_ANTHROPIC:
        write_str_member(w, "name", t->name);
        write_str_member(w, "description", t->description);
        rig_json_write_key(w, "input_schema");
        write_input_schema(w, t, risk);
        break;
    case RIG_FORMAT_GEMINI: {
        write_str_member(w, "name", t->name);
        write_str_member(w, "description", t->description);
        /* Gemini wants no "parameters" at all for a tool without any. */
        rig_json_writer tmp;
        rig_json_writer_init(&tmp, 0);
        write_input_schema(&tmp, t, risk);
        size_t len = 0;
        const char *json = rig_json_writer_finish(&tmp, &len);
        rig_json_doc *doc = json ? rig_json_parse(json, len, NULL, NULL) : NULL;
        rig_json_val root = rig_json_doc_root(doc);
        if (rig_json_len(rig_json_get(root, "properties")) > 0) {
            rig_json_write_key(w, "parameters");
            gemini_schema(w, root, root, 0);
        }
        rig_json_doc_free(doc);
        rig_json_writer_free(&tmp);
        break;
    }
    }
    rig_json_write_object_end(w);
}

/* Members of a native spec's extra_json, copied into the entry. */
static void write_extra(rig_json_writer *w, const rig_native_spec *s)
{
    if (!s->extra_json)
        return;
    rig_json_doc *doc = rig_json_parse(s->extra_json, strlen(s->extra_json), NULL, NULL);
    rig_json_iter it = rig_json_iter_init(rig_json_doc_root(doc));
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        if (rig_json_str_eq(k, "type") || rig_json_str_eq(k, "name"))
            continue;
        rig_json_write_keyv(w, k);
        rig_json_write_value(w, v);
    }
    rig_json_doc_free(doc);
}

/* "computer_use" → "computerUse": Gemini's tool object keys. */
static void write_camel_key(rig_json_writer *w, const char *snake)
{
    char buf[128];
    size_t n = 0;
    for (const char *p = snake; *p && n < sizeof buf - 1; p++) {
        if (*p == '_' && p[1]) {
            buf[n++] = (char)toupper((unsigned char)*++p);
        } else {
            buf[n++] = *p;
        }
    }
    rig_json_write_keyn(w, buf, n);
}

static void write_native(rig_json_writer *w, const rig_native_spec *s, rig_format f)
{
    rig_json_write_object_begin(w);
    if (f == RIG_FORMAT_GEMINI) {
        write_camel_key(w, s->api_type);
        rig_json_write_object_begin(w);
        write_extra(w, s);
        rig_json_write_object_end(w);
    } else {
        write_str_member(w, "type", s->api_type);
        if (f == RIG_FORMAT_ANTHROPIC)
            write_str_member(w, "name", s->api_name);
        write_extra(w, s);
    }
    rig_json_write_object_end(w);
}

static int export_tools(const rig_toolset *ts, const rig_export_opts *opts, rig_json_writer *w,
                        rig_error *err)
{
    enum verdict *v = decide(ts, opts);
    if (!v)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    size_t n = rig_toolset_count(ts);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "tools");
    rig_json_write_array_begin(w);
    /* Gemini groups the functions in one tool object; with none, there is
     * no such object (an empty one is an error there). */
    bool gemini = false;
    for (size_t i = 0; opts->format == RIG_FORMAT_GEMINI && !gemini && i < n; i++)
        gemini = v[i] == V_GENERIC;
    if (gemini) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "functionDeclarations");
        rig_json_write_array_begin(w);
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] == V_GENERIC)
            write_generic(w, rig_toolset_at(ts, i), opts);
    if (gemini) {
        rig_json_write_array_end(w);
        rig_json_write_object_end(w);
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] == V_NATIVE)
            write_native(w, native_for(rig_toolset_at(ts, i), opts), opts->format);
    rig_json_write_array_end(w);
    if (opts->format == RIG_FORMAT_ANTHROPIC) {
        rig_json_write_key(w, "betas");
        rig_json_write_array_begin(w);
        const char **seen = calloc(n ? n : 1, sizeof *seen);
        size_t nseen = 0;
        for (size_t i = 0; seen && i < n; i++) {
            if (v[i] != V_NATIVE)
                continue;
            const char *b = native_for(rig_toolset_at(ts, i), opts)->beta;
            if (b && !in_list(seen, nseen, b)) {
                seen[nseen++] = b;
                rig_json_write_string(w, b);
            }
        }
        free(seen);
        rig_json_write_array_end(w);
    }
    rig_json_write_object_end(w);
    free(v);
    return rig_json_writer_error(w) ? rig_error_set(err, RIG_ENOMEM, "Out of memory.") : RIG_OK;
}

int rig_toolset_export(const rig_toolset *ts, const rig_export_opts *opts, rig_json_writer *w,
                       rig_error *err)
{
    if (!ts || !opts || !w)
        return rig_error_set(err, RIG_EINVAL, "No toolset, options or writer were given.");
    if ((unsigned)opts->format > RIG_FORMAT_GEMINI)
        return rig_error_set(err, RIG_EINVAL, "Unknown export format %d.", (int)opts->format);
    /* A tool added or removed meanwhile must not move the table under us. */
    rig__toolset_read_lock(ts);
    int rc = export_tools(ts, opts, w, err);
    rig__toolset_read_unlock(ts);
    return rc;
}
