/* env.c — an environment: its identity, task templates, published
 * capabilities and lifecycle hooks (HUD's Environment, REFERENCE 1-2), and
 * the context a started task carries. The wire that serves it is control.c.
 *
 * Task templates are fixed once serving starts (they are read without a
 * lock); capabilities are not — a daemon started by the initialize hook, or
 * later, publishes its address while clients connect — so they sit behind
 * a mutex. Everything a caller passes in is copied. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_internal.h"

static char *dup_or(const char *s, const char *dflt) {
    return strdup(s ? s : dflt);
}

rig_env *rig_env_new(const char *name, const char *version, rig_error *err) {
    rig_env *env = calloc(1, sizeof *env);
    if (!env) goto nomem;
    env->name = dup_or(name, "environment");
    env->version = dup_or(version, "0.0.1");
    if (!env->name || !env->version) goto nomem;
    pthread_mutex_init(&env->caps_lock, NULL);
    pthread_mutex_init(&env->serve_lock, NULL);
    return env;
nomem:
    if (env) {
        free(env->name);
        free(env->version);
        free(env);
    }
    rig_error_set(err, RIG_ENOMEM, "out of memory creating an environment");
    return NULL;
}

static void cap_clear(rig__cap *c) {
    free(c->name);
    free(c->protocol);
    free(c->url);
    free(c->params_json);
    memset(c, 0, sizeof *c);
}

static void task_clear(rig__task *t) {
    free(t->id);
    free(t->description);
    rig_schema_free(t->args);
    rig_schema_free(t->input);
    rig_schema_free(t->returns);
}

void rig_env_free(rig_env *env) {
    if (!env) return;
    if (env->owner_free) env->owner_free(env->owner);
    for (size_t i = 0; i < env->ntasks; i++) task_clear(&env->tasks[i]);
    for (size_t i = 0; i < env->ncaps; i++) cap_clear(&env->caps[i]);
    free(env->tasks);
    free(env->caps);
    free(env->name);
    free(env->version);
    pthread_mutex_destroy(&env->caps_lock);
    pthread_mutex_destroy(&env->serve_lock);
    free(env);
}

const rig__task *rig__env_find_task(const rig_env *env, const char *id, size_t len) {
    /* Linear: environments hold a handful of templates, and tasks.start
     * costs a worker handoff anyway. */
    for (size_t i = 0; i < env->ntasks; i++)
        if (strlen(env->tasks[i].id) == len && memcmp(env->tasks[i].id, id, len) == 0)
            return &env->tasks[i];
    return NULL;
}

static rig_schema *compile(const char *text, const char *what, const char *id, rig_error *err) {
    rig_error e;
    rig_error_clear(&e);
    rig_schema *s = rig_schema_compile(text, strlen(text), &e);
    if (!s) rig_error_set(err, e.code, "task '%s': bad %s schema: %s", id, what, e.message);
    return s;
}

int rig_env_add_task(rig_env *env, const rig_task_spec *spec, rig_error *err) {
    if (!env || !spec || !spec->id || !*spec->id || !spec->start || !spec->grade)
        return rig_error_set(err, RIG_EINVAL,
                             "rig_env_add_task: a task needs an id, a start and a grade function");
    if (rig__env_find_task(env, spec->id, strlen(spec->id)))
        return rig_error_set(err, RIG_EEXIST, "task '%s' already exists", spec->id);
    rig__task t = {.start = spec->start, .grade = spec->grade, .end = spec->end, .ud = spec->ud};
    int rc = RIG_ENOMEM;
    t.id = strdup(spec->id);
    t.description = strdup(spec->description ? spec->description : "");
    if (!t.id || !t.description) goto nomem;
    t.args = compile(spec->args_schema ? spec->args_schema : "{\"type\":\"object\"}", "args",
                     spec->id, err);
    if (!t.args) goto fail;
    if (spec->input_schema && !(t.input = compile(spec->input_schema, "input", spec->id, err)))
        goto fail;
    if (spec->returns_schema &&
        !(t.returns = compile(spec->returns_schema, "returns", spec->id, err)))
        goto fail;
    if (env->ntasks == env->tasks_cap) {
        size_t cap = env->tasks_cap ? env->tasks_cap * 2 : 8;
        rig__task *n = realloc(env->tasks, cap * sizeof *n);
        if (!n) goto nomem;
        env->tasks = n;
        env->tasks_cap = cap;
    }
    env->tasks[env->ntasks++] = t;
    return RIG_OK;
nomem:
    rig_error_set(err, RIG_ENOMEM, "out of memory adding task '%s'", spec->id);
fail:
    rc = err ? err->code : RIG_ESCHEMA;
    if (!rc) rc = RIG_ENOMEM;
    task_clear(&t);
    return rc;
}

int rig_env_add_capability(rig_env *env, const rig_capability *cap, rig_error *err) {
    if (!env || !cap || !cap->name || !*cap->name || !cap->protocol || !cap->url)
        return rig_error_set(err, RIG_EINVAL,
                             "rig_env_add_capability: a capability needs a name, a protocol and a url");
    if (cap->params_json) {
        rig_json_error je;
        rig_json_doc *d = rig_json_parse(cap->params_json, strlen(cap->params_json), NULL, &je);
        bool ok = d && rig_json_typeof(rig_json_doc_root(d)) == RIG_JSON_OBJECT;
        rig_json_doc_free(d);
        if (!ok)
            return rig_error_set(err, RIG_EJSON, "capability '%s': params must be a JSON object",
                                 cap->name);
    }
    rig__cap c = {strdup(cap->name), strdup(cap->protocol), strdup(cap->url),
                  cap->params_json ? strdup(cap->params_json) : NULL};
    if (!c.name || !c.protocol || !c.url || (cap->params_json && !c.params_json)) {
        cap_clear(&c);
        return rig_error_set(err, RIG_ENOMEM, "out of memory adding capability '%s'", cap->name);
    }
    pthread_mutex_lock(&env->caps_lock);
    int rc = RIG_OK;
    size_t i = 0;
    while (i < env->ncaps && strcmp(env->caps[i].name, c.name) != 0) i++;
    if (i < env->ncaps) {
        cap_clear(&env->caps[i]);
        env->caps[i] = c;
    } else if (env->ncaps == env->caps_cap) {
        size_t ncap = env->caps_cap ? env->caps_cap * 2 : 4;
        rig__cap *n = realloc(env->caps, ncap * sizeof *n);
        if (n) {
            env->caps = n;
            env->caps_cap = ncap;
            env->caps[env->ncaps++] = c;
        } else {
            rc = RIG_ENOMEM;
        }
    } else {
        env->caps[env->ncaps++] = c;
    }
    pthread_mutex_unlock(&env->caps_lock);
    if (rc) {
        cap_clear(&c);
        return rig_error_set(err, rc, "out of memory adding capability '%s'", cap->name);
    }
    return RIG_OK;
}

void rig__env_set_owner(rig_env *env, void *owner, void (*free_fn)(void *)) {
    env->owner = owner;
    env->owner_free = free_fn;
}

void rig_env_on_initialize(rig_env *env, rig_env_hook_fn fn, void *ud) {
    env->on_init = fn;
    env->init_ud = ud;
}

void rig_env_on_shutdown(rig_env *env, rig_env_hook_fn fn, void *ud) {
    env->on_shutdown = fn;
    env->shutdown_ud = ud;
}

int rig__env_write_bindings(rig_env *env, rig_json_writer *w) {
    pthread_mutex_lock(&env->caps_lock);
    rig_json_write_array_begin(w);
    for (size_t i = 0; i < env->ncaps; i++) {
        const rig__cap *c = &env->caps[i];
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "name");
        rig_json_write_string(w, c->name);
        rig_json_write_key(w, "protocol");
        rig_json_write_string(w, c->protocol);
        rig_json_write_key(w, "url");
        rig_json_write_string(w, c->url);
        rig_json_write_key(w, "params");
        if (c->params_json) {
            /* Re-written compactly: the text may span lines, a frame may not. */
            rig_json_doc *d = rig_json_parse(c->params_json, strlen(c->params_json), NULL, NULL);
            if (d) rig_json_write_value(w, rig_json_doc_root(d));
            else rig_json_write_raw(w, "{}", 2);
            rig_json_doc_free(d);
        } else {
            rig_json_write_raw(w, "{}", 2);
        }
        rig_json_write_object_end(w);
    }
    int rc = rig_json_write_array_end(w);
    pthread_mutex_unlock(&env->caps_lock);
    return rc;
}

/* "scheme://host:port/path", "scheme://[v6]:port", or a bare "host:port". */
int rig__env_cap_addr(rig_env *env, const char *name, size_t len, char *host, size_t hostcap,
                      int *port) {
    int rc = RIG_ENOENT;
    pthread_mutex_lock(&env->caps_lock);
    for (size_t i = 0; i < env->ncaps; i++) {
        const rig__cap *c = &env->caps[i];
        if (strlen(c->name) != len || memcmp(c->name, name, len) != 0) continue;
        rc = RIG_EINVAL;
        const char *p = strstr(c->url, "://");
        p = p ? p + 3 : c->url;
        const char *at = strpbrk(p, "@/");
        if (at && *at == '@') p = at + 1; /* user info */
        const char *end = p + strcspn(p, "/?#");
        const char *h = p, *he, *colon;
        if (*p == '[') {
            h = p + 1;
            he = memchr(h, ']', (size_t)(end - h));
            if (!he) break;
            colon = he + 1 < end && he[1] == ':' ? he + 1 : NULL;
        } else {
            colon = memrchr(p, ':', (size_t)(end - p));
            he = colon ? colon : end;
        }
        if (!colon || he == h || (size_t)(he - h) >= hostcap) break;
        char *e;
        long v = strtol(colon + 1, &e, 10);
        if (e != end || v <= 0 || v > 65535) break;
        memcpy(host, h, (size_t)(he - h));
        host[he - h] = 0;
        *port = (int)v;
        rc = RIG_OK;
        break;
    }
    pthread_mutex_unlock(&env->caps_lock);
    return rc;
}

/* ---------------------------------------------------------------- task context */

rig_task_ctx *rig__task_ctx_new(const rig__task *t, const char *session, rig_json_doc *args_doc) {
    rig_task_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->task = t;
    snprintf(c->session, sizeof c->session, "%s", session);
    c->args_doc = args_doc;
    atomic_init(&c->cancelled, false);
    c->refs = 1;
    return c;
}

void rig__task_ctx_unref(rig_task_ctx *c) {
    if (!c || --c->refs) return;
    if (c->task->end) c->task->end(c);
    rig_json_doc_free(c->args_doc);
    free(c);
}

const char *rig_task_ctx_id(const rig_task_ctx *c) { return c->task->id; }
const char *rig_task_ctx_session(const rig_task_ctx *c) { return c->session; }
rig_json_val rig_task_ctx_args(const rig_task_ctx *c) { return rig_json_doc_root(c->args_doc); }
void *rig_task_ctx_ud(const rig_task_ctx *c) { return c->task->ud; }
void rig_task_ctx_set_state(rig_task_ctx *c, void *state) { c->state = state; }
void *rig_task_ctx_state(const rig_task_ctx *c) { return c->state; }
bool rig_task_ctx_cancelled(const rig_task_ctx *c) {
    return atomic_load_explicit(&c->cancelled, memory_order_relaxed);
}
