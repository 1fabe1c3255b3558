/* taskset.c — an environment from a JSON taskset file: tasks with prompt
 * templates and built-in graders, per-episode workspaces copied from a
 * template, and rig's MCP server published as the "tools" capability, each
 * episode reaching only its own workspace through a token of its own.
 *
 * An episode (one started task) that has a workspace is a row in a table
 * keyed by its token. The MCP server asks us about every request
 * (rig_mcp_http_opts.authorize, on its thread): at a session's initialize
 * we give that session the episode's workspace as its only root and note
 * the session in the row; later requests are admitted while the row
 * exists. When grading begins the row is removed — from then on the token
 * opens nothing, the sessions it opened lose their roots and their
 * background jobs, and the agent can no longer change what is graded. The
 * episode's end (on the control channel's thread, which must not block)
 * removes the row if grading did not, and hands the rest — ending those
 * sessions, which may wait out a kill grace, and removing the workspace,
 * which may hold many files — to a cleanup thread that shutdown drains.
 *
 * Workspaces are named by 64 random bits, not by session, so an agent that
 * could list the work directory (it cannot, under --sandbox strict) still
 * would not learn another client's session id. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env/env_internal.h"
#include "env/graders.h"
#include "env/workspace.h"
#include "rig/mcp.h"
#include "rig/roots.h"
#include "util/hash.h"
#include "util/hex.h"

#define TOKEN_HEX 32
#define EPISODE_BUCKETS 4096u /* power of two; 10,000 episodes: chains of ~2 */
#define TASKSET_MAX_BYTES ((size_t)64 << 20)
#define EPISODE_MAX_SESSIONS 64 /* MCP sessions one token may open */

typedef struct taskset taskset;

/* A task's own part: the spec's ud, so start and grade find it directly. */
typedef struct ts_task {
    taskset *ts;
    char *prompt;          /* template */
    rig__grader *grader;
    char *workspace;       /* absolute template directory, or NULL */
} ts_task;

typedef struct episode episode;
struct episode {
    episode *next;         /* bucket chain; then the cleanup queue */
    char token[TOKEN_HEX + 1];
    char *dir;             /* the workspace copy */
    char **sessions;       /* MCP sessions the token opened (under ts->mu) */
    size_t nsessions;
    bool listed;           /* in the token table (under ts->mu) */
};

struct taskset {
    rig_env *env;
    rig_taskset_opts o;
    char *work_dir, *tools_host;
    ts_task *tasks;        /* one per task, in load order (never moved: tasks' uds) */
    size_t ntasks;
    bool has_workspaces;
    rig_mcp_http *http;
    char *tools_url;       /* set by the initialize hook, read-only after */
    pthread_mutex_t mu;    /* the episode table, the cleanup queue */
    episode *buckets[EPISODE_BUCKETS];
    pthread_cond_t cleanup_cv;
    episode *cleanup_head, *cleanup_tail;
    bool cleanup_started, cleanup_stop;
    pthread_t cleanup_thread;
};

/* ---------------------------------------------------------------- episodes */

/* Under ts->mu. */
static episode **episode_slot(taskset *ts, const char *token, size_t len) {
    episode **pp = &ts->buckets[rig__hash_bytes(token, len) & (EPISODE_BUCKETS - 1)];
    while (*pp && !(strlen((*pp)->token) == len && memcmp((*pp)->token, token, len) == 0))
        pp = &(*pp)->next;
    return pp;
}

static bool authorize(const char *token, size_t len, const char *session, bool initialize,
                      void *ud) {
    taskset *ts = ud;
    if (len != TOKEN_HEX)
        return false;
    pthread_mutex_lock(&ts->mu);
    episode *ep = *episode_slot(ts, token, len);
    bool ok = ep != NULL;
    if (ok && initialize && ep->nsessions >= EPISODE_MAX_SESSIONS)
        ok = false; /* one token must not fill the server's session table */
    if (ok && initialize) {
        char **grown = realloc(ep->sessions, (ep->nsessions + 1) * sizeof *grown);
        char *copy = strdup(session);
        const char *paths[1] = {ep->dir};
        rig_error err = {0};
        ok = grown && copy && rig_roots_set_session(ts->o.roots, session, paths, 1, &err) == 1;
        if (grown)
            ep->sessions = grown;
        if (ok)
            ep->sessions[ep->nsessions++] = copy;
        else
            free(copy);
    }
    pthread_mutex_unlock(&ts->mu);
    return ok;
}

static void episode_free(episode *ep) {
    for (size_t i = 0; i < ep->nsessions; i++)
        free(ep->sessions[i]);
    free(ep->sessions);
    free(ep->dir);
    free(ep);
}

/* ---------------------------------------------------------------- the task functions */

/* A new episode with a fresh workspace and token, in the table. */
static episode *episode_start(taskset *ts, const ts_task *t, rig_error *err) {
    episode *ep = calloc(1, sizeof *ep);
    unsigned char rnd[TOKEN_HEX / 2 + 8]; /* the token, then the workspace's name */
    if (!ep || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        free(ep);
        rig_error_set(err, RIG_ENOMEM, "cannot make the episode's token");
        return NULL;
    }
    rig__hex_encode(ep->token, rnd, TOKEN_HEX / 2);
    char name[17];
    rig__hex_encode(name, rnd + TOKEN_HEX / 2, 8);
    if (asprintf(&ep->dir, "%s/ep-%s", ts->work_dir, name) < 0) {
        ep->dir = NULL;
        free(ep);
        rig_error_set(err, RIG_ENOMEM, "out of memory");
        return NULL;
    }
    char why[RIG_ERROR_MESSAGE_MAX];
    if (rig__tree_copy(t->workspace, ep->dir, why, sizeof why) != 0) {
        rig_error_set(err, RIG_ETOOL, "cannot make the workspace: %s", why);
        episode_free(ep);
        return NULL;
    }
    pthread_mutex_lock(&ts->mu);
    episode **slot = episode_slot(ts, ep->token, TOKEN_HEX);
    *slot = ep; /* 128 random bits: a collision is not a case to handle */
    ep->listed = true;
    pthread_mutex_unlock(&ts->mu);
    return ep;
}

/* Take the episode's token out of the table: from then on it opens
 * nothing, and no session joins the episode. Under ts->mu. */
static void unlist_locked(taskset *ts, episode *ep) {
    if (!ep->listed)
        return;
    episode **pp = episode_slot(ts, ep->token, TOKEN_HEX);
    if (*pp == ep)
        *pp = ep->next;
    ep->next = NULL;
    ep->listed = false;
}

/* Grading begins, or the episode is being cleaned up: the token stops, and
 * the sessions it opened lose their workspace — roots, then whatever else
 * the host keeps for them (background jobs; may wait a kill grace). */
static void episode_revoke(taskset *ts, episode *ep) {
    pthread_mutex_lock(&ts->mu);
    unlist_locked(ts, ep);
    char **sessions = ep->sessions;
    size_t n = ep->nsessions;
    ep->sessions = NULL;
    ep->nsessions = 0;
    pthread_mutex_unlock(&ts->mu);
    for (size_t i = 0; i < n; i++) {
        if (ts->o.roots)
            rig_roots_drop_session(ts->o.roots, sessions[i]);
        if (ts->o.on_tools_session_end)
            ts->o.on_tools_session_end(sessions[i], ts->o.ud);
        free(sessions[i]);
    }
    free(sessions);
}

/* What is left of an ended episode, off the control channel's thread. */
static void episode_finish(taskset *ts, episode *ep) {
    episode_revoke(ts, ep);
    char why[RIG_ERROR_MESSAGE_MAX];
    if (rig__tree_remove(ep->dir, why, sizeof why) != 0)
        fprintf(stderr, "rig env: %s\n", why);
    episode_free(ep);
}

static void *cleanup_main(void *arg) {
    taskset *ts = arg;
    pthread_mutex_lock(&ts->mu);
    for (;;) {
        while (!ts->cleanup_head && !ts->cleanup_stop)
            pthread_cond_wait(&ts->cleanup_cv, &ts->mu);
        episode *ep = ts->cleanup_head;
        if (!ep)
            break; /* stopping, and the queue is drained */
        ts->cleanup_head = ep->next;
        if (!ts->cleanup_head)
            ts->cleanup_tail = NULL;
        pthread_mutex_unlock(&ts->mu);
        episode_finish(ts, ep);
        pthread_mutex_lock(&ts->mu);
    }
    pthread_mutex_unlock(&ts->mu);
    return NULL;
}

/* Wait until every ended episode is cleaned up, and stop the thread. */
static void cleanup_drain(taskset *ts) {
    pthread_mutex_lock(&ts->mu);
    bool started = ts->cleanup_started;
    ts->cleanup_stop = true;
    pthread_cond_signal(&ts->cleanup_cv);
    pthread_mutex_unlock(&ts->mu);
    if (started)
        pthread_join(ts->cleanup_thread, NULL);
    pthread_mutex_lock(&ts->mu);
    ts->cleanup_started = ts->cleanup_stop = false;
    episode *left = ts->cleanup_head; /* only if the thread never started */
    ts->cleanup_head = ts->cleanup_tail = NULL;
    pthread_mutex_unlock(&ts->mu);
    while (left) {
        episode *ep = left;
        left = ep->next;
        episode_finish(ts, ep);
    }
}

/* The episode is over (on the loop thread): its token stops at once, the
 * rest goes to the cleanup thread. */
static void episode_end(taskset *ts, episode *ep) {
    pthread_mutex_lock(&ts->mu);
    unlist_locked(ts, ep); /* its sessions are ended by the cleanup thread */
    if (ts->cleanup_tail)
        ts->cleanup_tail->next = ep;
    else
        ts->cleanup_head = ep;
    ts->cleanup_tail = ep;
    if (!ts->cleanup_started &&
        pthread_create(&ts->cleanup_thread, NULL, cleanup_main, ts) == 0)
        ts->cleanup_started = true;
    pthread_cond_signal(&ts->cleanup_cv);
    bool threaded = ts->cleanup_started;
    pthread_mutex_unlock(&ts->mu);
    if (!threaded)
        cleanup_drain(ts); /* no thread to be had: do it here rather than never */
}

static void write_bindings(rig_json_writer *w, const taskset *ts, const episode *ep) {
    rig_json_write_key(w, "bindings");
    rig_json_write_array_begin(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "name");
    rig_json_write_string(w, "tools");
    rig_json_write_key(w, "protocol");
    rig_json_write_string(w, "mcp/2025-11-25");
    rig_json_write_key(w, "url");
    rig_json_write_string(w, ts->tools_url);
    rig_json_write_key(w, "params");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "transport");
    rig_json_write_string(w, "streamable-http");
    rig_json_write_key(w, "auth_token");
    rig_json_write_string(w, ep->token);
    rig_json_write_object_end(w);
    rig_json_write_object_end(w);
    rig_json_write_array_end(w);
}

static char *ts_start(rig_task_ctx *ctx, rig_json_val args, rig_error *err) {
    const ts_task *t = rig_task_ctx_ud(ctx);
    taskset *ts = t->ts;
    char why[RIG_ERROR_MESSAGE_MAX];
    size_t plen;
    char *prompt =
        rig__template_expand("the prompt", t->prompt, strlen(t->prompt), args, false, &plen, why,
                             sizeof why);
    if (!prompt) {
        rig_error_set(err, RIG_EINVAL, "%s", why);
        return NULL;
    }
    episode *ep = NULL;
    if (t->workspace && !(ep = episode_start(ts, t, err))) {
        free(prompt);
        return NULL;
    }
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    if (!ep) {
        rig_json_write_stringn(&w, prompt, plen);
    } else {
        rig_json_write_object_begin(&w);
        rig_json_write_key(&w, "prompt");
        rig_json_write_stringn(&w, prompt, plen);
        rig_json_write_key(&w, "workspace");
        rig_json_write_string(&w, ep->dir);
        if (ts->tools_url)
            write_bindings(&w, ts, ep);
        rig_json_write_object_end(&w);
    }
    free(prompt);
    char *out = rig_json_writer_detach(&w, NULL);
    rig_json_writer_free(&w);
    if (!out) {
        if (ep)
            episode_end(ts, ep);
        rig_error_set(err, RIG_ENOMEM, "out of memory writing the prompt");
        return NULL;
    }
    rig_task_ctx_set_state(ctx, ep);
    return out;
}

static bool ctx_cancelled(void *ud) { return rig_task_ctx_cancelled(ud); }

static int ts_grade(rig_task_ctx *ctx, const rig_answer *answer, rig_grade *out, rig_error *err) {
    const ts_task *t = rig_task_ctx_ud(ctx);
    episode *ep = rig_task_ctx_state(ctx);
    if (ep)
        episode_revoke(t->ts, ep);
    if (rig__grader_run(t->grader, answer, rig_task_ctx_args(ctx), ep ? ep->dir : NULL, 0,
                        !t->ts->o.no_sandbox, ctx_cancelled, ctx, out) != 0)
        return rig_error_set(err, RIG_ENOMEM, "out of memory grading");
    return 0;
}

static void ts_end(rig_task_ctx *ctx) {
    episode *ep = rig_task_ctx_state(ctx);
    if (ep)
        episode_end(((const ts_task *)rig_task_ctx_ud(ctx))->ts, ep);
}

/* ---------------------------------------------------------------- hooks */

static int ts_init(rig_env *env, void *ud, rig_error *err) {
    taskset *ts = ud;
    if (!ts->o.tools || !ts->has_workspaces)
        return 0;
    rig_mcp_http_opts ho = {.host = ts->tools_host, .port = 0, .authorize = authorize,
                            .authorize_ud = ts, .max_sessions = 20000};
    rig_error e = {0};
    ts->http = rig_mcp_http_start(ts->o.tools, &ho, &e);
    if (!ts->http)
        return rig_error_set(err, e.code ? e.code : RIG_EINVAL, "cannot serve the tools: %s",
                             e.message);
    bool v6 = strchr(ts->tools_host, ':') != NULL;
    if (asprintf(&ts->tools_url, "http://%s%s%s:%u/mcp", v6 ? "[" : "", ts->tools_host,
                 v6 ? "]" : "", rig_mcp_http_port(ts->http)) < 0) {
        ts->tools_url = NULL;
        return rig_error_set(err, RIG_ENOMEM, "out of memory");
    }
    rig_capability cap = {.name = "tools", .protocol = "mcp/2025-11-25", .url = ts->tools_url,
                          .params_json = "{\"transport\":\"streamable-http\"}"};
    return rig_env_add_capability(env, &cap, err);
}

static int ts_shutdown(rig_env *env, void *ud, rig_error *err) {
    (void)env, (void)err;
    taskset *ts = ud;
    cleanup_drain(ts); /* every task has ended: their workspaces go now */
    rig_mcp_http_stop(ts->http);
    ts->http = NULL;
    free(ts->tools_url);
    ts->tools_url = NULL;
    return 0;
}

static void taskset_free(void *p) {
    taskset *ts = p;
    if (!ts)
        return;
    cleanup_drain(ts);
    rig_mcp_http_stop(ts->http);
    for (size_t i = 0; i < ts->ntasks; i++) {
        free(ts->tasks[i].prompt);
        rig__grader_free(ts->tasks[i].grader);
        free(ts->tasks[i].workspace);
    }
    for (size_t b = 0; b < EPISODE_BUCKETS; b++)
        for (episode *ep = ts->buckets[b], *n; ep; ep = n) {
            n = ep->next;
            episode_free(ep);
        }
    free(ts->tasks);
    free(ts->tools_url);
    free(ts->work_dir);
    free(ts->tools_host);
    pthread_cond_destroy(&ts->cleanup_cv);
    pthread_mutex_destroy(&ts->mu);
    free(ts);
}

/* ---------------------------------------------------------------- loading */

typedef struct loader {
    const char *file;     /* for messages */
    const char *base_dir;
    rig_error *err;
} loader;

static void *bad(loader *L, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *bad(loader *L, int code, const char *fmt, ...) {
    char msg[RIG_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rig_error_set(L->err, code, "%s: %s", L->file, msg);
    return NULL;
}

/* A malloc'd copy of string member `key` of obj, or NULL (missing: *ok
 * stays true; not a string: *ok false). */
static char *opt_string(rig_json_val obj, const char *key, bool *ok) {
    rig_json_val v = rig_json_get(obj, key);
    if (!rig_json_exists(v))
        return NULL;
    if (!rig_json_is_string(v)) {
        *ok = false;
        return NULL;
    }
    size_t n = rig_json_str_len(v);
    char *s = malloc(n + 1);
    if (s)
        rig_json_str_copy(v, s, n + 1, NULL);
    if (s && memchr(s, '\0', n)) { /* "\u0000" would cut the name short unseen */
        free(s);
        *ok = false;
        return NULL;
    }
    return s;
}

static bool only_members(rig_json_val obj, const char *const *allowed, char *which, size_t cap) {
    rig_json_iter it = rig_json_iter_init(obj);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        bool known = false;
        for (size_t i = 0; allowed[i] && !known; i++)
            known = rig_json_str_eq(k, allowed[i]);
        if (!known) {
            rig_json_str_copy(k, which, cap, NULL);
            return false;
        }
    }
    return true;
}

/* A schema member's text, NUL-terminated, or NULL when it is missing. */
static char *schema_text(loader *L, rig_json_val task, const char *key, size_t i, bool *ok) {
    rig_json_val v = rig_json_get(task, key);
    if (!rig_json_exists(v))
        return NULL;
    rig_json_type ty = rig_json_typeof(v);
    if (ty != RIG_JSON_OBJECT && ty != RIG_JSON_BOOL) {
        *ok = false;
        bad(L, RIG_ESCHEMA, "tasks[%zu].%s must be a JSON Schema (an object)", i, key);
        return NULL;
    }
    size_t n;
    const char *raw = rig_json_raw(v, &n);
    char *s = strndup(raw, n);
    if (!s) {
        *ok = false;
        bad(L, RIG_ENOMEM, "out of memory");
    }
    return s;
}

/* Placeholders in the prompt must name declared args, when the args
 * schema declares properties: a typo is caught at load, not per episode. */
static bool check_placeholders(loader *L, const char *prompt, rig_json_val args, size_t i) {
    rig_json_val props = rig_json_get(args, "properties");
    if (!rig_json_exists(props))
        return true;
    size_t n = strlen(prompt), len;
    for (size_t k = 0; k < n; k++) {
        if ((prompt[k] == '{' || prompt[k] == '}') && k + 1 < n && prompt[k + 1] == prompt[k]) {
            k++; /* a literal brace, as rig__template_expand reads it */
            continue;
        }
        if (!(len = rig__template_placeholder(prompt, n, k)))
            continue;
        if (!rig_json_exists(rig_json_getn(props, prompt + k + 1, len))) {
            bad(L, RIG_EINVAL, "tasks[%zu].prompt: {%.*s} names no property of the task's args",
                i, (int)len, prompt + k + 1);
            return false;
        }
        k += len + 1;
    }
    return true;
}

static char *resolve_workspace(loader *L, const char *rel, size_t i) {
    char joined[PATH_MAX * 2];
    if (rel[0] == '/')
        snprintf(joined, sizeof joined, "%s", rel);
    else
        snprintf(joined, sizeof joined, "%s/%s", L->base_dir ? L->base_dir : ".", rel);
    char *abs = realpath(joined, NULL);
    struct stat st;
    if (!abs || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int e = abs ? ENOTDIR : errno;
        free(abs);
        return bad(L, RIG_EINVAL, "tasks[%zu].workspace: %s: %s", i, joined, strerror(e));
    }
    return abs;
}

static int load_task(loader *L, taskset *ts, rig_json_val tj, size_t i) {
    static const char *const members[] = {"id", "description", "args", "input", "returns",
                                          "prompt", "workspace", "grader", NULL};
    char which[128];
    if (rig_json_typeof(tj) != RIG_JSON_OBJECT)
        return bad(L, RIG_EINVAL, "tasks[%zu] must be an object", i), -1;
    if (!only_members(tj, members, which, sizeof which))
        return bad(L, RIG_EINVAL,
                   "tasks[%zu]: unknown member '%s' (a task has id, description, args, input, "
                   "returns, prompt, workspace, grader)",
                   i, which),
               -1;
    bool ok = true;
    int rc = -1;
    char *id = opt_string(tj, "id", &ok);
    char *desc = opt_string(tj, "description", &ok);
    char *prompt = opt_string(tj, "prompt", &ok);
    char *ws_rel = opt_string(tj, "workspace", &ok);
    char *args = NULL, *input = NULL, *returns = NULL, *ws = NULL;
    rig__grader *g = NULL;
    if (!ok || !id || !*id || !prompt || (ws_rel && !*ws_rel)) {
        bad(L, RIG_EINVAL,
            "tasks[%zu]: 'id' and 'prompt' are required strings ('description' and "
            "'workspace' are strings too; none may hold \\u0000, and 'id' and "
            "'workspace' may not be empty)",
            i);
        goto out;
    }
    args = schema_text(L, tj, "args", i, &ok);
    if (ok)
        input = schema_text(L, tj, "input", i, &ok);
    if (ok)
        returns = schema_text(L, tj, "returns", i, &ok);
    if (!ok)
        goto out;
    if (!check_placeholders(L, prompt, rig_json_get(tj, "args"), i))
        goto out;
    rig_json_val gj = rig_json_get(tj, "grader");
    if (!rig_json_exists(gj)) {
        bad(L, RIG_EINVAL, "tasks[%zu] ('%s'): 'grader' is required", i, id);
        goto out;
    }
    char why[RIG_ERROR_MESSAGE_MAX];
    if (!(g = rig__grader_parse(gj, why, sizeof why))) {
        bad(L, RIG_EINVAL, "tasks[%zu].grader: %s", i, why);
        goto out;
    }
    if (ws_rel && !(ws = resolve_workspace(L, ws_rel, i)))
        goto out;
    rig_task_spec spec = {.id = id, .description = desc, .args_schema = args,
                          .input_schema = input, .returns_schema = returns,
                          .start = ts_start, .grade = ts_grade, .end = ts_end,
                          .ud = &ts->tasks[ts->ntasks]};
    rig_error e = {0};
    if (rig_env_add_task(ts->env, &spec, &e) != RIG_OK) {
        bad(L, e.code, "tasks[%zu]: %s", i, e.message);
        goto out;
    }
    ts->tasks[ts->ntasks++] = (ts_task){ts, prompt, g, ws};
    ts->has_workspaces |= ws != NULL;
    prompt = NULL, g = NULL, ws = NULL;
    rc = 0;
out:
    free(id);
    free(desc);
    free(prompt);
    free(ws_rel);
    free(args);
    free(input);
    free(returns);
    free(ws);
    rig__grader_free(g);
    return rc;
}

static rig_env *load(loader *L, const char *json, size_t len, const rig_taskset_opts *opts) {
    rig_json_error je;
    rig_json_doc *doc = rig_json_parse(json, len, NULL, &je);
    if (!doc) {
        char where[200];
        rig_json_error_format(&je, where, sizeof where);
        return bad(L, RIG_EJSON, "not valid JSON: %s", where);
    }
    rig_json_val root = rig_json_doc_root(doc);
    rig_env *env = NULL;
    taskset *ts = NULL;
    static const char *const members[] = {"name", "version", "description", "tasks", NULL};
    char which[128];
    rig_json_val tasks = rig_json_get(root, "tasks");
    if (rig_json_typeof(root) != RIG_JSON_OBJECT) {
        bad(L, RIG_EINVAL, "a taskset is a JSON object with \"tasks\"");
        goto fail;
    }
    if (!only_members(root, members, which, sizeof which)) {
        bad(L, RIG_EINVAL,
            "unknown member '%s' (a taskset has name, version, description, tasks)", which);
        goto fail;
    }
    if (rig_json_typeof(tasks) != RIG_JSON_ARRAY || rig_json_len(tasks) == 0) {
        bad(L, RIG_EINVAL, "\"tasks\" must be a non-empty array");
        goto fail;
    }
    bool ok = true;
    char *name = opt_string(root, "name", &ok);
    char *version = opt_string(root, "version", &ok);
    if (!ok) {
        free(name);
        free(version);
        bad(L, RIG_EINVAL, "'name' and 'version' must be strings");
        goto fail;
    }
    rig_error e = {0};
    env = rig_env_new(name ? name : "taskset", version ? version : "1.0.0", &e);
    free(name);
    free(version);
    if (!env) {
        bad(L, e.code, "%s", e.message);
        goto fail;
    }
    ts = calloc(1, sizeof *ts);
    size_t n = rig_json_len(tasks);
    if (!ts || !(ts->tasks = calloc(n, sizeof *ts->tasks))) {
        free(ts);
        ts = NULL;
        bad(L, RIG_ENOMEM, "out of memory");
        goto fail;
    }
    pthread_mutex_init(&ts->mu, NULL);
    pthread_cond_init(&ts->cleanup_cv, NULL);
    ts->env = env;
    rig__env_set_owner(env, ts, taskset_free);
    if (opts)
        ts->o = *opts;
    ts->tools_host = strdup(ts->o.tools_host ? ts->o.tools_host : "127.0.0.1");
    if (!ts->tools_host) {
        bad(L, RIG_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        if (load_task(L, ts, rig_json_at(tasks, i), i) != 0)
            goto fail;
    if (ts->has_workspaces) {
        char *wd = ts->o.work_dir ? realpath(ts->o.work_dir, NULL) : NULL;
        if (!wd) {
            bad(L, RIG_EINVAL, "tasks with a workspace need a work directory%s%s",
                ts->o.work_dir ? ": " : " (none was given)",
                ts->o.work_dir ? strerror(errno) : "");
            goto fail;
        }
        ts->work_dir = wd;
    }
    if (ts->o.tools && !ts->o.roots) {
        bad(L, RIG_EINVAL, "the tools server needs its roots (rig_taskset_opts.roots)");
        goto fail;
    }
    rig_env_on_initialize(env, ts_init, ts);
    rig_env_on_shutdown(env, ts_shutdown, ts);
    rig_json_doc_free(doc);
    return env;
fail:
    rig_env_free(env); /* frees ts too, once it is the owner */
    rig_json_doc_free(doc);
    return NULL;
}

rig_env *rig_taskset_parse(const char *json, size_t len, const char *base_dir,
                           const rig_taskset_opts *opts, rig_error *err) {
    loader L = {"taskset", base_dir, err};
    if (!json)
        return bad(&L, RIG_EINVAL, "no JSON given");
    return load(&L, json, len, opts);
}

rig_env *rig_taskset_load(const char *path, const rig_taskset_opts *opts, rig_error *err) {
    loader L = {path ? path : "(null)", NULL, err};
    if (!path)
        return bad(&L, RIG_EINVAL, "no path given");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return bad(&L, RIG_ENOENT, "%s", strerror(e));
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size > TASKSET_MAX_BYTES) {
        close(fd);
        return bad(&L, RIG_EINVAL, S_ISREG(st.st_mode) ? "larger than 64 MiB" : "not a file");
    }
    size_t len = (size_t)st.st_size;
    char *text = malloc(len + 1);
    size_t got = 0;
    while (text && got < len) {
        ssize_t r = read(fd, text + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!text || got != len) {
        free(text);
        return bad(&L, text ? RIG_ENOENT : RIG_ENOMEM, "cannot read it");
    }
    char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    L.base_dir = dir;
    rig_env *env = dir ? load(&L, text, len, opts) : bad(&L, RIG_ENOMEM, "out of memory");
    free(dir);
    free(text);
    return env;
}
