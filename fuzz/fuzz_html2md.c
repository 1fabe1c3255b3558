/* fuzz_html2md.c — HTML to Markdown (src/tools/html2md.h) on hostile bytes.
 *
 * The first byte picks the declared charset (none, UTF-8, windows-1252,
 * Shift_JIS, or one iconv does not know) and whether a base URL is given;
 * the rest is the page. Checked:
 *
 *   - the result is 0 (-1 only with a reason, and only out of memory);
 *   - the text is valid UTF-8 (fz_utf8_valid, written apart from rig's own
 *     check), NUL-free and exactly `len` bytes, empty or ending in one
 *     newline, never with two blank lines in a row outside code blocks;
 *   - the title, when there is one, is valid UTF-8 with no newline and no
 *     leading or trailing space. */
#include "fuzz_common.h"

#include "tools/html2md.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const charsets[] = {NULL, "utf-8", "windows-1252", "Shift_JIS",
                                       "x-not-a-charset"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    const char *charset = charsets[data[0] % 5];
    const char *base = (data[0] & 0x80) ? NULL : "https://fuzz.example/a/b/page.html?q=1";
    /* An exact copy: a read past the end is ASan's to catch. */
    size_t n = size - 1;
    char *html = malloc(n ? n : 1);
    FUZZ_CHECK(html, "out of memory");
    memcpy(html, data + 1, n);
    rig__markdown m;
    char why[128] = "";
    int rc = rig__html_to_markdown(html, n, charset, base, &m, why, sizeof why);
    free(html);
    FUZZ_CHECK(rc == 0, "rc %d: %s", rc, why);
    FUZZ_CHECK(m.text, "no text");
    FUZZ_CHECK(strlen(m.text) == m.len, "len %zu, strlen %zu", m.len, strlen(m.text));
    FUZZ_CHECK(fz_utf8_valid((const uint8_t *)m.text, m.len), "invalid UTF-8 in the text");
    FUZZ_CHECK(m.len == 0 || m.text[m.len - 1] == '\n', "text does not end in a newline");
    FUZZ_CHECK(m.len < 2 || m.text[m.len - 2] != '\n', "text ends in a blank line");
    FUZZ_CHECK(m.len == 0 || m.text[0] != '\n', "text starts with a blank line");
    /* Blank lines inside a code block are the page's own. */
    FUZZ_CHECK(strstr(m.text, "```") || !strstr(m.text, "\n\n\n"), "two blank lines in a row");
    if (m.title) {
        size_t tl = strlen(m.title);
        FUZZ_CHECK(tl > 0, "empty title instead of NULL");
        FUZZ_CHECK(fz_utf8_valid((const uint8_t *)m.title, tl), "invalid UTF-8 in the title");
        FUZZ_CHECK(!strchr(m.title, '\n'), "newline in the title");
        FUZZ_CHECK(m.title[0] != ' ' && m.title[tl - 1] != ' ', "title not trimmed");
    }
    rig__markdown_free(&m);
    return 0;
}
