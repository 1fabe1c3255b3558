/* peer_jsonc.c — the benchmark's work done with json-c, the idiomatic way:
 * a reused json_tokener (json_tokener_reset before each message) builds a
 * tree, json_object_object_get_ex reads it, the reply is a new tree of
 * json_object_new_* serialised by json_object_to_json_string_length; every
 * tree is released with json_object_put each round.
 *
 * Output flags: JSON_C_TO_STRING_PLAIN (no spaces) plus
 * JSON_C_TO_STRING_NOSLASHESCAPE, so json-c writes "/" as "/" like rig,
 * jansson and JSON.stringify do (by default it writes "\/"); the outputs are
 * then byte-identical.
 *
 * A trap of linking both peers into one program: jansson and json-c both
 * export json_object_get (jansson's looks up a key, json-c's takes a
 * reference) and json_object_iter_next. The link binds each name once, to the
 * first library on the command line (jansson: meson.build keeps that order),
 * so here json_object_get would silently call jansson's and return NULL. We
 * take json-c's own from its library handle instead (jsonc_get below). The
 * round's reply check catches it if this ever goes wrong. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define OUT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

const char *peer_jsonc_version(void) { return json_c_version(); }

/* json-c's json_object_get (one more reference), found in json-c itself */
static json_object *(*jsonc_get)(json_object *);

static void resolve(void) {
    Dl_info info;
    void *lib = NULL;
    if (dladdr((void *)json_tokener_new, &info) && info.dli_fname)
        lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (lib)
        jsonc_get = (json_object * (*)(json_object *)) dlsym(lib, "json_object_get");
    if (!jsonc_get)
        bench_die("json-c: cannot find json-c's own json_object_get: %s", dlerror());
}

void *peer_jsonc_tokener_new(void) {
    if (!jsonc_get)
        resolve();
    json_tokener *tok = json_tokener_new();
    if (!tok)
        bench_die("json-c: json_tokener_new failed");
    return tok;
}

void peer_jsonc_tokener_free(void *tok) { json_tokener_free(tok); }

static json_object *parse(json_tokener *tok, const bench_text *t) {
    if (t->len > (size_t)INT32_MAX)
        bench_die("json-c: input too long");
    json_tokener_reset(tok);
    json_object *v = json_tokener_parse_ex(tok, t->p, (int)t->len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (e != json_tokener_success)
        bench_die("json-c: input rejected at byte %zu: %s", json_tokener_get_parse_end(tok),
                  json_tokener_error_desc(e));
    return v; /* NULL for the text "null" */
}

/* ---- the tools/call round */

/* One message: parse, read, reply. The reply text stays owned by *reply. */
static const char *round_one(const round_ctx *c, const bench_text *m, json_object **reply_out,
                             size_t *outlen) {
    json_object *req = parse(c->state, m);
    json_object *id, *method, *params, *name, *args, *path, *offset, *limit;
    if (!json_object_object_get_ex(req, "id", &id) ||
        !json_object_object_get_ex(req, "method", &method) ||
        !json_object_is_type(method, json_type_string) ||
        strcmp(json_object_get_string(method), "tools/call") != 0)
        bench_die("json-c: not a tools/call");
    if (!json_object_object_get_ex(req, "params", &params) ||
        !json_object_object_get_ex(params, "name", &name) ||
        !json_object_is_type(name, json_type_string) ||
        strcmp(json_object_get_string(name), "read_file") != 0)
        bench_die("json-c: unexpected tool");
    if (!json_object_object_get_ex(params, "arguments", &args) ||
        !json_object_object_get_ex(args, "path", &path) ||
        !json_object_is_type(path, json_type_string) ||
        !json_object_object_get_ex(args, "offset", &offset) ||
        !json_object_is_type(offset, json_type_int) ||
        !json_object_object_get_ex(args, "limit", &limit) ||
        !json_object_is_type(limit, json_type_int))
        bench_die("json-c: bad arguments");
    bench_sink += (uint64_t)json_object_get_string_len(name) +
                  (uint64_t)json_object_get_string_len(path) +
                  (uint64_t)json_object_get_int64(offset) + (uint64_t)json_object_get_int64(limit);

    json_object *reply = json_object_new_object();
    json_object_object_add(reply, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(reply, "id", jsonc_get(id)); /* shared: one more reference */
    json_object *result = json_object_new_object();
    json_object *content = json_object_new_array();
    json_object *item = json_object_new_object();
    json_object_object_add(item, "type", json_object_new_string("text"));
    json_object_object_add(item, "text", json_object_new_string_len(c->text.p, (int)c->text.len));
    json_object_array_add(content, item);
    json_object_object_add(result, "content", content);
    json_object_object_add(result, "isError", json_object_new_boolean(0));
    json_object_object_add(reply, "result", result);
    const char *out = json_object_to_json_string_length(reply, OUT_FLAGS, outlen);
    if (!out)
        bench_die("json-c: serialisation failed");
    json_object_put(req);
    *reply_out = reply;
    return out;
}

void peer_jsonc_round(void *ctx, long reps) {
    const round_ctx *c = ctx;
    size_t k = 0;
    for (long r = 0; r < reps; r++) {
        json_object *reply;
        size_t len;
        const char *out = round_one(c, &c->msgs[k], &reply, &len);
        bench_sink += len + (unsigned char)out[len / 2];
        json_object_put(reply);
        if (++k == c->nmsgs)
            k = 0;
    }
}

char *peer_jsonc_round_once(const round_ctx *c, size_t i) {
    json_object *reply;
    size_t len;
    const char *out = round_one(c, &c->msgs[i], &reply, &len);
    char *copy = malloc(len + 1);
    if (!copy)
        bench_die("out of memory");
    memcpy(copy, out, len + 1);
    json_object_put(reply);
    return copy;
}

/* ---- parse throughput */

void peer_jsonc_parse(void *ctx, long reps) {
    const parse_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        json_object *v = parse(c->state, &c->doc);
        bench_sink += (uint64_t)json_object_get_type(v);
        json_object_put(v);
    }
}

static void walk(json_object *v, tally *t) {
    t->values++;
    switch (json_object_get_type(v)) {
    case json_type_int:
        t->numbers++;
        t->numsum += (double)json_object_get_int64(v);
        break;
    case json_type_double:
        t->numbers++;
        t->numsum += json_object_get_double(v);
        break;
    case json_type_string:
        t->strings++;
        t->str_bytes += (uint64_t)json_object_get_string_len(v);
        break;
    case json_type_array: {
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n; i++)
            walk(json_object_array_get_idx(v, i), t);
        break;
    }
    case json_type_object: {
        json_object_object_foreach(v, key, val) {
            (void)key;
            t->keys++;
            walk(val, t);
        }
        break;
    }
    default:
        break;
    }
}

int peer_jsonc_tally(bench_text doc, tally *t) {
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return -1;
    json_object *v = json_tokener_parse_ex(tok, doc.p, (int)doc.len);
    int ok = json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    if (!ok)
        return -1;
    memset(t, 0, sizeof *t);
    walk(v, t);
    json_object_put(v);
    return 0;
}

/* ---- writer throughput */

void *peer_jsonc_write_prepare(bench_text text) {
    if (text.len > (size_t)INT32_MAX)
        bench_die("json-c: text too long");
    json_object *s = json_object_new_string_len(text.p, (int)text.len);
    if (!s)
        bench_die("json-c: json_object_new_string_len failed");
    return s;
}

void peer_jsonc_write_release(void *state) { json_object_put(state); }

void peer_jsonc_write(void *ctx, long reps) {
    const write_ctx *c = ctx;
    for (long r = 0; r < reps; r++) {
        size_t len;
        /* re-serialises each call (into the object's own reused printbuf) */
        const char *out = json_object_to_json_string_length(c->state, OUT_FLAGS, &len);
        if (!out)
            bench_die("json-c: serialisation failed");
        bench_sink += len + (unsigned char)out[1];
    }
}

char *peer_jsonc_write_once(void *state, size_t *len) {
    const char *out = json_object_to_json_string_length(state, OUT_FLAGS, len);
    if (!out)
        bench_die("json-c: serialisation failed");
    char *copy = malloc(*len + 1);
    if (!copy)
        bench_die("out of memory");
    memcpy(copy, out, *len + 1);
    return copy;
}
