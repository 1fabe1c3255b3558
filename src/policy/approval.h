/* approval.h — what the approval gate (approval.c), the asking of a person
 * (prompt.c) and the interaction tools (tools/ask.c, tools/plan.c) share.
 * Internal.
 *
 * The tools reach the gate's state through these functions rather than
 * through the structure, so plan mode has one keeper: the gate refuses
 * what plan mode forbids, the plan tools only switch it on and off. */
#ifndef RIG_POLICY_APPROVAL_H
#define RIG_POLICY_APPROVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "rig/policy.h"
#include "util/compiler.h"

/* Limits. */
#define RIG_APPROVAL_PREVIEW_CHARS 600     /* of the arguments shown to the person */
#define RIG_PLAN_PREVIEW_CHARS 4000        /* of a plan shown for approval */
#define RIG_PLAN_MAX_BYTES (1024 * 1024)   /* of a plan read back */
#define RIG_PLAN_MAX_SESSIONS 256          /* sessions whose plan state is kept, LRU */

/* Put `p` to a person for `call`: through the call's MCP client
 * (elicitation/create) when it can answer, else through `ap`'s prompter.
 * Returns what rig_prompt_fn returns; RIG_ENOTSUP with `err` saying why
 * nobody could be asked (no client that elicits, no terminal). */
RIG_INTERNAL int rig__person_ask(rig_approval *ap, rig_call *call, const rig_prompt *p,
                                 int *choice, char **text, rig_error *err);

/* The prompter set on `ap` (NULL: none), for prompt.c. */
RIG_INTERNAL rig_prompt_fn rig__approval_prompter(const rig_approval *ap, void **ud);

/* `path` as the file tools would read it in `session`: a relative path
 * joined to the session's first root (or the current directory), "." and
 * empty components dropped. ".." is kept, never resolved: a symlink before
 * it would make a lexical answer wrong. Into `out` (cap bytes); -1 when it
 * does not fit. */
RIG_INTERNAL int rig__approval_abspath(rig_approval *ap, const char *session, const char *path,
                                       char *out, size_t cap);

/* ---- plan mode ------------------------------------------------------------ */

/* The plans directory for `session` (absolute): the one set, or
 * <first root>/.rig/plans. -1 when it does not fit in `out`. */
RIG_INTERNAL int rig__plan_dir(rig_approval *ap, const char *session, char *out, size_t cap);
/* The session's last plan document (malloc'd; NULL: none yet) and whether
 * the session is in plan mode now. */
RIG_INTERNAL char *rig__plan_last(rig_approval *ap, const char *session, bool *active);
/* Plan mode on for `session`, with plan `path` in directory `dir`.
 * RIG_ENOMEM when the state cannot be kept. */
RIG_INTERNAL int rig__plan_start(rig_approval *ap, const char *session, const char *path,
                                 const char *dir);
/* Plan mode off for `session` (its plan stays its last one). */
RIG_INTERNAL void rig__plan_stop(rig_approval *ap, const char *session);

#endif
