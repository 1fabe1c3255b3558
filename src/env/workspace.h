/* workspace.h — a task's working directory: copied from its template when
 * an episode starts, removed when the episode ends. Internal. */
#ifndef RIG_ENV_WORKSPACE_H
#define RIG_ENV_WORKSPACE_H

#include <stddef.h>

#include "util/compiler.h"

#define RIG_WORKSPACE_MAX_DEPTH 64        /* directories nested in a template */
#define RIG_WORKSPACE_MAX_ENTRIES 100000  /* files, directories and links in one */

/* Copy the tree at `src` (a directory) to `dst`, which must not exist: it is
 * made with src's mode. Regular files are copied with their mode (never
 * their owner: the copy is the server's), directories recursively,
 * symlinks as symlinks (their targets untouched: the file tools refuse a
 * link that leaves the workspace, as they refuse any path out); sockets,
 * FIFOs and devices are skipped. 0, or -1 with `why` (cap bytes) naming the
 * path that failed; on failure what was made of dst is removed. */
RIG_INTERNAL int rig__tree_copy(const char *src, const char *dst, char *why, size_t cap);

/* Remove `path` and everything beneath it, never following a symlink out
 * of it; directories an agent made unreadable are opened up first. A
 * missing path is success. 0, or -1 with `why`. */
RIG_INTERNAL int rig__tree_remove(const char *path, char *why, size_t cap);

#endif
