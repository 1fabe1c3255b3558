/* call.c — one tool call from arguments to result, the same for every
 * caller (toolset, hub, MCP, agent loop):
 *
 *   parse → strip security_risk/summary → validate with coercion and
 *   defaults → before hooks (toolset's, then the tool's) → executor →
 *   output schema check → after hooks (the tool's, then the toolset's)
 *
 * and the rig_call context an executor reads. The arguments are rewritten
 * only when something changed (a coercion, a default, a stripped field, a
 * hook); the common call parses its arguments once and copies nothing else. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"

int64_t rig__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const rig_json_options args_parse_opts = {.flags = RIG_JSON_COPY_INPUT};

static bool is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return false;
    return true;
}

/* Replace the call's arguments with `text` (owned, malloc'd). */
static int adopt_text(struct rig_call *c, char *text, size_t len, rig_json_error *jerr)
{
    rig_json_doc *doc = rig_json_parse(text, len, NULL, jerr);
    if (!doc) {
        free(text);
        return RIG_EJSON;
    }
    rig_json_doc_free(c->doc);
    free(c->text);
    c->doc = doc;
    c->text = text;
    return RIG_OK;
}

static const char *const stripped_keys[] = {"security_risk", "summary"};

/* The export adds optional security_risk and summary fields to tools that
 * are not read-only; they are the model's notes for the host, not
 * arguments, so they are taken out before validation. */
static int strip_notes(struct rig_call *c)
{
    rig_json_val root = rig_json_doc_root(c->doc);
    rig_json_val schema = rig_schema_root(c->tool->input);
    bool strip[2] = {false, false};
    for (size_t k = 0; k < 2; k++) {
        rig_json_val v = rig_json_get(root, stripped_keys[k]);
        if (!rig_json_exists(v) || rig__schema_owns(schema, stripped_keys[k]))
            continue;
        strip[k] = true;
        if (rig_json_typeof(v) == RIG_JSON_STRING) {
            size_t n = rig_json_str_len(v);
            char *s = malloc(n + 1);
            if (!s)
                return RIG_ENOMEM;
            rig_json_str_copy(v, s, n + 1, NULL);
            *(k == 0 ? &c->risk : &c->summary) = s;
        }
    }
    if (!strip[0] && !strip[1])
        return RIG_OK;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_iter it = rig_json_iter_init(root);
    rig_json_val key, val;
    while (rig_json_iter_member(&it, &key, &val)) {
        if ((strip[0] && rig_json_str_eq(key, stripped_keys[0])) ||
            (strip[1] && rig_json_str_eq(key, stripped_keys[1])))
            continue;
        rig_json_write_keyv(&w, key);
        rig_json_write_value(&w, val);
    }
    rig_json_write_object_end(&w);
    size_t len = 0;
    char *text = rig_json_writer_detach(&w, &len);
    rig_json_writer_free(&w);
    if (!text)
        return RIG_ENOMEM;
    return adopt_text(c, text, len, NULL);
}

/* Validate the current arguments, adopting the normalized form if coercion
 * or defaults changed them. */
static int validate(struct rig_call *c, rig_error *verr)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    bool changed = false;
    int rc = rig_schema_validate(c->tool->input, rig_json_doc_root(c->doc),
                                 RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS, &w, &changed, verr);
    if (rc == RIG_OK && changed) {
        size_t len = 0;
        char *text = rig_json_writer_detach(&w, &len);
        rc = text ? adopt_text(c, text, len, NULL) : RIG_ENOMEM;
        if (rc == RIG_EJSON)
            rig_error_set(verr, rc, "the normalized arguments did not parse (a bug in rig)");
    }
    rig_json_writer_free(&w);
    return rc;
}

static rig_result *bad_json(const rig_tool *t, const rig_json_error *jerr, rig_error *err)
{
    char where[160];
    rig_json_error_format(jerr, where, sizeof where);
    rig_error_set(err, RIG_EJSON, "Error validating tool '%s': arguments are not valid JSON (%s).",
                  t->name, where);
    return rig_result_error("Error validating tool '%s': the arguments are not valid JSON (%s). "
                            "Send the arguments as one JSON object.", t->name, where);
}

/* A call record: a spare from the toolset's cache when there is one (its
 * mutex, condition variable, document and arena already made), else a new
 * one. Only root calls sleep and are cancelled, so only they need the
 * synchronization objects. */
static struct rig_call *call_alloc(struct rig_toolset *ts, bool root)
{
    struct rig_call *c = ts && root ? rig__toolset_take_spare(ts) : NULL;
    if (c)
        return c;
    c = calloc(1, sizeof *c);
    if (!c || !root)
        return c;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, &ca);
    pthread_condattr_destroy(&ca);
    c->sync_init = true;
    return c;
}

static bool set_session(struct rig_call *c, const char *session)
{
    size_t n = session ? strlen(session) : 0;
    if (n < sizeof c->session_buf) {
        memcpy(c->session_buf, n ? session : "", n + 1);
        c->session = c->session_buf;
        return true;
    }
    c->session = strdup(session);
    return c->session != NULL;
}

struct rig_call *rig__call_new(rig_tool *t, struct rig_toolset *ts, struct rig_call *parent,
                               const char *args, size_t len, const char *session, bool copy,
                               rig_result **fail, rig_error *err)
{
    *fail = NULL;
    struct rig_call *c = call_alloc(ts, parent == NULL);
    if (!c)
        goto oom_no_call;
    rig__tool_ref(t);
    c->tool = t;
    c->ts = ts;
    c->root = parent ? parent->root : c;
    atomic_init(&c->cancelled, false);
    if (!parent && !set_session(c, session))
        goto oom;

    if (!args || is_blank(args, len)) {
        args = "{}";
        len = 2;
    }
    c->args_len = len;
    rig_json_error jerr;
    if (!c->doc && !(c->doc = rig_json_doc_new()))
        goto oom;
    if (rig_json_doc_parse(c->doc, args, len, copy ? &args_parse_opts : NULL, &jerr) != 0) {
        if (jerr.code == RIG_JSON_ENOMEM)
            goto oom;
        *fail = bad_json(t, &jerr, err);
        goto out_fail;
    }
    rig_json_type type = rig_json_typeof(rig_json_doc_root(c->doc));
    if (type != RIG_JSON_OBJECT) {
        rig_error_set(err, RIG_EJSON,
                      "Error validating tool '%s': arguments must be a JSON object, not %s.",
                      t->name, rig_json_type_name(type));
        *fail = rig_result_error("Error validating tool '%s': the arguments must be a JSON "
                                 "object, not %s. Send {\"name\": value, ...}.",
                                 t->name, rig_json_type_name(type));
        goto out_fail;
    }
    if (!rig_tool_read_only(t) && strip_notes(c) != RIG_OK)
        goto oom;
    rig_error verr;
    int rc = validate(c, &verr);
    if (rc == RIG_ENOMEM)
        goto oom;
    if (rc != RIG_OK) {
        rig_error_set(err, RIG_EVALIDATE, "Error validating tool '%s': %s", t->name,
                      verr.message);
        *fail = rig_result_error("Error validating tool '%s': %s. Fix the arguments to match "
                                 "the tool's input schema and call it again.",
                                 t->name, verr.message);
        goto out_fail;
    }
    return c;
oom:
    rig__call_free(c);
oom_no_call:
    rig_error_set(err, RIG_ENOMEM, "Out of memory preparing a call to tool '%s'.", t->name);
    *fail = rig_result_error("Out of memory preparing a call to tool '%s'.", t->name);
    return NULL;
out_fail:
    if (ts && !parent)
        rig__call_recycle(c);
    else
        rig__call_free(c);
    return NULL;
}

/* Drop what belongs to one call, keeping the reusable memory. */
static void call_clear(struct rig_call *c)
{
    if (c->peer && c->peer->end)
        c->peer->end(c->peer_ud);
    c->peer = NULL;
    c->peer_ud = NULL;
    rig__tool_unref(c->tool);
    c->tool = NULL;
    free(c->text);
    free(c->risk);
    free(c->summary);
    c->text = c->risk = c->summary = NULL;
    if (c->session && c->session != c->session_buf)
        free((char *)c->session);
    c->session = NULL;
    if (c->arena)
        rig_arena_reset(c->arena);
    c->deadline_ns = 0;
}

void rig__call_free(struct rig_call *c)
{
    if (!c)
        return;
    call_clear(c);
    rig_json_doc_free(c->doc);
    rig_arena_free(c->arena);
    if (c->sync_init) {
        pthread_mutex_destroy(&c->mu);
        pthread_cond_destroy(&c->cv);
    }
    free(c);
}

/* A document that grew for one huge call is not kept for the next: not by
 * node count, nor by the size of the argument text it copied. */
#define SPARE_DOC_MAX_NODES 4096
#define SPARE_TEXT_MAX_BYTES 65536

void rig__call_recycle(struct rig_call *c)
{
    if (!c)
        return;
    bool big = (c->doc && rig_json_doc_size(c->doc) > SPARE_DOC_MAX_NODES) ||
               c->args_len > SPARE_TEXT_MAX_BYTES ||
               (c->arena && rig_arena_used(c->arena) > SPARE_TEXT_MAX_BYTES);
    if (!c->sync_init || !c->ts || c->root != c || big) {
        rig__call_free(c);
        return;
    }
    struct rig_toolset *ts = c->ts;
    call_clear(c);
    if (!rig__toolset_put_spare(ts, c))
        rig__call_free(c);
}

void rig__call_cancel(struct rig_call *c)
{
    struct rig_call *r = c->root;
    atomic_store(&r->cancelled, true);
    pthread_mutex_lock(&r->mu);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* ---- the pipeline --------------------------------------------------- */

static rig_result *run_before(struct rig_call *c, const hooks *h, rig_error *err)
{
    for (size_t i = 0; i < h->n_before; i++) {
        char *replace = NULL;
        rig_error herr;
        rig_error_clear(&herr);
        int rc = h->before[i].fn(c, rig_call_args(c), &replace, h->before[i].ud, &herr);
        if (rc != RIG_OK) {
            free(replace);
            const char *why = herr.message[0] ? herr.message : rig_strerror(rc);
            rig_error_set(err, RIG_EBLOCKED, "Tool '%s' was blocked: %s", c->tool->name, why);
            return rig_result_error("Tool '%s' was blocked: %s", c->tool->name, why);
        }
        if (!replace)
            continue;
        rig_json_error jerr;
        if (adopt_text(c, replace, strlen(replace), &jerr) != RIG_OK ||
            rig_json_typeof(rig_json_doc_root(c->doc)) != RIG_JSON_OBJECT) {
            rig_error_set(err, RIG_EJSON, "A before hook of tool '%s' returned arguments that "
                          "are not a JSON object.", c->tool->name);
            return rig_result_error("A before hook of tool '%s' returned arguments that are not "
                                    "a JSON object (a bug in the host, not in your call).",
                                    c->tool->name);
        }
        rig_error verr;
        int rc2 = validate(c, &verr);
        if (rc2 != RIG_OK) {
            rig_error_set(err, RIG_EVALIDATE, "Error validating tool '%s' after a before hook: %s",
                          c->tool->name, verr.message);
            return rig_result_error("Error validating tool '%s' after a before hook rewrote "
                                    "the arguments: %s", c->tool->name, verr.message);
        }
    }
    return NULL;
}

static rig_result *run_after(struct rig_call *c, const hooks *h, rig_result *res)
{
    for (size_t i = 0; i < h->n_after; i++) {
        rig_result *repl = h->after[i].fn(c, rig_call_args(c), res, h->after[i].ud);
        if (repl && repl != res) {
            rig_result_free(res);
            res = repl;
        }
    }
    return res;
}

/* MCP: a tool with an output schema must return structured content that
 * conforms to it. */
static rig_result *check_output(struct rig_call *c, rig_result *res, rig_error *err)
{
    const rig_tool *t = c->tool;
    if (!t->output || rig_result_is_error(res))
        return res;
    size_t len = 0;
    const char *json = rig_result_structured_json(res, &len);
    if (!json) {
        rig_error_set(err, RIG_ETOOL, "Tool '%s' declares an output schema but returned no "
                      "structured content.", t->name);
        rig_result_free(res);
        return rig_result_error("Tool '%s' declares an output schema but returned no structured "
                                "content (a bug in the tool).", t->name);
    }
    rig_json_doc *doc = rig_json_parse(json, len, NULL, NULL);
    rig_error verr;
    int rc = doc ? rig_schema_validate(t->output, rig_json_doc_root(doc), 0, NULL, NULL, &verr)
                 : RIG_ENOMEM;
    rig_json_doc_free(doc);
    if (rc == RIG_OK)
        return res;
    rig_error_set(err, RIG_ETOOL, "Tool '%s' returned structured content that does not match "
                  "its output schema: %s", t->name, rc == RIG_ENOMEM ? "out of memory" : verr.message);
    rig_result_free(res);
    return rig_result_error("Tool '%s' returned structured content that does not match its "
                            "output schema: %s (a bug in the tool).", t->name,
                            rc == RIG_ENOMEM ? "out of memory" : verr.message);
}

rig_result *rig__call_run(struct rig_call *c, rig_error *err)
{
    rig_tool *t = c->tool;
    const hooks *tsh = c->ts && c->root == c ? rig__toolset_hooks(c->ts) : NULL;
    rig_result *res = NULL;
    if (tsh && (res = run_before(c, tsh, err)))
        return res;
    if ((res = run_before(c, &t->hooks, err)))
        return res;
    if (rig_call_cancelled(c)) {
        /* Worded like the deadline timer's answer, which this one races. */
        bool late = c->root->deadline_ns && rig__now_ns() >= c->root->deadline_ns;
        const char *why = late ? "reached its deadline" : "was cancelled";
        rig_error_set(err, late ? RIG_ETIMEDOUT : RIG_ECANCELED, "Tool '%s' %s before it ran.",
                      t->name, why);
        return rig_result_error("Tool '%s' %s before it ran.", t->name, why);
    }
    if (!t->fn) {
        rig_error_set(err, RIG_ETOOL, "Tool '%s' has no executor.", t->name);
        return rig_result_error("Tool '%s' has no executor; it cannot be called.", t->name);
    }
    res = t->fn(c);
    if (!res) {
        rig_error_set(err, RIG_ETOOL, "Tool '%s' returned no result.", t->name);
        res = rig_result_error("Tool '%s' returned no result (a bug in the tool).", t->name);
    } else if (rig_result_status(res) != RIG_OK) {
        int st = rig_result_status(res);
        rig_result_free(res);
        rig_error_set(err, RIG_ETOOL, "Tool '%s' could not build its result: %s.", t->name,
                      rig_strerror(st));
        res = rig_result_error("Tool '%s' could not build its result: %s. Try a smaller request.",
                               t->name, rig_strerror(st));
    } else {
        res = check_output(c, res, err);
    }
    res = run_after(c, &t->hooks, res);
    if (tsh)
        res = run_after(c, tsh, res);
    if (err && err->code == RIG_OK && rig_result_is_error(res))
        rig_error_set(err, RIG_ETOOL, "Tool '%s' returned an error result.", t->name);
    return res;
}

/* ---- the context an executor sees ----------------------------------- */

rig_json_val rig_call_args(const rig_call *c)
{
    return c ? rig_json_doc_root(c->doc) : (rig_json_val){0};
}

const rig_tool *rig_call_tool(const rig_call *c)
{
    return c ? c->tool : NULL;
}

void *rig_call_data(const rig_call *c)
{
    return c && c->tool->state ? c->tool->state->data : NULL;
}

const char *rig_call_session(const rig_call *c)
{
    return c && c->root->session ? c->root->session : "";
}

rig_arena *rig_call_arena(rig_call *c)
{
    if (c && !c->arena)
        c->arena = rig_arena_new(0);
    return c ? c->arena : NULL;
}

bool rig_call_cancelled(const rig_call *c)
{
    if (!c)
        return false;
    const struct rig_call *r = c->root;
    if (atomic_load_explicit(&r->cancelled, memory_order_relaxed))
        return true;
    return r->deadline_ns && rig__now_ns() >= r->deadline_ns;
}

int64_t rig_call_remaining_ms(const rig_call *c)
{
    if (!c || !c->root->deadline_ns)
        return INT64_MAX;
    int64_t left = c->root->deadline_ns - rig__now_ns();
    return left > 0 ? left / 1000000 : 0;
}

int rig_call_sleep(rig_call *c, int64_t ms)
{
    if (!c)
        return RIG_EINVAL;
    struct rig_call *r = c->root;
    int64_t start = rig__now_ns();
    /* Saturate: rig_call_sleep(c, INT64_MAX) sleeps until stopped. */
    int64_t wake = ms <= 0 ? start
                 : ms > (INT64_MAX - start) / 1000000 ? INT64_MAX : start + ms * 1000000;
    int rc = RIG_OK;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        /* The deadline first: the timer stops a late call through the
         * cancel flag too, and the tool should learn that time ran out. */
        int64_t now = rig__now_ns();
        if (r->deadline_ns && now >= r->deadline_ns) {
            rc = RIG_ETIMEDOUT;
            break;
        }
        if (atomic_load(&r->cancelled)) {
            rc = RIG_ECANCELED;
            break;
        }
        if (now >= wake)
            break;
        int64_t until = r->deadline_ns && r->deadline_ns < wake ? r->deadline_ns : wake;
        struct timespec ts = {.tv_sec = until / 1000000000, .tv_nsec = until % 1000000000};
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

const char *rig_call_security_risk(const rig_call *c)
{
    return c ? c->risk : NULL;
}

const char *rig_call_summary(const rig_call *c)
{
    return c ? c->summary : NULL;
}

void rig_call_progress(rig_call *c, double progress, double total, const char *message)
{
    if (!c || !c->root->peer || !c->root->peer->progress || rig_call_cancelled(c))
        return;
    c->root->peer->progress(progress, total, message, c->root->peer_ud);
}

static const char *const log_levels[] = {"debug",    "info",  "notice", "warning",
                                         "error",    "critical", "alert", "emergency"};

const char *rig_log_level_name(rig_log_level level)
{
    return (unsigned)level < sizeof log_levels / sizeof *log_levels ? log_levels[level] : NULL;
}

int rig_log_level_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof log_levels / sizeof *log_levels; i++)
        if (strcmp(name, log_levels[i]) == 0)
            return (int)i;
    return -1;
}

void rig_call_log(rig_call *c, rig_log_level level, const char *logger, const char *data)
{
    if (!c || !data || !rig_log_level_name(level) || !c->root->peer || !c->root->peer->log)
        return;
    /* The peer puts `data` inside a message as it is: it must be one JSON
     * value (rig_call_logf's always is, so it skips this). */
    size_t len = strlen(data);
    rig_json_doc *d = rig_json_parse(data, len, NULL, NULL);
    rig_json_doc_free(d);
    if (d)
        c->root->peer->log(level, logger, data, len, c->root->peer_ud);
}

void rig_call_logf(rig_call *c, rig_log_level level, const char *fmt, ...)
{
    if (!c || !fmt || !c->root->peer || !c->root->peer->log)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_string(&w, buf);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w, &len);
    if (json)
        c->root->peer->log(level, NULL, json, len, c->root->peer_ud);
    rig_json_writer_free(&w);
}

void rig_call_close_stream(rig_call *c, unsigned retry_ms)
{
    if (c && c->root->peer && c->root->peer->close_stream)
        c->root->peer->close_stream(retry_ms, c->root->peer_ud);
}

int rig_call_ask(rig_call *c, const char *method, const char *params, char **answer,
                 size_t *answer_len, rig_error *err)
{
    if (answer)
        *answer = NULL;
    if (answer_len)
        *answer_len = 0;
    if (!c || !method || !answer)
        return rig_error_set(err, RIG_EINVAL, "rig_call_ask needs a call, a method and an answer.");
    if (c->tool && (c->tool->flags & RIG_TOOL_INLINE))
        return rig_error_set(err, RIG_ESTATE,
                             "Tool '%s' runs inline, on the thread that would carry the "
                             "client's answer; a tool that asks its client must run on a worker.",
                             c->tool->name);
    if (!c->root->peer || !c->root->peer->ask)
        return rig_error_set(err, RIG_ENOTSUP,
                             "Nobody to ask: this call's caller cannot send '%s' to a client.",
                             method);
    if (rig_call_cancelled(c))
        return rig_error_set(err, RIG_ECANCELED, "The call was cancelled.");
    const char *p = params && *params ? params : "{}";
    return c->root->peer->ask(c, method, p, strlen(p), answer, answer_len, err, c->root->peer_ud);
}

void rig_call_emit(rig_call *c, const char *event, const char *data_json)
{
    if (!c || !event)
        return;
    rig__hooks_fire(&c->tool->hooks, event, c->tool, data_json);
    if (c->ts)
        rig__hooks_fire(rig__toolset_hooks(c->ts), event, c->tool, data_json);
}

const char *rig_call_str(rig_call *c, const char *key, size_t *len)
{
    rig_json_val v = rig_json_get(rig_call_args(c), key);
    if (rig_json_typeof(v) != RIG_JSON_STRING) {
        if (len)
            *len = 0;
        return NULL;
    }
    rig_arena *a = rig_call_arena(c);
    return a ? rig_json_str_dup(v, a, len) : NULL;
}

int64_t rig_call_int(const rig_call *c, const char *key, int64_t fallback)
{
    int64_t out;
    return rig_json_get_int64(rig_json_get(rig_call_args(c), key), &out) == 0 ? out : fallback;
}

double rig_call_double(const rig_call *c, const char *key, double fallback)
{
    double out;
    return rig_json_get_double(rig_json_get(rig_call_args(c), key), &out) == 0 ? out : fallback;
}

bool rig_call_bool(const rig_call *c, const char *key, bool fallback)
{
    bool out;
    return rig_json_get_bool(rig_json_get(rig_call_args(c), key), &out) == 0 ? out : fallback;
}

bool rig_call_has(const rig_call *c, const char *key)
{
    return rig_json_typeof(rig_json_get(rig_call_args(c), key)) != RIG_JSON_MISSING;
}
