/* bench_dispatch.c — what one tool call costs in rig: validating the
 * arguments, and the whole call from JSON text to result.
 *
 * One typical tool, read_lines, with five typed arguments (a path string
 * with minLength, an integer with bounds, a boolean, an enum string with a
 * default, a number) and an executor that reads two of them and returns a
 * short text. Measured, in ns per call:
 *
 *   a. rig_schema_validate alone, on arguments parsed once;
 *   b. rig_toolset_call on the tool marked RIG_TOOL_INLINE: parse the
 *      arguments, look the tool up, validate (coercion and defaults on),
 *      no hooks, run the executor, return the result (freed each call);
 *   c. the same tool without RIG_TOOL_INLINE: the call goes to a worker
 *      thread and back (the hand-off DESIGN.md says costs microseconds);
 *   d. (b) with "count" sent as the string "42" (coerced) and "mode" left
 *      out (its default filled in): the rewriting path.
 *
 * The Node peer (dispatch_peer.mjs, Ajv) does the same work on the same
 * inputs; run.sh runs both, this program first. Each figure is the median of
 * --runs runs (default 7), the four contestants taking turns run by run.
 * Every result is checked once outside the timed loops.
 *
 *   bench_dispatch [--runs N] [--dump DIR]
 *   bench_dispatch --once N
 *
 * --dump DIR writes the schema, the argument texts, the expected result
 * texts and rig's figures (dispatch.json) for the Node peer. --once N makes
 * N calls of (b), untimed, for an instruction count under callgrind
 * (valgrind --tool=callgrind bench_dispatch --once 100000). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "rig/rig.h"

#ifndef BENCH_BUILD
#define BENCH_BUILD "unknown build type"
#endif

#define MAX_RUNS BENCH_MAX_RUNS
#define COUNT(a) (sizeof(a) / sizeof *(a))

static const char k_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1},"
    "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000},"
    "\"recursive\":{\"type\":\"boolean\"},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"fast\",\"thorough\",\"auto\"],\"default\":\"auto\"},"
    "\"ratio\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1}},"
    "\"required\":[\"path\",\"count\"],\"additionalProperties\":false}";

/* What a model sends (b, c), and a sloppier version (d). */
static const char k_args[] =
    "{\"path\":\"src/main.c\",\"count\":42,\"recursive\":true,\"mode\":\"fast\",\"ratio\":0.5}";
static const char k_args_coerce[] =
    "{\"path\":\"src/main.c\",\"count\":\"42\",\"recursive\":true,\"ratio\":0.5}";
static const char k_want[] = "read 42 lines of src/main.c (fast)";
static const char k_want_coerce[] = "read 42 lines of src/main.c (auto)";

static uint64_t sink; /* checksum of outputs, printed at the end */

void bench_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_dispatch: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ------------------------------------------------------------ the tool */

static rig_result *read_lines(rig_call *call) {
    const char *path = rig_call_str(call, "path", NULL);
    const char *mode = rig_call_str(call, "mode", NULL);
    int64_t count = rig_call_int(call, "count", 0);
    rig_result *r = rig_result_new();
    rig_result_textf(r, "read %lld lines of %s (%s)", (long long)count, path ? path : "?",
                     mode ? mode : "?");
    return r;
}

static rig_tool *make_tool(const char *name, unsigned flags) {
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    if (!t || rig_tool_set_input_schema(t, k_schema, sizeof k_schema - 1, &err) != RIG_OK)
        bench_die("tool %s: %s", name, err.message);
    rig_tool_set_description(t, "Read lines of a file.");
    rig_tool_set_executor(t, read_lines, NULL, NULL);
    rig_tool_set_flags(t, flags);
    return t;
}

/* ------------------------------------------------------------ contestants */

typedef struct ctx {
    rig_toolset *ts;
    const char *tool;
    const char *args;
    size_t len;
    const rig_schema *schema;
    rig_json_val parsed;
} ctx;

static void run_validate(void *p, long reps) {
    ctx *c = p;
    rig_error err;
    for (long i = 0; i < reps; i++) {
        bool changed = true;
        int rc = rig_schema_validate(c->schema, c->parsed,
                                     RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS, NULL, &changed,
                                     &err);
        sink += (uint64_t)(rc == RIG_OK) + changed;
    }
}

static void run_call(void *p, long reps) {
    ctx *c = p;
    for (long i = 0; i < reps; i++) {
        rig_result *r = rig_toolset_call(c->ts, c->tool, c->args, c->len, NULL, NULL);
        sink += rig_result_block(r, 0)->text_len;
        rig_result_free(r);
    }
}

/* One call, checked: the text the tool returned, and no error. */
static void check_call(ctx *c, const char *want) {
    rig_error err;
    rig_result *r = rig_toolset_call(c->ts, c->tool, c->args, c->len, NULL, &err);
    const rig_content *b = rig_result_block(r, 0);
    if (err.code != RIG_OK || rig_result_is_error(r) || !b || strcmp(b->text, want) != 0)
        bench_die("%s with %s: got \"%s\" (%s), want \"%s\"", c->tool, c->args, b ? b->text : "",
            err.message, want);
    rig_result_free(r);
}

/* ------------------------------------------------------------ harness */

typedef bench_contestant contestant;

static int g_runs = 7;

/* The harness of bench_json (harness.c). */
static void race(contestant *cs, int n, double target, long min_reps, long max_reps) {
    bench_race(cs, n, g_runs, target, min_reps, max_reps);
}

static void print_machine(void) {
    bench_print_machine("rig dispatch benchmark: validation and one tool call");
    printf("| load average at start | %s |\n", bench_loadavg());
    printf("| method | median of %d runs; contestants take turns run by run |\n\n", g_runs);
}

static void write_text(const char *dir, const char *name, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        bench_die("cannot write %s", path);
}

/* The inputs and rig's figures, for dispatch_peer.mjs. */
static void dump(const char *dir, const contestant *cs, int n) {
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "runs");
    rig_json_write_int(&w, g_runs);
    rig_json_write_key(&w, "schema");
    rig_json_write_string(&w, k_schema);
    rig_json_write_key(&w, "args");
    rig_json_write_string(&w, k_args);
    rig_json_write_key(&w, "args_coerce");
    rig_json_write_string(&w, k_args_coerce);
    rig_json_write_key(&w, "want");
    rig_json_write_string(&w, k_want);
    rig_json_write_key(&w, "want_coerce");
    rig_json_write_string(&w, k_want_coerce);
    rig_json_write_key(&w, "rig_ns");
    rig_json_write_object_begin(&w);
    for (int i = 0; i < n; i++) {
        rig_json_write_key(&w, cs[i].key);
        rig_json_write_double(&w, cs[i].med * 1e9);
    }
    rig_json_write_object_end(&w);
    rig_json_write_key(&w, "rig_cpu_ns");
    rig_json_write_object_begin(&w);
    for (int i = 0; i < n; i++) {
        rig_json_write_key(&w, cs[i].key);
        rig_json_write_double(&w, cs[i].cmed * 1e9);
    }
    rig_json_write_object_end(&w);
    rig_json_write_object_end(&w);
    const char *out = rig_json_writer_finish(&w, NULL);
    if (!out)
        bench_die("writing dispatch.json failed");
    write_text(dir, "dispatch.json", out);
    rig_json_writer_free(&w);
}

int main(int argc, char **argv) {
    const char *dump_dir = NULL;
    long once = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            g_runs = atoi(argv[++i]);
            if (g_runs < 1 || g_runs > MAX_RUNS)
                bench_die("--runs takes 1..%d", MAX_RUNS);
        } else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            dump_dir = argv[++i];
        } else if (strcmp(argv[i], "--once") == 0 && i + 1 < argc) {
            once = atol(argv[++i]);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            i++; /* bench_json's option, passed on by run.sh: ignored */
        } else {
            fprintf(stderr, "usage: bench_dispatch [--runs N] [--dump DIR] | --once N\n");
            return 2;
        }
    }
    double start = bench_now_s();
    if (!once)
        print_machine();

    rig_toolset *ts = rig_toolset_new();
    rig_error err;
    if (!ts || rig_toolset_add(ts, make_tool("read_lines", RIG_TOOL_INLINE), &err) != RIG_OK ||
        rig_toolset_add(ts, make_tool("read_lines_pooled", 0), &err) != RIG_OK)
        bench_die("toolset: %s", err.message);
    rig_json_doc *doc = rig_json_parse(k_args, sizeof k_args - 1, NULL, NULL);
    if (!doc)
        bench_die("the arguments do not parse");
    const rig_schema *schema = rig_tool_input_schema(rig_toolset_get(ts, "read_lines"));

    ctx validate = {.schema = schema, .parsed = rig_json_doc_root(doc)};
    ctx inl = {ts, "read_lines", k_args, sizeof k_args - 1, NULL, {0}};
    ctx pooled = {ts, "read_lines_pooled", k_args, sizeof k_args - 1, NULL, {0}};
    ctx coerce = {ts, "read_lines", k_args_coerce, sizeof k_args_coerce - 1, NULL, {0}};

    /* Checks, outside the timing. */
    bool changed = true;
    if (rig_schema_validate(schema, validate.parsed, RIG_VALIDATE_COERCE | RIG_VALIDATE_DEFAULTS,
                            NULL, &changed, &err) != RIG_OK || changed)
        bench_die("the arguments should be valid as they are: %s", err.message);
    check_call(&inl, k_want);
    check_call(&pooled, k_want);
    check_call(&coerce, k_want_coerce);
    if (once) {
        run_call(&inl, once);
        printf("%ld calls of (b); checksum %016llx\n", once, (unsigned long long)sink);
        rig_json_doc_free(doc);
        rig_toolset_free(ts);
        return 0;
    }

    printf("Tool `read_lines`, schema (%zu bytes):\n\n    %s\n\n", sizeof k_schema - 1, k_schema);
    printf("Arguments (a, b, c):\n\n    %s\n\nArguments (d): `count` as a string, `mode` "
           "left to its default:\n\n    %s\n\n", k_args, k_args_coerce);
    printf("Result text: `%s`; with (d): `%s` (checked before timing).\n\n", k_want,
           k_want_coerce);

    contestant cs[] = {
        {.key = "validate", .name = "a. rig_schema_validate alone (parsed arguments)",
         .fn = run_validate, .ctx = &validate},
        {.key = "call_inline", .name = "b. rig_toolset_call, inline tool", .fn = run_call,
         .ctx = &inl},
        {.key = "call_pool", .name = "c. rig_toolset_call, worker pool", .fn = run_call,
         .ctx = &pooled},
        {.key = "call_coerce", .name = "d. rig_toolset_call, inline, coercion + default",
         .fn = run_call, .ctx = &coerce},
    };
    int n = (int)COUNT(cs);
    race(cs, n, 0.3, 10000, 5000000);

    printf("| rig | ns/call (median) | min - max | CPU ns/call (median) | calls/run |\n");
    printf("|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; i++)
        printf("| %s | %.0f | %.0f - %.0f | %.0f | %ld |\n", cs[i].name, cs[i].med * 1e9,
               cs[i].min * 1e9, cs[i].max * 1e9, cs[i].cmed * 1e9, cs[i].reps);
    double lo = 1e9;
    for (int i = 0; i < n; i++)
        if (i != 2 && cs[i].cpu_share < lo) /* (c) waits for its worker by design */
            lo = cs[i].cpu_share;
    printf("\nCPU share of the timed runs (process CPU time / wall time), lowest of a, b, d: "
           "%.0f%%%s; (c): %.0f%% (its calling thread sleeps while the worker runs, and both "
           "threads count).\n\n",
           100 * lo, lo < 0.9 ? " -- **the machine was busy: wall-clock figures are inflated**" : "",
           100 * cs[2].cpu_share);
    double b_us = cs[1].med * 1e6;
    printf("Goal: (b) under 1 us per call: %.3f us (%s). The worker hand-off (c - b) adds %.1f us "
           "per call.\n\n",
           b_us, b_us < 1.0 ? "met" : "**missed**", (cs[2].med - cs[1].med) * 1e6);
    if (dump_dir)
        dump(dump_dir, cs, n);
    printf("Checksum of outputs: %016llx (total %.0f s; load average at the end: %s)\n",
           (unsigned long long)sink, bench_now_s() - start, bench_loadavg());
    rig_json_doc_free(doc);
    rig_toolset_free(ts);
    return 0;
}
