/* fuzz_graders.c — the taskset loader and the built-in graders on hostile
 * specs and answers.
 *
 * An input is SPEC '\n' ANSWER '\n' ARGS (missing parts are empty). SPEC is
 * loaded twice: as a grader spec (rig__grader_parse) and wrapped into a
 * one-task taskset (rig_taskset_parse). Checked:
 *
 *   - the loader and the grader parser either succeed or fail with a
 *     non-empty message (and a negative code for the loader);
 *   - a parsed grader, run on ANSWER (when it is JSON) with ARGS (when it
 *     is an object) and no workspace, always fills the grade: a score that
 *     is finite and in [0, 1], and a grade frame that is one valid JSON
 *     object. File and command graders need the workspace there is none
 *     of: they must give isError grades, so nothing is run or read. */
#include "fuzz_common.h"

#include "env/graders.h"
#include "rig/env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void split(const char *p, size_t n, const char **part, size_t *len, size_t parts)
{
    for (size_t i = 0; i < parts; i++) {
        const char *nl = memchr(p, '\n', n);
        size_t l = nl && i + 1 < parts ? (size_t)(nl - p) : n;
        part[i] = p;
        len[i] = l;
        p += l + (l < n);
        n -= l + (l < n);
    }
}

static void check_taskset(const char *spec, size_t n)
{
    static const char head[] = "{\"tasks\":[{\"id\":\"t\",\"prompt\":\"p {x}\",\"grader\":";
    size_t total = sizeof head - 1 + n + 3;
    char *json = malloc(total);
    FUZZ_CHECK(json, "out of memory");
    memcpy(json, head, sizeof head - 1);
    memcpy(json + sizeof head - 1, spec, n);
    memcpy(json + sizeof head - 1 + n, "}]}", 3);
    rig_error err;
    rig_error_clear(&err);
    rig_taskset_opts o = {.work_dir = "/"};
    rig_env *env = rig_taskset_parse(json, total, "/nonexistent", &o, &err);
    if (!env)
        FUZZ_CHECK(err.code < 0 && err.message[0], "a refused taskset says why");
    rig_env_free(env);
    free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    const char *part[3];
    size_t len[3];
    split((const char *)data, size, part, len, 3);
    check_taskset(part[0], len[0]);

    rig_json_doc *spec = rig_json_parse(part[0], len[0], NULL, NULL);
    if (!spec)
        return 0;
    char why[512];
    rig__grader *g = rig__grader_parse(rig_json_doc_root(spec), why, sizeof why);
    rig_json_doc_free(spec);
    if (!g) {
        FUZZ_CHECK(why[0], "a refused grader says why");
        return 0;
    }
    rig_answer a = {0};
    rig_error err;
    if (rig_answer_parse(part[1], len[1], NULL, &a, &err) == RIG_OK) {
        rig_json_doc *args = rig_json_parse(part[2], len[2], NULL, NULL);
        rig_grade gr;
        int rc = rig__grader_run(g, &a, args ? rig_json_doc_root(args) : (rig_json_val){0},
                                 NULL, 1000, true, NULL, NULL, &gr);
        FUZZ_CHECK(rc == RIG_OK, "grading succeeds or gives an isError grade");
        FUZZ_CHECK(isfinite(gr.score) && gr.score >= 0 && gr.score <= 1, "score %g", gr.score);
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        FUZZ_CHECK(rig_grade_write(&gr, &w) == 0, "the frame is written");
        size_t n;
        const char *frame = rig_json_writer_finish(&w, &n);
        rig_json_doc *d = rig_json_parse(frame, n, NULL, NULL);
        FUZZ_CHECK(d && rig_json_typeof(rig_json_doc_root(d)) == RIG_JSON_OBJECT,
                   "the grade frame is one JSON object: %.*s", (int)n, frame);
        rig_json_doc_free(d);
        rig_json_writer_free(&w);
        rig_grade_clear(&gr);
        rig_json_doc_free(args);
    }
    rig_answer_free(&a);
    rig__grader_free(g);
    return 0;
}
