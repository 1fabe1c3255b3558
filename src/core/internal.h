/* internal.h — the structures behind librig's core objects (tools, calls,
 * toolsets), shared by the files of src/core/ and src/tools/. Internal. */
#ifndef RIG_CORE_INTERNAL_H
#define RIG_CORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/content.h"
#include "rig/error.h"
#include "rig/export.h"
#include "rig/hub.h"
#include "rig/json.h"
#include "rig/registry.h"
#include "rig/schema.h"
#include "rig/tool.h"
#include "rig/toolset.h"
#include "util/compiler.h"

#define RIG_PROVIDER_COUNT 3

/* Executor state shared by the tools a factory made; closed with the last. */
struct rig_state {
    atomic_int refs;
    void *data;
    rig_close_fn close;
};

struct before_hook {
    rig_before_fn fn;
    void *ud;
};
struct after_hook {
    rig_after_fn fn;
    void *ud;
};
struct listener {
    char *event;
    rig_event_fn fn;
    void *ud;
};

typedef struct hooks {
    struct before_hook *before;
    size_t n_before;
    struct after_hook *after;
    size_t n_after;
    struct listener *listeners;
    size_t n_listeners;
} hooks;

struct native {
    bool set;
    rig_native_spec spec;  /* strings below are owned */
    char **models;         /* NULL-ended, or NULL for all */
};

struct rig_hub;

struct rig_tool {
    atomic_int refs;
    char *name;
    char *title;
    char *description;
    rig_schema *input;
    char *input_text;
    size_t input_len;
    rig_schema *output;
    char *output_text;
    size_t output_len;
    char *meta;
    size_t meta_len;
    rig_annotations ann;
    struct native natives[RIG_PROVIDER_COUNT];
    rig_tool_fn fn;
    struct rig_state *state;
    unsigned flags;
    hooks hooks;
    struct rig_toolset *owner; /* for forwarding events; NULL when loose */
    const struct rig_tool *in_hub; /* the hub that owns this tool, if one does */
    struct rig_hub *hub;       /* non-NULL: this tool is a hub's dispatcher */
};

struct rig_job;

struct rig_call {
    rig_tool *tool;          /* holds a reference */
    struct rig_toolset *ts;
    struct rig_call *root;   /* the outermost call (itself, or a hub's caller) */
    rig_json_doc *doc;       /* the arguments as the tool sees them */
    char *text;              /* their text when rig rewrote them */
    size_t args_len;         /* the argument text's length, as given */
    const char *session;     /* session_buf, or malloc'd when longer */
    char session_buf[48];
    char *risk;
    char *summary;
    rig_arena *arena;        /* made on first use */
    int64_t deadline_ns;     /* monotonic; 0 = none */
    atomic_bool cancelled;
    bool sync_init;
    pthread_mutex_t mu;      /* root only: rig_call_sleep waits here */
    pthread_cond_t cv;
    struct rig_call *next_spare; /* a toolset's cache of finished calls */
    const rig_call_peer *peer;   /* root only: the caller's, or NULL */
    void *peer_ud;
};

/* content.c: one block as MCP writes it ({"type":"text",...}). */
RIG_INTERNAL void rig__content_write_block(rig_json_writer *w, const rig_content *c);

/* tool.c */
RIG_INTERNAL void rig__tool_ref(rig_tool *t);
RIG_INTERNAL void rig__tool_unref(rig_tool *t);
RIG_INTERNAL rig_tool *rig__tool_clone(const rig_tool *t, rig_error *err);
RIG_INTERNAL int rig__hooks_add_listener(hooks *h, const char *event, rig_event_fn fn, void *ud);
RIG_INTERNAL int rig__hooks_remove_listener(hooks *h, const char *event, rig_event_fn fn,
                                            void *ud);
RIG_INTERNAL int rig__hooks_add_before(hooks *h, rig_before_fn fn, void *ud);
RIG_INTERNAL int rig__hooks_add_after(hooks *h, rig_after_fn fn, void *ud);
RIG_INTERNAL void rig__hooks_free(hooks *h);
RIG_INTERNAL void rig__hooks_fire(const hooks *h, const char *event, const rig_tool *t,
                                  const char *data);
RIG_INTERNAL bool rig__model_matches(const char *const *globs, const char *model);
/* Does a tool's input schema `root` name `key`, as a property or a required
 * one? Then `key` is the tool's own argument: the export adds no field of
 * that name and a call does not strip it (security_risk, summary). */
RIG_INTERNAL bool rig__schema_owns(rig_json_val root, const char *key);

/* call.c: a call's life and the pipeline every tool call takes. */
RIG_INTERNAL int64_t rig__now_ns(void);
/* Parse and check `args` for `t` (strip risk/summary, validate, defaults);
 * on failure return NULL and an error result in *fail. */
/* `copy`: the arguments may outlive the caller's buffer (a queued call). */
RIG_INTERNAL struct rig_call *rig__call_new(rig_tool *t, struct rig_toolset *ts,
                                            struct rig_call *parent, const char *args,
                                            size_t len, const char *session, bool copy,
                                            rig_result **fail, rig_error *err);
RIG_INTERNAL void rig__call_free(struct rig_call *c);
/* Free a finished root call into its toolset's cache, for the next call to
 * reuse its memory; only where the toolset certainly outlives the call. */
RIG_INTERNAL void rig__call_recycle(struct rig_call *c);
/* Hooks, executor, output check, after hooks. Never NULL. */
RIG_INTERNAL rig_result *rig__call_run(struct rig_call *c, rig_error *err);
RIG_INTERNAL void rig__call_cancel(struct rig_call *c);

/* toolset.c */
RIG_INTERNAL const hooks *rig__toolset_hooks(const struct rig_toolset *ts);
RIG_INTERNAL size_t rig__toolset_cap(const struct rig_toolset *ts);
/* Add `t` (NULL: the failure its constructor left in err) or free it:
 * for factories, which own what they made until the toolset takes it. */
RIG_INTERNAL int rig__toolset_adopt(struct rig_toolset *ts, rig_tool *t, rig_error *err);
/* Hold the tool table still while walking it (the export does). */
/* Is there a tool `name` that is not hidden? (The answer only: a tool
 * pointer could be freed by a remove on another thread.) */
RIG_INTERNAL bool rig__toolset_visible(const struct rig_toolset *ts, const char *name);
RIG_INTERNAL void rig__toolset_read_lock(const struct rig_toolset *ts);
RIG_INTERNAL void rig__toolset_read_unlock(const struct rig_toolset *ts);
/* The call cache: take a spare (NULL if none), give one back (false if full). */
RIG_INTERNAL struct rig_call *rig__toolset_take_spare(struct rig_toolset *ts);
RIG_INTERNAL bool rig__toolset_put_spare(struct rig_toolset *ts, struct rig_call *c);

/* hub.c */
RIG_INTERNAL void rig__hub_free(struct rig_hub *hub);
RIG_INTERNAL struct rig_hub *rig__hub_clone(const struct rig_hub *hub, rig_error *err);

#endif
