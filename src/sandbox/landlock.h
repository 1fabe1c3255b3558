/* landlock.h — confining a shell command's writes with Landlock. Internal.
 *
 * The domain lets the process read and execute everything, and write —
 * create, remove, rename, link, truncate, make directories, symlinks,
 * fifos, sockets and device nodes, ioctl on devices — only beneath the
 * given directories, plus write (not create) on the harmless sink devices
 * /dev/null, /dev/zero and /dev/full, because commands write to /dev/null
 * all the time. Networking, signals and abstract unix sockets stay open:
 * only file system rights are handled. The domain is inherited by every
 * child and survives execve; it cannot be lifted, only stacked (another
 * domain narrows it further).
 *
 * Use it in two halves around fork, because the child of a multi-threaded
 * parent may only call async-signal-safe functions until it execs:
 *
 *   int rs;                                      // parent, before fork
 *   switch (rig__landlock_prepare(dirs, n, &rs, why, sizeof why)) {
 *   case 0: break;                               // rs is a ruleset
 *   case RIG_LANDLOCK_ABSENT: warn(why); break;  // rs is -1: unconfined
 *   default: fail(why);                          // a directory is bad
 *   }
 *   pid = fork();
 *   if (pid == 0) {                              // child
 *       if (rs >= 0 && (e = rig__landlock_apply(rs)) != 0) {
 *           write(err_pipe, ...); _exit(126);     // never exec unconfined
 *       }
 *       execve(...);
 *   }
 *   rig__landlock_release(rs);                   // parent, after fork
 *
 * prepare opens the directories, queries the ABI and builds the ruleset
 * (it may allocate and format `why`); apply only calls prctl and
 * landlock_restrict_self. The ruleset descriptor is close-on-exec, so the
 * child need not close it, and one ruleset serves any number of forks.
 *
 * Descriptors opened before apply keep the access they were opened with:
 * the caller must not hand the child a writable descriptor for a file
 * outside the directories (pipes and /dev/null are fine). */
#ifndef RIG_SANDBOX_LANDLOCK_H
#define RIG_SANDBOX_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

/* prepare's and confine's answer when the kernel has no Landlock (not built
 * in, or not enabled at boot): the caller warns with `why` and runs the
 * command unconfined, or refuses, as its --sandbox setting says. */
#define RIG_LANDLOCK_ABSENT 1

/* The Landlock ABI version the running kernel offers (1 for Linux 5.13, 7
 * for 6.15 and later), or 0 when it has none. */
RIG_INTERNAL int rig__landlock_abi(void);

/* Builds the ruleset allowing writes beneath `write_dirs` (n paths, each a
 * directory; symlinks are followed to name the directory once, here; n may
 * be 0 for a domain that writes nowhere but the sink devices) and sets
 * *ruleset_fd to it (close-on-exec). 0 on success; RIG_LANDLOCK_ABSENT with
 * *ruleset_fd = -1 and `why` saying so when the kernel lacks Landlock; -1
 * with *ruleset_fd = -1 and `why` (cap bytes) naming what failed — a
 * directory that cannot be opened or is not a directory is an error even
 * without Landlock, so a bad root is reported the same on every kernel.
 * Not for the child of fork: it opens descriptors and formats text. */
RIG_INTERNAL int rig__landlock_prepare(const char *const *write_dirs, size_t n,
                                       int *ruleset_fd, char *why, size_t cap);

/* prepare, or with `isolate` a narrower domain for commands an untrusted
 * agent runs in an environment's episode: besides the writes above, reads
 * and execution are allowed only beneath the system directories (/usr,
 * /bin, /sbin, /lib*, /etc, /opt, /dev, /proc, /sys) and the write
 * directories — not other users' files, other episodes' workspaces or the
 * taskset with its answers; with ABI 4, no TCP connect or bind at all (the
 * control channel and other local services are out of reach); with ABI 6,
 * no signals to processes outside the domain and no abstract unix sockets
 * outside it. An older kernel enforces what it knows. */
RIG_INTERNAL int rig__landlock_prepare_ex(const char *const *write_dirs, size_t n, bool isolate,
                                          int *ruleset_fd, char *why, size_t cap);

/* Confines the calling process (and so every process it later execs or
 * forks) to the ruleset: sets no_new_privs (set-user-ID programs such as
 * sudo then run without their privileges) and enforces the domain.
 * Async-signal-safe: only prctl(2) and landlock_restrict_self(2), so it may
 * run between fork and exec. Does not close the ruleset. Calling it again
 * stacks another layer (the kernel allows 16). 0, or an errno value; on
 * failure the process may already have no_new_privs but is not confined,
 * so it must not go on to run the command. */
RIG_INTERNAL int rig__landlock_apply(int ruleset_fd);

/* Closes a ruleset from prepare; -1 is ignored. */
RIG_INTERNAL void rig__landlock_release(int ruleset_fd);

/* prepare, apply and release in one, for a process with a single thread
 * (a test, or a helper that has exec'd): the same answers as prepare, and
 * -1 with `why` when apply fails. */
RIG_INTERNAL int rig__landlock_confine(const char *const *write_dirs, size_t n, char *why,
                                       size_t cap);

#endif
