/* rig/env.h — environments: tasks, the answers agents submit, and the grades
 * graders give them (REFERENCE 1-2, HUD's control channel).
 *
 * For now this header holds the two values that pass between a task and its
 * grader:
 *
 *   - rig_answer: what the agent submitted, as `raw` (always text) and
 *     `content` (the value parsed into the task's declared `returns` type).
 *     rig_answer_parse takes the JSON of the `answer` param of tasks.grade:
 *
 *       raw      a JSON string answer's decoded text, or, for any other
 *                value, that value's JSON text as sent.
 *       content  without `returns`: the submitted value itself.
 *                With `returns`: a string answer is kept as the string when
 *                the schema accepts a string; otherwise it is JSON-parsed and
 *                the result validated; any other value is validated as it
 *                is. When that fails, content is the raw string (a JSON
 *                string value) and `parsed` is false — as HUD's
 *                Answer{content, raw} falls back.
 *       parsed   true when content is a value the `returns` schema accepts.
 *
 *     The answer owns everything it points to; rig_answer_free releases it.
 *
 *   - rig_grade: a grader's verdict, HUD's EvaluationResult with `reward`
 *     named `score`, written by rig_grade_write as the grade frame of
 *     tasks.grade:
 *
 *       {"score": 0.5, "done"?: false, "content"?: "...", "info"?: {...},
 *        "isError"?: true, "subscores"?: [{"name","weight","value",
 *        "children"?, "info"?}, ...]}
 *
 *     Optional members are written only when they differ from their
 *     defaults (done true, no content, no info, not an error, no
 *     subscores), so a plain number grade is `{"score":1.0}`. A score that
 *     is not finite is written as 0.
 */
#ifndef RIG_ENV_H
#define RIG_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"
#include "rig/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- answers */

typedef struct rig_answer {
    char *raw;            /* NUL-terminated (the text may itself hold NULs: use raw_len) */
    size_t raw_len;
    rig_json_val content; /* valid while the answer lives */
    bool parsed;          /* content satisfies the declared `returns` schema */
    /* private */
    rig_json_doc *doc_;     /* the submitted value */
    rig_json_doc *content_doc_; /* a parsed string, or the raw fallback */
} rig_answer;

/* Parse `answer_json` (len bytes: one JSON value, the `answer` of
 * tasks.grade) against `returns` (may be NULL: no declared type) into *out.
 * The text is copied; the caller may free it at once. Returns RIG_OK, or
 * RIG_EJSON when the text is not one JSON value (err says where),
 * RIG_EINVAL for NULL arguments, RIG_ENOMEM. On failure *out is empty and
 * needs no rig_answer_free (calling it is harmless). An answer that does
 * not fit `returns` is not an error: see `parsed`. */
RIG_API int rig_answer_parse(const char *answer_json, size_t len, const rig_schema *returns,
                             rig_answer *out, rig_error *err);

/* Release what the answer holds and empty it. NULL is allowed. */
RIG_API void rig_answer_free(rig_answer *a);

/* ---------------------------------------------------------------- grades */

typedef struct rig_grade {
    double score;         /* the reward, normally in [0, 1] */
    bool done;            /* default true */
    char *content;        /* malloc'd explanation, or NULL */
    char *info_json;      /* malloc'd JSON object text, or NULL */
    bool is_error;        /* the grader could not grade (not: the answer was wrong) */
    char *subscores_json; /* malloc'd JSON array of SubScore, or NULL */
} rig_grade;

/* A new grade: score 0, done true, nothing else.
 *     rig_grade g = RIG_GRADE_INIT; */
#define RIG_GRADE_INIT {.score = 0.0, .done = true}

/* Free what the grade holds and set it back to RIG_GRADE_INIT. NULL is
 * allowed. */
RIG_API void rig_grade_clear(rig_grade *g);

/* Write the grade frame (see above) as one JSON object into w. Returns 0
 * or the writer's error. info_json and subscores_json are inserted as they
 * are: they must be valid JSON (an object and an array). */
RIG_API int rig_grade_write(const rig_grade *g, rig_json_writer *w);

#ifdef __cplusplus
}
#endif
#endif
