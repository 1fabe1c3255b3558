/* fs.c — the file tool family: rig_fs_tools_add puts every file tool, each
 * confined to the same roots, into a toolset (one row a tool), and the
 * calls of those tools find the roots of their session here. */
#include "core/internal.h"
#include "rig/fs.h"
#include "tools/builtins.h"
#include "tools/fs.h"

static rig_tool *(*const makers[])(rig_roots *roots, rig_error *err) = {
    rig__read_file_tool_new,
    rig__list_directory_tool_new,
    rig__directory_tree_tool_new,
    rig__get_file_info_tool_new,
    rig__read_multiple_files_tool_new,
    rig__write_file_tool_new,
    rig__create_directory_tool_new,
    rig__move_file_tool_new,
    rig__edit_file_tool_new,
    rig__glob_tool_new,
    rig__grep_tool_new,
};

int rig_fs_tools_add(rig_toolset *ts, rig_roots *roots, rig_error *err)
{
    if (!ts || !roots)
        return rig_error_set(err, RIG_EINVAL, "No toolset or roots were given.");
    for (size_t i = 0; i < sizeof makers / sizeof *makers; i++) {
        int rc = rig__toolset_adopt(ts, makers[i](roots, err), err);
        if (rc != RIG_OK)
            return rc;
    }
    return RIG_OK;
}

/* The tool's data is the base roots; the session (an MCP session's key) may
 * have roots of its own there. */
rig_roots *rig__fs_roots(rig_call *call)
{
    return rig_roots_acquire(rig_call_data(call), rig_call_session(call));
}

void rig__fs_roots_done(rig_roots *roots)
{
    rig_roots_release(roots);
}

rig_result *rig__fs_with_roots(rig_call *call, rig_result *(*run)(rig_call *call, rig_roots *roots))
{
    rig_roots *roots = rig__fs_roots(call);
    rig_result *res = run(call, roots);
    rig__fs_roots_done(roots);
    return res;
}

rig_tool *rig__fs_tool_new(const rig_builtin_spec *spec, rig_roots *roots, rig_error *err)
{
    if (!roots) {
        rig_error_set(err, RIG_EINVAL, "%s needs roots: the directories it may work in.",
                      spec->name);
        return NULL;
    }
    return rig__builtin_new(spec, roots, NULL, err);
}
