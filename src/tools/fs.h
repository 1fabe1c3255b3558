/* fs.h — constructors of the file tools, for rig_fs_tools_add and for
 * tests to build a tool directly. Internal.
 *
 * Each returns a new tool that works in `roots` (kept, not owned: the
 * roots must outlive the tool), or NULL with `err` filled. */
#ifndef RIG_TOOLS_FS_H
#define RIG_TOOLS_FS_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "rig/error.h"
#include "rig/fs.h"
#include "rig/roots.h"
#include "rig/tool.h"
#include "tools/builtins.h"
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
RIG_INTERNAL rig_tool *rig__edit_file_tool_new(rig_roots *roots, rig_error *err); /* fs_edit.c */

/* fs_write.c: replace the regular file `leaf` in directory `pfd` (from
 * rig_roots_open_parent) with `len` bytes at `buf`, atomically (temporary
 * file, fsync, rename), keeping the mode and owner of `old` (its fstatat).
 * 0, or an errno with *stage saying what failed; on failure the file is
 * untouched and no temporary is left. */
RIG_INTERNAL int rig__fs_replace(int pfd, const char *leaf, const char *buf, size_t len,
                                 const struct stat *old, const char **stage);

RIG_INTERNAL rig_tool *rig__glob_tool_new(rig_roots *roots, rig_error *err); /* fs_glob.c */
RIG_INTERNAL rig_tool *rig__grep_tool_new(rig_roots *roots, rig_error *err); /* fs_grep.c */

/* fs.c: a file tool from its spec, working in `roots` (kept, not owned);
 * NULL roots is RIG_EINVAL. */
RIG_INTERNAL rig_tool *rig__fs_tool_new(const rig_builtin_spec *spec, rig_roots *roots,
                                        rig_error *err);

/* fs.c: the roots a call works in: its session's, when its client offered
 * roots (MCP roots/list), else the tool's own (rig_call_data). Held from
 * rig__fs_roots to rig__fs_roots_done, so roots that change mid-call do not
 * change under it. rig__fs_with_roots wraps a whole run function in the
 * two: `return rig__fs_with_roots(call, x_run_in);`. */
RIG_INTERNAL rig_roots *rig__fs_roots(rig_call *call);
RIG_INTERNAL void rig__fs_roots_done(rig_roots *roots);
RIG_INTERNAL rig_result *rig__fs_with_roots(rig_call *call,
                                            rig_result *(*run)(rig_call *call, rig_roots *roots));

/* fs_list.c's globs and .gitignore handling, for other walkers (fs_glob.c).
 *
 * rig__glob_match: fnmatch(FNM_PATHNAME) plus `**` (any number of
 * directories). A rig__ignore is a stack of .gitignore files, one level a
 * directory entered: push on entering the directory open as dirfd, whose
 * path relative to the walk's start is rel_len characters long ("" for the
 * start); pop on leaving. rig__ignore_hit: is the entry at relative path
 * `sub`, last component `name`, ignored (last matching rule wins)?
 * rig__ignore_push returns false, pushing nothing, when out of memory or
 * too deep.
 *
 * The rules are ripgrep's: .ignore and .rgignore files everywhere (each
 * overriding the one before), .gitignore files only inside a git
 * repository, that is below a directory holding .git (looking no higher
 * than the root); those of the directories between the root and the walk's
 * start count too: rig__ignore_new(roots, path) reads them. */
typedef struct rig__ignore rig__ignore;
/* A walk's path relative to its start, in a PATH_MAX buffer of *len
 * characters: push appends "/name" (just "name" at the start), saving the
 * old length in *saved, or says false, changing nothing, when it would not
 * fit; pop goes back to `saved`. */
RIG_INTERNAL bool rig__rel_push(char *rel, size_t *len, const char *name, size_t *saved);
RIG_INTERNAL void rig__rel_pop(char *rel, size_t *len, size_t saved);
RIG_INTERNAL bool rig__glob_match(const char *pattern, const char *s);
RIG_INTERNAL rig__ignore *rig__ignore_new(const rig_roots *roots, const char *path);
RIG_INTERNAL void rig__ignore_free(rig__ignore *ig);
RIG_INTERNAL bool rig__ignore_push(rig__ignore *ig, int dirfd, size_t rel_len);
RIG_INTERNAL void rig__ignore_pop(rig__ignore *ig);
RIG_INTERNAL bool rig__ignore_hit(const rig__ignore *ig, const char *sub, const char *name,
                                  bool is_dir);

/* For tests of fs_write.c: the write(2) its tools call (NULL: write
 * itself), so a test can fail the Nth write with ENOSPC or write short;
 * and whether to try O_TMPFILE first (on by default; off exercises the
 * named temporary file). Not thread-safe: set before any call. */
typedef ssize_t (*rig__fs_write_fn)(int fd, const void *buf, size_t n);
RIG_INTERNAL void rig__fs_set_write_fn(rig__fs_write_fn fn);
RIG_INTERNAL void rig__fs_set_tmpfile(bool on);

/* For tests of fs_read.c: the pread(2) read_file calls (NULL: pread
 * itself), so a test can change the file between two reads. Not
 * thread-safe: set before any call. */
typedef ssize_t (*rig__fs_pread_fn)(int fd, void *buf, size_t n, off_t off);
RIG_INTERNAL void rig__fs_set_pread_fn(rig__fs_pread_fn fn);

#endif
