/* fuzz_common.h — helpers shared by the libFuzzer targets: a failure macro
 * that names the broken property, an independent UTF-8 validator, and
 * structural comparison of rig values and jansson values.
 *
 * Everything here is written from the specifications (RFC 3629 / Unicode
 * table 3-7, RFC 8259), not from rig's sources, so a mistake in rig is not
 * copied into its oracle. */
#ifndef RIG_FUZZ_COMMON_H
#define RIG_FUZZ_COMMON_H

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig/json.h"

#define FUZZ_UNUSED __attribute__((unused))

/* A broken property: say which, then abort so libFuzzer saves the input. */
#define FUZZ_CHECK(cond, ...)                                                      \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "\nFUZZ CHECK FAILED at %s:%d: %s\n  ", __FILE__,    \
                    __LINE__, #cond);                                              \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

/* Length of the well-formed UTF-8 sequence at s[i..n), or 0. Table 3-7 of
 * the Unicode standard, spelled out row by row. */
static FUZZ_UNUSED size_t fz_utf8_seq(const uint8_t *s, size_t i, size_t n) {
    uint8_t b0 = s[i];
    if (b0 < 0x80)
        return 1;
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
    } else if (b0 == 0xE0) {
        len = 3, lo = 0xA0;
    } else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
        len = 3;
    } else if (b0 == 0xED) {
        len = 3, hi = 0x9F;
    } else if (b0 == 0xF0) {
        len = 4, lo = 0x90;
    } else if (b0 >= 0xF1 && b0 <= 0xF3) {
        len = 4;
    } else if (b0 == 0xF4) {
        len = 4, hi = 0x8F;
    } else {
        return 0;
    }
    if (n - i < len)
        return 0;
    if (s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    return len;
}

static FUZZ_UNUSED bool fz_utf8_valid(const uint8_t *s, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t k = fz_utf8_seq(s, i, n);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

static FUZZ_UNUSED bool fz_same_bits(double a, double b) {
    uint64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x == y;
}

/* Two jansson values, strictly: integers exactly, reals bit for bit (so -0.0
 * and 0.0 differ), strings by bytes, objects as key sets. Recursion depth is
 * bounded by jansson's own parse depth limit (2048). */
static FUZZ_UNUSED bool fz_jj_equal(const json_t *a, const json_t *b, int depth) {
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (depth > 100000)
        return false;
    switch (json_typeof(a)) {
    case JSON_NULL:
    case JSON_TRUE:
    case JSON_FALSE: return true;
    case JSON_INTEGER: return json_integer_value(a) == json_integer_value(b);
    case JSON_REAL: return fz_same_bits(json_real_value(a), json_real_value(b));
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case JSON_ARRAY: {
        size_t n = json_array_size(a);
        if (n != json_array_size(b))
            return false;
        for (size_t i = 0; i < n; i++)
            if (!fz_jj_equal(json_array_get(a, i), json_array_get(b, i), depth + 1))
                return false;
        return true;
    }
    case JSON_OBJECT: {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        size_t klen;
        json_t *v;
        json_object_keylen_foreach((json_t *)a, k, klen, v) {
            json_t *w = json_object_getn(b, k, klen);
            if (!w || !fz_jj_equal(v, w, depth + 1))
                return false;
        }
        return true;
    }
    }
    return false;
}

/* Decoded bytes of rig string v into a malloc'd buffer (NUL-terminated);
 * checks rig_json_str_copy and rig_json_str_len against each other. */
static FUZZ_UNUSED char *fz_rig_string(rig_json_val v, size_t *len) {
    size_t n = rig_json_str_len(v), got = (size_t)-1;
    char *buf = malloc(n + 1);
    FUZZ_CHECK(buf, "out of memory");
    int rc = rig_json_str_copy(v, buf, n + 1, &got);
    FUZZ_CHECK(rc == 0 && got == n, "rig_json_str_copy rc=%d len=%zu, rig_json_str_len=%zu", rc,
               got, n);
    FUZZ_CHECK(buf[n] == '\0', "rig_json_str_copy did not NUL-terminate");
    if (n > 0) {
        got = (size_t)-1;
        rc = rig_json_str_copy(v, buf, n, &got);
        FUZZ_CHECK(rc == RIG_JSON_ENOSPC && got == n,
                   "rig_json_str_copy into a short buffer: rc=%d len=%zu (want ENOSPC, %zu)", rc,
                   got, n);
        rc = rig_json_str_copy(v, buf, n + 1, NULL);
        FUZZ_CHECK(rc == 0, "rig_json_str_copy again: rc=%d", rc);
    }
    *len = n;
    return buf;
}

/* A rig value against a jansson value parsed from the same text (or built to
 * match it). Numbers: rig INT against a jansson integer exactly; rig DOUBLE
 * against a jansson real bit for bit; rig's "-0" (the double -0.0) against
 * jansson's integer 0. Prints where they differ into why. */
static FUZZ_UNUSED bool fz_rj_equal(rig_json_val r, const json_t *j, int depth, char *why,
                                    size_t whycap) {
    rig_json_type t = rig_json_typeof(r);
    if (depth > 100000) {
        snprintf(why, whycap, "too deep");
        return false;
    }
#define FZ_MISMATCH(...)                                                                           \
    do {                                                                                           \
        snprintf(why, whycap, __VA_ARGS__);                                                        \
        return false;                                                                              \
    } while (0)
    switch (t) {
    case RIG_JSON_NULL:
        if (!json_is_null(j))
            FZ_MISMATCH("rig null, jansson type %d", json_typeof(j));
        return true;
    case RIG_JSON_BOOL: {
        bool b = false;
        FUZZ_CHECK(rig_json_get_bool(r, &b) == 0, "rig_json_get_bool on a bool failed");
        if (!json_is_boolean(j) || b != json_is_true(j))
            FZ_MISMATCH("rig bool %d, jansson type %d", b, json_typeof(j));
        return true;
    }
    case RIG_JSON_INT: {
        int64_t i = 0;
        FUZZ_CHECK(rig_json_get_int64(r, &i) == 0, "rig_json_get_int64 on an int failed");
        if (!json_is_integer(j) || json_integer_value(j) != i)
            FZ_MISMATCH("rig int %" PRId64 ", jansson type %d", i, json_typeof(j));
        return true;
    }
    case RIG_JSON_DOUBLE: {
        double d = 0;
        FUZZ_CHECK(rig_json_get_double(r, &d) == 0, "rig_json_get_double on a double failed");
        if (json_is_real(j)) {
            if (!fz_same_bits(d, json_real_value(j)))
                FZ_MISMATCH("rig double %.17g, jansson real %.17g", d, json_real_value(j));
            return true;
        }
        if (json_is_integer(j) && json_integer_value(j) == 0 && d == 0 && signbit(d) &&
            !(rig_json_val_flags(r) & RIG_JSON_VAL_BIGINT))
            return true; /* "-0" */
        FZ_MISMATCH("rig double %.17g, jansson type %d", d, json_typeof(j));
    }
    case RIG_JSON_STRING: {
        if (!json_is_string(j))
            FZ_MISMATCH("rig string, jansson type %d", json_typeof(j));
        size_t n;
        char *s = fz_rig_string(r, &n);
        bool same = n == json_string_length(j) && memcmp(s, json_string_value(j), n) == 0;
        free(s);
        if (!same)
            FZ_MISMATCH("strings differ (rig %zu bytes, jansson %zu bytes)", n,
                        json_string_length(j));
        return true;
    }
    case RIG_JSON_ARRAY: {
        if (!json_is_array(j))
            FZ_MISMATCH("rig array, jansson type %d", json_typeof(j));
        size_t n = rig_json_len(r);
        if (n != json_array_size(j))
            FZ_MISMATCH("array of %zu (rig) vs %zu (jansson)", n, json_array_size(j));
        rig_json_iter it = rig_json_iter_init(r);
        rig_json_val e;
        size_t i = 0;
        while (rig_json_iter_next(&it, &e)) {
            FUZZ_CHECK(i < n, "array iteration yields more than rig_json_len (%zu)", n);
            if (!fz_rj_equal(e, json_array_get(j, i), depth + 1, why, whycap))
                return false;
            i++;
        }
        FUZZ_CHECK(i == n, "array iteration yields %zu, rig_json_len %zu", i, n);
        return true;
    }
    case RIG_JSON_OBJECT: {
        if (!json_is_object(j))
            FZ_MISMATCH("rig object, jansson type %d", json_typeof(j));
        size_t n = rig_json_len(r);
        if (n != json_object_size(j))
            FZ_MISMATCH("object of %zu keys (rig) vs %zu (jansson)", n, json_object_size(j));
        rig_json_iter it = rig_json_iter_init(r);
        rig_json_val k, v;
        size_t i = 0;
        while (rig_json_iter_member(&it, &k, &v)) {
            FUZZ_CHECK(i < n, "object iteration yields more than rig_json_len (%zu)", n);
            size_t kl;
            char *key = fz_rig_string(k, &kl);
            json_t *jv = json_object_getn(j, key, kl);
            free(key);
            if (!jv)
                FZ_MISMATCH("rig key %zu (%zu bytes) missing in jansson's object", i, kl);
            if (!fz_rj_equal(v, jv, depth + 1, why, whycap))
                return false;
            i++;
        }
        FUZZ_CHECK(i == n, "object iteration yields %zu, rig_json_len %zu", i, n);
        return true;
    }
    default: FZ_MISMATCH("rig value of type %d", (int)t);
    }
#undef FZ_MISMATCH
}

/* out without the whitespace that sits outside strings. */
static FUZZ_UNUSED char *fz_strip_layout(const char *out, size_t len, size_t *olen) {
    char *s = malloc(len + 1);
    FUZZ_CHECK(s, "out of memory");
    size_t o = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = out[i];
        if (in_str) {
            s[o++] = c;
            if (c == '\\' && i + 1 < len)
                s[o++] = out[++i];
            else if (c == '"')
                in_str = false;
        } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            s[o++] = c;
            in_str = c == '"';
        }
    }
    *olen = o;
    return s;
}

#endif
