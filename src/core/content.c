/* content.c — rig_result: the content blocks, structuredContent and isError
 * a tool returns, their MCP encoding, and the head+tail output cap.
 *
 * Each block keeps its strings in one allocation, so a result of n blocks
 * costs n+1 mallocs however many fields they carry. A builder that fails
 * records the failure in the result instead of making every tool check
 * every call; the toolset turns such a result into an error result. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

enum { F_TEXT, F_DATA, F_MIME, F_URI, F_NAME, F_TITLE, F_DESC, F_COUNT };

struct block {
    rig_content c;
    char *mem;
};

struct rig_result {
    struct block *blocks;
    size_t n, cap;
    char *structured;
    size_t structured_len;
    rig_json_writer *sw;
    int status;
    bool is_error;
    bool is_static;
};

/* The one result that needs no memory: what an allocation failure becomes. */
static struct block oom_block = {
    .c = {.type = RIG_CONTENT_TEXT,
          .text = "Out of memory while building the tool result. Try a smaller request.",
          .text_len = sizeof "Out of memory while building the tool result. Try a smaller request." - 1,
          .size = -1},
};
static rig_result oom_result = {
    .blocks = &oom_block, .n = 1, .cap = 1, .status = RIG_ENOMEM, .is_error = true,
    .is_static = true};

rig_result *rig_result_new(void)
{
    rig_result *r = calloc(1, sizeof *r);
    return r;
}

void rig_result_free(rig_result *r)
{
    if (!r || r->is_static)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->blocks[i].mem);
    free(r->blocks);
    free(r->structured);
    if (r->sw) {
        rig_json_writer_free(r->sw);
        free(r->sw);
    }
    free(r);
}

static int fail(rig_result *r, int code)
{
    if (r && !r->is_static && r->status == RIG_OK)
        r->status = code;
    return code;
}

/* Append a block whose string fields are copied from vals/lens (NULL = absent). */
static int add_block(rig_result *r, rig_content_type type, const char *vals[F_COUNT],
                     const size_t lens[F_COUNT], int64_t size)
{
    if (!r)
        return RIG_EINVAL;
    if (r->is_static)
        return RIG_ENOMEM;
    size_t total = 0;
    for (int f = 0; f < F_COUNT; f++)
        if (vals[f])
            total += lens[f] + 1;
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 4;
        struct block *nb = realloc(r->blocks, ncap * sizeof *nb);
        if (!nb)
            return fail(r, RIG_ENOMEM);
        r->blocks = nb;
        r->cap = ncap;
    }
    char *mem = malloc(total ? total : 1);
    if (!mem)
        return fail(r, RIG_ENOMEM);
    const char *ptr[F_COUNT] = {0};
    char *p = mem;
    for (int f = 0; f < F_COUNT; f++) {
        if (!vals[f])
            continue;
        memcpy(p, vals[f], lens[f]);
        p[lens[f]] = '\0';
        ptr[f] = p;
        p += lens[f] + 1;
    }
    struct block *b = &r->blocks[r->n++];
    b->mem = mem;
    b->c = (rig_content){
        .type = type,
        .text = ptr[F_TEXT],
        .text_len = vals[F_TEXT] ? lens[F_TEXT] : 0,
        .data = ptr[F_DATA],
        .mime_type = ptr[F_MIME],
        .uri = ptr[F_URI],
        .name = ptr[F_NAME],
        .title = ptr[F_TITLE],
        .description = ptr[F_DESC],
        .size = size,
    };
    return RIG_OK;
}

static void set_field(const char *vals[F_COUNT], size_t lens[F_COUNT], int f, const char *s)
{
    vals[f] = s;
    lens[f] = s ? strlen(s) : 0;
}

int rig_result_textn(rig_result *r, const char *text, size_t len)
{
    if (!text && len)
        return fail(r, RIG_EINVAL);
    const char *vals[F_COUNT] = {0};
    size_t lens[F_COUNT] = {0};
    vals[F_TEXT] = text ? text : "";
    lens[F_TEXT] = len;
    return add_block(r, RIG_CONTENT_TEXT, vals, lens, -1);
}

int rig_result_text(rig_result *r, const char *text)
{
    if (!text)
        return fail(r, RIG_EINVAL);
    return rig_result_textn(r, text, strlen(text));
}

static char *vformat(const char *fmt, va_list ap, size_t *len)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    if ((size_t)n < sizeof small)
        memcpy(s, small, (size_t)n + 1);
    else
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    *len = (size_t)n;
    return s;
}

int rig_result_textf(rig_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t len = 0;
    char *s = vformat(fmt, ap, &len);
    va_end(ap);
    if (!s)
        return fail(r, RIG_ENOMEM);
    int rc = rig_result_textn(r, s, len);
    free(s);
    return rc;
}

static int media(rig_result *r, rig_content_type type, const char *base64, const char *mime)
{
    if (!base64 || !mime || !*mime)
        return fail(r, RIG_EINVAL);
    const char *vals[F_COUNT] = {0};
    size_t lens[F_COUNT] = {0};
    set_field(vals, lens, F_DATA, base64);
    set_field(vals, lens, F_MIME, mime);
    return add_block(r, type, vals, lens, -1);
}

int rig_result_image(rig_result *r, const char *base64, const char *mime_type)
{
    return media(r, RIG_CONTENT_IMAGE, base64, mime_type);
}

int rig_result_audio(rig_result *r, const char *base64, const char *mime_type)
{
    return media(r, RIG_CONTENT_AUDIO, base64, mime_type);
}

int rig_result_resource_link(rig_result *r, const char *uri, const char *name, const char *title,
                             const char *description, const char *mime_type, int64_t size)
{
    if (!uri || !*uri || !name)
        return fail(r, RIG_EINVAL);
    const char *vals[F_COUNT] = {0};
    size_t lens[F_COUNT] = {0};
    set_field(vals, lens, F_URI, uri);
    set_field(vals, lens, F_NAME, name);
    set_field(vals, lens, F_TITLE, title);
    set_field(vals, lens, F_DESC, description);
    set_field(vals, lens, F_MIME, mime_type);
    return add_block(r, RIG_CONTENT_RESOURCE_LINK, vals, lens, size < 0 ? -1 : size);
}

int rig_result_resource_text(rig_result *r, const char *uri, const char *mime_type,
                             const char *text)
{
    if (!uri || !*uri || !text)
        return fail(r, RIG_EINVAL);
    const char *vals[F_COUNT] = {0};
    size_t lens[F_COUNT] = {0};
    set_field(vals, lens, F_URI, uri);
    set_field(vals, lens, F_MIME, mime_type);
    set_field(vals, lens, F_TEXT, text);
    return add_block(r, RIG_CONTENT_RESOURCE, vals, lens, -1);
}

int rig_result_resource_blob(rig_result *r, const char *uri, const char *mime_type,
                             const char *base64)
{
    if (!uri || !*uri || !base64)
        return fail(r, RIG_EINVAL);
    const char *vals[F_COUNT] = {0};
    size_t lens[F_COUNT] = {0};
    set_field(vals, lens, F_URI, uri);
    set_field(vals, lens, F_MIME, mime_type);
    set_field(vals, lens, F_DATA, base64);
    return add_block(r, RIG_CONTENT_RESOURCE, vals, lens, -1);
}

int rig_result_structured(rig_result *r, const char *json, size_t len)
{
    if (!r || !json)
        return fail(r, RIG_EINVAL);
    if (r->is_static)
        return RIG_ENOMEM;
    rig_json_doc *doc = rig_json_parse(json, len, NULL, NULL);
    bool ok = doc && rig_json_typeof(rig_json_doc_root(doc)) == RIG_JSON_OBJECT;
    rig_json_doc_free(doc);
    if (!ok)
        return fail(r, RIG_EJSON);
    char *copy = malloc(len + 1);
    if (!copy)
        return fail(r, RIG_ENOMEM);
    memcpy(copy, json, len);
    copy[len] = '\0';
    free(r->structured);
    r->structured = copy;
    r->structured_len = len;
    return RIG_OK;
}

rig_json_writer *rig_result_structured_begin(rig_result *r)
{
    if (!r || r->is_static)
        return NULL;
    if (!r->sw) {
        r->sw = malloc(sizeof *r->sw);
        if (!r->sw) {
            fail(r, RIG_ENOMEM);
            return NULL;
        }
    } else {
        rig_json_writer_free(r->sw);
    }
    rig_json_writer_init(r->sw, 0);
    return r->sw;
}

int rig_result_structured_end(rig_result *r)
{
    if (!r || !r->sw)
        return fail(r, RIG_ESTATE);
    size_t len = 0;
    const char *json = rig_json_writer_finish(r->sw, &len);
    int rc = json ? rig_result_structured(r, json, len) : fail(r, RIG_EJSON);
    rig_json_writer_free(r->sw);
    free(r->sw);
    r->sw = NULL;
    return rc;
}

void rig_result_set_error(rig_result *r, bool is_error)
{
    if (r && !r->is_static)
        r->is_error = is_error;
}

bool rig_result_is_error(const rig_result *r)
{
    return !r || r->is_error;
}

int rig_result_status(const rig_result *r)
{
    return r ? r->status : RIG_EINVAL;
}

rig_result *rig_result_verror(const char *fmt, va_list ap)
{
    size_t len = 0;
    char *s = vformat(fmt, ap, &len);
    rig_result *r = s ? rig_result_new() : NULL;
    if (!r || rig_result_textn(r, s, len) != RIG_OK) {
        free(s);
        rig_result_free(r);
        return &oom_result;
    }
    free(s);
    r->is_error = true;
    return r;
}

rig_result *rig_result_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rig_result *r = rig_result_verror(fmt, ap);
    va_end(ap);
    return r;
}

rig_result *rig_result_content(const char *output, const char *error, const char *base64_png)
{
    rig_result *r = rig_result_new();
    if (!r)
        return &oom_result;
    if (output)
        rig_result_text(r, output);
    if (error)
        rig_result_text(r, error);
    if (base64_png)
        rig_result_image(r, base64_png, "image/png");
    if (error && !output)
        r->is_error = true;
    return r;
}

rig_result *rig_result_evaluation(const rig_evaluation *ev)
{
    if (!ev)
        return rig_result_error("No evaluation was given.");
    rig_result *r = rig_result_new();
    if (!r)
        return &oom_result;
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "reward");
        rig_json_write_double(w, ev->reward);
        rig_json_write_key(w, "done");
        rig_json_write_bool(w, ev->done);
        if (ev->content) {
            rig_json_write_key(w, "content");
            rig_json_write_string(w, ev->content);
        }
        if (ev->info_json) {
            rig_json_doc *info = rig_json_parse(ev->info_json, strlen(ev->info_json), NULL, NULL);
            if (info && rig_json_typeof(rig_json_doc_root(info)) == RIG_JSON_OBJECT) {
                rig_json_write_key(w, "info");
                rig_json_write_value(w, rig_json_doc_root(info));
            } else {
                fail(r, RIG_EJSON);
            }
            rig_json_doc_free(info);
        }
        rig_json_write_key(w, "isError");
        rig_json_write_bool(w, ev->is_error);
        if (ev->n_subscores) {
            rig_json_write_key(w, "subscores");
            rig_json_write_array_begin(w);
            for (size_t i = 0; i < ev->n_subscores; i++) {
                const rig_subscore *s = &ev->subscores[i];
                rig_json_write_object_begin(w);
                rig_json_write_key(w, "name");
                rig_json_write_string(w, s->name ? s->name : "");
                rig_json_write_key(w, "value");
                rig_json_write_double(w, s->value);
                rig_json_write_key(w, "weight");
                rig_json_write_double(w, s->weight);
                rig_json_write_object_end(w);
            }
            rig_json_write_array_end(w);
        }
        rig_json_write_object_end(w);
        rig_result_structured_end(r);
    }
    char num[32];
    rig_json_format_double(ev->reward, num);
    rig_result_textf(r, "Reward %s%s%s%s", num, ev->done ? " (done)" : "",
                     ev->content ? ": " : "", ev->content ? ev->content : "");
    r->is_error = ev->is_error;
    return r;
}

size_t rig_result_count(const rig_result *r)
{
    return r ? r->n : 0;
}

const rig_content *rig_result_block(const rig_result *r, size_t i)
{
    return r && i < r->n ? &r->blocks[i].c : NULL;
}

const char *rig_result_structured_json(const rig_result *r, size_t *len)
{
    if (len)
        *len = r && r->structured ? r->structured_len : 0;
    return r ? r->structured : NULL;
}

char *rig_result_text_all(const rig_result *r, size_t *len)
{
    size_t total = 0, n = 0;
    for (size_t i = 0; r && i < r->n; i++)
        if (r->blocks[i].c.type == RIG_CONTENT_TEXT)
            total += r->blocks[i].c.text_len + (n++ ? 1 : 0);
    char *s = malloc(total + 1);
    if (!s)
        return NULL;
    char *p = s;
    n = 0;
    for (size_t i = 0; r && i < r->n; i++) {
        const rig_content *c = &r->blocks[i].c;
        if (c->type != RIG_CONTENT_TEXT)
            continue;
        if (n++)
            *p++ = '\n';
        memcpy(p, c->text, c->text_len);
        p += c->text_len;
    }
    *p = '\0';
    if (len)
        *len = total;
    return s;
}

static void write_opt(rig_json_writer *w, const char *key, const char *val)
{
    if (val) {
        rig_json_write_key(w, key);
        rig_json_write_string(w, val);
    }
}

void rig__content_write_block(rig_json_writer *w, const rig_content *c)
{
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "type");
    switch (c->type) {
    case RIG_CONTENT_TEXT:
        rig_json_write_string(w, "text");
        rig_json_write_key(w, "text");
        rig_json_write_stringn(w, c->text, c->text_len);
        break;
    case RIG_CONTENT_IMAGE:
    case RIG_CONTENT_AUDIO:
        rig_json_write_string(w, c->type == RIG_CONTENT_IMAGE ? "image" : "audio");
        write_opt(w, "data", c->data);
        write_opt(w, "mimeType", c->mime_type);
        break;
    case RIG_CONTENT_RESOURCE_LINK:
        rig_json_write_string(w, "resource_link");
        write_opt(w, "uri", c->uri);
        write_opt(w, "name", c->name);
        write_opt(w, "title", c->title);
        write_opt(w, "description", c->description);
        write_opt(w, "mimeType", c->mime_type);
        if (c->size >= 0) {
            rig_json_write_key(w, "size");
            rig_json_write_int(w, c->size);
        }
        break;
    case RIG_CONTENT_RESOURCE:
        rig_json_write_string(w, "resource");
        rig_json_write_key(w, "resource");
        rig_json_write_object_begin(w);
        write_opt(w, "uri", c->uri);
        write_opt(w, "mimeType", c->mime_type);
        if (c->text) {
            rig_json_write_key(w, "text");
            rig_json_write_stringn(w, c->text, c->text_len);
        } else {
            write_opt(w, "blob", c->data);
        }
        rig_json_write_object_end(w);
        break;
    }
    rig_json_write_object_end(w);
}

int rig_result_write(const rig_result *r, rig_json_writer *w)
{
    if (!r || !w)
        return RIG_EINVAL;
    bool has_text = false;
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "content");
    rig_json_write_array_begin(w);
    for (size_t i = 0; i < r->n; i++) {
        has_text |= r->blocks[i].c.type == RIG_CONTENT_TEXT;
        rig__content_write_block(w, &r->blocks[i].c);
    }
    /* MCP: a tool returning structured content should also return it
     * serialized in a text block, for clients that predate structuredContent. */
    if (r->structured && !has_text) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "type");
        rig_json_write_string(w, "text");
        rig_json_write_key(w, "text");
        rig_json_write_stringn(w, r->structured, r->structured_len);
        rig_json_write_object_end(w);
    }
    rig_json_write_array_end(w);
    if (r->structured) {
        rig_json_write_key(w, "structuredContent");
        rig_json_write_raw(w, r->structured, r->structured_len);
    }
    if (r->is_error) {
        rig_json_write_key(w, "isError");
        rig_json_write_bool(w, true);
    }
    rig_json_write_object_end(w);
    return rig_json_writer_error(w) ? RIG_ENOMEM : RIG_OK;
}

/* The start of the character after the one at s[i]: a lead byte takes
 * the continuation bytes it announces, and any other byte (a stray
 * continuation byte, binary junk) is a character of its own, so text that
 * is not UTF-8 cannot count as no characters and slip past the cap. */
static size_t utf8_next(const char *s, size_t n, size_t i)
{
    unsigned char b = (unsigned char)s[i++];
    size_t more = b >= 0xF8 ? 0 : b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
    while (more-- && i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

/* Characters (code points) in s[0..n). */
static size_t utf8_chars(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i = utf8_next(s, n, i))
        chars++;
    return chars;
}

/* Byte offset of the `k`th character of s[0..n) (n if there are fewer). */
static size_t utf8_offset(const char *s, size_t n, size_t k)
{
    size_t i = 0;
    while (i < n && k--)
        i = utf8_next(s, n, i);
    return i;
}

size_t rig_result_cap(rig_result *r, size_t max_chars)
{
    if (!r || r->is_static || max_chars == 0)
        return 0;
    size_t bytes = 0, first = SIZE_MAX, ntext = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->blocks[i].c.type != RIG_CONTENT_TEXT)
            continue;
        bytes += r->blocks[i].c.text_len + (ntext ? 1 : 0);
        if (first == SIZE_MAX)
            first = i;
        ntext++;
    }
    if (bytes <= max_chars) /* a character is at least a byte */
        return 0;
    size_t len = 0;
    char *all = rig_result_text_all(r, &len);
    if (!all) {
        fail(r, RIG_ENOMEM);
        return 0;
    }
    size_t chars = utf8_chars(all, len);
    if (chars <= max_chars) {
        free(all);
        return 0;
    }
    size_t head_chars = max_chars / 2, tail_chars = max_chars - head_chars;
    size_t head = utf8_offset(all, len, head_chars);
    size_t tail = utf8_offset(all, len, chars - tail_chars);
    size_t cut = chars - max_chars;
    char note[160];
    int nn = snprintf(note, sizeof note,
                      "\n[... %zu characters cut from the middle of this output; "
                      "ask for a smaller part to see them ...]\n", cut);
    size_t out_len = head + (size_t)nn + (len - tail);
    char *out = malloc(out_len + 1);
    if (!out) {
        free(all);
        fail(r, RIG_ENOMEM);
        return 0;
    }
    memcpy(out, all, head);
    memcpy(out + head, note, (size_t)nn);
    memcpy(out + head + (size_t)nn, all + tail, len - tail);
    out[out_len] = '\0';
    free(all);
    /* One text block, where the first one was; the others go. */
    size_t keep = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct block *b = &r->blocks[i];
        if (b->c.type == RIG_CONTENT_TEXT && i != first) {
            free(b->mem);
            continue;
        }
        if (i == first) {
            free(b->mem);
            b->mem = out;
            b->c.text = out;
            b->c.text_len = out_len;
        }
        r->blocks[keep++] = *b;
    }
    r->n = keep;
    return cut;
}
