/* env_internal.h — what env.c (the environment, its tasks and capabilities)
 * shares with control.c (the control channel that serves them). Internal. */
#ifndef RIG_ENV_INTERNAL_H
#define RIG_ENV_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "rig/env.h"
#include "util/compiler.h"

typedef struct rig__task {
    char *id, *description;
    rig_schema *args, *input, *returns; /* input/returns may be NULL */
    rig_task_start_fn start;
    rig_task_grade_fn grade;
    rig_task_end_fn end;
    void *ud;
} rig__task;

typedef struct rig__cap {
    char *name, *protocol, *url, *params_json;
} rig__cap;

struct rig_env {
    char *name, *version;
    rig__task *tasks;
    size_t ntasks, tasks_cap;
    pthread_mutex_t caps_lock; /* caps may change while serving */
    rig__cap *caps;
    size_t ncaps, caps_cap;
    rig_env_hook_fn on_init, on_shutdown;
    void *init_ud, *shutdown_ud;
    pthread_mutex_t serve_lock; /* guards `serving` */
    struct rig_env_server *serving;
    void (*owner_free)(void *owner); /* what built the env (a taskset) frees its state */
    void *owner;
};

/* A started task: what rig_task_ctx points at. Its reference count is
 * touched on the loop thread only; workers borrow it while a job runs. */
struct rig_task_ctx {
    const rig__task *task;
    char session[16];
    rig_json_doc *args_doc; /* the validated args */
    void *state;
    atomic_bool cancelled;
    unsigned refs;
};

RIG_INTERNAL const rig__task *rig__env_find_task(const rig_env *env, const char *id, size_t len);
RIG_INTERNAL rig_task_ctx *rig__task_ctx_new(const rig__task *t, const char *session,
                                             rig_json_doc *args_doc);
/* Drop one reference; the last one calls the task's end and frees. */
RIG_INTERNAL void rig__task_ctx_unref(rig_task_ctx *ctx);
/* Hands `owner` to the env: rig_env_free calls free_fn(owner) first. */
RIG_INTERNAL void rig__env_set_owner(rig_env *env, void *owner, void (*free_fn)(void *));
/* Writes the "bindings" array of hello, under the caps lock. */
RIG_INTERNAL int rig__env_write_bindings(rig_env *env, rig_json_writer *w);
/* Copies the host and port out of capability `name`'s url. RIG_ENOENT for
 * no such capability, RIG_EINVAL for a url without host:port. */
RIG_INTERNAL int rig__env_cap_addr(rig_env *env, const char *name, size_t len, char *host,
                                   size_t hostcap, int *port);

#endif
