/* peer_jansson.c — the benchmark's work done with jansson, the idiomatic way:
 * json_loadb builds a tree, json_object_get reads it, the reply is a new tree
 * (json_object_set_new, or json_pack) serialised by json_dumps; everything is
 * freed each round. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *peer_jansson_version(void) { return jansson_version_str(); }

/* ---- the tools/call round */

static json_t *build_reply(json_t *id, const bench_text *text) {
    json_t *reply = json_object();
    json_object_set_new(reply, "jsonrpc", json_string("2.0"));
    json_object_set(reply, "id", id);
    json_t *result = json_object();
    json_t *content = json_array();
    json_t *item = json_object();
    json_object_set_new(item, "type", json_string("text"));
    json_object_set_new(item, "text", json_stringn(text->p, text->len));
    json_array_append_new(content, item);
    json_object_set_new(result, "content", content);
    json_object_set_new(result, "isError", json_false());
    json_object_set_new(reply, "result", result);
    return reply;
}

static json_t *pack_reply(json_t *id, const bench_text *text) {
    return json_pack("{s:s, s:O, s:{s:[{s:s, s:s%}], s:b}}", "jsonrpc", "2.0", "id", id,
                     "result", "content", "type", "text", "text", text->p, text->len,
                     "isError", 0);
}

/* One message: parse, read, reply. Returns the reply text (caller frees). */
static char *round_one(const round_ctx *c, const bench_text *m, int pack) {
    json_error_t err;
    json_t *req = json_loadb(m->p, m->len, 0, &err);
    if (!req)
        bench_die("jansson: request rejected: %s", err.text);
    json_t *id = json_object_get(req, "id");
    const char *method = json_string_value(json_object_get(req, "method"));
    if (!id || !method || strcmp(method, "tools/call") != 0)
        bench_die("jansson: not a tools/call");
    json_t *params = json_object_get(req, "params");
    json_t *name = json_object_get(params, "name");
    const char *tool = json_string_value(name);
    if (!tool || strcmp(tool, "read_file") != 0)
        bench_die("jansson: unexpected tool");
    json_t *args = json_object_get(params, "arguments");
    json_t *path = json_object_get(args, "path");
    json_t *offset = json_object_get(args, "offset"), *limit = json_object_get(args, "limit");
    if (!json_is_string(path) || !json_is_integer(offset) || !json_is_integer(limit))
        bench_die("jansson: bad arguments");
    bench_sink += json_string_length(name) + json_string_length(path) +
                  (uint64_t)json_integer_value(offset) + (uint64_t)json_integer_value(limit);

    json_t *reply = pack ? pack_reply(id, &c->text) : build_reply(id, &c->text);
    if (!reply)
        bench_die("jansson: cannot build the reply");
    char *out = json_dumps(reply, JSON_COMPACT);
    if (!out)
        bench_die("jansson: json_dumps failed");
    json_decref(reply);
    json_decref(req);
    return out;
}

static void round_loop(void *ctx, long reps, int pack) {
    const round_ctx *c = ctx;
    size_t k = 0;
    for (long r = 0; r < reps; r++) {
        char *out = round_one(c, &c->msgs[k], pack);
        /* json_dumps gives no length; a server would strlen() it before
         * write(), but we do not charge jansson for that */
        bench_sink += (unsigned char)out[0] + (unsigned char)out[8];
        free(out);
        if (++k == c->nmsgs)
            k = 0;
    }
}

void peer_jansson_round(void *ctx, long reps) { round_loop(ctx, reps, 0); }
void peer_jansson_round_pack(void *ctx, long reps) { round_loop(ctx, reps, 1); }

char *peer_jansson_round_once(const round_ctx *c, size_t i, int pack) {
    return round_one(c, &c->msgs[i], pack);
}

/* ---- parse throughput */

void peer_jansson_parse(void *ctx, long reps) {
    const parse_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        json_error_t err;
        json_t *v = json_loadb(c->doc.p, c->doc.len, JSON_DECODE_ANY, &err);
        if (!v)
            bench_die("jansson: document rejected: %s (line %d, column %d)", err.text, err.line,
                      err.column);
        bench_sink += (uint64_t)json_typeof(v);
        json_decref(v);
    }
}

static void walk(const json_t *v, tally *t) {
    t->values++;
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        t->numbers++;
        t->numsum += (double)json_integer_value(v);
        break;
    case JSON_REAL:
        t->numbers++;
        t->numsum += json_real_value(v);
        break;
    case JSON_STRING:
        t->strings++;
        t->str_bytes += json_string_length(v);
        break;
    case JSON_ARRAY: {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) walk(e, t);
        break;
    }
    case JSON_OBJECT: {
        const char *key;
        json_t *e;
        /* json_object_foreach needs a non-const object */
        json_object_foreach((json_t *)v, key, e) {
            t->keys++;
            walk(e, t);
        }
        break;
    }
    default:
        break;
    }
}

int peer_jansson_tally(bench_text doc, tally *t) {
    json_error_t err;
    json_t *v = json_loadb(doc.p, doc.len, JSON_DECODE_ANY, &err);
    if (!v)
        return -1;
    memset(t, 0, sizeof *t);
    walk(v, t);
    json_decref(v);
    return 0;
}

/* ---- writer throughput */

void *peer_jansson_write_prepare(bench_text text) {
    json_t *s = json_stringn(text.p, text.len);
    if (!s)
        bench_die("jansson: json_stringn rejected the text");
    return s;
}

void peer_jansson_write_release(void *state) { json_decref(state); }

void peer_jansson_write(void *ctx, long reps) {
    const write_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        char *out = json_dumps(c->state, JSON_ENCODE_ANY);
        if (!out)
            bench_die("jansson: json_dumps failed");
        bench_sink += (unsigned char)out[1];
        free(out);
    }
}

char *peer_jansson_write_once(void *state, size_t *len) {
    char *out = json_dumps(state, JSON_ENCODE_ANY);
    if (!out)
        bench_die("jansson: json_dumps failed");
    *len = strlen(out);
    return out;
}
