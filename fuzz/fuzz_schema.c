/* fuzz_schema.c — the JSON Schema compiler and validator (src/core/schema.c,
 * validate.c, format.c).
 *
 * The input is a schema and an instance, split at the first NUL or 0xFF
 * byte (neither can occur in JSON text). The schema is compiled; when it
 * compiles, the instance is parsed and validated with and without
 * RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS. Then:
 *
 *   - compiling fails only with RIG_ESCHEMA or RIG_EJSON and a message;
 *   - validating returns RIG_OK or RIG_EVALIDATE, with a message that starts
 *     "at " and is valid UTF-8, and the same result twice;
 *   - without flags nothing is ever changed or written;
 *   - normalizing never rejects a value that is valid as sent;
 *   - when normalizing changed the value, the output is one JSON value that
 *     validates with the same flags, unchanged; when it did not, nothing
 *     was written. */
#include "fuzz_common.h"
#include "rig/schema.h"

#define BOTH (RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS)

static rig_json_doc *doc, *doc_out;
static rig_json_writer w;
static const rig_json_options opt = {0, 100000, 0}; /* deeper than the validator follows */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    doc = rig_json_doc_new();
    doc_out = rig_json_doc_new();
    FUZZ_CHECK(doc && doc_out, "rig_json_doc_new failed");
    rig_json_writer_init(&w, 0);
    return 0;
}

static void check_message(int rc, const rig_error *err, const char *what) {
    FUZZ_CHECK(rc == RIG_OK || rc == RIG_EVALIDATE, "%s: status %d (%s)", what, rc, err->message);
    if (rc == RIG_OK)
        return;
    size_t n = strlen(err->message);
    FUZZ_CHECK(err->code == rc, "%s: err.code %d, returned %d", what, err->code, rc);
    FUZZ_CHECK(strncmp(err->message, "at ", 3) == 0, "%s: message \"%s\"", what, err->message);
    FUZZ_CHECK(fz_utf8_valid((const uint8_t *)err->message, n), "%s: message not UTF-8", what);
}

/* Validates v, returning the status; *changed and the writer's text out. */
static int validate(const rig_schema *s, rig_json_val v, unsigned flags, bool *changed,
                    rig_error *err, const char *what) {
    rig_json_writer_reset(&w);
    *changed = true;
    rig_error_clear(err);
    int rc = rig_schema_validate(s, v, flags, &w, changed, err);
    check_message(rc, err, what);
    if (rc != RIG_OK)
        FUZZ_CHECK(!*changed, "%s: changed is set on a failure", what);
    if (!*changed)
        FUZZ_CHECK(w.len == 0, "%s: %zu bytes written, but nothing changed", what, w.len);
    if (!flags)
        FUZZ_CHECK(!*changed, "%s: changed without coercion or defaults", what);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t cut = 0;
    while (cut < size && data[cut] != 0 && data[cut] != 0xFF)
        cut++;
    const char *schema_text = (const char *)data;
    rig_error err;
    rig_error_clear(&err);
    rig_schema *s = rig_schema_compile(schema_text, cut, &err);
    if (!s) {
        FUZZ_CHECK(err.code == RIG_ESCHEMA || err.code == RIG_EJSON,
                   "compile failed with %d: %s", err.code, err.message);
        FUZZ_CHECK(err.message[0] != '\0', "compile failed without a message");
        return 0;
    }
    FUZZ_CHECK(rig_json_exists(rig_schema_root(s)), "a compiled schema has no root");
    const char *inst = cut < size ? (const char *)data + cut + 1 : "";
    size_t inst_len = cut < size ? size - cut - 1 : 0;
    if (rig_json_doc_parse(doc, inst, inst_len, &opt, NULL) != 0) {
        rig_schema_free(s);
        return 0;
    }
    rig_json_val root = rig_json_doc_root(doc);

    bool changed;
    rig_error err2;
    int raw = validate(s, root, 0, &changed, &err, "plain");
    int raw2 = validate(s, root, 0, &changed, &err2, "plain again");
    FUZZ_CHECK(raw == raw2 && strcmp(err.message, err2.message) == 0,
               "two validations differ: %d \"%s\" / %d \"%s\"", raw, err.message, raw2,
               err2.message);

    int rc = validate(s, root, BOTH, &changed, &err, "normalizing");
    if (raw == RIG_OK)
        FUZZ_CHECK(rc == RIG_OK, "valid as sent, but not when normalized: %s", err.message);
    if (rc == RIG_OK && changed) {
        size_t len = 0;
        const char *out = rig_json_writer_finish(&w, &len);
        FUZZ_CHECK(out, "changed, but the writer holds no complete value");
        char *copy = malloc(len ? len : 1);
        FUZZ_CHECK(copy, "out of memory");
        memcpy(copy, out, len);
        rig_json_error je;
        int prc = rig_json_doc_parse(doc_out, copy, len, &opt, &je);
        FUZZ_CHECK(prc == 0, "the normalized value is not JSON: %s at %zu", je.reason, je.offset);
        bool again;
        int rc2 = validate(s, rig_json_doc_root(doc_out), BOTH, &again, &err2, "normalized");
        FUZZ_CHECK(rc2 == RIG_OK, "the normalized value is invalid: %s\n  value: %.*s",
                   err2.message, (int)(len < 300 ? len : 300), copy);
        FUZZ_CHECK(!again, "the normalized value changes again: %.*s",
                   (int)(len < 300 ? len : 300), copy);
        rig_json_doc_parse(doc_out, "0", 1, NULL, NULL); /* let go of copy */
        free(copy);
    }
    rig_schema_free(s);
    return 0;
}
