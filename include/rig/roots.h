/* rig/roots.h — the directories file tools may touch, enforced by the kernel.
 *
 * A rig_roots holds open directory descriptors. Every path a tool is given
 * resolves beneath one of them through openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), so "..", absolute paths elsewhere, symlinks that
 * lead out, /proc magic links and a directory swapped for a symlink in the
 * middle of a call all fail in the kernel, not in a string check. Where the
 * kernel has no openat2 (before Linux 5.6), a walk one component at a time
 * with O_NOFOLLOW does the same, resolving symlinks itself and never
 * climbing above the root.
 *
 * Paths: an absolute path must lie under a root (as given, or as its real
 * path); a relative one resolves against the first root. Symlinks that stay
 * inside the root work. A refusal says which roots are allowed.
 *
 * Sessions: a client (an MCP session) may bring roots of its own
 * (roots/list), which replace the configured ones for that session only.
 * The configured rig_roots is the base; each session's list is a view, a
 * rig_roots of its own held by the base under the session's name. A tool
 * call takes the view of its session with rig_roots_acquire and works in it
 * to the end, even if the session's roots change or go meanwhile; views
 * are reference-counted, so nothing is closed under it. */
#ifndef RIG_ROOTS_H
#define RIG_ROOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rig/common.h"
#include "rig/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rig_roots rig_roots;

RIG_API rig_roots *rig_roots_new(void);
/* Drop the caller's reference: the roots close once no call holds them
 * (rig_roots_acquire), with every session's view. */
RIG_API void rig_roots_free(rig_roots *r);

/* Add a root: an existing directory (opened now; later renames of its path
 * do not move it). RIG_EINVAL for a path that is not a directory,
 * RIG_EEXIST for one already a root. */
RIG_API int rig_roots_add(rig_roots *r, const char *dir, rig_error *err);
RIG_API size_t rig_roots_count(const rig_roots *r);
/* The root's real path, as the model should name it. */
RIG_API const char *rig_roots_path(const rig_roots *r, size_t i);

/* Open `path` confined to the roots, as openat(2) would with `flags` (O_*)
 * and `mode`. Returns a descriptor, or a negative RIG_E* code with `err`
 * saying why in words a model can act on: RIG_EBLOCKED for a path outside
 * the roots (naming them), RIG_ENOENT, RIG_EINVAL for other failures (with
 * the system's reason). `*errno_out` (may be NULL) gets the errno. */
RIG_API int rig_roots_open(const rig_roots *r, const char *path, int flags, mode_t mode,
                           int *errno_out, rig_error *err);

/* Open the directory that holds `path`'s last component, confined, for
 * creating, renaming or removing it: returns the directory's descriptor and
 * copies the last component into leaf (cap bytes). A path that names a root
 * itself has no parent to work in: RIG_EINVAL. */
RIG_API int rig_roots_open_parent(const rig_roots *r, const char *path, char *leaf, size_t cap,
                                  rig_error *err);

/* Which root `path` falls under and its path relative to that root (into
 * rel, cap bytes; "." for the root itself). -1 when outside every root.
 * Lexical only: the open functions are what enforce confinement. */
RIG_API int rig_roots_locate(const rig_roots *r, const char *path, char *rel, size_t cap);

/* ---- per-session roots ------------------------------------------------
 *
 * Thread-safe against each other and against calls in flight: the loop
 * thread may set and drop sessions while tools open paths on workers.
 * (rig_roots_add is not: add the base's roots before serving.) */

/* Give `session` its own roots, replacing any it had: `n` absolute paths of
 * directories. Paths that are not absolute, do not exist or are not
 * directories are skipped, and named in `err` (code RIG_EINVAL) though the
 * call succeeds; duplicates are dropped. Returns how many became roots (0
 * when none could: the session then has no directory at all, rather than
 * falling back to the base's, which may be wider than the client meant),
 * or a negative code (RIG_ENOMEM; RIG_EINVAL for no session name or a
 * view as `r`). n == 0 is rig_roots_drop_session: the base's roots again. */
RIG_API int rig_roots_set_session(rig_roots *r, const char *session, const char *const *paths,
                                  size_t n, rig_error *err);
/* Forget `session`'s roots (it ended, or its client offers none). Calls
 * that acquired them keep them until they release. */
RIG_API void rig_roots_drop_session(rig_roots *r, const char *session);
/* Sessions with roots of their own. */
RIG_API size_t rig_roots_sessions(rig_roots *r);

/* The roots in effect for `session` (NULL or "": none): its view, or `base`
 * itself when it has none; with a reference the caller gives back with
 * rig_roots_release. NULL only for a NULL base. */
RIG_API rig_roots *rig_roots_acquire(rig_roots *base, const char *session);
RIG_API void rig_roots_release(rig_roots *r);

/* For tests: act as if the kernel had no openat2 (the walking fallback).
 * Views made after this inherit it. */
RIG_API void rig_roots_force_fallback(rig_roots *r, bool on);

#ifdef __cplusplus
}
#endif
#endif
