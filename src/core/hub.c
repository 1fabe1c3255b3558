/* hub.c — many tools behind one dispatcher tool (HUD's BaseHub).
 *
 * The hub is an ordinary rig_tool whose executor looks up the inner tool
 * named in its "name" argument and runs it as a child call: the inner
 * tool's own schema, coercion, defaults and hooks apply, and it shares the
 * outer call's session, deadline and cancellation. The dispatcher's schema
 * is rebuilt on every add so that "name" is always the enum of the tools
 * it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

struct rig_hub {
    char *base_description;
    rig_tool **inner;
    size_t n, cap;
};

static rig_tool *find(const struct rig_hub *h, const char *name, size_t len)
{
    for (size_t i = 0; i < h->n; i++)
        if (strlen(h->inner[i]->name) == len && memcmp(h->inner[i]->name, name, len) == 0)
            return h->inner[i];
    return NULL;
}

static rig_result *dispatch(rig_call *call)
{
    const struct rig_hub *h = call->tool->hub;
    rig_json_val args = rig_call_args(call);
    size_t nlen = 0;
    const char *name = rig_call_str(call, "name", &nlen);
    if (!name)
        return rig_result_error("Hub '%s' needs a \"name\": one of its tools.", call->tool->name);
    rig_tool *inner = find(h, name, nlen);
    if (!inner) /* the enum makes this unreachable unless the hub changed */
        return rig_result_error("Hub '%s' has no tool '%.64s'.", call->tool->name, name);
    rig_json_val a = rig_json_get(args, "arguments");
    size_t alen = 0;
    const char *text = rig_json_typeof(a) == RIG_JSON_MISSING ? "{}" : rig_json_raw(a, &alen);
    if (rig_json_typeof(a) == RIG_JSON_MISSING)
        alen = 2;
    rig_result *fail = NULL;
    rig_error err;
    rig_error_clear(&err);
    struct rig_call *child = rig__call_new(inner, call->ts, call, text, alen, NULL, false, &fail,
                                           &err);
    if (!child)
        return fail;
    rig_result *res = rig__call_run(child, &err);
    rig__call_free(child);
    return res;
}

/* The dispatcher's input schema: "name" is the enum of the inner tools. */
static int rebuild(rig_tool *hub, rig_error *err)
{
    const struct rig_hub *h = hub->hub;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "type");
    rig_json_write_string(&w, "object");
    rig_json_write_key(&w, "properties");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "name");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "type");
    rig_json_write_string(&w, "string");
    rig_json_write_key(&w, "description");
    rig_json_write_string(&w, "The tool to run.");
    rig_json_write_key(&w, "enum");
    rig_json_write_array_begin(&w);
    for (size_t i = 0; i < h->n; i++)
        rig_json_write_string(&w, h->inner[i]->name);
    rig_json_write_array_end(&w);
    rig_json_write_object_end(&w);
    rig_json_write_key(&w, "arguments");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "type");
    rig_json_write_string(&w, "object");
    rig_json_write_key(&w, "description");
    rig_json_write_string(&w, "The arguments for that tool, as its schema in the hub's "
                              "catalog describes.");
    rig_json_write_object_end(&w);
    rig_json_write_object_end(&w);
    rig_json_write_key(&w, "required");
    rig_json_write_array_begin(&w);
    rig_json_write_string(&w, "name");
    rig_json_write_array_end(&w);
    rig_json_write_key(&w, "additionalProperties");
    rig_json_write_bool(&w, false);
    rig_json_write_object_end(&w);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w, &len);
    int rc = json ? rig_tool_set_input_schema(hub, json, len, err)
                  : rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    rig_json_writer_free(&w);
    if (rc != RIG_OK)
        return rc;

    /* The description lists the tools, so a model can choose without the
     * catalog: "<base> Tools: a — first line of a's description; b ...". */
    size_t cap = strlen(h->base_description) + 16;
    for (size_t i = 0; i < h->n; i++)
        cap += strlen(h->inner[i]->name) + strlen(h->inner[i]->description) + 8;
    char *desc = malloc(cap);
    if (!desc)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    size_t used = (size_t)snprintf(desc, cap, "%s%sTools:", h->base_description,
                                   *h->base_description ? " " : "");
    for (size_t i = 0; i < h->n; i++) {
        const char *dd = h->inner[i]->description;
        size_t line = strcspn(dd, "\n");
        used += (size_t)snprintf(desc + used, cap - used, "%s %s%s%.*s", i ? ";" : "",
                                 h->inner[i]->name, line ? " - " : "", (int)line, dd);
    }
    rc = rig_tool_set_description(hub, desc);
    free(desc);
    return rc == RIG_OK ? RIG_OK : rig_error_set(err, rc, "Out of memory.");
}

rig_tool *rig_hub_new(const char *name, const char *description, rig_error *err)
{
    rig_tool *t = rig_tool_new(name, err);
    if (!t)
        return NULL;
    t->hub = calloc(1, sizeof *t->hub);
    if (!t->hub || !(t->hub->base_description = strdup(description ? description : ""))) {
        rig_tool_free(t);
        rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        return NULL;
    }
    rig_tool_set_executor(t, dispatch, NULL, NULL);
    if (rebuild(t, err) != RIG_OK) {
        rig_tool_free(t);
        return NULL;
    }
    return t;
}

bool rig_tool_is_hub(const rig_tool *t)
{
    return t && t->hub;
}

int rig_hub_add(rig_tool *hub, rig_tool *inner, rig_error *err)
{
    if (!rig_tool_is_hub(hub) || !inner || inner == hub)
        return rig_error_set(err, RIG_EINVAL, "rig_hub_add needs a hub and another tool.");
    if (inner->owner || inner->in_hub)
        return rig_error_set(err, RIG_EINVAL, "Tool '%s' already belongs to a %s.", inner->name,
                             inner->owner ? "toolset" : "hub");
    /* Calls read the dispatcher's schema without a lock, so a hub is
     * filled before it is served. */
    if (hub->owner)
        return rig_error_set(err, RIG_ESTATE, "Hub '%s' is already in a toolset; add its tools "
                             "before adding the hub.", hub->name);
    struct rig_hub *h = hub->hub;
    if (find(h, inner->name, strlen(inner->name)))
        return rig_error_set(err, RIG_EEXIST, "Hub '%s' already has a tool named '%s'.",
                             hub->name, inner->name);
    if (h->n == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 8;
        rig_tool **ni = realloc(h->inner, ncap * sizeof *ni);
        if (!ni)
            return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        h->inner = ni;
        h->cap = ncap;
    }
    h->inner[h->n++] = inner;
    int rc = rebuild(hub, err);
    if (rc != RIG_OK)
        h->n--;
    else {
        inner->flags |= RIG_TOOL_HIDDEN;
        inner->in_hub = hub;
    }
    return rc;
}

size_t rig_hub_count(const rig_tool *hub)
{
    return rig_tool_is_hub(hub) ? hub->hub->n : 0;
}

rig_tool *rig_hub_at(const rig_tool *hub, size_t i)
{
    return rig_tool_is_hub(hub) && i < hub->hub->n ? hub->hub->inner[i] : NULL;
}

int rig_hub_catalog(const rig_tool *hub, rig_json_writer *w)
{
    if (!rig_tool_is_hub(hub) || !w)
        return RIG_EINVAL;
    const struct rig_hub *h = hub->hub;
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "hub");
    rig_json_write_string(w, hub->name);
    rig_json_write_key(w, "description");
    rig_json_write_string(w, h->base_description);
    rig_json_write_key(w, "tools");
    rig_json_write_array_begin(w);
    for (size_t i = 0; i < h->n; i++) {
        const rig_tool *t = h->inner[i];
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "name");
        rig_json_write_string(w, t->name);
        rig_json_write_key(w, "description");
        rig_json_write_string(w, t->description);
        rig_json_write_key(w, "inputSchema");
        rig_json_write_value(w, rig_schema_root(t->input));
        rig_json_write_object_end(w);
    }
    rig_json_write_array_end(w);
    rig_json_write_object_end(w);
    return rig_json_writer_error(w) ? RIG_ENOMEM : RIG_OK;
}

void rig__hub_free(struct rig_hub *h)
{
    for (size_t i = 0; i < h->n; i++)
        rig__tool_unref(h->inner[i]);
    free(h->inner);
    free(h->base_description);
    free(h);
}

struct rig_hub *rig__hub_clone(const struct rig_hub *h, rig_error *err)
{
    struct rig_hub *c = calloc(1, sizeof *c);
    if (!c || !(c->base_description = strdup(h->base_description)) ||
        (h->n && !(c->inner = calloc(h->n, sizeof *c->inner)))) {
        if (c)
            rig__hub_free(c);
        rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        return NULL;
    }
    c->cap = h->n;
    for (size_t i = 0; i < h->n; i++) {
        if (!(c->inner[i] = rig__tool_clone(h->inner[i], err))) {
            rig__hub_free(c);
            return NULL;
        }
        c->n++;
    }
    return c;
}
