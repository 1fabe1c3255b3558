/* error.c — status codes as text, and where in the input an error sits.
 *
 * The parser records only the byte offset of an error; line and column are
 * computed here, after the fact, because counting newlines while parsing would
 * tax every successful parse for the rare failed one. */
#include <stdio.h>

#include "json/internal.h"

const char *rig_json_strerror(int code) {
    switch (code) {
    case RIG_JSON_OK: return "success";
    case RIG_JSON_ESYNTAX: return "syntax error";
    case RIG_JSON_ETRUNCATED: return "unexpected end of input";
    case RIG_JSON_EDEPTH: return "nesting too deep";
    case RIG_JSON_ESIZE: return "input too large";
    case RIG_JSON_EUTF8: return "invalid UTF-8";
    case RIG_JSON_ESTRING: return "invalid string";
    case RIG_JSON_ENUMBER: return "invalid number";
    case RIG_JSON_ERANGE: return "number out of range";
    case RIG_JSON_ENOMEM: return "out of memory";
    case RIG_JSON_ETYPE: return "wrong type";
    case RIG_JSON_EMISSING: return "no such value";
    case RIG_JSON_ENOSPC: return "buffer too small";
    case RIG_JSON_EUSAGE: return "calls out of order";
    case RIG_JSON_EINVAL: return "invalid argument";
    case RIG_JSON_EFRAME: return "frame too large";
    default: return "unknown error";
    }
}

void rig__error_locate(const char *text, size_t len, size_t offset, unsigned *line,
                       unsigned *column) {
    if (!text) {
        *line = *column = 0;
        return;
    }
    if (offset > len)
        offset = len;
    unsigned l = 1, c = 1;
    for (size_t i = 0; i < offset; i++) {
        unsigned char b = (unsigned char)text[i];
        if (b == '\n') {
            l++;
            c = 1;
        } else if ((b & 0xC0) != 0x80) { /* count characters, not continuation bytes */
            c++;
        }
    }
    *line = l;
    *column = c;
}

int rig_json_error_format(const rig_json_error *err, char *buf, size_t cap) {
    const char *reason = err->reason ? err->reason : rig_json_strerror(err->code);
    if (err->line == 0)
        return snprintf(buf, cap, "%s", reason);
    return snprintf(buf, cap, "line %u, column %u (byte %zu): %s", err->line, err->column,
                    err->offset, reason);
}
