/* rig/rig.h — the umbrella header: include this to use all of librig. */
#ifndef RIG_RIG_H
#define RIG_RIG_H

#include "rig/common.h"
#include "rig/arena.h"
#include "rig/json.h"
#include "rig/error.h"
#include "rig/schema.h"
#include "rig/content.h"
#include "rig/tool.h"
#include "rig/toolset.h"
#include "rig/hub.h"
#include "rig/registry.h"
#include "rig/export.h"
#include "rig/mcp.h"
#include "rig/roots.h"
#include "rig/fs.h"
#include "rig/web.h"
#include "rig/policy.h"
#include "rig/shell.h"
#include "rig/env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH". */
RIG_API const char *rig_version(void);

#ifdef __cplusplus
}
#endif
#endif
