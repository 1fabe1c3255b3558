/* version.c — the library's version, set by the build. */
#include "rig/rig.h"

#ifndef RIG_VERSION
#error "the build defines RIG_VERSION"
#endif

const char *rig_version(void) { return RIG_VERSION; }
