/* tool.c — a tool's definition: name rules, descriptions, schemas,
 * annotations, native provider specs, the executor and its shared state,
 * hooks and event listeners. The call path lives in call.c. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *dup_s(const char *s)
{
    return s ? dup_n(s, strlen(s)) : NULL;
}

bool rig_tool_name_valid(const char *name, rig_error *err)
{
    if (!name || !*name) {
        rig_error_set(err, RIG_EINVAL, "A tool name must not be empty.");
        return false;
    }
    size_t n = strlen(name);
    if (n > RIG_TOOL_NAME_MAX) {
        rig_error_set(err, RIG_EINVAL, "Tool name is %zu characters long; the limit is %d.", n,
                      RIG_TOOL_NAME_MAX);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
        if (!ok) {
            rig_error_set(err, RIG_EINVAL,
                          "Tool name has a character that is not allowed at position %zu; "
                          "use only letters, digits, '_', '-' and '.'.", i + 1);
            return false;
        }
    }
    return true;
}

static const char default_schema[] = "{\"type\":\"object\"}";

rig_tool *rig_tool_new(const char *name, rig_error *err)
{
    if (!rig_tool_name_valid(name, err))
        return NULL;
    rig_tool *t = calloc(1, sizeof *t);
    if (!t)
        goto oom;
    atomic_init(&t->refs, 1);
    t->name = dup_s(name);
    t->description = dup_s("");
    if (!t->name || !t->description)
        goto oom;
    if (rig_tool_set_input_schema(t, default_schema, sizeof default_schema - 1, err) != RIG_OK)
        goto fail;
    return t;
oom:
    rig_error_set(err, RIG_ENOMEM, "Out of memory creating tool '%s'.", name);
fail:
    rig_tool_free(t);
    return NULL;
}

static void state_unref(struct rig_state *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        if (s->close)
            s->close(s->data);
        free(s);
    }
}

static void native_clear(struct native *n)
{
    if (!n->set)
        return;
    free((char *)n->spec.api_type);
    free((char *)n->spec.api_name);
    free((char *)n->spec.beta);
    free((char *)n->spec.role);
    free((char *)n->spec.extra_json);
    for (char **m = n->models; m && *m; m++)
        free(*m);
    free(n->models);
    memset(n, 0, sizeof *n);
}

void rig_tool_free(rig_tool *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->title);
    free(t->description);
    rig_schema_free(t->input);
    free(t->input_text);
    rig_schema_free(t->output);
    free(t->output_text);
    free(t->meta);
    for (int i = 0; i < RIG_PROVIDER_COUNT; i++)
        native_clear(&t->natives[i]);
    state_unref(t->state);
    rig__hooks_free(&t->hooks);
    if (t->hub)
        rig__hub_free(t->hub);
    free(t);
}

void rig__tool_ref(rig_tool *t)
{
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

void rig__tool_unref(rig_tool *t)
{
    if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        rig_tool_free(t);
}

static int set_str(char **slot, const char *s)
{
    char *d = NULL;
    if (s && !(d = dup_s(s)))
        return RIG_ENOMEM;
    free(*slot);
    *slot = d;
    return RIG_OK;
}

int rig_tool_set_title(rig_tool *t, const char *title)
{
    return t ? set_str(&t->title, title) : RIG_EINVAL;
}

int rig_tool_set_description(rig_tool *t, const char *description)
{
    return t ? set_str(&t->description, description ? description : "") : RIG_EINVAL;
}

/* Compile `json` into *slot, keeping its text for copies of the tool. */
static int set_schema(rig_tool *t, rig_schema **slot, char **text, size_t *text_len,
                      const char *json, size_t len, bool input, rig_error *err)
{
    if (!t || !json)
        return rig_error_set(err, RIG_EINVAL, "No schema was given.");
    rig_error e;
    rig_schema *s = rig_schema_compile(json, len, &e);
    if (!s)
        return rig_error_set(err, e.code, "%s schema of tool '%s' is not usable: %s",
                             input ? "Input" : "Output", t->name, e.message);
    rig_json_val root = rig_schema_root(s);
    /* Arguments (and structuredContent) are always objects, so a schema
     * that says otherwise can never pass. */
    if (rig_json_typeof(root) == RIG_JSON_OBJECT) {
        rig_json_val type = rig_json_get(root, "type");
        if (rig_json_typeof(type) != RIG_JSON_MISSING && !rig_json_str_eq(type, "object")) {
            rig_schema_free(s);
            return rig_error_set(err, RIG_ESCHEMA,
                                 "%s schema of tool '%s' must have \"type\": \"object\".",
                                 input ? "Input" : "Output", t->name);
        }
    } else if (rig_json_typeof(root) != RIG_JSON_BOOL) {
        rig_schema_free(s);
        return rig_error_set(err, RIG_ESCHEMA, "%s schema of tool '%s' must be an object.",
                             input ? "Input" : "Output", t->name);
    }
    char *copy = dup_n(json, len);
    if (!copy) {
        rig_schema_free(s);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    rig_schema_free(*slot);
    free(*text);
    *slot = s;
    *text = copy;
    *text_len = len;
    return RIG_OK;
}

int rig_tool_set_input_schema(rig_tool *t, const char *json, size_t len, rig_error *err)
{
    if (!t)
        return rig_error_set(err, RIG_EINVAL, "No tool was given.");
    return set_schema(t, &t->input, &t->input_text, &t->input_len, json, len, true, err);
}

int rig_tool_set_output_schema(rig_tool *t, const char *json, size_t len, rig_error *err)
{
    if (!t)
        return rig_error_set(err, RIG_EINVAL, "No tool was given.");
    return set_schema(t, &t->output, &t->output_text, &t->output_len, json, len, false, err);
}

int rig_tool_set_meta(rig_tool *t, const char *json, size_t len, rig_error *err)
{
    if (!t)
        return rig_error_set(err, RIG_EINVAL, "No tool was given.");
    if (!json) {
        free(t->meta);
        t->meta = NULL;
        t->meta_len = 0;
        return RIG_OK;
    }
    rig_json_doc *doc = rig_json_parse(json, len, NULL, NULL);
    bool ok = doc && rig_json_typeof(rig_json_doc_root(doc)) == RIG_JSON_OBJECT;
    rig_json_doc_free(doc);
    if (!ok)
        return rig_error_set(err, RIG_EJSON, "_meta of tool '%s' must be a JSON object.",
                             t->name);
    char *copy = dup_n(json, len);
    if (!copy)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    free(t->meta);
    t->meta = copy;
    t->meta_len = len;
    return RIG_OK;
}

void rig_tool_set_annotations(rig_tool *t, const rig_annotations *a)
{
    if (t)
        t->ann = a ? *a : (rig_annotations){0};
}

rig_annotations rig_tool_annotations(const rig_tool *t)
{
    return t ? t->ann : (rig_annotations){0};
}

static bool hint(rig_hint h, bool fallback)
{
    return h == RIG_HINT_UNSET ? fallback : h == RIG_HINT_TRUE;
}

bool rig_tool_read_only(const rig_tool *t)
{
    return t && hint(t->ann.read_only, false);
}

bool rig_tool_destructive(const rig_tool *t)
{
    return t && hint(t->ann.destructive, true);
}

bool rig_tool_idempotent(const rig_tool *t)
{
    return t && hint(t->ann.idempotent, false);
}

bool rig_tool_open_world(const rig_tool *t)
{
    return t && hint(t->ann.open_world, true);
}

int rig_tool_add_native(rig_tool *t, const rig_native_spec *spec, rig_error *err)
{
    if (!t || !spec)
        return rig_error_set(err, RIG_EINVAL, "No tool or native spec was given.");
    if ((unsigned)spec->provider >= RIG_PROVIDER_COUNT)
        return rig_error_set(err, RIG_EINVAL, "Unknown provider %d.", (int)spec->provider);
    if (!spec->api_type || !*spec->api_type)
        return rig_error_set(err, RIG_EINVAL, "A native spec needs an api_type.");
    struct native *n = &t->natives[spec->provider];
    if (n->set)
        return rig_error_set(err, RIG_EEXIST,
                             "Tool '%s' already has a native spec for this provider.", t->name);
    if (spec->extra_json) {
        rig_json_doc *doc = rig_json_parse(spec->extra_json, strlen(spec->extra_json), NULL, NULL);
        bool ok = doc && rig_json_typeof(rig_json_doc_root(doc)) == RIG_JSON_OBJECT;
        rig_json_doc_free(doc);
        if (!ok)
            return rig_error_set(err, RIG_EINVAL,
                                 "extra_json of a native spec must be a JSON object.");
    }
    struct native tmp = {.set = true};
    tmp.spec.provider = spec->provider;
    tmp.spec.api_type = dup_s(spec->api_type);
    tmp.spec.api_name = dup_s(spec->api_name ? spec->api_name : t->name);
    tmp.spec.beta = dup_s(spec->beta);
    tmp.spec.role = dup_s(spec->role);
    tmp.spec.extra_json = dup_s(spec->extra_json);
    bool oom = !tmp.spec.api_type || !tmp.spec.api_name || (spec->beta && !tmp.spec.beta) ||
               (spec->role && !tmp.spec.role) || (spec->extra_json && !tmp.spec.extra_json);
    if (spec->supported_models && spec->supported_models[0]) {
        size_t k = 0;
        while (spec->supported_models[k])
            k++;
        tmp.models = calloc(k + 1, sizeof *tmp.models);
        for (size_t i = 0; tmp.models && i < k; i++)
            oom |= !(tmp.models[i] = dup_s(spec->supported_models[i]));
        oom |= !tmp.models;
    }
    tmp.spec.supported_models = (const char *const *)tmp.models;
    if (oom) {
        native_clear(&tmp);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    *n = tmp;
    return RIG_OK;
}

bool rig__model_matches(const char *const *globs, const char *model)
{
    if (!model)
        return false;
    if (!globs)
        return true;
    for (; *globs; globs++)
        if (fnmatch(*globs, model, FNM_CASEFOLD) == 0)
            return true;
    return false;
}

const rig_native_spec *rig_tool_native(const rig_tool *t, rig_provider provider, const char *model)
{
    if (!t || (unsigned)provider >= RIG_PROVIDER_COUNT)
        return NULL;
    const struct native *n = &t->natives[provider];
    if (!n->set || !rig__model_matches(n->spec.supported_models, model))
        return NULL;
    return &n->spec;
}

bool rig__schema_owns(rig_json_val root, const char *key)
{
    if (rig_json_exists(rig_json_get(rig_json_get(root, "properties"), key)))
        return true;
    rig_json_iter it = rig_json_iter_init(rig_json_get(root, "required"));
    rig_json_val e;
    while (rig_json_iter_next(&it, &e))
        if (rig_json_str_eq(e, key))
            return true;
    return false;
}

const char *rig_tool_role(const rig_tool *t)
{
    for (int i = 0; t && i < RIG_PROVIDER_COUNT; i++)
        if (t->natives[i].set && t->natives[i].spec.role)
            return t->natives[i].spec.role;
    return NULL;
}

void rig_tool_set_executor(rig_tool *t, rig_tool_fn fn, void *data, rig_close_fn close)
{
    if (!t)
        return;
    struct rig_state *s = NULL;
    if (data || close) {
        s = malloc(sizeof *s);
        if (!s) {
            /* Without a state record the data cannot be closed later; close
             * it now rather than leak it, and leave the tool without one so
             * its calls fail visibly. */
            if (close)
                close(data);
            fn = NULL;
        } else {
            atomic_init(&s->refs, 1);
            s->data = data;
            s->close = close;
        }
    }
    state_unref(t->state);
    t->state = s;
    t->fn = fn;
}

void rig_tool_share_executor(rig_tool *t, const rig_tool *from, rig_tool_fn fn)
{
    if (!t || !from || t == from)
        return;
    struct rig_state *s = from->state;
    if (s)
        atomic_fetch_add(&s->refs, 1);
    state_unref(t->state);
    t->state = s;
    t->fn = fn;
}

void rig_tool_set_flags(rig_tool *t, unsigned flags)
{
    if (t)
        t->flags = flags;
}

unsigned rig_tool_flags(const rig_tool *t)
{
    return t ? t->flags : 0;
}

const char *rig_tool_name(const rig_tool *t)
{
    return t ? t->name : NULL;
}

const char *rig_tool_title(const rig_tool *t)
{
    return t ? t->title : NULL;
}

const char *rig_tool_description(const rig_tool *t)
{
    return t ? t->description : NULL;
}

const rig_schema *rig_tool_input_schema(const rig_tool *t)
{
    return t ? t->input : NULL;
}

const rig_schema *rig_tool_output_schema(const rig_tool *t)
{
    return t ? t->output : NULL;
}

const char *rig_tool_meta_json(const rig_tool *t, size_t *len)
{
    if (len)
        *len = t && t->meta ? t->meta_len : 0;
    return t ? t->meta : NULL;
}

/* ---- hooks and listeners -------------------------------------------- */

#define GROW(arr, n)                                                   \
    do {                                                               \
        void *grown_ = realloc((arr), ((n) + 1) * sizeof *(arr));      \
        if (!grown_)                                                   \
            return RIG_ENOMEM;                                         \
        (arr) = grown_;                                                \
    } while (0)

int rig__hooks_add_before(hooks *h, rig_before_fn fn, void *ud)
{
    if (!fn)
        return RIG_EINVAL;
    GROW(h->before, h->n_before);
    h->before[h->n_before++] = (struct before_hook){fn, ud};
    return RIG_OK;
}

int rig__hooks_add_after(hooks *h, rig_after_fn fn, void *ud)
{
    if (!fn)
        return RIG_EINVAL;
    GROW(h->after, h->n_after);
    h->after[h->n_after++] = (struct after_hook){fn, ud};
    return RIG_OK;
}

int rig__hooks_add_listener(hooks *h, const char *event, rig_event_fn fn, void *ud)
{
    if (!fn || !event || !*event)
        return RIG_EINVAL;
    char *ev = dup_s(event);
    if (!ev)
        return RIG_ENOMEM;
    void *grown = realloc(h->listeners, (h->n_listeners + 1) * sizeof *h->listeners);
    if (!grown) {
        free(ev);
        return RIG_ENOMEM;
    }
    h->listeners = grown;
    h->listeners[h->n_listeners++] = (struct listener){ev, fn, ud};
    return RIG_OK;
}

int rig__hooks_remove_listener(hooks *h, const char *event, rig_event_fn fn, void *ud)
{
    for (size_t i = 0; event && i < h->n_listeners; i++) {
        struct listener *l = &h->listeners[i];
        if (l->fn == fn && l->ud == ud && strcmp(l->event, event) == 0) {
            free(l->event);
            memmove(l, l + 1, (h->n_listeners - i - 1) * sizeof *l);
            h->n_listeners--;
            return RIG_OK;
        }
    }
    return RIG_ENOENT;
}

void rig__hooks_free(hooks *h)
{
    for (size_t i = 0; i < h->n_listeners; i++)
        free(h->listeners[i].event);
    free(h->listeners);
    free(h->before);
    free(h->after);
    memset(h, 0, sizeof *h);
}

void rig__hooks_fire(const hooks *h, const char *event, const rig_tool *t, const char *data)
{
    for (size_t i = 0; i < h->n_listeners; i++) {
        const struct listener *l = &h->listeners[i];
        if (strcmp(l->event, event) == 0 || strcmp(l->event, "*") == 0)
            l->fn(event, t, data, l->ud);
    }
}

int rig_tool_before(rig_tool *t, rig_before_fn fn, void *ud)
{
    return t ? rig__hooks_add_before(&t->hooks, fn, ud) : RIG_EINVAL;
}

int rig_tool_after(rig_tool *t, rig_after_fn fn, void *ud)
{
    return t ? rig__hooks_add_after(&t->hooks, fn, ud) : RIG_EINVAL;
}

int rig_tool_on(rig_tool *t, const char *event, rig_event_fn fn, void *ud)
{
    return t ? rig__hooks_add_listener(&t->hooks, event, fn, ud) : RIG_EINVAL;
}

int rig_tool_off(rig_tool *t, const char *event, rig_event_fn fn, void *ud)
{
    return t ? rig__hooks_remove_listener(&t->hooks, event, fn, ud) : RIG_EINVAL;
}

/* ---- copies (a registry's fixed instance, resolved more than once) --- */

static int copy_hooks(hooks *dst, const hooks *src)
{
    for (size_t i = 0; i < src->n_before; i++)
        if (rig__hooks_add_before(dst, src->before[i].fn, src->before[i].ud))
            return RIG_ENOMEM;
    for (size_t i = 0; i < src->n_after; i++)
        if (rig__hooks_add_after(dst, src->after[i].fn, src->after[i].ud))
            return RIG_ENOMEM;
    for (size_t i = 0; i < src->n_listeners; i++)
        if (rig__hooks_add_listener(dst, src->listeners[i].event, src->listeners[i].fn,
                                    src->listeners[i].ud))
            return RIG_ENOMEM;
    return RIG_OK;
}

rig_tool *rig__tool_clone(const rig_tool *t, rig_error *err)
{
    rig_tool *c = rig_tool_new(t->name, err);
    if (!c)
        return NULL;
    int rc = RIG_OK;
    rc |= rig_tool_set_title(c, t->title);
    rc |= rig_tool_set_description(c, t->description);
    if (rc == RIG_OK && rig_tool_set_input_schema(c, t->input_text, t->input_len, err))
        goto fail_quiet;
    if (rc == RIG_OK && t->output &&
        rig_tool_set_output_schema(c, t->output_text, t->output_len, err))
        goto fail_quiet;
    if (rc == RIG_OK && t->meta && rig_tool_set_meta(c, t->meta, t->meta_len, err))
        goto fail_quiet;
    c->ann = t->ann;
    for (int i = 0; rc == RIG_OK && i < RIG_PROVIDER_COUNT; i++)
        if (t->natives[i].set && rig_tool_add_native(c, &t->natives[i].spec, err))
            goto fail_quiet;
    c->fn = t->fn;
    c->state = t->state;
    if (c->state)
        atomic_fetch_add(&c->state->refs, 1);
    c->flags = t->flags;
    if (rc == RIG_OK)
        rc = copy_hooks(&c->hooks, &t->hooks);
    if (rc == RIG_OK && t->hub && !(c->hub = rig__hub_clone(t->hub, err)))
        goto fail_quiet;
    for (size_t i = 0; i < rig_hub_count(c); i++)
        rig_hub_at(c, i)->in_hub = c;
    if (rc != RIG_OK) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory copying tool '%s'.", t->name);
        goto fail_quiet;
    }
    return c;
fail_quiet:
    rig_tool_free(c);
    return NULL;
}
