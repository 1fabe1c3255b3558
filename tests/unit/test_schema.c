/* test_schema.c — the JSON Schema validator: every keyword passing and
 * failing, coercion and defaults with their exact output, error messages
 * (pointers, escaping, no instance values), schemas that must not compile,
 * formats, and values at the limits (deep, long, large arrays). */
#include <pthread.h>
#include <time.h>

#include "rig/schema.h"
#include "testing.h"

/* ---------------------------------------------------------------- helpers */

static rig_schema *compile_ok(const char *schema)
{
    rig_error err;
    rig_schema *s = rig_schema_compile(schema, strlen(schema), &err);
    if (!s)
        fail_msg("schema %s does not compile: %s", schema, err.message);
    return s;
}

/* Compiles, fails the test unless it fails with `code` and a message
 * holding `want`. */
static void compile_fails(const char *schema, int code, const char *want)
{
    rig_error err;
    rig_error_clear(&err);
    rig_schema *s = rig_schema_compile(schema, strlen(schema), &err);
    if (s) {
        rig_schema_free(s);
        fail_msg("schema %s compiled; expected an error with \"%s\"", schema, want);
    }
    if (err.code != code || !strstr(err.message, want))
        fail_msg("schema %s: code %d message \"%s\"; expected code %d with \"%s\"", schema,
                 err.code, err.message, code, want);
}

/* Validates text against schema with flags. Returns the status; *msg (if
 * given) gets the message, *out (if given) the normalized text or "" when
 * nothing changed. */
static int validate_text(const char *schema, const char *text, unsigned flags, char *msg,
                         size_t msgcap, char **out, bool *changed_out)
{
    rig_schema *s = compile_ok(schema);
    rig_json_doc *d = parse_ok(text);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_error err;
    rig_error_clear(&err);
    bool changed = true;
    int rc = rig_schema_validate(s, rig_json_doc_root(d), flags, &w, &changed, &err);
    if (rc == 0)
        assert_int_equal(err.code, 0);
    else
        assert_int_equal(err.code, rc);
    if (msg)
        snprintf(msg, msgcap, "%s", err.message);
    size_t len = 0;
    const char *o = rig_json_writer_finish(&w, &len);
    if (changed) {
        assert_int_equal(rc, 0);
        assert_non_null(o);
    } else {
        assert_int_equal(w.len, 0); /* nothing written */
    }
    if (out)
        *out = strdup(changed ? o : "");
    if (changed_out)
        *changed_out = changed;
    rig_json_writer_free(&w);
    rig_json_doc_free(d);
    rig_schema_free(s);
    return rc;
}

typedef struct vcase {
    const char *schema;
    const char *instance;
    const char *error; /* NULL: valid; else a substring of the message */
} vcase;

static void run_cases(const vcase *cases, size_t n, unsigned flags)
{
    for (size_t i = 0; i < n; i++) {
        char msg[RIG_ERROR_MESSAGE_MAX];
        int rc = validate_text(cases[i].schema, cases[i].instance, flags, msg, sizeof msg, NULL,
                               NULL);
        if (!cases[i].error && rc != 0)
            fail_msg("case %zu: %s against %s: expected valid, got %d \"%s\"", i,
                     cases[i].instance, cases[i].schema, rc, msg);
        if (cases[i].error && (rc != RIG_EVALIDATE || !strstr(msg, cases[i].error)))
            fail_msg("case %zu: %s against %s: expected an error with \"%s\", got %d \"%s\"", i,
                     cases[i].instance, cases[i].schema, cases[i].error, rc, msg);
        if (cases[i].error && strlen(msg) > 420)
            fail_msg("case %zu: message of %zu bytes: %s", i, strlen(msg), msg);
    }
}

#define RUN(cases, flags) run_cases(cases, sizeof cases / sizeof cases[0], flags)

/* Validates with COERCE | DEFAULTS and checks the normalized text exactly
 * ("" for unchanged). */
static void normalizes(const char *schema, unsigned flags, const char *in, const char *want)
{
    char msg[RIG_ERROR_MESSAGE_MAX], *out = NULL;
    int rc = validate_text(schema, in, flags, msg, sizeof msg, &out, NULL);
    if (rc != 0)
        fail_msg("%s against %s: %s", in, schema, msg);
    if (strcmp(out, want) != 0)
        fail_msg("%s against %s (flags %u): wrote \"%s\", expected \"%s\"", in, schema, flags,
                 out, want);
    free(out);
}

#define BOTH (RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS)

/* ---------------------------------------------------------------- keywords */

static void test_type(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"type\":\"string\"}", "\"x\"", NULL},
        {"{\"type\":\"string\"}", "1", "at the top level: expected string, got integer"},
        {"{\"type\":\"integer\"}", "1", NULL},
        {"{\"type\":\"integer\"}", "1.0", NULL},
        {"{\"type\":\"integer\"}", "-0", NULL},
        {"{\"type\":\"integer\"}", "1e300", NULL},
        {"{\"type\":\"integer\"}", "1.5", "expected integer, got number"},
        {"{\"type\":\"integer\"}", "\"1\"", "expected integer, got string"},
        {"{\"type\":\"number\"}", "1", NULL},
        {"{\"type\":\"number\"}", "1.5", NULL},
        {"{\"type\":\"number\"}", "null", "expected number, got null"},
        {"{\"type\":\"boolean\"}", "false", NULL},
        {"{\"type\":\"boolean\"}", "0", "expected boolean, got integer"},
        {"{\"type\":\"null\"}", "null", NULL},
        {"{\"type\":\"null\"}", "false", "expected null, got boolean"},
        {"{\"type\":\"array\"}", "[]", NULL},
        {"{\"type\":\"array\"}", "{}", "expected array, got object"},
        {"{\"type\":\"object\"}", "{}", NULL},
        {"{\"type\":\"object\"}", "[]", "expected object, got array"},
        {"{\"type\":[\"string\",\"null\"]}", "null", NULL},
        {"{\"type\":[\"string\",\"null\"]}", "\"a\"", NULL},
        {"{\"type\":[\"string\",\"null\"]}", "3", "expected string or null, got integer"},
        {"{\"type\":[\"integer\",\"string\",\"null\"]}", "[]",
         "expected integer, string or null, got array"},
    };
    RUN(cases, 0);
}

static void test_properties_required_additional(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"properties\":{\"a\":{\"type\":\"integer\"}}}", "{\"a\":1,\"b\":\"x\"}", NULL},
        {"{\"properties\":{\"a\":{\"type\":\"integer\"}}}", "{\"a\":\"x\"}",
         "at '/a': expected integer, got string"},
        {"{\"properties\":{\"a\":{\"type\":\"integer\"}}}", "[1]", NULL},
        {"{\"properties\":{\"a\":{\"properties\":{\"b\":{\"type\":\"string\"}}}}}",
         "{\"a\":{\"b\":true}}", "at '/a/b': expected string, got boolean"},
        {"{\"required\":[\"path\"]}", "{\"path\":1}", NULL},
        {"{\"required\":[\"path\"]}", "{\"paths\":1}",
         "at the top level: missing required property 'path'"},
        {"{\"required\":[\"path\"]}", "\"path\"", NULL},
        {"{\"properties\":{\"p\":{}},\"required\":[\"p\",\"q\"]}", "{\"p\":1}",
         "missing required property 'q'"},
        {"{\"properties\":{\"a\":{}},\"additionalProperties\":false}", "{\"a\":1}", NULL},
        {"{\"properties\":{\"a\":{}},\"additionalProperties\":false}", "{\"a\":1,\"foo\":2}",
         "at the top level: unexpected property 'foo'"},
        {"{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"x\":1,\"y\":2}", NULL},
        {"{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"x\":1,\"y\":\"2\"}",
         "at '/y': expected integer, got string"},
        {"{\"properties\":{\"a\":false}}", "{\"b\":1}", NULL},
        {"{\"properties\":{\"a\":false}}", "{\"a\":1}", "property 'a' is not allowed"},
        /* a required name that is not in "properties" is still additional */
        {"{\"required\":[\"z\"],\"additionalProperties\":false}", "{\"z\":1}",
         "unexpected property 'z'"},
        /* keys with escapes match their decoded names */
        {"{\"properties\":{\"a/b\":{\"type\":\"string\"}},\"additionalProperties\":false}",
         "{\"a\\u002fb\":\"x\"}", NULL},
        {"{\"properties\":{\"a/b\":{\"type\":\"string\"}},\"additionalProperties\":false}",
         "{\"a\\u002fb\":1}", "at '/a~1b': expected string"},
        /* patternProperties: matching names get the schema, and are not
         * additional */
        {"{\"patternProperties\":{\"^x-\":{\"type\":\"string\"},\"[0-9]$\":{\"type\":\"integer\"}},"
         "\"additionalProperties\":false}",
         "{\"x-a\":\"s\",\"b1\":1}", NULL},
        {"{\"patternProperties\":{\"^x-\":{\"type\":\"string\"},\"[0-9]$\":{\"type\":\"integer\"}},"
         "\"additionalProperties\":false}",
         "{\"x-1\":\"s\"}", "at '/x-1': expected integer, got string"},
        {"{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
         "{\"y\":\"s\"}", "unexpected property 'y'"},
        {"{\"properties\":{\"x-a\":{\"maxLength\":1}},\"patternProperties\":{\"^x-\":{\"type\":"
         "\"string\"}}}",
         "{\"x-a\":\"ss\"}", "at '/x-a': must be at most 1 character"},
        {"{\"patternProperties\":{\"^\\\\u00e9\":false}}", "{\"\\u00e9t\u00e9\":1}",
         "property '\xc3\xa9t\xc3\xa9' is not allowed"},
        {"{\"properties\":{\"a\":false},\"additionalProperties\":false,\"patternProperties\":{"
         "\"a\":true}}",
         "{\"a\":1}", "property 'a' is not allowed"},
        /* duplicate keys: the last one counts */
        {"{\"properties\":{\"a\":{\"type\":\"string\"}}}", "{\"a\":1,\"a\":\"x\"}", NULL},
        {"{\"properties\":{\"a\":{\"type\":\"string\"}}}", "{\"a\":\"x\",\"a\":1}",
         "at '/a': expected string"},
    };
    RUN(cases, 0);
}

/* More than 8 properties go through the hash table. */
static void test_many_properties(void **state)
{
    (void)state;
    char schema[8192], inst[4096];
    size_t a = 0, b = 0;
    a += (size_t)snprintf(schema + a, sizeof schema - a, "{\"properties\":{");
    b += (size_t)snprintf(inst + b, sizeof inst - b, "{");
    for (int i = 0; i < 300; i++) {
        a += (size_t)snprintf(schema + a, sizeof schema - a, "%s\"p%d\":{\"type\":\"integer\"}",
                              i ? "," : "", i);
        if (i % 7 == 0)
            b += (size_t)snprintf(inst + b, sizeof inst - b, "%s\"p%d\":%d", b > 1 ? "," : "", i,
                                  i);
    }
    snprintf(schema + a, sizeof schema - a,
             "},\"required\":[\"p299\",\"p0\"],\"additionalProperties\":false}");
    snprintf(inst + b, sizeof inst - b, ",\"p299\":1}");
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text(schema, inst, 0, msg, sizeof msg, NULL, NULL), 0);
    inst[b] = '\0';
    snprintf(inst + b, sizeof inst - b, ",\"p299\":\"x\"}");
    assert_int_equal(validate_text(schema, inst, 0, msg, sizeof msg, NULL, NULL), RIG_EVALIDATE);
    assert_string_equal(msg, "at '/p299': expected integer, got string");
    snprintf(inst + b, sizeof inst - b, ",\"p300\":1}");
    assert_int_equal(validate_text(schema, inst, 0, msg, sizeof msg, NULL, NULL), RIG_EVALIDATE);
    assert_string_equal(msg, "at the top level: unexpected property 'p300'");
    snprintf(inst + b, sizeof inst - b, "}");
    assert_int_equal(validate_text(schema, inst, 0, msg, sizeof msg, NULL, NULL), RIG_EVALIDATE);
    assert_string_equal(msg, "at the top level: missing required property 'p299'");
}

static void test_items(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"items\":{\"type\":\"integer\"}}", "[1,2,3]", NULL},
        {"{\"items\":{\"type\":\"integer\"}}", "[1,\"a\"]",
         "at '/1': expected integer, got string"},
        {"{\"items\":{\"type\":\"integer\"}}", "{\"0\":\"a\"}", NULL},
        {"{\"items\":false}", "[]", NULL},
        {"{\"items\":false}", "[1]", "at the top level: must have at most 0 items"},
        {"{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",1,null]",
         NULL},
        {"{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "[\"a\",\"b\"]",
         "at '/1': expected integer, got string"},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\"]", NULL},
        {"{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\",1]",
         "must have at most 1 item"},
        {"{\"prefixItems\":[{}],\"items\":{\"type\":\"boolean\"}}", "[1,true,false]", NULL},
        {"{\"prefixItems\":[{}],\"items\":{\"type\":\"boolean\"}}", "[1,true,2]",
         "at '/2': expected boolean"},
        /* draft 7: items as an array, additionalItems for the rest */
        {"{\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}", "[\"a\"]", NULL},
        {"{\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}", "[\"a\",2]",
         "must have at most 1 item"},
        {"{\"items\":[{\"type\":\"string\"}]}", "[\"a\",2]", NULL},
        {"{\"items\":[{\"type\":\"string\"}]}", "[3]", "at '/0': expected string"},
        {"{\"minItems\":2}", "[1,2]", NULL},
        {"{\"minItems\":2}", "[1]", "at the top level: must have at least 2 items"},
        {"{\"maxItems\":1}", "[1]", NULL},
        {"{\"maxItems\":1}", "[1,2]", "must have at most 1 item"},
        {"{\"uniqueItems\":true}", "[1,2,\"1\",[1],{\"a\":1},{\"a\":2}]", NULL},
        {"{\"uniqueItems\":true}", "[1,2,1.0]",
         "must not contain duplicates (items 0 and 2 are equal)"},
        {"{\"uniqueItems\":true}", "[{\"a\":1,\"b\":[2]},{\"b\":[2.0],\"a\":1}]",
         "must not contain duplicates"},
        {"{\"uniqueItems\":false}", "[1,1]", NULL},
    };
    RUN(cases, 0);
}

static void test_enum_const(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"properties\":{\"todos\":{\"items\":{\"properties\":{\"status\":{\"enum\":[\"pending\","
         "\"in_progress\",\"completed\"]}}}}}}",
         "{\"todos\":[{\"status\":\"pending\"}]}", NULL},
        {"{\"properties\":{\"todos\":{\"items\":{\"properties\":{\"status\":{\"enum\":[\"pending\","
         "\"in_progress\",\"completed\"]}}}}}}",
         "{\"todos\":[{\"status\":\"done\"}]}",
         "at '/todos/0/status': must be one of \"pending\", \"in_progress\", \"completed\""},
        {"{\"enum\":[1,\"a\",null,[1,2],{\"k\":true}]}", "1.0", NULL},
        {"{\"enum\":[1,\"a\",null,[1,2],{\"k\":true}]}", "{\"k\":true}", NULL},
        {"{\"enum\":[1,\"a\",null,[1,2],{\"k\":true}]}", "[1,2.0]", NULL},
        {"{\"enum\":[1,\"a\",null,[1,2],{\"k\":true}]}", "[2,1]", "must be one of 1, \"a\""},
        {"{\"enum\":[\"a\\u0062\"]}", "\"ab\"", NULL},
        {"{\"enum\":[]}", "1", "\"enum\" is empty"},
        {"{\"enum\":[0,1,2,3,4,5,6,7,8,9,10,11,12,\"x\"]}", "\"x\"", NULL},
        {"{\"enum\":[0,1,2,3,4,5,6,7,8,9,10,11,12,\"x\"]}", "12.0", NULL},
        {"{\"enum\":[0,1,2,3,4,5,6,7,8,9,10,11,12,\"x\"]}", "13", "must be one of 0, 1, 2"},
        {"{\"const\":1}", "1.0", NULL},
        {"{\"const\":1}", "2", "at the top level: must be 1"},
        {"{\"const\":{\"a\":[1,\"x\"]}}", "{\"a\":[1.0,\"x\"]}", NULL},
        {"{\"const\":{\"a\":[1,\"x\"]}}", "{\"a\":[1,\"y\"]}", "must be {\"a\":[1,\"x\"]}"},
        {"{\"const\":null}", "null", NULL},
        {"{\"const\":null}", "false", "must be null"},
    };
    RUN(cases, 0);
}

static void test_numbers(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"minimum\":1}", "1", NULL},
        {"{\"minimum\":1}", "0.5", "at the top level: must be at least 1"},
        {"{\"minimum\":1}", "\"0\"", NULL}, /* applies to numbers only */
        {"{\"maximum\":1.5}", "1.5", NULL},
        {"{\"maximum\":1.5}", "2", "must be at most 1.5"},
        {"{\"exclusiveMinimum\":0}", "0.001", NULL},
        {"{\"exclusiveMinimum\":0}", "0", "must be greater than 0"},
        {"{\"exclusiveMaximum\":10}", "9", NULL},
        {"{\"exclusiveMaximum\":10}", "10.0", "must be less than 10"},
        /* draft 4: boolean exclusive bounds modify minimum/maximum */
        {"{\"minimum\":5,\"exclusiveMinimum\":true}", "5.5", NULL},
        {"{\"minimum\":5,\"exclusiveMinimum\":true}", "5", "must be greater than 5"},
        {"{\"maximum\":5,\"exclusiveMaximum\":false}", "5", NULL},
        {"{\"maximum\":5,\"exclusiveMaximum\":true}", "5", "must be less than 5"},
        /* exact at the edges of int64 and doubles */
        {"{\"maximum\":9007199254740992}", "9007199254740993", "must be at most 9007199254740992"},
        {"{\"maximum\":9223372036854775807}", "9223372036854775807", NULL},
        {"{\"minimum\":9223372036854775807}", "9223372036854775808", NULL},
        {"{\"maximum\":1e308}", "1e307", NULL},
        {"{\"multipleOf\":2}", "10", NULL},
        {"{\"multipleOf\":2}", "7", "must be a multiple of 2"},
        {"{\"multipleOf\":0.1}", "0.3", NULL},
        {"{\"multipleOf\":0.01}", "19.99", NULL},
        {"{\"multipleOf\":0.01}", "19.995", "must be a multiple of 0.01"},
        {"{\"multipleOf\":0.5}", "3", NULL},
        {"{\"multipleOf\":1}", "1e-10", "must be a multiple of 1"},
        {"{\"multipleOf\":3}", "-9", NULL},
    };
    RUN(cases, 0);
}

static void test_strings(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"properties\":{\"name\":{\"maxLength\":10}}}", "{\"name\":\"0123456789\"}", NULL},
        {"{\"properties\":{\"name\":{\"maxLength\":10}}}", "{\"name\":\"01234567890\"}",
         "at '/name': must be at most 10 characters"},
        /* characters are code points, not bytes */
        {"{\"maxLength\":5}", "\"h\xc3\xa9llo\"", NULL},
        {"{\"maxLength\":2}", "\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"", NULL},
        {"{\"maxLength\":1}", "\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"",
         "must be at most 1 character"},
        {"{\"maxLength\":2}", "\"\\u00e9\\u00e9\"", NULL},
        {"{\"maxLength\":1}", "\"\\ud83d\\ude00\"", NULL},
        {"{\"minLength\":2}", "\"\\ud83d\\ude00\"", "must be at least 2 characters"},
        {"{\"maxLength\":3}", "\"\\n\\t\\\"\"", NULL},
        {"{\"minLength\":4}", "\"\\n\\t\\\"\"", "must be at least 4 characters"},
        {"{\"minLength\":2}", "\"ab\"", NULL},
        {"{\"minLength\":2}", "\"\xc3\xa9\"", "at the top level: must be at least 2 characters"},
        {"{\"minLength\":0}", "\"\"", NULL},
        {"{\"maxLength\":0}", "\"\"", NULL},
        {"{\"pattern\":\"^[a-z]+$\"}", "\"abc\"", NULL},
        {"{\"pattern\":\"^[a-z]+$\"}", "\"abC\"", "must match the pattern \"^[a-z]+$\""},
        /* "$" is the very end, as in ECMA-262 */
        {"{\"pattern\":\"^[a-z]+$\"}", "\"abc\\n\"", "must match the pattern"},
        /* unanchored: a match anywhere counts */
        {"{\"pattern\":\"b\"}", "\"abc\"", NULL},
        {"{\"pattern\":\"b\"}", "\"acd\"", "must match the pattern \"b\""},
        /* UTF-8 aware, and ECMA-262 \u escapes */
        {"{\"pattern\":\"^.$\"}", "\"\xc3\xa9\"", NULL},
        {"{\"pattern\":\"^\\\\u00e9+$\"}", "\"\xc3\xa9\xc3\xa9\"", NULL},
        {"{\"pattern\":\"^\\\\u00e9+$\"}", "\"e\"", "must match"},
        {"{\"pattern\":\"^a\\\\d$\"}", "\"a\\u0031\"", NULL}, /* escaped instance decoded */
        {"{\"pattern\":\"x\"}", "12", NULL},
    };
    RUN(cases, 0);
}

static void test_object_counts(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"minProperties\":1}", "{\"a\":1}", NULL},
        {"{\"minProperties\":1}", "{}", "at the top level: must have at least 1 property"},
        {"{\"maxProperties\":1}", "{\"a\":1,\"a\":2}", NULL},
        {"{\"maxProperties\":1}", "{\"a\":1,\"b\":2}", "must have at most 1 property"},
        {"{\"maxProperties\":0}", "[1,2]", NULL},
    };
    RUN(cases, 0);
}

static void test_applicators(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":3}]}", "4", NULL},
        {"{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":3}]}", "2", "must be at least 3"},
        {"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "3", NULL},
        {"{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "true",
         "at the top level: expected integer or string, got boolean"},
        {"{\"properties\":{\"a\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\","
         "\"required\":[\"k\"]}]}}}",
         "{\"a\":{}}",
         "at '/a': must match at least one of 2 schemas in anyOf, matched 0 (closest, anyOf[1]: "
         "at '/a': missing required property 'k')"},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", "1", NULL},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", "2.5", NULL},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", "3",
         "at the top level: must match exactly one of 2 schemas in oneOf, matched 2 (oneOf[0] "
         "and oneOf[1])"},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}", "null",
         "expected integer or string, got null"},
        {"{\"oneOf\":[{\"type\":\"object\",\"required\":[\"a\"]},{\"type\":\"object\","
         "\"properties\":{\"b\":{\"type\":\"string\"}},\"required\":[\"b\"]}]}",
         "{\"b\":5}",
         "must match exactly one of 2 schemas in oneOf, matched 0 (closest, oneOf[1]: at '/b': "
         "expected string, got integer)"},
        {"{\"not\":{\"type\":\"string\"}}", "1", NULL},
        {"{\"not\":{\"type\":\"string\"}}", "\"x\"", "must not match the schema under \"not\""},
        /* nested anyOf: the closest branch's own message, recursively */
        {"{\"anyOf\":[{\"type\":\"null\"},{\"properties\":{\"x\":{\"anyOf\":[{\"type\":"
         "\"null\"},{\"type\":\"object\",\"properties\":{\"y\":{\"type\":\"integer\"}}}]}}}]}",
         "{\"x\":{\"y\":\"s\"}}", "at '/x/y': expected integer, got string"},
    };
    RUN(cases, 0);
}

static void test_ref(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"$defs\":{\"n\":{\"type\":\"integer\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/"
         "n\"}}}",
         "{\"a\":1}", NULL},
        {"{\"$defs\":{\"n\":{\"type\":\"integer\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/"
         "n\"}}}",
         "{\"a\":\"1\"}", "at '/a': expected integer, got string"},
        {"{\"definitions\":{\"n\":{\"minimum\":0}},\"items\":{\"$ref\":\"#/definitions/n\"}}",
         "[0,1]", NULL},
        {"{\"definitions\":{\"n\":{\"minimum\":0}},\"items\":{\"$ref\":\"#/definitions/n\"}}",
         "[0,-1]", "at '/1': must be at least 0"},
        /* any pointer into the document, escaped and percent-encoded */
        {"{\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"$ref\":\"#/properties/a\"}}}",
         "{\"b\":1}", "at '/b': expected string"},
        {"{\"$defs\":{\"a/b\":{\"type\":\"string\"},\"t~x\":{\"type\":\"null\"},\"s p\":{"
         "\"type\":\"boolean\"}},\"prefixItems\":[{\"$ref\":\"#/$defs/a~1b\"},{\"$ref\":\"#/"
         "$defs/t~0x\"},{\"$ref\":\"#/$defs/s%20p\"}]}",
         "[\"x\",null,true]", NULL},
        {"{\"$defs\":{\"a/b\":{\"type\":\"string\"},\"t~x\":{\"type\":\"null\"},\"s p\":{"
         "\"type\":\"boolean\"}},\"prefixItems\":[{\"$ref\":\"#/$defs/a~1b\"},{\"$ref\":\"#/"
         "$defs/t~0x\"},{\"$ref\":\"#/$defs/s%20p\"}]}",
         "[\"x\",null,1]", "at '/2': expected boolean"},
        /* $ref beside other keywords: both apply */
        {"{\"$defs\":{\"s\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/s\",\"maxLength\":2}",
         "\"abc\"", "must be at most 2 characters"},
        {"{\"$defs\":{\"s\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/s\",\"maxLength\":2}", "3",
         "expected string"},
        /* chains of $ref */
        {"{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/c\"},\"c\":{"
         "\"type\":\"null\"}},\"$ref\":\"#/$defs/a\"}",
         "1", "expected null"},
        /* "#" is the whole schema: a tree */
        {"{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"integer\"},\"children\":{"
         "\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},\"required\":[\"value\"]}",
         "{\"value\":1,\"children\":[{\"value\":2,\"children\":[]},{\"value\":3,\"children\":[{"
         "\"value\":4}]}]}",
         NULL},
        {"{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"integer\"},\"children\":{"
         "\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}},\"required\":[\"value\"]}",
         "{\"value\":1,\"children\":[{\"value\":2},{\"value\":3,\"children\":[{\"value\":"
         "\"4\"}]}]}",
         "at '/children/1/children/0/value': expected integer, got string"},
        /* mutual recursion through properties */
        {"{\"$defs\":{\"a\":{\"properties\":{\"b\":{\"$ref\":\"#/$defs/b\"}}},\"b\":{"
         "\"properties\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"type\":\"object\"}},\"$ref\":\"#/"
         "$defs/a\"}",
         "{\"b\":{\"a\":{\"b\":5}}}", "at '/b/a/b': expected object, got integer"},
    };
    RUN(cases, 0);
}

static void test_boolean_schemas(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"true", "{\"anything\":[1,2]}", NULL},
        {"false", "null", "at the top level: no value is allowed here"},
        {"{}", "[]", NULL},
        {"{\"allOf\":[true,{}]}", "1", NULL},
        {"{\"anyOf\":[false,true]}", "1", NULL},
        {"{\"additionalProperties\":true}", "{\"a\":1}", NULL},
        {"{\"items\":{\"not\":true}}", "[1]", "at '/0': must not match"},
        {"{\"items\":{\"not\":false}}", "[1]", NULL},
    };
    RUN(cases, 0);
}

/* Annotations and unknown keywords are accepted and change nothing. */
static void test_ignored_keywords(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"urn:x\","
         "\"title\":\"t\",\"description\":\"d\",\"examples\":[1],\"$comment\":\"c\","
         "\"readOnly\":true,\"writeOnly\":false,\"deprecated\":true,\"x-vendor\":{\"type\":5},"
         "\"format\":\"hostname\",\"contentMediaType\":\"text/plain\",\"type\":\"string\"}",
         "\"not a host name!\"", NULL},
        {"{\"format\":\"date-time\"}", "12", NULL},
    };
    RUN(cases, 0);
}

/* ---------------------------------------------------------------- formats */

static void check_format(const char *format, const char *const *good, const char *const *bad)
{
    char schema[64], inst[256], msg[RIG_ERROR_MESSAGE_MAX];
    snprintf(schema, sizeof schema, "{\"format\":\"%s\"}", format);
    for (; *good; good++) {
        snprintf(inst, sizeof inst, "\"%s\"", *good);
        if (validate_text(schema, inst, 0, msg, sizeof msg, NULL, NULL) != 0)
            fail_msg("%s should be a valid %s: %s", *good, format, msg);
    }
    for (; *bad; bad++) {
        snprintf(inst, sizeof inst, "\"%s\"", *bad);
        if (validate_text(schema, inst, 0, msg, sizeof msg, NULL, NULL) != RIG_EVALIDATE)
            fail_msg("%s should not be a valid %s", *bad, format);
        char want[64];
        snprintf(want, sizeof want, "must be a valid %s", format);
        assert_non_null(strstr(msg, want));
    }
}

static void test_format_date_time(void **state)
{
    (void)state;
    static const char *const good[] = {
        "1985-04-12T23:20:50.52Z", "1996-12-19T16:39:57-08:00", "1990-12-31T23:59:60Z",
        "1990-12-31T15:59:60-08:00", "1937-01-01T12:00:27.87+00:20", "2024-02-29T00:00:00Z",
        "2000-02-29t00:00:00z", "2021-12-31T23:59:59.123456789+14:00", "0001-01-01T00:00:00Z",
        NULL};
    static const char *const bad[] = {
        "2021-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
        "2021-04-31T00:00:00Z", "2021-13-01T00:00:00Z", "2021-00-10T00:00:00Z",
        "2021-01-01T24:00:00Z", "2021-01-01T12:60:00Z", "2021-01-01T12:00:61Z",
        "1990-12-31T23:59:60+01:00", "1990-12-31T12:00:60Z", "2021-01-01T12:00:00",
        "2021-01-01 12:00:00Z", "2021-01-01T12:00:00+0100", "2021-01-01T12:00:00+01",
        "2021-1-01T12:00:00Z", "2021-01-01T12:00:00.Z", "2021-01-01T12:00:00Z ",
        "2021-01-01", "", "2021-01-01T12:00:00+24:00", "20210101T120000Z", NULL};
    check_format("date-time", good, bad);
}

static void test_format_date_time_parts(void **state)
{
    (void)state;
    static const char *const dgood[] = {"2021-12-31", "2020-02-29", "2000-02-29", NULL};
    static const char *const dbad[] = {"2021-12-32", "2021-02-29", "21-12-31", "2021-12-31T",
                                       "2021/12/31", NULL};
    check_format("date", dgood, dbad);
    static const char *const tgood[] = {"12:00:00Z", "23:59:60Z", "08:30:06.283185+05:30",
                                        "00:00:00-00:00", NULL};
    static const char *const tbad[] = {"12:00:00", "24:00:00Z", "12:00Z", "23:59:60+01:00",
                                       "1:00:00Z", NULL};
    check_format("time", tgood, tbad);
}

static void test_format_uri(void **state)
{
    (void)state;
    static const char *const good[] = {
        "https://example.com/path?q=1&r=%20#frag", "urn:isbn:0451450523", "mailto:a@b.c",
        "http://[::1]:8080/", "ftp://user:pw@host.example/", "file:///etc/passwd",
        "http://192.168.0.1", "tag:example.com,2024:x", "http://[v1.fe80::a+en1]/", "a:",
        "x-y+z.w:rest/of:path@x", NULL};
    static const char *const bad[] = {
        "//example.com/x", "/path", "example.com", "http://exa mple.com", "http://[::1",
        "ht^tp://x", "http://x/%zz", "http://ex\xc3\xa4mple.com", "1http://x", "http://x:80a/",
        "http://[zz::1]/", "https://x/a#b#c", "http://x/<>", "", ":no-scheme", NULL};
    check_format("uri", good, bad);
}

static void test_format_email(void **state)
{
    (void)state;
    static const char *const good[] = {
        "joe.bloggs@example.com", "\\\"joe bloggs\\\"@example.com", "a+b@sub.example.co",
        "user@[127.0.0.1]", "user@[IPv6:::1]", "te~st@localhost", "x@a-b.c", NULL};
    static const char *const bad[] = {
        "no-at", ".a@x.com", "a.@x.com", "a..b@x.com", "a@", "@x.com", "a@-x.com", "a@x-.com",
        "a@x..com", "a b@x.com", "a@x.com.", "a@[300.1.1.1]", "\\\"open@x.com",
        "\xc3\xa9@x.com", NULL};
    check_format("email", good, bad);
}

/* ---------------------------------------------------------------- messages */

static void test_pointer_escaping(void **state)
{
    (void)state;
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text("{\"additionalProperties\":{\"additionalProperties\":{"
                                   "\"type\":\"integer\"}}}",
                                   "{\"a/b\":{\"m~n\":\"x\"}}", 0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_string_equal(msg, "at '/a~1b/m~0n': expected integer, got string");
    /* control characters in a name are shown escaped */
    assert_int_equal(validate_text("{\"additionalProperties\":false}", "{\"a\\nb\":1}", 0, msg,
                                   sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_string_equal(msg, "at the top level: unexpected property 'a\\u000ab'");
    /* a long name is cut */
    char inst[600];
    memset(inst, 0, sizeof inst);
    strcpy(inst, "{\"");
    memset(inst + 2, 'k', 500);
    strcat(inst, "\":1}");
    assert_int_equal(validate_text("{\"additionalProperties\":false}", inst, 0, msg, sizeof msg,
                                   NULL, NULL),
                     RIG_EVALIDATE);
    assert_true(strlen(msg) < 150);
    assert_non_null(strstr(msg, "kkk..."));
    /* an empty key is a pointer token too */
    assert_int_equal(validate_text("{\"additionalProperties\":{\"type\":\"null\"}}", "{\"\":1}",
                                   0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_string_equal(msg, "at '/': expected null, got integer");
}

/* Instance values may be secrets: no message repeats one. */
static void test_no_values_in_messages(void **state)
{
    (void)state;
    static const char *const schemas[] = {
        "{\"properties\":{\"k\":{\"pattern\":\"^[0-9]+$\"}}}",
        "{\"properties\":{\"k\":{\"enum\":[\"a\",\"b\"]}}}",
        "{\"properties\":{\"k\":{\"maxLength\":3}}}",
        "{\"properties\":{\"k\":{\"minLength\":300}}}",
        "{\"properties\":{\"k\":{\"const\":\"x\"}}}",
        "{\"properties\":{\"k\":{\"type\":\"integer\"}}}",
        "{\"properties\":{\"k\":{\"format\":\"email\"}}}",
        "{\"properties\":{\"k\":{\"format\":\"date-time\"}}}",
        "{\"properties\":{\"k\":{\"not\":{\"type\":\"string\"}}}}",
        "{\"properties\":{\"k\":{\"anyOf\":[{\"pattern\":\"^x\"},{\"maxLength\":2}]}}}",
        "{\"properties\":{\"k\":{\"oneOf\":[{\"type\":\"string\"},{\"minLength\":1}]}}}",
        "{\"properties\":{\"k\":{\"type\":\"boolean\"}}}",
        "{\"properties\":{\"k\":{\"items\":{}}},\"required\":[\"z\"]}",
    };
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
        char msg[RIG_ERROR_MESSAGE_MAX];
        int rc = validate_text(schemas[i], "{\"k\":\"sk-SECRET-4242\"}", BOTH, msg, sizeof msg,
                               NULL, NULL);
        if (rc != RIG_EVALIDATE)
            fail_msg("schema %zu accepted the value", i);
        if (strstr(msg, "SECRET") || strstr(msg, "4242"))
            fail_msg("schema %zu: the message repeats the value: %s", i, msg);
    }
}

/* Long enum lists and patterns are cut so a message stays short. */
static void test_message_length(void **state)
{
    (void)state;
    char schema[20000];
    size_t at = (size_t)snprintf(schema, sizeof schema, "{\"enum\":[");
    for (int i = 0; i < 500; i++)
        at += (size_t)snprintf(schema + at, sizeof schema - at, "%s\"value-number-%d\"",
                               i ? "," : "", i);
    snprintf(schema + at, sizeof schema - at, "]}");
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text(schema, "\"nope\"", 0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_true(strlen(msg) < 400);
    assert_non_null(strstr(msg, "(500 values)"));
    assert_int_equal(validate_text(schema, "\"value-number-499\"", 0, msg, sizeof msg, NULL,
                                   NULL),
                     0);

    at = (size_t)snprintf(schema, sizeof schema, "{\"pattern\":\"^(");
    for (int i = 0; i < 200; i++)
        at += (size_t)snprintf(schema + at, sizeof schema - at, "%sword%d", i ? "|" : "", i);
    snprintf(schema + at, sizeof schema - at, ")$\"}");
    assert_int_equal(validate_text(schema, "\"nope\"", 0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_true(strlen(msg) < 400);

    /* a deep pointer keeps its innermost part */
    char deep[4000];
    at = 0;
    for (int i = 0; i < 300; i++)
        at += (size_t)snprintf(deep + at, sizeof deep - at, "{\"level\":");
    at += (size_t)snprintf(deep + at, sizeof deep - at, "1");
    for (int i = 0; i < 300; i++)
        deep[at++] = '}';
    deep[at] = '\0';
    assert_int_equal(validate_text("{\"additionalProperties\":{\"$ref\":\"#\"},\"type\":"
                                   "\"object\"}",
                                   deep, 0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_true(strlen(msg) < 400);
    assert_non_null(strstr(msg, "at '.../level/level"));
    assert_non_null(strstr(msg, "/level': expected object, got integer"));
}

/* ---------------------------------------------------------------- coercion */

static void test_coercion_accepted(void **state)
{
    (void)state;
    const unsigned C = RIG_VALIDATE_COERCE;
    normalizes("{\"type\":\"integer\"}", C, "\"5\"", "5");
    normalizes("{\"type\":\"integer\"}", C, "\" \\t5\\n \"", "5");
    normalizes("{\"type\":\"integer\"}", C, "\"-12\"", "-12");
    normalizes("{\"type\":\"integer\"}", C, "\"5.0\"", "5.0");
    normalizes("{\"type\":\"integer\"}", C, "\"1e3\"", "1e3");
    normalizes("{\"type\":\"number\"}", C, "\"1.5\"", "1.5");
    normalizes("{\"type\":\"number\"}", C, "\"-0\"", "-0");
    normalizes("{\"type\":\"number\"}", C, "\"\\u0031\\u0032\"", "12");
    normalizes("{\"type\":\"boolean\"}", C, "\"true\"", "true");
    normalizes("{\"type\":\"boolean\"}", C, "\"false\"", "false");
    normalizes("{\"type\":[\"boolean\",\"null\"]}", C, "\"false\"", "false");
    normalizes("{\"type\":[\"integer\",\"boolean\"]}", C, "\"true\"", "true");
    normalizes("{\"type\":\"array\"}", C, "\"[1, 2.50]\"", "[1,2.50]");
    normalizes("{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}", C, "\"[\\\"1\\\", 2]\"",
               "[1,2]");
    normalizes("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"}}}", C,
               "\"{\\\"a\\\":\\\"true\\\"}\"", "{\"a\":true}");
    normalizes("{\"properties\":{\"n\":{\"type\":\"integer\"},\"s\":{\"type\":\"string\"}}}", C,
               "{\"s\":\"7\",\"n\":\"7\",\"x\":\"7\"}", "{\"s\":\"7\",\"n\":7,\"x\":\"7\"}");
    normalizes("{\"items\":{\"type\":\"number\"}}", C, "[\"1\",2,\"3.5\"]", "[1,2,3.5]");
    normalizes("{\"patternProperties\":{\"^n\":{\"type\":\"integer\"}}}", C,
               "{\"n1\":\"5\",\"s\":\"5\"}", "{\"n1\":5,\"s\":\"5\"}");
    /* the coerced value is checked like any other */
    normalizes("{\"type\":\"integer\",\"minimum\":1,\"enum\":[1,2,3]}", C, "\"2\"", "2");
    /* types through $ref and allOf count */
    normalizes("{\"$defs\":{\"i\":{\"type\":\"integer\"}},\"$ref\":\"#/$defs/i\"}", C, "\"3\"",
               "3");
    normalizes("{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":0}]}", C, "\"3\"", "3");
    normalizes("{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"null\"}]}", C, "\"3\"", "3");
    /* already typed: nothing changes, nothing is written */
    normalizes("{\"type\":\"integer\"}", C, "5", "");
}

static void test_coercion_refused(void **state)
{
    (void)state;
    const unsigned C = RIG_VALIDATE_COERCE;
    static const vcase cases[] = {
        {"{\"type\":\"boolean\"}", "\"yes\"", "expected boolean, got string"},
        {"{\"type\":\"boolean\"}", "\"1\"", "expected boolean, got string"},
        {"{\"type\":\"boolean\"}", "\"TRUE\"", "expected boolean, got string"},
        {"{\"type\":\"boolean\"}", "\" true\"", "expected boolean, got string"},
        {"{\"type\":\"boolean\"}", "1", "expected boolean, got integer"},
        {"{\"type\":\"integer\"}", "\"5abc\"", "expected integer, got string"},
        {"{\"type\":\"integer\"}", "\"0x10\"", "expected integer, got string"},
        {"{\"type\":\"integer\"}", "\"+1\"", "expected integer, got string"},
        {"{\"type\":\"integer\"}", "\"1.5\"", "expected integer, got string"},
        {"{\"type\":\"integer\"}", "\"\"", "expected integer, got string"},
        {"{\"type\":\"integer\"}", "\"1 2\"", "expected integer, got string"},
        {"{\"type\":\"integer\"}", "\"true\"", "expected integer, got string"},
        {"{\"type\":\"number\"}", "\"NaN\"", "expected number, got string"},
        {"{\"type\":\"number\"}", "\".5\"", "expected number, got string"},
        {"{\"type\":\"number\"}", "\"1e400\"", "expected number, got string"},
        {"{\"type\":\"number\"}", "\"[1]\"", "expected number, got string"},
        {"{\"type\":\"string\"}", "5", "expected string, got integer"},
        {"{\"type\":\"null\"}", "\"null\"", "expected null, got string"},
        {"{\"type\":\"array\"}", "\"[1,\"", "expected array, got string"},
        {"{\"type\":\"array\"}", "\"{}\"", "expected array, got string"},
        {"{\"type\":\"object\"}", "\"[]\"", "expected object, got string"},
        {"{\"type\":\"object\"}", "\"a=1\"", "expected object, got string"},
        /* a coerced value that then fails says why */
        {"{\"type\":\"integer\",\"minimum\":10}", "\"5\"", "must be at least 10"},
        {"{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}", "\"[\\\"x\\\"]\"",
         "at '/0': expected integer, got string"},
    };
    RUN(cases, C);
    /* where a string is allowed, it stays a string */
    normalizes("{\"type\":[\"integer\",\"string\"]}", C, "\"5\"", "");
    normalizes("{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}", C, "\"5\"", "");
    normalizes("{\"enum\":[1,2,\"x\"]}", C, "\"x\"", "");
    normalizes("{}", C, "\"5\"", "");
    /* and without the flag nothing is coerced */
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text("{\"type\":\"integer\"}", "\"5\"", RIG_VALIDATE_DEFAULTS, msg,
                                   sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
}

/* Edits made inside a branch that fails are dropped; the winner's stay. */
static void test_branch_edits(void **state)
{
    (void)state;
    const unsigned C = RIG_VALIDATE_COERCE;
    /* anyOf: branch 0 coerces "a" and then fails on "b"; branch 1 takes a string */
    normalizes("{\"anyOf\":[{\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"b\"]},"
               "{\"properties\":{\"a\":{\"type\":\"string\"}}}]}",
               C, "{\"a\":\"5\"}", "");
    /* anyOf: the winning branch's edits are kept */
    normalizes("{\"anyOf\":[{\"required\":[\"b\"]},{\"properties\":{\"a\":{\"type\":"
               "\"integer\"}}}]}",
               C, "{\"a\":\"5\"}", "{\"a\":5}");
    /* oneOf: the failing branch's coercion is dropped, the matching one's kept */
    normalizes("{\"oneOf\":[{\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"x\"]},"
               "{\"properties\":{\"a\":{\"type\":\"boolean\"}}}]}",
               C, "{\"a\":\"true\"}", "{\"a\":true}");
    /* not keeps nothing */
    normalizes("{\"not\":{\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"zz\"]}}",
               C, "{\"a\":\"5\"}", "");
    /* coercion could make two oneOf branches match: a value valid as sent
     * stays valid, unchanged */
    normalizes("{\"oneOf\":[{\"properties\":{\"a\":{\"type\":\"integer\"}}},{\"properties\":{"
               "\"a\":{\"type\":\"string\"}}}]}",
               C, "{\"a\":\"5\"}", "");
    /* under not, neither coercion nor defaults apply */
    normalizes("{\"not\":{\"properties\":{\"a\":{\"type\":\"integer\"}}}}", C, "{\"a\":\"5\"}",
               "");
    normalizes("{\"not\":{\"required\":[\"a\"],\"properties\":{\"a\":{\"default\":1}}}}",
               RIG_VALIDATE_DEFAULTS, "{}", "");
    /* defaults inside branches too, also below a branch that added some and
     * then failed */
    normalizes("{\"anyOf\":[{\"properties\":{\"d\":{\"default\":1}},\"required\":[\"q\"]},"
               "{\"properties\":{\"e\":{\"default\":2}}}]}",
               RIG_VALIDATE_DEFAULTS, "{}", "{\"e\":2}");
    normalizes("{\"properties\":{\"o\":{\"anyOf\":[{\"allOf\":[{\"properties\":{\"d\":{"
               "\"default\":1}}},{\"required\":[\"zz\"]}]},{\"properties\":{\"e\":{\"default\":2},"
               "\"f\":{\"default\":3}}}]}}}",
               RIG_VALIDATE_DEFAULTS, "{\"o\":{}}", "{\"o\":{\"e\":2,\"f\":3}}");
}

/* ---------------------------------------------------------------- defaults */

static void test_defaults(void **state)
{
    (void)state;
    const unsigned D = RIG_VALIDATE_DEFAULTS;
    const char *schema = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                         "\"depth\":{\"type\":\"integer\",\"default\":3},"
                         "\"mode\":{\"enum\":[\"a\",\"b\"],\"default\":\"a\"}},"
                         "\"required\":[\"path\"]}";
    normalizes(schema, D, "{\"path\":\"x\"}", "{\"path\":\"x\",\"depth\":3,\"mode\":\"a\"}");
    /* present values are not overridden */
    normalizes(schema, D, "{\"depth\":1,\"path\":\"x\",\"mode\":\"b\"}", "");
    normalizes(schema, D, "{\"mode\":\"b\",\"path\":\"x\"}",
               "{\"mode\":\"b\",\"path\":\"x\",\"depth\":3}");
    /* not without the flag */
    normalizes(schema, RIG_VALIDATE_COERCE, "{\"path\":\"x\"}", "");
    /* through $ref, and through allOf */
    normalizes("{\"$defs\":{\"n\":{\"type\":\"integer\",\"default\":7}},\"properties\":{\"n\":{"
               "\"$ref\":\"#/$defs/n\"},\"m\":{\"allOf\":[{\"type\":\"string\"},{\"default\":"
               "\"z\"}]}}}",
               D, "{}", "{\"n\":7,\"m\":\"z\"}");
    /* the property's own default wins over its $ref's */
    normalizes("{\"$defs\":{\"n\":{\"default\":7}},\"properties\":{\"n\":{\"$ref\":\"#/$defs/n\","
               "\"default\":8}}}",
               D, "{}", "{\"n\":8}");
    /* nested objects, and a default object filled by its own defaults */
    normalizes("{\"properties\":{\"opts\":{\"type\":\"object\",\"default\":{},\"properties\":{"
               "\"depth\":{\"type\":\"integer\",\"default\":3}}}}}",
               D, "{}", "{\"opts\":{\"depth\":3}}");
    normalizes("{\"properties\":{\"opts\":{\"properties\":{\"depth\":{\"default\":3}}}}}", D,
               "{\"opts\":{\"x\":1}}", "{\"opts\":{\"x\":1,\"depth\":3}}");
    normalizes("{\"items\":{\"properties\":{\"k\":{\"default\":0}}}}", D, "[{},{\"k\":1},{}]",
               "[{\"k\":0},{\"k\":1},{\"k\":0}]");
    /* inserted verbatim, as written in the schema */
    normalizes("{\"properties\":{\"v\":{\"default\":{\"x\": [1, 2.50]}}}}", D, "{}",
               "{\"v\":{\"x\": [1, 2.50]}}");
    /* a default satisfies "required" */
    normalizes("{\"properties\":{\"r\":{\"default\":true}},\"required\":[\"r\"]}", D, "{}",
               "{\"r\":true}");
    /* escaped names are written decoded */
    normalizes("{\"properties\":{\"a\\\"b\":{\"default\":1}}}", D, "{}", "{\"a\\\"b\":1}");
    /* allOf members adding the same default: once */
    normalizes("{\"allOf\":[{\"properties\":{\"a\":{\"default\":1}}},{\"properties\":{\"a\":{"
               "\"default\":1}}}]}",
               D, "{}", "{\"a\":1}");
    /* defaults and coercion together */
    normalizes("{\"properties\":{\"n\":{\"type\":\"integer\"},\"d\":{\"default\":false}}}", BOTH,
               "{\"n\":\"4\"}", "{\"n\":4,\"d\":false}");
    /* the root is not an object: no defaults */
    normalizes("{\"properties\":{\"a\":{\"default\":1}}}", D, "[]", "");
}

/* The normalized value must itself be valid; when it is not (a default
 * that does not fit its schema, maxProperties beside defaults) the value is
 * taken as sent, if valid as such. */
static void test_defaults_kept_valid(void **state)
{
    (void)state;
    const unsigned D = RIG_VALIDATE_DEFAULTS;
    normalizes("{\"properties\":{\"a\":{\"type\":\"integer\",\"default\":\"x\"}}}", D, "{}", "");
    normalizes("{\"maxProperties\":1,\"properties\":{\"a\":{\"default\":1},\"b\":{\"default\":2}}}",
               D, "{}", "");
    /* a default that needs coercion settles in a second pass */
    normalizes("{\"properties\":{\"a\":{\"type\":\"integer\",\"default\":\"5\"}}}", BOTH, "{}",
               "{\"a\":5}");
    /* an invalid default and a value that needs it: the error says so */
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text("{\"properties\":{\"a\":{\"type\":\"integer\",\"default\":"
                                   "\"x\"}},\"required\":[\"a\"]}",
                                   "{}", D, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_string_equal(msg, "at '/a': expected integer, got string (after coercion and defaults "
                             "were applied)");
}

/* ---------------------------------------------------------------- bad schemas */

static void test_invalid_schemas(void **state)
{
    (void)state;
    compile_fails("{\"type\":5}", RIG_ESCHEMA,
                  "invalid schema at '/type': \"type\" must be a type name");
    compile_fails("{\"type\":\"strin\"}", RIG_ESCHEMA, "unknown type \"strin\"");
    compile_fails("{\"type\":[\"string\",\"float\"]}", RIG_ESCHEMA, "unknown type \"float\"");
    compile_fails("{\"type\":[]}", RIG_ESCHEMA, "must not be an empty array");
    compile_fails("{\"required\":\"x\"}", RIG_ESCHEMA, "\"required\" must be an array");
    compile_fails("{\"required\":[1]}", RIG_ESCHEMA, "\"required\" must be an array of strings");
    compile_fails("{\"properties\":[]}", RIG_ESCHEMA,
                  "at '/properties': \"properties\" must be an object");
    compile_fails("{\"properties\":{\"a\":{\"minLength\":-1}}}", RIG_ESCHEMA,
                  "invalid schema at '/properties/a/minLength': \"minLength\" must be a "
                  "non-negative integer");
    compile_fails("{\"properties\":{\"a/b\":{\"minLength\":1.5}}}", RIG_ESCHEMA,
                  "at '/properties/a~1b/minLength'");
    compile_fails("{\"maxItems\":\"3\"}", RIG_ESCHEMA, "\"maxItems\" must be a non-negative");
    compile_fails("{\"maxProperties\":true}", RIG_ESCHEMA, "\"maxProperties\"");
    compile_fails("{\"enum\":3}", RIG_ESCHEMA, "\"enum\" must be an array");
    compile_fails("{\"pattern\":\"(\"}", RIG_ESCHEMA,
                  "\"pattern\" is not a valid regular expression");
    compile_fails("{\"pattern\":5}", RIG_ESCHEMA, "\"pattern\" must be a string");
    compile_fails("{\"patternProperties\":{\"a(\":{}}}", RIG_ESCHEMA,
                  "invalid schema at '/patternProperties/a(': the name is not a valid regular "
                  "expression");
    compile_fails("{\"patternProperties\":[]}", RIG_ESCHEMA, "must be an object of schemas");
    compile_fails("{\"patternProperties\":{\"a\":1}}", RIG_ESCHEMA,
                  "at '/patternProperties/a': a schema must be");
    compile_fails("{\"minimum\":\"1\"}", RIG_ESCHEMA, "\"minimum\" must be a number");
    compile_fails("{\"exclusiveMaximum\":null}", RIG_ESCHEMA, "\"exclusiveMaximum\" must be");
    compile_fails("{\"multipleOf\":0}", RIG_ESCHEMA, "\"multipleOf\" must be greater than 0");
    compile_fails("{\"multipleOf\":-2}", RIG_ESCHEMA, "\"multipleOf\" must be greater than 0");
    compile_fails("{\"items\":5}", RIG_ESCHEMA, "at '/items': a schema must be an object");
    compile_fails("{\"prefixItems\":{}}", RIG_ESCHEMA, "\"prefixItems\" must be an array");
    compile_fails("{\"allOf\":[]}", RIG_ESCHEMA, "\"allOf\" must not be empty");
    compile_fails("{\"anyOf\":{}}", RIG_ESCHEMA, "\"anyOf\" must be an array");
    compile_fails("{\"oneOf\":[{},3]}", RIG_ESCHEMA, "at '/oneOf/1': a schema must be");
    compile_fails("{\"not\":[]}", RIG_ESCHEMA, "at '/not'");
    compile_fails("{\"additionalProperties\":\"x\"}", RIG_ESCHEMA, "at '/additionalProperties'");
    compile_fails("{\"uniqueItems\":\"yes\"}", RIG_ESCHEMA, "\"uniqueItems\" must be");
    compile_fails("{\"format\":5}", RIG_ESCHEMA, "\"format\" must be a string");
    compile_fails("{\"$defs\":[]}", RIG_ESCHEMA, "\"$defs\" must be an object");
    compile_fails("{\"$defs\":{\"x\":{\"type\":1}}}", RIG_ESCHEMA, "at '/$defs/x/type'");
    compile_fails("{\"$ref\":5}", RIG_ESCHEMA, "\"$ref\" must be a string");
    compile_fails("{\"$ref\":\"#/nope\"}", RIG_ESCHEMA, "\"$ref\" '#/nope' points to nothing");
    compile_fails("{\"$ref\":\"#/$defs/x\",\"$defs\":{}}", RIG_ESCHEMA, "points to nothing");
    compile_fails("{\"$ref\":\"http://example.com/s.json\"}", RIG_ESCHEMA, "is not local");
    compile_fails("{\"$ref\":\"other.json#/a\"}", RIG_ESCHEMA, "is not local");
    compile_fails("{\"$ref\":\"#anchor\"}", RIG_ESCHEMA, "names an anchor");
    compile_fails("{\"$ref\":\"#/a%zz\"}", RIG_ESCHEMA, "bad percent escape");
    compile_fails("{\"a\":3,\"$ref\":\"#/a\"}", RIG_ESCHEMA, "points to integer, not to a schema");
    compile_fails("{\"properties\":{\"x\":{\"$ref\":\"#/properties/y\"}}}", RIG_ESCHEMA,
                  "at '/properties/x/$ref'");
    /* the root */
    compile_fails("[]", RIG_ESCHEMA, "must be an object or a boolean, not array");
    compile_fails("\"x\"", RIG_ESCHEMA, "must be an object or a boolean");
    compile_fails("{", RIG_EJSON, "not valid JSON");
    compile_fails("", RIG_EJSON, "not valid JSON");
    compile_fails("{} x", RIG_EJSON, "not valid JSON");
    /* NULL */
    rig_error err;
    assert_null(rig_schema_compile(NULL, 0, &err));
    assert_int_equal(err.code, RIG_EINVAL);
    assert_null(rig_schema_compile("{", 1, NULL));
}

static void test_recursion_without_progress(void **state)
{
    (void)state;
    compile_fails("{\"$ref\":\"#\"}", RIG_ESCHEMA,
                  "invalid schema at '/$ref': \"$ref\" leads back to '#'");
    compile_fails("{\"$ref\":\"#\"}", RIG_ESCHEMA, "without descending into the value");
    compile_fails("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"allOf\":[{\"$ref\":\"#/"
                  "$defs/a\"}]}},\"$ref\":\"#/$defs/a\"}",
                  RIG_ESCHEMA, "without descending into the value");
    compile_fails("{\"anyOf\":[{\"type\":\"null\"},{\"$ref\":\"#\"}]}", RIG_ESCHEMA,
                  "without descending");
    compile_fails("{\"not\":{\"$ref\":\"#\"}}", RIG_ESCHEMA, "without descending");
    compile_fails("{\"oneOf\":[{\"$ref\":\"#/oneOf/0\"}]}", RIG_ESCHEMA, "without descending");
    /* an unused cycle is still a cycle */
    compile_fails("{\"$defs\":{\"x\":{\"$ref\":\"#/$defs/x\"}}}", RIG_ESCHEMA,
                  "without descending");
    /* through properties, items and additionalProperties it is a tree: fine */
    rig_schema_free(compile_ok("{\"properties\":{\"next\":{\"$ref\":\"#\"}}}"));
    rig_schema_free(compile_ok("{\"items\":{\"$ref\":\"#\"}}"));
    rig_schema_free(compile_ok("{\"additionalProperties\":{\"anyOf\":[{\"$ref\":\"#\"}]}}"));
    rig_schema_free(compile_ok("{\"prefixItems\":[{\"allOf\":[{\"$ref\":\"#\"}]}]}"));
}

/* A schema nested as deep as the parser allows compiles without recursion;
 * one deeper is not JSON to rig. */
static void test_deep_schemas(void **state)
{
    (void)state;
    size_t n = 510;
    char *text = malloc(n * 12 + 16);
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(text + at, "{\"items\":");
    at += (size_t)sprintf(text + at, "{\"type\":\"null\"}");
    for (size_t i = 0; i < n; i++)
        text[at++] = '}';
    text[at] = '\0';
    rig_schema *s = compile_ok(text);
    rig_schema_free(s);
    free(text);

    n = 600;
    text = malloc(n * 12 + 16);
    at = 0;
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(text + at, "{\"not\":");
    at += (size_t)sprintf(text + at, "{}");
    for (size_t i = 0; i < n; i++)
        text[at++] = '}';
    text[at] = '\0';
    compile_fails(text, RIG_EJSON, "not valid JSON");
    free(text);

    /* 511 nested "not": compiles, validates */
    n = 510;
    text = malloc(n * 12 + 16);
    at = 0;
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(text + at, "{\"not\":");
    at += (size_t)sprintf(text + at, "{\"type\":\"null\"}");
    for (size_t i = 0; i < n; i++)
        text[at++] = '}';
    text[at] = '\0';
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text(text, "null", 0, msg, sizeof msg, NULL, NULL), 0);
    assert_int_equal(validate_text(text, "1", 0, msg, sizeof msg, NULL, NULL), RIG_EVALIDATE);
    free(text);
}

/* ---------------------------------------------------------------- limits */

static rig_json_doc *parse_deep(const char *text, size_t len)
{
    rig_json_options opt = {0, 1000000, 0};
    rig_json_error err;
    rig_json_doc *d = rig_json_parse(text, len, &opt, &err);
    assert_non_null(d);
    return d;
}

static void test_deep_instance(void **state)
{
    (void)state;
    size_t n = 100000;
    char *text = malloc(2 * n + 1);
    memset(text, '[', n);
    memset(text + n, ']', n);
    rig_json_doc *d = parse_deep(text, 2 * n);
    static const char *const schemas[] = {
        "{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}",
        "{\"items\":{\"$ref\":\"#/$defs/a\"},\"$defs\":{\"a\":{\"anyOf\":[{\"$ref\":\"#\"}]}}}",
        "{\"items\":{\"$ref\":\"#\"},\"uniqueItems\":true}",
    };
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
        rig_schema *s = compile_ok(schemas[i]);
        rig_error err;
        int rc = rig_schema_validate(s, rig_json_doc_root(d), BOTH, NULL, NULL, &err);
        assert_int_equal(rc, RIG_EVALIDATE);
        if (!strstr(err.message, "nesting too deep"))
            fail_msg("schema %zu: %s", i, err.message);
        assert_true(strlen(err.message) < 400);
        rig_schema_free(s);
    }
    /* a schema that does not descend does not care */
    rig_schema *s = compile_ok("{\"type\":\"array\",\"maxItems\":1}");
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), 0, NULL, NULL, NULL), 0);
    rig_schema_free(s);
    rig_json_doc_free(d);

    /* deep objects, and an edit below a deep untouched part is written whole */
    free(text);
    n = 5000;
    text = malloc(8 * n + 64);
    size_t at = (size_t)sprintf(text, "{\"n\":\"1\",\"deep\":");
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(text + at, "{\"a\":");
    text[at++] = '1';
    for (size_t i = 0; i < n + 1; i++)
        text[at++] = '}';
    d = parse_deep(text, at);
    s = compile_ok("{\"properties\":{\"n\":{\"type\":\"integer\"}}}");
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    bool changed = false;
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), BOTH, &w, &changed, NULL), 0);
    assert_true(changed);
    size_t len;
    const char *out = rig_json_writer_finish(&w, &len);
    assert_non_null(out);
    assert_int_equal(len, at - 2);
    assert_memory_equal(out, "{\"n\":1,", 7);
    rig_json_writer_free(&w);
    rig_schema_free(s);
    rig_json_doc_free(d);
    free(text);
}

static void test_long_strings(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *text = malloc(n + 3);
    text[0] = '"';
    memset(text + 1, 'a', n);
    text[n + 1] = '"';
    text[n + 2] = '\0';
    char msg[RIG_ERROR_MESSAGE_MAX];
    assert_int_equal(validate_text("{\"maxLength\":10}", text, 0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_string_equal(msg, "at the top level: must be at most 10 characters");
    assert_int_equal(validate_text("{\"maxLength\":1048576,\"minLength\":1048576}", text, 0, msg,
                                   sizeof msg, NULL, NULL),
                     0);
    assert_int_equal(validate_text("{\"pattern\":\"^a+$\"}", text, 0, msg, sizeof msg, NULL, NULL),
                     0);
    assert_int_equal(validate_text("{\"pattern\":\"b\"}", text, 0, msg, sizeof msg, NULL, NULL),
                     RIG_EVALIDATE);
    assert_int_equal(validate_text("{\"pattern\":\"a{5}$\"}", text, 0, msg, sizeof msg, NULL,
                                   NULL),
                     0);
    /* escaped: decoded for the pattern, counted on the text for lengths */
    text[n / 2] = '\\';
    text[n / 2 + 1] = 'n';
    assert_int_equal(validate_text("{\"maxLength\":1048575}", text, 0, msg, sizeof msg, NULL,
                                   NULL),
                     0);
    assert_int_equal(validate_text("{\"maxLength\":1048574}", text, 0, msg, sizeof msg, NULL,
                                   NULL),
                     RIG_EVALIDATE);
    assert_int_equal(validate_text("{\"pattern\":\"a\\na\"}", text, 0, msg, sizeof msg, NULL,
                                   NULL),
                     0);
    free(text);
}

/* Lone surrogates arrive as U+FFFD: one character, matched as such. */
static void test_replacement_character(void **state)
{
    (void)state;
    static const vcase cases[] = {
        {"{\"maxLength\":1}", "\"\\ud800\"", NULL},
        {"{\"minLength\":2}", "\"\\ud800\"", "must be at least 2 characters"},
        {"{\"maxLength\":2}", "\"\\udc00\\ud800\"", NULL},
        {"{\"pattern\":\"^\\\\uFFFD$\"}", "\"\\ud800\"", NULL},
        {"{\"pattern\":\"^\\\\uFFFD$\"}", "\"\\ud800x\"", "must match"},
        {"{\"pattern\":\"^.$\"}", "\"\xef\xbf\xbd\"", NULL},
        {"{\"const\":\"\\ufffd\"}", "\"\\udfff\"", NULL},
    };
    RUN(cases, 0);
}

static void test_unique_large(void **state)
{
    (void)state;
    size_t n = 100000;
    char *text = malloc(n * 24 + 16);
    size_t at = 0;
    text[at++] = '[';
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(text + at, "%s%zu", i ? "," : "", i * 7);
    text[at++] = ']';
    rig_json_doc *d = parse_deep(text, at);
    rig_schema *s = compile_ok("{\"uniqueItems\":true}");
    clock_t t0 = clock();
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), 0, NULL, NULL, NULL), 0);
    rig_json_doc_free(d);
    /* one duplicate, at the end, written as a double */
    at -= 1;
    at += (size_t)sprintf(text + at, ",%zu.0]", (n / 2) * 7);
    d = parse_deep(text, at);
    rig_error err;
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), 0, NULL, NULL, &err),
                     RIG_EVALIDATE);
    char want[100];
    snprintf(want, sizeof want, "items %zu and %zu are equal", n / 2, n);
    assert_non_null(strstr(err.message, want));
    rig_json_doc_free(d);
    /* strings and objects */
    at = 0;
    text[at++] = '[';
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(text + at, "%s{\"k\":\"s%zu\"}", i ? "," : "", i);
    text[at++] = ']';
    d = parse_deep(text, at);
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), 0, NULL, NULL, NULL), 0);
    rig_json_doc_free(d);
    double ms = (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC;
    print_message("# uniqueItems over 3 arrays of 10^5 items: %.1f ms\n", ms);
    rig_schema_free(s);
    free(text);
}

/* ---------------------------------------------------------------- API edges */

static void test_api_edges(void **state)
{
    (void)state;
    rig_schema *s = compile_ok("{\"type\":\"object\"}");
    rig_json_doc *d = parse_ok("{}");
    rig_error err;
    bool changed = true;
    assert_int_equal(rig_schema_validate(NULL, rig_json_doc_root(d), 0, NULL, &changed, &err),
                     RIG_EINVAL);
    assert_false(changed);
    rig_json_val missing = {NULL, 0};
    assert_int_equal(rig_schema_validate(s, missing, 0, NULL, NULL, &err), RIG_EVALIDATE);
    assert_string_equal(err.message, "at the top level: no value");
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), 0x100, NULL, NULL, &err),
                     RIG_EINVAL);
    assert_int_equal(rig_schema_validate(s, rig_json_doc_root(d), BOTH, NULL, NULL, NULL), 0);
    /* the root is the schema's own document */
    assert_true(rig_json_is_object(rig_schema_root(s)));
    assert_true(rig_json_str_eq(rig_json_get(rig_schema_root(s), "type"), "object"));
    assert_false(rig_json_exists(rig_schema_root(NULL)));
    rig_schema_free(NULL);
    /* the schema keeps its own copy of the text */
    char *text = strdup("{\"type\":\"integer\"}");
    rig_schema *s2 = rig_schema_compile(text, strlen(text), NULL);
    memset(text, 'x', strlen(text));
    free(text);
    assert_int_equal(rig_schema_validate(s2, rig_json_doc_root(d), 0, NULL, NULL, &err),
                     RIG_EVALIDATE);
    assert_string_equal(err.message, "at the top level: expected integer, got object");
    rig_schema_free(s2);
    /* a writer that cannot take a value */
    rig_json_doc *d2 = parse_ok("\"5\"");
    rig_schema *s3 = compile_ok("{\"type\":\"integer\"}");
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_int(&w, 1);
    assert_int_equal(rig_schema_validate(s3, rig_json_doc_root(d2), BOTH, &w, &changed, &err),
                     RIG_EINVAL);
    assert_false(changed);
    rig_json_writer_free(&w);
    /* into an open container is fine */
    rig_json_writer_init(&w, 0);
    rig_json_write_array_begin(&w);
    assert_int_equal(rig_schema_validate(s3, rig_json_doc_root(d2), BOTH, &w, &changed, &err), 0);
    assert_true(changed);
    rig_json_write_array_end(&w);
    assert_string_equal(rig_json_writer_finish(&w, NULL), "[5]");
    rig_json_writer_free(&w);
    /* validating a value inside a larger document */
    rig_json_doc *d3 = parse_ok("{\"args\":{\"n\":\"2\"}}");
    rig_schema *s4 = compile_ok("{\"properties\":{\"n\":{\"type\":\"integer\"}}}");
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_schema_validate(s4, rig_json_get(rig_json_doc_root(d3), "args"), BOTH, &w,
                                         &changed, &err),
                     0);
    assert_string_equal(rig_json_writer_finish(&w, NULL), "{\"n\":2}");
    rig_json_writer_free(&w);
    rig_schema_free(s4);
    rig_json_doc_free(d3);
    rig_schema_free(s3);
    rig_json_doc_free(d2);
    rig_json_doc_free(d);
    rig_schema_free(s);
}

/* The walk's depth is bounded: a worker thread with a 1.5 MiB stack (glibc
 * and libuv give 2 MiB or more) gets to the nesting limit and back, through
 * arrays, objects, anyOf, oneOf and allOf. */
typedef struct deep_arg {
    const char *schema;
    const char *open, *close;
    int rc;
    char msg[RIG_ERROR_MESSAGE_MAX];
} deep_arg;

static void *deep_main(void *p)
{
    deep_arg *a = p;
    size_t n = 3000, lo = strlen(a->open), lc = strlen(a->close);
    char *text = malloc(n * (lo + lc) + 8);
    size_t at = 0;
    for (size_t i = 0; i < n; i++, at += lo)
        memcpy(text + at, a->open, lo);
    text[at++] = '1';
    for (size_t i = 0; i < n; i++, at += lc)
        memcpy(text + at, a->close, lc);
    rig_json_options opt = {0, 100000, 0};
    rig_json_doc *d = rig_json_parse(text, at, &opt, NULL);
    rig_error err;
    rig_schema *s = rig_schema_compile(a->schema, strlen(a->schema), &err);
    a->rc = d && s ? rig_schema_validate(s, rig_json_doc_root(d), BOTH, NULL, NULL, &err) : -100;
    snprintf(a->msg, sizeof a->msg, "%s", err.message);
    rig_schema_free(s);
    rig_json_doc_free(d);
    free(text);
    return NULL;
}

static void test_deep_in_small_stack(void **state)
{
    (void)state;
    deep_arg args[] = {
        {"{\"items\":{\"$ref\":\"#\"}}", "[", "]", 0, ""},
        {"{\"additionalProperties\":{\"$ref\":\"#\"},\"required\":[]}", "{\"k\":", "}", 0,
         ""},
        {"{\"anyOf\":[{\"type\":\"integer\"},{\"properties\":{\"k\":{\"$ref\":\"#\"}}}]}",
         "{\"k\":", "}", 0, ""},
        {"{\"oneOf\":[{\"type\":\"integer\"},{\"items\":{\"allOf\":[{\"$ref\":\"#\"}]}}]}", "[",
         "]", 0, ""},
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        size_t stack = 1536 * 1024;
#if defined(__SANITIZE_ADDRESS__)
        stack *= 4; /* ASan's redzones */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
        stack *= 4;
#endif
#endif
        pthread_attr_setstacksize(&attr, stack);
        pthread_t t;
        assert_int_equal(pthread_create(&t, &attr, deep_main, &args[i]), 0);
        pthread_join(t, NULL);
        pthread_attr_destroy(&attr);
        assert_int_equal(args[i].rc, RIG_EVALIDATE);
        if (!strstr(args[i].msg, "nesting too deep"))
            fail_msg("case %zu: %s", i, args[i].msg);
    }
}

/* ---------------------------------------------------------------- threads */

typedef struct thread_arg {
    const rig_schema *s;
    int failures;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    rig_json_doc *good =
        parse_ok("{\"id\":\"ab-12\",\"n\":\"3\",\"when\":\"2024-01-01T00:00:00Z\"}");
    rig_json_doc *bad = parse_ok("{\"id\":\"AB\",\"n\":3}");
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    for (int i = 0; i < 2000; i++) {
        rig_error err;
        bool changed = false;
        rig_json_writer_reset(&w);
        if (rig_schema_validate(a->s, rig_json_doc_root(good), BOTH, &w, &changed, &err) != 0 ||
            !changed ||
            strcmp(rig_json_writer_finish(&w, NULL),
                   "{\"id\":\"ab-12\",\"n\":3,\"when\":\"2024-01-01T00:00:00Z\",\"k\":\"d\"}") != 0)
            a->failures++;
        if (rig_schema_validate(a->s, rig_json_doc_root(bad), BOTH, NULL, NULL, &err) !=
                RIG_EVALIDATE ||
            strcmp(err.message, "at '/id': must match the pattern \"^[a-z]+-[0-9]+$\"") != 0)
            a->failures++;
    }
    rig_json_writer_free(&w);
    rig_json_doc_free(good);
    rig_json_doc_free(bad);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    rig_schema *s = compile_ok(
        "{\"properties\":{\"id\":{\"pattern\":\"^[a-z]+-[0-9]+$\"},\"n\":{\"type\":\"integer\"},"
        "\"when\":{\"format\":\"date-time\"},\"k\":{\"default\":\"d\"}}}");
    pthread_t t[4];
    thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (thread_arg){s, 0};
        assert_int_equal(pthread_create(&t[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    rig_schema_free(s);
}

/* ---------------------------------------------------------------- speed */

/* The common case: a tool's typical arguments, valid, nothing to change.
 * Reported, not asserted (timing depends on the machine and on valgrind). */
static void test_speed_report(void **state)
{
    (void)state;
    rig_schema *s = compile_ok(
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\"},"
        "\"count\":{\"type\":\"integer\"},"
        "\"recursive\":{\"type\":\"boolean\"},"
        "\"mode\":{\"enum\":[\"fast\",\"slow\",\"auto\"]},"
        "\"ratio\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1}},"
        "\"required\":[\"path\",\"count\"],\"additionalProperties\":false}");
    rig_json_doc *d = parse_ok("{\"path\":\"src/main.c\",\"count\":20,\"recursive\":true,"
                               "\"mode\":\"auto\",\"ratio\":0.25}");
    rig_json_val root = rig_json_doc_root(d);
    int iters = getenv("RIG_SCHEMA_BENCH_ITERS") ? atoi(getenv("RIG_SCHEMA_BENCH_ITERS")) : 200000;
    for (unsigned flags = 0; flags <= BOTH; flags += BOTH) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int bad = 0;
        for (int i = 0; i < iters; i++) {
            bool changed;
            bad += rig_schema_validate(s, root, flags, NULL, &changed, NULL) != 0 || changed;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        assert_int_equal(bad, 0);
        double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / iters;
        print_message("# validate, 5 typed arguments, flags %u: %.0f ns\n", flags, ns);
    }
    /* the normalizing path, for comparison: one coercion, output written */
    rig_json_doc *d2 = parse_ok("{\"path\":\"src/main.c\",\"count\":\"20\",\"recursive\":true,"
                                "\"mode\":\"auto\",\"ratio\":0.25}");
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int bad = 0;
    for (int i = 0; i < iters / 10; i++) {
        bool changed = false;
        rig_json_writer_reset(&w);
        bad += rig_schema_validate(s, rig_json_doc_root(d2), BOTH, &w, &changed, NULL) != 0 ||
               !changed;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_int_equal(bad, 0);
    assert_string_equal(rig_json_writer_finish(&w, NULL),
                        "{\"path\":\"src/main.c\",\"count\":20,\"recursive\":true,\"mode\":"
                        "\"auto\",\"ratio\":0.25}");
    double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
                (iters / 10 ? iters / 10 : 1);
    print_message("# validate, the same with \"count\":\"20\" coerced and written: %.0f ns\n", ns);
    rig_json_writer_free(&w);
    rig_json_doc_free(d2);
    rig_json_doc_free(d);
    rig_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type),
        cmocka_unit_test(test_properties_required_additional),
        cmocka_unit_test(test_many_properties),
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_enum_const),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_object_counts),
        cmocka_unit_test(test_applicators),
        cmocka_unit_test(test_ref),
        cmocka_unit_test(test_boolean_schemas),
        cmocka_unit_test(test_ignored_keywords),
        cmocka_unit_test(test_format_date_time),
        cmocka_unit_test(test_format_date_time_parts),
        cmocka_unit_test(test_format_uri),
        cmocka_unit_test(test_format_email),
        cmocka_unit_test(test_pointer_escaping),
        cmocka_unit_test(test_no_values_in_messages),
        cmocka_unit_test(test_message_length),
        cmocka_unit_test(test_coercion_accepted),
        cmocka_unit_test(test_coercion_refused),
        cmocka_unit_test(test_branch_edits),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_defaults_kept_valid),
        cmocka_unit_test(test_invalid_schemas),
        cmocka_unit_test(test_recursion_without_progress),
        cmocka_unit_test(test_deep_schemas),
        cmocka_unit_test(test_deep_instance),
        cmocka_unit_test(test_long_strings),
        cmocka_unit_test(test_replacement_character),
        cmocka_unit_test(test_unique_large),
        cmocka_unit_test(test_api_edges),
        cmocka_unit_test(test_deep_in_small_stack),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_speed_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
