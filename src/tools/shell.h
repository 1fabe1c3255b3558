/* shell.h — what the shell tool (shell.c) and its background jobs
 * (shell_jobs.c) share. Internal. */
#ifndef RIG_TOOLS_SHELL_H
#define RIG_TOOLS_SHELL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/shell.h"
#include "rig/tool.h"
#include "util/compiler.h"

typedef struct rig__jobs rig__jobs;

struct rig_shell {
    atomic_int refs;
    rig_roots *roots;          /* the base roots; a call uses its session's view */
    bool no_sandbox;
    bool isolate;              /* per-session TMPDIR, confined reads, no TCP, scrubbed env */
    int landlock_abi;          /* 0: the kernel has none */
    int64_t timeout_ms;
    size_t output_cap;
    /* Made by the first command (most runs of rig never start one), then
     * fixed: written once under temp_mu, read by commands after that. */
    pthread_mutex_t temp_mu;
    char *temp_parent;         /* where it is made */
    char *temp_dir;            /* private, 0700; the commands' TMPDIR */
    char *tmpdir_env;          /* "TMPDIR=<temp_dir>" */
    rig__jobs *jobs;
};

/* What a command about to run needs from its call: where it starts, its
 * environment and its sandbox. Filled by rig__shell_setup, emptied by
 * rig__shell_setup_done. */
typedef struct rig__cmd_setup {
    int cwd_fd;                /* the work_dir, opened in the roots; -1: the first root */
    char *cwd;                 /* its path, as the result shows it */
    char **envp;               /* the process's environment with TMPDIR replaced */
    int landlock_fd;           /* a ruleset, or -1 when unconfined */
    bool unconfined;           /* the sandbox was wanted but the kernel has no Landlock */
    char *tmp;                 /* isolated: the session's own TMPDIR (else NULL: temp_dir) */
    char *tmpdir_env;          /* isolated: "TMPDIR=<tmp>", which envp borrows */
} rig__cmd_setup;

/* Sets up a command of the call `call` in `work_dir` (NULL or "": the
 * first root; relative: against it; must lie in the session's roots).
 * 0, or -1 with `why` (cap bytes) for the model. */
RIG_INTERNAL int rig__shell_setup(rig_shell *sh, rig_call *call, const char *work_dir,
                                  rig__cmd_setup *s, char *why, size_t cap);
RIG_INTERNAL void rig__shell_setup_done(rig__cmd_setup *s);

RIG_INTERNAL void rig__shell_ref(rig_shell *sh);
RIG_INTERNAL void rig__shell_unref(void *sh);

/* ---- background jobs (shell_jobs.c) ---------------------------------- */

RIG_INTERNAL rig__jobs *rig__jobs_new(void);
/* Stops every job and waits for them. */
RIG_INTERNAL void rig__jobs_free(rig__jobs *j);

/* Starts `command` in the background for `session`, its log in `log_dir`,
 * taking over the setup's descriptors and environment (*s is emptied
 * whatever happens). 0 with the job's id in `id`, or -1 with `why` for
 * the model. */
RIG_INTERNAL int rig__jobs_start(rig__jobs *j, const char *log_dir, const char *session,
                                 const char *command,
                                 const char *stdin_data, size_t stdin_len, int64_t timeout_ms,
                                 rig__cmd_setup *s, char *id, size_t id_cap, char *why,
                                 size_t why_cap);
RIG_INTERNAL void rig__jobs_end_session(rig__jobs *j, const char *session);

/* The executors of shell_output and shell_stop (their data is the rig_shell). */
RIG_INTERNAL rig_result *rig__shell_output_run(rig_call *call);
RIG_INTERNAL rig_result *rig__shell_stop_run(rig_call *call);

#endif
