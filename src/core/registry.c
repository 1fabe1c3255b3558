/* registry.c — tools by name (OpenHands' tool registry): factories that
 * turn params into tools, fixed instances, and presets naming lists of
 * entries. Resolving is all or nothing: the tools are built in a scratch
 * toolset and moved into the target only when every one of them fits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

enum kind { K_FACTORY, K_INSTANCE, K_PRESET };

struct entry {
    char *name;
    char *description;
    enum kind kind;
    rig_factory_fn fn;
    void *ud;
    rig_tool *tool;     /* K_INSTANCE */
    char **names;       /* K_PRESET, NULL-ended */
};

struct rig_registry {
    struct entry *v;
    size_t n, cap;
};

rig_registry *rig_registry_new(void)
{
    return calloc(1, sizeof(rig_registry));
}

static void entry_free(struct entry *e)
{
    free(e->name);
    free(e->description);
    rig_tool_free(e->tool);
    for (char **p = e->names; p && *p; p++)
        free(*p);
    free(e->names);
}

void rig_registry_free(rig_registry *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->n; i++)
        entry_free(&reg->v[i]);
    free(reg->v);
    free(reg);
}

static const struct entry *find(const rig_registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->n; i++)
        if (strcmp(reg->v[i].name, name) == 0)
            return &reg->v[i];
    return NULL;
}

/* Check the name and make room; the new entry is reg->v[reg->n]. */
static int add_entry(rig_registry *reg, const char *name, const char *description,
                     rig_error *err)
{
    if (!reg)
        return rig_error_set(err, RIG_EINVAL, "No registry was given.");
    if (!name || !*name)
        return rig_error_set(err, RIG_EINVAL, "A registry entry needs a non-empty name.");
    if (find(reg, name))
        return rig_error_set(err, RIG_EEXIST, "'%s' is already registered.", name);
    if (reg->n == reg->cap) {
        size_t ncap = reg->cap ? reg->cap * 2 : 16;
        struct entry *nv = realloc(reg->v, ncap * sizeof *nv);
        if (!nv)
            return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        reg->v = nv;
        reg->cap = ncap;
    }
    struct entry *e = &reg->v[reg->n];
    memset(e, 0, sizeof *e);
    e->name = strdup(name);
    e->description = strdup(description ? description : "");
    if (!e->name || !e->description) {
        free(e->name);
        free(e->description);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    return RIG_OK;
}

int rig_registry_add_factory(rig_registry *reg, const char *name, rig_factory_fn fn, void *ud,
                             const char *description, rig_error *err)
{
    if (!fn)
        return rig_error_set(err, RIG_EINVAL, "Factory '%s' has no function.", name ? name : "");
    int rc = add_entry(reg, name, description, err);
    if (rc != RIG_OK)
        return rc;
    struct entry *e = &reg->v[reg->n++];
    e->kind = K_FACTORY;
    e->fn = fn;
    e->ud = ud;
    return RIG_OK;
}

int rig_registry_add_instance(rig_registry *reg, const char *name, rig_tool *tool,
                              rig_error *err)
{
    if (!tool)
        return rig_error_set(err, RIG_EINVAL, "No tool was given for '%s'.", name ? name : "");
    int rc = add_entry(reg, name, tool->description, err);
    if (rc != RIG_OK)
        return rc;
    struct entry *e = &reg->v[reg->n++];
    e->kind = K_INSTANCE;
    e->tool = tool;
    return RIG_OK;
}

int rig_registry_add_preset(rig_registry *reg, const char *name, const char *const *names,
                            const char *description, rig_error *err)
{
    if (!names || !names[0])
        return rig_error_set(err, RIG_EINVAL, "Preset '%s' names no entries.", name ? name : "");
    size_t k = 0;
    while (names[k])
        k++;
    int rc = add_entry(reg, name, description, err);
    if (rc != RIG_OK)
        return rc;
    struct entry *e = &reg->v[reg->n];
    e->names = calloc(k + 1, sizeof *e->names);
    bool oom = !e->names;
    for (size_t i = 0; !oom && i < k; i++)
        oom = !(e->names[i] = strdup(names[i]));
    if (oom) {
        entry_free(e);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    e->kind = K_PRESET;
    reg->n++;
    return RIG_OK;
}

size_t rig_registry_count(const rig_registry *reg)
{
    return reg ? reg->n : 0;
}

const char *rig_registry_name(const rig_registry *reg, size_t i)
{
    return reg && i < reg->n ? reg->v[i].name : NULL;
}

const char *rig_registry_description(const rig_registry *reg, size_t i)
{
    return reg && i < reg->n ? reg->v[i].description : NULL;
}

static int not_found(const rig_registry *reg, const char *name, rig_error *err)
{
    char list[RIG_ERROR_MESSAGE_MAX - 64];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < reg->n; i++) {
        size_t need = strlen(reg->v[i].name) + 2;
        if (used + need + 8 >= sizeof list) {
            snprintf(list + used, sizeof list - used, ", ...");
            break;
        }
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 reg->v[i].name);
    }
    return rig_error_set(err, RIG_ENOENT, "Tool '%.64s' not found. Available: [%s]", name, list);
}

static bool params_empty(rig_json_val params)
{
    return rig_json_typeof(params) == RIG_JSON_MISSING || rig_json_len(params) == 0;
}

/* Resolve `name` into `into` (a scratch toolset); presets recurse, with a
 * depth bound so a preset naming itself cannot loop. */
static int resolve(const rig_registry *reg, const char *name, rig_json_val params,
                   rig_toolset *into, int depth, rig_error *err)
{
    if (depth > 16)
        return rig_error_set(err, RIG_EINVAL, "Preset '%s' nests too deeply (a cycle?).", name);
    const struct entry *e = find(reg, name);
    if (!e)
        return not_found(reg, name, err);
    switch (e->kind) {
    case K_FACTORY: {
        rig_error ferr;
        rig_error_clear(&ferr);
        int rc = e->fn(into, params, e->ud, &ferr);
        if (rc != RIG_OK)
            return rig_error_set(err, rc, "%s",
                                 ferr.message[0] ? ferr.message : rig_strerror(rc));
        return RIG_OK;
    }
    case K_INSTANCE: {
        if (!params_empty(params))
            return rig_error_set(err, RIG_EPARAMS, "'%s' is a fixed tool instance and takes no "
                                 "params; resolve it without params.", name);
        return rig__toolset_adopt(into, rig__tool_clone(e->tool, err), err);
    }
    case K_PRESET:
        if (!params_empty(params))
            return rig_error_set(err, RIG_EPARAMS, "'%s' is a preset and takes no params; "
                                 "resolve its tools one by one to give them params.", name);
        for (char **p = e->names; *p; p++) {
            int rc = resolve(reg, *p, (rig_json_val){0}, into, depth + 1, err);
            if (rc != RIG_OK)
                return rc;
        }
        return RIG_OK;
    }
    return RIG_EINVAL;
}

int rig_registry_resolve(const rig_registry *reg, const char *name, const char *params,
                         size_t len, rig_toolset *into, rig_error *err)
{
    if (!reg || !into)
        return rig_error_set(err, RIG_EINVAL, "No registry or toolset was given.");
    if (!name || !*name)
        return rig_error_set(err, RIG_EINVAL, "A tool name must not be empty.");
    rig_json_doc *doc = NULL;
    rig_json_val pv = {0};
    if (params && len) {
        rig_json_error jerr;
        doc = rig_json_parse(params, len, NULL, &jerr);
        if (!doc || rig_json_typeof(rig_json_doc_root(doc)) != RIG_JSON_OBJECT) {
            rig_json_doc_free(doc);
            return rig_error_set(err, RIG_EJSON, "Params for '%s' must be a JSON object.", name);
        }
        pv = rig_json_doc_root(doc);
    }
    rig_toolset *scratch = rig_toolset_new();
    if (!scratch) {
        rig_json_doc_free(doc);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    int rc = resolve(reg, name, pv, scratch, 0, err);
    rig_json_doc_free(doc);
    /* All or nothing: check every name before moving any tool. */
    for (size_t i = 0; rc == RIG_OK && i < rig_toolset_count(scratch); i++) {
        const char *tn = rig_toolset_at(scratch, i)->name;
        if (rig_toolset_get(into, tn))
            rc = rig_error_set(err, RIG_EEXIST, "A tool named '%s' is already in the toolset.",
                               tn);
    }
    /* Another thread may still take a name (or memory run out) while the
     * tools move; then the ones already moved go back out. */
    size_t total = rig_toolset_count(scratch), moved = 0;
    rig_tool **done = rc == RIG_OK ? calloc(total ? total : 1, sizeof *done) : NULL;
    if (rc == RIG_OK && !done)
        rc = rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    while (rc == RIG_OK && rig_toolset_count(scratch)) {
        rig_tool *t = rig_toolset_at(scratch, 0);
        rig__tool_ref(t); /* the one `into` takes over */
        rig__tool_ref(t); /* ours, so a rollback finds it alive */
        rig_toolset_remove(scratch, t->name);
        if ((rc = rig_toolset_add(into, t, err)) != RIG_OK) {
            rig__tool_unref(t);
            rig__tool_unref(t);
            break;
        }
        done[moved++] = t;
    }
    for (size_t i = 0; i < moved; i++) {
        if (rc != RIG_OK && rig_toolset_get(into, done[i]->name) == done[i])
            rig_toolset_remove(into, done[i]->name);
        rig__tool_unref(done[i]);
    }
    free(done);
    rig_toolset_free(scratch);
    return rc;
}
