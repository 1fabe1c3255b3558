/* rig/fs.h — the file tools (read_file, read_multiple_files, write_file,
 * edit_file, create_directory, move_file, list_directory, directory_tree,
 * get_file_info, glob and grep), confined to the directories of a
 * rig_roots (rig/roots.h). docs/fs.md describes them.
 *
 * The tools keep a pointer to the roots they are given and do not own it:
 * the roots must outlive the toolset the tools are added to. */
#ifndef RIG_FS_H
#define RIG_FS_H

#include "rig/common.h"
#include "rig/error.h"
#include "rig/roots.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of read_file. */
#define RIG_FS_READ_DEFAULT_LIMIT 2000          /* lines per call */
#define RIG_FS_READ_MAX_LINE_CHARS 2000         /* characters shown of one line */
#define RIG_FS_READ_WHOLE_MAX (1024 * 1024)     /* bytes read without offset/limit */
#define RIG_FS_READ_BINARY_MAX (20 * 1024 * 1024) /* bytes of a binary read */
#define RIG_FS_READ_MAX_TEXT 45000              /* bytes of text per result */

/* Add the eleven file tools to `ts`, working in `roots`. RIG_OK, or
 * an error code with `err` filled (e.g. RIG_EEXIST when a tool of that
 * name is already there); tools added before a failure stay added. */
RIG_API int rig_fs_tools_add(rig_toolset *ts, rig_roots *roots, rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
