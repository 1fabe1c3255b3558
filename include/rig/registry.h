/* rig/registry.h — tools by name: factories, fixed instances and presets
 * (OpenHands' tool registry).
 *
 * A factory turns params (a JSON object) into one or more tools, which may
 * share one executor state; a fixed instance is one tool that takes no
 * params; a preset names a list of other entries. Resolving adds the tools
 * to a toolset, all or nothing. */
#ifndef RIG_REGISTRY_H
#define RIG_REGISTRY_H

#include <stddef.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rig_registry rig_registry;

/* Create tools from `params` (an object; {} when none were given) and add
 * them to `into` with rig_toolset_add. Return RIG_OK, or an error code with
 * a message in `err` (e.g. RIG_EPARAMS "unknown param 'x'"). */
typedef int (*rig_factory_fn)(rig_toolset *into, rig_json_val params, void *ud, rig_error *err);

RIG_API rig_registry *rig_registry_new(void);
RIG_API void rig_registry_free(rig_registry *reg);

/* Each fails with RIG_EINVAL for an empty name and RIG_EEXIST for a taken one. */
RIG_API int rig_registry_add_factory(rig_registry *reg, const char *name, rig_factory_fn fn,
                                     void *ud, const char *description, rig_error *err);
/* The registry owns `tool` on success; each resolve adds a copy that shares
 * its executor state. */
RIG_API int rig_registry_add_instance(rig_registry *reg, const char *name, rig_tool *tool,
                                      rig_error *err);
/* `names`: NULL-ended list of entries this preset resolves to, in order. */
RIG_API int rig_registry_add_preset(rig_registry *reg, const char *name,
                                    const char *const *names, const char *description,
                                    rig_error *err);

/* Add the tools `name` stands for to `into`. `params` is JSON text of an
 * object, or NULL. Errors: RIG_EINVAL (empty name), RIG_ENOENT ("Tool 'x'
 * not found. Available: [a, b, ...]"), RIG_EPARAMS (params for a fixed
 * instance or a preset), RIG_EJSON (params not an object), RIG_EEXIST (a
 * tool of that name is already in `into`), or the factory's own error. On
 * any error `into` is left as it was. */
RIG_API int rig_registry_resolve(const rig_registry *reg, const char *name, const char *params,
                                 size_t len, rig_toolset *into, rig_error *err);

/* Entries in the order they were added. */
RIG_API size_t rig_registry_count(const rig_registry *reg);
RIG_API const char *rig_registry_name(const rig_registry *reg, size_t i);
RIG_API const char *rig_registry_description(const rig_registry *reg, size_t i);

/* The built-in tools (think, update_todos, sleep, get_current_time,
 * convert_time, finish) and the presets "default" (all of them). */
RIG_API int rig_registry_add_builtins(rig_registry *reg, rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
