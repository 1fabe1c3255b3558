/* dl_xml.c — libxml2's table (dl_xml.h), filled on first use. */
#define RIG_DL_IMPL
#include "util/dl_xml.h"

#include "util/dl.h"

rig__xml_api rig__xml_fn;

static const char *const names[] = {
#define RIG__XML_NAME(f) #f,
    RIG__XML_FUNCS(RIG__XML_NAME)
#undef RIG__XML_NAME
};

static rig__dl lib = {
    .soname = "libxml2.so.2",
    .package = "libxml2",
    .names = names,
    .slots = (void **)&rig__xml_fn,
    .n = sizeof names / sizeof *names,
};

int rig__xml_load(char *why, size_t cap)
{
    _Static_assert(sizeof rig__xml_fn == sizeof names / sizeof *names * sizeof(void *),
                   "one slot per name");
    return rig__dl_load(&lib, why, cap);
}
