/* shell.c — the `shell` tool: one command, or several run in sequence
 * (stopping at the first failure unless ignore_errors) or in parallel,
 * each through shell_proc.c (its own process group, a timeout, output
 * kept within a cap with the whole of it saved to a file); or one command
 * started in the background as a job (shell_jobs.c). Also the rig_shell
 * state the shell tools share, and what every command needs from its
 * call: the working directory (inside the session's roots), the
 * environment (TMPDIR pointed at the private directory) and the Landlock
 * ruleset (writes only beneath the roots and that directory).
 *
 * The result is a text a model reads — each command's output, then a line
 * with its exit code, duration and directory, and notes for what was cut,
 * saved, skipped or timed out — and structuredContent with the same facts
 * as fields. A call fails (isError) when a command fails, unless
 * ignore_errors says failures are expected. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "sandbox/landlock.h"
#include "tools/builtins.h"
#include "tools/shell.h"
#include "tools/shell_proc.h"
#include "util/buf.h"
#include "util/environ.h"

/* Per stream when several commands share one result, so the whole stays
 * near one command's worth. */
#define MIN_SHARED_CAP 2000

/* ---- the shared state ----------------------------------------------------- */

void rig__shell_ref(rig_shell *sh)
{
    atomic_fetch_add(&sh->refs, 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void rig__shell_unref(void *p)
{
    rig_shell *sh = p;
    if (!sh || atomic_fetch_sub(&sh->refs, 1) != 1)
        return;
    rig__jobs_free(sh->jobs);
    if (sh->temp_dir)
        nftw(sh->temp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(sh->temp_dir);
    free(sh->tmpdir_env);
    free(sh->temp_parent);
    pthread_mutex_destroy(&sh->temp_mu);
    free(sh);
}

rig_shell *rig_shell_new(rig_roots *roots, const rig_shell_opts *o, rig_error *err)
{
    static const rig_shell_opts none = {0};
    if (!o)
        o = &none;
    if (!roots) {
        rig_error_set(err, RIG_EINVAL, "The shell needs roots: the directories it may write in.");
        return NULL;
    }
    rig_shell *sh = calloc(1, sizeof *sh);
    if (!sh) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory creating the shell.");
        return NULL;
    }
    atomic_init(&sh->refs, 1);
    sh->roots = roots;
    sh->no_sandbox = o->no_sandbox;
    sh->isolate = o->isolate;
    sh->landlock_abi = o->no_sandbox ? 0 : rig__landlock_abi();
    sh->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : RIG_SHELL_TIMEOUT_MS;
    sh->output_cap = o->output_cap ? o->output_cap : RIG_SHELL_OUTPUT_CAP;
    const char *parent = o->temp_parent;
    if (!parent || !*parent)
        parent = getenv("TMPDIR");
    if (!parent || !*parent)
        parent = "/tmp";
    pthread_mutex_init(&sh->temp_mu, NULL);
    sh->temp_parent = strdup(parent);
    sh->jobs = rig__jobs_new();
    if (!sh->temp_parent || !sh->jobs) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory creating the shell.");
        rig__shell_unref(sh);
        return NULL;
    }
    return sh;
}

/* The private directory, made on first use. 0, or -1 with `why`. */
static int ensure_temp(rig_shell *sh, char *why, size_t cap)
{
    pthread_mutex_lock(&sh->temp_mu);
    if (!sh->temp_dir) {
        char tmpl[PATH_MAX];
        int n = snprintf(tmpl, sizeof tmpl, "%s/rig-shell-XXXXXX", sh->temp_parent);
        if (n < 0 || (size_t)n >= sizeof tmpl || !mkdtemp(tmpl)) {
            snprintf(why, cap, "cannot make the shell's temporary directory in %s: %s",
                     sh->temp_parent, n > 0 && (size_t)n < sizeof tmpl ? strerror(errno)
                                                                     : "the path is too long");
        } else {
            /* The real path: Landlock rules and the paths results name must
             * agree with what the commands see (TMPDIR may hold a symlink). */
            char *real = realpath(tmpl, NULL);
            char *env = NULL;
            if (!real || asprintf(&env, "TMPDIR=%s", real) < 0) {
                free(real);
                rmdir(tmpl);
                snprintf(why, cap, "out of memory");
            } else {
                sh->tmpdir_env = env;
                sh->temp_dir = real;
            }
        }
    }
    int rc = sh->temp_dir ? 0 : -1;
    pthread_mutex_unlock(&sh->temp_mu);
    return rc;
}

void rig_shell_free(rig_shell *sh)
{
    rig__shell_unref(sh);
}

bool rig_shell_sandboxed(const rig_shell *sh, char *why, size_t cap)
{
    if (!sh)
        return false;
    if (sh->no_sandbox) {
        if (why && cap)
            snprintf(why, cap, "the sandbox is off (--sandbox off): commands may write anywhere "
                               "this process may");
        return false;
    }
    if (sh->landlock_abi <= 0) {
        if (why && cap)
            snprintf(why, cap, "this kernel has no Landlock: shell commands run without the "
                               "sandbox and may write anywhere this process may");
        return false;
    }
    return true;
}

const char *rig_shell_temp_dir(const rig_shell *sh)
{
    if (!sh)
        return NULL;
    pthread_mutex_lock((pthread_mutex_t *)&sh->temp_mu);
    const char *d = sh->temp_dir;
    pthread_mutex_unlock((pthread_mutex_t *)&sh->temp_mu);
    return d;
}

/* An isolated session's TMPDIR: "<temp_dir>/s-<session>", the key made
 * safe for a file name. NULL when out of memory. */
static char *session_tmp(const rig_shell *sh, const char *session)
{
    char name[80];
    size_t k = 0;
    name[k++] = 's';
    name[k++] = '-';
    for (const char *p = session ? session : ""; *p && k < sizeof name - 1; p++)
        name[k++] = (isalnum((unsigned char)*p) || *p == '-') ? *p : '_';
    name[k] = '\0';
    char *out = NULL;
    if (asprintf(&out, "%s/%s", sh->temp_dir, name) < 0)
        return NULL;
    return out;
}

void rig_shell_end_session(rig_shell *sh, const char *session)
{
    if (!sh || !session)
        return;
    rig__jobs_end_session(sh->jobs, session);
    pthread_mutex_lock(&sh->temp_mu);
    bool made = sh->temp_dir != NULL;
    pthread_mutex_unlock(&sh->temp_mu);
    if (sh->isolate && made) {
        char *tmp = session_tmp(sh, session);
        if (tmp)
            nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(tmp);
    }
}

/* Variables an isolated command keeps: what programs need to run, nothing
 * that could carry the server's secrets (API keys, tokens). */
static bool harmless_var(const char *e)
{
    static const char *const keep[] = {"PATH=", "HOME=", "LANG=", "LC_", "TERM=", "TZ=",
                                       "USER=", "LOGNAME=", "SHELL="};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        if (strncmp(e, keep[i], strlen(keep[i])) == 0)
            return true;
    return false;
}

/* ---- one command's setup -------------------------------------------------- */

int rig__shell_setup(rig_shell *sh, rig_call *call, const char *work_dir, rig__cmd_setup *s,
                     char *why, size_t cap)
{
    *s = (rig__cmd_setup){.cwd_fd = -1, .landlock_fd = -1};
    if (ensure_temp(sh, why, cap) != 0)
        return -1;
    rig_roots *view = rig_roots_acquire(sh->roots, rig_call_session(call));
    int rc = -1;
    rig_error err = {0};
    const char *dir = work_dir && *work_dir ? work_dir : ".";
    int fd = rig_roots_open(view, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, NULL, &err);
    if (fd < 0) {
        snprintf(why, cap, "work_dir %s: %s", dir, err.message);
        goto out;
    }
    s->cwd_fd = fd;
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, real, sizeof real - 1);
    if (k > 0) {
        real[k] = '\0';
        s->cwd = strdup(real);
    } else {
        s->cwd = strdup(dir);
    }
    if (sh->isolate) {
        s->tmp = session_tmp(sh, rig_call_session(call));
        if (!s->tmp || asprintf(&s->tmpdir_env, "TMPDIR=%s", s->tmp) < 0) {
            s->tmpdir_env = NULL;
            snprintf(why, cap, "out of memory");
            goto out;
        }
        if (mkdir(s->tmp, 0700) != 0 && errno != EEXIST) {
            snprintf(why, cap, "cannot make the session's TMPDIR %s: %s", s->tmp, strerror(errno));
            goto out;
        }
    }
    s->envp = rig__environ_with_tmpdir(s->tmpdir_env ? s->tmpdir_env : sh->tmpdir_env,
                                       sh->isolate ? harmless_var : NULL);
    if (!s->cwd || !s->envp) {
        snprintf(why, cap, "out of memory");
        goto out;
    }
    if (!sh->no_sandbox) {
        size_t nr = rig_roots_count(view);
        const char **dirs = calloc(nr + 1, sizeof *dirs);
        if (!dirs) {
            snprintf(why, cap, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < nr; i++)
            dirs[i] = rig_roots_path(view, i);
        dirs[nr] = s->tmp ? s->tmp : sh->temp_dir;
        char lwhy[512];
        int lr = rig__landlock_prepare_ex(dirs, nr + 1, sh->isolate, &s->landlock_fd, lwhy,
                                          sizeof lwhy);
        free(dirs);
        if (lr == RIG_LANDLOCK_ABSENT) {
            s->unconfined = true;
        } else if (lr != 0) {
            snprintf(why, cap, "the sandbox could not be set up: %s", lwhy);
            goto out;
        }
    }
    rc = 0;
out:
    rig_roots_release(view);
    if (rc != 0)
        rig__shell_setup_done(s);
    return rc;
}

void rig__shell_setup_done(rig__cmd_setup *s)
{
    if (s->cwd_fd >= 0)
        close(s->cwd_fd);
    rig__landlock_release(s->landlock_fd);
    free(s->cwd);
    free(s->envp);
    free(s->tmp);
    free(s->tmpdir_env);
    *s = (rig__cmd_setup){.cwd_fd = -1, .landlock_fd = -1};
}

/* ---- the commands of a call ----------------------------------------------- */

typedef enum outcome { RAN, SKIPPED, NOT_STARTED } outcome;

typedef struct command {
    const char *text;
    const char *work_dir;      /* NULL: the call's */
    const char *stdin_data;    /* NULL: none */
    size_t stdin_len;
    int64_t timeout_ms;
    /* what happened */
    outcome outcome;
    char *cwd;
    bool unconfined;
    char why[512];             /* NOT_STARTED: the reason */
    rig__proc_result r;
} command;

typedef struct batch {
    rig_shell *sh;
    rig_call *call;
    command *cmds;
    size_t n;
    size_t cap;                /* per stream */
    atomic_size_t next;        /* parallel: the next command to take */
} batch;

static bool call_cancelled(void *ud)
{
    return rig_call_cancelled(ud);
}

static bool failed(const command *c)
{
    return c->outcome == NOT_STARTED || (c->outcome == RAN && c->r.exit_code != 0);
}

static void run_one(batch *b, command *c)
{
    rig__cmd_setup s;
    if (rig__shell_setup(b->sh, b->call, c->work_dir, &s, c->why, sizeof c->why) != 0) {
        c->outcome = NOT_STARTED;
        return;
    }
    rig__proc_opts o = {
        .command = c->text,
        .cwd_fd = s.cwd_fd,
        .envp = s.envp,
        .stdin_data = c->stdin_data,
        .stdin_len = c->stdin_len,
        .timeout_ms = c->timeout_ms,
        .cap = b->cap,
        .spill_dir = s.tmp ? s.tmp : b->sh->temp_dir,
        .landlock_fd = s.landlock_fd,
        .cancelled = call_cancelled,
        .cancel_ud = b->call,
    };
    if (rig__proc_run(&o, &c->r, c->why, sizeof c->why) != 0) {
        c->outcome = NOT_STARTED;
    } else {
        c->outcome = RAN;
        c->unconfined = s.unconfined;
        c->cwd = s.cwd;
        s.cwd = NULL;
    }
    rig__shell_setup_done(&s);
}

static void *parallel_worker(void *p)
{
    batch *b = p;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->n)
            return NULL;
        run_one(b, &b->cmds[i]);
    }
}

static void run_parallel(batch *b)
{
    size_t nt = b->n < RIG_SHELL_MAX_PARALLEL ? b->n : RIG_SHELL_MAX_PARALLEL;
    pthread_t t[RIG_SHELL_MAX_PARALLEL];
    size_t started = 0;
    atomic_init(&b->next, 0);
    /* this thread is one of the workers; the others are extra */
    for (size_t i = 1; i < nt; i++) {
        if (pthread_create(&t[started], NULL, parallel_worker, b) != 0)
            break; /* fewer threads: the rest still run, on those there are */
        started++;
    }
    parallel_worker(b);
    for (size_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
}

/* ---- reading the arguments ------------------------------------------------ */

static const char *str_of(rig_call *call, rig_json_val v, size_t *len)
{
    return rig_json_str_dup(v, rig_call_arena(call), len);
}

/* One entry of `command`: a string or {command, timeout, work_dir, stdin}. */
static void read_command(rig_call *call, rig_json_val v, const char *work_dir,
                         int64_t timeout_ms, command *c)
{
    c->work_dir = work_dir;
    c->timeout_ms = timeout_ms;
    if (rig_json_typeof(v) == RIG_JSON_STRING) {
        c->text = str_of(call, v, NULL);
        return;
    }
    c->text = str_of(call, rig_json_get(v, "command"), NULL);
    rig_json_val wd = rig_json_get(v, "work_dir");
    if (rig_json_typeof(wd) == RIG_JSON_STRING)
        c->work_dir = str_of(call, wd, NULL);
    rig_json_val in = rig_json_get(v, "stdin");
    if (rig_json_typeof(in) == RIG_JSON_STRING)
        c->stdin_data = str_of(call, in, &c->stdin_len);
    double t;
    if (rig_json_get_double(rig_json_get(v, "timeout"), &t) == 0)
        c->timeout_ms = (int64_t)(t * 1000);
}

/* ---- the result ----------------------------------------------------------- */

static void write_duration(rig__buf *b, int64_t ms)
{
    if (ms < 1000)
        rig__buf_addf(b, "%lld ms", (long long)ms);
    else
        rig__buf_addf(b, "%.1f s", (double)ms / 1000);
}

static void stream_note(rig__buf *b, const char *name, const rig__proc_stream *s, size_t cap)
{
    if (s->total <= cap)
        return;
    rig__buf_addf(b, "[%s: %llu bytes; the middle was cut", name, (unsigned long long)s->total);
    if (s->file)
        rig__buf_addf(b, ". All of it is in %s (read it with shell: tail, grep, sed -n)", s->file);
    rig__buf_adds(b, "]\n");
}

static void text_of(rig__buf *b, const batch *bt, const command *c, size_t i)
{
    if (bt->n > 1)
        rig__buf_addf(b, "[%zu/%zu] ", i + 1, bt->n);
    rig__buf_addf(b, "$ %s\n", c->text);
    if (c->outcome == SKIPPED) {
        rig__buf_adds(b, "[skipped: an earlier command failed; set ignore_errors to run the "
                         "rest anyway]\n");
        return;
    }
    if (c->outcome == NOT_STARTED) {
        rig__buf_addf(b, "[not started: %s]\n", c->why);
        return;
    }
    const rig__proc_result *r = &c->r;
    rig__buf_add(b, r->out.text, r->out.len);
    if (r->out.len && r->out.text[r->out.len - 1] != '\n')
        rig__buf_addc(b, '\n');
    if (r->err.len) {
        rig__buf_adds(b, "[stderr]\n");
        rig__buf_add(b, r->err.text, r->err.len);
        if (r->err.text[r->err.len - 1] != '\n')
            rig__buf_addc(b, '\n');
    }
    stream_note(b, "stdout", &r->out, bt->cap);
    stream_note(b, "stderr", &r->err, bt->cap);
    if (r->timed_out) {
        rig__buf_adds(b, "[timed out after ");
        write_duration(b, c->timeout_ms);
        rig__buf_adds(b, ": its process group got SIGTERM, then SIGKILL 2 s later. Give a "
                         "larger timeout, or run it with run_in_background]\n");
    } else if (r->cancelled) {
        rig__buf_adds(b, "[cancelled: its process group was stopped]\n");
    }
    rig__buf_addf(b, "[exit %d", r->exit_code);
    if (r->exit_code > 128 && !r->timed_out && !r->cancelled)
        rig__buf_addf(b, " (signal %d)", r->exit_code - 128);
    rig__buf_adds(b, " after ");
    write_duration(b, r->duration_ms);
    rig__buf_addf(b, " in %s]\n", c->cwd ? c->cwd : "?");
}

static void write_stream(rig_json_writer *w, const char *name, const rig__proc_stream *s)
{
    char key[32];
    rig_json_write_key(w, name);
    rig_json_write_stringn(w, s->text ? s->text : "", s->len);
    snprintf(key, sizeof key, "%s_bytes", name);
    rig_json_write_key(w, key);
    rig_json_write_uint(w, s->total);
    if (s->file) {
        snprintf(key, sizeof key, "%s_file", name);
        rig_json_write_key(w, key);
        rig_json_write_string(w, s->file);
    }
}

static void write_command(rig_json_writer *w, const command *c)
{
    static const char *const status[] = {"ran", "skipped", "not_started"};
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "command");
    rig_json_write_string(w, c->text);
    rig_json_write_key(w, "status");
    rig_json_write_string(w, status[c->outcome]);
    if (c->outcome == NOT_STARTED) {
        rig_json_write_key(w, "error");
        rig_json_write_string(w, c->why);
    }
    if (c->outcome == RAN) {
        rig_json_write_key(w, "cwd");
        rig_json_write_string(w, c->cwd ? c->cwd : "");
        rig_json_write_key(w, "exit_code");
        rig_json_write_int(w, c->r.exit_code);
        write_stream(w, "stdout", &c->r.out);
        write_stream(w, "stderr", &c->r.err);
        rig_json_write_key(w, "timed_out");
        rig_json_write_bool(w, c->r.timed_out);
        rig_json_write_key(w, "duration_ms");
        rig_json_write_int(w, c->r.duration_ms);
    }
    rig_json_write_object_end(w);
}

static rig_result *result_of(const batch *b, bool ignore_errors)
{
    size_t ok = 0, bad = 0, skipped = 0;
    bool unconfined = false;
    for (size_t i = 0; i < b->n; i++) {
        const command *c = &b->cmds[i];
        if (c->outcome == SKIPPED)
            skipped++;
        else if (failed(c))
            bad++;
        else
            ok++;
        unconfined |= c->unconfined;
    }
    rig__buf t = {0};
    for (size_t i = 0; i < b->n; i++)
        text_of(&t, b, &b->cmds[i], i);
    if (b->n > 1)
        rig__buf_addf(&t, "%zu commands: %zu succeeded, %zu failed, %zu skipped.\n", b->n, ok,
                      bad, skipped);
    if (unconfined)
        rig__buf_adds(&t, "[warning: this kernel has no Landlock, so the commands ran without "
                          "the sandbox]\n");
    rig_result *res = rig_result_new();
    if (!res || t.oom || rig_result_textn(res, t.p ? t.p : "", t.len) != RIG_OK) {
        rig__buf_free(&t);
        rig_result_free(res);
        return rig_result_error("Out of memory building the shell's result.");
    }
    rig__buf_free(&t);
    rig_json_writer *w = rig_result_structured_begin(res);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "results");
        rig_json_write_array_begin(w);
        for (size_t i = 0; i < b->n; i++)
            write_command(w, &b->cmds[i]);
        rig_json_write_array_end(w);
        rig_json_write_key(w, "succeeded");
        rig_json_write_uint(w, ok);
        rig_json_write_key(w, "failed");
        rig_json_write_uint(w, bad);
        rig_json_write_key(w, "skipped");
        rig_json_write_uint(w, skipped);
        rig_json_write_key(w, "sandboxed");
        rig_json_write_bool(w, !b->sh->no_sandbox && !unconfined);
        rig_json_write_object_end(w);
        rig_result_structured_end(res);
    }
    rig_result_set_error(res, bad > 0 && !ignore_errors);
    return res;
}

/* ---- the tool ------------------------------------------------------------- */

static rig_result *start_background(rig_shell *sh, rig_call *call, command *c)
{
    rig__cmd_setup s;
    char why[512];
    if (rig__shell_setup(sh, call, c->work_dir, &s, why, sizeof why) != 0)
        return rig_result_error("The command was not started: %s", why);
    char id[32];
    bool unconfined = s.unconfined;
    char *cwd = s.cwd ? strdup(s.cwd) : NULL;
    if (rig__jobs_start(sh->jobs, sh->temp_dir, rig_call_session(call), c->text, c->stdin_data,
                        c->stdin_len,
                        c->timeout_ms, &s, id, sizeof id, why, sizeof why) != 0) {
        free(cwd);
        return rig_result_error("The command was not started: %s", why);
    }
    rig_result *res = rig_result_new();
    if (res) {
        rig_result_textf(res,
                         "Started %s in the background: %s\n[in %s%s]\nRead its output with "
                         "shell_output {\"job_id\": \"%s\"} (block: true waits for it to end); "
                         "stop it with shell_stop. It is stopped when this session ends.",
                         id, c->text, cwd ? cwd : "?",
                         unconfined ? "; without the sandbox: this kernel has no Landlock" : "",
                         id);
        rig_json_writer *w = rig_result_structured_begin(res);
        if (w) {
            rig_json_write_object_begin(w);
            rig_json_write_key(w, "job_id");
            rig_json_write_string(w, id);
            rig_json_write_key(w, "command");
            rig_json_write_string(w, c->text);
            rig_json_write_key(w, "cwd");
            rig_json_write_string(w, cwd ? cwd : "");
            rig_json_write_key(w, "status");
            rig_json_write_string(w, "running");
            rig_json_write_object_end(w);
            rig_result_structured_end(res);
        }
    }
    free(cwd);
    return res ? res : rig_result_error("Out of memory.");
}

static rig_result *shell_run(rig_call *call)
{
    rig_shell *sh = rig_call_data(call);
    rig_json_val args = rig_call_args(call);
    bool parallel = rig_call_bool(call, "parallel", false);
    bool ignore_errors = rig_call_bool(call, "ignore_errors", false);
    bool background = rig_call_bool(call, "run_in_background", false);
    const char *work_dir = rig_call_str(call, "work_dir", NULL);
    /* A background job has no default timeout: it runs until it ends, is
     * stopped, or its session ends. */
    double secs = rig_call_double(call, "timeout", 0);
    int64_t timeout_ms = secs > 0 ? (int64_t)(secs * 1000) : background ? 0 : sh->timeout_ms;

    rig_json_val cv = rig_json_get(args, "command");
    bool many = rig_json_typeof(cv) == RIG_JSON_ARRAY;
    size_t n = many ? rig_json_len(cv) : 1;
    if (n == 0)
        return rig_result_error("command is an empty array: give at least one command.");
    if (n > RIG_SHELL_MAX_COMMANDS)
        return rig_result_error("%zu commands in one call; at most %d. Split them over several "
                                "calls, or put them in a script.",
                                n, RIG_SHELL_MAX_COMMANDS);
    if (background && n > 1)
        return rig_result_error("run_in_background starts one command per call; give a single "
                                "command (or start each with its own call).");

    command *cmds = rig_arena_alloc(rig_call_arena(call), n * sizeof *cmds);
    if (!cmds)
        return rig_result_error("Out of memory.");
    memset(cmds, 0, n * sizeof *cmds);
    for (size_t i = 0; i < n; i++) {
        read_command(call, many ? rig_json_at(cv, i) : cv, work_dir, timeout_ms, &cmds[i]);
        if (!cmds[i].text)
            return rig_result_error("Out of memory.");
        if (!*cmds[i].text)
            return rig_result_error("Command %zu is empty.", i + 1);
    }
    if (background)
        return start_background(sh, call, &cmds[0]);

    batch b = {.sh = sh, .call = call, .cmds = cmds, .n = n};
    b.cap = n > 1 ? sh->output_cap / n : sh->output_cap;
    if (b.cap < MIN_SHARED_CAP)
        b.cap = MIN_SHARED_CAP;
    if (parallel && n > 1) {
        run_parallel(&b);
    } else {
        bool stop = false;
        for (size_t i = 0; i < n; i++) {
            if (stop || rig_call_cancelled(call)) {
                cmds[i].outcome = SKIPPED;
                continue;
            }
            run_one(&b, &cmds[i]);
            if (failed(&cmds[i]) && !ignore_errors)
                stop = true;
        }
    }
    rig_result *res = result_of(&b, ignore_errors);
    for (size_t i = 0; i < n; i++) {
        free(cmds[i].cwd);
        rig__proc_result_free(&cmds[i].r);
    }
    return res;
}

#define COMMAND_OBJECT                                                                         \
    "{\"type\":\"object\",\"properties\":{"                                                    \
    "\"command\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The command line.\"}," \
    "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":86400,"               \
    "\"description\":\"Seconds before this command is stopped.\"},"                           \
    "\"work_dir\":{\"type\":\"string\",\"description\":\"Where this command runs.\"},"         \
    "\"stdin\":{\"type\":\"string\",\"description\":\"Text given to its standard input.\"}},"  \
    "\"required\":[\"command\"],\"additionalProperties\":false}"

static const rig_builtin_spec shell_spec = {
    .name = "shell",
    .title = "Run shell commands",
    .description =
        "Run shell commands (/bin/sh -c) and get each one's exit code, stdout and stderr. "
        "command is a string, an object {command, timeout, work_dir, stdin}, or an array of "
        "either: by default they run one after another and stop at the first failure "
        "(ignore_errors: true runs them all); parallel: true runs them at once. Each command "
        "runs in its own process group; after timeout seconds (default 120) it gets SIGTERM, "
        "then SIGKILL 2 s later, and exit code 124. Output over 30,000 bytes a stream keeps "
        "its head and tail, and all of it is saved to a file whose path the result gives. "
        "work_dir must lie inside the allowed directories (default: the first). Commands may "
        "read anything but write only inside the allowed directories and $TMPDIR. "
        "run_in_background: true starts one long-running command (a server, a watcher) as a "
        "job and returns its id at once: read its output with shell_output, stop it with "
        "shell_stop.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"command\":{\"description\":\"A command line, an object {command, timeout, "
        "work_dir, stdin}, or an array of either.\",\"anyOf\":[{\"type\":\"string\","
        "\"minLength\":1}," COMMAND_OBJECT ",{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"
        "\"items\":{\"anyOf\":[{\"type\":\"string\",\"minLength\":1}," COMMAND_OBJECT "]}}]},"
        "\"parallel\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Run the "
        "commands at the same time.\"},"
        "\"ignore_errors\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Run "
        "every command even when one fails, and do not report failure as an error.\"},"
        "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":86400,"
        "\"description\":\"Seconds each command may run (default 120; a background job: "
        "none).\"},"
        "\"work_dir\":{\"type\":\"string\",\"description\":\"The directory the commands run "
        "in, inside the allowed directories (default: the first).\"},"
        "\"run_in_background\":{\"type\":\"boolean\",\"default\":false,\"description\":"
        "\"Start the command as a background job and return its job_id at once.\"}},"
        "\"required\":[\"command\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_FALSE,
                    .destructive = RIG_HINT_TRUE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_TRUE},
    .fn = shell_run,
};

static const rig_builtin_spec shell_output_spec = {
    .name = "shell_output",
    .title = "Read a background job's output",
    .description =
        "The output a background job (started by shell with run_in_background) wrote since "
        "the last shell_output, and whether it is still running or its exit code. block: true "
        "waits until the job ends or timeout_ms passes (default 30000). tail_lines shows only "
        "the last N lines of the new output. The job's whole output is also in a log file "
        "whose path the result gives.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"job_id\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The id shell "
        "returned.\"},"
        "\"block\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Wait for the job "
        "to end (up to timeout_ms).\"},"
        "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600000,\"default\":"
        "30000,\"description\":\"How long block waits.\"},"
        "\"tail_lines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"description\":"
        "\"Show only the last N lines of the new output.\"}},"
        "\"required\":[\"job_id\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .fn = rig__shell_output_run,
};

static const rig_builtin_spec shell_stop_spec = {
    .name = "shell_stop",
    .title = "Stop a background job",
    .description =
        "Stop a background job started by shell with run_in_background: its process group "
        "gets SIGTERM, then SIGKILL 2 s later. Returns its exit status and the output not "
        "read yet.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"job_id\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The id shell "
        "returned.\"}},"
        "\"required\":[\"job_id\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_FALSE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .fn = rig__shell_stop_run,
};

int rig_shell_tools_add(rig_toolset *ts, rig_shell *sh, rig_error *err)
{
    if (!ts || !sh)
        return rig_error_set(err, RIG_EINVAL, "No toolset or shell was given.");
    static const rig_builtin_spec *const specs[] = {&shell_spec, &shell_output_spec,
                                                    &shell_stop_spec};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        rig__shell_ref(sh);
        int rc = rig__toolset_adopt(ts, rig__builtin_new(specs[i], sh, rig__shell_unref, err),
                                    err);
        if (rc != RIG_OK)
            return rc;
    }
    return RIG_OK;
}
