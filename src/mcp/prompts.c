/* prompts.c — the prompts an MCP server offers (prompts/list, prompts/get:
 * arguments checked, then the prompt's function builds the messages) and
 * argument completion (completion/complete) for prompts and templates. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "mcp/internal.h"
#include "rig/rig.h"

/* ---- messages ----------------------------------------------------------- */

int rig_mcp_messages_add(rig_mcp_messages *m, const char *role, const rig_result *blocks)
{
    if (!m || !role || !blocks || (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0))
        return RIG_EINVAL;
    for (size_t i = 0; i < rig_result_count(blocks); i++) {
        rig_json_write_object_begin(&m->w);
        rig_json_write_key(&m->w, "role");
        rig_json_write_string(&m->w, role);
        rig_json_write_key(&m->w, "content");
        rig__content_write_block(&m->w, rig_result_block(blocks, i));
        rig_json_write_object_end(&m->w);
        m->n++;
    }
    return RIG_OK;
}

int rig_mcp_messages_description(rig_mcp_messages *m, const char *description)
{
    if (!m || !description)
        return RIG_EINVAL;
    char *d = strdup(description);
    if (!d)
        return m->status = RIG_ENOMEM;
    free(m->description);
    m->description = d;
    return RIG_OK;
}

/* ---- the catalog ---------------------------------------------------------- */

static void prompt_free(struct mcp_prompt *p)
{
    for (size_t i = 0; i < p->n_args; i++) {
        free((char *)p->args[i].name);
        free((char *)p->args[i].title);
        free((char *)p->args[i].description);
    }
    free(p->args);
    free(p->name);
    free(p->title);
    free(p->description);
    free(p);
}

void rig__mcp_prompts_free(rig_mcp_server *s)
{
    struct mcp_prompt *lists[] = {s->prompts, s->gone_prompts};
    for (size_t i = 0; i < 2; i++)
        for (struct mcp_prompt *p = lists[i], *n; p; p = n) {
            n = p->next;
            prompt_free(p);
        }
    s->prompts = s->gone_prompts = NULL;
}

int rig_mcp_server_add_prompt(rig_mcp_server *s, const rig_mcp_prompt *in, rig_error *err)
{
    if (!s || !in || !in->name || !*in->name || !in->get)
        return rig_error_set(err, RIG_EINVAL, "A prompt needs a name and a get function.");
    if (in->n_args && !in->args)
        return rig_error_set(err, RIG_EINVAL, "Prompt '%s' counts arguments it does not give.",
                             in->name);
    for (size_t i = 0; i < in->n_args; i++)
        if (!in->args[i].name || !*in->args[i].name)
            return rig_error_set(err, RIG_EINVAL, "Prompt '%s': argument %zu has no name.",
                                 in->name, i + 1);
    struct mcp_prompt *p = calloc(1, sizeof *p);
    if (!p)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    bool oom = false;
    p->name = rig__mcp_dup_opt(in->name, &oom);
    p->title = rig__mcp_dup_opt(in->title, &oom);
    p->description = rig__mcp_dup_opt(in->description, &oom);
    p->get = in->get;
    p->ud = in->ud;
    p->args = in->n_args ? calloc(in->n_args, sizeof *p->args) : NULL;
    if (in->n_args && !p->args)
        oom = true;
    else
        p->n_args = in->n_args;
    for (size_t i = 0; i < p->n_args; i++) {
        p->args[i].name = rig__mcp_dup_opt(in->args[i].name, &oom);
        p->args[i].title = rig__mcp_dup_opt(in->args[i].title, &oom);
        p->args[i].description = rig__mcp_dup_opt(in->args[i].description, &oom);
        p->args[i].required = in->args[i].required;
    }
    if (oom) {
        prompt_free(p);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    pthread_mutex_lock(&s->mu);
    struct mcp_prompt **pp = &s->prompts;
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, p->name) == 0) {
            pthread_mutex_unlock(&s->mu);
            prompt_free(p);
            return rig_error_set(err, RIG_EEXIST, "There already is a prompt '%s'.", in->name);
        }
    *pp = p;
    pthread_mutex_unlock(&s->mu);
    rig__mcp_broadcast(s, "notifications/prompts/list_changed");
    return RIG_OK;
}

int rig_mcp_server_remove_prompt(rig_mcp_server *s, const char *name)
{
    if (!s || !name)
        return RIG_EINVAL;
    pthread_mutex_lock(&s->mu);
    for (struct mcp_prompt **pp = &s->prompts; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, name) == 0) {
            struct mcp_prompt *p = *pp;
            *pp = p->next;
            p->next = s->gone_prompts;
            s->gone_prompts = p;
            pthread_mutex_unlock(&s->mu);
            rig__mcp_broadcast(s, "notifications/prompts/list_changed");
            return RIG_OK;
        }
    pthread_mutex_unlock(&s->mu);
    return RIG_ENOENT;
}

/* ---- methods ---------------------------------------------------------------- */

int rig__mcp_prompts_list(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                          mcp_reply *r)
{
    long start = rig__mcp_cursor(params, r);
    if (start < 0)
        return r->code;
    pthread_mutex_lock(&s->mu);
    size_t n = 0, i = 0;
    for (struct mcp_prompt *p = s->prompts; p; p = p->next)
        n++;
    size_t end = 0;
    if (rig__mcp_page(s, start, n, &end, r)) {
        pthread_mutex_unlock(&s->mu);
        return r->code;
    }
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "prompts");
    rig_json_write_array_begin(w);
    for (struct mcp_prompt *p = s->prompts; p; p = p->next, i++) {
        if (i < (size_t)start || i >= end)
            continue;
        rig_json_write_object_begin(w);
        rig__mcp_write_opt(w, "name", p->name);
        rig__mcp_write_opt(w, "title", p->title);
        rig__mcp_write_opt(w, "description", p->description);
        if (p->n_args) {
            rig_json_write_key(w, "arguments");
            rig_json_write_array_begin(w);
            for (size_t a = 0; a < p->n_args; a++) {
                rig_json_write_object_begin(w);
                rig__mcp_write_opt(w, "name", p->args[a].name);
                rig__mcp_write_opt(w, "title", p->args[a].title);
                rig__mcp_write_opt(w, "description", p->args[a].description);
                rig_json_write_key(w, "required");
                rig_json_write_bool(w, p->args[a].required);
                rig_json_write_object_end(w);
            }
            rig_json_write_array_end(w);
        }
        rig_json_write_object_end(w);
    }
    rig_json_write_array_end(w);
    rig__mcp_write_next(w, end, n);
    rig_json_write_object_end(w);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* An object of string values into vars; -32602 for anything else. */
static int read_string_map(rig_json_val obj, const char *what, struct rig_mcp_vars *vars,
                           mcp_reply *r)
{
    if (!rig_json_exists(obj))
        return 0;
    if (!rig_json_is_object(obj))
        return rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: \"%s\" must be an object of strings", what);
    rig_json_iter it = rig_json_iter_init(obj);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        char *key = rig__mcp_strdup(k), *val = rig__mcp_strdup(v);
        int rc = key && val ? rig__mcp_vars_add(vars, key, strlen(key), val, strlen(val))
                            : RIG_EINVAL;
        free(key);
        free(val);
        if (rc == RIG_ENOMEM)
            return rig__mcp_reply_error(r, RIG_MCP_INTERNAL_ERROR, "Internal error: out of memory");
        if (rc != RIG_OK)
            return rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                        "Invalid params: every value of \"%s\" must be a string",
                                        what);
    }
    return 0;
}

int rig__mcp_prompts_get(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                         mcp_reply *r)
{
    char *name = rig__mcp_strdup(rig_json_get(params, "name"));
    if (!name)
        return rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: prompts/get needs \"name\", a string");
    struct rig_mcp_vars args = {0};
    int code = read_string_map(rig_json_get(params, "arguments"), "arguments", &args, r);
    pthread_mutex_lock(&s->mu);
    struct mcp_prompt *p = s->prompts;
    while (p && strcmp(p->name, name) != 0)
        p = p->next;
    pthread_mutex_unlock(&s->mu); /* a removed prompt stays allocated (gone_prompts) */
    if (!code && !p)
        code = rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: unknown prompt '%.100s'", name);
    for (size_t i = 0; !code && i < p->n_args; i++)
        if (p->args[i].required && !rig_mcp_var(&args, p->args[i].name))
            code = rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                        "Invalid params: prompt '%.100s' needs argument '%.60s'",
                                        name, p->args[i].name);
    if (!code) {
        rig_mcp_messages m = {0};
        rig_json_writer_init(&m.w, 0);
        rig_json_write_array_begin(&m.w);
        rig_error err;
        rig_error_clear(&err);
        int rc = p->get(&args, &m, p->ud, &err);
        rig_json_write_array_end(&m.w);
        if (rc == RIG_OK && m.status != RIG_OK)
            rc = m.status;
        size_t len = 0;
        const char *json = rc == RIG_OK ? rig_json_writer_finish(&m.w, &len) : NULL;
        if (rc == RIG_EINVAL) {
            code = rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS, "Invalid params: %.200s",
                                        err.message[0] ? err.message : "bad arguments");
        } else if (rc != RIG_OK || !json) {
            code = rig__mcp_reply_error(r, RIG_MCP_INTERNAL_ERROR, "Prompt '%.60s' failed: %.150s",
                                        name, err.message[0] ? err.message : rig_strerror(rc));
        } else {
            rig_json_write_object_begin(w);
            rig__mcp_write_opt(w, "description", m.description ? m.description : p->description);
            rig_json_write_key(w, "messages");
            rig_json_write_raw(w, json, len);
            rig_json_write_object_end(w);
        }
        free(m.description);
        rig_json_writer_free(&m.w);
    }
    rig__mcp_vars_free(&args);
    free(name);
    return code;
}

/* ---- completion -------------------------------------------------------------- */

#define COMPLETION_MAX 100

int rig_mcp_completion_add(rig_mcp_completion *c, const char *value)
{
    if (!c || !value)
        return RIG_EINVAL;
    if (c->n < COMPLETION_MAX)
        rig_json_write_string(c->w, value);
    else
        c->has_more = true;
    c->n++;
    return RIG_OK;
}

void rig_mcp_completion_total(rig_mcp_completion *c, size_t total, bool has_more)
{
    if (!c)
        return;
    c->total = total;
    c->total_set = true;
    c->has_more = has_more;
}

void rig_mcp_server_set_completion(rig_mcp_server *s, rig_mcp_complete_fn fn, void *ud)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->complete = fn;
    s->complete_ud = ud;
    pthread_mutex_unlock(&s->mu);
}

int rig__mcp_complete(rig_mcp_server *s, rig_json_val params, rig_json_writer *w, mcp_reply *r)
{
    rig_json_val ref = rig_json_get(params, "ref"), arg = rig_json_get(params, "argument");
    char *type = rig__mcp_strdup(rig_json_get(ref, "type"));
    bool prompt = type && strcmp(type, "ref/prompt") == 0;
    bool resource = type && strcmp(type, "ref/resource") == 0;
    char *target = rig__mcp_strdup(rig_json_get(ref, prompt ? "name" : "uri"));
    char *aname = rig__mcp_strdup(rig_json_get(arg, "name"));
    char *avalue = rig__mcp_strdup(rig_json_get(arg, "value"));
    struct rig_mcp_vars ctx = {0};
    int code = 0;
    if ((!prompt && !resource) || !target)
        code = rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: \"ref\" must be {\"type\":\"ref/prompt\","
                                    "\"name\"} or {\"type\":\"ref/resource\",\"uri\"}");
    else if (!aname || !avalue)
        code = rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: \"argument\" must be {\"name\",\"value\"}, "
                                    "both strings");
    if (!code)
        code = read_string_map(rig_json_get(rig_json_get(params, "context"), "arguments"),
                               "context.arguments", &ctx, r);
    pthread_mutex_lock(&s->mu);
    rig_mcp_complete_fn fn = s->complete;
    void *ud = s->complete_ud;
    bool known = false;
    if (!code && prompt)
        for (struct mcp_prompt *p = s->prompts; p && !known; p = p->next)
            known = strcmp(p->name, target) == 0;
    if (!code && resource)
        for (struct mcp_resource *t = s->templates; t && !known; t = t->next)
            known = strcmp(t->uri, target) == 0;
    pthread_mutex_unlock(&s->mu);
    if (!code && !fn)
        code = rig__mcp_reply_error(r, RIG_MCP_METHOD_NOT_FOUND,
                                    "Method not found: this server offers no completion");
    if (!code && !known)
        code = rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS, "Invalid params: unknown %s '%.100s'",
                                    prompt ? "prompt" : "resource template", target);
    if (!code) {
        rig_json_writer values;
        rig_json_writer_init(&values, 0);
        rig_json_write_array_begin(&values);
        rig_mcp_completion c = {.w = &values};
        rig_error err;
        rig_error_clear(&err);
        int rc = fn(type, target, aname, avalue, &ctx, &c, ud, &err);
        rig_json_write_array_end(&values);
        size_t len = 0;
        const char *json = rc == RIG_OK ? rig_json_writer_finish(&values, &len) : NULL;
        if (!json) {
            code = rig__mcp_reply_error(r, rc == RIG_EINVAL ? RIG_MCP_INVALID_PARAMS
                                                            : RIG_MCP_INTERNAL_ERROR,
                                        "Completion failed: %.200s",
                                        err.message[0] ? err.message : rig_strerror(rc));
        } else {
            rig_json_write_object_begin(w);
            rig_json_write_key(w, "completion");
            rig_json_write_object_begin(w);
            rig_json_write_key(w, "values");
            rig_json_write_raw(w, json, len);
            rig_json_write_key(w, "total");
            rig_json_write_int(w, (int64_t)(c.total_set ? c.total : c.n));
            rig_json_write_key(w, "hasMore");
            rig_json_write_bool(w, c.has_more);
            rig_json_write_object_end(w);
            rig_json_write_object_end(w);
        }
        rig_json_writer_free(&values);
    }
    rig__mcp_vars_free(&ctx);
    free(type);
    free(target);
    free(aname);
    free(avalue);
    return code;
}
