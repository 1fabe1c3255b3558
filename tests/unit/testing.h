/* testing.h — what every unit test includes: cmocka and small helpers for
 * parsing literals. */
#ifndef RIG_TESTING_H
#define RIG_TESTING_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rig/rig.h"

/* Parses a NUL-terminated literal with default options; fails the test when
 * it does not parse. */
static inline rig_json_doc *parse_ok(const char *text) {
    rig_json_error err;
    rig_json_doc *d = rig_json_parse(text, strlen(text), NULL, &err);
    if (!d) {
        char msg[256];
        rig_json_error_format(&err, msg, sizeof msg);
        fail_msg("parse of %s failed: %s", text, msg);
    }
    return d;
}

/* Parses with options and returns the status, filling *err. */
static inline int parse_status(const char *text, size_t len, const rig_json_options *o,
                               rig_json_error *err) {
    rig_json_doc *d = rig_json_doc_new();
    assert_non_null(d);
    int rc = rig_json_doc_parse(d, text, len, o, err);
    rig_json_doc_free(d);
    return rc;
}

/* A malloc'd copy of exactly len bytes, so sanitizers catch any read past it. */
static inline char *exact_copy(const char *s, size_t len) {
    char *p = malloc(len ? len : 1);
    assert_non_null(p);
    memcpy(p, s, len);
    return p;
}

/* The bits of a double and back. */
static inline uint64_t bits_of(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double double_of(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* splitmix64 with a fixed seed (each test file has its own state), so every
 * run tests the same values. */
static uint64_t rng;
static inline uint64_t rnd(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline unsigned rnd_below(unsigned n) { return (unsigned)(rnd() % n); }

#endif
