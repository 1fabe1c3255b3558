/* builtins.c — the built-in tools in a registry: one factory per tool, each
 * taking no params (OpenHands' rule: a tool that has nothing to configure
 * refuses params rather than ignoring them), and the preset "default" that
 * stands for all of them. Also the shared constructor every built-in uses
 * to turn its spec row into a tool. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "tools/builtins.h"

rig_tool *rig__builtin_new(const rig_builtin_spec *spec, void *data, rig_close_fn close,
                           rig_error *err) {
    rig_tool *t = rig_tool_new(spec->name, err);
    if (!t) {
        if (close)
            close(data);
        return NULL;
    }
    /* From here on the tool owns `data`: freeing it closes the state. */
    rig_tool_set_executor(t, spec->fn, data, close);
    if ((spec->title && rig_tool_set_title(t, spec->title) != RIG_OK) ||
        rig_tool_set_description(t, spec->description) != RIG_OK) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory creating tool '%s'.", spec->name);
        goto fail;
    }
    if (rig_tool_set_input_schema(t, spec->input_schema, strlen(spec->input_schema), err) !=
        RIG_OK)
        goto fail;
    if (spec->output_schema &&
        rig_tool_set_output_schema(t, spec->output_schema, strlen(spec->output_schema), err) !=
            RIG_OK)
        goto fail;
    rig_tool_set_annotations(t, &spec->annotations);
    rig_tool_set_flags(t, spec->flags);
    return t;
fail:
    rig_tool_free(t);
    return NULL;
}

/* The registry's table: name, constructor, the one-line description a
 * listing of the registry shows. */
static const struct builtin {
    const char *name;
    rig_tool *(*make)(rig_error *err);
    const char *description;
} builtins[] = {
    {"think", rig__think_tool_new,
     "Sequential thinking: numbered thoughts with revisions and branches, kept per session."},
    {"update_todos", rig__todo_tool_new,
     "A structured todo list for the current work, replaced whole on each call."},
    {"sleep", rig__sleep_tool_new, "Wait up to an hour; cancellable."},
    {"get_current_time", rig__get_current_time_tool_new,
     "The current time in an IANA time zone (default: the local zone)."},
    {"convert_time", rig__convert_time_tool_new,
     "Convert a wall-clock time between two IANA time zones."},
    {"finish", rig__finish_tool_new, "Signal that the task is done, with a final message."},
};

#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

static int builtin_factory(rig_toolset *into, rig_json_val params, void *ud, rig_error *err) {
    const struct builtin *b = &builtins[(uintptr_t)ud];
    rig_json_iter it = rig_json_iter_init(params);
    rig_json_val key, val;
    if (rig_json_iter_member(&it, &key, &val)) {
        /* Name the param, cut to a length that leaves room for the rest. */
        char name[64];
        size_t len = rig_json_str_len(key);
        if (len >= sizeof name) {
            char *full = malloc(len + 1);
            if (full && rig_json_str_copy(key, full, len + 1, NULL) == RIG_JSON_OK)
                snprintf(name, sizeof name, "%.60s...", full);
            else
                snprintf(name, sizeof name, "?");
            free(full);
        } else {
            rig_json_str_copy(key, name, sizeof name, NULL);
        }
        return rig_error_set(err, RIG_EPARAMS,
                             "Unknown param '%s' for tool '%s': it takes no params. Resolve it "
                             "without params.",
                             name, b->name);
    }
    return rig__toolset_adopt(into, b->make(err), err);
}

int rig_registry_add_builtins(rig_registry *reg, rig_error *err) {
    static const char *const preset[N_BUILTINS + 1] = {
        "think", "update_todos", "sleep", "get_current_time", "convert_time", "finish", NULL,
    };
    _Static_assert(N_BUILTINS == 6, "the preset lists every built-in");
    for (size_t i = 0; i < N_BUILTINS; i++) {
        int rc = rig_registry_add_factory(reg, builtins[i].name, builtin_factory, (void *)(uintptr_t)i,
                                          builtins[i].description, err);
        if (rc != RIG_OK)
            return rc;
    }
    return rig_registry_add_preset(reg, "default", preset,
                                   "Every built-in tool: think, update_todos, sleep, "
                                   "get_current_time, convert_time, finish.",
                                   err);
}
