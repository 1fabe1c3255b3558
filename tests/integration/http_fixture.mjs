// http_fixture.mjs — a local HTTP server for the fetch and web_search tests
// and the fetch benchmark. Listens on 127.0.0.1 (port 0: the kernel picks),
// prints the port on its first line of stdout, serves until killed.
//
// Pages: a realistic news article (nav, scripts, styles, a table, code),
// broken markup, JSON, plain text, a PNG, a Latin-1 page, gzip, a 50 MB body
// (the size cap), a slow body (timeout and cancellation), redirect chains,
// redirects to elsewhere, error statuses, and an echo of the request's
// headers. Two search responders speak their real wire formats and check
// the query parameters they receive (a bad one gets the provider's error):
// SearXNG (GET /searxng/search?format=json&q=...) and the Brave Search API
// (GET /brave/res/v1/web/search, X-Subscription-Token: test-key). Each puts
// the query string it received into its first result's snippet, so a test
// can see how the arguments were mapped.
import http from 'node:http';
import zlib from 'node:zlib';

const host = '127.0.0.1';
const port = Number(process.argv[2] || 0);

const article = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Rig Test Article: Rivers Run Uphill</title>
<style>body { font-family: sans-serif } .ad { display: none }</style>
<script>window.tracking = { id: "SECRET-SCRIPT-TEXT" };</script>
</head><body>
<header><nav><a href="/">Home</a> | <a href="/world">World</a> | <a href="/sport">Sport</a></nav></header>
<div class="ad">BUY NOW advertisement</div>
<main><article>
<h1>Rivers Run Uphill, Scientists Say</h1>
<p class="byline">By A. Reporter — 1 April 2025</p>
<p>In a <strong>surprising</strong> study published <a href="/papers/42">today</a>, researchers
found that some rivers appear to run uphill. The effect is an optical illusion.</p>
<h2>The data</h2>
<table><thead><tr><th>River</th><th>Length (km)</th></tr></thead>
<tbody><tr><td>Nile</td><td>6650</td></tr><tr><td>Amazon</td><td>6400</td></tr></tbody></table>
<h2>How to reproduce</h2>
<pre><code>rig call fetch url=https://example.com/rivers
</code></pre>
<ul><li>First point</li><li>Second point with café</li></ul>
<blockquote>"It looks wrong, but it is right," said one of them.</blockquote>
</article></main>
<footer>© 2025 Example News. <a href="/privacy">Privacy</a></footer>
<script src="/app.js"></script>
</body></html>`;

const broken = `<html><head><title>Broken <b>page</title><body>
<p>Unclosed paragraph <b>bold <i>both</b> italic?</i>
<div><p>Inside a div<table><tr><td>cell one<td>cell two</table>
<p>After the table &amp; an entity &copy; and a stray </span> tag
<ul><li>one<li>two</ul>
<p>End of text without closing tags`;

// A small valid PNG (1x1, transparent).
const png = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
  '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

const text = 'héllo wörld — 日本語 😀 ' + 'The quick brown fox. '.repeat(20) + 'END';

function bigHtml(mb) {
  const target = mb * 1024 * 1024;
  const parts = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>Big page</title></head><body><main>'];
  let n = parts[0].length, i = 0;
  while (n < target) {
    const s = `<section><h2>Section ${i}</h2><p>Paragraph ${i} with <a href="/s/${i}">a link</a>, ` +
      `<em>emphasis</em> and <code>code()</code>. Lorem ipsum dolor sit amet, consectetur ` +
      `adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>` +
      `<ul><li>item a ${i}</li><li>item b ${i}</li></ul>` +
      `<table><tr><th>k</th><th>v</th></tr><tr><td>${i}</td><td>${i * 2}</td></tr></table></section>\n`;
    parts.push(s);
    n += s.length;
    i++;
  }
  parts.push('</main></body></html>');
  return parts.join('');
}
const bigCache = new Map();

function send(res, status, type, body, extra = {}) {
  const headers = { ...extra };
  if (type) headers['Content-Type'] = type;
  headers['Content-Length'] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(body);
}

function json(res, status, obj) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(obj));
}

// ---- SearXNG ----------------------------------------------------------------

const searxngKnown = new Set(['q', 'format', 'pageno', 'time_range', 'safesearch', 'language',
  'categories', 'engines']);

function searxng(req, res, url) {
  const p = url.searchParams;
  if (p.get('format') !== 'json')
    return send(res, 403, 'text/html', '<html><body>403 Forbidden</body></html>');
  for (const k of p.keys())
    if (!searxngKnown.has(k)) return send(res, 400, 'text/plain', `unknown parameter ${k}`);
  if (!p.get('q')) return send(res, 400, 'text/plain', 'q is required');
  const tr = p.get('time_range');
  if (tr !== null && !['day', 'week', 'month', 'year'].includes(tr))
    return send(res, 400, 'text/plain', `bad time_range ${tr}`);
  const ss = p.get('safesearch');
  if (ss !== null && !['0', '1', '2'].includes(ss))
    return send(res, 400, 'text/plain', `bad safesearch ${ss}`);
  const results = [];
  for (let i = 1; i <= 12; i++) {
    results.push({
      url: `https://example.org/result/${i}`,
      title: `Result ${i} for ${p.get('q')}`,
      content: i === 1 ? `received: ${url.search.slice(1)}` : `Snippet <b>number</b> ${i} &amp; more`,
      engine: 'duckduckgo', engines: ['duckduckgo'], positions: [i], score: 1 / i,
      category: 'general',
      publishedDate: i === 2 ? '2020-01-01T00:00:00' : i === 3 ? '2024-06-15T12:00:00' : null,
    });
  }
  json(res, 200, {
    query: p.get('q'), number_of_results: 0, results, answers: [], corrections: [],
    infoboxes: [], suggestions: [], unresponsive_engines: [],
  });
}

// ---- Brave Search API --------------------------------------------------------

const braveKnown = new Set(['q', 'count', 'offset', 'freshness', 'country', 'search_lang',
  'ui_lang', 'safesearch', 'text_decorations', 'spellcheck', 'result_filter', 'extra_snippets']);

function braveError(res, status, code, detail) {
  json(res, status, { type: 'ErrorResponse', error: { id: 'x', status, code, detail, meta: {} },
    time: 0 });
}

function brave(req, res, url) {
  if (req.headers['x-subscription-token'] !== 'test-key')
    return braveError(res, 401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.');
  if (!String(req.headers['accept'] || '').includes('application/json'))
    return braveError(res, 422, 'VALIDATION', 'Accept must allow application/json');
  const p = url.searchParams;
  for (const k of p.keys())
    if (!braveKnown.has(k)) return braveError(res, 422, 'VALIDATION', `unknown parameter ${k}`);
  const q = p.get('q');
  if (!q || q.length > 400) return braveError(res, 422, 'VALIDATION', 'q: 1..400 characters');
  const count = p.has('count') ? Number(p.get('count')) : 20;
  if (!Number.isInteger(count) || count < 1 || count > 20)
    return braveError(res, 422, 'VALIDATION', 'count: 1..20');
  const f = p.get('freshness');
  if (f !== null && !/^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$/.test(f))
    return braveError(res, 422, 'VALIDATION', `freshness: bad value ${f}`);
  const c = p.get('country');
  if (c !== null && !/^[A-Z]{2}$/.test(c) && c !== 'ALL')
    return braveError(res, 422, 'VALIDATION', `country: bad value ${c}`);
  const s = p.get('safesearch');
  if (s !== null && !['off', 'moderate', 'strict'].includes(s))
    return braveError(res, 422, 'VALIDATION', `safesearch: bad value ${s}`);
  if (q === 'nothing-at-all')
    return json(res, 200, { type: 'search', query: { original: q }, mixed: { type: 'mixed', main: [] } });
  const results = [];
  for (let i = 1; i <= count; i++) {
    results.push({
      type: 'search_result', subtype: 'generic',
      title: `Brave result ${i} for ${q}`,
      url: `https://brave.example/r/${i}`,
      description: i === 1 ? `received: ${url.search.slice(1)}` : `A <strong>highlighted</strong> snippet ${i} &amp; more`,
      is_source_local: false, is_source_both: false, language: 'en', family_friendly: true,
      profile: { name: 'Example', url: `https://brave.example/r/${i}`, long_name: 'brave.example' },
      meta_url: { scheme: 'https', netloc: 'brave.example', hostname: 'brave.example', path: `› r › ${i}` },
      ...(i === 2 ? { page_age: '2024-08-01T10:00:00', age: 'August 1, 2024' } : {}),
      ...(i === 3 ? { age: '3 days ago' } : {}),
    });
  }
  json(res, 200, {
    type: 'search',
    query: { original: q, show_strict_warning: false, is_navigational: false, country: c || 'us' },
    mixed: { type: 'mixed', main: results.map((_, i) => ({ type: 'web', index: i, all: false })) },
    web: { type: 'search', results, family_friendly: true },
  });
}

// ---- the server --------------------------------------------------------------

const server = http.createServer((req, res) => {
  const url = new URL(req.url, `http://${req.headers.host || host}`);
  const path = url.pathname;
  res.on('error', () => {});
  let m;
  if (path === '/article') return send(res, 200, 'text/html; charset=utf-8', article);
  if (path === '/broken') return send(res, 200, 'text/html', broken);
  if (path === '/json') return send(res, 200, 'application/json',
    '{"name":"rig","tags":["a","b"],"nested":{"ok":true,"n":1.5,"u":"über"}}');
  if (path === '/badjson') return send(res, 200, 'application/json', '{"name": "rig", oops}');
  if (path === '/text') return send(res, 200, 'text/plain; charset=utf-8', text);
  if (path === '/empty') return send(res, 200, 'text/plain', '');
  if (path === '/png') return send(res, 200, 'image/png', png);
  if (path === '/octet') return send(res, 200, undefined, Buffer.concat([png, Buffer.alloc(64)]));
  if (path === '/untyped-html') return send(res, 200, undefined, article);
  if (path === '/latin1')
    return send(res, 200, 'text/plain; charset=iso-8859-1', Buffer.from('caf\xe9 na\xefve \xa9 \xbd', 'latin1'));
  if (path === '/latin1-html')
    return send(res, 200, 'text/html; charset=ISO-8859-1',
      Buffer.from('<html><head><title>Caf\xe9</title></head><body><p>caf\xe9 cr\xe8me</p></body></html>', 'latin1'));
  if (path === '/cp1252')  // no charset, not UTF-8: curly quotes and an e-acute
    return send(res, 200, 'text/plain', Buffer.from([0x93, 0x68, 0x69, 0x94, 0x20, 0x63, 0x61, 0x66, 0xe9]));
  if (path === '/unknown-charset')
    return send(res, 200, 'text/plain; charset=x-no-such-charset', 'plain ascii');
  if (path === '/gzip') {
    if (!/gzip/.test(req.headers['accept-encoding'] || ''))
      return send(res, 406, 'text/plain', 'ask for gzip');
    const body = zlib.gzipSync(Buffer.from('compressed body: ' + 'zip '.repeat(1000) + 'END'));
    return send(res, 200, 'text/plain; charset=utf-8', body, { 'Content-Encoding': 'gzip' });
  }
  if (path === '/big') {  // 50 MB of text, streamed: the size cap stops the read
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 50 * 1024 * 1024 });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < 50 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => { sent = Infinity; });
    return pump();
  }
  if (path === '/big-html') {
    const mb = Math.min(Number(url.searchParams.get('mb') || 4), 64);
    if (!bigCache.has(mb)) bigCache.set(mb, bigHtml(mb));
    return send(res, 200, 'text/html; charset=utf-8', bigCache.get(mb));
  }
  if (path === '/slow') {  // headers now, then a byte a second for a minute
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    let i = 0;
    const t = setInterval(() => {
      if (++i > 60) { clearInterval(t); return res.end(); }
      res.write('.');
    }, 1000);
    res.on('close', () => clearInterval(t));
    return;
  }
  if (path === '/hang') return;  // never answers
  if ((m = /^\/redirect\/(\d+)$/.exec(path))) {
    const n = Number(m[1]);
    if (n === 0) return send(res, 200, 'text/plain', 'redirect chain end');
    return send(res, 302, 'text/plain', 'moved', { Location: `/redirect/${n - 1}` });
  }
  if (path === '/redirect-to')
    return send(res, Number(url.searchParams.get('status') || 302), 'text/plain', 'moved',
      { Location: url.searchParams.get('url') });
  if (path === '/dir/relative') return send(res, 301, 'text/plain', 'moved', { Location: '../text' });
  if ((m = /^\/status\/(\d+)$/.exec(path)))
    return send(res, Number(m[1]), 'text/html', `<html><body><h1>Error ${m[1]}</h1><p>Nothing here.</p></body></html>`);
  if (path === '/headers') return json(res, 200, req.headers);
  if (path === '/searxng/search') return searxng(req, res, url);
  if (path === '/searxng-html/search') return send(res, 200, 'text/html', '<html>not json</html>');
  if (path === '/searxng-403/search') return send(res, 403, 'text/html', '<html><body>403 Forbidden</body></html>');
  if (path === '/searxng-500/search') return send(res, 500, 'text/plain', 'engine crashed');
  if (path === '/searxng-shape/search') return json(res, 200, { results: 'nope' });
  if (path === '/brave/res/v1/web/search') return brave(req, res, url);
  send(res, 404, 'text/plain', 'no such page');
});
server.keepAliveTimeout = 1000;
server.listen(port, host, () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
