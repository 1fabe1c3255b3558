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

#endif
