/* bench_html2md.c — HTML to readable Markdown (what fetch does with a page):
 * rig's html2md against Mozilla Readability + Turndown on jsdom in Node, the
 * pipeline Hooman runs (html2md_peer.mjs; run.sh runs both, this first).
 *
 * The page is generated here from a fixed-seed PRNG, identical on every run
 * and machine: a ~5 MB news/documentation page as sites serve them — a head
 * full of inline scripts and styles, a cookie banner, header and navigation,
 * an <article> of sections (headings, paragraphs of prose with links,
 * emphasis and inline code, lists, code blocks, tables, quotes, figures),
 * ads between them, a sidebar, a long comment thread and a footer.
 *
 * One conversion is the whole job: bytes in, main content found, Markdown
 * and title out, everything freed. Figures are MB/s of input (10^6 bytes),
 * the median of --runs runs (default 7). The output is checked once,
 * outside the timing: the content is there and the furniture is not.
 *
 *   bench_html2md [--runs N] [--dump DIR] [--mb M]
 *
 * --dump DIR writes the page (page.html), rig's Markdown (rig.md) and rig's
 * figures (html2md.json) for the Node peer. --mb sets the page size. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tools/html2md.h"
#include "util/buf.h"

static uint64_t sink;

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_html2md: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- the page ------------------------------------------------------------ */

static uint64_t rng = 0x5eed;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

static const char *const words[] = {
    "the", "council", "river", "engine", "server", "request", "policy", "budget", "station",
    "market", "a", "of", "and", "to", "in", "is", "that", "for", "on", "with", "as", "was",
    "report", "system", "network", "garden", "library", "winter", "summer", "protocol",
    "latency", "throughput", "measure", "result", "question", "answer", "people", "city",
    "weather", "harbour", "données", "Straße", "café", "naïve", "über", "東京", "数据",
    "Москва", "εμπειρία", "🙂", "resilient", "configuration", "deployment", "we", "they",
    "it", "should", "would", "could", "because", "however", "although", "between",
};
#define NWORDS (sizeof words / sizeof *words)

static void prose(rig__buf *b, int nwords, bool markup)
{
    for (int i = 0; i < nwords; i++) {
        if (i)
            rig__buf_addc(b, below(9) == 0 ? ',' : ' ');
        if (i && below(9) == 0)
            rig__buf_addc(b, ' ');
        unsigned r = markup ? below(40) : 99;
        const char *w = words[below(NWORDS)];
        if (r == 0)
            rig__buf_addf(b, "<a href=\"/section/%u/%s\">%s %s</a>", below(1000), "story", w,
                          words[below(NWORDS)]);
        else if (r == 1)
            rig__buf_addf(b, "<em>%s</em>", w);
        else if (r == 2)
            rig__buf_addf(b, "<strong>%s</strong>", w);
        else if (r == 3)
            rig__buf_addf(b, "<code>%s_%u()</code>", w, below(100));
        else if (r == 4)
            rig__buf_addf(b, "<a href=\"https://ref.example.org/wiki/%s_%u\">%s</a>", "Topic",
                          below(10000), w);
        else
            rig__buf_adds(b, w);
    }
    rig__buf_addc(b, '.');
}

static void head(rig__buf *b)
{
    rig__buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<title>The long read: how the city rebuilt its harbour | Example Times</title>\n"
                     "<meta name=\"viewport\" content=\"width=device-width\">\n");
    for (int i = 0; i < 20; i++) {
        rig__buf_adds(b, "<script>(function(){var cfg={");
        for (int k = 0; k < 200; k++)
            rig__buf_addf(b, "k%d:'%s',", k, words[below(NWORDS)]);
        rig__buf_adds(b, "};window.__cfg=cfg;if(a<b&&c>d){track('view');}})();</script>\n");
    }
    rig__buf_adds(b, "<style>");
    for (int k = 0; k < 800; k++)
        rig__buf_addf(b, ".c%d{margin:%dpx;color:#%06x}", k, k % 17, (unsigned)(rnd() & 0xffffff));
    rig__buf_adds(b, "</style></head>\n<body class=\"article-page\">\n");
}

static void furniture_top(rig__buf *b)
{
    rig__buf_adds(b, "<div id=\"cookie-banner\" class=\"cookie-consent\"><p>We use cookies to "
                     "improve your experience.</p><button>Accept all</button></div>\n"
                     "<header class=\"site-header\"><a href=\"/\" class=\"logo\">Example Times</a>"
                     "<nav class=\"main-nav\"><ul>");
    for (int i = 0; i < 60; i++)
        rig__buf_addf(b, "<li><a href=\"/section/%d\">Section %d</a></li>", i, i);
    rig__buf_adds(b, "</ul></nav><form action=\"/search\"><input name=\"q\"><button>Search</button>"
                     "</form></header>\n<div class=\"page\"><div class=\"layout\">\n");
}

static void article(rig__buf *b, size_t target)
{
    rig__buf_adds(b, "<article class=\"story\"><header><h1>How the city rebuilt its harbour</h1>"
                     "<p class=\"byline\">By <a href=\"/authors/ann\">Ann Example</a></p></header>\n");
    for (int s = 0; b->len < target; s++) {
        rig__buf_addf(b, "<section id=\"s%d\"><h2>Part %d: ", s, s);
        prose(b, 4, false);
        rig__buf_adds(b, "</h2>\n");
        int np = 3 + (int)below(4);
        for (int p = 0; p < np; p++) {
            rig__buf_adds(b, "<p>");
            prose(b, 60 + (int)below(80), true);
            rig__buf_adds(b, "</p>\n");
        }
        if (s % 2 == 0) {
            rig__buf_adds(b, "<ul>");
            for (int i = 0; i < 5; i++) {
                rig__buf_adds(b, "<li>");
                prose(b, 8, true);
                if (i == 2) {
                    rig__buf_adds(b, "<ol><li>first nested</li><li>second nested</li></ol>");
                }
                rig__buf_adds(b, "</li>");
            }
            rig__buf_adds(b, "</ul>\n");
        }
        if (s % 3 == 0) {
            rig__buf_adds(b, "<pre><code class=\"language-python\">");
            for (int i = 0; i < 18; i++)
                rig__buf_addf(b, "%*sresult_%d = compute(&quot;%s&quot;, limit=%u)  # %s &lt;ok&gt;\n",
                              (i % 3) * 4, "", i, words[below(NWORDS)], below(1000),
                              words[below(NWORDS)]);
            rig__buf_adds(b, "</code></pre>\n");
        }
        if (s % 4 == 1) {
            rig__buf_adds(b, "<table><thead><tr><th>Year</th><th>Ships</th><th>Tonnage</th>"
                             "<th>Note</th></tr></thead><tbody>");
            for (int i = 0; i < 8; i++)
                rig__buf_addf(b, "<tr><td>%d</td><td>%u</td><td>%u,%03u</td><td>%s %s</td></tr>",
                              1990 + i, below(500), below(900), below(1000), words[below(NWORDS)],
                              words[below(NWORDS)]);
            rig__buf_adds(b, "</tbody></table>\n");
        }
        if (s % 5 == 2) {
            rig__buf_adds(b, "<blockquote><p>");
            prose(b, 40, true);
            rig__buf_adds(b, "</p></blockquote>\n");
        }
        if (s % 6 == 3)
            rig__buf_addf(b, "<figure><img src=\"/img/harbour-%d.jpg\" alt=\"The harbour, part %d\">"
                             "<figcaption>The harbour in %d.</figcaption></figure>\n",
                          s, s, 1950 + s % 70);
        if (s % 7 == 0)
            rig__buf_adds(b, "<div class=\"ad ad-inline\"><p>ADVERTISEMENT: buy now</p>"
                             "<script>ads.push({slot:'x'})</script></div>\n");
        rig__buf_adds(b, "</section>\n");
    }
    rig__buf_adds(b, "<div class=\"share-tools\"><a href=\"https://x.example/share\">Share</a></div>"
                     "</article>\n");
}

static void furniture_bottom(rig__buf *b)
{
    rig__buf_adds(b, "<aside class=\"sidebar\"><h3>Most read</h3><ol>");
    for (int i = 0; i < 100; i++)
        rig__buf_addf(b, "<li><a href=\"/news/%d\">Headline number %d</a></li>", i, i);
    rig__buf_adds(b, "</ol></aside></div>\n<section id=\"comments\" class=\"comments\"><h3>Comments</h3>");
    for (int i = 0; i < 300; i++) {
        rig__buf_addf(b, "<div class=\"comment\"><p class=\"author\">reader%d</p><p>", i);
        prose(b, 30, false);
        rig__buf_adds(b, "</p></div>");
    }
    rig__buf_adds(b, "</section></div>\n<footer class=\"site-footer\"><p>Copyright Example Times"
                     "</p><ul><li><a href=\"/privacy\">Privacy</a></li></ul></footer>\n"
                     "<script>boot();</script></body></html>\n");
}

static void make_page(rig__buf *b, size_t bytes)
{
    head(b);
    furniture_top(b);
    /* The furniture below is ~0.3 MB; the article fills the rest. */
    article(b, bytes > 400000 ? bytes - 300000 : 100000);
    furniture_bottom(b);
    if (b->oom)
        bench_die("out of memory building the page");
}

/* ---- the contestant -------------------------------------------------------- */

typedef struct job {
    const char *html;
    size_t len;
} job;

static void run_rig(void *ctx, long reps)
{
    job *j = ctx;
    for (long r = 0; r < reps; r++) {
        rig__markdown m;
        char why[128];
        if (rig__html_to_markdown(j->html, j->len, NULL, "https://times.example.com/long-read/harbour",
                                  &m, why, sizeof why) != 0)
            bench_die("conversion failed: %s", why);
        sink += m.len + (unsigned char)m.text[m.len / 2];
        rig__markdown_free(&m);
    }
}

static void write_file(const char *dir, const char *name, const char *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        bench_die("cannot write %s", path);
}

int main(int argc, char **argv)
{
    int runs = 7;
    double mb = 5;
    const char *dump_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump_dir = argv[++i];
        else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
            mb = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_html2md [--runs N] [--dump DIR] [--mb M]\n");
            return 2;
        }
    }
    if (runs < 1 || runs > BENCH_MAX_RUNS || mb < 0.5 || mb > 500)
        bench_die("--runs takes 1..%d, --mb 0.5..500", BENCH_MAX_RUNS);
    double start = bench_now_s();
    rig__buf page = {0};
    make_page(&page, (size_t)(mb * 1e6));

    /* Checked once, untimed: content in, furniture out. */
    rig__markdown m;
    char why[128];
    if (rig__html_to_markdown(page.p, page.len, NULL, "https://times.example.com/long-read/harbour",
                              &m, why, sizeof why) != 0)
        bench_die("conversion failed: %s", why);
    static const char *const want[] = {"# How the city rebuilt its harbour\n", "## Part 7: ",
                                       "```python\n", "| Year | Ships | Tonnage | Note |\n",
                                       "\n> ", "![The harbour, part 3](https://times.example.com/img/harbour-3.jpg)"};
    static const char *const gone[] = {"cookies", "Section 12", "Headline number", "reader7",
                                       "ADVERTISEMENT", "Copyright Example", "window.__cfg"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(m.text, want[i]))
            bench_die("rig's Markdown lacks %s", want[i]);
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        if (strstr(m.text, gone[i]))
            bench_die("rig's Markdown keeps furniture: %s", gone[i]);

    job j = {page.p, page.len};
    bench_contestant cs[1] = {{.key = "rig", .name = "rig html2md", .fn = run_rig, .ctx = &j}};
    bench_race(cs, 1, runs, 1.0, 1, 1000);

    bench_print_machine("rig HTML to Markdown benchmark: html2md against Readability + Turndown");
    printf("| load average at start | %s |\n", bench_loadavg());
    printf("| method | median of %d runs of about 1 s each |\n\n", runs);
    double mbps = page.len / cs[0].med / 1e6, cpu_mbps = page.len / cs[0].cmed / 1e6;
    printf("Page: %.2f MB of HTML (generated, seed fixed), %.2f MB of Markdown out.\n\n",
           page.len / 1e6, m.len / 1e6);
    printf("| converter | MB/s (median) | min - max | CPU-time MB/s | ms/page |\n");
    printf("|---|---:|---:|---:|---:|\n");
    printf("| %s | %.1f | %.1f - %.1f | %.1f | %.1f |\n", cs[0].name, mbps,
           page.len / cs[0].max / 1e6, page.len / cs[0].min / 1e6, cpu_mbps, cs[0].med * 1e3);
    printf("\nCPU share of the timed runs: %.0f%%%s\n", 100 * cs[0].cpu_share,
           cs[0].cpu_share < 0.9 ? " -- **the machine was busy: wall-clock figures are inflated**" : "");
    if (dump_dir) {
        write_file(dump_dir, "page.html", page.p, page.len);
        write_file(dump_dir, "rig.md", m.text, m.len);
        char fig[512];
        int fl = snprintf(fig, sizeof fig,
                          "{\"runs\": %d, \"bytes\": %zu, \"rig_mbps\": %.3f, \"rig_cpu_mbps\": %.3f, "
                          "\"rig_ms\": %.3f, \"rig_out\": %zu}\n",
                          runs, page.len, mbps, cpu_mbps, cs[0].med * 1e3, m.len);
        write_file(dump_dir, "html2md.json", fig, (size_t)fl);
    }
    printf("\nChecksum of outputs: %016llx (total %.0f s; load average at the end: %s)\n",
           (unsigned long long)sink, bench_now_s() - start, bench_loadavg());
    rig__markdown_free(&m);
    rig__buf_free(&page);
    return 0;
}
