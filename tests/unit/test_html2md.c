/* test_html2md.c — HTML to Markdown (src/tools/html2md.c): realistic pages
 * from tests/data/html (content kept, furniture gone, exact Markdown for
 * code, tables, lists and links), the Markdown details one by one, charsets,
 * and inputs that must not crash, hang or yield invalid UTF-8. */
#include "testing.h"

#include "tools/html2md.h"
#include "util/buf.h"

/* An independent UTF-8 check (Unicode table 3-7). */
static bool valid_utf8(const char *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    for (size_t i = 0; i < n;) {
        unsigned char b = s[i];
        size_t len;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b < 0x80) {
            i++;
            continue;
        } else if (b >= 0xC2 && b <= 0xDF) {
            len = 2;
        } else if (b == 0xE0) {
            len = 3, lo = 0xA0;
        } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
            len = 3;
        } else if (b == 0xED) {
            len = 3, hi = 0x9F;
        } else if (b == 0xF0) {
            len = 4, lo = 0x90;
        } else if (b >= 0xF1 && b <= 0xF3) {
            len = 4;
        } else if (b == 0xF4) {
            len = 4, hi = 0x8F;
        } else {
            return false;
        }
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (size_t k = 2; k < len; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return false;
        i += len;
    }
    return true;
}

/* Converts len bytes; checks the result's invariants; returns the text
 * (malloc'd) and, when title is not NULL, the title. */
static char *convert_n(const char *html, size_t len, const char *charset, const char *base,
                       char **title)
{
    char *copy = exact_copy(html, len);
    rig__markdown m;
    char why[128] = "";
    int rc = rig__html_to_markdown(copy, len, charset, base, &m, why, sizeof why);
    free(copy);
    if (rc != 0)
        fail_msg("rig__html_to_markdown failed: %s", why);
    assert_non_null(m.text);
    assert_int_equal(strlen(m.text), m.len);
    assert_true(valid_utf8(m.text, m.len));
    if (m.title)
        assert_true(valid_utf8(m.title, strlen(m.title)));
    if (!strstr(m.text, "```")) /* code keeps its own blank lines */
        assert_null(strstr(m.text, "\n\n\n"));
    char *t = m.text;
    if (title)
        *title = m.title;
    else
        free(m.title);
    return t;
}

static char *convert(const char *html, const char *base)
{
    return convert_n(html, strlen(html), NULL, base, NULL);
}

static char *read_page(const char *name, size_t *len)
{
    const char *d = getenv("RIG_TEST_DATA");
    if (!d)
        fail_msg("RIG_TEST_DATA is not set (tests/meson.build sets it to tests/data)");
    char path[4096];
    snprintf(path, sizeof path, "%s/html/%s", d, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

static char *convert_page(const char *name, const char *charset, const char *base, char **title)
{
    size_t n;
    char *html = read_page(name, &n);
    char *md = convert_n(html, n, charset, base, title);
    free(html);
    return md;
}

#define HAS(md, s)                                                                                 \
    do {                                                                                           \
        if (!strstr((md), (s)))                                                                    \
            fail_msg("missing:\n%s\n--- in:\n%s", (s), (md));                                      \
    } while (0)
#define LACKS(md, s)                                                                               \
    do {                                                                                           \
        if (strstr((md), (s)))                                                                     \
            fail_msg("should be gone:\n%s\n--- in:\n%s", (s), (md));                               \
    } while (0)
#define SAME(md, s)                                                                                \
    do {                                                                                           \
        if (strcmp((md), (s)) != 0)                                                                \
            fail_msg("got:\n%s---\nwant:\n%s---", (md), (s));                                      \
    } while (0)

/* ---- pages --------------------------------------------------------------- */

static void news_article(void **state)
{
    (void)state;
    char *title;
    char *md = convert_page("news.html", NULL, "https://courier.example.com/news/2024/05/bike-lanes.html",
                            &title);
    assert_string_equal(title, "City council approves new bike lanes | The Daily Courier");
    assert_true(strncmp(md, "# City council approves new bike lanes on Main Street\n\n", 55) == 0);
    HAS(md, "By [Jane Doe](https://courier.example.com/authors/jane-doe) · May 14, 2024\n");
    HAS(md, "![Cyclists on Main Street at dusk](https://courier.example.com/news/2024/05/images/main-street.jpg)");
    HAS(md, "The city council voted 7–2 on Tuesday night");
    HAS(md, "according to the [department of transportation](https://transport.example.gov/projects/main-street).\n");
    HAS(md, "\n## What changes for drivers\n\n");
    HAS(md, "\n- Speed limit lowered to 25 mph\n- Twelve new signalised crossings\n- Loading zones on every block\n");
    HAS(md, "\n> Business owners along the corridor remain divided");
    HAS(md, "to limit disruption to shops.\n");
    /* furniture */
    static const char *const gone[] = {
        "cookie", "Accept all", "Skip to content", "Sport", "Business\n", "Opinion",
        "Search the Courier", "ADVERTISEMENT", "mattress", "LoanCo", "Share on", "Most read",
        "bakery", "newsletter", "Comments", "Terrible idea", "All rights reserved", "Privacy",
        "dataLayer", "gtag", "font-family", "tracking pixel", "logo.svg", "querySelectorAll",
    };
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        LACKS(md, gone[i]);
    free(title);
    free(md);
}

static void docs_page(void **state)
{
    (void)state;
    char *title;
    char *md = convert_page("docs.html", NULL, "https://docs.example.org/widgetd/2.3/config.html",
                            &title);
    assert_string_equal(title, "Configuration — widgetd 2.3 documentation");
    assert_true(strncmp(md, "# Configuration\n\n", 17) == 0); /* permalink "¶" gone */
    HAS(md, "from `/etc/widgetd/widgetd.toml` and from environment variables prefixed with `WIDGETD_`.");
    HAS(md, "write `` ` ``; the template syntax is ``` ``name`` ```, and `a | b` pipes.");
    HAS(md, "\n```bash\n$ sudo apt install widgetd\n$ widgetd --config /etc/widgetd/widgetd.toml --verbose\n```\n");
    HAS(md, "\n```toml\n[server]\nlisten = \"127.0.0.1:8080\"\nworkers = 4\n\n[log]\n"
            "level = \"info\"   # one of: debug, info, warn\n```\n");
    HAS(md, "\n```python\nimport widgetd\n\ndef main():\n"
            "    client = widgetd.Client(\"http://127.0.0.1:8080\")\n"
            "    for w in client.widgets(limit=10):\n"
            "        if w.size > 3 and w.name != \"*\":\n"
            "            print(f\"{w.name}: {w.size}\")\n```\n");
    HAS(md, "\n```c\n#include <widgetd.h>\n\nint main(void)\n{\n"
            "\twd_client *c = wd_connect(\"127.0.0.1:8080\");\n\tif (!c)\n"
            "\t\treturn 1;   /* see wd_strerror() */\n\treturn wd_close(c);\n}\n```\n");
    HAS(md, "\n````\n```\n# not a heading\n```\n````\n");
    HAS(md, "\n| Option | Type | Default | Description |\n"
            "| --- | --- | --- | --- |\n"
            "| `workers` | integer | `4` | Number of worker threads. |\n"
            "| `listen` | string | `\"127.0.0.1:8080\"` | Address and port, as *host:port*. |\n"
            "| `mode` | enum | `fast\\|safe` | Either fast or safe. Safe mode fsyncs every write. |\n"
            "| deprecated |  | - | Old options are ignored. |\n");
    HAS(md, "\n0. **debug** — everything, including:\n"
            "   - request headers\n"
            "   - timings per stage\n"
            "     - parse\n"
            "     - render\n"
            "1. **info** — one line per request\n"
            "2. **warn** — only problems\n");
    HAS(md, "\n**`WIDGETD_HOME`**\n: Where state is kept. Defaults to "
            "[the state directory](https://docs.example.org/widgetd/state/).\n");
    HAS(md, "needs a restart; other settings reload on `SIGHUP`.");
    HAS(md, "Names like my_config_file and \\_\\_init\\_\\_ or 2 * 3 stay readable; \\*stars\\* "
            "and a script link do not become markup.");
    HAS(md, "\n---\n");
    HAS(md, "See also [the API reference](https://docs.example.org/widgetd/2.3/api.html#options) "
            "and [a spaced link](https://example.org/a%20b%28c%29).\n");
    static const char *const gone[] = {"Installation", "API reference](https://docs.example.org/widgetd/2.3/api.html)",
                                       "Docs", "»", "Sphinx", "searchtools", "javascript", "¶"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        LACKS(md, gone[i]);
    free(title);
    free(md);
}

static void broken_markup(void **state)
{
    (void)state;
    char *title;
    char *md = convert_page("broken.html", NULL, "https://old.example.com/pages/index.html", &title);
    assert_string_equal(title, "Broken markup test");
    HAS(md, "## Recovering from bad HTML\n\nThis paragraph is never closed and runs straight into the next one");
    HAS(md, "Here **bold text *with italic*** misnested tags follow");
    HAS(md, "\nAfter the stray close tag the parser must still keep this paragraph");
    HAS(md, "\n- first item without a close\n- second item [with a link");
    HAS(md, "](https://old.example.com/x)\n");
    HAS(md, "\n| Name | Value |\n| --- | --- |\n| alpha | 1 |\n| beta | 2 |\n");
    HAS(md, "\n```\n  indented\n\ttabbed <tag>\n```\n");
    HAS(md, "Unclosed *emphasis at the end of the document");
    free(title);
    free(md);
}

static void latin1_page(void **state)
{
    (void)state;
    char *title;
    char *md = convert_page("latin1.html", NULL, "http://cafe-mueller.example.de/", &title);
    assert_string_equal(title, "Café Müller – Speisekarte");
    HAS(md, "# Willkommen im Café Müller\n");
    HAS(md, "hausgemachte Kuchen, Torten und Gebäck. Größere Bestellungen für Feiern");
    HAS(md, "Preise in £ und €, ½ Portion möglich. À la carte: Crème brûlée, Spätzle, naïve « Grüße », © 1952.");
    HAS(md, "Öffnungszeiten");
    LACKS(md, "Startseite"); /* a menu in a layout table */
    free(title);
    free(md);
    /* The response's charset wins over <meta>. */
    md = convert_page("latin1.html", "ISO-8859-1", NULL, NULL);
    HAS(md, "Café Müller");
    free(md);
    md = convert_page("latin1.html", "\"utf-8\"", NULL, &title);
    HAS(md, "Caf\xEF\xBF\xBD M\xEF\xBF\xBDller"); /* U+FFFD, valid UTF-8 */
    free(title);
    free(md);
}

static void no_main_element(void **state)
{
    (void)state;
    char *title;
    char *md = convert_page("nomain.html", NULL, "http://sam.example.net/post/dinghy", &title);
    assert_string_equal(title, "How I restored a 1970s sailing dinghy");
    assert_true(strncmp(md, "Last spring I bought an old fibreglass dinghy", 45) == 0);
    HAS(md, "\n\nNext came the centreboard case.");
    HAS(md, "1 m² of glass cloth, sandpaper in five grits, and a lot of masking tape.\n");
    static const char *const gone[] = {"Home", "Categories", "Archive", "Recent posts",
                                       "Hebrides", "Copyright", "HandRolledCMS", "4 replies"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        LACKS(md, gone[i]);
    free(title);
    free(md);
}

/* ---- Markdown details ------------------------------------------------------ */

static void inline_markup(void **state)
{
    (void)state;
    char *md = convert("<p>a <b> bold </b>c and <em>it</em>al<i></i>ic <strong></strong>"
                       "<s>old</s> <a href=\"/x\"></a><q>quoted</q></p>",
                       "http://h.example/");
    SAME(md, "a **bold** c and *it*alic ~~old~~ \"quoted\"\n");
    free(md);
    md = convert("<p>one<br>two<br><br>three<br></p><p>  spaced\n\t  out  </p>", NULL);
    SAME(md, "one  \ntwo\n\nthree\n\nspaced out\n");
    free(md);
    md = convert("<p>no&nbsp;break and <code>x&nbsp;y</code></p>", NULL);
    SAME(md, "no break and `x y`\n");
    free(md);
}

static void escapes(void **state)
{
    (void)state;
    static const struct {
        const char *html, *md;
    } cases[] = {
        {"<p># not a heading</p>", "\\# not a heading\n"},
        {"<p>#hashtag</p>", "#hashtag\n"},
        {"<p>- not a list</p>", "\\- not a list\n"},
        {"<p>-5 degrees and --flag</p>", "-5 degrees and --flag\n"},
        {"<p>+ plus</p>", "\\+ plus\n"},
        {"<p>1. not a list</p>", "1\\. not a list\n"},
        {"<p>1984 was a year</p>", "1984 was a year\n"},
        {"<p>> not a quote</p>", "\\> not a quote\n"},
        {"<p>a * b and a*b*c</p>", "a * b and a\\*b\\*c\n"},
        {"<p>snake_case and _lead</p>", "snake_case and \\_lead\n"},
        {"<p>[x](y) and [1]</p>", "[x\\](y) and [1\\]\n"},
        {"<p>use &lt;div&gt; and a &lt; b</p>", "use \\<div> and a < b\n"},
        {"<p>&amp;amp; and AT&amp;T</p>", "\\&amp; and AT&T\n"},
        {"<p>C:\\Users and \\*</p>", "C:\\Users and \\\\\\*\n"},
        {"<p>`tick` ~~strike~~ ~home</p>", "\\`tick\\` \\~\\~strike\\~\\~ ~home\n"},
        {"<p>a | b</p>", "a | b\n"},
        {"<p>---</p>", "\\---\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *md = convert(cases[i].html, NULL);
        if (strcmp(md, cases[i].md) != 0)
            fail_msg("%s\ngot:  %swant: %s", cases[i].html, md, cases[i].md);
        free(md);
    }
}

static void links_and_images(void **state)
{
    (void)state;
    char *md = convert("<p><a href=\"../up?q=1#f\">up</a> <a href=\"https://o.example/abs\">abs</a> "
                       "<a href=\"javascript:alert(1)\">js</a> <a href=\"#\">hash</a> "
                       "<a href=\"mailto:a@b.example\">mail</a> <a>plain</a> "
                       "<a href=\"/p\"><img src=\"i.png\" alt=\"an [icon]\"></a> "
                       "<img data-src=\"/lazy.jpg\" src=\"data:image/gif;base64,R0lG\" alt=\"lazy\"> "
                       "<img src=\"data:image/png;base64,AAAA\"> <a href=\" /sp ace \">sp</a></p>",
                       "https://h.example/a/b/c.html");
    SAME(md, "[up](https://h.example/a/up?q=1#f) [abs](https://o.example/abs) js hash "
             "[mail](mailto:a@b.example) plain "
             "[![an \\[icon\\]](https://h.example/a/b/i.png)](https://h.example/p) "
             "![lazy](https://h.example/lazy.jpg) [sp](https://h.example/sp%20ace)\n");
    free(md);
    /* <base href> moves the base. */
    md = convert("<html><head><base href=\"/root/\"></head><body><p><a href=\"x\">x</a></p></body></html>",
                 "https://h.example/a/b.html");
    SAME(md, "[x](https://h.example/root/x)\n");
    free(md);
    /* No base: relative links stay relative. */
    md = convert("<p><a href=\"rel/x\">x</a></p>", NULL);
    SAME(md, "[x](rel/x)\n");
    free(md);
    /* A link around blocks stays one link. */
    md = convert("<div><a href=\"/c\"><div><h3>Card</h3><p>Text</p></div></a></div>", "http://h.example/");
    SAME(md, "[Card Text](http://h.example/c)\n");
    free(md);
}

static void lists(void **state)
{
    (void)state;
    char *md = convert("<ol start=\"9\"><li>nine</li><li>ten<ol><li>a</li></ol></li><li value=\"20\">twenty</li></ol>"
                       "<ol reversed><li>c</li><li>b</li><li>a</li></ol>"
                       "<ul><li><p>para one</p><p>para two</p></li><li>next</li></ul>"
                       "<ul><li>a</li><ul><li>stray nested</li></ul></ul>"
                       "<ul><li></li><li><ul><li>deep first</li></ul></li></ul>", NULL);
    SAME(md, "9. nine\n10. ten\n    1. a\n20. twenty\n\n"
             "3. c\n2. b\n1. a\n\n"
             "- para one\n\n  para two\n- next\n\n"
             "- a\n  - stray nested\n\n"
             "- - deep first\n");
    free(md);
}

static void blocks(void **state)
{
    (void)state;
    char *md = convert("<blockquote><p>q1</p><p>q2</p><blockquote>inner</blockquote></blockquote>"
                       "<hr><h2>  Title <small>sub</small> </h2><h3></h3>"
                       "<pre class=\"language-js\">\n\nlet a = 1;\n\n</pre>"
                       "<pre><code class=\"lang-rust\">fn main() {}</code></pre>"
                       "<ul><li>item<pre>code\n  line</pre></li></ul>"
                       "<table><caption>Cap</caption><tr><td>a|b</td><td colspan=\"2\">wide</td></tr>"
                       "<tr><td><p>multi</p><p>para</p></td><td>x</td><td>y</td><td>extra</td></tr></table>",
                 NULL);
    SAME(md, "> q1\n>\n> q2\n>\n> > inner\n\n---\n\n## Title sub\n\n"
             "```js\n\nlet a = 1;\n```\n\n"
             "```rust\nfn main() {}\n```\n\n"
             "- item\n\n  ```\n  code\n    line\n  ```\n\n"
             "Cap\n\n| a\\|b | wide |  |  |\n| --- | --- | --- | --- |\n| multi para | x | y | extra |\n");
    free(md);
}

static void dropped_and_hidden(void **state)
{
    (void)state;
    char *md = convert("<main><p>keep</p><p hidden>h1</p><p aria-hidden=\"true\">h2</p>"
                       "<p style=\"color: red; display : none\">h3</p><p style=\"visibility:hidden\">h4</p>"
                       "<template><p>h5</p></template><script>h6()</script><style>h7{}</style>"
                       "<noscript>h8</noscript><svg><text>h9</text></svg><iframe src=\"x\">h10</iframe>"
                       "<form><label>Name</label><input value=\"h11\"><textarea>h12</textarea>"
                       "<select><option>h13</option></select><button>h14</button></form>"
                       "<nav>h15</nav><aside>h16</aside><footer>h17</footer>"
                       "<div class=\"social-share\">h18</div><div id=\"cookieNotice\">h19</div>"
                       "<div class=\"navy-theme\">navy</div><div class=\"content sidebar\">both</div>"
                       "<pre><span class=\"comment\">/* kept */</span></pre></main>",
                       NULL);
    SAME(md, "keep\n\nName\n\nnavy\n\nboth\n\n```\n/* kept */\n```\n");
    free(md);
}

static void title_fallbacks(void **state)
{
    (void)state;
    char *title;
    const char *h = "<body><h1>  First\n heading </h1><p>x</p></body>";
    char *md = convert_n(h, strlen(h), NULL, NULL, &title);
    assert_string_equal(title, "First heading");
    free(title);
    free(md);
    md = convert_n("<p>no title</p>", strlen("<p>no title</p>"), NULL, NULL, &title);
    assert_null(title);
    free(md);
}

/* ---- bad input ------------------------------------------------------------- */

static void empty_and_null(void **state)
{
    (void)state;
    rig__markdown m;
    char why[64];
    assert_int_equal(rig__html_to_markdown(NULL, 0, NULL, NULL, &m, why, sizeof why), 0);
    assert_string_equal(m.text, "");
    assert_int_equal(m.len, 0);
    assert_null(m.title);
    rig__markdown_free(&m);
    rig__markdown_free(&m); /* twice is harmless */
    static const char *const blanks[] = {"", " \n\t", "<html></html>", "<!-- only -->",
                                         "<script>x()</script>", "<!DOCTYPE html>"};
    for (size_t i = 0; i < sizeof blanks / sizeof *blanks; i++) {
        char *md = convert_n(blanks[i], strlen(blanks[i]), NULL, NULL, NULL);
        assert_string_equal(md, "");
        free(md);
    }
}

static void binary_junk(void **state)
{
    (void)state;
    rng = 42;
    for (int round = 0; round < 200; round++) {
        size_t n = rnd_below(4096);
        char *b = malloc(n + 1);
        assert_non_null(b);
        for (size_t i = 0; i < n; i++) {
            unsigned r = rnd_below(100);
            /* Mostly markup-ish bytes, some raw binary. */
            static const char marks[] = "<>/=\"' &;#abpdivlu\n";
            b[i] = r < 40 ? marks[rnd_below(sizeof marks - 1)] : (char)rnd_below(256);
        }
        char *md = convert_n(b, n, round % 3 ? NULL : "shift_jis", "http://j.example/", NULL);
        free(md);
        free(b);
    }
}

static void invalid_utf8_and_nul(void **state)
{
    (void)state;
    const char html[] = "<p>ok \xC3\xA9 bad \xC3 \xFF\xFE over \xE0\x80\x80 sur \xED\xA0\x80 nul \0 ctl \x01\x1B end</p>";
    char *md = convert_n(html, sizeof html - 1, NULL, NULL, NULL);
    HAS(md, "ok é bad");
    HAS(md, "nul");
    HAS(md, "end");
    LACKS(md, "\x1B");
    free(md);
    /* An unknown charset label reads as UTF-8; UTF-16 with a BOM is found. */
    md = convert_n("<p>caf\xC3\xA9</p>", 11, "x-no-such-charset", NULL, NULL);
    SAME(md, "café\n");
    free(md);
    const char u16[] = "\xFF\xFE<\0p\0>\0h\0\xE9\0<\0/\0p\0>\0";
    md = convert_n(u16, sizeof u16 - 1, NULL, NULL, NULL);
    SAME(md, "hé\n");
    free(md);
}

static void deep_nesting(void **state)
{
    (void)state;
    static const char *const open[] = {"<div>", "<ul><li>", "<blockquote>", "<b><i>", "<table><tr><td>",
                                       "<a href=x>", "<ol><li><p>"};
    for (size_t k = 0; k < sizeof open / sizeof *open; k++) {
        size_t depth = 100000, ol = strlen(open[k]);
        rig__buf b = {0};
        rig__buf_adds(&b, "<p>before the nest, some words</p>");
        for (size_t i = 0; i < depth; i++)
            rig__buf_add(&b, open[k], ol);
        rig__buf_adds(&b, "deep text");
        assert_false(b.oom);
        char *md = convert_n(b.p, b.len, NULL, NULL, NULL);
        HAS(md, "before the nest");
        /* Indentation stops growing: the output stays small. */
        assert_true(strlen(md) < 20000);
        free(md);
        rig__buf_free(&b);
    }
}

static void huge_attributes_and_tables(void **state)
{
    (void)state;
    size_t n = 4u << 20;
    rig__buf b = {0};
    rig__buf_adds(&b, "<main><p class=\"");
    for (size_t i = 0; i < n / 8; i++)
        rig__buf_adds(&b, "x-large ");
    rig__buf_adds(&b, "\" title=\"");
    for (size_t i = 0; i < n; i++)
        rig__buf_addc(&b, 'x');
    rig__buf_adds(&b, "\">text after a huge attribute, long enough to be the content of the page "
                      "without any doubt at all, really, it goes on and on and on.</p>");
    /* colspans far past the cap, many rows */
    rig__buf_adds(&b, "<table><tr><td colspan=999999>a</td><td colspan=-5>b</td></tr>");
    for (int i = 0; i < 2000; i++)
        rig__buf_adds(&b, "<tr><td>1</td></tr>");
    rig__buf_adds(&b, "</table></main>");
    assert_false(b.oom);
    char *md = convert_n(b.p, b.len, NULL, NULL, NULL);
    HAS(md, "text after a huge attribute");
    assert_true(strlen(md) < 200000);
    free(md);
    rig__buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(news_article),
        cmocka_unit_test(docs_page),
        cmocka_unit_test(broken_markup),
        cmocka_unit_test(latin1_page),
        cmocka_unit_test(no_main_element),
        cmocka_unit_test(inline_markup),
        cmocka_unit_test(escapes),
        cmocka_unit_test(links_and_images),
        cmocka_unit_test(lists),
        cmocka_unit_test(blocks),
        cmocka_unit_test(dropped_and_hidden),
        cmocka_unit_test(title_fallbacks),
        cmocka_unit_test(empty_and_null),
        cmocka_unit_test(binary_junk),
        cmocka_unit_test(invalid_utf8_and_nul),
        cmocka_unit_test(deep_nesting),
        cmocka_unit_test(huge_attributes_and_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
