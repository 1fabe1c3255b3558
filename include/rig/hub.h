/* rig/hub.h — a hub: many tools behind one dispatcher tool (HUD's BaseHub).
 *
 * The hub is itself a tool named after it, with arguments
 *   {"name": <one of the inner tools' names>, "arguments": {...}}
 * Inner tools are hidden from listings and reached only through the hub;
 * each keeps its own schema, validation and hooks. The catalog describes
 * them (MCP serves it as a resource). */
#ifndef RIG_HUB_H
#define RIG_HUB_H

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"
#include "rig/tool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A hub tool called `name`, to be filled with rig_hub_add and then added to
 * a toolset like any tool. */
RIG_API rig_tool *rig_hub_new(const char *name, const char *description, rig_error *err);

/* Add an inner tool; the hub owns it on success. RIG_EINVAL if `hub` is not
 * a hub or `inner` already belongs to a toolset or a hub, RIG_EEXIST for a
 * taken name, RIG_ESTATE once the hub is in a toolset (fill a hub before
 * serving it: calls read its schema without a lock). The dispatcher's
 * schema (the enum of names) follows. */
RIG_API int rig_hub_add(rig_tool *hub, rig_tool *inner, rig_error *err);

RIG_API bool rig_tool_is_hub(const rig_tool *t);
RIG_API size_t rig_hub_count(const rig_tool *hub);
RIG_API rig_tool *rig_hub_at(const rig_tool *hub, size_t i);

/* The catalog: {"hub":NAME,"description":...,"tools":[{"name","description",
 * "inputSchema"}...]}. */
RIG_API int rig_hub_catalog(const rig_tool *hub, rig_json_writer *w);

#ifdef __cplusplus
}
#endif
#endif
