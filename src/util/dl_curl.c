/* dl_curl.c — libcurl's table (dl_curl.h), filled on first use. */
#define RIG_DL_IMPL
#include "util/dl_curl.h"

#include "util/dl.h"

rig__curl_api rig__curl_fn;

static const char *const names[] = {
#define RIG__CURL_NAME(f) #f,
    RIG__CURL_FUNCS(RIG__CURL_NAME)
#undef RIG__CURL_NAME
};

static rig__dl lib = {
    .soname = "libcurl.so.4",
    .package = "libcurl4",
    .names = names,
    .slots = (void **)&rig__curl_fn,
    .n = sizeof names / sizeof *names,
};

int rig__curl_load(char *why, size_t cap)
{
    _Static_assert(sizeof rig__curl_fn == sizeof names / sizeof *names * sizeof(void *),
                   "one slot per name");
    return rig__dl_load(&lib, why, cap);
}
