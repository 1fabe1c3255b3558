/* html2md.c — HTML to readable Markdown (html2md.h), for fetch.
 *
 * Four steps, each linear in the input:
 *
 *   1. Bytes to clean UTF-8. The charset is the BOM's, else the one the HTTP
 *      response declared, else a <meta> in the first bytes, else UTF-8, with
 *      the WHATWG aliases that matter (latin1 is windows-1252). iconv(3)
 *      converts, invalid bytes become U+FFFD and NUL and other C0 controls go,
 *      so libxml2 gets valid UTF-8 and is told so (HTML_PARSE_IGNORE_ENC): it
 *      never guesses Latin-1 halfway through a page.
 *   2. libxml2 builds the tree. It stops nesting at 256 levels (what is deeper
 *      is lost), which bounds every recursion below; ours also carry a cap.
 *   3. One iterative pass over <body> classifies each element (dropped tags,
 *      hidden, page furniture by tag, class, id or role) and sums its visible
 *      text, link text and commas bottom-up; a second scores paragraphs
 *      readability-style. The content is <main>/[role=main], else a dominant
 *      <article>, else the best-scoring container with its worthy siblings,
 *      else the whole body without furniture.
 *   4. A streaming writer turns the chosen subtrees into CommonMark + GFM
 *      tables: line prefixes for quotes and list items, lazy openers so empty
 *      emphasis or links vanish, whitespace collapsed as a browser would, and
 *      escapes only where a character would otherwise change meaning.
 *
 * Per-element facts live in an array indexed through xmlNode._private, which
 * libxml2 leaves to its users. */
#include "tools/html2md.h"

#include <errno.h>
#include <iconv.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/uri.h>

#include "util/dl_xml.h"

#include "util/buf.h"

/* Deeper than libxml2 ever nests (256); past it an element's text is
 * written flat. */
#define MAX_DEPTH 400
/* Quote and list nesting that still indents; deeper containers write their
 * lines unindented, so a deep nest cannot multiply the output. */
#define MAX_PREFIXES 16
/* A colspan wider than this counts as this (browsers clamp at 1000). */
#define MAX_COLSPAN 64
/* A table with more columns is written as blocks, not as a GFM table. */
#define MAX_TABLE_COLS 64
/* Text (in bytes, whitespace runs counted once) a content candidate needs
 * unless it holds most of the page's text anyway. */
#define MIN_CONTENT 200
/* How far into the page to look for <meta charset>. The WHATWG prescan
 * stops at 1024 bytes; pages with a long <head> put it later. */
#define META_SCAN 8192

/* ---- tags ---------------------------------------------------------------- */

enum { TB = 1, /* block */ TD = 2, /* dropped with its content */ TC = 4 /* code */ };

/* Sorted by name: looked up with bsearch. */
#define TAGS(X)                                                                                    \
    X(A, "a", 0) X(ADDRESS, "address", TB) X(APPLET, "applet", TD) X(AREA, "area", TD)             \
    X(ARTICLE, "article", TB) X(ASIDE, "aside", TB) X(AUDIO, "audio", TD) X(B, "b", 0)             \
    X(BASE, "base", TD) X(BLOCKQUOTE, "blockquote", TB) X(BODY, "body", TB) X(BR, "br", 0)         \
    X(BUTTON, "button", TD) X(CANVAS, "canvas", TD) X(CAPTION, "caption", TB)                      \
    X(CENTER, "center", TB) X(CODE, "code", TC) X(DATALIST, "datalist", TD) X(DD, "dd", TB)        \
    X(DEL, "del", 0) X(DETAILS, "details", TB) X(DIALOG, "dialog", TD) X(DIR, "dir", TB)           \
    X(DIV, "div", TB) X(DL, "dl", TB) X(DT, "dt", TB) X(EM, "em", 0) X(EMBED, "embed", TD)         \
    X(FIELDSET, "fieldset", TB) X(FIGCAPTION, "figcaption", TB) X(FIGURE, "figure", TB)            \
    X(FOOTER, "footer", TB) X(FORM, "form", TB) X(FRAME, "frame", TD)                              \
    X(FRAMESET, "frameset", TD) X(H1, "h1", TB) X(H2, "h2", TB) X(H3, "h3", TB) X(H4, "h4", TB)    \
    X(H5, "h5", TB) X(H6, "h6", TB) X(HEAD, "head", TD) X(HEADER, "header", TB)                    \
    X(HGROUP, "hgroup", TB) X(HR, "hr", TB) X(HTML, "html", TB) X(I, "i", 0)                       \
    X(IFRAME, "iframe", TD) X(IMG, "img", 0) X(INPUT, "input", TD) X(KBD, "kbd", TC)               \
    X(LEGEND, "legend", TB) X(LI, "li", TB) X(LINK, "link", TD) X(LISTING, "listing", TB | TC)     \
    X(MAIN, "main", TB) X(MAP, "map", TD) X(MENU, "menu", TB) X(META, "meta", TD)                  \
    X(METER, "meter", TD) X(NAV, "nav", TB) X(NOFRAMES, "noframes", TD)                            \
    X(NOSCRIPT, "noscript", TD) X(OBJECT, "object", TD) X(OL, "ol", TB)                            \
    X(OPTGROUP, "optgroup", TD) X(OPTION, "option", TD) X(OUTPUT, "output", TD) X(P, "p", TB)      \
    X(PARAM, "param", TD) X(PLAINTEXT, "plaintext", TB | TC) X(PRE, "pre", TB | TC)                \
    X(PROGRESS, "progress", TD) X(Q, "q", 0) X(S, "s", 0) X(SAMP, "samp", TC)                      \
    X(SCRIPT, "script", TD) X(SECTION, "section", TB) X(SELECT, "select", TD)                      \
    X(SOURCE, "source", TD) X(STRIKE, "strike", 0) X(STRONG, "strong", 0) X(STYLE, "style", TD)    \
    X(SUMMARY, "summary", TB) X(SVG, "svg", TD) X(TABLE, "table", TB) X(TBODY, "tbody", TB)        \
    X(TD, "td", TB) X(TEMPLATE, "template", TD) X(TEXTAREA, "textarea", TD)                        \
    X(TFOOT, "tfoot", TB) X(TH, "th", TB) X(THEAD, "thead", TB) X(TITLE, "title", TD)              \
    X(TR, "tr", TB) X(TRACK, "track", TD) X(TT, "tt", TC) X(UL, "ul", TB) X(VIDEO, "video", TD)    \
    X(XMP, "xmp", TB | TC)

#define TAG_ENUM(id, name, fl) T_##id,
enum { T_OTHER, TAGS(TAG_ENUM) T_COUNT };
#undef TAG_ENUM

typedef struct tagdef {
    const char *name;
    uint8_t tag, flags;
} tagdef;

#define TAG_DEF(id, name, fl) {name, T_##id, fl},
static const tagdef tags[] = {TAGS(TAG_DEF)};
#undef TAG_DEF

static int tagdef_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const tagdef *)elem)->name);
}

static const tagdef *tag_find(const xmlChar *name)
{
    if (!name)
        return NULL;
    return bsearch(name, tags, sizeof tags / sizeof *tags, sizeof *tags, tagdef_cmp);
}

/* ---- per-element facts ----------------------------------------------------- */

enum {
    F_DROP = 1u << 0,      /* not content, whatever the context */
    F_FURN = 1u << 1,      /* page furniture by class, id or role */
    F_BLOCK = 1u << 2,     /* a block-level tag */
    F_HAS_BLOCK = 1u << 3, /* a block-level element below */
    F_HAS_MAIN = 1u << 4,  /* is or holds main, article, [role=main] or h1 */
    F_HAS_TABLE = 1u << 5, /* a table below */
    F_NEG = 1u << 6,       /* class/id/role says furniture */
    F_PROTECT = 1u << 7,   /* class/id says content */
    F_POS = 1u << 8,       /* class/id says content, for scoring */
    F_CAND = 1u << 9,      /* has a readability score */
    F_IN_CODE = 1u << 10,  /* inside pre or code: classes there are syntax colours */
};

typedef struct ninfo {
    xmlNode *node;
    size_t all_len;    /* visible text, furniture included */
    size_t len;        /* visible text outside furniture */
    size_t link_len;   /* of len, inside links */
    size_t commas;
    size_t links;      /* a[href] inside, self included */
    size_t inline_len; /* of len, not inside block children */
    size_t inline_commas;
    double score;
    uint16_t flags;
    uint8_t tag;
} ninfo;

/* ---- the Markdown writer ------------------------------------------------- */

typedef struct prefix {
    char first[24], cont[24]; /* first line of the block, the lines after */
    uint8_t first_len, cont_len;
    bool used;  /* first already written */
    bool dummy; /* past MAX_PREFIXES: writes nothing */
} prefix;

typedef struct writer {
    rig__buf *b;
    prefix *pfx;
    size_t npfx, cap_pfx, real_pfx;
    int pending_nl;     /* newlines wanted before the next content (2: blank line) */
    bool hard_br;       /* the pending newline is a <br> */
    bool pending_space; /* collapsed whitespace before the next content */
    bool line_started;  /* the current line's prefix is written */
    bool col0;          /* nothing but the prefix on the current line */
    bool any;           /* anything written at all */
    bool inline_only;   /* blocks become spaces: link text, headings, table cells */
    bool in_table;      /* `|` must be escaped */
    int in_link;        /* inside link text: brackets must be escaped */
    char open[128];     /* openers waiting for the first content */
    size_t open_len;
} writer;

/* ---- the conversion context --------------------------------------------- */

typedef struct ctx {
    ninfo *info;
    size_t ninfo, cap_info;
    size_t *cands;
    size_t ncands, cap_cands;
    xmlNode *body, *first_h1;
    xmlNode **mains, **articles;
    size_t nmains, narticles, cap_mains, cap_articles;
    char *base;          /* effective base URL (malloc'd) or NULL */
    bool use_furniture;  /* drop class/id/role furniture */
    bool body_mode;      /* the content is the whole body */
    int article_depth;   /* inside article, main or section */
    int li_depth, link_depth, strong_depth, em_depth, del_depth;
    rig__buf scratch, scratch2;
    bool oom;
} ctx;

static ninfo zero_info;

static ninfo *info_of(ctx *c, const xmlNode *n)
{
    uintptr_t i = (uintptr_t)n->_private;
    if (i == 0 || i > c->ninfo)
        return &zero_info;
    return &c->info[i - 1];
}

static bool push_node(ctx *c, xmlNode ***arr, size_t *n, size_t *cap, xmlNode *x)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        xmlNode **p = realloc(*arr, nc * sizeof *p);
        if (!p) {
            c->oom = true;
            return false;
        }
        *arr = p;
        *cap = nc;
    }
    (*arr)[(*n)++] = x;
    return true;
}

/* ---- small string helpers ------------------------------------------------ */

static inline bool is_ws(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f';
}

static inline bool is_alnum(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z') || ch >= 0x80;
}

static inline bool is_punct(unsigned char ch)
{
    return (ch >= 0x21 && ch <= 0x2f) || (ch >= 0x3a && ch <= 0x40) || (ch >= 0x5b && ch <= 0x60) ||
           (ch >= 0x7b && ch <= 0x7e);
}

static inline char lower(char ch)
{
    return (ch >= 'A' && ch <= 'Z') ? (char)(ch | 0x20) : ch;
}

static bool ieq_n(const char *a, size_t n, const char *b)
{
    size_t i = 0;
    for (; i < n && b[i]; i++)
        if (lower(a[i]) != b[i])
            return false;
    return i == n && b[i] == '\0';
}

static bool istarts(const char *s, const char *prefix_)
{
    for (; *prefix_; s++, prefix_++)
        if (lower(*s) != *prefix_)
            return false;
    return true;
}

/* The value of attribute `name` ("" when present and empty), or NULL. */
static const char *attr(const xmlNode *n, const char *name)
{
    for (const xmlAttr *a = n->properties; a; a = a->next)
        if (a->name && strcmp((const char *)a->name, name) == 0)
            return (a->children && a->children->content) ? (const char *)a->children->content
                                                          : "";
    return NULL;
}

/* ---- UTF-8 --------------------------------------------------------------- */

/* Length of the well-formed sequence at s[i..n) (Unicode table 3-7), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t i, size_t n)
{
    unsigned char b0 = s[i];
    if (b0 < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF)
        len = 2;
    else if (b0 == 0xE0)
        len = 3, lo = 0xA0;
    else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF)
        len = 3;
    else if (b0 == 0xED)
        len = 3, hi = 0x9F;
    else if (b0 == 0xF0)
        len = 4, lo = 0x90;
    else if (b0 >= 0xF1 && b0 <= 0xF3)
        len = 4;
    else if (b0 == 0xF4)
        len = 4, hi = 0x8F;
    else
        return 0;
    if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    return len;
}

/* C0 controls a page's text should not carry (tab, LF, FF and CR stay). */
static inline bool bad_control(unsigned char ch)
{
    return ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\f' && ch != '\r';
}

/* s as valid UTF-8 without NUL or stray controls: s itself when it already
 * is (the common case costs one scan), else a repaired copy in out. */
static const char *clean_utf8(const char *s, size_t n, rig__buf *out, size_t *olen)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* Eight ASCII bytes at a time, none below 0x20 (tabs and newlines
         * take the byte path). */
        while (i + 8 <= n) {
            uint64_t v;
            memcpy(&v, u + i, 8);
            if ((v & 0x8080808080808080ull) ||
                ((v - 0x2020202020202020ull) & ~v & 0x8080808080808080ull))
                break;
            i += 8;
        }
        if (i >= n)
            break;
        if (u[i] >= 0x20 && u[i] < 0x80) {
            i++;
            continue;
        }
        if (bad_control(u[i]))
            break;
        size_t k = utf8_seq(u, i, n);
        if (!k)
            break;
        i += k;
    }
    if (i == n) {
        *olen = n;
        return s;
    }
    rig__buf_reserve(out, n + n / 8 + 16);
    rig__buf_add(out, s, i);
    while (i < n) {
        size_t k = utf8_seq(u, i, n);
        if (k == 1 && bad_control(u[i])) {
            i++;
        } else if (k) {
            rig__buf_add(out, s + i, k);
            i += k;
        } else {
            rig__buf_add(out, "\xEF\xBF\xBD", 3);
            i++;
        }
    }
    *olen = out->len;
    return out->oom ? NULL : out->p;
}

/* ---- charsets ------------------------------------------------------------ */

/* The iconv name for a charset label, or NULL for UTF-8 (the default for
 * anything unknown too). WHATWG treats the Latin-1 family as windows-1252
 * and gb2312 as gbk; GB18030 covers both. */
static const char *charset_name(const char *label, size_t n, char *tmp, size_t cap)
{
    while (n && (is_ws((unsigned char)*label) || *label == '"' || *label == '\'')) {
        label++;
        n--;
    }
    while (n && (is_ws((unsigned char)label[n - 1]) || label[n - 1] == '"' ||
                 label[n - 1] == '\''))
        n--;
    if (n == 0 || n >= cap)
        return NULL;
    static const char *const utf8[] = {"utf-8", "utf8", "unicode-1-1-utf-8", "utf-16",
                                       "utf-16le", "utf-16be", "unicode", "x-user-defined"};
    for (size_t i = 0; i < sizeof utf8 / sizeof *utf8; i++)
        if (ieq_n(label, n, utf8[i]))
            return NULL;
    static const char *const latin1[] = {"iso-8859-1", "iso8859-1", "latin1", "l1", "us-ascii",
                                         "ascii", "iso_8859-1", "cp819", "ansi_x3.4-1968",
                                         "windows-1252", "cp1252", "x-cp1252", "iso-ir-100",
                                         "csisolatin1", "ibm819"};
    for (size_t i = 0; i < sizeof latin1 / sizeof *latin1; i++)
        if (ieq_n(label, n, latin1[i]))
            return "WINDOWS-1252";
    if (ieq_n(label, n, "gb2312") || ieq_n(label, n, "gbk") || ieq_n(label, n, "x-gbk"))
        return "GB18030";
    for (size_t i = 0; i < n; i++) {
        char ch = label[i];
        if (!(is_alnum((unsigned char)ch) || ch == '-' || ch == '_' || ch == '.' || ch == ':') ||
            (unsigned char)ch >= 0x80)
            return NULL;
        tmp[i] = ch;
    }
    tmp[n] = '\0';
    return tmp;
}

/* The charset label of the first <meta charset=…> or <meta http-equiv …
 * content="…; charset=…"> near the start, or 0. */
static size_t meta_charset(const char *s, size_t n, const char **label)
{
    size_t lim = n < META_SCAN ? n : META_SCAN;
    for (size_t i = 0; i + 5 < lim; i++) {
        if (s[i] != '<')
            continue;
        if (s[i + 1] == '!' && i + 3 < n && s[i + 2] == '-' && s[i + 3] == '-') {
            const char *end = NULL;
            for (size_t k = i + 4; k + 2 < lim; k++)
                if (s[k] == '-' && s[k + 1] == '-' && s[k + 2] == '>') {
                    end = s + k;
                    break;
                }
            if (!end)
                return 0;
            i = (size_t)(end - s) + 2;
            continue;
        }
        if (!istarts(s + i + 1, "meta") || !(is_ws((unsigned char)s[i + 5]) || s[i + 5] == '/'))
            continue;
        size_t tag_end = i + 5;
        while (tag_end < n && tag_end < lim + 1024 && s[tag_end] != '>')
            tag_end++;
        for (size_t k = i + 5; k + 7 <= tag_end; k++) {
            if (!istarts(s + k, "charset"))
                continue;
            size_t p = k + 7;
            while (p < tag_end && is_ws((unsigned char)s[p]))
                p++;
            if (p >= tag_end || s[p] != '=')
                continue;
            p++;
            while (p < tag_end && (is_ws((unsigned char)s[p]) || s[p] == '"' || s[p] == '\''))
                p++;
            size_t q = p;
            while (q < tag_end && !is_ws((unsigned char)s[q]) && s[q] != '"' && s[q] != '\'' &&
                   s[q] != ';' && s[q] != '/')
                q++;
            if (q > p) {
                *label = s + p;
                return q - p;
            }
        }
        i = tag_end;
    }
    return 0;
}

/* s from `from` to UTF-8, each undecodable byte as U+FFFD. 1 when iconv
 * does not know the charset, -1 when out of memory. */
static int to_utf8(const char *s, size_t n, const char *from, rig__buf *out)
{
    iconv_t cd = iconv_open("UTF-8", from);
    if (cd == (iconv_t)-1)
        return 1;
    char *in = (char *)s;
    size_t left = n;
    if (!rig__buf_reserve(out, n + n / 2 + 64)) {
        iconv_close(cd);
        return -1;
    }
    while (left) {
        char *o = out->p + out->len;
        size_t room = out->cap - out->len - 1;
        size_t r = iconv(cd, &in, &left, &o, &room);
        out->len = (size_t)(o - out->p);
        if (r != (size_t)-1)
            break;
        if (errno == E2BIG) {
            if (!rig__buf_reserve(out, left * 2 + 64))
                break;
        } else if (errno == EILSEQ || errno == EINVAL) {
            rig__buf_add(out, "\xEF\xBF\xBD", 3);
            in++;
            left--;
            iconv(cd, NULL, NULL, NULL, NULL);
        } else {
            break;
        }
    }
    iconv_close(cd);
    if (out->oom)
        return -1;
    if (out->p)
        out->p[out->len] = '\0';
    return 0;
}

/* ---- analysis: classify and measure -------------------------------------- */

/* Class and id words that mark page furniture. A token matches when equal,
 * or by the prefix and suffix lists below (so "mainNav", "site-footer",
 * "cookie-consent", "advertisement-slot" all match, "canvas" or
 * "unavailable" do not: matching is on whole tokens). */
static const char *const neg_exact[] = {
    "ad", "ads", "adv", "banner", "banners", "comment", "comments", "consent", "gdpr",
    "masthead", "menus", "modal", "popup", "promo", "promos", "promotion", "related", "share", "shares",
    "sharing", "sharebar", "sharedaddy", "skip", "subscribe", "toolbar", "widget", "widgets",
};
static const char *const neg_prefix[] = {
    "advert", "breadcrumb", "cookie", "disqus", "footer", "menu", "nav", "newsletter",
    "outbrain", "related", "sidebar", "social", "sponsor", "taboola",
};
static const char *const neg_suffix[] = {"nav", "menu", "sidebar", "footer", "navbar",
                                         "navigation", "breadcrumbs"};
/* Words that keep an element even when it also says furniture
 * ("content-sidebar-wrap" holds the content). */
static const char *const protect_words[] = {"article", "body", "content", "entry", "story"};
/* Words readability scoring rewards. */
static const char *const pos_words[] = {"article", "body", "content", "entry", "hentry", "main",
                                        "page", "post", "text", "blog", "story"};

static bool in_list(const char *t, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && memcmp(list[i], t, n) == 0)
            return true;
    return false;
}

static bool token_negative(const char *t, size_t n)
{
    if (in_list(t, n, neg_exact, sizeof neg_exact / sizeof *neg_exact))
        return true;
    for (size_t i = 0; i < sizeof neg_prefix / sizeof *neg_prefix; i++) {
        size_t k = strlen(neg_prefix[i]);
        if (n >= k && memcmp(t, neg_prefix[i], k) == 0) {
            /* The short ones need three more letters to count as a prefix:
             * "navbar" and "menuitem", not "navy" or "menudo". */
            if (k <= 4 && n > k && n - k < 3)
                return false;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof neg_suffix / sizeof *neg_suffix; i++) {
        size_t k = strlen(neg_suffix[i]);
        if (n > k && memcmp(t + n - k, neg_suffix[i], k) == 0)
            return true;
    }
    return false;
}

/* Sets F_NEG, F_PROTECT and F_POS from the words of a class or id. */
static uint16_t words_flags(const char *s)
{
    uint16_t fl = 0;
    char tok[32];
    size_t n = 0;
    bool too_long = false;
    for (;; s++) {
        unsigned char ch = (unsigned char)*s;
        bool alnum = (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
        if (alnum) {
            if (n < sizeof tok)
                tok[n++] = lower((char)ch);
            else
                too_long = true;
            continue;
        }
        if (n && !too_long) {
            if (token_negative(tok, n))
                fl |= F_NEG;
            if (in_list(tok, n, protect_words, sizeof protect_words / sizeof *protect_words))
                fl |= F_PROTECT;
            if (in_list(tok, n, pos_words, sizeof pos_words / sizeof *pos_words))
                fl |= F_POS;
        }
        n = 0;
        too_long = false;
        if (!ch)
            break;
    }
    return fl;
}

/* display:none or visibility:hidden in an inline style. */
static bool style_hidden(const char *s)
{
    for (; *s; s++) {
        const char *want, *p;
        if (istarts(s, "display"))
            want = "none", p = s + 7;
        else if (istarts(s, "visibility"))
            want = "hidden", p = s + 10;
        else
            continue;
        while (is_ws((unsigned char)*p))
            p++;
        if (*p != ':')
            continue;
        p++;
        while (is_ws((unsigned char)*p))
            p++;
        if (istarts(p, want))
            return true;
    }
    return false;
}

static const char *const furniture_roles[] = {
    "navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar",
    "toolbar", "dialog", "alertdialog", "tablist",
};

static void classify(ninfo *in, const xmlNode *n, const ninfo *parent)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        const char *name = (const char *)a->name;
        const char *v = (a->children && a->children->content) ? (const char *)a->children->content
                                                               : "";
        if (!name)
            continue;
        if (strcmp(name, "class") == 0 || strcmp(name, "id") == 0) {
            in->flags |= words_flags(v);
        } else if (strcmp(name, "hidden") == 0) {
            in->flags |= F_DROP;
        } else if (strcmp(name, "aria-hidden") == 0) {
            if (ieq_n(v, strlen(v), "true"))
                in->flags |= F_DROP;
        } else if (strcmp(name, "style") == 0) {
            if (style_hidden(v))
                in->flags |= F_DROP;
        } else if (strcmp(name, "role") == 0) {
            size_t vl = strlen(v);
            if (ieq_n(v, vl, "main"))
                in->flags |= F_HAS_MAIN | F_PROTECT;
            else if (ieq_n(v, vl, "presentation") || ieq_n(v, vl, "none"))
                ;
            else
                for (size_t i = 0; i < sizeof furniture_roles / sizeof *furniture_roles; i++)
                    if (ieq_n(v, vl, furniture_roles[i]))
                        in->flags |= F_NEG;
        }
    }
    /* Syntax highlighters name spans "comment" or "nav": not furniture. */
    if ((parent && (parent->flags & F_IN_CODE)) || in->tag == T_PRE || in->tag == T_CODE) {
        in->flags |= F_IN_CODE;
        in->flags &= (uint16_t)~(F_NEG | F_PROTECT | F_POS);
    }
}

static size_t new_info(ctx *c, xmlNode *n)
{
    if (c->ninfo == c->cap_info) {
        size_t nc = c->cap_info ? c->cap_info * 2 : 256;
        ninfo *p = realloc(c->info, nc * sizeof *p);
        if (!p) {
            c->oom = true;
            return 0;
        }
        c->info = p;
        c->cap_info = nc;
    }
    ninfo *in = &c->info[c->ninfo++];
    memset(in, 0, sizeof *in);
    in->node = n;
    n->_private = (void *)(uintptr_t)c->ninfo;
    return c->ninfo;
}

/* Visible length of a text (whitespace runs count once) and its commas. */
static void measure_text(const unsigned char *s, size_t *len, size_t *commas)
{
    size_t l = 0, k = 0;
    bool ws = true;
    for (; *s; s++) {
        if (is_ws(*s)) {
            if (!ws)
                l++;
            ws = true;
        } else {
            l++;
            ws = false;
            if (*s == ',')
                k++;
        }
    }
    *len = l;
    *commas = k;
}

/* Entering an element: false when its content is not looked at. */
static bool analyze_enter(ctx *c, xmlNode *n)
{
    size_t idx = new_info(c, n);
    if (!idx)
        return false;
    ninfo *in = &c->info[idx - 1];
    /* Looked up after new_info, which may move the array. */
    ninfo *parent = n->parent ? info_of(c, n->parent) : NULL;
    if (parent == &zero_info)
        parent = NULL;
    const tagdef *td = tag_find(n->name);
    if (td) {
        in->tag = td->tag;
        if (td->flags & TD)
            in->flags |= F_DROP;
        if (td->flags & TB)
            in->flags |= F_BLOCK;
    }
    classify(in, n, parent);
    if (in->flags & F_DROP)
        return false;
    switch (in->tag) {
    case T_MAIN:
        push_node(c, &c->mains, &c->nmains, &c->cap_mains, n);
        in->flags |= F_HAS_MAIN;
        break;
    case T_ARTICLE:
        push_node(c, &c->articles, &c->narticles, &c->cap_articles, n);
        in->flags |= F_HAS_MAIN;
        break;
    case T_H1:
        if (!c->first_h1)
            c->first_h1 = n;
        in->flags |= F_HAS_MAIN;
        break;
    default:
        break;
    }
    if ((in->flags & F_HAS_MAIN) && in->tag != T_MAIN && in->tag != T_ARTICLE &&
        in->tag != T_H1) {
        /* role=main */
        push_node(c, &c->mains, &c->nmains, &c->cap_mains, n);
    }
    return true;
}

static bool tag_furniture(uint8_t tag)
{
    return tag == T_NAV || tag == T_ASIDE || tag == T_FOOTER;
}

static void analyze_leave(ctx *c, xmlNode *n)
{
    ninfo *in = info_of(c, n);
    if (in == &zero_info || (in->flags & F_DROP))
        return;
    if (in->tag == T_A && attr(n, "href")) {
        in->link_len = in->len;
        in->links++;
    }
    if ((in->flags & F_NEG) && !(in->flags & (F_PROTECT | F_HAS_MAIN)))
        in->flags |= F_FURN;
    ninfo *p = n->parent ? info_of(c, n->parent) : &zero_info;
    if (p == &zero_info)
        return;
    p->all_len += in->all_len;
    p->flags |= in->flags & F_HAS_MAIN;
    if (in->tag == T_TABLE || (in->flags & F_HAS_TABLE))
        p->flags |= F_HAS_TABLE;
    bool blockish = (in->flags & (F_BLOCK | F_HAS_BLOCK)) != 0;
    if (blockish)
        p->flags |= F_HAS_BLOCK;
    if ((in->flags & F_FURN) || tag_furniture(in->tag))
        return;
    p->len += in->len;
    p->link_len += in->link_len;
    p->links += in->links;
    p->commas += in->commas;
    if (!blockish) {
        p->inline_len += in->len;
        p->inline_commas += in->commas;
    }
}

static void analyze(ctx *c, xmlNode *root)
{
    xmlNode *n = root;
    while (n && !c->oom) {
        bool descend = false;
        if (n->type == XML_ELEMENT_NODE) {
            descend = analyze_enter(c, n);
        } else if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
            ninfo *p = n->parent ? info_of(c, n->parent) : &zero_info;
            if (p != &zero_info && n->content) {
                size_t len, commas;
                measure_text(n->content, &len, &commas);
                p->len += len;
                p->all_len += len;
                p->inline_len += len;
                p->commas += commas;
                p->inline_commas += commas;
            }
        }
        if (descend && n->children) {
            n = n->children;
            continue;
        }
        for (;;) {
            if (n->type == XML_ELEMENT_NODE)
                analyze_leave(c, n);
            if (n == root) {
                n = NULL;
                break;
            }
            if (n->next) {
                n = n->next;
                break;
            }
            n = n->parent;
        }
    }
}

/* ---- readability-style scoring -------------------------------------------- */

static double base_score(const ninfo *in)
{
    double s = 0;
    switch (in->tag) {
    case T_DIV: s = 5; break;
    case T_PRE: case T_TD: case T_BLOCKQUOTE: s = 3; break;
    case T_ADDRESS: case T_OL: case T_UL: case T_DL: case T_DD: case T_DT: case T_LI:
    case T_FORM: s = -3; break;
    case T_H1: case T_H2: case T_H3: case T_H4: case T_H5: case T_H6: case T_TH: s = -5; break;
    default: break;
    }
    if (in->flags & F_POS)
        s += 25;
    if (in->flags & F_NEG)
        s -= 25;
    return s;
}

static void add_score(ctx *c, ninfo *in, double s)
{
    if (!(in->flags & F_CAND)) {
        if (c->ncands == c->cap_cands) {
            size_t nc = c->cap_cands ? c->cap_cands * 2 : 64;
            size_t *p = realloc(c->cands, nc * sizeof *p);
            if (!p) {
                c->oom = true;
                return;
            }
            c->cands = p;
            c->cap_cands = nc;
        }
        c->cands[c->ncands++] = (size_t)(in - c->info);
        in->flags |= F_CAND;
        in->score = base_score(in);
    }
    in->score += s;
}

static bool container_tag(uint8_t tag)
{
    switch (tag) {
    case T_DIV: case T_SECTION: case T_ARTICLE: case T_MAIN: case T_CENTER: case T_BODY:
    case T_FORM: case T_TD: case T_BLOCKQUOTE: case T_FIGURE: case T_DETAILS:
        return true;
    default:
        return false;
    }
}

static void score_unit(ctx *c, xmlNode *n, ninfo *in)
{
    size_t len, commas;
    xmlNode *start;
    if (in->tag == T_P || in->tag == T_PRE) {
        len = in->len, commas = in->commas;
        start = n->parent;
    } else if (container_tag(in->tag) && in->inline_len >= 25) {
        len = in->inline_len, commas = in->inline_commas;
        /* Text beside blocks: this element is its paragraph's parent.
         * Text alone: the element is the paragraph. */
        start = (in->flags & F_HAS_BLOCK) ? n : n->parent;
    } else {
        return;
    }
    if (len < 25)
        return;
    double s = 1 + (double)commas + (double)(len / 100 < 3 ? len / 100 : 3);
    xmlNode *a = start;
    for (int level = 0; a && level < 5; level++, a = a->parent) {
        ninfo *ai = info_of(c, a);
        if (ai == &zero_info || ai->tag == T_HTML)
            break;
        add_score(c, ai, level == 0 ? s : level == 1 ? s / 2 : s / (level * 3));
    }
}

static void score(ctx *c, xmlNode *root)
{
    xmlNode *n = root;
    while (n && !c->oom) {
        bool descend = false;
        if (n->type == XML_ELEMENT_NODE) {
            ninfo *in = info_of(c, n);
            if (in != &zero_info && !(in->flags & (F_DROP | F_FURN)) && !tag_furniture(in->tag)) {
                score_unit(c, n, in);
                descend = in->tag != T_PRE;
            }
        }
        if (descend && n->children) {
            n = n->children;
            continue;
        }
        while (n != root && !n->next)
            n = n->parent;
        n = n == root ? NULL : n->next;
    }
}

static bool content_tag(uint8_t tag)
{
    switch (tag) {
    case T_P: case T_PRE: case T_UL: case T_OL: case T_DL: case T_TABLE: case T_BLOCKQUOTE:
    case T_FIGURE: case T_XMP: case T_LISTING:
        return true;
    default:
        return false;
    }
}

static double final_score(const ninfo *in)
{
    double density = in->len ? (double)in->link_len / (double)in->len : 0;
    return in->score * (1 - density);
}

/* ---- content choice -------------------------------------------------------- */

static bool enough(const ninfo *in, const ninfo *body)
{
    return in->len >= MIN_CONTENT || (body->len > 0 && in->len * 2 >= body->len);
}

/* The content: up to `cap` subtrees in document order. */
static size_t choose_content(ctx *c, xmlNode **out, size_t cap)
{
    ninfo *body = info_of(c, c->body);
    /* <main> or [role=main]: the largest. */
    ninfo *best = NULL;
    for (size_t i = 0; i < c->nmains; i++) {
        ninfo *in = info_of(c, c->mains[i]);
        if (!best || in->len > best->len)
            best = in;
    }
    if (best && enough(best, body)) {
        out[0] = best->node;
        return 1;
    }
    /* One <article> that holds most of the articles' text. */
    best = NULL;
    size_t total = 0;
    for (size_t i = 0; i < c->narticles; i++) {
        ninfo *in = info_of(c, c->articles[i]);
        total += in->len;
        if (!best || in->len > best->len)
            best = in;
    }
    if (best && enough(best, body) && best->len * 2 > total) {
        out[0] = best->node;
        return 1;
    }
    /* The best-scoring container. */
    score(c, c->body);
    ninfo *top = NULL;
    double top_score = 0;
    for (size_t i = 0; i < c->ncands; i++) {
        ninfo *in = &c->info[c->cands[i]];
        double s = final_score(in);
        if (in->tag == T_BODY)
            continue;
        if (!top || s > top_score)
            top = in, top_score = s;
    }
    if (!top || !enough(top, body))
        return 0;
    /* An only child stands for its parent. */
    xmlNode *t = top->node;
    while (t->parent && t->parent != c->body && xmlChildElementCount(t->parent) == 1 &&
           info_of(c, t->parent) != &zero_info)
        t = t->parent;
    /* Siblings worth keeping: well-scored ones, link-poor paragraphs, and the
     * headings just before the content. */
    double threshold = top_score * 0.2 > 10 ? top_score * 0.2 : 10;
    size_t k = 0;
    for (xmlNode *s = t->parent ? t->parent->children : t; s && k < cap; s = s->next) {
        if (s->type != XML_ELEMENT_NODE)
            continue;
        ninfo *in = info_of(c, s);
        if (in == &zero_info || (in->flags & (F_DROP | F_FURN)) || tag_furniture(in->tag))
            continue;
        bool keep = s == t;
        if (!keep && (in->flags & F_CAND) && final_score(in) >= threshold)
            keep = true;
        /* Content-shaped siblings that are not mostly links: what
         * readability keeps as paragraphs, widened to lists, tables, code
         * and quotes, which pages without wrappers leave beside the text. */
        if (!keep && content_tag(in->tag) && in->len > 0 && in->link_len * 2 < in->len)
            keep = true;
        if (!keep && in->tag >= T_H1 && in->tag <= T_H6)
            keep = true;
        if (keep)
            out[k++] = s;
    }
    return k;
}

/* ---- writer primitives ---------------------------------------------------- */

static void put(writer *w, const char *s, size_t n)
{
    rig__buf_add(w->b, s, n);
}

static void write_prefix(writer *w, bool blank)
{
    size_t start = w->b->len;
    for (size_t i = 0; i < w->npfx; i++) {
        prefix *p = &w->pfx[i];
        if (p->dummy)
            continue;
        if (blank) {
            if (p->used)
                put(w, p->cont, p->cont_len);
        } else if (!p->used) {
            put(w, p->first, p->first_len);
            p->used = true;
        } else {
            put(w, p->cont, p->cont_len);
        }
    }
    if (blank)
        while (w->b->len > start && w->b->p && w->b->p[w->b->len - 1] == ' ')
            w->b->p[--w->b->len] = '\0';
}

/* Everything owed before content: newlines, the line prefix, a space,
 * the waiting openers. */
static void flush(writer *w)
{
    if (w->pending_nl) {
        if (w->any) {
            if (w->hard_br && w->pending_nl == 1)
                put(w, "  ", 2);
            put(w, "\n", 1);
            for (int k = 1; k < w->pending_nl; k++) {
                write_prefix(w, true);
                put(w, "\n", 1);
            }
            w->line_started = false;
        }
        w->pending_nl = 0;
        w->hard_br = false;
    }
    if (!w->line_started) {
        write_prefix(w, false);
        w->line_started = true;
        w->col0 = true;
        w->pending_space = false;
    }
    if (w->pending_space) {
        if (!w->col0)
            put(w, " ", 1);
        w->pending_space = false;
    }
    if (w->open_len) {
        put(w, w->open, w->open_len);
        w->open_len = 0;
        w->col0 = false;
    }
    w->any = true;
}

/* A block boundary: n newlines before the next content (2: a blank line).
 * The first block of a list item or quote sits on its marker's line. */
static void block(writer *w, int n)
{
    if (w->inline_only) {
        w->pending_space = true;
        return;
    }
    w->pending_space = false;
    if (!w->any)
        return;
    if (w->npfx && !w->pfx[w->npfx - 1].used && !w->pfx[w->npfx - 1].dummy)
        return;
    if (w->pending_nl < n) {
        w->pending_nl = n;
        w->hard_br = false;
    }
}

static void hard_break(writer *w)
{
    if (w->inline_only) {
        w->pending_space = true;
        return;
    }
    if (!w->any || (w->col0 && !w->pending_nl))
        return;
    if (w->pending_nl == 0) {
        w->pending_nl = 1;
        w->hard_br = true;
    } else if (w->hard_br) {
        w->pending_nl = 2;
        w->hard_br = false;
    }
    w->pending_space = false;
}

static bool push_prefix(ctx *c, writer *w, const char *first, const char *cont)
{
    if (w->npfx == w->cap_pfx) {
        size_t nc = w->cap_pfx ? w->cap_pfx * 2 : 8;
        prefix *p = realloc(w->pfx, nc * sizeof *p);
        if (!p) {
            c->oom = true;
            return false;
        }
        w->pfx = p;
        w->cap_pfx = nc;
    }
    prefix *p = &w->pfx[w->npfx++];
    memset(p, 0, sizeof *p);
    if (w->real_pfx >= MAX_PREFIXES) {
        p->dummy = true;
        return true;
    }
    w->real_pfx++;
    p->first_len = (uint8_t)strlen(first);
    p->cont_len = (uint8_t)strlen(cont);
    memcpy(p->first, first, p->first_len);
    memcpy(p->cont, cont, p->cont_len);
    return true;
}

/* Pops the innermost prefix; true when its block wrote anything. */
static bool pop_prefix(writer *w)
{
    if (!w->npfx)
        return false;
    prefix *p = &w->pfx[--w->npfx];
    if (!p->dummy)
        w->real_pfx--;
    return p->used || p->dummy;
}

/* An opener written only if content follows; returns its mark for close. */
static size_t open_mark(writer *w, const char *s)
{
    size_t n = strlen(s);
    if (w->open_len + n > sizeof w->open)
        return SIZE_MAX;
    size_t mark = w->open_len;
    memcpy(w->open + w->open_len, s, n);
    w->open_len += n;
    return mark;
}

/* Closes what open_mark opened: false (and nothing written) when no content
 * came between. */
static bool close_mark(writer *w, size_t mark, const char *s, size_t n)
{
    if (mark == SIZE_MAX)
        return false;
    if (w->open_len > mark) {
        w->open_len = mark;
        return false;
    }
    put(w, s, n);
    w->col0 = false;
    return true;
}

static char last_out(const writer *w)
{
    if (w->col0 || !w->b->len)
        return ' ';
    return w->b->p[w->b->len - 1];
}

/* ---- text with escapes ---------------------------------------------------- */

/* Bytes that need a look in running text: whitespace, escapable marks,
 * and 0xC2 (a no-break space starts with it). */
static const uint8_t special[256] = {
    ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1, [' '] = 1, ['\\'] = 1, ['`'] = 1,
    ['*'] = 1,  ['_'] = 1,  ['['] = 1,  [']'] = 1,  ['<'] = 1, ['&'] = 1,  ['|'] = 1,
    ['~'] = 1,  [0xC2] = 1,
};

/* At the start of a line: would s make a heading, list, quote or break? */
static size_t line_start_escape(writer *w, const char *s, size_t n)
{
    unsigned char ch = (unsigned char)s[0];
    size_t i = 0;
    switch (ch) {
    case '#':
        while (i < n && s[i] == '#')
            i++;
        if (i <= 6 && (i == n || is_ws((unsigned char)s[i])))
            put(w, "\\", 1);
        return 0;
    case '-': case '+': case '=':
        while (i < n && s[i] == (char)ch)
            i++;
        if (i == n || is_ws((unsigned char)s[i]))
            put(w, "\\", 1);
        return 0;
    case '>':
        put(w, "\\", 1);
        return 0;
    default:
        break;
    }
    if (ch >= '0' && ch <= '9') {
        while (i < n && i < 10 && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i < n && i <= 9 && (s[i] == '.' || s[i] == ')') &&
            (i + 1 == n || is_ws((unsigned char)s[i + 1]))) {
            put(w, s, i);
            put(w, "\\", 1);
            return i;
        }
    }
    return 0;
}

static void write_text(writer *w, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        if (is_ws(ch) || (ch == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0xA0)) {
            w->pending_space = true;
            i += ch == 0xC2 ? 2 : 1;
            continue;
        }
        flush(w);
        if (w->col0 && !w->inline_only) {
            size_t skip = line_start_escape(w, s + i, n - i);
            if (skip) {
                put(w, s + i + skip, 1);
                i += skip + 1;
                w->col0 = false;
                continue;
            }
        }
        size_t j = i;
        while (j < n) {
            unsigned char d = (unsigned char)s[j];
            if (!special[d]) {
                j++;
            } else if (d == ' ' && j + 1 < n && !special[(unsigned char)s[j + 1]]) {
                j += 2;
            } else if (d == 0xC2 && !(j + 1 < n && (unsigned char)s[j + 1] == 0xA0)) {
                j++;
            } else {
                break;
            }
        }
        if (j > i) {
            put(w, s + i, j - i);
            w->col0 = false;
            i = j;
            continue;
        }
        /* A mark: escape it only where it would mean something. */
        unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        bool esc = false;
        size_t run = 1;
        switch (ch) {
        case '\\':
            esc = next == 0 || is_punct(next);
            break;
        case '`':
            esc = true;
            break;
        case '*':
        case '_':
        case '~': {
            while (i + run < n && (unsigned char)s[i + run] == ch)
                run++;
            unsigned char prev = (unsigned char)last_out(w);
            unsigned char after = i + run < n ? (unsigned char)s[i + run] : 0;
            bool prev_ws = is_ws(prev) || w->col0;
            bool after_ws = after != 0 && is_ws(after);
            if (ch == '*')
                esc = !(prev_ws && after_ws) || w->col0;
            else if (ch == '_')
                esc = !((is_alnum(prev) && after && is_alnum(after)) || (prev_ws && after_ws));
            else
                esc = run >= 2;
            break;
        }
        case '[':
            esc = w->in_link > 0;
            break;
        case ']':
            esc = w->in_link > 0 || next == 0 || next == '(' || next == '[';
            break;
        case '<':
            esc = next == 0 || next == '/' || next == '!' || next == '?' ||
                  ((next | 0x20) >= 'a' && (next | 0x20) <= 'z');
            break;
        case '&': {
            size_t k = i + 1;
            while (k < n && k < i + 33 && (is_alnum((unsigned char)s[k]) || s[k] == '#') &&
                   (unsigned char)s[k] < 0x80)
                k++;
            esc = k > i + 1 && k < n && s[k] == ';';
            break;
        }
        case '|':
            esc = w->in_table;
            break;
        default:
            break;
        }
        for (size_t k = 0; k < run; k++) {
            if (esc)
                put(w, "\\", 1);
            put(w, s + i + k, 1);
        }
        w->col0 = false;
        i += run;
    }
}

/* ---- text gathering (iterative) ------------------------------------------- */

/* The text below root into out, skipping dropped elements. For <pre>
 * (`pre`): <br> and block ends become newlines. */
static void gather_text(ctx *c, xmlNode *root, rig__buf *out, bool pre)
{
    xmlNode *n = root->children;
    if (!n)
        return;
    while (n) {
        bool descend = false;
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
            if (n->content)
                rig__buf_adds(out, (const char *)n->content);
        } else if (n->type == XML_ELEMENT_NODE) {
            ninfo *in = info_of(c, n);
            if (!(in->flags & F_DROP)) {
                descend = true;
                if (pre && in->tag == T_BR)
                    rig__buf_addc(out, '\n');
            }
        }
        if (descend && n->children) {
            n = n->children;
            continue;
        }
        for (;;) {
            if (pre && n->type == XML_ELEMENT_NODE && (info_of(c, n)->flags & F_BLOCK) &&
                out->len && out->p[out->len - 1] != '\n')
                rig__buf_addc(out, '\n');
            if (n->next) {
                n = n->next;
                break;
            }
            n = n->parent;
            if (n == root) {
                n = NULL;
                break;
            }
        }
    }
}

/* s with whitespace runs as one space, trimmed, into out. */
static void collapse(const char *s, size_t n, rig__buf *out)
{
    bool ws = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        bool space = is_ws(ch) || (ch == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0xA0);
        if (space) {
            ws = true;
            if (ch == 0xC2)
                i++;
            continue;
        }
        if (ws && out->len)
            rig__buf_addc(out, ' ');
        ws = false;
        rig__buf_addc(out, (char)ch);
    }
}

/* ---- URLs ------------------------------------------------------------------ */

static bool has_scheme(const char *s)
{
    if (!((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z'))
        return false;
    for (const char *p = s + 1; *p; p++) {
        if (*p == ':')
            return true;
        if (!(is_alnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.') ||
            (unsigned char)*p >= 0x80)
            return false;
    }
    return false;
}

/* href made absolute against the base, percent-encoded where Markdown or
 * xmlBuildURI would choke, into out; false when the link goes nowhere a
 * reader can follow (empty, "#", javascript:). */
static bool resolve_url(ctx *c, const char *href, rig__buf *out)
{
    rig__buf *t = &c->scratch2;
    t->len = 0;
    while (is_ws((unsigned char)*href))
        href++;
    for (const char *p = href; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '\t' || ch == '\n' || ch == '\r')
            continue;
        if (ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '<' || ch == '>' || ch == '\\' ||
            ch == '^' || ch == '`' || ch == '{' || ch == '|' || ch == '}')
            rig__buf_addf(t, "%%%02X", ch);
        else
            rig__buf_addc(t, (char)ch);
    }
    while (t->len >= 3 && memcmp(t->p + t->len - 3, "%20", 3) == 0)
        t->len -= 3;
    if (t->oom) {
        c->oom = true;
        return false;
    }
    if (!t->len || (t->len == 1 && t->p[0] == '#'))
        return false;
    t->p[t->len] = '\0';
    if (istarts(t->p, "javascript:") || istarts(t->p, "vbscript:"))
        return false;
    const char *abs = t->p;
    xmlChar *built = NULL;
    if (c->base && !has_scheme(t->p)) {
        built = xmlBuildURI((const xmlChar *)t->p, (const xmlChar *)c->base);
        if (built)
            abs = (const char *)built;
    }
    for (const char *p = abs; *p; p++) {
        if (*p == '(' || *p == ')' || *p == ' ')
            rig__buf_addf(out, "%%%02X", (unsigned char)*p);
        else
            rig__buf_addc(out, *p);
    }
    xmlFree(built);
    return true;
}

/* ---- the emitter ----------------------------------------------------------- */

static void emit_children(ctx *c, writer *w, xmlNode *n, int depth);
static void emit_element(ctx *c, writer *w, xmlNode *n, int depth, bool root);

static void emit_node(ctx *c, writer *w, xmlNode *n, int depth)
{
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
        if (n->content)
            write_text(w, (const char *)n->content, strlen((const char *)n->content));
    } else if (n->type == XML_ELEMENT_NODE) {
        emit_element(c, w, n, depth, false);
    }
}

static void emit_children(ctx *c, writer *w, xmlNode *n, int depth)
{
    for (xmlNode *k = n->children; k && !c->oom; k = k->next)
        emit_node(c, w, k, depth + 1);
}

/* An inline code span: a fence longer than any backtick run inside. */
static void write_code_span(writer *w, const char *s, size_t n)
{
    if (!n)
        return;
    size_t longest = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    flush(w);
    char fence[16];
    size_t fl = longest + 1 < sizeof fence ? longest + 1 : sizeof fence - 1;
    if (fl <= longest) {
        /* A run longer than any fence we write: fall back to escaped text. */
        write_text(w, s, n);
        return;
    }
    memset(fence, '`', fl);
    bool pad = s[0] == '`' || s[n - 1] == '`' || (s[0] == ' ' && s[n - 1] == ' ');
    put(w, fence, fl);
    if (pad)
        put(w, " ", 1);
    if (w->in_table) {
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '|')
                put(w, "\\", 1);
            put(w, s + i, 1);
        }
    } else {
        put(w, s, n);
    }
    if (pad)
        put(w, " ", 1);
    put(w, fence, fl);
    w->col0 = false;
}

static void emit_inline_code(ctx *c, writer *w, xmlNode *n)
{
    rig__buf *raw = &c->scratch;
    raw->len = 0;
    gather_text(c, n, raw, false);
    rig__buf col = {0};
    if (raw->len)
        collapse(raw->p, raw->len, &col);
    if (col.oom || raw->oom)
        c->oom = true;
    else if (col.len)
        write_code_span(w, col.p, col.len);
    rig__buf_free(&col);
}

/* "language-x" or "lang-x" in a class, or a data-lang(uage) attribute. */
static size_t code_language(const xmlNode *n, char *out, size_t cap)
{
    const char *v = attr(n, "class");
    if (v) {
        for (const char *p = v; *p;) {
            while (*p && is_ws((unsigned char)*p))
                p++;
            const char *t = p;
            while (*p && !is_ws((unsigned char)*p))
                p++;
            size_t skip = istarts(t, "language-") ? 9 : istarts(t, "lang-") ? 5 : 0;
            if (skip && (size_t)(p - t) > skip) {
                t += skip;
                size_t k = 0;
                while (t < p && k + 1 < cap) {
                    char ch = *t++;
                    if (!(is_alnum((unsigned char)ch) || ch == '+' || ch == '#' || ch == '-' ||
                          ch == '_' || ch == '.') ||
                        (unsigned char)ch >= 0x80)
                        return 0;
                    out[k++] = ch;
                }
                out[k] = '\0';
                return k;
            }
        }
    }
    v = attr(n, "data-lang");
    if (!v)
        v = attr(n, "data-language");
    if (v && *v) {
        size_t k = 0;
        for (; v[k] && k + 1 < cap; k++) {
            if (!(is_alnum((unsigned char)v[k]) || v[k] == '+' || v[k] == '#' || v[k] == '-') ||
                (unsigned char)v[k] >= 0x80)
                return 0;
            out[k] = v[k];
        }
        out[k] = '\0';
        return k;
    }
    return 0;
}

/* A new line in a block we write line by line (code, tables): newline and
 * the prefix, trimmed when the line will be empty. */
static void raw_newline(writer *w, bool empty)
{
    put(w, "\n", 1);
    write_prefix(w, empty);
}

static void emit_pre(ctx *c, writer *w, xmlNode *n)
{
    rig__buf *raw = &c->scratch;
    raw->len = 0;
    gather_text(c, n, raw, true);
    if (raw->oom) {
        c->oom = true;
        return;
    }
    if (w->inline_only) {
        rig__buf col = {0};
        if (raw->len)
            collapse(raw->p, raw->len, &col);
        if (col.oom)
            c->oom = true;
        else if (col.len)
            write_code_span(w, col.p, col.len);
        rig__buf_free(&col);
        return;
    }
    /* CR LF and CR are newlines; the newline right after <pre> is not content. */
    size_t o = 0;
    for (size_t i = 0; i < raw->len; i++) {
        char ch = raw->p[i];
        if (ch == '\r') {
            if (i + 1 < raw->len && raw->p[i + 1] == '\n')
                continue;
            ch = '\n';
        }
        raw->p[o++] = ch;
    }
    raw->len = o;
    const char *s = raw->p;
    size_t len = raw->len;
    if (len && s[0] == '\n')
        s++, len--;
    while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t')) {
        /* Trailing blank lines go; trailing spaces of the last line too. */
        len--;
    }
    if (!len)
        return;
    char lang[40];
    const char *lp = NULL;
    size_t ll = code_language(n, lang, sizeof lang);
    if (!ll) {
        for (xmlNode *k = n->children; k; k = k->next)
            if (k->type == XML_ELEMENT_NODE) {
                if (info_of(c, k)->tag == T_CODE)
                    ll = code_language(k, lang, sizeof lang);
                break;
            }
    }
    if (ll)
        lp = lang;
    size_t longest = 0, run = 0;
    for (size_t i = 0; i < len; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fl = longest >= 3 ? longest + 1 : 3;
    block(w, 2);
    flush(w);
    for (size_t i = 0; i < fl; i++)
        put(w, "`", 1);
    if (lp)
        put(w, lp, ll);
    size_t line = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '\n') {
            raw_newline(w, i == line);
            put(w, s + line, i - line);
            line = i + 1;
        }
    }
    raw_newline(w, false);
    for (size_t i = 0; i < fl; i++)
        put(w, "`", 1);
    w->col0 = false;
    block(w, 2);
}

static void emit_link(ctx *c, writer *w, xmlNode *n, int depth)
{
    const char *href = attr(n, "href");
    ninfo *in = info_of(c, n);
    if (!href || c->link_depth) {
        emit_children(c, w, n, depth);
        return;
    }
    /* A heading's permalink ("¶", "#", "§"): an in-page link with a mark
     * for text is furniture. */
    if (in->len <= 4 && href[0] == '#') {
        rig__buf *raw = &c->scratch;
        raw->len = 0;
        gather_text(c, n, raw, false);
        bool word = false;
        for (size_t i = 0; i < raw->len; i++)
            if ((unsigned char)raw->p[i] < 0x80 && is_alnum((unsigned char)raw->p[i]))
                word = true;
        if (!word)
            return;
    }
    rig__buf url = {0};
    if (!resolve_url(c, href, &url) || url.oom) {
        if (url.oom)
            c->oom = true;
        rig__buf_free(&url);
        emit_children(c, w, n, depth);
        return;
    }
    if (w->in_table) {
        rig__buf esc = {0};
        for (size_t i = 0; i < url.len; i++) {
            if (url.p[i] == '|')
                rig__buf_adds(&esc, "%7C");
            else
                rig__buf_addc(&esc, url.p[i]);
        }
        rig__buf_free(&url);
        url = esc;
    }
    bool saved = w->inline_only;
    if (in->flags & F_HAS_BLOCK)
        w->inline_only = true;
    size_t mark = open_mark(w, "[");
    c->link_depth++;
    w->in_link++;
    emit_children(c, w, n, depth);
    w->in_link--;
    c->link_depth--;
    w->inline_only = saved;
    if (mark != SIZE_MAX && w->open_len <= mark) {
        put(w, "](", 2);
        put(w, url.p ? url.p : "", url.len);
        put(w, ")", 1);
        w->col0 = false;
    } else {
        close_mark(w, mark, "", 0);
    }
    rig__buf_free(&url);
}

static void emit_image(ctx *c, writer *w, xmlNode *n)
{
    const char *src = attr(n, "src");
    static const char *const lazy[] = {"data-src", "data-lazy-src", "data-original"};
    if (!src || !*src || istarts(src, "data:")) {
        src = NULL;
        for (size_t i = 0; i < sizeof lazy / sizeof *lazy && !src; i++) {
            const char *v = attr(n, lazy[i]);
            if (v && *v && !istarts(v, "data:"))
                src = v;
        }
    }
    if (!src)
        return;
    rig__buf url = {0};
    if (!resolve_url(c, src, &url)) {
        rig__buf_free(&url);
        return;
    }
    const char *alt = attr(n, "alt");
    rig__buf a = {0};
    if (alt)
        collapse(alt, strlen(alt), &a);
    if (url.oom || a.oom) {
        c->oom = true;
    } else {
        flush(w);
        put(w, "![", 2);
        for (size_t i = 0; i < a.len; i++) {
            char ch = a.p[i];
            if (ch == '[' || ch == ']' || ch == '\\' || (ch == '|' && w->in_table))
                put(w, "\\", 1);
            put(w, &ch, 1);
        }
        put(w, "](", 2);
        for (size_t i = 0; i < url.len; i++) {
            if (url.p[i] == '|' && w->in_table)
                put(w, "%7C", 3);
            else
                put(w, url.p + i, 1);
        }
        put(w, ")", 1);
        w->col0 = false;
    }
    rig__buf_free(&a);
    rig__buf_free(&url);
}

/* Emphasis-like inline markup, unless it spans blocks or nests in itself. */
static void emit_wrapped(ctx *c, writer *w, xmlNode *n, int depth, const char *mark_s,
                         int *counter)
{
    ninfo *in = info_of(c, n);
    if ((in->flags & F_HAS_BLOCK) || *counter) {
        emit_children(c, w, n, depth);
        return;
    }
    (*counter)++;
    size_t mark = open_mark(w, mark_s);
    emit_children(c, w, n, depth);
    close_mark(w, mark, mark_s, strlen(mark_s));
    (*counter)--;
}

static void emit_heading(ctx *c, writer *w, xmlNode *n, int depth, int level)
{
    if (w->inline_only) {
        w->pending_space = true;
        emit_children(c, w, n, depth);
        w->pending_space = true;
        return;
    }
    static const char *const marks[] = {"# ", "## ", "### ", "#### ", "##### ", "###### "};
    block(w, 2);
    size_t mark = open_mark(w, marks[level - 1]);
    w->inline_only = true;
    emit_children(c, w, n, depth);
    w->inline_only = false;
    close_mark(w, mark, "", 0);
    w->pending_space = false;
    block(w, 2);
}

static void emit_list_item(ctx *c, writer *w, xmlNode *n, int depth, const char *marker)
{
    char cont[24];
    size_t ml = strlen(marker);
    memset(cont, ' ', ml);
    cont[ml] = '\0';
    block(w, 1);
    if (!push_prefix(c, w, marker, cont))
        return;
    c->li_depth++;
    emit_children(c, w, n, depth);
    c->li_depth--;
    /* Items sit on consecutive lines even when their last block asked for
     * a blank line after it. */
    if (pop_prefix(w) && w->pending_nl > 1)
        w->pending_nl = 1;
}

static void emit_list(ctx *c, writer *w, xmlNode *n, int depth, bool ordered)
{
    if (w->inline_only) {
        for (xmlNode *k = n->children; k && !c->oom; k = k->next) {
            emit_node(c, w, k, depth + 1);
            w->pending_space = true;
        }
        return;
    }
    int sep = c->li_depth ? 1 : 2;
    block(w, sep);
    long num = 1, step = 1;
    const char *v = attr(n, "start");
    if (ordered && attr(n, "reversed")) {
        step = -1;
        num = 0;
        for (xmlNode *k = n->children; k; k = k->next)
            if (k->type == XML_ELEMENT_NODE && info_of(c, k)->tag == T_LI)
                num++;
    }
    if (ordered && v) {
        char *end;
        long s = strtol(v, &end, 10);
        if (end != v)
            num = s;
    }
    xmlNode *prev_item = NULL;
    for (xmlNode *k = n->children; k && !c->oom; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) {
            emit_node(c, w, k, depth + 1);
            continue;
        }
        ninfo *in = info_of(c, k);
        if (in->tag == T_LI && !(in->flags & F_DROP) &&
            !((in->flags & F_FURN) && c->use_furniture)) {
            const char *val = attr(k, "value");
            if (ordered && val) {
                char *end;
                long s = strtol(val, &end, 10);
                if (end != val)
                    num = s;
            }
            if (num < 0)
                num = 0;
            if (num > 999999999)
                num = 999999999;
            char marker[24];
            if (ordered)
                snprintf(marker, sizeof marker, "%ld. ", num);
            else
                snprintf(marker, sizeof marker, "- ");
            emit_list_item(c, w, k, depth + 1, marker);
            num += step;
            prev_item = k;
        } else if ((in->tag == T_UL || in->tag == T_OL) && prev_item) {
            /* <ul><li>a</li><ul>…</ul></ul>: the stray list belongs to a. */
            char cont[24];
            snprintf(cont, sizeof cont, "%*s", ordered ? 3 : 2, "");
            if (!push_prefix(c, w, cont, cont))
                return;
            w->pfx[w->npfx - 1].used = true;
            c->li_depth++;
            emit_element(c, w, k, depth + 1, false);
            c->li_depth--;
            pop_prefix(w);
        } else {
            emit_element(c, w, k, depth + 1, false);
        }
    }
    block(w, sep);
}

static void emit_blockquote(ctx *c, writer *w, xmlNode *n, int depth)
{
    if (w->inline_only) {
        emit_children(c, w, n, depth);
        return;
    }
    block(w, 2);
    if (!push_prefix(c, w, "> ", "> "))
        return;
    emit_children(c, w, n, depth);
    pop_prefix(w);
    block(w, 2);
}

static void emit_block(ctx *c, writer *w, xmlNode *n, int depth)
{
    block(w, 2);
    emit_children(c, w, n, depth);
    block(w, 2);
}

/* ---- tables ---------------------------------------------------------------- */

typedef struct cell {
    size_t off, len;
} cell;

typedef struct table {
    xmlNode **rows;
    size_t nrows, cap_rows;
    cell *cells;
    size_t ncells, cap_cells;
    size_t *row_start; /* index of each row's first cell */
    rig__buf text;
} table;

static bool skip_el(ctx *c, const ninfo *in)
{
    return (in->flags & F_DROP) || ((in->flags & F_FURN) && c->use_furniture);
}

static void table_rows(ctx *c, table *t, xmlNode *n, int depth)
{
    for (xmlNode *k = n->children; k && !c->oom; k = k->next) {
        if (k->type != XML_ELEMENT_NODE)
            continue;
        ninfo *in = info_of(c, k);
        if (skip_el(c, in))
            continue;
        if (in->tag == T_TR)
            push_node(c, &t->rows, &t->nrows, &t->cap_rows, k);
        else if ((in->tag == T_THEAD || in->tag == T_TBODY || in->tag == T_TFOOT) && depth < 2)
            table_rows(c, t, k, depth + 1);
    }
}

static size_t colspan(const xmlNode *cellnode)
{
    const char *v = attr(cellnode, "colspan");
    if (!v)
        return 1;
    long s = strtol(v, NULL, 10);
    return s < 1 ? 1 : s > MAX_COLSPAN ? MAX_COLSPAN : (size_t)s;
}

static bool add_cell(ctx *c, table *t, size_t off, size_t len)
{
    if (t->ncells == t->cap_cells) {
        size_t nc = t->cap_cells ? t->cap_cells * 2 : 64;
        cell *p = realloc(t->cells, nc * sizeof *p);
        if (!p) {
            c->oom = true;
            return false;
        }
        t->cells = p;
        t->cap_cells = nc;
    }
    t->cells[t->ncells++] = (cell){off, len};
    return true;
}

static void emit_table(ctx *c, writer *w, xmlNode *n, int depth)
{
    ninfo *tin = info_of(c, n);
    table t = {0};
    xmlNode *caption = NULL;
    for (xmlNode *k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && info_of(c, k)->tag == T_CAPTION) {
            caption = k;
            break;
        }
    table_rows(c, &t, n, 0);
    size_t maxcols = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        size_t cols = 0;
        for (xmlNode *k = t.rows[r]->children; k; k = k->next) {
            if (k->type != XML_ELEMENT_NODE)
                continue;
            ninfo *in = info_of(c, k);
            if ((in->tag == T_TD || in->tag == T_TH) && !skip_el(c, in))
                cols += colspan(k);
        }
        if (cols > maxcols)
            maxcols = cols;
    }
    const char *role = attr(n, "role");
    bool layout = w->inline_only || maxcols <= 1 || maxcols > MAX_TABLE_COLS ||
                  (tin->flags & F_HAS_TABLE) ||
                  (role && (ieq_n(role, strlen(role), "presentation") ||
                            ieq_n(role, strlen(role), "none")));
    if (layout || c->oom) {
        free(t.rows);
        if (w->inline_only)
            emit_children(c, w, n, depth);
        else
            emit_block(c, w, n, depth);
        return;
    }
    t.row_start = malloc((t.nrows + 1) * sizeof *t.row_start);
    if (!t.row_start) {
        c->oom = true;
        free(t.rows);
        return;
    }
    writer cw = {.b = &t.text, .inline_only = true, .in_table = true};
    for (size_t r = 0; r < t.nrows && !c->oom; r++) {
        t.row_start[r] = t.ncells;
        for (xmlNode *k = t.rows[r]->children; k && !c->oom; k = k->next) {
            if (k->type != XML_ELEMENT_NODE)
                continue;
            ninfo *in = info_of(c, k);
            if ((in->tag != T_TD && in->tag != T_TH) || skip_el(c, in))
                continue;
            cw.pending_space = false;
            cw.open_len = 0;
            cw.col0 = true;
            cw.line_started = false;
            size_t off = t.text.len;
            emit_children(c, &cw, k, depth + 2);
            while (t.text.len > off && t.text.p[t.text.len - 1] == ' ')
                t.text.len--;
            add_cell(c, &t, off, t.text.len - off);
            for (size_t x = colspan(k); x > 1; x--)
                add_cell(c, &t, off, 0);
        }
    }
    t.row_start[t.nrows] = t.ncells;
    free(cw.pfx);
    if (t.text.oom)
        c->oom = true;
    if (!c->oom) {
        if (caption) {
            block(w, 2);
            emit_children(c, w, caption, depth + 1);
        }
        block(w, 2);
        flush(w);
        for (size_t r = 0; r < t.nrows; r++) {
            if (r)
                raw_newline(w, false);
            size_t a = t.row_start[r], z = t.row_start[r + 1];
            for (size_t col = 0; col < maxcols; col++) {
                put(w, col ? " | " : "| ", 2 + (col != 0));
                if (a + col < z && t.cells[a + col].len)
                    put(w, t.text.p + t.cells[a + col].off, t.cells[a + col].len);
            }
            put(w, " |", 2);
            if (r == 0) {
                raw_newline(w, false);
                for (size_t col = 0; col < maxcols; col++)
                    put(w, col ? " | ---" : "| ---", col ? 6 : 5);
                put(w, " |", 2);
            }
        }
        w->col0 = false;
        block(w, 2);
    }
    free(t.rows);
    free(t.cells);
    free(t.row_start);
    rig__buf_free(&t.text);
}

/* ---- elements ---------------------------------------------------------- */

static void emit_flat(ctx *c, writer *w, xmlNode *n)
{
    rig__buf *raw = &c->scratch;
    raw->len = 0;
    gather_text(c, n, raw, false);
    if (raw->oom)
        c->oom = true;
    else if (raw->len)
        write_text(w, raw->p, raw->len);
}

static bool link_block(uint8_t tag)
{
    switch (tag) {
    case T_TABLE: case T_UL: case T_OL: case T_DL: case T_DIV: case T_SECTION: case T_CENTER:
    case T_MENU: case T_DIR:
        return true;
    default:
        return false;
    }
}

static void emit_element(ctx *c, writer *w, xmlNode *n, int depth, bool root)
{
    ninfo *in = info_of(c, n);
    uint8_t tag = in->tag;
    if (in == &zero_info) {
        const tagdef *td = tag_find(n->name);
        tag = td ? td->tag : T_OTHER;
        if (td && (td->flags & TD))
            return;
    }
    if (!root) {
        if (skip_el(c, in) || tag_furniture(tag))
            return;
        if (tag == T_HEADER && c->body_mode && c->article_depth == 0)
            return;
        /* Without a content container, blocks that are mostly links are
         * menus nobody labelled (readability's conditional cleaning). */
        if (c->body_mode && c->article_depth == 0 && link_block(tag) && in->links >= 3 &&
            in->link_len * 2 > in->len)
            return;
    }
    if (in->flags & F_DROP)
        return;
    if (depth > MAX_DEPTH) {
        emit_flat(c, w, n);
        return;
    }
    switch (tag) {
    case T_H1: case T_H2: case T_H3: case T_H4: case T_H5: case T_H6:
        emit_heading(c, w, n, depth, tag - T_H1 + 1);
        break;
    case T_UL: case T_MENU: case T_DIR:
        emit_list(c, w, n, depth, false);
        break;
    case T_OL:
        emit_list(c, w, n, depth, true);
        break;
    case T_LI:
        if (w->inline_only)
            emit_children(c, w, n, depth);
        else
            emit_list_item(c, w, n, depth, "- ");
        break;
    case T_PRE: case T_XMP: case T_LISTING: case T_PLAINTEXT:
        emit_pre(c, w, n);
        break;
    case T_CODE: case T_KBD: case T_SAMP: case T_TT:
        emit_inline_code(c, w, n);
        break;
    case T_BLOCKQUOTE:
        emit_blockquote(c, w, n, depth);
        break;
    case T_HR:
        if (w->inline_only) {
            w->pending_space = true;
        } else {
            block(w, 2);
            flush(w);
            put(w, "---", 3);
            w->col0 = false;
            block(w, 2);
        }
        break;
    case T_BR:
        hard_break(w);
        break;
    case T_A:
        emit_link(c, w, n, depth);
        break;
    case T_IMG:
        emit_image(c, w, n);
        break;
    case T_STRONG: case T_B:
        emit_wrapped(c, w, n, depth, "**", &c->strong_depth);
        break;
    case T_EM: case T_I:
        emit_wrapped(c, w, n, depth, "*", &c->em_depth);
        break;
    case T_DEL: case T_S: case T_STRIKE:
        emit_wrapped(c, w, n, depth, "~~", &c->del_depth);
        break;
    case T_Q: {
        size_t mark = open_mark(w, "\"");
        emit_children(c, w, n, depth);
        close_mark(w, mark, "\"", 1);
        break;
    }
    case T_TABLE:
        emit_table(c, w, n, depth);
        break;
    case T_DT:
        if (w->inline_only) {
            emit_children(c, w, n, depth);
        } else {
            block(w, 2);
            emit_wrapped(c, w, n, depth, "**", &c->strong_depth);
            block(w, 1);
        }
        break;
    case T_DD:
        if (w->inline_only) {
            emit_children(c, w, n, depth);
        } else {
            block(w, 1);
            if (!push_prefix(c, w, ": ", "  "))
                break;
            emit_children(c, w, n, depth);
            pop_prefix(w);
            block(w, 2);
        }
        break;
    case T_ARTICLE: case T_MAIN: case T_SECTION:
        c->article_depth++;
        emit_block(c, w, n, depth);
        c->article_depth--;
        break;
    default:
        if (in->flags & F_BLOCK) {
            if (w->inline_only) {
                w->pending_space = true;
                emit_children(c, w, n, depth);
                w->pending_space = true;
            } else {
                emit_block(c, w, n, depth);
            }
        } else {
            emit_children(c, w, n, depth);
        }
        break;
    }
}

/* ---- the whole conversion -------------------------------------------------- */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
    xmlInitParser();
}

static void set_why(char *why, size_t cap, const char *msg)
{
    if (why && cap)
        snprintf(why, cap, "%s", msg);
}

static xmlNode *child_named(xmlNode *n, const char *name)
{
    for (xmlNode *k = n ? n->children : NULL; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && k->name && strcmp((const char *)k->name, name) == 0)
            return k;
    return NULL;
}

/* The collapsed text of an element as a malloc'd string (NULL if empty). */
static char *text_of(ctx *c, xmlNode *n)
{
    rig__buf raw = {0}, col = {0};
    gather_text(c, n, &raw, false);
    if (raw.len)
        collapse(raw.p, raw.len, &col);
    rig__buf_free(&raw);
    if (raw.oom || col.oom) {
        c->oom = true;
        rig__buf_free(&col);
        return NULL;
    }
    return col.len ? col.p : (rig__buf_free(&col), NULL);
}

/* Writes the chosen content into out. */
static void convert(ctx *c, xmlNode **roots, size_t nroots, rig__buf *out)
{
    writer w = {.b = out};
    for (size_t i = 0; i < nroots && !c->oom; i++) {
        block(&w, 2);
        emit_element(c, &w, roots[i], 0, true);
    }
    free(w.pfx);
}

static void trim_output(rig__buf *out)
{
    while (out->len && (out->p[out->len - 1] == '\n' || out->p[out->len - 1] == ' '))
        out->len--;
    if (out->len)
        rig__buf_addc(out, '\n');
    else if (out->p)
        out->p[0] = '\0';
}

int rig__html_to_markdown(const char *html, size_t len, const char *charset,
                          const char *base_url, rig__markdown *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (!html)
        len = 0;
    if (len > INT_MAX) {
        set_why(why, cap, "the HTML is larger than 2 GiB");
        return -1;
    }
    if (rig__xml_load(why, cap) != 0)
        return -1;
    pthread_once(&xml_once, xml_init);

    int rc = -1;
    rig__buf conv = {0}, clean = {0}, md = {0};
    ctx c = {0};
    xmlDoc *doc = NULL;

    /* 1. Bytes to clean UTF-8. */
    const char *s = html ? html : "";
    size_t n = len;
    char tmp[64];
    const char *enc = NULL;
    bool bom = false;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3, n -= 3, bom = true;
    } else if (n >= 2 && (memcmp(s, "\xFF\xFE", 2) == 0 || memcmp(s, "\xFE\xFF", 2) == 0)) {
        enc = (unsigned char)s[0] == 0xFF ? "UTF-16LE" : "UTF-16BE";
        s += 2, n -= 2, bom = true;
    }
    if (!bom) {
        if (charset && *charset) {
            enc = charset_name(charset, strlen(charset), tmp, sizeof tmp);
        } else {
            const char *label;
            size_t ll = meta_charset(s, n, &label);
            if (ll)
                enc = charset_name(label, ll, tmp, sizeof tmp);
        }
    }
    if (enc) {
        int r = to_utf8(s, n, enc, &conv);
        if (r < 0)
            goto oom;
        if (r == 0)
            s = conv.p ? conv.p : "", n = conv.len;
    }
    s = clean_utf8(s, n, &clean, &n);
    if (!s)
        goto oom;

    /* 2. The tree. */
    if (n) {
        doc = htmlReadMemory(s, (int)n, NULL, "UTF-8",
                             HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                 HTML_PARSE_NONET | HTML_PARSE_COMPACT | HTML_PARSE_NODEFDTD |
                                 HTML_PARSE_IGNORE_ENC);
        if (!doc) {
            set_why(why, cap, "the HTML could not be parsed (out of memory?)");
            goto done;
        }
    }
    xmlNode *html_el = doc ? xmlDocGetRootElement(doc) : NULL;
    xmlNode *head = child_named(html_el, "head");
    c.body = child_named(html_el, "body");
    if (!c.body)
        c.body = html_el;
    c.use_furniture = true;

    /* 3. Measure, find the content. */
    if (c.body) {
        analyze(&c, c.body);
        if (c.oom)
            goto oom;
    }
    /* The effective base: <base href> against the given one. */
    xmlNode *base_el = child_named(head, "base");
    const char *base_href = base_el ? attr(base_el, "href") : NULL;
    if (base_href && *base_href) {
        xmlChar *b = base_url ? xmlBuildURI((const xmlChar *)base_href,
                                            (const xmlChar *)base_url)
                              : xmlStrdup((const xmlChar *)base_href);
        if (b) {
            c.base = strdup((const char *)b);
            xmlFree(b);
            if (!c.base)
                goto oom;
        }
    }
    if (!c.base && base_url && *base_url) {
        c.base = strdup(base_url);
        if (!c.base)
            goto oom;
    }

    /* Title: <title>, else the first <h1>. */
    xmlNode *title = child_named(head, "title");
    if (title) {
        rig__buf col = {0};
        xmlChar *t = xmlNodeGetContent(title);
        if (t)
            collapse((const char *)t, strlen((const char *)t), &col);
        xmlFree(t);
        if (col.oom)
            goto oom;
        out->title = col.len ? col.p : (rig__buf_free(&col), NULL);
    }
    if (!out->title && c.first_h1) {
        out->title = text_of(&c, c.first_h1);
        if (c.oom)
            goto oom;
    }

    if (c.body) {
        xmlNode *roots[64];
        size_t nroots = choose_content(&c, roots, sizeof roots / sizeof *roots);
        if (c.oom)
            goto oom;
        if (!nroots) {
            roots[0] = c.body;
            nroots = 1;
            c.body_mode = true;
        }
        /* 4. Markdown. */
        convert(&c, roots, nroots, &md);
        if (c.oom || md.oom)
            goto oom;
        /* A page whose every block wears a furniture word: better all of it
         * than nothing. */
        ninfo *b = info_of(&c, c.body);
        if (md.len < 64 && b->all_len > 4 * (md.len + 64)) {
            md.len = 0;
            c.use_furniture = false;
            c.body_mode = true;
            roots[0] = c.body;
            convert(&c, roots, 1, &md);
            if (c.oom || md.oom)
                goto oom;
        }
    }
    trim_output(&md);
    if (md.oom)
        goto oom;
    /* The writer only splits text at ASCII bytes, so the output is as valid
     * as libxml2's text; check anyway, it is one scan. */
    size_t mlen;
    rig__buf fixed = {0};
    const char *ok = clean_utf8(md.p ? md.p : "", md.len, &fixed, &mlen);
    if (!ok)
        goto oom;
    if (ok == fixed.p) {
        rig__buf_free(&md);
        md = fixed;
    }
    if (!md.p) {
        md.p = strdup("");
        if (!md.p)
            goto oom;
    }
    out->text = md.p;
    out->len = md.len;
    md.p = NULL;
    rc = 0;
    goto done;
oom:
    set_why(why, cap, "out of memory converting HTML to Markdown");
    rc = -1;
done:
    if (rc != 0) {
        free(out->title);
        out->title = NULL;
    }
    if (doc)
        xmlFreeDoc(doc);
    rig__buf_free(&conv);
    rig__buf_free(&clean);
    rig__buf_free(&md);
    rig__buf_free(&c.scratch);
    rig__buf_free(&c.scratch2);
    free(c.info);
    free(c.cands);
    free(c.mains);
    free(c.articles);
    free(c.base);
    return rc;
}

void rig__markdown_free(rig__markdown *m)
{
    if (!m)
        return;
    free(m->text);
    free(m->title);
    m->text = NULL;
    m->title = NULL;
    m->len = 0;
}
