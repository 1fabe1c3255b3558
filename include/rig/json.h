/* rig/json.h — rig's JSON layer.
 *
 * Three parts, all in one header because they are used together:
 *
 *   - a strict RFC 8259 parser that reads a caller's buffer in one pass and
 *     builds a compact, read-only document: a flat array of 16-byte nodes that
 *     point into the input (no allocation per value; a reused document does not
 *     allocate at all once it has grown to fit);
 *   - access to a document through small value handles (rig_json_val): lookup,
 *     iteration, typed getters, JSON Pointer, raw text, deep equality;
 *   - a streaming writer into a growable buffer, and a framer that splits
 *     newline-delimited input without copying.
 *
 * Decisions a caller should know (docs/json.md has the full list):
 *   - Duplicate object keys: the last one wins everywhere (lookup, iteration,
 *     length, equality, JSON Pointer, rig_json_write_value), as JSON.parse does.
 *     Iteration yields each key once, at the position of its last occurrence.
 *     Only rig_json_raw() shows the text as it was.
 *   - Lone UTF-16 surrogate escapes ("\ud800" without its pair) decode as U+FFFD,
 *     as a JavaScript producer that cut a string in the middle of a pair expects;
 *     RIG_JSON_STRICT_SURROGATES makes them an error. Raw bytes must be valid
 *     UTF-8 (no overlongs, no encoded surrogates, nothing above U+10FFFF).
 *   - Numbers: an integer literal that fits int64 is RIG_JSON_INT; every other
 *     number is RIG_JSON_DOUBLE, correctly rounded. "-0" is the double -0.0 so
 *     its sign survives. Integers beyond int64 become doubles (flag
 *     RIG_JSON_VAL_BIGINT; RIG_JSON_REJECT_BIG_INTEGERS makes them an error).
 *     A number whose magnitude overflows a double is an error; one that
 *     underflows becomes 0 or a subnormal, as strtod does.
 *   - The document points into the input: keep the input alive and unchanged
 *     while the document is used, or parse with RIG_JSON_COPY_INPUT.
 *   - A document is read-only; any number of threads may read it at once.
 */
#ifndef RIG_JSON_H
#define RIG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/arena.h"
#include "rig/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

/* Every function that can fail returns 0 or one of these negative codes. */
enum rig_json_status {
    RIG_JSON_OK = 0,
    RIG_JSON_ESYNTAX = -1,    /* a character that cannot appear here */
    RIG_JSON_ETRUNCATED = -2, /* the input ends inside a value */
    RIG_JSON_EDEPTH = -3,     /* nesting deeper than max_depth */
    RIG_JSON_ESIZE = -4,      /* input longer than max_size */
    RIG_JSON_EUTF8 = -5,      /* bytes that are not valid UTF-8 */
    RIG_JSON_ESTRING = -6,    /* bad escape or raw control character */
    RIG_JSON_ENUMBER = -7,    /* malformed number */
    RIG_JSON_ERANGE = -8,     /* number out of range for the request */
    RIG_JSON_ENOMEM = -9,     /* allocation failed */
    RIG_JSON_ETYPE = -10,     /* value has another type */
    RIG_JSON_EMISSING = -11,  /* no such value */
    RIG_JSON_ENOSPC = -12,    /* caller's buffer too small */
    RIG_JSON_EUSAGE = -13,    /* writer calls out of order */
    RIG_JSON_EINVAL = -14,    /* bad argument */
    RIG_JSON_EFRAME = -15     /* a frame longer than the framer's limit */
};

/* A short static description of a status code. Never NULL. */
RIG_API const char *rig_json_strerror(int code);

/* Where and why a parse failed. line and column are 1-based; column counts
 * characters (UTF-8 code points), not bytes; both are 0 for errors that have
 * no position (size limit, memory, a bad argument). Input cut short reports
 * RIG_JSON_ETRUNCATED at its end, wherever the cut falls. reason is a static
 * string. */
typedef struct rig_json_error {
    int code;
    size_t offset;
    unsigned line;
    unsigned column;
    const char *reason;
} rig_json_error;

/* Formats "line L, column C (byte B): reason" into buf (always NUL-terminated
 * when cap > 0). Returns the length the full text needs, as snprintf does. */
RIG_API int rig_json_error_format(const rig_json_error *err, char *buf, size_t cap);

/* ---------------------------------------------------------------- parsing */

#define RIG_JSON_DEFAULT_MAX_SIZE ((size_t)64 << 20) /* 64 MiB */
#define RIG_JSON_DEFAULT_MAX_DEPTH 512u
#define RIG_JSON_MAX_SIZE_LIMIT ((size_t)UINT32_MAX - 1) /* offsets are 32-bit */

/* Parse flags (rig_json_options.flags). */
enum rig_json_parse_flag {
    RIG_JSON_STRICT_SURROGATES = 1 << 0,   /* lone surrogate escape is an error */
    RIG_JSON_REJECT_BIG_INTEGERS = 1 << 1, /* integer beyond int64 is an error */
    RIG_JSON_ALLOW_BOM = 1 << 2,           /* skip a leading UTF-8 byte order mark */
    RIG_JSON_COPY_INPUT = 1 << 3           /* the document keeps its own copy */
};

/* Options grow at the end; a zeroed struct (or NULL) means the defaults. */
typedef struct rig_json_options {
    size_t max_size;    /* 0: RIG_JSON_DEFAULT_MAX_SIZE; at most RIG_JSON_MAX_SIZE_LIMIT */
    unsigned max_depth; /* 0: RIG_JSON_DEFAULT_MAX_DEPTH; containers nested */
    unsigned flags;     /* enum rig_json_parse_flag */
} rig_json_options;

typedef struct rig_json_doc rig_json_doc;

/* An empty document, to be filled by rig_json_doc_parse and reused: a document
 * keeps its memory between parses. NULL when out of memory. */
RIG_API rig_json_doc *rig_json_doc_new(void);
RIG_API void rig_json_doc_free(rig_json_doc *doc);

/* Parses text[0..len) into doc, replacing what it held. Returns 0, or a
 * negative status with details in *err (err may be NULL). On failure the
 * document is empty (its root is missing). */
RIG_API int rig_json_doc_parse(rig_json_doc *doc, const char *text, size_t len,
                               const rig_json_options *opts, rig_json_error *err);

/* One-shot form: a new document, or NULL with *err filled. */
RIG_API rig_json_doc *rig_json_parse(const char *text, size_t len,
                                     const rig_json_options *opts, rig_json_error *err);

/* Number of nodes (values and keys) in the document: its memory is
 * 16 bytes a node. */
RIG_API size_t rig_json_doc_size(const rig_json_doc *doc);

/* ---------------------------------------------------------------- values */

/* A handle to one value in a document: cheap to copy, valid while the document
 * is neither freed nor parsed into again. A missing value (doc == NULL) is what
 * lookups return when there is nothing; every accessor accepts it. */
typedef struct rig_json_val {
    const rig_json_doc *doc;
    uint32_t idx;
} rig_json_val;

typedef enum rig_json_type {
    RIG_JSON_MISSING = 0,
    RIG_JSON_NULL,
    RIG_JSON_BOOL,
    RIG_JSON_INT,
    RIG_JSON_DOUBLE,
    RIG_JSON_STRING,
    RIG_JSON_ARRAY,
    RIG_JSON_OBJECT
} rig_json_type;

/* Facts about how a value was written (rig_json_val_flags). */
enum rig_json_val_flag {
    RIG_JSON_VAL_ESCAPED = 1 << 0,  /* string contains backslash escapes */
    RIG_JSON_VAL_REPLACED = 1 << 1, /* string had lone surrogates, now U+FFFD */
    RIG_JSON_VAL_BIGINT = 1 << 2    /* double written as an integer beyond int64 */
};

RIG_API rig_json_val rig_json_doc_root(const rig_json_doc *doc);

static inline bool rig_json_exists(rig_json_val v) { return v.doc != 0; }

RIG_API rig_json_type rig_json_typeof(rig_json_val v);
RIG_API const char *rig_json_type_name(rig_json_type t); /* "string", "missing", ... */
RIG_API unsigned rig_json_val_flags(rig_json_val v);

static inline bool rig_json_is_null(rig_json_val v) { return rig_json_typeof(v) == RIG_JSON_NULL; }
static inline bool rig_json_is_string(rig_json_val v) { return rig_json_typeof(v) == RIG_JSON_STRING; }
static inline bool rig_json_is_object(rig_json_val v) { return rig_json_typeof(v) == RIG_JSON_OBJECT; }
static inline bool rig_json_is_array(rig_json_val v) { return rig_json_typeof(v) == RIG_JSON_ARRAY; }
static inline bool rig_json_is_number(rig_json_val v) {
    rig_json_type t = rig_json_typeof(v);
    return t == RIG_JSON_INT || t == RIG_JSON_DOUBLE;
}

/* Elements of an array or distinct keys of an object; 0 for anything else. */
RIG_API size_t rig_json_len(rig_json_val v);

/* Member of an object by key (compared after decoding escapes; the key may
 * contain NUL bytes in the n form). Missing when absent or not an object.
 * Linear in the object's size. */
RIG_API rig_json_val rig_json_get(rig_json_val obj, const char *key);
RIG_API rig_json_val rig_json_getn(rig_json_val obj, const char *key, size_t keylen);

/* Element i of an array (linear in i); missing when out of range. */
RIG_API rig_json_val rig_json_at(rig_json_val arr, size_t i);

/* RFC 6901 JSON Pointer ("" is the value itself, "/a/0/b~1c"). Missing when
 * the pointer is malformed or leads nowhere. */
RIG_API rig_json_val rig_json_pointer(rig_json_val root, const char *pointer);

/* Iteration over an array's elements or an object's members:
 *
 *     rig_json_iter it = rig_json_iter_init(obj);
 *     rig_json_val key, val;
 *     while (rig_json_iter_member(&it, &key, &val)) ...
 *
 * rig_json_iter_next yields elements of an array, or the values of an object.
 * Iterating anything else yields nothing. */
typedef struct rig_json_iter {
    const rig_json_doc *doc;
    uint32_t next;
    uint32_t end;
    bool object;
} rig_json_iter;

RIG_API rig_json_iter rig_json_iter_init(rig_json_val container);
RIG_API bool rig_json_iter_next(rig_json_iter *it, rig_json_val *elem);
RIG_API bool rig_json_iter_member(rig_json_iter *it, rig_json_val *key, rig_json_val *val);

/* Typed getters: 0, or RIG_JSON_EMISSING / RIG_JSON_ETYPE / RIG_JSON_ERANGE.
 * int64 also accepts a number written as a double when its text denotes an
 * integer inside int64's range ("1e3", "100.0", "9007199254740993.0"); this
 * is judged from the text, so it never returns an integer the rounded double
 * made up. double accepts an integer (rounded to nearest beyond 2^53). */
RIG_API int rig_json_get_bool(rig_json_val v, bool *out);
RIG_API int rig_json_get_int64(rig_json_val v, int64_t *out);
RIG_API int rig_json_get_double(rig_json_val v, double *out);

/* Decoded length in bytes of a string (escapes resolved); 0 for non-strings. */
RIG_API size_t rig_json_str_len(rig_json_val v);

/* Decodes a string into buf (NUL-terminated; the string itself may contain
 * NUL bytes, so use *len). RIG_JSON_ENOSPC when cap <= decoded length, with
 * *len set to the length needed. len may be NULL. */
RIG_API int rig_json_str_copy(rig_json_val v, char *buf, size_t cap, size_t *len);

/* Decoded, NUL-terminated copy in arena a (valid until the arena is reset or
 * freed). NULL when v is not a string or memory runs out. len may be NULL. */
RIG_API const char *rig_json_str_dup(rig_json_val v, rig_arena *a, size_t *len);

/* Zero-copy view of a string that has no escapes: true with *p pointing into
 * the input (not NUL-terminated). False for escaped strings and non-strings. */
RIG_API bool rig_json_str_view(rig_json_val v, const char **p, size_t *len);

/* Does string v, decoded, equal s? False for non-strings. */
RIG_API bool rig_json_str_eq(rig_json_val v, const char *s);
RIG_API bool rig_json_str_eqn(rig_json_val v, const char *s, size_t n);

/* The exact text of a value in the input (no surrounding whitespace), to echo
 * an id or forward arguments without re-encoding. NULL for a missing value. */
RIG_API const char *rig_json_raw(rig_json_val v, size_t *len);

/* Deep equality by JSON value: numbers by numeric value (1 == 1.0, -0 == 0),
 * strings after decoding, objects as sets of distinct keys (order ignored,
 * last duplicate wins). Two missing values are equal. Works across documents;
 * iterative, so any depth is safe. Returns false if memory runs out. */
RIG_API bool rig_json_equal(rig_json_val a, rig_json_val b);

/* ---------------------------------------------------------------- writer */

enum rig_json_write_flag {
    RIG_JSON_WRITE_PRETTY = 1 << 0 /* two-space indent, one member per line */
};

/* A streaming writer. The struct is public so it can live on the stack and be
 * reused; its fields are private. It holds no pointer into itself, so it may
 * be moved (returned by value), but not copied: two copies would own one
 * buffer. Errors are sticky: after the first one, every call returns it and
 * writes nothing; rig_json_writer_finish reports it.
 *
 *     rig_json_writer w;
 *     rig_json_writer_init(&w, 0);
 *     rig_json_write_object_begin(&w);
 *     rig_json_write_key(&w, "id");  rig_json_write_raw(&w, id, idlen);
 *     rig_json_write_object_end(&w);
 *     const char *out = rig_json_writer_finish(&w, &len);
 *     ...
 *     rig_json_writer_free(&w);
 */
typedef struct rig_json_writer {
    char *buf;
    size_t len, cap;
    uint8_t *stack; /* open containers ('a' or 'o') past small_stack, or NULL */
    uint32_t depth, stack_cap;
    uint8_t state; /* see write.c */
    uint8_t flags;
    int err;
    size_t replaced; /* invalid UTF-8 bytes written as U+FFFD so far */
    uint8_t small_stack[32];
} rig_json_writer;

RIG_API void rig_json_writer_init(rig_json_writer *w, unsigned flags);
/* Empties the writer, keeping its memory and flags. */
RIG_API void rig_json_writer_reset(rig_json_writer *w);
RIG_API void rig_json_writer_free(rig_json_writer *w);
/* The sticky error, 0 if none. */
RIG_API int rig_json_writer_error(const rig_json_writer *w);
/* The output, NUL-terminated, once exactly one complete value was written;
 * NULL after an error (see rig_json_writer_error) or while the value is still
 * incomplete, in which case writing may go on. The text stays owned by the
 * writer. len may be NULL. */
RIG_API const char *rig_json_writer_finish(rig_json_writer *w, size_t *len);
/* Like finish, but hands the malloc'd buffer to the caller (free() it) and
 * resets the writer. */
RIG_API char *rig_json_writer_detach(rig_json_writer *w, size_t *len);

RIG_API int rig_json_write_object_begin(rig_json_writer *w);
RIG_API int rig_json_write_object_end(rig_json_writer *w);
RIG_API int rig_json_write_array_begin(rig_json_writer *w);
RIG_API int rig_json_write_array_end(rig_json_writer *w);
/* An object key; must be followed by a value. */
RIG_API int rig_json_write_key(rig_json_writer *w, const char *key);
RIG_API int rig_json_write_keyn(rig_json_writer *w, const char *key, size_t len);
/* The key is string v of a parsed document (a key from rig_json_iter_member,
 * or any string value), copied without decoding when it has no escapes:
 * the way to copy an object member by member. EINVAL if v is no string. */
RIG_API int rig_json_write_keyv(rig_json_writer *w, rig_json_val v);
/* A string, escaped. Bytes that are not valid UTF-8 are written as U+FFFD
 * (one per byte), so the output is always valid JSON. */
RIG_API int rig_json_write_string(rig_json_writer *w, const char *s);
RIG_API int rig_json_write_stringn(rig_json_writer *w, const char *s, size_t len);
RIG_API int rig_json_write_int(rig_json_writer *w, int64_t v);
RIG_API int rig_json_write_uint(rig_json_writer *w, uint64_t v);
/* Shortest text that parses back to the same double; NaN and infinities,
 * which JSON cannot represent, are written as null (as JSON.stringify does). */
RIG_API int rig_json_write_double(rig_json_writer *w, double v);
RIG_API int rig_json_write_bool(rig_json_writer *w, bool v);
RIG_API int rig_json_write_null(rig_json_writer *w);
/* Inserts text that is already one valid JSON value (for instance from
 * rig_json_raw), unchanged. The writer trusts it; empty text is EINVAL. */
RIG_API int rig_json_write_raw(rig_json_writer *w, const char *json, size_t len);
/* Writes a parsed value: duplicate keys collapsed (last wins), strings with
 * escapes re-encoded, numbers as written. Iterative; any depth is safe. */
RIG_API int rig_json_write_value(rig_json_writer *w, rig_json_val v);

/* Formats a finite double as the shortest text that parses back to it, in
 * JavaScript's style (1e+21, 1.5e-7, 0.000001) but with ".0" on integral values
 * so it reads back as a double. Returns the length; buf needs 32 bytes.
 * NaN and infinities give "null". */
RIG_API size_t rig_json_format_double(double v, char buf[32]);

/* ---------------------------------------------------------------- framing */

/* Splits newline-delimited JSON (MCP stdio, the control channel) into frames
 * without copying. The caller owns the read buffer:
 *
 *     rig_json_frame fr;
 *     int rc;
 *     while ((rc = rig_json_framer_next(&f, buf + pos, len - pos, &fr)) != 0) {
 *         pos += fr.consumed;
 *         if (rc == 1) handle(fr.data, fr.len);
 *         else         report_too_large(fr.len);    // rc == RIG_JSON_EFRAME
 *     }
 *     pos += fr.consumed;    // bytes of an oversized frame dropped while waiting
 *     // keep buf[pos..len), read more after it, call again from the same start
 *
 * A frame excludes its "\n" and a trailing "\r"; blank and whitespace-only lines
 * are skipped. The framer remembers how far it has scanned, so feeding a long
 * frame in small pieces costs linear time. A frame longer than max_frame is
 * reported once (RIG_JSON_EFRAME, with fr.len the bytes seen so far) as soon
 * as it is known to be too long, and the rest of it is dropped as it arrives:
 * an oversized frame is never buffered whole. */
typedef struct rig_json_framer {
    size_t max_frame;
    size_t scanned;  /* bytes of the pending frame known to hold no newline */
    bool discarding; /* inside an oversized frame */
} rig_json_framer;

typedef struct rig_json_frame {
    const char *data;
    size_t len;
    size_t consumed; /* bytes the caller may drop from the front of its buffer */
} rig_json_frame;

/* max_frame 0 means RIG_JSON_DEFAULT_MAX_SIZE. */
RIG_API void rig_json_framer_init(rig_json_framer *f, size_t max_frame);
/* 1: a frame is in *out. 0: no complete frame; out->consumed may still be
 * non-zero (skipped blank lines, dropped bytes). RIG_JSON_EFRAME: see above. */
RIG_API int rig_json_framer_next(rig_json_framer *f, const char *buf, size_t len,
                                 rig_json_frame *out);
/* At end of input: the last frame, which had no newline, if any. Same returns. */
RIG_API int rig_json_framer_finish(rig_json_framer *f, const char *buf, size_t len,
                                   rig_json_frame *out);

#ifdef __cplusplus
}
#endif
#endif
