/* answer.c — an agent's submitted answer, read the way HUD's graders see it
 * (REFERENCE 2, Answer{content, raw}): the raw text always, and the value
 * parsed into the task's declared `returns` type when it fits. The rules are
 * in rig/env.h. */
#include <stdlib.h>
#include <string.h>

#include "rig/env.h"

static const rig_json_options copy_opts = {.flags = RIG_JSON_COPY_INPUT};

void rig_answer_free(rig_answer *a) {
    if (!a)
        return;
    free(a->raw);
    rig_json_doc_free(a->doc_);
    rig_json_doc_free(a->content_doc_);
    memset(a, 0, sizeof *a);
}

static bool fits(const rig_schema *s, rig_json_val v) {
    return rig_schema_validate(s, v, 0, NULL, NULL, NULL) == RIG_OK;
}

/* content becomes the raw text as a JSON string: for an answer that was not
 * a string, written and parsed into a document of its own. */
static int fall_back_to_raw(rig_answer *a, rig_json_val root) {
    a->parsed = false;
    if (rig_json_is_string(root)) {
        a->content = root;
        return RIG_OK;
    }
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_stringn(&w, a->raw, a->raw_len);
    size_t n;
    const char *text = rig_json_writer_finish(&w, &n);
    a->content_doc_ = text ? rig_json_parse(text, n, &copy_opts, NULL) : NULL;
    rig_json_writer_free(&w);
    if (!a->content_doc_)
        return RIG_ENOMEM;
    a->content = rig_json_doc_root(a->content_doc_);
    return RIG_OK;
}

int rig_answer_parse(const char *answer_json, size_t len, const rig_schema *returns,
                     rig_answer *out, rig_error *err) {
    if (!out || (!answer_json && len))
        return rig_error_set(err, RIG_EINVAL, "rig_answer_parse: NULL argument");
    memset(out, 0, sizeof *out);
    rig_json_error jerr;
    out->doc_ = rig_json_parse(answer_json ? answer_json : "", len, &copy_opts, &jerr);
    if (!out->doc_) {
        if (jerr.code == RIG_JSON_ENOMEM)
            return rig_error_set(err, RIG_ENOMEM, "out of memory reading the answer");
        char where[200];
        rig_json_error_format(&jerr, where, sizeof where);
        return rig_error_set(err, RIG_EJSON, "the answer is not JSON: %s", where);
    }
    rig_json_val root = rig_json_doc_root(out->doc_);
    int rc = RIG_ENOMEM;

    /* raw: a string's text, or any other value's JSON text as sent */
    if (rig_json_is_string(root)) {
        out->raw_len = rig_json_str_len(root);
        out->raw = malloc(out->raw_len + 1);
        if (!out->raw)
            goto fail;
        rig_json_str_copy(root, out->raw, out->raw_len + 1, NULL);
    } else {
        const char *p = rig_json_raw(root, &out->raw_len);
        out->raw = malloc(out->raw_len + 1);
        if (!out->raw)
            goto fail;
        memcpy(out->raw, p, out->raw_len);
        out->raw[out->raw_len] = '\0';
    }

    out->content = root;
    if (!returns)
        return RIG_OK;
    if (fits(returns, root)) {
        out->parsed = true;
        return RIG_OK;
    }
    if (rig_json_is_string(root)) {
        /* "42" for an integer, "{\"a\":1}" for an object: the model wrote
         * the value as text. */
        rig_json_doc *d = rig_json_parse(out->raw, out->raw_len, &copy_opts, NULL);
        if (d && fits(returns, rig_json_doc_root(d))) {
            out->content_doc_ = d;
            out->content = rig_json_doc_root(d);
            out->parsed = true;
            return RIG_OK;
        }
        rig_json_doc_free(d);
    }
    if ((rc = fall_back_to_raw(out, root)) == RIG_OK)
        return RIG_OK;
fail:
    rig_answer_free(out);
    return rig_error_set(err, rc, "out of memory reading the answer");
}
