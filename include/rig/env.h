/* rig/env.h — environments: tasks, the answers agents submit, and the grades
 * graders give them (REFERENCE 1-2, HUD's control channel).
 *
 * It holds the two values that pass between a task and its grader, the
 * environment that serves tasks, and the control channel's server:
 *
 *   - rig_answer: what the agent submitted, as `raw` (always text) and
 *     `content` (the value parsed into the task's declared `returns` type).
 *     rig_answer_parse takes the JSON of the `answer` param of tasks.grade:
 *
 *       raw      a JSON string answer's decoded text, or, for any other
 *                value, that value's JSON text as sent.
 *       content  without `returns`: the submitted value itself.
 *                With `returns`: a string answer is kept as the string when
 *                the schema accepts a string; otherwise it is JSON-parsed and
 *                the result validated; any other value is validated as it
 *                is. When that fails, content is the raw string (a JSON
 *                string value) and `parsed` is false — as HUD's
 *                Answer{content, raw} falls back.
 *       parsed   true when content is a value the `returns` schema accepts.
 *
 *     The answer owns everything it points to; rig_answer_free releases it.
 *
 *   - rig_grade: a grader's verdict, HUD's EvaluationResult with `reward`
 *     named `score`, written by rig_grade_write as the grade frame of
 *     tasks.grade:
 *
 *       {"score": 0.5, "done"?: false, "content"?: "...", "info"?: {...},
 *        "isError"?: true, "subscores"?: [{"name","weight","value",
 *        "children"?, "info"?}, ...]}
 *
 *     Optional members are written only when they differ from their
 *     defaults (done true, no content, no info, not an error, no
 *     subscores), so a plain number grade is `{"score":1.0}`. A score that
 *     is not finite is written as 0.
 *
 *   - rig_env: an environment (HUD's Environment) — a name, a version, the
 *     capabilities it publishes (concrete wire data: {name, protocol, url,
 *     params}), task templates, and initialize / shutdown hooks. A task
 *     template (rig_task_spec) has an id, a description, a typed `args`
 *     schema, optional `input` and `returns` schemas, and two functions:
 *
 *       start(ctx, args, err)  -> malloc'd JSON text of the prompt: a string
 *                                 (sent as {"prompt": s}), an object holding
 *                                 "prompt" (sent whole, e.g. with per-episode
 *                                 bindings), or any other value (sent as
 *                                 {"prompt": value}). NULL with err filled
 *                                 when the task cannot start (-32000).
 *       grade(ctx, answer, out, err) -> 0 with *out filled, or non-zero with
 *                                 err filled (a grader exception: -32000).
 *       end(ctx)               -> optional; frees what start kept with
 *                                 rig_task_ctx_set_state.
 *
 *     start and grade run on worker threads, never on the loop thread, one
 *     at a time per task; end runs on the loop thread once nothing uses the
 *     task any more (after a grade, a cancel, a replacing start, bye, or
 *     server stop — and only after a grader that timed out has returned).
 *     A start or grade that takes longer than grade_timeout_ms is abandoned:
 *     the client gets an error (start) or an isError grade (grade) at the
 *     deadline, rig_task_ctx_cancelled turns true, and a fresh worker takes
 *     the stuck one's place, so a hung grader never stalls the server.
 *
 *   - the control channel (REFERENCE 1): rig_env_serve binds a TCP port,
 *     calls on_ready(port) (the CLI prints RIG_SERVE_PORT=<port>), and
 *     answers newline-delimited JSON-RPC 2.0: hello, tasks.list,
 *     tasks.start, tasks.grade, tasks.cancel, bye, and tunnel.open as a
 *     first frame. What rig does beyond the anchor, and its limits:
 *
 *       - a line that is not JSON gets -32700 and the connection lives on;
 *       - a line longer than max_line (16 MiB) gets -32600 "line too long"
 *         (id null) as soon as it is known to be too long; its bytes are
 *         dropped as they arrive, never buffered, and the connection lives
 *         on from the next line;
 *       - one connection's requests are answered in order: while its start
 *         or grade runs, its later lines wait (other connections do not);
 *       - a session that holds a task (or has a start/grade running) is
 *         parked when its socket drops; one that holds nothing is forgotten
 *         (hello with its id then says "unknown session");
 *       - a parked session nobody resumes within park_timeout_ms (one hour)
 *         is ended as bye ends it (its task's end runs) and forgotten: its
 *         id is then an "unknown session". Resuming it stops the clock; it
 *         starts again from zero if its socket drops again. The anchor
 *         keeps parked sessions until the process exits;
 *       - a client that sends requests but does not read its replies is
 *         paced: once more than 4 MiB of replies wait to be written to it,
 *         its connection is not read (its lines already read wait too)
 *         until they drain below 1 MiB, so what it costs stays near 4 MiB
 *         plus one reply, whatever it sends; it then gets every reply, in
 *         order;
 *       - at most max_tasks sessions hold a task at once (tasks.start beyond
 *         it: -32600), and at most max_connections sockets are open (more
 *         are closed at accept), so memory stays bounded: a parked session
 *         costs one small struct plus what its task keeps.
 */
#ifndef RIG_ENV_H
#define RIG_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"
#include "rig/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- answers */

typedef struct rig_answer {
    char *raw;            /* NUL-terminated (the text may itself hold NULs: use raw_len) */
    size_t raw_len;
    rig_json_val content; /* valid while the answer lives */
    bool parsed;          /* content satisfies the declared `returns` schema */
    /* private */
    rig_json_doc *doc_;     /* the submitted value */
    rig_json_doc *content_doc_; /* a parsed string, or the raw fallback */
} rig_answer;

/* Parse `answer_json` (len bytes: one JSON value, the `answer` of
 * tasks.grade) against `returns` (may be NULL: no declared type) into *out.
 * The text is copied; the caller may free it at once. Returns RIG_OK, or
 * RIG_EJSON when the text is not one JSON value (err says where),
 * RIG_EINVAL for NULL arguments, RIG_ENOMEM. On failure *out is empty and
 * needs no rig_answer_free (calling it is harmless). An answer that does
 * not fit `returns` is not an error: see `parsed`. */
RIG_API int rig_answer_parse(const char *answer_json, size_t len, const rig_schema *returns,
                             rig_answer *out, rig_error *err);

/* Release what the answer holds and empty it. NULL is allowed. */
RIG_API void rig_answer_free(rig_answer *a);

/* ---------------------------------------------------------------- grades */

typedef struct rig_grade {
    double score;         /* the reward, normally in [0, 1] */
    bool done;            /* default true */
    char *content;        /* malloc'd explanation, or NULL */
    char *info_json;      /* malloc'd JSON object text, or NULL */
    bool is_error;        /* the grader could not grade (not: the answer was wrong) */
    char *subscores_json; /* malloc'd JSON array of SubScore, or NULL */
} rig_grade;

/* A new grade: score 0, done true, nothing else.
 *     rig_grade g = RIG_GRADE_INIT; */
#define RIG_GRADE_INIT {.score = 0.0, .done = true}

/* Free what the grade holds and set it back to RIG_GRADE_INIT. NULL is
 * allowed. */
RIG_API void rig_grade_clear(rig_grade *g);

/* Write the grade frame (see above) as one JSON object into w. Returns 0
 * or the writer's error. info_json and subscores_json are inserted as they
 * are: they must be valid JSON (an object and an array). */
RIG_API int rig_grade_write(const rig_grade *g, rig_json_writer *w);


/* ---------------------------------------------------------------- environments */

typedef struct rig_env rig_env;
typedef struct rig_task_ctx rig_task_ctx;

/* What start and grade see of their task: valid from start until end
 * returns. */
RIG_API const char *rig_task_ctx_id(const rig_task_ctx *ctx);      /* task id */
RIG_API const char *rig_task_ctx_session(const rig_task_ctx *ctx); /* "sess-…" */
RIG_API rig_json_val rig_task_ctx_args(const rig_task_ctx *ctx);   /* validated args */
RIG_API void *rig_task_ctx_ud(const rig_task_ctx *ctx);            /* the spec's ud */
/* Per-task state: set it in start, read it in grade, free it in end. */
RIG_API void rig_task_ctx_set_state(rig_task_ctx *ctx, void *state);
RIG_API void *rig_task_ctx_state(const rig_task_ctx *ctx);
/* True once the task was cancelled, replaced, or its start/grade timed out:
 * a long start or grade should poll it and give up. Thread-safe. */
RIG_API bool rig_task_ctx_cancelled(const rig_task_ctx *ctx);

typedef char *(*rig_task_start_fn)(rig_task_ctx *ctx, rig_json_val args, rig_error *err);
typedef int (*rig_task_grade_fn)(rig_task_ctx *ctx, const rig_answer *answer, rig_grade *out,
                                 rig_error *err);
typedef void (*rig_task_end_fn)(rig_task_ctx *ctx);

typedef struct rig_task_spec {
    const char *id;          /* required, unique in the env */
    const char *description; /* may be NULL */
    const char *args_schema; /* JSON Schema text; NULL: {"type":"object"} */
    const char *input_schema;   /* optional */
    const char *returns_schema; /* optional: answers are parsed against it */
    rig_task_start_fn start;    /* required */
    rig_task_grade_fn grade;    /* required */
    rig_task_end_fn end;        /* optional */
    void *ud;
} rig_task_spec;

typedef struct rig_capability {
    const char *name;        /* "shell", "browser", "tools", ... */
    const char *protocol;    /* "ssh/2", "cdp/1.3", "mcp/2025-11-25", ... */
    const char *url;         /* where it is served; tunnel.open uses its host:port */
    const char *params_json; /* a JSON object, or NULL for {} */
} rig_capability;

typedef int (*rig_env_hook_fn)(rig_env *env, void *ud, rig_error *err);

/* A new environment (name NULL: "environment", version NULL: "0.0.1"), or
 * NULL with err filled. */
RIG_API rig_env *rig_env_new(const char *name, const char *version, rig_error *err);
/* Free it; it must not be serving. NULL is allowed. */
RIG_API void rig_env_free(rig_env *env);

/* Add a task template; everything in the spec is copied (the schemas are
 * compiled). RIG_EEXIST for a taken id, RIG_ESCHEMA / RIG_EJSON for a bad
 * schema, RIG_EINVAL for a missing id, start or grade. Add tasks before
 * serving. */
RIG_API int rig_env_add_task(rig_env *env, const rig_task_spec *spec, rig_error *err);

/* Publish a capability, replacing one of the same name; the strings are
 * copied. Thread-safe: an initialize hook (or a daemon's thread) may call it
 * while the env serves; hello answers with what is published at that time. */
RIG_API int rig_env_add_capability(rig_env *env, const rig_capability *cap, rig_error *err);

/* Hooks run on the serving thread: initialize before the port is bound (a
 * failure stops serving: rig_env_serve returns its code), shutdown after the
 * last connection closed. Setting one again replaces it. */
RIG_API void rig_env_on_initialize(rig_env *env, rig_env_hook_fn fn, void *ud);
RIG_API void rig_env_on_shutdown(rig_env *env, rig_env_hook_fn fn, void *ud);

/* ---------------------------------------------------------------- serving */

#define RIG_ENV_MAX_LINE ((size_t)16 << 20)  /* bytes a control line may hold */
#define RIG_ENV_GRADE_TIMEOUT_MS 600000      /* a start or grade's deadline */
#define RIG_ENV_MAX_CONNECTIONS 16384
#define RIG_ENV_MAX_TASKS 16384              /* sessions holding a task at once */
#define RIG_ENV_WORKERS 8                    /* threads running start/grade */
#define RIG_ENV_PARK_TIMEOUT_MS 3600000      /* a parked session is ended after an hour */

/* Options grow at the end; zero means the default. */
typedef struct rig_env_serve_opts {
    const char *host;          /* NULL: "127.0.0.1" */
    int port;                  /* 0: any free port */
    int64_t grade_timeout_ms;  /* RIG_ENV_GRADE_TIMEOUT_MS */
    size_t max_line;           /* RIG_ENV_MAX_LINE */
    unsigned max_connections;  /* RIG_ENV_MAX_CONNECTIONS */
    unsigned max_tasks;        /* RIG_ENV_MAX_TASKS */
    unsigned workers;          /* RIG_ENV_WORKERS */
    int64_t park_timeout_ms;   /* RIG_ENV_PARK_TIMEOUT_MS: a parked session's life */
} rig_env_serve_opts;

typedef void (*rig_env_ready_fn)(int port, void *ud);

/* Run the initialize hook, bind, call on_ready(port, ud) (may be NULL), and
 * serve on the calling thread until SIGINT or SIGTERM or rig_env_stop; then
 * close every connection, end every task, wait for the workers (a grader
 * still hung after 5 s is left behind), and run the shutdown hook. Returns
 * 0 or a RIG_E* code with err filled (RIG_EINVAL for a host that cannot be
 * bound, RIG_ESTATE if the env is already serving). */
RIG_API int rig_env_serve(rig_env *env, const rig_env_serve_opts *opts, rig_env_ready_fn on_ready,
                          void *ud, rig_error *err);

/* Make rig_env_serve (or a server started below) return. Thread-safe and
 * async-signal-unsafe; harmless when the env is not serving. */
RIG_API void rig_env_stop(rig_env *env);

/* The same server on a thread of its own, for embedding and tests: returns
 * once the port is bound (0 and *out set) or binding failed. */
typedef struct rig_env_server rig_env_server;
RIG_API int rig_env_server_start(rig_env *env, const rig_env_serve_opts *opts,
                                 rig_env_server **out, rig_error *err);
RIG_API int rig_env_server_port(const rig_env_server *s);
/* Stop it, wait for its thread, and free it. NULL is allowed. */
RIG_API void rig_env_server_stop(rig_env_server *s);

/* ---------------------------------------------------------------- tasksets
 *
 * An environment without C: a JSON file of tasks, each with a prompt
 * template, a built-in grader and optionally a workspace (docs/env.md has
 * the whole format):
 *
 *   {"name": "repo-tasks", "version": "1.0.0", "description"?: "...",
 *    "tasks": [{"id": "fix-bug", "description": "...",
 *               "args"?: <JSON Schema>, "input"?: <schema>, "returns"?: <schema>,
 *               "prompt": "Fix the bug in {file}.",
 *               "workspace"?: "repo",
 *               "grader": {"type": "command", "run": "make test"}}]}
 *
 * The prompt's "{name}" placeholders are the task's args (a string arg's
 * text, any other's JSON; "{{" and "}}" are braces), as in the graders.
 * "workspace" names a directory (relative to the file) that each episode
 * gets a fresh copy of, under work_dir; file and command graders work in
 * it. With `tools` given, that MCP server is published as the "tools"
 * capability (protocol mcp/2025-11-25, Streamable HTTP) and each episode's
 * start result carries
 *
 *   {"prompt": "...", "workspace": "/work/dir/sess-…-1",
 *    "bindings": [{"name": "tools", "protocol": "mcp/2025-11-25",
 *                  "url": "http://127.0.0.1:PORT/mcp",
 *                  "params": {"transport": "streamable-http",
 *                             "auth_token": "<32 hex>"}}]}
 *
 * A client presenting that token as its bearer token gets an MCP session
 * whose roots are that workspace alone (relative paths resolve there, the
 * shell runs there and, sandboxed, writes nowhere else); no token, another
 * episode's token, or one whose episode ended is refused (401). */

typedef struct rig_mcp_server rig_mcp_server;
typedef struct rig_roots rig_roots;

typedef struct rig_taskset_opts {
    /* An existing directory where episodes' workspaces are made (each
     * "<session>-<n>", removed when its episode ends). Required when a task
     * has a workspace. */
    const char *work_dir;
    /* The MCP server to publish as "tools" (NULL: none). Its file tools and
     * shell must be confined to `roots`, whose per-session roots the
     * taskset sets; the caller keeps both, and they must outlive serving. */
    rig_mcp_server *tools;
    rig_roots *roots;
    const char *tools_host;   /* where tools listen; NULL: "127.0.0.1" (port: any free) */
    /* Called when an episode ends for each MCP session its token opened
     * (may be NULL): the session no longer has a workspace, so whatever it
     * holds beyond its roots — background shell jobs, plan mode — should go.
     * Its roots are dropped already. Runs on the serving thread. */
    void (*on_tools_session_end)(const char *session, void *ud);
    void *ud;
    /* Command graders run unconfined (default: they may write only beneath
     * the episode's workspace and a private $TMPDIR, with Landlock). */
    bool no_sandbox;
} rig_taskset_opts;

/* An environment from the taskset file at `path` (workspace templates are
 * relative to the file's directory), or from `json` (len bytes; templates
 * relative to `base_dir`, NULL: the current directory). NULL with err
 * filled (RIG_ENOENT, RIG_EJSON, RIG_ESCHEMA or RIG_EINVAL) naming the file and
 * where in it: "tasks[1].grader: 'tolerance' must be >= 0". Unknown members
 * are errors, so a typo is caught at load. rig_env_free frees what the
 * taskset holds; its initialize and shutdown hooks are taken (they start
 * and stop the tools server). */
RIG_API rig_env *rig_taskset_load(const char *path, const rig_taskset_opts *opts, rig_error *err);
RIG_API rig_env *rig_taskset_parse(const char *json, size_t len, const char *base_dir,
                                   const rig_taskset_opts *opts, rig_error *err);

/* ---------------------------------------------------------------- plugins
 *
 * An environment written in C and built as a shared object exports this
 * function; `rig env serve PLUGIN.so` loads it, serves what it returns, and
 * frees it with rig_env_free afterwards. The plugin calls rig's functions
 * from the rig executable that loads it (it need not link librig). */
#define RIG_ENV_PLUGIN_SYMBOL "rig_env_plugin_new"
typedef rig_env *(*rig_env_plugin_fn)(rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
