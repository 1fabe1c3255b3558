/* env_plugin.c — an environment written in C, served by `rig env serve`.
 *
 * "units" has two task templates whose problems are generated per episode
 * from the task's args, so one template gives as many episodes as there are
 * seeds, and the same seed always gives the same problem:
 *
 *   convert     {"seed": 7, "quantity": "length"|"mass"|"temperature"}
 *               "Convert 412.7 ft to m": the answer is an object
 *               {"value": <number>, "unit": "m"} (its `returns` schema), graded
 *               with a tolerance (0.1 % of the expected value, at least 0.01),
 *               with two subscores: the value (weight 0.75) and the unit
 *               (0.25).
 *   arithmetic  {"seed": 7, "terms": 2..8}
 *               "What is 17 + 4 * 3 - 8?": an integer answer, exact.
 *
 * start keeps the generated problem as the task's state
 * (rig_task_ctx_set_state), grade reads it, end frees it. The initialize
 * hook publishes the conversion table as a capability, so a harness that
 * says hello sees which units exist; the shutdown hook says how many
 * episodes were started.
 *
 * Build and load: the Meson build makes build/examples/env_plugin.so, which
 * `rig env serve build/examples/env_plugin.so` dlopens; rig calls its
 * rig_env_plugin_new, serves the env it returns, and frees it at the end.
 * The module is not linked with librig: its rig_* calls resolve against the
 * rig executable that loads it. Outside the Meson build,
 *
 *   cc -shared -fPIC -I include examples/env_plugin.c -o env_plugin.so
 *
 * builds the same module. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rig/env.h>

/* The plugin's entry point: `rig env serve` looks it up by this name. */
RIG_API rig_env *rig_env_plugin_new(rig_error *err);

/* ---------------------------------------------------------------- units */

typedef enum quantity { Q_LENGTH, Q_MASS, Q_TEMPERATURE } quantity;

typedef struct unit {
    const char *symbol, *name;
    double scale;  /* value in the base unit = value * scale + offset */
    double offset;
} unit;

/* Base units: the metre, the kilogram, the kelvin. */
static const unit lengths[] = {
    {"mm", "millimetres", 0.001, 0},   {"cm", "centimetres", 0.01, 0},
    {"m", "metres", 1, 0},             {"km", "kilometres", 1000, 0},
    {"in", "inches", 0.0254, 0},       {"ft", "feet", 0.3048, 0},
    {"yd", "yards", 0.9144, 0},        {"mi", "miles", 1609.344, 0},
};
static const unit masses[] = {
    {"mg", "milligrams", 1e-6, 0},     {"g", "grams", 0.001, 0},
    {"kg", "kilograms", 1, 0},         {"t", "tonnes", 1000, 0},
    {"oz", "ounces", 0.028349523125, 0}, {"lb", "pounds", 0.45359237, 0},
};
static const unit temperatures[] = {
    {"C", "degrees Celsius", 1, 273.15},
    {"F", "degrees Fahrenheit", 5.0 / 9.0, 273.15 - 32 * 5.0 / 9.0},
    {"K", "kelvins", 1, 0},
};

static const struct {
    const char *name;
    const unit *units;
    size_t n;
} quantities[] = {
    [Q_LENGTH] = {"length", lengths, sizeof lengths / sizeof *lengths},
    [Q_MASS] = {"mass", masses, sizeof masses / sizeof *masses},
    [Q_TEMPERATURE] = {"temperature", temperatures, sizeof temperatures / sizeof *temperatures},
};
#define N_QUANTITIES (sizeof quantities / sizeof *quantities)

static double convert(double v, const unit *from, const unit *to)
{
    return (v * from->scale + from->offset - to->offset) / to->scale;
}

/* ---------------------------------------------------------------- problems */

/* splitmix64: a seed gives the same numbers on every machine. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* One episode's problem: what start generated and grade checks. */
typedef struct problem {
    char text[160];   /* the question, also echoed in the grade's info */
    const unit *to;   /* convert: the unit the answer must be in */
    double expected;
} problem;

static int64_t arg_int(rig_json_val args, const char *key, int64_t dflt)
{
    int64_t v;
    return rig_json_get_int64(rig_json_get(args, key), &v) == 0 ? v : dflt;
}

/* The prompt as JSON text (a string: rig sends it as {"prompt": ...}). */
static char *prompt_json(const char *text, rig_error *err)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_string(&w, text);
    char *out = rig_json_writer_detach(&w, NULL);
    rig_json_writer_free(&w);
    if (!out)
        rig_error_set(err, RIG_ENOMEM, "out of memory writing the prompt");
    return out;
}

static atomic_uint episodes;

static char *convert_start(rig_task_ctx *ctx, rig_json_val args, rig_error *err)
{
    uint64_t seed = (uint64_t)arg_int(args, "seed", 0);
    quantity q = Q_LENGTH;
    for (size_t i = 0; i < N_QUANTITIES; i++)
        if (rig_json_str_eq(rig_json_get(args, "quantity"), quantities[i].name))
            q = (quantity)i;
    const unit *units = quantities[q].units;
    size_t n = quantities[q].n;

    problem *p = calloc(1, sizeof *p);
    if (!p) {
        rig_error_set(err, RIG_ENOMEM, "out of memory");
        return NULL;
    }
    size_t from = next_random(&seed) % n;
    size_t to = (from + 1 + next_random(&seed) % (n - 1)) % n; /* never `from` */
    /* One decimal; temperatures may be below zero, but never below 0 K. */
    double value = (double)(next_random(&seed) % 10000) / 10.0;
    if (q == Q_TEMPERATURE && units[from].offset != 0)
        value -= 100.0;
    p->to = &units[to];
    p->expected = convert(value, &units[from], p->to);
    snprintf(p->text, sizeof p->text, "Convert %.1f %s to %s.", value, units[from].name,
             p->to->name);

    char prompt[512];
    snprintf(prompt, sizeof prompt,
             "%s Answer with a JSON object {\"value\": <number>, \"unit\": \"<symbol>\"}, "
             "the unit as its symbol (%s for %s). A value within 0.1%% is right.",
             p->text, p->to->symbol, p->to->name);
    char *out = prompt_json(prompt, err);
    if (!out) {
        free(p);
        return NULL;
    }
    rig_task_ctx_set_state(ctx, p);
    atomic_fetch_add(&episodes, 1);
    return out;
}

/* Fill *out as a grade: score, content, info and subscores. */
static int grade_set(rig_grade *out, double score, const char *content, rig_json_writer *info,
                     rig_json_writer *subscores, rig_error *err)
{
    out->score = score;
    out->content = strdup(content);
    out->info_json = info ? rig_json_writer_detach(info, NULL) : NULL;
    out->subscores_json = subscores ? rig_json_writer_detach(subscores, NULL) : NULL;
    if (!out->content || (info && !out->info_json) || (subscores && !out->subscores_json)) {
        rig_grade_clear(out);
        return rig_error_set(err, RIG_ENOMEM, "out of memory writing the grade");
    }
    return 0;
}

static void write_subscore(rig_json_writer *w, const char *name, double weight, double value)
{
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "name");
    rig_json_write_string(w, name);
    rig_json_write_key(w, "weight");
    rig_json_write_double(w, weight);
    rig_json_write_key(w, "value");
    rig_json_write_double(w, value);
    rig_json_write_object_end(w);
}

static int convert_grade(rig_task_ctx *ctx, const rig_answer *answer, rig_grade *out,
                         rig_error *err)
{
    const problem *p = rig_task_ctx_state(ctx);
    double got = NAN;
    bool have_value = answer->parsed &&
                      rig_json_get_double(rig_json_get(answer->content, "value"), &got) == 0;
    bool unit_ok = answer->parsed &&
                   rig_json_str_eq(rig_json_get(answer->content, "unit"), p->to->symbol);
    double tolerance = fabs(p->expected) * 1e-3;
    if (tolerance < 0.01)
        tolerance = 0.01;
    bool value_ok = have_value && fabs(got - p->expected) <= tolerance;

    rig_json_writer info, subs;
    rig_json_writer_init(&info, 0);
    rig_json_writer_init(&subs, 0);
    rig_json_write_object_begin(&info);
    rig_json_write_key(&info, "problem");
    rig_json_write_string(&info, p->text);
    rig_json_write_key(&info, "expected");
    rig_json_write_double(&info, p->expected);
    rig_json_write_key(&info, "unit");
    rig_json_write_string(&info, p->to->symbol);
    rig_json_write_key(&info, "tolerance");
    rig_json_write_double(&info, tolerance);
    rig_json_write_object_end(&info);
    rig_json_write_array_begin(&subs);
    write_subscore(&subs, "value", 0.75, value_ok);
    write_subscore(&subs, "unit", 0.25, unit_ok);
    rig_json_write_array_end(&subs);

    char content[256];
    if (!answer->parsed)
        snprintf(content, sizeof content,
                 "The answer is not an object {\"value\": <number>, \"unit\": \"%s\"}.",
                 p->to->symbol);
    else
        snprintf(content, sizeof content, "value %s (expected %.4g, within %.2g); unit %s (%s)",
                 value_ok ? "right" : "wrong", p->expected, tolerance,
                 unit_ok ? "right" : "wrong", p->to->symbol);
    int rc = grade_set(out, 0.75 * value_ok + 0.25 * unit_ok, content, &info, &subs, err);
    rig_json_writer_free(&info);
    rig_json_writer_free(&subs);
    return rc;
}

static char *arithmetic_start(rig_task_ctx *ctx, rig_json_val args, rig_error *err)
{
    uint64_t seed = (uint64_t)arg_int(args, "seed", 0);
    int64_t terms = arg_int(args, "terms", 4);
    problem *p = calloc(1, sizeof *p);
    if (!p) {
        rig_error_set(err, RIG_ENOMEM, "out of memory");
        return NULL;
    }
    /* The sum of products: "*" binds tighter than "+" and "-". */
    static const char ops[] = "+-*";
    int64_t sum = 0, product = (int64_t)(next_random(&seed) % 20) + 1;
    int sign = 1;
    size_t len = (size_t)snprintf(p->text, sizeof p->text, "What is %d", (int)product);
    for (int64_t i = 1; i < terms; i++) {
        char op = ops[next_random(&seed) % 3];
        int64_t x = (int64_t)(next_random(&seed) % 20) + 1;
        if (op == '*') {
            product *= x;
        } else {
            sum += sign * product;
            sign = op == '+' ? 1 : -1;
            product = x;
        }
        len += (size_t)snprintf(p->text + len, sizeof p->text - len, " %c %d", op, (int)x);
    }
    sum += sign * product;
    snprintf(p->text + len, sizeof p->text - len, "?");
    p->expected = (double)sum;

    char prompt[256];
    snprintf(prompt, sizeof prompt, "%s Answer with the integer alone.", p->text);
    char *out = prompt_json(prompt, err);
    if (!out) {
        free(p);
        return NULL;
    }
    rig_task_ctx_set_state(ctx, p);
    atomic_fetch_add(&episodes, 1);
    return out;
}

static int arithmetic_grade(rig_task_ctx *ctx, const rig_answer *answer, rig_grade *out,
                            rig_error *err)
{
    const problem *p = rig_task_ctx_state(ctx);
    int64_t got = 0;
    bool right = answer->parsed && rig_json_get_int64(answer->content, &got) == 0 &&
                 (double)got == p->expected;
    char content[256];
    snprintf(content, sizeof content, "%s: expected %.0f, got %.80s", right ? "right" : "wrong",
             p->expected, answer->raw ? answer->raw : "");
    return grade_set(out, right, content, NULL, NULL, err);
}

/* Both tasks keep a malloc'd problem. */
static void problem_end(rig_task_ctx *ctx)
{
    free(rig_task_ctx_state(ctx));
    rig_task_ctx_set_state(ctx, NULL);
}

/* ---------------------------------------------------------------- hooks */

/* Publish the conversion table: {"length": ["mm", ...], ...}. A capability
 * is normally a live service (a shell, a browser, MCP tools) with a URL to
 * tunnel to; this one has no server and carries its data in params, which
 * is what a harness reading hello needs. */
static int publish_units(rig_env *env, void *ud, rig_error *err)
{
    (void)ud;
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    for (size_t q = 0; q < N_QUANTITIES; q++) {
        rig_json_write_key(&w, quantities[q].name);
        rig_json_write_array_begin(&w);
        for (size_t i = 0; i < quantities[q].n; i++)
            rig_json_write_string(&w, quantities[q].units[i].symbol);
        rig_json_write_array_end(&w);
    }
    rig_json_write_object_end(&w);
    const char *params = rig_json_writer_finish(&w, NULL);
    int rc = params ? rig_env_add_capability(env,
                                             &(rig_capability){.name = "units",
                                                               .protocol = "rig-units/1",
                                                               .url = "about:units",
                                                               .params_json = params},
                                             err)
                    : rig_error_set(err, RIG_ENOMEM, "out of memory");
    rig_json_writer_free(&w);
    return rc;
}

static int report_episodes(rig_env *env, void *ud, rig_error *err)
{
    (void)env, (void)ud, (void)err;
    fprintf(stderr, "units: %u episodes started\n", atomic_load(&episodes));
    return 0;
}

/* ---------------------------------------------------------------- the env */

static const rig_task_spec tasks[] = {
    {
        .id = "convert",
        .description = "Convert a quantity between units (generated from the seed), "
                       "answering {value, unit}; right within 0.1 %.",
        .args_schema =
            "{\"type\":\"object\",\"properties\":{"
            "\"seed\":{\"type\":\"integer\",\"minimum\":0,\"default\":0,"
            "\"description\":\"Picks the problem; the same seed gives the same one.\"},"
            "\"quantity\":{\"enum\":[\"length\",\"mass\",\"temperature\"],"
            "\"default\":\"length\"}},"
            "\"additionalProperties\":false}",
        .returns_schema =
            "{\"type\":\"object\",\"properties\":{"
            "\"value\":{\"type\":\"number\"},\"unit\":{\"type\":\"string\"}},"
            "\"required\":[\"value\",\"unit\"]}",
        .start = convert_start,
        .grade = convert_grade,
        .end = problem_end,
    },
    {
        .id = "arithmetic",
        .description = "Evaluate an integer expression of + - * (generated from the seed).",
        .args_schema =
            "{\"type\":\"object\",\"properties\":{"
            "\"seed\":{\"type\":\"integer\",\"minimum\":0,\"default\":0},"
            "\"terms\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":8,\"default\":4}},"
            "\"additionalProperties\":false}",
        .returns_schema = "{\"type\":\"integer\"}",
        .start = arithmetic_start,
        .grade = arithmetic_grade,
        .end = problem_end,
    },
};

rig_env *rig_env_plugin_new(rig_error *err)
{
    rig_env *env = rig_env_new("units", "1.0.0", err);
    if (!env)
        return NULL;
    for (size_t i = 0; i < sizeof tasks / sizeof *tasks; i++) {
        if (rig_env_add_task(env, &tasks[i], err) != 0) {
            rig_env_free(env);
            return NULL;
        }
    }
    rig_env_on_initialize(env, publish_units, NULL);
    rig_env_on_shutdown(env, report_episodes, NULL);
    return env;
}
