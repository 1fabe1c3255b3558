/* rig/policy.h — whether a tool call may run without asking a person: the
 * approval modes, the allowlist that remembers "always", asking a person
 * (rig_prompt), and the gate that applies all of it to a toolset
 * (rig_approval, with plan mode). docs/policy.md describes them.
 *
 * Modes: AUTO runs everything (the host asks the person, as an MCP client
 * does); ASK lets read-only tools and allowlisted calls run and asks for
 * the rest; READ_ONLY refuses every tool that is not read-only; YOLO runs
 * everything without asking.
 *
 * The allowlist maps a tool to patterns, stored as JSON
 * {"shell": ["git log *", "ls *"], "write_file": ["/work/notes.txt"]}.
 * A shell command is allowed only when every simple command in it (each
 * part of a pipeline or list, and each command inside $(...), `...`,
 * (...) and <(...)) matches a pattern: the pattern's words equal the
 * command's first words, and a final "*" stands for any further
 * arguments. Whatever the parser cannot read for certain (a command name
 * built from an expansion, a here-document, arithmetic, control flow) needs
 * asking. Other tools match their path argument exactly, or "*" for the
 * tool as a whole. */
#ifndef RIG_POLICY_H
#define RIG_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/roots.h"
#include "rig/tool.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rig_policy_mode {
    RIG_POLICY_AUTO,
    RIG_POLICY_ASK,
    RIG_POLICY_READ_ONLY,
    RIG_POLICY_YOLO
} rig_policy_mode;

/* "auto", "ask", "read-only", "yolo" -> 0 and *mode; -1 for anything else. */
RIG_API int rig_policy_mode_parse(const char *s, rig_policy_mode *mode);

typedef enum rig_verdict {
    RIG_VERDICT_ALLOW,
    RIG_VERDICT_ASK
} rig_verdict;

typedef struct rig_allowlist rig_allowlist;

RIG_API rig_allowlist *rig_allowlist_new(void);
RIG_API void rig_allowlist_free(rig_allowlist *a);

/* Read an allowlist file (a missing file is an empty list). RIG_EINVAL
 * with `err` saying where for a file that is not the JSON above. */
RIG_API int rig_allowlist_load(rig_allowlist *a, const char *path, rig_error *err);
/* Write it atomically (temporary file, fsync, rename), mode 0600. */
RIG_API int rig_allowlist_save(const rig_allowlist *a, const char *path, rig_error *err);
/* Add one pattern (a duplicate is a no-op). */
RIG_API int rig_allowlist_add(rig_allowlist *a, const char *tool, const char *pattern,
                              rig_error *err);

/* May this call run without asking? `args_json` is the call's arguments
 * (an object). `reason` (cap bytes; may be NULL) gets a sentence saying
 * why: which patterns allowed it, or which command matched none. */
RIG_API rig_verdict rig_allowlist_check(const rig_allowlist *a, const char *tool,
                                        const char *args_json, size_t len, char *reason,
                                        size_t cap);

/* The patterns an "always" answer to this call saves, one per line
 * (malloc'd), or NULL when the call cannot be remembered (a command the
 * parser cannot read): a shell command broadened to its arity prefix
 * ("git log --oneline" -> "git log *"; git, npm, docker take 2 words,
 * "git config", "npm run", "docker compose" 3, most others 1), one per
 * simple command; a file tool's path, exactly. Commands that run other
 * commands (sh, bash, env, xargs, sudo, eval, ...) are never broadened. */
RIG_API char *rig_allowlist_suggest(const char *tool, const char *args_json, size_t len);

/* ---- asking a person -----------------------------------------------------
 *
 * A question with numbered choices, and perhaps room to type an answer
 * instead. rig asks through the MCP client first (elicitation/create, when
 * the client declared that capability); a prompter is the other way to
 * reach a person, such as the terminal `rig call` runs on. */
typedef struct rig_prompt {
    const char *title;           /* one line: what is asked */
    const char *detail;          /* lines shown before the choices, or NULL */
    const char *const *choices;  /* n_choices labels, shown numbered from 1 */
    size_t n_choices;
    const char *typed;           /* non-NULL: the person may type an answer
                                  * instead of choosing; this names it
                                  * ("your own answer", "feedback") */
} rig_prompt;

/* Put `p` to a person for `call` (check rig_call_cancelled while waiting).
 * Returns RIG_OK with *choice the index picked (0-based), or -1 with *text
 * (malloc'd) what they typed instead; RIG_ECANCELED when they dismissed the
 * question; RIG_ENOTSUP when nobody can be asked now; another code with
 * `err` filled for a failure. */
typedef int (*rig_prompt_fn)(rig_call *call, const rig_prompt *p, int *choice, char **text,
                             void *ud, rig_error *err);

/* ---- the approval gate -----------------------------------------------------
 *
 * A rig_approval is a toolset's approval policy in force: a before hook on
 * every tool (rig_approval_attach) that lets a call run, asks a person, or
 * refuses it, by the mode:
 *
 *   AUTO       every call runs (the host asks its person, as MCP clients do)
 *   ASK        read-only tools (effective readOnlyHint) and calls the
 *              allowlist allows run; any other asks a person: allow once,
 *              always (the patterns rig_allowlist_suggest gives are added
 *              and the allowlist file saved), or deny. Nobody to ask: the
 *              call is refused, saying how to allow it
 *   READ_ONLY  tools that are not read-only are refused
 *   YOLO       every call runs
 *
 * A person is asked through MCP elicitation when the call's client supports
 * it, else through the prompter (rig_approval_set_prompt), else not at all.
 *
 * The gate also keeps plan mode (enter_plan_mode / exit_plan_mode, added by
 * rig_approval_add_tools), per session and whatever the mode: while a
 * session plans, only read-only tools, ask_user, think, update_todos, the
 * plan tools, and write_file / edit_file / create_directory on paths under
 * the plans directory run; everything else is refused. docs/policy.md and
 * docs/interaction.md describe both.
 *
 * Threads: calls may come from any thread; the setters are for before the
 * first call. The approval must outlive the toolsets it is attached to. */
typedef struct rig_approval rig_approval;

/* A gate in `mode`. In ASK mode the allowlist is read from
 * `allowlist_path` (a missing file is an empty list; NULL: none, and
 * "always" is remembered for this process only); RIG_EINVAL with `err`
 * saying what is wrong with a malformed file. */
RIG_API rig_approval *rig_approval_new(rig_policy_mode mode, const char *allowlist_path,
                                       rig_error *err);
RIG_API void rig_approval_free(rig_approval *ap);
RIG_API rig_policy_mode rig_approval_mode(const rig_approval *ap);

/* Install the gate on `ts` (a toolset before hook, so it runs first for
 * every tool, added before or after). An inline tool (RIG_TOOL_INLINE) runs
 * on the thread that would carry the client's answer, so the gate cannot
 * ask through elicitation for one; only a prompter can. */
RIG_API int rig_approval_attach(rig_approval *ap, rig_toolset *ts, rig_error *err);

/* The prompter to use when the client cannot be asked; NULL: none. */
RIG_API void rig_approval_set_prompt(rig_approval *ap, rig_prompt_fn fn, void *ud);

/* The roots the file tools work in (kept, not owned): relative paths in
 * calls resolve against the first root of the call's session, as the file
 * tools resolve them, and the default plans directory is
 * <first root>/.rig/plans. NULL: the current directory stands in. */
RIG_API void rig_approval_set_roots(rig_approval *ap, rig_roots *roots);

/* Keep plans in `dir` (made absolute against the current directory now)
 * instead of <first root>/.rig/plans. The file tools can write a plan only
 * where the roots allow, so keep it beneath a root. */
RIG_API int rig_approval_set_plans_dir(rig_approval *ap, const char *dir, rig_error *err);

/* Add ask_user, enter_plan_mode and exit_plan_mode to `ts`. They ask
 * through `ap` (elicitation, then its prompter) and keep plan mode in it. */
RIG_API int rig_approval_add_tools(rig_approval *ap, rig_toolset *ts, rig_error *err);

/* Is `session` in plan mode? */
RIG_API bool rig_approval_planning(rig_approval *ap, const char *session);

/* Forget what the gate keeps for `session` (its plan mode): for
 * rig_mcp_server_on_session_end. */
RIG_API void rig_approval_session_end(rig_approval *ap, const char *session);

#ifdef __cplusplus
}
#endif
#endif
