/* dl.h — libraries loaded on first use instead of at start: libcurl (for
 * fetch and web_search) and libxml2 (for fetch's HTML to Markdown).
 * Internal.
 *
 * Linked normally, the two pull in about forty shared libraries (TLS, SSH,
 * LDAP, Kerberos, ICU, ...) whose loading and constructors cost ~30 ms at
 * every start of rig, four times what `rig call` costs without them, and
 * most calls never fetch anything. So the code that uses them includes
 * util/dl_curl.h or util/dl_xml.h, whose macros send each function it
 * calls through a table filled by dlopen on first use; rig does not link
 * them at all, and a machine without them runs everything but fetch,
 * which then says what is missing. */
#ifndef RIG_UTIL_DL_H
#define RIG_UTIL_DL_H

#include <stddef.h>

#include "util/compiler.h"

/* Opens `soname` and fills `n` function pointers, named by `names`, into
 * `slots`, once; later calls return the first answer. 0, or -1 with `why`
 * (cap bytes) naming the library or symbol missing. Thread-safe. */
typedef struct rig__dl {
    const char *soname;
    const char *package;        /* the Debian package that has it, for the message */
    const char *const *names;
    void **slots;
    size_t n;
    /* set by rig__dl_load */
    int state;                  /* 0 not tried, 1 loaded, -1 failed */
    char error[256];
} rig__dl;

RIG_INTERNAL int rig__dl_load(rig__dl *lib, char *why, size_t cap);

#endif
