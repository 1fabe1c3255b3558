/* rig/policy.h — whether a tool call may run without asking a person: the
 * approval modes and the allowlist that remembers "always".
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

#ifdef __cplusplus
}
#endif
#endif
