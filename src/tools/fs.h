/* fs.h — constructors of the file tools, for rig_fs_tools_add and for
 * tests to build a tool directly. Internal.
 *
 * Each returns a new tool that works in `roots` (kept, not owned: the
 * roots must outlive the tool), or NULL with `err` filled. */
#ifndef RIG_TOOLS_FS_H
#define RIG_TOOLS_FS_H

#include "rig/error.h"
#include "rig/fs.h"
#include "rig/roots.h"
#include "rig/tool.h"
#include "util/compiler.h"

RIG_INTERNAL rig_tool *rig__read_file_tool_new(rig_roots *roots, rig_error *err); /* fs_read.c */

#endif
