/* plan.c — `enter_plan_mode` and `exit_plan_mode`: the model plans before
 * it acts, in one Markdown document per session, and proposes the plan to
 * the person, who approves it (plan mode ends) or declines (it goes on).
 *
 * The plan lives in the plans directory (<first root>/.rig/plans unless
 * set: rig_approval_set_plans_dir, --plans-dir), named after the time it
 * was started and the session. enter_plan_mode reopens the session's last
 * plan unless `fresh` asks for a new one. Plan state (on or off, which
 * plan) is the approval gate's, per session (policy/approval.c), since the
 * gate is what refuses the shell and writes while a session plans; these
 * tools only switch it. It lives in memory: a new rig process, or a new
 * MCP session, starts without plan mode, though the documents stay.
 *
 * exit_plan_mode always asks a person, showing the plan, whatever the
 * policy mode, except yolo, which approves without asking; with nobody to
 * ask, plan mode stays on and the result says so.
 *
 * Annotations: both read-only. They change nothing the user has (enter
 * writes only its own template under the plans directory), so a host that
 * asks before every tool with side effects does not ask about planning,
 * which is what keeps the model from acting; and exit_plan_mode asks the
 * person itself, with the plan in front of them. Neither runs inline:
 * exit_plan_mode waits for the client's answer. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "policy/approval.h"
#include "tools/builtins.h"
#include "util/buf.h"
#include "util/mkdir_p.h"

#define PLAN_SHOW_BYTES 20000 /* of the plan enter_plan_mode shows */
#define PLAN_NAME_TRIES 100   /* names tried when several plans start in one second */

static const char plan_template[] =
    "# Plan\n"
    "\n"
    "## Findings\n"
    "\n"
    "## Approach\n"
    "\n"
    "## Steps\n"
    "\n"
    "## Risks and open questions\n";

/* Is the absolute, normalized `dir` reached without a symlink, as far as
 * it exists? A workspace may hold `.rig -> /elsewhere` (a cloned
 * repository): plans must not be written through it. */
static bool without_symlinks(const char *dir)
{
    char head[PATH_MAX], real[PATH_MAX];
    if (snprintf(head, sizeof head, "%s", dir) >= (int)sizeof head)
        return false;
    for (;;) {
        if (realpath(head[0] ? head : "/", real))
            return strcmp(real, head[0] ? head : "/") == 0;
        if (errno != ENOENT)
            return false;
        char *slash = strrchr(head, '/');
        if (!slash)
            return false;
        *slash = '\0';
    }
}

/* A new plan document in `dir`, holding the template: its path (malloc'd)
 * or NULL with `err` filled. */
static char *plan_create(const char *dir, const char *session, const char *reason,
                         rig_error *err)
{
    if (!without_symlinks(dir)) {
        rig_error_set(err, RIG_EINVAL,
                      "the plans directory %.200s is reached through a symbolic link; rig "
                      "writes plans only in a real directory (remove the link, or start rig "
                      "with --plans-dir)",
                      dir);
        return NULL;
    }
    int e = rig__mkdir_p(dir, 0777);
    if (!e && !without_symlinks(dir))
        e = ELOOP; /* a link appeared while the directories were made */
    if (e) {
        rig_error_set(err, RIG_EINVAL, "cannot make the plans directory %.200s: %s", dir,
                      strerror(e));
        return NULL;
    }
    /* The session id goes into the name only as far as it is made of
     * safe characters: it comes from the client. */
    char slug[33];
    size_t n = 0;
    for (const char *s = session; *s && n < sizeof slug - 1; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
            *s == '-' || *s == '_')
            slug[n++] = *s;
    slug[n] = '\0';
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    rig__buf body = {0};
    rig__buf_adds(&body, plan_template);
    if (reason && *reason) {
        /* one line, and no "--" that could close the comment early */
        rig__buf_adds(&body, "\n<!-- Why plan: ");
        for (const char *q = reason; *q; q++) {
            char ch = *q == '\n' || *q == '\r' ? ' ' : *q;
            if (ch == '-' && body.len && body.p[body.len - 1] == '-')
                rig__buf_addc(&body, ' ');
            rig__buf_addc(&body, ch);
        }
        rig__buf_adds(&body, " -->\n");
    }
    char path[PATH_MAX];
    int fd = -1;
    for (int i = 1; i <= PLAN_NAME_TRIES && fd < 0; i++) {
        char suffix[16] = "";
        if (i > 1)
            snprintf(suffix, sizeof suffix, "-%d", i);
        int k = snprintf(path, sizeof path, "%s/%s%s%s%s.md", dir, stamp, n ? "-" : "", slug,
                         suffix);
        if (k < 0 || (size_t)k >= sizeof path) {
            e = ENAMETOOLONG;
            break;
        }
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        e = fd < 0 ? errno : 0;
        if (fd < 0 && e != EEXIST)
            break;
    }
    bool ok = fd >= 0 && !body.oom;
    if (ok) {
        size_t done = 0;
        while (done < body.len) {
            ssize_t w = write(fd, body.p + done, body.len - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                e = errno;
                ok = false;
                break;
            }
            done += (size_t)w;
        }
    }
    if (fd >= 0 && close(fd) != 0 && ok) {
        e = errno;
        ok = false;
    }
    rig__buf_free(&body);
    if (!ok) {
        if (fd >= 0)
            unlink(path);
        rig_error_set(err, RIG_EINVAL, "cannot create a plan in %.200s: %s", dir,
                      e ? strerror(e) : "out of memory");
        return NULL;
    }
    char *out = strdup(path);
    if (!out)
        rig_error_set(err, RIG_ENOMEM, "out of memory");
    return out;
}

/* The plan's text (malloc'd, NUL-ended), at most RIG_PLAN_MAX_BYTES
 * (*cut set when there was more); NULL with errno set. */
static char *plan_read(const char *path, size_t *len, bool *cut)
{
    *cut = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    rig__buf b = {0};
    char chunk[8192];
    ssize_t k;
    while ((k = read(fd, chunk, sizeof chunk)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        if (b.len + (size_t)k > RIG_PLAN_MAX_BYTES) {
            rig__buf_add(&b, chunk, RIG_PLAN_MAX_BYTES - b.len);
            *cut = true;
            break;
        }
        rig__buf_add(&b, chunk, (size_t)k);
    }
    int e = errno;
    close(fd);
    if (k < 0 || b.oom) {
        rig__buf_free(&b);
        errno = k < 0 ? e : ENOMEM;
        return NULL;
    }
    if (!b.p)
        rig__buf_adds(&b, "");
    *len = b.len;
    return b.p;
}

/* Is the plan still blank: nothing but headings, comments and blank lines? */
static bool plan_blank(const char *text)
{
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *s = p;
        while (s < p + n && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        bool empty = s == p + n;
        if (!empty && *s != '#' && strncmp(s, "<!--", 4) != 0)
            return false;
        p += n + (e ? 1 : 0);
    }
    return true;
}

/* `s` cut to `max` bytes on a character boundary. */
static size_t cut_at(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

static rig_result *enter_run(rig_call *call)
{
    rig_approval *ap = rig_call_data(call);
    const char *session = rig_call_session(call);
    bool fresh = rig_call_bool(call, "fresh", false);
    const char *reason = rig_call_str(call, "reason", NULL);
    bool active = false;
    char *last = rig__plan_last(ap, session, &active);
    char *path = NULL, *text = NULL;
    rig_result *r = NULL;
    bool created = false;
    if (!fresh && last && access(last, F_OK) == 0) {
        path = last;
        last = NULL;
    } else {
        char dir[PATH_MAX];
        rig_error err;
        if (rig__plan_dir(ap, session, dir, sizeof dir) != 0) {
            r = rig_result_error("The plans directory's path is too long; rig cannot keep a "
                                 "plan. Go on without plan mode, or ask the user to set "
                                 "--plans-dir.");
            goto out;
        }
        if (!(path = plan_create(dir, session, reason, &err))) {
            r = rig_result_error("Plan mode could not start: %s. Go on without plan mode, or "
                                 "ask the user to fix the plans directory (--plans-dir).",
                                 err.message);
            goto out;
        }
        created = true;
    }
    size_t len = 0;
    bool cut = false;
    if (!(text = plan_read(path, &len, &cut))) {
        r = rig_result_error("The plan %s cannot be read: %s. Call enter_plan_mode with fresh: "
                             "true to start a new one.",
                             path, strerror(errno));
        goto out;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    if (rig__plan_start(ap, session, path, dir) != RIG_OK) {
        r = rig_result_error("Out of memory starting plan mode. Try again later.");
        goto out;
    }
    r = rig_result_new();
    rig__buf t = {0};
    rig__buf_addf(&t, "Plan mode is %s for this session. The plan: %s (%s).\n\n",
                  active ? "still on" : "on", path,
                  created ? "a new document" : "reopened: your last plan in this session");
    rig__buf_addf(&t,
                  "While planning, the shell and every tool that changes things are refused, "
                  "except write_file, edit_file and create_directory under %s. Read and search "
                  "as much as you need; write your findings, the approach and the steps into "
                  "the plan with write_file or edit_file; then call exit_plan_mode to propose "
                  "it. The user approves it (plan mode ends and you carry it out) or declines "
                  "with feedback (you keep planning).\n\n",
                  dir);
    size_t show = cut_at(text, len, PLAN_SHOW_BYTES);
    rig__buf_adds(&t, "Current content:\n");
    rig__buf_add(&t, text, show);
    if (show < len || cut)
        rig__buf_addf(&t, "\n[... the plan goes on; read it whole with read_file]");
    if (!t.oom)
        rig_result_textn(r, t.p, t.len);
    rig__buf_free(&t);
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "path");
        rig_json_write_string(w, path);
        rig_json_write_key(w, "plans_dir");
        rig_json_write_string(w, dir);
        rig_json_write_key(w, "created");
        rig_json_write_bool(w, created);
        rig_json_write_key(w, "content");
        rig_json_write_stringn(w, text, show);
        rig_json_write_key(w, "plan_mode");
        rig_json_write_bool(w, true);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
out:
    free(text);
    free(path);
    free(last);
    return r;
}

static rig_result *exit_result(const char *status, const char *path, const char *feedback,
                               bool planning, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static rig_result *exit_result(const char *status, const char *path, const char *feedback,
                               bool planning, const char *fmt, ...)
{
    rig_result *r = rig_result_new();
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n >= 0)
        rig_result_textn(r, msg, (size_t)n);
    free(msg);
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "status");
        rig_json_write_string(w, status);
        rig_json_write_key(w, "path");
        rig_json_write_string(w, path);
        rig_json_write_key(w, "feedback");
        if (feedback)
            rig_json_write_string(w, feedback);
        else
            rig_json_write_null(w);
        rig_json_write_key(w, "plan_mode");
        rig_json_write_bool(w, planning);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
    return r;
}

enum { PLAN_APPROVE, PLAN_KEEP };

static rig_result *exit_run(rig_call *call)
{
    rig_approval *ap = rig_call_data(call);
    const char *session = rig_call_session(call);
    bool active = false;
    char *path = rig__plan_last(ap, session, &active);
    char *text = NULL, *feedback = NULL;
    rig_result *r = NULL;
    if (!active || !path) {
        r = rig_result_error("Plan mode is not on in this session, so there is no plan to "
                             "propose. Call enter_plan_mode first if you mean to plan.");
        goto out;
    }
    size_t len = 0;
    bool cut = false;
    if (!(text = plan_read(path, &len, &cut))) {
        r = rig_result_error("The plan %s cannot be read (%s). Write it again with write_file, "
                             "then call exit_plan_mode.",
                             path, strerror(errno));
        goto out;
    }
    if (plan_blank(text)) {
        r = rig_result_error("The plan %s is still blank. Write your findings and steps into it "
                             "with write_file or edit_file, then call exit_plan_mode.",
                             path);
        goto out;
    }
    if (rig_approval_mode(ap) == RIG_POLICY_YOLO) {
        rig__plan_stop(ap, session);
        r = exit_result("approved", path, NULL, false,
                        "The plan (%s) is approved (rig runs with --policy yolo, which approves "
                        "without asking). Plan mode is off: carry out the plan.",
                        path);
        goto out;
    }
    rig__buf detail = {0};
    rig__buf_addf(&detail, "The plan (%s):\n\n", path);
    size_t show = cut_at(text, len, RIG_PLAN_PREVIEW_CHARS);
    rig__buf_add(&detail, text, show);
    if (show < len || cut)
        rig__buf_addf(&detail, "\n\n[... %zu more bytes: see the file]", len - show);
    static const char *const choices[] = {"Approve the plan", "Keep planning"};
    rig_prompt p = {.title = "The agent proposes this plan. Approve it and let the agent start?",
                    .detail = detail.oom ? NULL : detail.p,
                    .choices = choices,
                    .n_choices = 2,
                    .typed = "feedback on the plan (keeps planning)"};
    int choice = -1;
    rig_error err;
    rig_error_clear(&err);
    int rc = rig__person_ask(ap, call, &p, &choice, &feedback, &err);
    rig__buf_free(&detail);
    if (rc == RIG_OK && choice == PLAN_APPROVE) {
        rig__plan_stop(ap, session);
        if (feedback)
            r = exit_result("approved", path, feedback, false,
                            "The user approved the plan (%s) and added: \"%s\". Plan mode is "
                            "off: carry out the plan, taking that into account.",
                            path, feedback);
        else
            r = exit_result("approved", path, NULL, false,
                            "The user approved the plan (%s). Plan mode is off: carry it out.",
                            path);
    } else if (rc == RIG_OK) {
        if (feedback)
            r = exit_result("declined", path, feedback, true,
                            "The user did not approve the plan and said: \"%s\". Plan mode stays "
                            "on: revise the plan (%s), then call exit_plan_mode again.",
                            feedback, path);
        else
            r = exit_result("declined", path, NULL, true,
                            "The user did not approve the plan. Plan mode stays on: ask what "
                            "to change (ask_user) or revise the plan (%s), then call "
                            "exit_plan_mode again.",
                            path);
    } else if (rc == RIG_ECANCELED && !rig_call_cancelled(call)) {
        r = exit_result("dismissed", path, NULL, true,
                        "The user dismissed the proposal without deciding. Plan mode stays on; "
                        "call exit_plan_mode again when they are ready, or ask them (ask_user).");
    } else if (rc == RIG_ENOTSUP || rc == RIG_EPEER) {
        r = exit_result("no_user_available", path, NULL, true,
                        "Nobody can approve the plan: %s Plan mode stays on, so the shell and "
                        "writes stay refused. Finish with the plan (%s) as your answer.",
                        err.message, path);
    } else {
        r = rig_result_error("The plan was not put to the user: %s",
                             err.message[0] ? err.message : rig_strerror(rc));
    }
out:
    free(feedback);
    free(text);
    free(path);
    return r;
}

static const rig_builtin_spec enter_spec = {
    .name = "enter_plan_mode",
    .title = "Enter plan mode",
    .description =
        "Start planning before acting: opens a Markdown plan document for this conversation "
        "(your last one, or a new one with fresh: true) and switches to plan mode. While "
        "planning, the shell and every tool that changes things are refused, except "
        "write_file, edit_file and create_directory in the plans directory. Use it for work "
        "that is large, risky or unclear: investigate with read-only tools, write findings, "
        "approach and steps into the plan, then call exit_plan_mode to propose it to the "
        "user.\n"
        "Returns the plan's path, its current content and what to do next.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"reason\":{\"type\":\"string\",\"maxLength\":500,\"description\":\"Why you are "
        "planning; noted in a new plan.\"},"
        "\"fresh\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Start a new "
        "plan document instead of reopening this conversation's last one.\"}},"
        "\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\"},\"plans_dir\":{\"type\":\"string\"},"
        "\"created\":{\"type\":\"boolean\"},\"content\":{\"type\":\"string\"},"
        "\"plan_mode\":{\"type\":\"boolean\"}},"
        "\"required\":[\"path\",\"plans_dir\",\"created\",\"content\",\"plan_mode\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = enter_run,
};

static const rig_builtin_spec exit_spec = {
    .name = "exit_plan_mode",
    .title = "Propose the plan",
    .description =
        "Propose your plan to the user and ask to leave plan mode. The user sees the plan "
        "and approves it (plan mode ends: carry it out) or declines, perhaps with feedback "
        "(plan mode stays on: revise the plan and propose again). Call it once the plan "
        "document holds your findings and concrete steps.\n"
        "Returns status approved, declined, dismissed or no_user_available, the feedback if "
        "any, and whether plan mode is still on.",
    .input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"status\":{\"enum\":[\"approved\",\"declined\",\"dismissed\",\"no_user_available\"]},"
        "\"path\":{\"type\":\"string\"},\"feedback\":{\"type\":[\"string\",\"null\"]},"
        "\"plan_mode\":{\"type\":\"boolean\"}},"
        "\"required\":[\"status\",\"path\",\"feedback\",\"plan_mode\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0, /* never inline: it waits for the client's answer */
    .fn = exit_run,
};

rig_tool *rig__enter_plan_tool_new(rig_approval *ap, rig_error *err)
{
    return rig__builtin_new(&enter_spec, ap, NULL, err);
}

rig_tool *rig__exit_plan_tool_new(rig_approval *ap, rig_error *err)
{
    return rig__builtin_new(&exit_spec, ap, NULL, err);
}
