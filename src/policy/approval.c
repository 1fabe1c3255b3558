/* approval.c — the approval gate (rig/policy.h): one toolset before hook
 * that lets a call run, asks a person about it, or refuses it, by the
 * session's plan mode, the policy mode and the allowlist; and the plan
 * state per session that the plan tools (tools/plan.c) switch.
 *
 * The order of the checks: plan mode first, so it holds whatever the mode
 * (yolo too: planning is the model's own promise not to act yet); then the
 * mode. The gate's own tools (ask_user, enter_plan_mode, exit_plan_mode,
 * recognised by their executor state being this gate, not by name, so a
 * proxied tool that borrows a name gains nothing) never need approval:
 * asking the person is what ask_user does, and exit_plan_mode asks for
 * itself, showing the plan.
 *
 * Where the hook runs: inside the call's pipeline, on the worker thread
 * that runs the tool, where rig_call_ask can wait for the client's answer.
 * An inline tool (RIG_TOOL_INLINE) runs its whole pipeline on the caller's
 * thread, which in the MCP server is the loop thread that would carry that
 * answer, so rig_call_ask refuses (RIG_ESTATE) and only a prompter can be
 * asked. Every inline built-in is read-only and never needs asking; a
 * host's inline tool with side effects is refused in ask mode when there
 * is no prompter, and the message says why.
 *
 * The allowlist is checked, and "always" remembered, with the paths of a
 * file tool made absolute against the session's first root (as the file
 * tools resolve them): "notes.txt" allowed in one root must not allow
 * notes.txt in every other. */
#define _GNU_SOURCE
#include "policy/approval.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rig/json.h"
#include "tools/builtins.h"
#include "tools/sessions.h"
#include "util/buf.h"
#include "util/mkdir_p.h"

typedef struct plan_state {
    bool active;
    char *path; /* the session's last plan document, or NULL */
    char *dir;  /* the plans directory it lies in */
} plan_state;

struct rig_approval {
    rig_policy_mode mode;
    char *allowlist_path;   /* NULL: "always" lasts for this process */
    rig_allowlist *allow;
    pthread_mutex_t mu;     /* guards allow and plans */
    rig_prompt_fn prompt;
    void *prompt_ud;
    rig_roots *roots;       /* borrowed; NULL: the current directory */
    char *plans_dir;        /* NULL: <first root>/.rig/plans */
    session_table plans;
    /* An upper bound on the sessions in plan mode (an evicted session is
     * not subtracted): while it is 0 the gate skips the lock. */
    atomic_int planning;
};

static void *plan_make(void) { return calloc(1, sizeof(plan_state)); }

static void plan_drop(void *p)
{
    plan_state *st = p;
    free(st->path);
    free(st->dir);
    free(st);
}

rig_approval *rig_approval_new(rig_policy_mode mode, const char *allowlist_path, rig_error *err)
{
    if (mode < RIG_POLICY_AUTO || mode > RIG_POLICY_YOLO) {
        rig_error_set(err, RIG_EINVAL, "Unknown approval mode %d.", (int)mode);
        return NULL;
    }
    rig_approval *ap = calloc(1, sizeof *ap);
    if (!ap || !(ap->allow = rig_allowlist_new()) ||
        (allowlist_path && !(ap->allowlist_path = strdup(allowlist_path)))) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        goto fail;
    }
    ap->mode = mode;
    /* Only ask mode reads the allowlist: a broken file must not stop a
     * rig that would never look at it. */
    if (mode == RIG_POLICY_ASK && allowlist_path &&
        rig_allowlist_load(ap->allow, allowlist_path, err) != RIG_OK)
        goto fail;
    pthread_mutex_init(&ap->mu, NULL);
    rig__sessions_init(&ap->plans, RIG_PLAN_MAX_SESSIONS, plan_make, plan_drop);
    return ap;
fail:
    if (ap) {
        rig_allowlist_free(ap->allow);
        free(ap->allowlist_path);
        free(ap);
    }
    return NULL;
}

void rig_approval_free(rig_approval *ap)
{
    if (!ap)
        return;
    rig__sessions_free(&ap->plans);
    pthread_mutex_destroy(&ap->mu);
    rig_allowlist_free(ap->allow);
    free(ap->allowlist_path);
    free(ap->plans_dir);
    free(ap);
}

rig_policy_mode rig_approval_mode(const rig_approval *ap) { return ap ? ap->mode : RIG_POLICY_AUTO; }

void rig_approval_set_prompt(rig_approval *ap, rig_prompt_fn fn, void *ud)
{
    if (!ap)
        return;
    ap->prompt = fn;
    ap->prompt_ud = ud;
}

rig_prompt_fn rig__approval_prompter(const rig_approval *ap, void **ud)
{
    *ud = ap ? ap->prompt_ud : NULL;
    return ap ? ap->prompt : NULL;
}

void rig_approval_set_roots(rig_approval *ap, rig_roots *roots)
{
    if (ap)
        ap->roots = roots;
}

/* ---- paths ---------------------------------------------------------------- */

/* The directory relative paths start from in `session`. */
static int session_base(rig_approval *ap, const char *session, char *out, size_t cap)
{
    if (ap->roots) {
        rig_roots *view = rig_roots_acquire(ap->roots, session);
        int n = -1;
        if (view && rig_roots_count(view))
            n = snprintf(out, cap, "%s", rig_roots_path(view, 0));
        rig_roots_release(view);
        if (n >= 0)
            return (size_t)n < cap ? 0 : -1;
    }
    return getcwd(out, cap) ? 0 : -1;
}

/* Join `base` and `path` (absolute paths ignore the base), dropping "." and
 * empty components; ".." stays (see approval.h). */
static int normalize(const char *base, const char *path, char *out, size_t cap)
{
    rig__buf b = {0};
    if (path[0] != '/')
        rig__buf_adds(&b, base);
    rig__buf_addc(&b, '/');
    rig__buf_adds(&b, path);
    if (b.oom) {
        rig__buf_free(&b);
        return -1;
    }
    size_t o = 0;
    int rc = 0;
    const char *p = b.p;
    while (*p) {
        while (*p == '/')
            p++;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        size_t n = (size_t)(e - p);
        if (n && !(n == 1 && p[0] == '.')) {
            if (o + 1 + n >= cap) {
                rc = -1;
                break;
            }
            out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p = e;
    }
    if (rc == 0 && o == 0) {
        if (cap < 2)
            rc = -1;
        else
            out[o++] = '/';
    }
    if (rc == 0)
        out[o] = '\0';
    rig__buf_free(&b);
    return rc;
}

int rig__approval_abspath(rig_approval *ap, const char *session, const char *path, char *out,
                          size_t cap)
{
    char base[PATH_MAX];
    if (path[0] != '/' && session_base(ap, session, base, sizeof base) != 0)
        return -1;
    return normalize(path[0] == '/' ? "" : base, path, out, cap);
}

static bool has_dotdot(const char *abs)
{
    for (const char *p = abs; (p = strstr(p, "/..")); p += 3)
        if (p[3] == '/' || p[3] == '\0')
            return true;
    return false;
}

/* `abs` (normalized, no "..") with every existing symlink resolved: the
 * real path of its longest existing prefix, then the rest as written. */
static int real_of(const char *abs, char *out, size_t cap)
{
    char head[PATH_MAX];
    if (snprintf(head, sizeof head, "%s", abs) >= (int)sizeof head)
        return -1;
    size_t rest_at = strlen(head); /* where the part not yet resolved starts */
    for (;;) {
        char real[PATH_MAX];
        if (realpath(head[0] ? head : "/", real)) {
            int n = snprintf(out, cap, "%s%s", strcmp(real, "/") == 0 ? "" : real,
                             abs + rest_at);
            if (n == 0)
                n = snprintf(out, cap, "/");
            return n > 0 && (size_t)n < cap ? 0 : -1;
        }
        /* Only a missing component is fine: it is what a write creates. */
        if (errno != ENOENT)
            return -1;
        char *slash = strrchr(head, '/');
        if (!slash)
            return -1;
        *slash = '\0';
        rest_at = (size_t)(slash - head);
    }
}

static bool is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Does `path` of a call in `session` lie under the plans directory `dir`,
 * symlinks resolved? A path with ".." never does (see approval.h). */
static bool in_plans_dir(rig_approval *ap, const char *session, const char *path,
                         const char *dir)
{
    char abs[PATH_MAX], real[PATH_MAX], real_dir[PATH_MAX];
    if (rig__approval_abspath(ap, session, path, abs, sizeof abs) != 0 || has_dotdot(abs))
        return false;
    if (real_of(abs, real, sizeof real) != 0 || real_of(dir, real_dir, sizeof real_dir) != 0)
        return false;
    /* A plans directory reached through a symlink (a workspace holding
     * `.rig/plans -> ..`) would make the whole root "the plans directory":
     * then nothing counts as inside it. */
    if (strcmp(real_dir, dir) != 0)
        return false;
    return is_under(real, real_dir);
}

/* ---- plan state ------------------------------------------------------------ */

int rig_approval_set_plans_dir(rig_approval *ap, const char *dir, rig_error *err)
{
    if (!ap || !dir || !*dir)
        return rig_error_set(err, RIG_EINVAL, "A plans directory needs a path.");
    char cwd[PATH_MAX], abs[PATH_MAX];
    if (dir[0] != '/' && !getcwd(cwd, sizeof cwd))
        return rig_error_set(err, RIG_EINVAL, "Cannot tell the current directory: %s.",
                             strerror(errno));
    if (normalize(dir[0] == '/' ? "" : cwd, dir, abs, sizeof abs) != 0)
        return rig_error_set(err, RIG_EINVAL, "The plans directory path is too long.");
    /* The operator's own symlinks are resolved now, once: after this the
     * directory must be reached without any (see in_plans_dir). */
    char real[PATH_MAX];
    if (real_of(abs, real, sizeof real) == 0)
        snprintf(abs, sizeof abs, "%s", real);
    char *copy = strdup(abs);
    if (!copy)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    free(ap->plans_dir);
    ap->plans_dir = copy;
    return RIG_OK;
}

int rig__plan_dir(rig_approval *ap, const char *session, char *out, size_t cap)
{
    if (ap->plans_dir) {
        int n = snprintf(out, cap, "%s", ap->plans_dir);
        return n >= 0 && (size_t)n < cap ? 0 : -1;
    }
    char base[PATH_MAX];
    if (session_base(ap, session, base, sizeof base) != 0)
        return -1;
    int n = snprintf(out, cap, "%s%s.rig/plans", base, strcmp(base, "/") == 0 ? "" : "/");
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

char *rig__plan_last(rig_approval *ap, const char *session, bool *active)
{
    pthread_mutex_lock(&ap->mu);
    plan_state *st = rig__sessions_find(&ap->plans, session);
    *active = st && st->active;
    char *path = st && st->path ? strdup(st->path) : NULL;
    pthread_mutex_unlock(&ap->mu);
    return path;
}

int rig__plan_start(rig_approval *ap, const char *session, const char *path, const char *dir)
{
    char *p = strdup(path), *d = strdup(dir);
    pthread_mutex_lock(&ap->mu);
    plan_state *st = p && d ? rig__sessions_get(&ap->plans, session) : NULL;
    if (!st) {
        pthread_mutex_unlock(&ap->mu);
        free(p);
        free(d);
        return RIG_ENOMEM;
    }
    free(st->path);
    free(st->dir);
    st->path = p;
    st->dir = d;
    if (!st->active)
        atomic_fetch_add(&ap->planning, 1);
    st->active = true;
    pthread_mutex_unlock(&ap->mu);
    return RIG_OK;
}

void rig__plan_stop(rig_approval *ap, const char *session)
{
    pthread_mutex_lock(&ap->mu);
    plan_state *st = rig__sessions_find(&ap->plans, session);
    if (st && st->active) {
        st->active = false;
        atomic_fetch_sub(&ap->planning, 1);
    }
    pthread_mutex_unlock(&ap->mu);
}

bool rig_approval_planning(rig_approval *ap, const char *session)
{
    bool active = false;
    if (!ap)
        return false;
    free(rig__plan_last(ap, session ? session : "", &active));
    return active;
}

void rig_approval_session_end(rig_approval *ap, const char *session)
{
    if (!ap || !session)
        return;
    pthread_mutex_lock(&ap->mu);
    plan_state *st = rig__sessions_find(&ap->plans, session);
    if (st && st->active)
        atomic_fetch_sub(&ap->planning, 1);
    rig__sessions_drop(&ap->plans, session);
    pthread_mutex_unlock(&ap->mu);
}

/* ---- the gate --------------------------------------------------------------- */

/* Tools that only write where plan mode lets them: their every path must
 * lie under the plans directory. */
static bool plan_writer(const char *name)
{
    return strcmp(name, "write_file") == 0 || strcmp(name, "edit_file") == 0 ||
           strcmp(name, "create_directory") == 0;
}

/* Tools plan mode lets run by name: they keep the model's notes and change
 * nothing outside (both are read-only too; named so a host that
 * re-annotates them cannot lock the model out of its own notes). */
static bool plan_exempt(const char *name)
{
    return strcmp(name, "think") == 0 || strcmp(name, "update_todos") == 0;
}

/* Does every path argument of this call (path, source, destination, paths)
 * lie under `dir`? A call with none does not. */
static bool paths_in_plans(rig_approval *ap, const char *session, rig_json_val args,
                           const char *dir)
{
    static const char *const keys[] = {"path", "source", "destination"};
    size_t seen = 0;
    char buf[PATH_MAX];
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        rig_json_val v = rig_json_get(args, keys[i]);
        if (rig_json_typeof(v) == RIG_JSON_MISSING)
            continue;
        if (rig_json_str_copy(v, buf, sizeof buf, NULL) != 0 || !in_plans_dir(ap, session, buf, dir))
            return false;
        seen++;
    }
    rig_json_val arr = rig_json_get(args, "paths");
    if (rig_json_typeof(arr) != RIG_JSON_MISSING) {
        rig_json_iter it = rig_json_iter_init(arr);
        rig_json_val v;
        while (rig_json_iter_next(&it, &v)) {
            if (rig_json_str_copy(v, buf, sizeof buf, NULL) != 0 ||
                !in_plans_dir(ap, session, buf, dir))
                return false;
            seen++;
        }
    }
    return seen > 0;
}

/* Plan mode's verdict: RIG_OK (not planning, or allowed while planning;
 * *plan_write set for a write under the plans directory, which needs no
 * approval either) or RIG_EBLOCKED with `err` saying what to do. */
static int plan_check(rig_approval *ap, rig_call *call, const char *name, rig_json_val args,
                      bool own, bool *plan_write, rig_error *err)
{
    *plan_write = false;
    const rig_tool *t = rig_call_tool(call);
    if (atomic_load(&ap->planning) <= 0 || own || rig_tool_read_only(t) || plan_exempt(name))
        return RIG_OK;
    const char *session = rig_call_session(call);
    char dir[PATH_MAX], path[PATH_MAX];
    bool active = false;
    pthread_mutex_lock(&ap->mu);
    plan_state *st = rig__sessions_find(&ap->plans, session);
    if (st && st->active) {
        active = true;
        snprintf(dir, sizeof dir, "%s", st->dir ? st->dir : "");
        snprintf(path, sizeof path, "%s", st->path ? st->path : "");
    }
    pthread_mutex_unlock(&ap->mu);
    if (!active)
        return RIG_OK;
    if (plan_writer(name) && paths_in_plans(ap, session, args, dir)) {
        *plan_write = true;
        return RIG_OK;
    }
    return rig_error_set(err, RIG_EBLOCKED,
                         "plan mode is on, and while planning only read-only tools run, and "
                         "write_file/edit_file only under %.160s. Put your findings and steps "
                         "in the plan (%.160s), then call exit_plan_mode to propose it.",
                         dir, path);
}

/* The call's arguments as the allowlist should see them: a file tool's
 * paths absolute (see the top of this file). malloc'd JSON text. */
static char *allowlist_args(rig_approval *ap, const char *session, const char *name,
                            rig_json_val args, size_t *len)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    bool shell = strcmp(name, "shell") == 0;
    if (shell) {
        rig_json_write_value(&w, args);
    } else {
        char abs[PATH_MAX], buf[PATH_MAX];
        rig_json_write_object_begin(&w);
        rig_json_iter it = rig_json_iter_init(args);
        rig_json_val key, val;
        while (rig_json_iter_member(&it, &key, &val)) {
            rig_json_write_keyv(&w, key);
            bool one = rig_json_str_eq(key, "path") || rig_json_str_eq(key, "source") ||
                       rig_json_str_eq(key, "destination");
            if (one && rig_json_str_copy(val, buf, sizeof buf, NULL) == 0 &&
                rig__approval_abspath(ap, session, buf, abs, sizeof abs) == 0) {
                rig_json_write_string(&w, abs);
            } else if (rig_json_str_eq(key, "paths") && rig_json_is_array(val)) {
                rig_json_write_array_begin(&w);
                rig_json_iter ai = rig_json_iter_init(val);
                rig_json_val v;
                while (rig_json_iter_next(&ai, &v)) {
                    if (rig_json_str_copy(v, buf, sizeof buf, NULL) == 0 &&
                        rig__approval_abspath(ap, session, buf, abs, sizeof abs) == 0)
                        rig_json_write_string(&w, abs);
                    else
                        rig_json_write_value(&w, v);
                }
                rig_json_write_array_end(&w);
            } else {
                rig_json_write_value(&w, val);
            }
        }
        rig_json_write_object_end(&w);
    }
    char *out = rig_json_writer_detach(&w, len);
    rig_json_writer_free(&w);
    return out;
}

/* Cut `s` to at most `max` bytes on a UTF-8 character boundary, into `b`,
 * marking a cut with "...". */
static void add_preview(rig__buf *b, const char *s, size_t len, size_t max)
{
    if (len <= max) {
        rig__buf_add(b, s, len);
        return;
    }
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    rig__buf_add(b, s, n);
    rig__buf_addf(b, "... (%zu more bytes)", len - n);
}

/* The arguments as the person sees them: runs of blanks shown as one (so
 * padding cannot push the end of a command out of view), and when still
 * longer than `max`, the head and the tail with the cut counted between:
 * the end of a command line is where `; rm -rf ~` would hide. */
static void add_args_preview(rig__buf *b, const char *s, size_t len, size_t max)
{
    rig__buf c = {0};
    for (size_t i = 0; i < len; i++) {
        bool blank = s[i] == ' ' || s[i] == '\t';
        if (blank && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
            continue;
        rig__buf_addc(&c, blank ? ' ' : s[i]);
    }
    if (c.oom) {
        rig__buf_free(&c);
        add_preview(b, s, len, max);
        return;
    }
    if (c.len <= max) {
        rig__buf_add(b, c.p, c.len);
    } else {
        size_t head = max / 2, tail = c.len - max / 2;
        while (head > 0 && ((unsigned char)c.p[head] & 0xC0) == 0x80)
            head--;
        while (tail < c.len && ((unsigned char)c.p[tail] & 0xC0) == 0x80)
            tail++;
        rig__buf_add(b, c.p, head);
        rig__buf_addf(b, " [... %zu bytes ...] ", tail - head);
        rig__buf_add(b, c.p + tail, c.len - tail);
    }
    rig__buf_free(&c);
}

/* Make the allowlist file's directory, so the first "always" can save. */
static void make_parent(const char *path)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    (void)rig__mkdir_p(dir, 0700); /* saving says what failed, if anything did */
}

/* Remember "always": add the suggested patterns and save the file, merged
 * with what another rig may have saved meanwhile. A file that can no
 * longer be read is not overwritten (the patterns then last for this
 * process). Failures are logged to the client; the call still runs, as the
 * person allowed it. */
static void remember(rig_approval *ap, rig_call *call, const char *name, const char *patterns)
{
    rig_error e, le;
    rig_error_clear(&e);
    rig_error_clear(&le);
    pthread_mutex_lock(&ap->mu);
    int load = ap->allowlist_path ? rig_allowlist_load(ap->allow, ap->allowlist_path, &le)
                                  : RIG_OK;
    int rc = RIG_OK;
    for (const char *p = patterns; rc == RIG_OK && *p;) {
        size_t n = strcspn(p, "\n");
        char *one = strndup(p, n);
        rc = one ? rig_allowlist_add(ap->allow, name, one, &e)
                 : rig_error_set(&e, RIG_ENOMEM, "Out of memory.");
        free(one);
        p += n + (p[n] == '\n');
    }
    if (rc == RIG_OK && load != RIG_OK)
        rc = rig_error_set(&e, load, "%s It was left as it is.", le.message);
    if (rc == RIG_OK && ap->allowlist_path) {
        make_parent(ap->allowlist_path);
        rc = rig_allowlist_save(ap->allow, ap->allowlist_path, &e);
    }
    pthread_mutex_unlock(&ap->mu);
    if (rc != RIG_OK)
        rig_call_logf(call, RIG_LOG_WARNING, "rig could not save the approval of %s: %s",
                      name, e.message);
}

enum { CHOICE_ONCE, CHOICE_ALWAYS, CHOICE_DENY };

/* Ask mode, for a call that needs a person: ask, then act on the answer. */
static int ask_approval(rig_approval *ap, rig_call *call, const char *name, const char *aargs,
                        size_t alen, rig_error *err)
{
    const rig_tool *t = rig_call_tool(call);
    char *suggest = rig_allowlist_suggest(name, aargs, alen);
    rig__buf detail = {0};
    const char *desc = rig_tool_description(t);
    /* The description's first sentence says what the tool does. */
    size_t dlen = strcspn(desc, "\n");
    const char *stop = strstr(desc, ". ");
    if (stop && (size_t)(stop - desc) + 1 < dlen)
        dlen = (size_t)(stop - desc) + 1;
    if (dlen) {
        add_preview(&detail, desc, dlen, 200);
        rig__buf_addc(&detail, '\n');
    }
    rig__buf_adds(&detail, "Arguments: ");
    size_t raw_len = 0;
    const char *raw = rig_json_raw(rig_call_args(call), &raw_len);
    add_args_preview(&detail, raw ? raw : "{}", raw ? raw_len : 2, RIG_APPROVAL_PREVIEW_CHARS);
    rig__buf_addc(&detail, '\n');
    if (suggest) {
        rig__buf_addf(&detail, "\"Always allow\" adds to the allowlist %s for %s:",
                      ap->allowlist_path ? ap->allowlist_path : "(for this run only)", name);
        for (const char *p = suggest; *p;) {
            size_t n = strcspn(p, "\n");
            rig__buf_adds(&detail, " \"");
            add_preview(&detail, p, n, 200);
            rig__buf_addc(&detail, '"');
            p += n + (p[n] == '\n');
        }
    } else {
        rig__buf_adds(&detail, "\"Always allow\" cannot be remembered for this call (rig cannot "
                               "read it for certain); it counts as allow once.");
    }
    char title[RIG_TOOL_NAME_MAX + 64];
    snprintf(title, sizeof title, "Allow the agent to run %s?", name);
    static const char *const choices[] = {"Allow once", "Always allow", "Deny"};
    rig_prompt p = {.title = title,
                    .detail = detail.oom ? NULL : detail.p,
                    .choices = choices,
                    .n_choices = 3,
                    .typed = "feedback for the agent (denies the call)"};
    int choice = -1;
    char *text = NULL;
    rig_error why;
    rig_error_clear(&why);
    int rc = rig__person_ask(ap, call, &p, &choice, &text, &why);
    rig__buf_free(&detail);
    int out = RIG_OK;
    /* Words typed beside an "allow" are an objection more often than not
     * (a form may come with its first choice picked): they deny, and reach
     * the model. */
    bool objected = text && *text;
    if (rc == RIG_OK && !objected && (choice == CHOICE_ONCE || choice == CHOICE_ALWAYS)) {
        if (choice == CHOICE_ALWAYS && suggest)
            remember(ap, call, name, suggest);
        else if (choice == CHOICE_ALWAYS)
            rig_call_logf(call, RIG_LOG_NOTICE, "\"Always\" for %s counts as once: rig cannot "
                          "read this call for certain, so it cannot remember it.", name);
    } else if (rig_call_cancelled(call)) {
        out = rig_error_set(err, RIG_EBLOCKED, "the call was stopped while waiting for "
                                               "approval.");
    } else if (rc == RIG_OK || rc == RIG_ECANCELED) {
        /* Deny, feedback alone, or a dismissed question: the call does
         * not run, and the model hears what the person said. */
        if (text && *text)
            out = rig_error_set(err, RIG_EBLOCKED,
                                "the person declined this call and said: \"%.300s\". Take that "
                                "into account before going on.",
                                text);
        else
            out = rig_error_set(err, RIG_EBLOCKED,
                                "the person declined this call. Do not retry it unchanged; ask "
                                "the user (ask_user) or take another approach.");
    } else if (rc == RIG_ENOTSUP) {
        out = rig_error_set(err, RIG_EBLOCKED,
                            "it needs a person's approval (--policy ask), and nobody could give "
                            "it: %.200s To let it run, add it to the allowlist (--allowlist) or "
                            "run rig with --policy auto or yolo.",
                            why.message);
    } else {
        out = rig_error_set(err, RIG_EBLOCKED, "asking for approval failed: %.300s",
                            why.message);
    }
    free(text);
    free(suggest);
    return out;
}

static int gate(rig_call *call, rig_json_val args, char **replace, void *ud, rig_error *err)
{
    (void)replace;
    rig_approval *ap = ud;
    const rig_tool *t = rig_call_tool(call);
    const char *name = rig_tool_name(t);
    bool own = rig_call_data(call) == ap;
    bool plan_write = false;
    int rc = plan_check(ap, call, name, args, own, &plan_write, err);
    if (rc != RIG_OK || plan_write || own)
        return rc;
    switch (ap->mode) {
    case RIG_POLICY_AUTO:
    case RIG_POLICY_YOLO:
        return RIG_OK;
    case RIG_POLICY_READ_ONLY:
        if (rig_tool_read_only(t))
            return RIG_OK;
        return rig_error_set(err, RIG_EBLOCKED,
                             "rig runs with --policy read-only, which refuses every tool that "
                             "is not read-only. Use read-only tools (read_file, grep, glob, "
                             "list_directory, ...) and tell the user what you would change.");
    case RIG_POLICY_ASK:
        break;
    }
    if (rig_tool_read_only(t))
        return RIG_OK;
    const char *session = rig_call_session(call);
    size_t alen = 0;
    char *aargs = allowlist_args(ap, session, name, args, &alen);
    if (!aargs)
        return rig_error_set(err, RIG_ENOMEM, "out of memory checking the allowlist.");
    pthread_mutex_lock(&ap->mu);
    rig_verdict v = rig_allowlist_check(ap->allow, name, aargs, alen, NULL, 0);
    pthread_mutex_unlock(&ap->mu);
    if (v == RIG_VERDICT_ALLOW)
        rc = RIG_OK;
    else
        rc = ask_approval(ap, call, name, aargs, alen, err);
    free(aargs);
    return rc;
}

int rig_approval_attach(rig_approval *ap, rig_toolset *ts, rig_error *err)
{
    if (!ap || !ts)
        return rig_error_set(err, RIG_EINVAL, "Attaching the approval gate needs a gate and a "
                                              "toolset.");
    int rc = rig_toolset_before(ts, gate, ap);
    if (rc != RIG_OK)
        return rig_error_set(err, rc, "Could not install the approval gate: %s.",
                             rig_strerror(rc));
    return RIG_OK;
}

int rig_approval_add_tools(rig_approval *ap, rig_toolset *ts, rig_error *err)
{
    if (!ap || !ts)
        return rig_error_set(err, RIG_EINVAL, "Adding the interaction tools needs a gate and a "
                                              "toolset.");
    rig_tool *(*const make[])(rig_approval *, rig_error *) = {
        rig__ask_tool_new, rig__enter_plan_tool_new, rig__exit_plan_tool_new};
    for (size_t i = 0; i < sizeof make / sizeof *make; i++) {
        rig_tool *t = make[i](ap, err);
        if (!t)
            return err ? err->code : RIG_ENOMEM;
        int rc = rig_toolset_add(ts, t, err);
        if (rc != RIG_OK) {
            rig_tool_free(t);
            return rc;
        }
    }
    return RIG_OK;
}
