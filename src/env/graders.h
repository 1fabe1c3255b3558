/* graders.h — the built-in graders: a grader parsed once from its JSON spec
 * (as a taskset file holds it) and run on each answer. Internal; the
 * semantics of every grader type are described at the top of graders.c.
 *
 * A parsed grader is immutable and keeps its own copy of whatever it needs
 * from the spec, so the spec's document may go at once, and one grader may
 * run on several threads at once. */
#ifndef RIG_ENV_GRADERS_H
#define RIG_ENV_GRADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/env.h"
#include "util/compiler.h"

#define RIG_GRADER_MAX_DEPTH 16                 /* combinations nested */
#define RIG_GRADER_FILE_MAX ((size_t)16 << 20)  /* bytes a file grader reads */
#define RIG_GRADER_MATCH_LIMIT 1000000u         /* PCRE2 match limit (fs_grep's order) */
#define RIG_GRADER_DEPTH_LIMIT 10000u           /* PCRE2 backtracking depth limit */
#define RIG_GRADER_COMMAND_TIMEOUT_MS 60000     /* a command grader's default */
#define RIG_GRADER_TIMEOUT_MS 600000            /* a whole grading, when the caller gives none */

typedef struct rig__grader rig__grader;

/* Parse a grader spec. NULL with a sentence in why (cap bytes) that names
 * what is wrong and where ("graders[1]: 'tolerance' must be >= 0"). */
RIG_INTERNAL rig__grader *rig__grader_parse(rig_json_val spec, char *why, size_t cap);
RIG_INTERNAL void rig__grader_free(rig__grader *g);

/* Grade answer `a`. `args` are the task's args, for {name} placeholders
 * (may be missing: a placeholder then makes an isError grade).
 * `workspace_dir` is where file and command graders work (NULL: they give
 * isError grades). `sandbox`: command graders may write only beneath the
 * workspace and a private $TMPDIR (Landlock). `cancelled` (may be NULL),
 * polled while a command runs: true kills it (an isError grade), so a
 * grading abandoned at its deadline or at shutdown leaves nothing running.
 * `timeout_ms` bounds the whole grading (<= 0:
 * RIG_GRADER_TIMEOUT_MS). *out is overwritten, not freed (free it with
 * rig_grade_clear afterwards), and always filled: a grader that cannot
 * grade gives an isError grade saying why. Returns 0, or RIG_ENOMEM when
 * even that grade could not be made. Never blocks past the deadline: only
 * command graders wait, and they are killed at it; regexes stop at
 * RIG_GRADER_MATCH_LIMIT; files are read up to RIG_GRADER_FILE_MAX. */
RIG_INTERNAL int rig__grader_run(const rig__grader *g, const rig_answer *a, rig_json_val args,
                                 const char *workspace_dir, int64_t timeout_ms, bool sandbox,
                                 bool (*cancelled)(void *ud), void *cancel_ud, rig_grade *out);

/* If s[i] (of n bytes) opens a "{name}" placeholder — a C identifier in
 * braces — the name's length (the name is at s + i + 1), else 0. */
RIG_INTERNAL size_t rig__template_placeholder(const char *s, size_t n, size_t i);

/* Expand "{name}" placeholders in tpl (n bytes) from the object args into a
 * malloc'd string (*out_len bytes, NUL-terminated): a string arg's text,
 * any other arg's JSON text, each single-quoted for /bin/sh when `shell`;
 * "{{" and "}}" are literal braces. NULL with why filled ("<who> refers to
 * {x}, but the task has no arg 'x'", or out of memory). The grammar is the
 * one every grader and a taskset's prompt templates share. */
RIG_INTERNAL char *rig__template_expand(const char *who, const char *tpl, size_t n,
                                        rig_json_val args, bool shell, size_t *out_len,
                                        char *why, size_t cap);

#endif
