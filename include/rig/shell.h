/* rig/shell.h — the shell tools: `shell` (one command, or several in
 * sequence or in parallel), and the background jobs it can start, read
 * (`shell_output`) and stop (`shell_stop`). docs/shell.md describes them.
 *
 * Every command runs as `/bin/sh -c` in its own process group, so a
 * timeout, a cancelled call or a stopped job ends everything it started;
 * nothing is left behind as a zombie or an orphan. Unless the sandbox is
 * off, it runs in a Landlock domain that lets it read everything but write
 * only beneath the roots of the call's session and a private temporary
 * directory (which is also its TMPDIR, and where output too large for a
 * result is saved).
 *
 * A rig_shell is the state the three tools share (the temporary directory,
 * the background jobs); it is reference-counted, so the caller's
 * rig_shell_free and the toolset's freeing of the tools may come in either
 * order. */
#ifndef RIG_SHELL_H
#define RIG_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/roots.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIG_SHELL_TIMEOUT_MS 120000       /* a command's default timeout */
#define RIG_SHELL_OUTPUT_CAP 30000        /* bytes of each stream a result shows (OpenHands') */
#define RIG_SHELL_MAX_COMMANDS 64         /* commands in one call */
#define RIG_SHELL_MAX_PARALLEL 16         /* of which running at once */
#define RIG_SHELL_JOB_RING (64 * 1024)    /* a job's recent output kept in memory */
#define RIG_SHELL_JOB_LOG_MAX (256ull << 20) /* bytes of a job's output kept on disk */
#define RIG_SHELL_JOBS_PER_SESSION 32     /* background jobs a session may hold */

typedef struct rig_shell_opts {
    bool no_sandbox;          /* true: run commands without Landlock (--sandbox off) */
    int64_t timeout_ms;       /* a command's default timeout; 0: RIG_SHELL_TIMEOUT_MS */
    size_t output_cap;        /* 0: RIG_SHELL_OUTPUT_CAP */
    const char *temp_parent;  /* where the private directory is made; NULL: $TMPDIR or /tmp */
    /* For untrusted agents (an environment's episodes): each session gets
     * its own TMPDIR inside the private directory, commands may read only
     * the system directories, their roots and that TMPDIR, may not open
     * TCP connections or signal processes outside their sandbox (as far as
     * the kernel's Landlock goes), and see only a few harmless environment
     * variables (PATH, HOME, LANG, LC_*, TERM, TZ, USER, LOGNAME, SHELL). */
    bool isolate;
} rig_shell_opts;

typedef struct rig_shell rig_shell;

/* The shell's state, working in `roots` (kept, not owned: the roots must
 * outlive it). The private temporary directory is made by the first
 * command (a bad temp_parent is reported then, as that command's error).
 * NULL with `err` filled when out of memory. */
RIG_API rig_shell *rig_shell_new(rig_roots *roots, const rig_shell_opts *o, rig_error *err);

/* Add shell, shell_output and shell_stop to `ts`; each holds a reference. */
RIG_API int rig_shell_tools_add(rig_toolset *ts, rig_shell *sh, rig_error *err);

/* Whether commands will run confined: false when the sandbox is off or the
 * kernel has no Landlock; `why` (cap bytes, may be NULL) then says which,
 * for the caller to warn about once. */
RIG_API bool rig_shell_sandboxed(const rig_shell *sh, char *why, size_t cap);

/* The private temporary directory (the commands' TMPDIR); NULL until the
 * first command made it. */
RIG_API const char *rig_shell_temp_dir(const rig_shell *sh);

/* A session ended (an MCP session closed): stop its background jobs, as
 * shell_stop would, and forget them. */
RIG_API void rig_shell_end_session(rig_shell *sh, const char *session);

/* Drop the caller's reference. When the last goes, every job still
 * running is stopped and the temporary directory removed. */
RIG_API void rig_shell_free(rig_shell *sh);

#ifdef __cplusplus
}
#endif
#endif
