/* resources.c — the resources an MCP server offers: static ones, ones read
 * by a function, and URI templates (RFC 6570 level 1) whose variables reach
 * the read function; resources/list, resources/templates/list and
 * resources/read. Subscriptions live with the sessions (server.c). */
#include <stdlib.h>
#include <string.h>

#include "mcp/internal.h"
#include "rig/rig.h"
#include "util/base64.h"

/* ---- contents a read returns --------------------------------------------- */

static int contents_begin(rig_mcp_contents *c, const char *uri, const char *mime_type)
{
    if (!c || !uri)
        return RIG_EINVAL;
    rig_json_write_object_begin(c->w);
    rig_json_write_key(c->w, "uri");
    rig_json_write_string(c->w, uri);
    if (mime_type) {
        rig_json_write_key(c->w, "mimeType");
        rig_json_write_string(c->w, mime_type);
    }
    c->n++;
    return RIG_OK;
}

int rig_mcp_contents_text(rig_mcp_contents *c, const char *uri, const char *mime_type,
                          const char *text)
{
    if (!text || contents_begin(c, uri, mime_type) != RIG_OK)
        return RIG_EINVAL;
    rig_json_write_key(c->w, "text");
    rig_json_write_string(c->w, text);
    rig_json_write_object_end(c->w);
    return RIG_OK;
}

int rig_mcp_contents_blob(rig_mcp_contents *c, const char *uri, const char *mime_type,
                          const void *data, size_t len)
{
    if ((!data && len) || len > ((size_t)1 << 40))
        return RIG_EINVAL;
    char *b64 = malloc(rig__base64_len(len) + 1);
    if (!b64)
        return c ? (c->status = RIG_ENOMEM) : RIG_ENOMEM;
    rig__base64_encode(data ? data : "", len, b64);
    int rc = contents_begin(c, uri, mime_type);
    if (rc == RIG_OK) {
        rig_json_write_key(c->w, "blob");
        rig_json_write_string(c->w, b64);
        rig_json_write_object_end(c->w);
    }
    free(b64);
    return rc;
}

/* ---- variables ------------------------------------------------------------ */

const char *rig_mcp_var(const rig_mcp_vars *v, const char *name)
{
    for (size_t i = 0; v && name && i < v->n; i++)
        if (strcmp(v->names[i], name) == 0)
            return v->values[i];
    return NULL;
}

int rig__mcp_vars_add(struct rig_mcp_vars *v, const char *name, size_t nlen, const char *value,
                      size_t vlen)
{
    char **names = realloc(v->names, (v->n + 1) * sizeof *names);
    if (names)
        v->names = names;
    char **values = realloc(v->values, (v->n + 1) * sizeof *values);
    if (values)
        v->values = values;
    char *n = names ? strndup(name, nlen) : NULL;
    char *val = values ? strndup(value, vlen) : NULL;
    if (!names || !values || !n || !val) {
        free(n);
        free(val);
        return RIG_ENOMEM;
    }
    v->names[v->n] = n;
    v->values[v->n] = val;
    v->n++;
    return RIG_OK;
}

void rig__mcp_vars_free(struct rig_mcp_vars *v)
{
    for (size_t i = 0; i < v->n; i++) {
        free(v->names[i]);
        free(v->values[i]);
    }
    free(v->names);
    free(v->values);
    memset(v, 0, sizeof *v);
}

/* Match `uri` against template `t`: literal text must agree; each {name}
 * takes one or more characters other than '/', as many as still let the
 * rest match (a greedy regex ([^/]+) would, as the reference SDK's matcher
 * does). Spans are found first and copied only on a match; a value may end
 * only where the template's next literal character stands, and the uri is
 * bounded, as is the search's work, so a hostile uri cannot make it slow. */
#define URI_MAX 8192
#define VARS_MAX 16

typedef struct span {
    const char *name, *value;
    size_t name_len, value_len;
} span;

static bool match_from(const char *t, const char *uri, span *spans, size_t n, size_t *count,
                       long *budget)
{
    if (--*budget < 0)
        return false; /* a template of many adjacent variables: give up, not hang */
    while (*t && *t != '{') {
        if (*t++ != *uri++)
            return false;
    }
    if (!*t) {
        *count = n;
        return *uri == '\0';
    }
    const char *close = strchr(t, '}');
    if (!close || close == t + 1 || n == VARS_MAX)
        return false;
    char next = close[1]; /* '\0': the value runs to the end; '{': anywhere */
    size_t max = strcspn(uri, "/");
    for (size_t vlen = max; vlen > 0; vlen--) {
        if (next != '{' && uri[vlen] != next)
            continue;
        spans[n] = (span){t + 1, uri, (size_t)(close - t - 1), vlen};
        if (match_from(close + 1, uri + vlen, spans, n + 1, count, budget))
            return true;
    }
    return false;
}

static bool template_match(const char *t, const char *uri, struct rig_mcp_vars *vars)
{
    span spans[VARS_MAX];
    size_t n = 0;
    long budget = 100000;
    if (strlen(uri) > URI_MAX || !match_from(t, uri, spans, 0, &n, &budget))
        return false;
    for (size_t i = 0; i < n; i++)
        if (rig__mcp_vars_add(vars, spans[i].name, spans[i].name_len, spans[i].value,
                              spans[i].value_len) != RIG_OK) {
            rig__mcp_vars_free(vars);
            return false;
        }
    return true;
}

/* ---- the catalog ---------------------------------------------------------- */

static void resource_free(struct mcp_resource *r)
{
    free(r->uri);
    free(r->name);
    free(r->title);
    free(r->description);
    free(r->mime_type);
    free(r->text);
    free(r->blob);
    free(r);
}

void rig__mcp_resources_free(rig_mcp_server *s)
{
    struct mcp_resource *lists[] = {s->resources, s->templates, s->gone};
    for (size_t i = 0; i < 3; i++)
        for (struct mcp_resource *r = lists[i], *n; r; r = n) {
            n = r->next;
            resource_free(r);
        }
    s->resources = s->templates = s->gone = NULL;
}

static int add(rig_mcp_server *s, const rig_mcp_resource *in, bool is_template, rig_error *err)
{
    if (!s || !in || !in->uri || !*in->uri || !in->name || !*in->name)
        return rig_error_set(err, RIG_EINVAL, "A resource needs a uri and a name.");
    if (!in->read && !in->text && !in->blob)
        return rig_error_set(err, RIG_EINVAL,
                             "Resource '%s' needs a read function, text or a blob.", in->uri);
    if (is_template && !in->read)
        return rig_error_set(err, RIG_EINVAL,
                             "Template '%s' needs a read function: its content depends on "
                             "the uri.",
                             in->uri);
    if (is_template && !strchr(in->uri, '{'))
        return rig_error_set(err, RIG_EINVAL, "Template '%s' has no {variable}.", in->uri);
    struct mcp_resource *r = calloc(1, sizeof *r);
    if (!r)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    bool oom = false;
    r->uri = rig__mcp_dup_opt(in->uri, &oom);
    r->name = rig__mcp_dup_opt(in->name, &oom);
    r->title = rig__mcp_dup_opt(in->title, &oom);
    r->description = rig__mcp_dup_opt(in->description, &oom);
    r->mime_type = rig__mcp_dup_opt(in->mime_type, &oom);
    r->read = in->read;
    r->ud = in->ud;
    r->is_template = is_template;
    if (!in->read && in->text) {
        r->text = rig__mcp_dup_opt(in->text, &oom);
    } else if (!in->read) {
        r->blob = malloc(rig__base64_len(in->blob_len) + 1);
        if (r->blob)
            rig__base64_encode(in->blob, in->blob_len, r->blob);
        else
            oom = true;
    }
    if (oom) {
        resource_free(r);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    pthread_mutex_lock(&s->mu);
    struct mcp_resource **pp = is_template ? &s->templates : &s->resources;
    for (struct mcp_resource *e = *pp; e; e = e->next)
        if (strcmp(e->uri, r->uri) == 0) {
            pthread_mutex_unlock(&s->mu);
            resource_free(r);
            return rig_error_set(err, RIG_EEXIST, "There already is a %s '%s'.",
                                 is_template ? "template" : "resource", in->uri);
        }
    while (*pp)
        pp = &(*pp)->next;
    *pp = r; /* listing order is registration order */
    pthread_mutex_unlock(&s->mu);
    rig__mcp_broadcast(s, "notifications/resources/list_changed");
    return RIG_OK;
}

int rig_mcp_server_add_resource(rig_mcp_server *s, const rig_mcp_resource *r, rig_error *err)
{
    return add(s, r, false, err);
}

int rig_mcp_server_add_template(rig_mcp_server *s, const rig_mcp_resource *r, rig_error *err)
{
    return add(s, r, true, err);
}

int rig_mcp_server_remove_resource(rig_mcp_server *s, const char *uri)
{
    if (!s || !uri)
        return RIG_EINVAL;
    pthread_mutex_lock(&s->mu);
    struct mcp_resource **lists[] = {&s->resources, &s->templates};
    for (size_t i = 0; i < 2; i++)
        for (struct mcp_resource **pp = lists[i]; *pp; pp = &(*pp)->next)
            if (strcmp((*pp)->uri, uri) == 0) {
                struct mcp_resource *r = *pp;
                *pp = r->next;
                r->next = s->gone;
                s->gone = r;
                pthread_mutex_unlock(&s->mu);
                rig__mcp_broadcast(s, "notifications/resources/list_changed");
                return RIG_OK;
            }
    pthread_mutex_unlock(&s->mu);
    return RIG_ENOENT;
}

bool rig__mcp_resource_known(rig_mcp_server *s, const char *uri)
{
    bool known = false;
    pthread_mutex_lock(&s->mu);
    for (struct mcp_resource *r = s->resources; r && !known; r = r->next)
        known = strcmp(r->uri, uri) == 0;
    for (struct mcp_resource *r = s->templates; r && !known; r = r->next) {
        struct rig_mcp_vars v = {0};
        known = template_match(r->uri, uri, &v);
        rig__mcp_vars_free(&v);
    }
    pthread_mutex_unlock(&s->mu);
    return known;
}

/* ---- methods ---------------------------------------------------------------- */

static int list(rig_mcp_server *s, rig_json_val params, bool templates, rig_json_writer *w,
                mcp_reply *r)
{
    long start = rig__mcp_cursor(params, r);
    if (start < 0)
        return r->code;
    pthread_mutex_lock(&s->mu);
    size_t n = 0;
    for (struct mcp_resource *e = templates ? s->templates : s->resources; e; e = e->next)
        n++;
    size_t end = 0, i = 0;
    if (rig__mcp_page(s, start, n, &end, r)) {
        pthread_mutex_unlock(&s->mu);
        return r->code;
    }
    rig_json_write_object_begin(w);
    rig_json_write_key(w, templates ? "resourceTemplates" : "resources");
    rig_json_write_array_begin(w);
    for (struct mcp_resource *e = templates ? s->templates : s->resources; e; e = e->next, i++) {
        if (i < (size_t)start || i >= end)
            continue;
        rig_json_write_object_begin(w);
        rig__mcp_write_opt(w, templates ? "uriTemplate" : "uri", e->uri);
        rig__mcp_write_opt(w, "name", e->name);
        rig__mcp_write_opt(w, "title", e->title);
        rig__mcp_write_opt(w, "description", e->description);
        rig__mcp_write_opt(w, "mimeType", e->mime_type);
        rig_json_write_object_end(w);
    }
    rig_json_write_array_end(w);
    rig__mcp_write_next(w, end, n);
    rig_json_write_object_end(w);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

int rig__mcp_resources_list(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                            mcp_reply *r)
{
    return list(s, params, false, w, r);
}

int rig__mcp_templates_list(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                            mcp_reply *r)
{
    return list(s, params, true, w, r);
}

int rig__mcp_resources_read(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                            mcp_reply *r)
{
    rig_json_val juri = rig_json_get(params, "uri");
    char *uri = rig__mcp_strdup(juri);
    if (!uri) {
        return rig__mcp_reply_error(r, RIG_MCP_INVALID_PARAMS,
                                    "Invalid params: resources/read needs \"uri\", a string");
    }
    struct rig_mcp_vars vars = {0};
    pthread_mutex_lock(&s->mu);
    struct mcp_resource *found = NULL;
    for (struct mcp_resource *e = s->resources; e && !found; e = e->next)
        if (strcmp(e->uri, uri) == 0)
            found = e;
    for (struct mcp_resource *e = s->templates; e && !found; e = e->next) {
        if (template_match(e->uri, uri, &vars))
            found = e;
        else
            rig__mcp_vars_free(&vars);
    }
    pthread_mutex_unlock(&s->mu);
    int code = 0;
    if (!found) {
        code = rig__mcp_reply_error(r, RIG_MCP_RESOURCE_NOT_FOUND, "Resource not found: %.200s",
                                    uri);
    } else {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "contents");
        rig_json_write_array_begin(w);
        struct rig_mcp_contents out = {.w = w};
        if (found->text) {
            rig_mcp_contents_text(&out, uri, found->mime_type, found->text);
        } else if (found->blob) {
            rig_json_write_object_begin(w);
            rig__mcp_write_opt(w, "uri", uri);
            rig__mcp_write_opt(w, "mimeType", found->mime_type);
            rig__mcp_write_opt(w, "blob", found->blob);
            rig_json_write_object_end(w);
        } else {
            rig_error err;
            rig_error_clear(&err);
            int rc = found->read(uri, &vars, &out, found->ud, &err);
            if (rc == RIG_OK && out.status != RIG_OK)
                rc = out.status;
            if (rc == RIG_ENOENT)
                code = rig__mcp_reply_error(r, RIG_MCP_RESOURCE_NOT_FOUND,
                                            "Resource not found: %.200s", uri);
            else if (rc != RIG_OK)
                code = rig__mcp_reply_error(r, RIG_MCP_INTERNAL_ERROR,
                                            "Reading %.100s failed: %.120s", uri,
                                            err.message[0] ? err.message : rig_strerror(rc));
        }
        rig_json_write_array_end(w);
        rig_json_write_object_end(w);
    }
    rig__mcp_vars_free(&vars);
    free(uri);
    return code;
}
