/* fs.h — constructors of the file tools, for rig_fs_tools_add and for
 * tests to build a tool directly. Internal.
 *
 * Each returns a new tool that works in `roots` (kept, not owned: the
 * roots must outlive the tool), or NULL with `err` filled. */
#ifndef RIG_TOOLS_FS_H
#define RIG_TOOLS_FS_H

#include <stdbool.h>
#include <sys/types.h>

#include "rig/error.h"
#include "rig/fs.h"
#include "rig/roots.h"
#include "rig/tool.h"
#include "util/compiler.h"

RIG_INTERNAL rig_tool *rig__read_file_tool_new(rig_roots *roots, rig_error *err); /* fs_read.c */
/* fs_list.c */
RIG_INTERNAL rig_tool *rig__list_directory_tool_new(rig_roots *roots, rig_error *err);
RIG_INTERNAL rig_tool *rig__directory_tree_tool_new(rig_roots *roots, rig_error *err);
RIG_INTERNAL rig_tool *rig__get_file_info_tool_new(rig_roots *roots, rig_error *err);
RIG_INTERNAL rig_tool *rig__read_multiple_files_tool_new(rig_roots *roots, rig_error *err);
RIG_INTERNAL rig_tool *rig__write_file_tool_new(rig_roots *roots, rig_error *err); /* fs_write.c */
RIG_INTERNAL rig_tool *rig__create_directory_tool_new(rig_roots *roots,
                                                      rig_error *err); /* fs_write.c */
RIG_INTERNAL rig_tool *rig__move_file_tool_new(rig_roots *roots, rig_error *err); /* fs_write.c */

/* For tests of fs_write.c: the write(2) its tools call (NULL: write
 * itself), so a test can fail the Nth write with ENOSPC or write short;
 * and whether to try O_TMPFILE first (on by default; off exercises the
 * named temporary file). Not thread-safe: set before any call. */
typedef ssize_t (*rig__fs_write_fn)(int fd, const void *buf, size_t n);
RIG_INTERNAL void rig__fs_set_write_fn(rig__fs_write_fn fn);
RIG_INTERNAL void rig__fs_set_tmpfile(bool on);

#endif
