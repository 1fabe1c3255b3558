/* mkdir_p.h — `mkdir -p` for directories rig keeps for itself (plans, the
 * allowlist's directory), outside the roots' confined opening. Internal. */
#ifndef RIG_UTIL_MKDIR_P_H
#define RIG_UTIL_MKDIR_P_H

#include <sys/types.h>

#include "util/compiler.h"

/* Makes `dir` and any missing parents with `mode` (less the umask). 0 when
 * `dir` is a directory afterwards, else an errno value. */
RIG_INTERNAL int rig__mkdir_p(const char *dir, mode_t mode);

#endif
