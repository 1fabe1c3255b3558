/* html2md.h — HTML to readable Markdown for fetch: the page's main content
 * found and kept (headings, paragraphs, lists, links, images, code blocks,
 * tables, quotes), scripts, styles, navigation and other page furniture
 * dropped. Internal.
 *
 * Parsing is libxml2's HTML parser (it recovers from any markup a browser
 * would); finding the main content and writing Markdown are ours. */
#ifndef RIG_TOOLS_HTML2MD_H
#define RIG_TOOLS_HTML2MD_H

#include <stddef.h>

#include "util/compiler.h"

typedef struct rig__markdown {
    char *text;     /* valid UTF-8, NUL-terminated */
    size_t len;
    char *title;    /* the page's <title> (or first <h1>), or NULL */
} rig__markdown;

/* Converts `len` bytes of HTML. `charset` is the one the HTTP response
 * declared (NULL: the document's <meta> says, else UTF-8); `base_url` (may
 * be NULL) makes relative links and image sources absolute. 0 with *out
 * filled (free with rig__markdown_free), or -1 with `why` (cap bytes) when
 * out of memory or the input cannot be parsed at all. */
RIG_INTERNAL int rig__html_to_markdown(const char *html, size_t len, const char *charset,
                                       const char *base_url, rig__markdown *out, char *why,
                                       size_t cap);
RIG_INTERNAL void rig__markdown_free(rig__markdown *m);

#endif
