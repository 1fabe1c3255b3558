/* builtin_testing.h — helpers for the tests of the built-in tools
 * (test_think.c, test_todo.c, ...): a toolset holding one built-in, calls
 * with a session, and reading a result's text and structuredContent. */
#ifndef RIG_BUILTIN_TESTING_H
#define RIG_BUILTIN_TESTING_H

#include <stdbool.h>
#include <time.h>

#include "testing.h"

#include "rig/content.h"
#include "rig/registry.h"
#include "rig/tool.h"
#include "rig/toolset.h"
#include "tools/builtins.h"

/* A toolset holding the tool `make` builds. */
static inline rig_toolset *toolset_of(rig_tool *(*make)(rig_error *err)) {
    rig_error err;
    rig_tool *t = make(&err);
    if (!t)
        fail_msg("making the tool failed: %s", err.message);
    rig_toolset *ts = rig_toolset_new();
    assert_non_null(ts);
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_OK);
    return ts;
}

/* Call `name` in `session` (NULL: none) with `args`; `err` may be NULL. */
static inline rig_result *call_in(rig_toolset *ts, const char *name, const char *session,
                                  const char *args, rig_error *err) {
    rig_call_opts opts = {0};
    opts.session = session;
    rig_result *r = rig_toolset_call(ts, name, args, args ? strlen(args) : 0, &opts, err);
    assert_non_null(r);
    return r;
}

/* All text of a result, malloc'd. */
static inline char *text_of(const rig_result *r) {
    char *t = rig_result_text_all(r, NULL);
    assert_non_null(t);
    return t;
}

/* Fails the test unless `hay` contains `needle`, showing both. */
#define assert_contains(hay, needle)                                                       \
    do {                                                                                   \
        const char *h_ = (hay), *n_ = (needle);                                            \
        if (!h_ || !strstr(h_, n_))                                                        \
            fail_msg("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)");                 \
    } while (0)

#define assert_not_contains(hay, needle)                                                   \
    do {                                                                                   \
        const char *h_ = (hay), *n_ = (needle);                                            \
        if (h_ && strstr(h_, n_))                                                          \
            fail_msg("did not expect \"%s\" in \"%s\"", n_, h_);                           \
    } while (0)

/* The call succeeded: not an error result, status RIG_OK. */
#define assert_ok_result(r, err)                                                           \
    do {                                                                                   \
        if (rig_result_is_error(r)) {                                                      \
            char *t_ = rig_result_text_all(r, NULL);                                       \
            fail_msg("unexpected error result: %s", t_ ? t_ : "?");                        \
        }                                                                                  \
        assert_int_equal((err).code, RIG_OK);                                              \
    } while (0)

/* An error result whose text contains `needle`. */
static inline void assert_error_with(const rig_result *r, const char *needle) {
    char *t = text_of(r);
    if (!rig_result_is_error(r))
        fail_msg("expected an error result with \"%s\", got: %s", needle, t);
    assert_contains(t, needle);
    free(t);
}

/* The result's structuredContent, parsed (with its own copy of the text). */
static inline rig_json_doc *structured_of(const rig_result *r) {
    size_t len;
    const char *json = rig_result_structured_json(r, &len);
    if (!json)
        fail_msg("the result has no structuredContent");
    rig_json_options o = {0};
    o.flags = RIG_JSON_COPY_INPUT;
    rig_json_doc *d = rig_json_parse(json, len, &o, NULL);
    assert_non_null(d);
    assert_int_equal(rig_json_typeof(rig_json_doc_root(d)), RIG_JSON_OBJECT);
    return d;
}

static inline int64_t int_at(const rig_json_doc *d, const char *pointer) {
    int64_t v = 0;
    if (rig_json_get_int64(rig_json_pointer(rig_json_doc_root(d), pointer), &v) != 0)
        fail_msg("no integer at %s", pointer);
    return v;
}

static inline bool bool_at(const rig_json_doc *d, const char *pointer) {
    bool v = false;
    if (rig_json_get_bool(rig_json_pointer(rig_json_doc_root(d), pointer), &v) != 0)
        fail_msg("no boolean at %s", pointer);
    return v;
}

/* The string at `pointer`, decoded into a static buffer (one at a time). */
static inline const char *str_at(const rig_json_doc *d, const char *pointer) {
    static char buf[1024];
    if (rig_json_str_copy(rig_json_pointer(rig_json_doc_root(d), pointer), buf, sizeof buf,
                          NULL) != 0)
        fail_msg("no string at %s", pointer);
    return buf;
}

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Every hint of `t` as given. */
static inline void assert_hints(const rig_tool *t, bool read_only, bool destructive,
                                bool idempotent, bool open_world) {
    rig_annotations a = rig_tool_annotations(t);
    assert_int_equal(a.read_only, read_only ? RIG_HINT_TRUE : RIG_HINT_FALSE);
    assert_int_equal(a.destructive, destructive ? RIG_HINT_TRUE : RIG_HINT_FALSE);
    assert_int_equal(a.idempotent, idempotent ? RIG_HINT_TRUE : RIG_HINT_FALSE);
    assert_int_equal(a.open_world, open_world ? RIG_HINT_TRUE : RIG_HINT_FALSE);
}

/* The input schema is an object schema that refuses unknown properties,
 * and every property has a description. */
static inline void assert_schema_strict(const rig_tool *t) {
    rig_json_val root = rig_schema_root(rig_tool_input_schema(t));
    assert_true(rig_json_str_eq(rig_json_get(root, "type"), "object"));
    assert_int_equal(rig_json_typeof(rig_json_get(root, "additionalProperties")), RIG_JSON_BOOL);
    bool ap = true;
    rig_json_get_bool(rig_json_get(root, "additionalProperties"), &ap);
    assert_false(ap);
    rig_json_iter it = rig_json_iter_init(rig_json_get(root, "properties"));
    rig_json_val key, val;
    size_t n = 0;
    while (rig_json_iter_member(&it, &key, &val)) {
        n++;
        if (!rig_json_is_string(rig_json_get(val, "description")))
            fail_msg("a property of '%s' has no description", rig_tool_name(t));
    }
    assert_true(n > 0);
    assert_true(strlen(rig_tool_description(t)) > 80);
}

#endif
