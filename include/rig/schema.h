/* rig/schema.h — JSON Schema (2020-12, the part tools use) compiled once and
 * checked against a tool's arguments on every call.
 *
 * A schema is compiled from its JSON text into an immutable form; validating
 * is reentrant, so one compiled schema serves every worker thread at once.
 *
 * Keywords: type (a name or an array of names; "integer" accepts 1.0),
 * properties, patternProperties, required, additionalProperties, items,
 * prefixItems (and draft 7's array form of items, with additionalItems),
 * enum, const (by JSON value: 1 equals 1.0), minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum (also draft 4's boolean form),
 * multipleOf, minLength, maxLength (counted in characters, i.e. code
 * points), pattern (PCRE2, unanchored, UTF-8, with ECMA-262's \uXXXX escapes
 * and "$" matching only at the very end),
 * minItems, maxItems, uniqueItems, minProperties, maxProperties, anyOf, oneOf,
 * allOf, not, local $ref ("#", "#/$defs/x", any JSON pointer into the same
 * document, ~0/~1 and percent escapes decoded) and $defs/definitions, format
 * (date-time, date and time per RFC 3339, uri per RFC 3986 with a scheme,
 * email; other formats are annotations), default. Annotation keywords (title,
 * description, examples, $schema, $id, $comment, ...) and unknown keywords
 * are accepted and ignored. Not supported: $ref to other documents or to
 * $anchor names (a compile error); $dynamicRef, if/then/else, contains,
 * propertyNames, dependentRequired and the rest are ignored.
 *
 * Models send sloppy arguments, so validation can normalize what it checks:
 *   RIG_VALIDATE_COERCE   a string where the schema wants a number, integer
 *                         or boolean is read as one ("5", "true"); a string
 *                         holding JSON is read as the array or object the
 *                         schema wants. Nothing else is guessed.
 *                         Only where the schema (with its $ref, allOf, anyOf
 *                         and oneOf) does not allow a string; never under
 *                         "not". Numbers are JSON number literals (ASCII
 *                         whitespace around allowed), booleans exactly
 *                         "true" or "false".
 *   RIG_VALIDATE_DEFAULTS a property missing from an object is filled from
 *                         the "default" of its schema under "properties"
 *                         (through $ref and allOf), inserted as written and
 *                         appended at the end of the object. A default counts
 *                         as present for "required" and "minProperties".
 * When either changed the value, the normalized value is written to `out`.
 * The normalized value is itself validated (with the same flags) before it
 * is returned, so a tool never receives a value its schema rejects: when a
 * default does not fit its own schema, the value is taken as sent if that is
 * valid, and otherwise the error says it arose after normalizing. Neither
 * flag ever rejects a value that is valid as sent.
 *
 * Error messages name the JSON pointer of the failing value and what was
 * expected, "at '/todos/0/status': must be one of ..." or "at the top level:
 * ..."; they never repeat the value itself, which may be a secret (property
 * names and the schema's own values may appear, cut short). The first failure
 * found is reported. Validation follows the value 1024 levels deep at most. */
#ifndef RIG_SCHEMA_H
#define RIG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "rig/common.h"
#include "rig/error.h"
#include "rig/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rig_schema rig_schema;

/* Compile the schema in `json`. The schema keeps its own copy of the text.
 * Returns NULL and fills `err` (code RIG_ESCHEMA, or RIG_EJSON for text that
 * is not JSON, or RIG_ENOMEM) when the text is not a usable schema: a keyword
 * of the wrong type, an unknown type name, a $ref that leads nowhere, a
 * pattern that does not compile, a negative length bound, ... */
RIG_API rig_schema *rig_schema_compile(const char *json, size_t len, rig_error *err);

RIG_API void rig_schema_free(rig_schema *s);

/* The schema's own parsed JSON, for export. Valid while `s` lives. */
RIG_API rig_json_val rig_schema_root(const rig_schema *s);

enum rig_validate_flag {
    RIG_VALIDATE_COERCE = 1 << 0,
    RIG_VALIDATE_DEFAULTS = 1 << 1
};

/* Check `instance` against `s`.
 *
 * Returns RIG_OK when it is valid. *changed (if `changed` is non-NULL) says
 * whether coercion or defaults changed the value; if so and `out` is
 * non-NULL, the whole normalized value has been written to `out` as one JSON
 * value (the caller owns the writer; it should be empty or positioned where a
 * value may go). A valid instance that needed no change writes nothing.
 *
 * Returns RIG_EVALIDATE and fills `err` with the first failure found, e.g.
 *   at '/todos/0/status': must be one of "pending", "in_progress", "completed"
 *   at the top level: missing required property 'path'
 * (also for a missing instance: "at the top level: no value"). Returns
 * RIG_EINVAL for a NULL schema, unknown flags, or an `out` that cannot take
 * a value, and RIG_ENOMEM if memory ran out. */
RIG_API int rig_schema_validate(const rig_schema *s, rig_json_val instance, unsigned flags,
                                rig_json_writer *out, bool *changed, rig_error *err);

#ifdef __cplusplus
}
#endif
#endif
