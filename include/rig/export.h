/* rig/export.h — a toolset in the tool format of each provider.
 *
 *   MCP        {"tools":[{"name","title"?,"description","inputSchema",
 *                          "outputSchema"?,"annotations"?,"_meta"?}]}
 *   OpenAI     {"tools":[{"type":"function","function":{"name","description","parameters"}}]}
 *   Responses  {"tools":[{"type":"function","name","description","parameters","strict":false}
 *                        | native entries]}
 *   Anthropic  {"tools":[{"name","description","input_schema"} | native entries],
 *               "betas":[...]}
 *   Gemini     {"tools":[{"functionDeclarations":[{"name","description","parameters"}]}
 *                        | native entries]}
 *
 * For a model, tools with a native spec that supports it are written in
 * native form and claim their role; a later native tool with a claimed role,
 * and a generic tool whose role is claimed or whose name is a claimed
 * api_name, are left out (HUD's role exclusion). Hidden tools are never
 * listed. */
#ifndef RIG_EXPORT_H
#define RIG_EXPORT_H

#include <stdbool.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"
#include "rig/toolset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rig_format {
    RIG_FORMAT_MCP,
    RIG_FORMAT_OPENAI,
    RIG_FORMAT_RESPONSES,
    RIG_FORMAT_ANTHROPIC,
    RIG_FORMAT_GEMINI
} rig_format;

/* "mcp", "openai", "responses", "anthropic", "gemini" → format; -1 if unknown. */
RIG_API int rig_format_parse(const char *name);
RIG_API const char *rig_format_name(rig_format f);

typedef struct rig_export_opts {
    rig_format format;
    const char *model;   /* NULL: no native specs apply */
    /* Add optional "security_risk" (enum UNKNOWN/LOW/MEDIUM/HIGH) and
     * "summary" properties, first, to every tool that is not read-only,
     * unless the tool's schema names the field itself (in properties or
     * required): then it is the tool's. The toolset strips them from the
     * arguments before the tool runs and hands them over as
     * rig_call_security_risk / rig_call_summary. */
    bool security_risk;
} rig_export_opts;

RIG_API int rig_toolset_export(const rig_toolset *ts, const rig_export_opts *opts,
                               rig_json_writer *w, rig_error *err);

/* Does `t` take part in the listing for `opts` (role exclusion applied)?
 * `*native` says whether it is listed in native form. */
RIG_API bool rig_toolset_exports_tool(const rig_toolset *ts, const rig_export_opts *opts,
                                      const rig_tool *t, bool *native);

#ifdef __cplusplus
}
#endif
#endif
