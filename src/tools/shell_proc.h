/* shell_proc.h — running one shell command for the shell tool: its own
 * process group, its input, its output kept within bounds, a deadline that
 * ends the whole group, and nothing left behind. Internal.
 *
 * The command runs as `/bin/sh -c COMMAND` in a new process group (so a
 * timeout or a cancellation reaches every process it started), with stdin
 * from the given bytes (or /dev/null), stdout and stderr on pipes, and, when
 * a Landlock ruleset is given, confined to it before exec
 * (sandbox/landlock.h). On the deadline or a cancellation the group gets
 * SIGTERM, then SIGKILL KILL_GRACE_MS later; the exit code is then 124 as
 * timeout(1) gives. When the command itself exits, whatever it left running
 * in its group (a `sleep 100 &`) is killed too: no orphans.
 *
 * Output beyond `cap` bytes a stream keeps its head and tail in memory (the
 * middle replaced by a line saying how much was cut) and, with a spill
 * directory, the whole stream goes to a file there whose path the result
 * gives. */
#ifndef RIG_TOOLS_SHELL_PROC_H
#define RIG_TOOLS_SHELL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define RIG_PROC_KILL_GRACE_MS 2000

typedef struct rig__proc_opts {
    const char *command;       /* for /bin/sh -c */
    const char *cwd;           /* NULL: the caller's (or cwd_fd's) */
    int cwd_fd;                /* > 0: start in this directory (wins over cwd); 0 or -1: none
                                * (0 is stdin, never a directory, so a zeroed struct means none) */
    char *const *envp;         /* the environment; NULL: the caller's */
    const char *stdin_data;    /* NULL: /dev/null */
    size_t stdin_len;
    int64_t timeout_ms;        /* 0: none */
    size_t cap;                /* bytes of each stream kept in memory (0: 30,000) */
    const char *spill_dir;     /* where a stream over cap is saved whole; NULL: nowhere */
    int landlock_fd;           /* a prepared ruleset (landlock.h), or -1 */
    /* Every chunk of output as it arrives (stream 1 stdout, 2 stderr), on
     * the running thread, besides being kept as above; may be NULL. */
    void (*on_output)(void *ud, int stream, const char *p, size_t n);
    void *output_ud;
    /* Polled every POLL_MS: true ends the command as a timeout does. */
    bool (*cancelled)(void *ud);
    void *cancel_ud;
} rig__proc_opts;

typedef struct rig__proc_stream {
    char *text;                /* head [... N bytes cut ...] tail; NUL-terminated */
    size_t len;
    uint64_t total;            /* bytes the command wrote */
    char *file;                /* the whole stream, when it was over cap and spilled */
} rig__proc_stream;

typedef struct rig__proc_result {
    int exit_code;             /* its status; 128 + N for signal N; 124 on timeout or cancel */
    bool timed_out, cancelled;
    int64_t duration_ms;
    rig__proc_stream out, err;
} rig__proc_result;

/* Run it. 0 with *r filled (free with rig__proc_result_free), or -1 with
 * `why` (cap bytes) when it could not be started (no /bin/sh, a cwd that
 * is not a directory, no memory, no pipes). */
RIG_INTERNAL int rig__proc_run(const rig__proc_opts *o, rig__proc_result *r, char *why,
                               size_t why_cap);
RIG_INTERNAL void rig__proc_result_free(rig__proc_result *r);

#endif
