/* dl_xml.h — the libxml2 functions html2md.c calls, through dl.h's table:
 * include this after libxml2's headers and call rig__xml_load before the
 * first of them. Internal. */
#ifndef RIG_UTIL_DL_XML_H
#define RIG_UTIL_DL_XML_H

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/uri.h>

#include "util/compiler.h"

#define RIG__XML_FUNCS(X)                                                                       \
    X(xmlBuildURI) X(xmlStrdup) X(xmlNodeGetContent) X(xmlInitParser) X(xmlFreeDoc)            \
    X(xmlDocGetRootElement) X(xmlChildElementCount) X(htmlReadMemory)

typedef struct rig__xml_api {
#define RIG__XML_SLOT(f) __typeof__(f) *f;
    RIG__XML_FUNCS(RIG__XML_SLOT)
#undef RIG__XML_SLOT
} rig__xml_api;

RIG_INTERNAL extern rig__xml_api rig__xml_fn;
/* 0 once libxml2 is loaded; -1 with `why` (cap bytes) when it cannot be. */
RIG_INTERNAL int rig__xml_load(char *why, size_t cap);

#ifndef RIG_DL_IMPL
#define xmlBuildURI rig__xml_fn.xmlBuildURI
#define xmlStrdup rig__xml_fn.xmlStrdup
#define xmlNodeGetContent rig__xml_fn.xmlNodeGetContent
#define xmlInitParser rig__xml_fn.xmlInitParser
#define xmlFreeDoc rig__xml_fn.xmlFreeDoc
#define xmlDocGetRootElement rig__xml_fn.xmlDocGetRootElement
#define xmlChildElementCount rig__xml_fn.xmlChildElementCount
#define htmlReadMemory rig__xml_fn.htmlReadMemory
/* libxml2 allocates with malloc unless told otherwise (xmlMemSetup), and
 * rig never tells it otherwise. */
#undef xmlFree
#define xmlFree free
#endif

#endif
