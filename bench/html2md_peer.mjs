// html2md_peer.mjs — the Node peer of bench_html2md: the same page made
// into Markdown the way Hooman's fetch does it, Mozilla Readability (main
// content) on a jsdom document, then Turndown with the GFM plugin (tables,
// strikethrough) on Readability's HTML, printed beside rig's figures.
//
//   node bench/html2md_peer.mjs DIR [--runs N]
//
// DIR is what `bench_html2md --dump DIR` wrote (bench/run.sh does both):
// page.html, rig's Markdown and rig's figures from that run. The packages
// come from bench/node_modules (bench/install-peers.sh). One conversion is
// the whole pipeline from the page's text: new JSDOM(html, {url}),
// new Readability(document).parse(), turndown(article.content). Each figure
// is the median of --runs runs (default rig's, at most 3), each run repeating
// the conversion for about a second (at least once); the first conversion is
// a warm-up, and the
// jsdom parse alone is timed the same way to show where the time goes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node html2md_peer.mjs DIR [--runs N]');
  process.exit(2);
}
const figs = JSON.parse(readFileSync(join(dir, 'html2md.json'), 'utf8'));
// A conversion of the page takes the peer tens of seconds: at most 3 runs
// unless --runs asks for more.
let runs = Math.min(figs.runs, 3);
const ri = process.argv.indexOf('--runs');
if (ri > 0) runs = Number(process.argv[ri + 1]);
const html = readFileSync(join(dir, 'page.html'), 'utf8');
const bytes = Buffer.byteLength(html, 'utf8');
const url = 'https://times.example.com/long-read/harbour';

const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
td.use(gfm);

function convert() {
  const dom = new JSDOM(html, { url });
  const article = new Readability(dom.window.document).parse();
  const md = td.turndown(article.content);
  dom.window.close();
  return { title: article.title, md };
}
function parseOnly() {
  const dom = new JSDOM(html, { url });
  const n = dom.window.document.body.childNodes.length;
  dom.window.close();
  return n;
}

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s[s.length >> 1];
}
function time(fn) {
  const wall = [], cpu = [];
  for (let r = 0; r < runs; r++) {
    let reps = 0;
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let t = 0;
    do {
      fn();
      reps++;
      t = Number(process.hrtime.bigint() - t0) / 1e9;
    } while (t < 1.0);
    const c = process.cpuUsage(c0);
    wall.push(t / reps);
    cpu.push((c.user + c.system) / 1e6 / reps);
  }
  return { med: median(wall), min: Math.min(...wall), max: Math.max(...wall), cmed: median(cpu), wall, cpu };
}

// Warm-up and the check: the same content, the same furniture gone.
const first = convert();
const want = ['How the city rebuilt its harbour', 'Part 7: ', '```', '| Year | Ships | Tonnage | Note |'];
const gone = ['cookies', 'Headline number', 'reader7', 'window.__cfg'];
// Readability hands the article's title back apart from its content.
const missing = want.filter((w) => !first.md.includes(w) && !(first.title || '').includes(w));
const kept = gone.filter((g) => first.md.includes(g));

const all = time(convert);
const parse = time(parseOnly);
const mbps = (t) => bytes / t / 1e6;
const share = all.cpu.reduce((a, b) => a + b, 0) / all.wall.reduce((a, b) => a + b, 0);

console.log(`| converter | MB/s (median) | min - max | CPU-time MB/s | ms/page | rig's MB/s / this |`);
console.log(`|---|---:|---:|---:|---:|---:|`);
console.log(`| rig html2md (from bench_html2md above) | ${figs.rig_mbps.toFixed(1)} | | ${figs.rig_cpu_mbps.toFixed(1)} | ${figs.rig_ms.toFixed(1)} | 1.0x |`);
console.log(`| Readability + Turndown (jsdom) | ${mbps(all.med).toFixed(2)} | ${mbps(all.max).toFixed(2)} - ${mbps(all.min).toFixed(2)} | ${mbps(all.cmed).toFixed(2)} | ${(all.med * 1e3).toFixed(0)} | ${(figs.rig_mbps / mbps(all.med)).toFixed(1)}x |`);
console.log(`| of which jsdom's parse alone | ${mbps(parse.med).toFixed(2)} | ${mbps(parse.max).toFixed(2)} - ${mbps(parse.min).toFixed(2)} | ${mbps(parse.cmed).toFixed(2)} | ${(parse.med * 1e3).toFixed(0)} | ${(figs.rig_mbps / mbps(parse.med)).toFixed(1)}x |`);
console.log('');
const v = (p) => JSON.parse(readFileSync(new URL(`./node_modules/${p}/package.json`, import.meta.url), 'utf8')).version;
console.log(`Peers: @mozilla/readability ${v('@mozilla/readability')}, turndown ${v('turndown')} + turndown-plugin-gfm ${v('turndown-plugin-gfm')}, jsdom ${v('jsdom')}, node ${process.version}. ` +
  `CPU share of the timed runs: ${(100 * share).toFixed(0)}%. Markdown out: rig ${(figs.rig_out / 1e6).toFixed(2)} MB, peer ${(Buffer.byteLength(first.md) / 1e6).toFixed(2)} MB.`);
if (missing.length || kept.length)
  console.log(`\n_Peer check: missing ${JSON.stringify(missing)}, furniture kept ${JSON.stringify(kept)}._`);
