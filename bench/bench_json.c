/* bench_json.c — rig's JSON layer against jansson and json-c, in one run.
 *
 *   a. the JSON-RPC tools/call round: parse a request, read id, method,
 *      params.name and params.arguments, build and serialise the reply;
 *   b. parse throughput on three generated ~10 MiB documents (records,
 *      string-heavy, number-heavy);
 *   c. writer throughput: escaping a ~10 MiB source-code-like text.
 *
 * Each figure is the median of --runs runs (default 7). The contestants of a
 * benchmark take turns run by run, so drift on a shared machine hits all of
 * them alike. Every output is checked (equal replies, equal tallies of the
 * parsed documents, writer outputs that parse back to the input) outside the
 * timed loops. See README.md beside this file.
 *
 *   bench_json [--runs N] [--only round|parse|write] [--dump DIR]
 *   bench_json --profile SECONDS | --once N
 *
 * --only runs one of the three benchmarks. --profile runs nothing but rig's
 * side of the round for that long, for a profiler (perf record bench_json
 * --profile 5). --once N puts N messages through each peer's round, untimed,
 * for an instruction count under callgrind (see once_round).
 * --dump DIR writes the inputs (requests.ndjson, reply_text.txt, rig's
 * replies.ndjson, records.json, strings.json, numbers.json, source.txt) and,
 * once measured, rig's figures (rig.json) into DIR for json_round.mjs, the
 * Node peer. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "rig/rig.h"

#ifndef BENCH_BUILD
#define BENCH_BUILD "unknown build type"
#endif

#define MB 1e6                        /* throughput is in 10^6 bytes per second */
#define DOC_TARGET ((size_t)10 << 20) /* 10 MiB documents and text */
#define MAX_RUNS BENCH_MAX_RUNS

uint64_t bench_sink;

void bench_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_json: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ------------------------------------------------------------ helpers */

/* splitmix64: a fixed seed gives the same documents on every machine. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint32_t rng_below(rng *r, uint32_t n) { return (uint32_t)(rng_next(r) % n); }

/* [0, 1) with 53 random bits */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_reserve(buf *b, size_t n) {
    if (b->cap - b->len > n)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len <= n)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        bench_die("out of memory");
    b->p = p;
    b->cap = cap;
}

static void buf_put(buf *b, const char *s, size_t n) {
    buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_puts(buf *b, const char *s) { buf_put(b, s, strlen(s)); }
static void buf_putc(buf *b, char c) { buf_put(b, &c, 1); }

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void buf_printf(buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        bench_die("vsnprintf failed");
    buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static bench_text buf_text(const buf *b) { return (bench_text){b->p, b->len}; }

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *pick(rng *r, const char *const *list, size_t n) {
    return list[rng_below(r, (uint32_t)n)];
}
#define PICK(r, list) pick((r), (list), COUNT(list))

/* ------------------------------------------------------------ inputs */

/* The request of benchmark a, in 16 variants (ids 42..57) cycled through. */
#define NMSGS 16

static void gen_requests(buf *store, bench_text *msgs) {
    size_t offs[NMSGS];
    for (int k = 0; k < NMSGS; k++) {
        offs[k] = store->len;
        buf_printf(store,
                   "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"read_file\",\"arguments\":{\"path\":\"src/main.c\",\"offset\":120,\"limit\":40},"
                   "\"_meta\":{\"progressToken\":\"t-%d\"}}}",
                   42 + k, 42 + k);
        buf_putc(store, '\0'); /* each message NUL-terminated, for the peers that like it */
    }
    for (int k = 0; k < NMSGS; k++) {
        size_t end = k + 1 < NMSGS ? offs[k + 1] - 1 : store->len - 1;
        msgs[k] = (bench_text){store->p + offs[k], end - offs[k]};
    }
}

/* The text of the reply: ~100 bytes of a file with a newline, quotes, a
 * backslash and a slash in it. */
static const char k_reply_text[] = "120:\tprintf(\"read %zu bytes from %s\\n\", n, path);\n"
                                   "121:\treturn n > 0 ? 0 : -1; /* done */";

static const char *const k_words[] = {
    "the",     "of",      "and",      "to",      "in",       "is",       "for",     "that",
    "with",    "as",      "on",       "by",      "parser",   "value",    "string",  "buffer",
    "token",   "memory",  "agent",    "tool",    "call",     "result",   "error",   "message",
    "request", "server",  "client",   "stream",  "frame",    "schema",   "object",  "array",
    "number",  "quickly", "returns",  "reads",   "writes",   "each",     "every",   "when",
    "while",   "because", "although", "model",   "context",  "window",   "cache",   "latency",
    "a",       "an",      "it",       "this",    "document", "function", "library", "runtime",
};

static const char *const k_utf8_words[] = {
    "café", "naïve", "résumé", "Zürich", "façade", "déjà", "straße", "Ελλάδα", "Привет",
    "中文", "日本語", "한국어", "北京",   "🙂",     "🚀",   "👍",     "naïveté", "crème brûlée",
};

/* (1) an array of records with 8 keys each */
static void gen_records(buf *b, rng *r, size_t target) {
    static const char *const first[] = {"Alice", "Bob",   "Carol", "Dave",  "Erin",  "Frank",
                                        "Grace", "Heidi", "Ivan",  "Judy",  "Mallory", "Niaj",
                                        "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor"};
    static const char *const last[] = {"Smith",  "Jones",  "Taylor", "Brown", "Williams",
                                       "Wilson", "Johnson", "Davies", "Robinson", "Wright",
                                       "Thompson", "Evans", "Walker", "White", "Roberts"};
    static const char *const cities[] = {"Springfield", "Riverside", "Franklin", "Greenville",
                                         "Bristol",     "Clinton",   "Fairview", "Salem",
                                         "Madison",     "Georgetown", "Arlington", "Ashland"};
    static const char *const streets[] = {"Main Street", "Oak Avenue", "Pine Road", "Maple Lane",
                                          "Cedar Court", "Elm Street", "Lake View", "Hill Drive"};
    static const char *const tags[] = {"admin", "beta",  "staff",   "trial",  "vip",
                                       "ops",   "infra", "billing", "mobile", "web"};
    buf_puts(b, "[\n");
    for (uint32_t id = 1; b->len < target; id++) {
        if (id > 1)
            buf_puts(b, ",\n");
        const char *fn = PICK(r, first), *ln = PICK(r, last);
        buf_printf(b,
                   "{\"id\":%u,\"name\":\"%s %s\",\"email\":\"%s.%s%u@example.com\",\"active\":%s,"
                   "\"balance\":%.2f,\"age\":%u,\"tags\":[",
                   id, fn, ln, fn, ln, rng_below(r, 100), rng_below(r, 4) ? "true" : "false",
                   rng_unit(r) * 20000.0 - 1000.0, 18 + rng_below(r, 70));
        uint32_t nt = rng_below(r, 4);
        for (uint32_t i = 0; i < nt; i++)
            buf_printf(b, "%s\"%s\"", i ? "," : "", PICK(r, tags));
        buf_printf(b,
                   "],\"address\":{\"street\":\"%u %s\",\"city\":\"%s\",\"zip\":\"%05u\","
                   "\"geo\":{\"lat\":%.6f,\"lon\":%.6f}}}",
                   1 + rng_below(r, 9999), PICK(r, streets), PICK(r, cities), rng_below(r, 100000),
                   rng_unit(r) * 180.0 - 90.0, rng_unit(r) * 360.0 - 180.0);
    }
    buf_puts(b, "\n]\n");
}

/* (2) an array of long strings: prose, some escapes, some non-ASCII */
static void gen_strings(buf *b, rng *r, size_t target) {
    static const char *const seps[] = {" ", " ", " ", " ", " ", " ", ", ", ". ", "; ", " - "};
    buf_putc(b, '[');
    for (bool first = true; b->len < target; first = false) {
        if (!first)
            buf_puts(b, ",\n");
        buf_putc(b, '"');
        size_t start = b->len, n = 100 + rng_below(r, 3900);
        while (b->len - start < n) {
            uint32_t x = rng_below(r, 1000);
            if (x < 25)
                buf_puts(b, "\\n");
            else if (x < 40)
                buf_puts(b, "\\\"");
            else if (x < 47)
                buf_puts(b, "\\\\");
            else if (x < 52)
                buf_puts(b, "\\t");
            else if (x < 54)
                buf_puts(b, "\\u00e9");
            else if (x < 55)
                buf_puts(b, "\\ud83d\\ude80");
            else if (x < 100)
                buf_puts(b, PICK(r, k_utf8_words));
            else
                buf_puts(b, PICK(r, k_words));
            buf_puts(b, PICK(r, seps));
        }
        buf_putc(b, '"');
    }
    buf_puts(b, "]\n");
}

static double pow10_int(int e) {
    double p = 1;
    for (int i = 0; i < (e < 0 ? -e : e); i++)
        p *= 10;
    return e < 0 ? 1 / p : p;
}

/* (3) rows of numbers: ids, timestamps, coordinates with 6 decimals,
 * altitudes, counts, and in a third of the rows a number with an exponent */
static void gen_numbers(buf *b, rng *r, size_t target) {
    buf_puts(b, "[\n");
    for (uint32_t i = 0; b->len < target; i++) {
        if (i)
            buf_puts(b, ",\n");
        buf_printf(b, "[%u,%u,%.6f,%.6f,%.2f,%d,", rng_below(r, 1000000), 1700000000u + i * 37u,
                   rng_unit(r) * 360.0 - 180.0, rng_unit(r) * 180.0 - 90.0,
                   rng_unit(r) * 4000.0 - 100.0, (int)rng_below(r, 2001) - 1000);
        if (i % 3 == 0) {
            double m = 1.0 + rng_unit(r) * 9.0;
            int e = (int)rng_below(r, 61) - 30;
            buf_printf(b, "%.6e]", (rng_below(r, 2) ? m : -m) * pow10_int(e));
        } else {
            buf_printf(b, "%u]", rng_below(r, 100000));
        }
    }
    buf_puts(b, "\n]\n");
}

/* (c) source-code-like text: tabs, quotes, backslashes, newlines, UTF-8 */
static void gen_source(buf *b, rng *r, size_t target) {
    static const char *const idents[] = {"buf",   "len",  "path",  "name",   "count", "offset",
                                         "limit", "node", "value", "result", "state", "frame"};
    static const char *const headers[] = {"stdio", "stdlib", "string", "stdint", "errno", "unistd"};
    while (b->len < target) {
        const char *a = PICK(r, idents), *c = PICK(r, idents);
        switch (rng_below(r, 12)) {
        case 0:
            buf_printf(b, "#include <%s.h>\n", PICK(r, headers));
            break;
        case 1:
            buf_printf(b, "\n/* %s: parse the \"%s\" field; returns -1 on error */\n", a, c);
            break;
        case 2:
            buf_printf(b, "static int read_%s(const char *s, size_t %s) {\n", a, c);
            break;
        case 3:
            buf_printf(b, "\tif (%s == 0 || s[0] != '\"')\n\t\treturn -1;\n", a);
            break;
        case 4:
            buf_printf(b, "\tprintf(\"%%s: %%zu bytes\\n\", \"%s\", %s);\n", a, c);
            break;
        case 5:
            buf_printf(b, "\tconst char *sep = \"\\\\\"; // Windows path separator for %s\n", a);
            break;
        case 6:
            buf_printf(b, "\tchar %s[%u] = \"tab\\there \\\"quoted\\\"\";\n", a, 16 + rng_below(r, 240));
            break;
        case 7:
            buf_printf(b, "\t// %s %s %s — %s\n", PICK(r, k_utf8_words), PICK(r, k_words),
                       PICK(r, k_utf8_words), a);
            break;
        case 8:
            buf_printf(b, "\tfor (size_t i = 0; i < %s; i++) {\n\t\t%s += s[i] * %u;\n\t}\n", a, c,
                       rng_below(r, 1000));
            break;
        case 9:
            buf_printf(b, "\treturn %s(%s);\n}\n", a, c);
            break;
        case 10:
            buf_printf(b, "\tmatch = regex(\"^[a-z]+\\\\.(c|h)$\", %s);\n", a);
            break;
        default:
            buf_printf(b, "\t%s = %s->%s + %u;\n", a, c, a, rng_below(r, 100));
            break;
        }
    }
}

/* ------------------------------------------------------------ rig */

typedef struct rig_round_state {
    rig_json_doc *doc;
    rig_json_writer w;
} rig_round_state;

/* The three steps of one message, separate so that bench_round can also time
 * them one by one (where rig's time goes). */

/* Reads what a tools/call handler needs; the id's raw text for the reply. */
static void rig_read(const rig_json_doc *doc, const char **id, size_t *idlen) {
    rig_json_val root = rig_json_doc_root(doc);
    *id = rig_json_raw(rig_json_get(root, "id"), idlen);
    if (!*id || !rig_json_str_eq(rig_json_get(root, "method"), "tools/call"))
        bench_die("rig: not a tools/call");
    rig_json_val params = rig_json_get(root, "params");
    rig_json_val name = rig_json_get(params, "name");
    if (!rig_json_str_eq(name, "read_file"))
        bench_die("rig: unexpected tool");
    rig_json_val args = rig_json_get(params, "arguments");
    const char *path;
    size_t pathlen;
    char pathbuf[4096];
    int64_t offset, limit;
    rig_json_val pv = rig_json_get(args, "path");
    if (!rig_json_str_view(pv, &path, &pathlen)) { /* escaped: decode a copy */
        if (rig_json_str_copy(pv, pathbuf, sizeof pathbuf, &pathlen) != 0)
            bench_die("rig: bad path");
        path = pathbuf;
    }
    if (rig_json_get_int64(rig_json_get(args, "offset"), &offset) != 0 ||
        rig_json_get_int64(rig_json_get(args, "limit"), &limit) != 0)
        bench_die("rig: bad arguments");
    bench_sink += rig_json_str_len(name) + pathlen + (uint64_t)offset + (uint64_t)limit +
                  (unsigned char)path[0];
}

/* Writes the reply into the reused writer, which keeps owning it. */
static const char *rig_reply(rig_json_writer *w, const bench_text *text, const char *id,
                             size_t idlen, size_t *outlen) {
    rig_json_writer_reset(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "jsonrpc");
    rig_json_write_string(w, "2.0");
    rig_json_write_key(w, "id");
    rig_json_write_raw(w, id, idlen);
    rig_json_write_key(w, "result");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "content");
    rig_json_write_array_begin(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "type");
    rig_json_write_string(w, "text");
    rig_json_write_key(w, "text");
    rig_json_write_stringn(w, text->p, text->len);
    rig_json_write_object_end(w);
    rig_json_write_array_end(w);
    rig_json_write_key(w, "isError");
    rig_json_write_bool(w, false);
    rig_json_write_object_end(w);
    rig_json_write_object_end(w);
    const char *out = rig_json_writer_finish(w, outlen); /* errors are sticky: one check */
    if (!out)
        bench_die("rig: writer error %s", rig_json_strerror(rig_json_writer_error(w)));
    return out;
}

static void rig_parse_msg(rig_json_doc *doc, const bench_text *m) {
    rig_json_error err;
    if (rig_json_doc_parse(doc, m->p, m->len, NULL, &err) != 0)
        bench_die("rig: request rejected: %s", err.reason);
}

/* One message: parse into the reused document, read, write the reply into
 * the reused writer. The reply stays owned by the writer. */
static const char *rig_round_one(rig_round_state *s, const bench_text *text, const bench_text *m,
                                 size_t *outlen) {
    rig_parse_msg(s->doc, m);
    const char *id;
    size_t idlen;
    rig_read(s->doc, &id, &idlen);
    return rig_reply(&s->w, text, id, idlen, outlen);
}

static void rig_round(void *ctx, long reps) {
    const round_ctx *c = ctx;
    size_t k = 0;
    for (long r = 0; r < reps; r++) {
        size_t len;
        const char *out = rig_round_one(c->state, &c->text, &c->msgs[k], &len);
        bench_sink += len + (unsigned char)out[len / 2];
        if (++k == c->nmsgs)
            k = 0;
    }
}

/* the steps alone: parse only; read only (document parsed once); reply only */
static void rig_step_parse(void *ctx, long reps) {
    const round_ctx *c = ctx;
    rig_round_state *s = c->state;
    size_t k = 0;
    for (long r = 0; r < reps; r++) {
        rig_parse_msg(s->doc, &c->msgs[k]);
        bench_sink += rig_json_doc_size(s->doc);
        if (++k == c->nmsgs)
            k = 0;
    }
}

static void rig_step_read(void *ctx, long reps) {
    const round_ctx *c = ctx;
    rig_round_state *s = c->state;
    rig_parse_msg(s->doc, &c->msgs[0]);
    for (long r = 0; r < reps; r++) {
        const char *id;
        size_t idlen;
        rig_read(s->doc, &id, &idlen);
        bench_sink += idlen;
    }
}

static void rig_step_reply(void *ctx, long reps) {
    const round_ctx *c = ctx;
    rig_round_state *s = c->state;
    for (long r = 0; r < reps; r++) {
        size_t len;
        const char *out = rig_reply(&s->w, &c->text, "42", 2, &len);
        bench_sink += len + (unsigned char)out[len / 2];
    }
}

/* parse into one document, reused: the steady state, no allocation */
static void rig_parse_reused(void *ctx, long reps) {
    const parse_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        rig_json_error err;
        if (rig_json_doc_parse(c->state, c->doc.p, c->doc.len, NULL, &err) != 0)
            bench_die("rig: document rejected at byte %zu: %s", err.offset, err.reason);
        bench_sink += rig_json_doc_size(c->state);
    }
}

/* a new document for each parse, freed after: what jansson and json-c do */
static void rig_parse_fresh(void *ctx, long reps) {
    const parse_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        rig_json_error err;
        rig_json_doc *d = rig_json_parse(c->doc.p, c->doc.len, NULL, &err);
        if (!d)
            bench_die("rig: document rejected at byte %zu: %s", err.offset, err.reason);
        bench_sink += rig_json_doc_size(d);
        rig_json_doc_free(d);
    }
}

static void rig_walk(rig_json_val v, tally *t) {
    t->values++;
    switch (rig_json_typeof(v)) {
    case RIG_JSON_INT:
    case RIG_JSON_DOUBLE: {
        double d = 0;
        rig_json_get_double(v, &d);
        t->numbers++;
        t->numsum += d;
        break;
    }
    case RIG_JSON_STRING:
        t->strings++;
        t->str_bytes += rig_json_str_len(v);
        break;
    case RIG_JSON_ARRAY: {
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val e;
        while (rig_json_iter_next(&it, &e))
            rig_walk(e, t);
        break;
    }
    case RIG_JSON_OBJECT: {
        rig_json_iter it = rig_json_iter_init(v);
        rig_json_val k, e;
        while (rig_json_iter_member(&it, &k, &e)) {
            t->keys++;
            rig_walk(e, t);
        }
        break;
    }
    default:
        break;
    }
}

static int rig_tally(bench_text doc, tally *t) {
    rig_json_doc *d = rig_json_parse(doc.p, doc.len, NULL, NULL);
    if (!d)
        return -1;
    memset(t, 0, sizeof *t);
    rig_walk(rig_json_doc_root(d), t);
    rig_json_doc_free(d);
    return 0;
}

/* escape into one writer, reused (its buffer stays grown) */
static void rig_write_reused(void *ctx, long reps) {
    const write_ctx *c = ctx;
    rig_json_writer *w = c->state;
    for (long r = 0; r < reps; r++) {
        rig_json_writer_reset(w);
        rig_json_write_stringn(w, c->text.p, c->text.len);
        size_t len;
        const char *out = rig_json_writer_finish(w, &len);
        if (!out)
            bench_die("rig: writer failed");
        bench_sink += len + (unsigned char)out[1];
    }
}

/* a new writer each time, its buffer grown from nothing and freed */
static void rig_write_fresh(void *ctx, long reps) {
    const write_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        rig_json_writer w;
        rig_json_writer_init(&w, 0);
        rig_json_write_stringn(&w, c->text.p, c->text.len);
        size_t len;
        const char *out = rig_json_writer_finish(&w, &len);
        if (!out)
            bench_die("rig: writer failed");
        bench_sink += len + (unsigned char)out[1];
        rig_json_writer_free(&w);
    }
}

/* ------------------------------------------------------------ harness */

typedef bench_contestant contestant;

#define CONTESTANT(n, f, c) {.name = (n), .fn = (f), .ctx = (c)}

static int g_runs = 7;

static void race(contestant *cs, int n, double target, long min_reps, long max_reps) {
    bench_race(cs, n, g_runs, target, min_reps, max_reps);
}

/* spread of the runs around the median, in percent (half the range) */
static double spread(const contestant *c) { return 50.0 * (c->max - c->min) / c->med; }

/* One line on how much of the CPU the timed runs had. */
static void print_cpu_share(const contestant *cs, int n) {
    double lo = 1e9;
    for (int i = 0; i < n; i++)
        if (cs[i].cpu_share < lo)
            lo = cs[i].cpu_share;
    printf("CPU share of the timed runs (process CPU time / wall time), lowest contestant: "
           "%.0f%%%s\n\n",
           100 * lo,
           lo < 0.9 ? " -- **the machine was busy: wall-clock figures are inflated; see the CPU-time "
                      "figures**"
                    : "");
}

/* ------------------------------------------------------------ machine */

static void print_machine(void) {
    bench_print_machine("rig JSON benchmark");
    printf("| jansson | %s (Debian package, shared) |\n", peer_jansson_version());
    printf("| json-c | %s (Debian package, shared) |\n", peer_jsonc_version());
    printf("| load average at start | %s |\n", bench_loadavg());
    printf("| method | median of %d runs; contestants take turns run by run |\n\n", g_runs);
}

/* ------------------------------------------------------------ figures for Node */

typedef struct figures {
    double round_ns, round_cpu_ns;
    struct {
        const char *name;
        size_t bytes;
        double reused_mbps, fresh_mbps, fresh_cpu_mbps;
        tally t;
    } docs[3];
    double write_mbps, write_cpu_mbps;
    size_t write_out_len;
} figures;

static void write_file(const char *dir, const char *name, const char *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        bench_die("cannot write %s: %s", path, strerror(errno));
}

static void write_tally(rig_json_writer *w, const tally *t) {
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "values");
    rig_json_write_uint(w, t->values);
    rig_json_write_key(w, "keys");
    rig_json_write_uint(w, t->keys);
    rig_json_write_key(w, "strings");
    rig_json_write_uint(w, t->strings);
    rig_json_write_key(w, "str_bytes");
    rig_json_write_uint(w, t->str_bytes);
    rig_json_write_key(w, "numbers");
    rig_json_write_uint(w, t->numbers);
    rig_json_write_key(w, "numsum");
    rig_json_write_double(w, t->numsum);
    rig_json_write_object_end(w);
}

static void dump_figures(const char *dir, const figures *fg) {
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "runs");
    rig_json_write_int(&w, g_runs);
    rig_json_write_key(&w, "round_ns");
    rig_json_write_double(&w, fg->round_ns);
    rig_json_write_key(&w, "round_cpu_ns");
    rig_json_write_double(&w, fg->round_cpu_ns);
    rig_json_write_key(&w, "parse");
    rig_json_write_object_begin(&w);
    for (int i = 0; i < 3; i++) {
        rig_json_write_key(&w, fg->docs[i].name);
        rig_json_write_object_begin(&w);
        rig_json_write_key(&w, "bytes");
        rig_json_write_uint(&w, fg->docs[i].bytes);
        rig_json_write_key(&w, "mbps_reused");
        rig_json_write_double(&w, fg->docs[i].reused_mbps);
        rig_json_write_key(&w, "mbps_fresh");
        rig_json_write_double(&w, fg->docs[i].fresh_mbps);
        rig_json_write_key(&w, "cpu_mbps_fresh");
        rig_json_write_double(&w, fg->docs[i].fresh_cpu_mbps);
        rig_json_write_key(&w, "tally");
        write_tally(&w, &fg->docs[i].t);
        rig_json_write_object_end(&w);
    }
    rig_json_write_object_end(&w);
    rig_json_write_key(&w, "write_mbps");
    rig_json_write_double(&w, fg->write_mbps);
    rig_json_write_key(&w, "write_cpu_mbps");
    rig_json_write_double(&w, fg->write_cpu_mbps);
    rig_json_write_key(&w, "write_out_len");
    rig_json_write_uint(&w, fg->write_out_len);
    rig_json_write_object_end(&w);
    size_t len;
    const char *out = rig_json_writer_finish(&w, &len);
    if (!out)
        bench_die("rig: cannot write the figures");
    write_file(dir, "rig.json", out, len);
    rig_json_writer_free(&w);
}

/* ------------------------------------------------------------ a. the round */

static void bench_round(const bench_text *msgs, figures *fg) {
    bench_text text = {k_reply_text, sizeof k_reply_text - 1};
    rig_round_state rs;
    rs.doc = rig_json_doc_new();
    if (!rs.doc)
        bench_die("out of memory");
    rig_json_writer_init(&rs.w, 0);
    void *tok = peer_jsonc_tokener_new();
    round_ctx rig_c = {msgs, NMSGS, text, &rs};
    round_ctx plain_c = {msgs, NMSGS, text, NULL};
    round_ctx jsonc_c = {msgs, NMSGS, text, tok};

    /* the replies must be identical, byte for byte */
    int mismatches = 0;
    for (size_t i = 0; i < NMSGS; i++) {
        size_t len;
        const char *want = rig_round_one(&rs, &text, &msgs[i], &len);
        char *got[3] = {peer_jansson_round_once(&plain_c, i, 0),
                        peer_jansson_round_once(&plain_c, i, 1), peer_jsonc_round_once(&jsonc_c, i)};
        static const char *const peer[3] = {"jansson (set_new)", "jansson (pack)", "json-c"};
        for (int k = 0; k < 3; k++) {
            if (strlen(got[k]) != len || memcmp(got[k], want, len) != 0) {
                if (!mismatches++)
                    fprintf(stderr, "reply %zu differs:\n rig: %s\n %s: %s\n", i, want,
                            peer[k], got[k]);
            }
            free(got[k]);
        }
        if (i == 0) {
            printf("## a. JSON-RPC tools/call round\n\n");
            printf("Per message: parse the request, read `id`, `method`, `params.name` and "
                   "`params.arguments` (`path`, `offset`, `limit`), build and serialise the "
                   "reply. Request (%zu bytes, 16 variants with ids 42..57 cycled):\n\n",
                   msgs[0].len);
            printf("    %.*s\n\nReply (%zu bytes):\n\n    %s\n\n", (int)msgs[0].len, msgs[0].p,
                   len, want);
        }
    }
    printf("Replies of all peers byte-identical: %s\n\n",
           mismatches ? "**NO** (see stderr)" : "yes");

    contestant cs[] = {
        CONTESTANT("rig (reused doc + writer)", rig_round, &rig_c),
        CONTESTANT("jansson (json_object_set_new)", peer_jansson_round, &plain_c),
        CONTESTANT("jansson (json_pack)", peer_jansson_round_pack, &plain_c),
        CONTESTANT("json-c (reused tokener)", peer_jsonc_round, &jsonc_c),
    };
    int n = (int)COUNT(cs);
    race(cs, n, 0.3, 20000, 1000000);

    printf("| peer | ns/message (median) | min - max | CPU ns/message (median) | messages/run | "
           "time vs rig (wall, CPU) |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; i++)
        printf("| %s | %.0f | %.0f - %.0f | %.0f | %ld | %.1fx, %.1fx |\n", cs[i].name,
               cs[i].med * 1e9, cs[i].min * 1e9, cs[i].max * 1e9, cs[i].cmed * 1e9, cs[i].reps,
               cs[i].med / cs[0].med, cs[i].cmed / cs[0].cmed);
    printf("\n");
    print_cpu_share(cs, n);
    double rig_us = cs[0].med * 1e6, rig_cpu_us = cs[0].cmed * 1e6;
    double vs_jansson = cs[1].med / cs[0].med, vs_jansson_cpu = cs[1].cmed / cs[0].cmed;
    printf("Goal rig <= 0.25 us/message: %.3f us wall-clock (%s), %.3f us CPU time (%s). "
           "Goal >= 10x faster than jansson (json_object_set_new): %.1fx wall-clock (%s), %.1fx "
           "CPU time (%s). json-c/rig: %.1fx wall-clock, %.1fx CPU time.\n\n",
           rig_us, rig_us <= 0.25 ? "met" : "**missed**", rig_cpu_us,
           rig_cpu_us <= 0.25 ? "met" : "**missed**", vs_jansson,
           vs_jansson >= 10 ? "met" : "**missed**", vs_jansson_cpu,
           vs_jansson_cpu >= 10 ? "met" : "**missed**", cs[3].med / cs[0].med,
           cs[3].cmed / cs[0].cmed);
    fg->round_ns = cs[0].med * 1e9;
    fg->round_cpu_ns = cs[0].cmed * 1e9;

    contestant steps[] = {
        CONTESTANT("parse the request (rig_json_doc_parse, reused doc)", rig_step_parse, &rig_c),
        CONTESTANT("read id, method, name, arguments (8 lookups)", rig_step_read, &rig_c),
        CONTESTANT("write the reply (20 writer calls, reused writer)", rig_step_reply, &rig_c),
    };
    race(steps, 3, 0.2, 20000, 1000000);
    printf("Where rig's time goes (each step alone, same harness; the sum can differ from the "
           "round a little):\n\n| rig step | ns/message (median) | min - max | CPU ns/message "
           "(median) |\n|---|---:|---:|---:|\n");
    for (int i = 0; i < 3; i++)
        printf("| %s | %.0f | %.0f - %.0f | %.0f |\n", steps[i].name, steps[i].med * 1e9,
               steps[i].min * 1e9, steps[i].max * 1e9, steps[i].cmed * 1e9);
    printf("\n");
    print_cpu_share(steps, 3);

    rig_json_doc_free(rs.doc);
    rig_json_writer_free(&rs.w);
    peer_jsonc_tokener_free(tok);
}

/* --profile: rig's side of the round alone, for a profiler */
static void profile_rig_round(const bench_text *msgs, double seconds) {
    rig_round_state rs = {rig_json_doc_new(), {0}};
    if (!rs.doc)
        bench_die("out of memory");
    rig_json_writer_init(&rs.w, 0);
    round_ctx c = {msgs, NMSGS, {k_reply_text, sizeof k_reply_text - 1}, &rs};
    long reps = 0, chunk = 100000;
    double t0 = bench_now_s(), c0 = bench_cpu_s(), t;
    while ((t = bench_now_s() - t0) < seconds) {
        rig_round(&c, chunk);
        reps += chunk;
    }
    double cpu = bench_cpu_s() - c0;
    printf("rig round alone: %ld messages in %.2f s, %.0f ns/message (CPU time: %.0f ns/message)\n",
           reps, t, t / (double)reps * 1e9, cpu / (double)reps * 1e9);
    rig_json_doc_free(rs.doc);
    rig_json_writer_free(&rs.w);
}

/* --once N: each contestant of the round does N messages, untimed, for an
 * instruction count: valgrind --tool=callgrind bench_json --once 100000, then
 * callgrind_annotate --inclusive=yes: the cost of rig_round,
 * peer_jansson_round, peer_jansson_round_pack and peer_jsonc_round over N. */
static void once_round(const bench_text *msgs, long n) {
    bench_text text = {k_reply_text, sizeof k_reply_text - 1};
    rig_round_state rs = {rig_json_doc_new(), {0}};
    if (!rs.doc)
        bench_die("out of memory");
    rig_json_writer_init(&rs.w, 0);
    void *tok = peer_jsonc_tokener_new();
    round_ctx rig_c = {msgs, NMSGS, text, &rs}, plain_c = {msgs, NMSGS, text, NULL},
              jsonc_c = {msgs, NMSGS, text, tok};
    rig_round(&rig_c, n);
    peer_jansson_round(&plain_c, n);
    peer_jansson_round_pack(&plain_c, n);
    peer_jsonc_round(&jsonc_c, n);
    printf("%ld messages each through rig_round, peer_jansson_round, peer_jansson_round_pack, "
           "peer_jsonc_round\n", n);
    rig_json_doc_free(rs.doc);
    rig_json_writer_free(&rs.w);
    peer_jsonc_tokener_free(tok);
}

/* ------------------------------------------------------------ b. parsing */

static bool tally_eq(const tally *a, const tally *b) {
    return a->values == b->values && a->keys == b->keys && a->strings == b->strings &&
           a->str_bytes == b->str_bytes && a->numbers == b->numbers && a->numsum == b->numsum;
}

static void print_tally(const char *who, const tally *t) {
    printf("  %s: %llu values, %llu keys, %llu strings (%llu bytes decoded), %llu numbers "
           "(sum %.17g)\n",
           who, (unsigned long long)t->values, (unsigned long long)t->keys,
           (unsigned long long)t->strings, (unsigned long long)t->str_bytes,
           (unsigned long long)t->numbers, t->numsum);
}

static void bench_parse(const bench_text *docs, const char *const *names, figures *fg) {
    printf("## b. Parse throughput\n\n");
    printf("Full parse of each document into the library's document/tree, then free "
           "(rig fresh: rig_json_parse + rig_json_doc_free; rig reused: rig_json_doc_parse "
           "into one document kept across parses, the steady state with no allocation). "
           "MB/s = 10^6 input bytes per second.\n\n");
    static const char head[] =
        "| document | size | rig reused MB/s | rig fresh MB/s | jansson MB/s | json-c MB/s | "
        "rig/jansson (reused, fresh) | rig/json-c (reused, fresh) |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|\n";
    static const char row[] = "| %s | %.1f MB | %.0f | %.0f | %.0f | %.0f | %.1fx, %.1fx | "
                              "%.1fx, %.1fx |\n";
    char wall_t[2048], cpu_t[2048], goals[1024];
    size_t wl = 0, cl = 0, gl = 0;
    wl += (size_t)snprintf(wall_t + wl, sizeof wall_t - wl, "%s", head);
    cl += (size_t)snprintf(cpu_t + cl, sizeof cpu_t - cl, "%s", head);
    goals[0] = '\0';
    double max_spread = 0, min_share = 1e9;
    printf("Sanity check (each parser's document walked after parsing):\n\n```\n");
    for (int d = 0; d < 3; d++) {
        tally tr, tj, tc;
        if (rig_tally(docs[d], &tr) != 0 || peer_jansson_tally(docs[d], &tj) != 0 ||
            peer_jsonc_tally(docs[d], &tc) != 0)
            bench_die("a parser rejected document %s", names[d]);
        bool same = tally_eq(&tr, &tj) && tally_eq(&tr, &tc);
        printf("%s (%zu bytes): %s\n", names[d], docs[d].len,
               same ? "rig, jansson and json-c agree" : "MISMATCH");
        print_tally("rig    ", &tr);
        if (!same) {
            print_tally("jansson", &tj);
            print_tally("json-c ", &tc);
        }
        fg->docs[d].t = tr;

        rig_json_doc *doc = rig_json_doc_new();
        void *tok = peer_jsonc_tokener_new();
        if (!doc)
            bench_die("out of memory");
        parse_ctx rig_reused = {docs[d], doc}, plain = {docs[d], NULL}, jsonc = {docs[d], tok};
        contestant cs[] = {
            CONTESTANT("rig reused", rig_parse_reused, &rig_reused),
            CONTESTANT("rig fresh", rig_parse_fresh, &plain),
            CONTESTANT("jansson", peer_jansson_parse, &plain),
            CONTESTANT("json-c", peer_jsonc_parse, &jsonc),
        };
        race(cs, (int)COUNT(cs), 0.2, 1, 1000);
        double m[4], c[4], mb = (double)docs[d].len / MB;
        for (int i = 0; i < 4; i++) {
            if (cs[i].cpu_share < min_share)
                min_share = cs[i].cpu_share;
            if (spread(&cs[i]) > max_spread)
                max_spread = spread(&cs[i]);
            m[i] = mb / cs[i].med;
            c[i] = mb / cs[i].cmed;
        }
        wl += (size_t)snprintf(wall_t + wl, sizeof wall_t - wl, row, names[d], mb, m[0], m[1],
                               m[2], m[3], m[0] / m[2], m[1] / m[2], m[0] / m[3], m[1] / m[3]);
        cl += (size_t)snprintf(cpu_t + cl, sizeof cpu_t - cl, row, names[d], mb, c[0], c[1], c[2],
                               c[3], c[0] / c[2], c[1] / c[2], c[0] / c[3], c[1] / c[3]);
        gl += (size_t)snprintf(goals + gl, sizeof goals - gl, "%s%s %.1fx (CPU time %.1fx)%s",
                               d ? "; " : "", names[d], m[1] / m[2], c[1] / c[2],
                               m[1] / m[2] >= 8 && c[1] / c[2] >= 8 ? "" : " **missed**");
        fg->docs[d].name = names[d];
        fg->docs[d].bytes = docs[d].len;
        fg->docs[d].reused_mbps = m[0];
        fg->docs[d].fresh_mbps = m[1];
        fg->docs[d].fresh_cpu_mbps = c[1];
        rig_json_doc_free(doc);
        peer_jsonc_tokener_free(tok);
    }
    printf("```\n\nWall clock:\n\n%s\nThe same runs by CPU time:\n\n%s\n", wall_t, cpu_t);
    printf("Goal rig >= 8x jansson's MB/s (fresh document, the like-for-like figure): %s.\n"
           "Largest spread of any wall-clock figure: +-%.0f%% around its median.\n",
           goals, max_spread);
    printf("CPU share of the timed runs (process CPU time / wall time), lowest contestant: "
           "%.0f%%%s\n\n",
           100 * min_share,
           min_share < 0.9 ? " -- **the machine was busy: wall-clock figures are inflated; see the "
                             "CPU-time figures**"
                           : "");
}

/* ------------------------------------------------------------ c. writing */

static void bench_write(bench_text text, figures *fg) {
    printf("## c. Writer throughput\n\n");
    printf("Escaping one %.1f MB source-code-like text (tabs, newlines, quotes, backslashes, "
           "UTF-8) into a JSON string: rig_json_write_stringn vs jansson json_dumps of a "
           "prebuilt json_stringn (JSON_ENCODE_ANY) vs json-c "
           "json_object_to_json_string_length of a json_object_new_string_len. MB/s = 10^6 "
           "input bytes per second.\n\n",
           (double)text.len / MB);
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    void *js = peer_jansson_write_prepare(text), *jc = peer_jsonc_write_prepare(text);

    /* outputs: compared byte for byte, and each parsed back by rig */
    size_t lens[3];
    char *outs[3];
    rig_json_write_stringn(&w, text.p, text.len);
    const char *r = rig_json_writer_finish(&w, &lens[0]);
    if (!r)
        bench_die("rig: writer failed");
    outs[0] = malloc(lens[0] + 1);
    if (!outs[0])
        bench_die("out of memory");
    memcpy(outs[0], r, lens[0] + 1);
    outs[1] = peer_jansson_write_once(js, &lens[1]);
    outs[2] = peer_jsonc_write_once(jc, &lens[2]);
    const char *who[3] = {"rig", "jansson", "json-c"};
    bool identical = true;
    printf("Outputs: ");
    for (int i = 0; i < 3; i++) {
        if (lens[i] != lens[0] || memcmp(outs[i], outs[0], lens[0]) != 0)
            identical = false;
        rig_json_options big = {.max_size = 64u << 20};
        rig_json_doc *d = rig_json_parse(outs[i], lens[i], &big, NULL);
        bool back = d && rig_json_str_eqn(rig_json_doc_root(d), text.p, text.len);
        rig_json_doc_free(d);
        printf("%s %zu bytes, %s; ", who[i], lens[i],
               back ? "parses back to the input" : "**does not parse back to the input**");
    }
    printf("byte-identical: %s.\n\n", identical ? "yes" : "**no**");
    fg->write_out_len = lens[0];
    for (int i = 0; i < 3; i++)
        free(outs[i]);

    write_ctx reused = {text, &w}, plain = {text, NULL}, jansson = {text, js}, jsonc = {text, jc};
    contestant cs[] = {
        CONTESTANT("rig (reused writer)", rig_write_reused, &reused),
        CONTESTANT("rig (fresh writer)", rig_write_fresh, &plain),
        CONTESTANT("jansson json_dumps", peer_jansson_write, &jansson),
        CONTESTANT("json-c to_json_string", peer_jsonc_write, &jsonc),
    };
    int n = (int)COUNT(cs);
    race(cs, n, 0.2, 1, 1000);
    printf("| peer | MB/s (median) | min - max | CPU-time MB/s (median) | rig reused / peer "
           "(wall, CPU) |\n|---|---:|---:|---:|---:|\n");
    double m = (double)text.len / MB;
    for (int i = 0; i < n; i++)
        printf("| %s | %.0f | %.0f - %.0f | %.0f | %.1fx, %.1fx |\n", cs[i].name, m / cs[i].med,
               m / cs[i].max, m / cs[i].min, m / cs[i].cmed, cs[i].med / cs[0].med,
               cs[i].cmed / cs[0].cmed);
    printf("\n");
    print_cpu_share(cs, n);
    fg->write_mbps = m / cs[0].med;
    fg->write_cpu_mbps = m / cs[0].cmed;
    rig_json_writer_free(&w);
    peer_jansson_write_release(js);
    peer_jsonc_write_release(jc);
}

/* ------------------------------------------------------------ main */

static void usage(void) {
    fputs("usage: bench_json [--runs N] [--only round|parse|write] [--dump DIR]\n"
          "       bench_json --profile SECONDS | --once N\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv) {
    const char *dump = NULL, *only = NULL;
    double profile = 0;
    long once = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            g_runs = atoi(argv[++i]);
            if (g_runs < 1 || g_runs > MAX_RUNS)
                usage();
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
            if (strcmp(only, "round") != 0 && strcmp(only, "parse") != 0 &&
                strcmp(only, "write") != 0)
                usage();
        } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            profile = atof(argv[++i]);
            if (!(profile > 0))
                usage();
        } else if (strcmp(argv[i], "--once") == 0 && i + 1 < argc) {
            once = atol(argv[++i]);
            if (once < 1)
                usage();
        } else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            dump = argv[++i];
        } else {
            usage();
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* inputs, deterministic */
    buf reqs = {0}, recs = {0}, strs = {0}, nums = {0}, src = {0};
    bench_text msgs[NMSGS];
    gen_requests(&reqs, msgs);
    if (profile || once) {
        if (profile)
            profile_rig_round(msgs, profile);
        else
            once_round(msgs, once);
        free(reqs.p);
        return 0;
    }
    rng r = {0x5eed2025u}; /* one stream, always all four: the same inputs every run */
    gen_records(&recs, &r, DOC_TARGET);
    gen_strings(&strs, &r, DOC_TARGET);
    gen_numbers(&nums, &r, DOC_TARGET);
    gen_source(&src, &r, DOC_TARGET);
    bench_text docs[3] = {buf_text(&recs), buf_text(&strs), buf_text(&nums)};
    static const char *const names[3] = {"records", "strings", "numbers"};

    if (dump) {
        if (mkdir(dump, 0777) != 0 && errno != EEXIST)
            bench_die("cannot create %s: %s", dump, strerror(errno));
        buf nd = {0};
        for (int k = 0; k < NMSGS; k++) {
            buf_put(&nd, msgs[k].p, msgs[k].len);
            buf_putc(&nd, '\n');
        }
        write_file(dump, "requests.ndjson", nd.p, nd.len);
        write_file(dump, "reply_text.txt", k_reply_text, sizeof k_reply_text - 1);
        rig_round_state rs = {rig_json_doc_new(), {0}};
        if (!rs.doc)
            bench_die("out of memory");
        rig_json_writer_init(&rs.w, 0);
        bench_text text = {k_reply_text, sizeof k_reply_text - 1};
        nd.len = 0;
        for (int k = 0; k < NMSGS; k++) {
            size_t len;
            const char *out = rig_round_one(&rs, &text, &msgs[k], &len);
            buf_put(&nd, out, len);
            buf_putc(&nd, '\n');
        }
        write_file(dump, "replies.ndjson", nd.p, nd.len);
        free(nd.p);
        rig_json_doc_free(rs.doc);
        rig_json_writer_free(&rs.w);
        for (int d = 0; d < 3; d++) {
            char name[64];
            snprintf(name, sizeof name, "%s.json", names[d]);
            write_file(dump, name, docs[d].p, docs[d].len);
        }
        write_file(dump, "source.txt", src.p, src.len);
    }

    figures fg;
    memset(&fg, 0, sizeof fg);
    print_machine();
    double t0 = bench_now_s();
    if (!only || strcmp(only, "round") == 0)
        bench_round(msgs, &fg);
    if (!only || strcmp(only, "parse") == 0)
        bench_parse(docs, names, &fg);
    if (!only || strcmp(only, "write") == 0)
        bench_write(buf_text(&src), &fg);
    printf("Checksum of outputs: %016llx (total %.0f s; load average at the end: %s)\n",
           (unsigned long long)bench_sink, bench_now_s() - t0, bench_loadavg());
    if (dump && !only)
        dump_figures(dump, &fg);

    free(reqs.p);
    free(recs.p);
    free(strs.p);
    free(nums.p);
    free(src.p);
    return 0;
}
