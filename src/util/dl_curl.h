/* dl_curl.h — the libcurl functions rig calls, through dl.h's table:
 * include this instead of <curl/curl.h> and call rig__curl_load before the
 * first of them. Internal. */
#ifndef RIG_UTIL_DL_CURL_H
#define RIG_UTIL_DL_CURL_H

#include <curl/curl.h>

#include "util/compiler.h"

/* curl's type-checking macros (typecheck-gcc.h) would wrap ours */
#undef curl_easy_setopt
#undef curl_easy_getinfo

#define RIG__CURL_FUNCS(X)                                                                      \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform)              \
    X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_easy_header)         \
    X(curl_free) X(curl_slist_append) X(curl_slist_free_all) X(curl_url) X(curl_url_cleanup)    \
    X(curl_url_dup) X(curl_url_get) X(curl_url_set) X(curl_url_strerror)

typedef struct rig__curl_api {
#define RIG__CURL_SLOT(f) __typeof__(f) *f;
    RIG__CURL_FUNCS(RIG__CURL_SLOT)
#undef RIG__CURL_SLOT
} rig__curl_api;

RIG_INTERNAL extern rig__curl_api rig__curl_fn;
/* 0 once libcurl is loaded; -1 with `why` (cap bytes) when it cannot be. */
RIG_INTERNAL int rig__curl_load(char *why, size_t cap);

#ifndef RIG_DL_IMPL
#define curl_global_init rig__curl_fn.curl_global_init
#define curl_easy_init rig__curl_fn.curl_easy_init
#define curl_easy_setopt rig__curl_fn.curl_easy_setopt
#define curl_easy_perform rig__curl_fn.curl_easy_perform
#define curl_easy_getinfo rig__curl_fn.curl_easy_getinfo
#define curl_easy_cleanup rig__curl_fn.curl_easy_cleanup
#define curl_easy_strerror rig__curl_fn.curl_easy_strerror
#define curl_easy_header rig__curl_fn.curl_easy_header
#define curl_free rig__curl_fn.curl_free
#define curl_slist_append rig__curl_fn.curl_slist_append
#define curl_slist_free_all rig__curl_fn.curl_slist_free_all
#define curl_url rig__curl_fn.curl_url
#define curl_url_cleanup rig__curl_fn.curl_url_cleanup
#define curl_url_dup rig__curl_fn.curl_url_dup
#define curl_url_get rig__curl_fn.curl_url_get
#define curl_url_set rig__curl_fn.curl_url_set
#define curl_url_strerror rig__curl_fn.curl_url_strerror
#endif

#endif
