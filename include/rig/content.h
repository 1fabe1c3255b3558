/* rig/content.h — what a tool returns: a rig_result holding MCP content
 * blocks (text, image, audio, resource_link, embedded resource), optional
 * structuredContent, and the isError flag.
 *
 * A result owns copies of everything put into it. Builders return RIG_OK or
 * RIG_ENOMEM/RIG_EINVAL; a result that failed to take a block is still a
 * valid result (the failure is remembered and reported by rig_result_status,
 * and the toolset turns such a result into an error result), so a tool can
 * build its answer without checking every call. */
#ifndef RIG_CONTENT_H
#define RIG_CONTENT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rig_content_type {
    RIG_CONTENT_TEXT,
    RIG_CONTENT_IMAGE,          /* base64 data + mime type */
    RIG_CONTENT_AUDIO,          /* base64 data + mime type */
    RIG_CONTENT_RESOURCE_LINK,  /* uri + name, optional title/description/mime/size */
    RIG_CONTENT_RESOURCE        /* embedded resource: uri + mime + (text | base64 blob) */
} rig_content_type;

/* One content block, read-only view. Absent fields are NULL (size: -1). */
typedef struct rig_content {
    rig_content_type type;
    const char *text;        /* TEXT; RESOURCE with text */
    size_t text_len;
    const char *data;        /* IMAGE, AUDIO: base64; RESOURCE with a blob: base64 */
    const char *mime_type;
    const char *uri;         /* RESOURCE_LINK, RESOURCE */
    const char *name;        /* RESOURCE_LINK */
    const char *title;       /* RESOURCE_LINK */
    const char *description; /* RESOURCE_LINK */
    int64_t size;            /* RESOURCE_LINK: bytes, or -1 */
} rig_content;

typedef struct rig_result rig_result;

RIG_API rig_result *rig_result_new(void);
RIG_API void rig_result_free(rig_result *r);

/* Content blocks, appended in order. */
RIG_API int rig_result_text(rig_result *r, const char *text);
RIG_API int rig_result_textn(rig_result *r, const char *text, size_t len);
RIG_API int rig_result_textf(rig_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
RIG_API int rig_result_image(rig_result *r, const char *base64, const char *mime_type);
RIG_API int rig_result_audio(rig_result *r, const char *base64, const char *mime_type);
/* title, description and mime_type may be NULL; size < 0 means unknown. */
RIG_API int rig_result_resource_link(rig_result *r, const char *uri, const char *name,
                                     const char *title, const char *description,
                                     const char *mime_type, int64_t size);
RIG_API int rig_result_resource_text(rig_result *r, const char *uri, const char *mime_type,
                                     const char *text);
RIG_API int rig_result_resource_blob(rig_result *r, const char *uri, const char *mime_type,
                                     const char *base64);

/* structuredContent: a JSON object. When the result has no text block, the
 * object's JSON is also added as a text block when the result is written, as
 * MCP asks for older clients. The toolset checks it against the tool's output
 * schema. Returns RIG_EJSON when `json` is not one JSON object. */
RIG_API int rig_result_structured(rig_result *r, const char *json, size_t len);
/* Start structuredContent with a writer: write one object into the returned
 * writer, then call rig_result_structured_end. */
RIG_API rig_json_writer *rig_result_structured_begin(rig_result *r);
RIG_API int rig_result_structured_end(rig_result *r);

RIG_API void rig_result_set_error(rig_result *r, bool is_error);
RIG_API bool rig_result_is_error(const rig_result *r);

/* RIG_OK, or the first builder failure (RIG_ENOMEM, RIG_EINVAL, RIG_EJSON). */
RIG_API int rig_result_status(const rig_result *r);

/* A new error result with one text block. The text should tell the model
 * what was wrong and what to do instead ("File 'a.txt' not found. List the
 * directory to see what exists."). Never NULL: on allocation failure a
 * static out-of-memory result is returned, which rig_result_free accepts. */
RIG_API rig_result *rig_result_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
RIG_API rig_result *rig_result_verror(const char *fmt, va_list ap);

/* HUD's ContentResult: output text, then error text, then a base64 PNG
 * image (any may be NULL). A result with `error` and no `output` is an error
 * result. */
RIG_API rig_result *rig_result_content(const char *output, const char *error,
                                       const char *base64_png);

/* HUD's EvaluationResult, returned by graders: reward 0..1, done, an
 * optional explanation, an optional info object (JSON text), isError, and
 * optional subscores. Written as structuredContent
 * {"reward","done","content"?,"info"?,"isError","subscores"?} with a short
 * text rendering. */
typedef struct rig_subscore {
    const char *name;
    double value;
    double weight;
} rig_subscore;

typedef struct rig_evaluation {
    double reward;
    bool done;
    const char *content;        /* may be NULL */
    const char *info_json;      /* a JSON object, or NULL */
    bool is_error;
    const rig_subscore *subscores;
    size_t n_subscores;
} rig_evaluation;

RIG_API rig_result *rig_result_evaluation(const rig_evaluation *ev);

/* Reading a result. */
RIG_API size_t rig_result_count(const rig_result *r);
RIG_API const rig_content *rig_result_block(const rig_result *r, size_t i);
RIG_API const char *rig_result_structured_json(const rig_result *r, size_t *len);
/* All text blocks joined with newlines, into a new malloc'd string. */
RIG_API char *rig_result_text_all(const rig_result *r, size_t *len);

/* Write the result as an MCP CallToolResult object:
 * {"content":[...],"structuredContent"?:{...},"isError"?:true}. */
RIG_API int rig_result_write(const rig_result *r, rig_json_writer *w);

/* Keep at most `max_chars` characters of text across the text blocks: the
 * head and the tail survive, and the cut is replaced by a line saying how
 * many characters were left out. Returns the number of characters cut. */
RIG_API size_t rig_result_cap(rig_result *r, size_t max_chars);

#ifdef __cplusplus
}
#endif
#endif
