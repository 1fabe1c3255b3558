/* builtins.h — constructors of the built-in tools, one per tool, for
 * builtins.c to register and for tests to build a tool directly. Internal.
 *
 * Each returns a new tool with its description, schemas, annotations,
 * flags and executor set, or NULL with `err` filled. */
#ifndef RIG_TOOLS_BUILTINS_H
#define RIG_TOOLS_BUILTINS_H

#include "rig/error.h"
#include "rig/policy.h"
#include "rig/tool.h"
#include "util/compiler.h"

RIG_INTERNAL rig_tool *rig__think_tool_new(rig_error *err);         /* think.c */
RIG_INTERNAL rig_tool *rig__todo_tool_new(rig_error *err);          /* todo.c */
RIG_INTERNAL rig_tool *rig__sleep_tool_new(rig_error *err);         /* sleep.c */
RIG_INTERNAL rig_tool *rig__get_current_time_tool_new(rig_error *err); /* clock.c */
RIG_INTERNAL rig_tool *rig__convert_time_tool_new(rig_error *err);     /* clock.c */
RIG_INTERNAL rig_tool *rig__finish_tool_new(rig_error *err);        /* finish.c */
/* The interaction tools work with an approval gate (rig/policy.h), which
 * they borrow: it must outlive them. */
RIG_INTERNAL rig_tool *rig__ask_tool_new(rig_approval *ap, rig_error *err);        /* ask.c */
RIG_INTERNAL rig_tool *rig__enter_plan_tool_new(rig_approval *ap, rig_error *err); /* plan.c */
RIG_INTERNAL rig_tool *rig__exit_plan_tool_new(rig_approval *ap, rig_error *err);  /* plan.c */

/* What a built-in tool is made of, so each file states its tool as one
 * table row instead of a run of setter calls. */
typedef struct rig_builtin_spec {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;
    const char *output_schema; /* NULL: none */
    rig_annotations annotations;
    unsigned flags;
    rig_tool_fn fn;
} rig_builtin_spec;

/* A tool from `spec` running `spec->fn` over `data`. `close` (may be NULL)
 * is called on `data` when the tool is freed, and also when this fails, so
 * the caller never cleans up twice. */
RIG_INTERNAL rig_tool *rig__builtin_new(const rig_builtin_spec *spec, void *data,
                                        rig_close_fn close, rig_error *err);

/* The per-session limits of think and update_todos (see think.c). */
#define RIG_THINK_MAX_THOUGHTS 1000   /* thoughts kept per session */
#define RIG_THINK_MAX_BRANCHES 100    /* branch ids per session */
#define RIG_TOOL_MAX_SESSIONS 256     /* sessions remembered per tool, LRU */

#endif
