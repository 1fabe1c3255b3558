#!/usr/bin/env bash
# test_fetch.sh RIG — fetch and web_search end to end through `rig call`,
# against tests/integration/http_fixture.mjs on 127.0.0.1 (Node). Every
# SSRF case the guard must refuse has a test here; the refusal happens
# before connect, so nothing leaves the machine. The DNS-rebinding case (a
# name that resolves to loopback) is in tests/unit/test_fetch.c, which can
# make a name resolve without DNS. TAP output.
set -u
rig=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null; then
  echo "1..0 # SKIP node is not installed"
  exit 0
fi
tmp=$(mktemp -d)
node "$here/../integration/http_fixture.mjs" >"$tmp/port" 2>"$tmp/fixture.err" &
fixture=$!
trap 'kill $fixture 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
P=$(head -1 "$tmp/port")
[ -n "$P" ] || { echo "Bail out! the fixture did not start: $(cat "$tmp/fixture.err")"; exit 1; }
B=http://127.0.0.1:$P
mkdir -p "$tmp/home" "$tmp/root"
# No config, no search provider from the environment, unless a test says so.
export HOME=$tmp/home
unset XDG_CONFIG_HOME RIG_CONFIG RIG_SEARXNG_URL BRAVE_API_KEY http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

n=0
failed=0
rc=
out=
err=
secs=
# RIG_VALGRIND="valgrind -q --error-exitcode=9 ..." runs every rig under
# valgrind (an error changes the status, so the test fails). Time bounds
# widen under it and under a sanitizer.
max_s=5
slow=1
if grep -aqE "__(asan|tsan|msan)_init" "$rig" || [ -n "${RIG_VALGRIND:-}" ]; then max_s=30; slow=6; fi

ok() {
  n=$((n + 1))
  if eval "$2"; then echo "ok $n - $1"; else
    echo "not ok $n - $1"
    printf '%s\n' "status $rc ($secs s)" "stdout: ${out:0:800}" "stderr: ${err:0:600}" | sed 's/^/# /'
    failed=$((failed + 1))
  fi
}

# call WANT_STATUS TOOL ARGS... : `rig call TOOL ARGS`, stdout/stderr in
# $out/$err, seconds in $secs; true when the status is WANT_STATUS.
call() {
  local want=$1 t0 t1
  shift
  t0=$(date +%s%N)
  (cd "$tmp/root" && ${RIG_VALGRIND:-} "$rig" call "$@") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  t1=$(date +%s%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
  [ "$rc" = "$want" ]
}
fast() { awk -v s="$secs" -v m="${1:-$max_s}" -v k="${1:+$slow}" 'BEGIN { exit !(s < m * (k ? k : 1)) }'; }
allow=(--allow-host 127.0.0.1)

# ---- SSRF: addresses refused at connect time (no --allow-host) --------------
blocked() { # URL RANGE-WORD
  call 1 fetch "url=$1" && [[ "$out" == *"Refused to connect"* && "$out" == *"$2"* ]] && fast
}
ok "127.0.0.1 is refused (loopback)" 'blocked "$B/text" loopback'
ok "127.1 (short form) is refused" 'blocked "http://127.1:$P/text" loopback'
ok "2130706433 (decimal) is refused" 'blocked "http://2130706433:$P/text" loopback'
ok "0x7f.0.0.1 (hex) is refused" 'blocked "http://0x7f.0.0.1:$P/text" loopback'
ok "0177.0.0.1 (octal) is refused" 'blocked "http://0177.0.0.1:$P/text" loopback'
ok "localhost is refused" 'blocked "http://localhost:$P/text" loopback'
ok "LOCALHOST (upper case) is refused" 'blocked "http://LOCALHOST:$P/text" loopback'
ok "[::1] is refused" 'blocked "http://[::1]:$P/text" loopback'
ok "[::ffff:127.0.0.1] (IPv4-mapped) is refused" 'blocked "http://[::ffff:127.0.0.1]:$P/text" loopback'
ok "[::127.0.0.1] (IPv4-compatible) is refused" 'blocked "http://[::127.0.0.1]:$P/text" loopback'
ok "10.0.0.1 is refused (private)" 'blocked http://10.0.0.1/ private'
ok "172.16.0.1 is refused (private)" 'blocked http://172.16.0.1/ private'
ok "192.168.1.1 is refused (private)" 'blocked http://192.168.1.1/ private'
ok "169.254.169.254 (cloud metadata) is refused (link-local)" 'blocked http://169.254.169.254/latest/meta-data/ link-local'
ok "100.64.0.1 is refused (CGNAT)" 'blocked http://100.64.0.1/ "carrier-grade NAT"'
ok "0.0.0.0 is refused" 'blocked "http://0.0.0.0:$P/" "this network"'
ok "[fc00::1] is refused (unique local)" 'blocked "http://[fc00::1]/" "unique"'
ok "[fe80::1] is refused (link-local)" 'blocked "http://[fe80::1]/" "link-local"'
ok "224.0.0.1 is refused (multicast)" 'blocked http://224.0.0.1/ multicast'
ok "[ff02::1] is refused (multicast)" 'blocked "http://[ff02::1]/" multicast'
ok "255.255.255.255 is refused (broadcast)" 'blocked http://255.255.255.255/ broadcast'

# ---- schemes -------------------------------------------------------------------
scheme() { call 1 fetch "url=$1" "${allow[@]}" && [[ "$out" == *"http and https URLs only"* ]]; }
ok "file:///etc/passwd is refused" 'scheme file:///etc/passwd && [[ "$out" != *root:* ]]'
ok "ftp:// is refused" 'scheme "ftp://127.0.0.1:$P/"'
ok "gopher:// is refused" 'scheme "gopher://127.0.0.1:$P/_GET"'
ok "dict:// is refused" 'scheme "dict://127.0.0.1:$P/d:x"'
ok "a URL without a scheme: refused with advice" \
   'call 1 fetch url=example.com && [[ "$out" == *"http:// or https:// URL"* ]]'

# ---- the allowlist ------------------------------------------------------------
ok "--allow-host 127.0.0.1 lets fetch reach the fixture" \
   'call 0 fetch "url=$B/text" "${allow[@]}" && [[ "$out" == *"héllo wörld"* ]]'
ok "the allowlist compares normalized addresses (127.1 is 127.0.0.1)" \
   'call 0 fetch "url=http://127.1:$P/text" "${allow[@]}" && [[ "$out" == *"héllo"* ]]'
ok "allowing 127.0.0.1 does not allow localhost" 'call 1 fetch "url=http://localhost:$P/text" "${allow[@]}" && [[ "$out" == *"loopback"* ]]'
ok "a redirect from an allowed host to a non-allowed one is refused at connect" \
   'call 1 fetch "url=$B/redirect-to?url=http://localhost:$P/text" "${allow[@]}" &&
    [[ "$out" == *"Refused to connect to localhost (reached by a redirect)"*loopback* ]]'
ok "a redirect to 169.254.169.254 is refused" \
   'call 1 fetch "url=$B/redirect-to?url=http://169.254.169.254/latest/" "${allow[@]}" && [[ "$out" == *"link-local"* ]]'
ok "a redirect to file:///etc/passwd is refused" \
   'call 1 fetch "url=$B/redirect-to?url=file:///etc/passwd" "${allow[@]}" &&
    [[ "$out" == *"fetch refuses: it leads to a scheme other than http or https"* && "$out" != *root:* ]]'
ok "a redirect to gopher:// is refused" \
   'call 1 fetch "url=$B/redirect-to?url=gopher://127.0.0.1:$P/x&status=301" "${allow[@]}" && [[ "$out" == *"redirected to gopher://"*"fetch refuses"* ]]'
ok "the allowlist from the config file" \
   'printf "{\"allow_hosts\": [\"127.0.0.1\"]}" >"$tmp/allow.json" &&
    call 0 fetch "url=$B/text" --config "$tmp/allow.json" && [[ "$out" == *"héllo"* ]]'

# ---- redirects -----------------------------------------------------------------
ok "5 redirects are followed" \
   'call 0 fetch "url=$B/redirect/5" "${allow[@]}" && [[ "$out" == *"redirect chain end"* && "$out" == *"redirected from"* ]]'
ok "a 6th redirect is refused" \
   'call 1 fetch "url=$B/redirect/6" "${allow[@]}" && [[ "$out" == *"more than 5 times"* ]]'
ok "1 redirect, and a relative Location resolved against the URL" \
   'call 0 fetch "url=$B/redirect/1" "${allow[@]}" && [[ "$out" == *"chain end"* ]] &&
    call 0 fetch "url=$B/dir/relative" "${allow[@]}" --json && [[ "$out" == *"\"final_url\":\"$B/text\""* && "$out" == *"héllo"* ]]'
ok "custom headers are sent; User-Agent is rig's; gzip is asked for" \
   'call 0 fetch "url=$B/headers" "headers:={\"X-Secret\":\"s3\",\"Accept-Language\":\"de\"}" "${allow[@]}" &&
    [[ "$out" == *"\"x-secret\": \"s3\""* && "$out" == *"\"accept-language\": \"de\""* && "$out" == *"rig/"* && "$out" == *gzip* ]]'
ok "custom headers are not sent on to another host a redirect leads to" \
   'call 0 fetch "url=$B/redirect-to?url=http://localhost:$P/headers" "headers:={\"X-Secret\":\"s3\"}" "${allow[@]}" --allow-host localhost &&
    [[ "$out" == *"user-agent"* && "$out" != *s3* ]]'
ok "a header value with CR/LF is refused" \
   'call 1 fetch "url=$B/headers" "headers:={\"X-A\":\"a\r\nHost: evil\"}" "${allow[@]}" && [[ "$out" == *"line break"* ]]'
ok "a header fetch sets itself (Host) is refused" \
   'call 1 fetch "url=$B/headers" "headers:={\"Host\":\"evil\"}" "${allow[@]}" && [[ "$out" == *"set by fetch itself"* ]]'
ok "a bad header name is refused" \
   'call 1 fetch "url=$B/headers" "headers:={\"Bad Name\":\"x\"}" "${allow[@]}" && [[ "$out" == *"not a valid header name"* ]]'

# ---- content -------------------------------------------------------------------
ok "an article becomes Markdown: title, headings, table, code; no script" \
   'call 0 fetch "url=$B/article" max_length:=20000 "${allow[@]}" &&
    [[ "$out" == *"Rivers Run Uphill, Scientists Say"* && "$out" == *"Rig Test Article: Rivers Run Uphill"* &&
       "$out" == *Nile*6650* && "$out" == *"rig call fetch url=https://example.com/rivers"* &&
       "$out" == *"# "* && "$out" == *"|"* && "$out" != *SECRET-SCRIPT-TEXT* ]]'
ok "the article leaves out navigation and ads" \
   'call 0 fetch "url=$B/article" max_length:=20000 "${allow[@]}" && [[ "$out" != *"BUY NOW"* ]]'
ok "structuredContent: title, total_length, truncated, next_start_index" \
   'call 0 fetch "url=$B/article" max_length:=100 "${allow[@]}" --json &&
    [[ "$out" == *"\"title\":\"Rig Test Article: Rivers Run Uphill\""* && "$out" == *"\"truncated\":true"* &&
       "$out" == *"\"next_start_index\":100"* && "$out" == *"\"total_length\":"* ]]'
ok "broken markup still converts" \
   'call 0 fetch "url=$B/broken" "${allow[@]}" && [[ "$out" == *"Inside a div"* && "$out" == *"End of text"* ]]'
ok "raw=true returns the HTML source" \
   'call 0 fetch "url=$B/article" raw:=true max_length:=20000 "${allow[@]}" && [[ "$out" == *"<script>"* ]]'
ok "HTML without a Content-Type is recognised and converted" \
   'call 0 fetch "url=$B/untyped-html" max_length:=20000 "${allow[@]}" && [[ "$out" == *"Rivers Run Uphill"* && "$out" != *SECRET-SCRIPT-TEXT* ]]'
ok "JSON is pretty-printed" \
   'call 0 fetch "url=$B/json" "${allow[@]}" && [[ "$out" == *"  \"name\": \"rig\","* && "$out" == *"\"u\": \"über\""* ]]'
ok "JSON that does not parse is shown as text, with a note" \
   'call 0 fetch "url=$B/badjson" "${allow[@]}" && [[ "$out" == *"oops"* && "$out" == *"does not parse as JSON"* ]]'
ok "raw JSON is not reformatted" \
   'call 0 fetch "url=$B/json" raw:=true "${allow[@]}" && [[ "$out" == *"{\"name\":\"rig\",\"tags\""* ]]'
ok "a PNG is refused with its type" \
   'call 1 fetch "url=$B/png" "${allow[@]}" && [[ "$out" == *"a PNG image (image/png"* && "$out" == *"text only"* ]]'
ok "binary without a Content-Type is refused" \
   'call 1 fetch "url=$B/octet" "${allow[@]}" && [[ "$out" == *"not text"* ]]'
ok "Latin-1 text is converted to UTF-8" \
   'call 0 fetch "url=$B/latin1" "${allow[@]}" && [[ "$out" == *"café naïve © ½"* ]]'
ok "a Latin-1 HTML page is converted to UTF-8" \
   'call 0 fetch "url=$B/latin1-html" "${allow[@]}" && [[ "$out" == *"café crème"* && "$out" == *"Café"* ]]'
ok "no charset and not UTF-8: read as windows-1252" \
   'call 0 fetch "url=$B/cp1252" "${allow[@]}" && [[ "$out" == *"“hi” café"* ]]'
ok "an unknown charset: read as UTF-8, with a note" \
   'call 0 fetch "url=$B/unknown-charset" "${allow[@]}" && [[ "$out" == *"plain ascii"* && "$out" == *"charset is unknown"* ]]'
ok "gzip is decoded" \
   'call 0 fetch "url=$B/gzip" max_length:=100000 "${allow[@]}" && [[ "$out" == "compressed body: zip"*END* ]]'
ok "an empty body says so" 'call 0 fetch "url=$B/empty" "${allow[@]}" && [[ "$out" == *"no readable content"* ]]'
ok "HTTP 404: an error with what the server said" \
   'call 1 fetch "url=$B/status/404" "${allow[@]}" && [[ "$out" == *"HTTP 404 (not found)"* && "$out" == *"Nothing here"* ]]'

# ---- windows in characters -------------------------------------------------------
ok "max_length and start_index count characters, never splitting UTF-8" \
   'call 0 fetch "url=$B/text" max_length:=10 start_index:=5 "${allow[@]}" --json &&
    [[ "$out" == *"\"content\":\" wörld — 日\""* && "$out" == *"\"next_start_index\":15"* && "$out" == *"\"length\":10"* ]]'
ok "the note says where to continue" \
   'call 0 fetch "url=$B/text" max_length:=10 "${allow[@]}" && [[ "$out" == *"Characters 0-10 of 443 shown. Call fetch with start_index=10"* ]]'
ok "the last window says it is the end" \
   'call 0 fetch "url=$B/text" start_index:=440 "${allow[@]}" && [[ "$out" == END* && "$out" == *"the end of the content"* ]]'
ok "start_index past the end: an error with the length" \
   'call 1 fetch "url=$B/text" start_index:=443 "${allow[@]}" && [[ "$out" == *"443 characters"* ]]'

# ---- limits: size, time ---------------------------------------------------------
ok "a 50 MB body is cut at 10 MiB, with a note, quickly" \
   'call 0 fetch "url=$B/big" "${allow[@]}" && [[ "$out" == *"larger than 10 MiB"* && "$out" == *"of 10485760 shown"* ]] && fast 10'
ok "a slow body: timeout=1 stops it after about a second" \
   'call 1 fetch "url=$B/slow" timeout:=1 "${allow[@]}" && [[ "$out" == *"timed out"* ]] && fast 4'
ok "a server that never answers: timeout=1" \
   'call 1 fetch "url=$B/hang" timeout:=1 "${allow[@]}" && [[ "$out" == *"timed out"* ]] && fast 4'
ok "the call deadline (rig call --timeout 1) stops a slow fetch" \
   'call 1 fetch "url=$B/slow" --timeout 1 "${allow[@]}" && fast 4'
ok "timeout above 300 is refused by the schema" \
   'call 1 fetch "url=$B/text" timeout:=301 "${allow[@]}"'

# ---- web_search ---------------------------------------------------------------------
ok "web_search unconfigured: a clear error saying how to configure it" \
   'call 1 web_search query=rivers && [[ "$out" == *"no search provider configured"* && "$out" == *"RIG_SEARXNG_URL"* ]]'
sx() { RIG_SEARXNG_URL=$B/searxng call "$@"; }
ok "SearXNG via RIG_SEARXNG_URL: 5 normalized results by default" \
   'sx 0 web_search query=rivers && [[ "$out" == *"1. Result 1 for rivers"* && "$out" == *"5. Result 5"* && "$out" != *"6. Result"* &&
    "$out" == *"received: q=rivers&format=json&pageno=1"* ]]'
ok "SearXNG: snippets lose their tags and entities" \
   'sx 0 web_search query=rivers && [[ "$out" == *"Snippet number 2 & more"* ]]'
ok "SearXNG: count=3 gives 3" 'sx 0 web_search query=x count:=3 && [[ "$out" == *"3. Result 3"* && "$out" != *"4. Result"* ]]'
ok "SearXNG: freshness=week is time_range=week" \
   'sx 0 web_search query=x freshness=week && [[ "$out" == *"time_range=week"* ]]'
ok "SearXNG: safe_search true is safesearch=2, false is 0" \
   'sx 0 web_search query=x safe_search:=true && [[ "$out" == *"safesearch=2"* ]] &&
    sx 0 web_search query=x safe_search:=false && [[ "$out" == *"safesearch=0"* ]]'
ok "SearXNG: a date range drops results dated outside it" \
   'sx 0 web_search query=x start_date=2024-01-01 end_date=2024-12-31 count:=5 &&
    [[ "$out" != *"Result 2 for"* && "$out" == *"Result 3 for"* && "$out" == *"dropped"* ]]'
ok "SearXNG: country is not applied, and the result says so" \
   'sx 0 web_search query=x country=de && [[ "$out" == *"country=DE was not applied"* ]]'
ok "SearXNG: the query is URL-encoded" \
   'sx 0 web_search "query=a&b c/ü" --json && [[ "$out" == *"Result 1 for a&b c/ü"* ]]'
ok "SearXNG: structuredContent has {title,url,snippet,date}" \
   'sx 0 web_search query=x count:=3 --json &&
    [[ "$out" == *"\"results\":[{\"title\":\"Result 1 for x\",\"url\":\"https://example.org/result/1\",\"snippet\":"* &&
       "$out" == *"\"date\":\"2020-01-01T00:00:00\""* && "$out" == *"\"date\":null"* ]]'
ok "SearXNG from the config file" \
   'printf "{\"search\": {\"provider\": \"searxng\", \"url\": \"%s/searxng/\"}}" "$B" >"$tmp/sx.json" &&
    call 0 web_search query=rivers --config "$tmp/sx.json" && [[ "$out" == *"Result 1 for rivers"* ]]'
ok "SearXNG answering HTML: a clear error" \
   'RIG_SEARXNG_URL=$B/searxng-html call 1 web_search query=x && [[ "$out" == *"not JSON"* ]]'
ok "SearXNG answering 500: a clear error" \
   'RIG_SEARXNG_URL=$B/searxng-500 call 1 web_search query=x && [[ "$out" == *"HTTP 500"* && "$out" == *"engine crashed"* ]]'
ok "SearXNG answering JSON of another shape: a clear error" \
   'RIG_SEARXNG_URL=$B/searxng-shape call 1 web_search query=x && [[ "$out" == *"no results array"* ]]'
ok "SearXNG refusing JSON (403): the error says what to change" \
   'RIG_SEARXNG_URL=$B/searxng-403 call 1 web_search query=x && [[ "$out" == *"HTTP 403"*"search.formats"* ]]'

printf '{"search": {"provider": "brave", "url": "%s/brave", "api_key_env": "TEST_BRAVE_KEY"}}' "$B" >"$tmp/brave.json"
br() { TEST_BRAVE_KEY=test-key call "$@" --config "$tmp/brave.json"; }
ok "Brave: results from web.results, count passed on" \
   'br 0 web_search query=rivers count:=7 && [[ "$out" == *"1. Brave result 1 for rivers"* && "$out" == *"7. Brave result 7"* &&
    "$out" == *"received: q=rivers&count=7"* ]]'
ok "Brave: snippets lose <strong> and entities; page_age, else age, is the date" \
   'br 0 web_search query=x && [[ "$out" == *"A highlighted snippet 2 & more"* && "$out" == *"Date: 2024-08-01T10:00:00"* && "$out" == *"Date: 3 days ago"* ]]'
ok "Brave: freshness day is pd, month is pm" \
   'br 0 web_search query=x freshness=day && [[ "$out" == *"freshness=pd"* ]] &&
    br 0 web_search query=x freshness=month && [[ "$out" == *"freshness=pm"* ]]'
ok "Brave: a date range is freshness=STARTtoEND" \
   'br 0 web_search query=x start_date=2024-01-01 end_date=2024-03-31 && [[ "$out" == *"freshness=2024-01-01to2024-03-31"* ]]'
ok "Brave: country is upper-cased; safe_search is strict/off" \
   'br 0 web_search query=x country=de safe_search:=true && [[ "$out" == *"country=DE"* && "$out" == *"safesearch=strict"* ]] &&
    br 0 web_search query=x safe_search:=false && [[ "$out" == *"safesearch=off"* ]]'
ok "Brave: nothing found is not an error" \
   'br 0 web_search query=nothing-at-all && [[ "$out" == *"No results for"* ]]'
ok "Brave: a refused key is a clear error" \
   'TEST_BRAVE_KEY=wrong call 1 web_search query=x --config "$tmp/brave.json" &&
    [[ "$out" == *"HTTP 401 (the API key was refused"* && "$out" == *SUBSCRIPTION_TOKEN_INVALID* ]]'

# ---- web_search: bad arguments -------------------------------------------------------
ok "freshness with dates is refused" \
   'sx 1 web_search query=x freshness=week start_date=2024-01-01 end_date=2024-02-01 && [[ "$out" == *"not both"* ]]'
ok "one date alone is refused" 'sx 1 web_search query=x start_date=2024-01-01 && [[ "$out" == *"go together"* ]]'
ok "a date that is not a date is refused" \
   'sx 1 web_search query=x start_date=2024-02-30 end_date=2024-03-01 && [[ "$out" == *"not a date"* ]]'
ok "a reversed range is refused" \
   'sx 1 web_search query=x start_date=2024-03-01 end_date=2024-02-01 && [[ "$out" == *"after end_date"* ]]'
ok "count 0 and 21 are refused" 'sx 1 web_search query=x count:=0 && sx 1 web_search query=x count:=21'
ok "a query over 400 characters is refused" \
   'sx 1 web_search "query=$(printf "%0401d" 0)" && sx 0 web_search "query=$(printf "%0400d" 0)"'
ok "a country that is not 2 letters is refused" 'sx 1 web_search query=x country=USA'

# ---- the config file -------------------------------------------------------------------
cfg() { printf '%s' "$1" >"$tmp/c.json"; call 1 fetch "url=$B/text" --config "$tmp/c.json"; }
ok "config: not JSON" 'cfg "{oops" && [[ "$err" == *"c.json: not JSON: line 1"* ]]'
ok "config: allow_hosts not an array" 'cfg "{\"allow_hosts\": \"x\"}" && [[ "$err" == *"allow_hosts must be an array"* ]]'
ok "config: an unknown provider" 'cfg "{\"search\": {\"provider\": \"bing\"}}" && [[ "$err" == *"\"searxng\" or \"brave\""* ]]'
ok "config: an unknown search setting" 'cfg "{\"search\": {\"provider\": \"searxng\", \"ur\": \"x\"}}" && [[ "$err" == *"search.ur is not a setting"* ]]'
ok "config: searxng without url" 'cfg "{\"search\": {\"provider\": \"searxng\"}}" && [[ "$err" == *"needs search.url"* ]]'
ok "config: api_key_env naming an unset variable" \
   'cfg "{\"search\": {\"provider\": \"brave\", \"api_key_env\": \"NO_SUCH_VAR_X\"}}" && [[ "$err" == *"NO_SUCH_VAR_X, which is not set"* ]]'
ok "config: --config naming a missing file" 'call 1 fetch "url=$B/text" --config "$tmp/none.json" && [[ "$err" == *"none.json"* ]]'
ok "config: \$RIG_CONFIG is read" \
   'RIG_CONFIG=$tmp/allow.json call 0 fetch "url=$B/text" && [[ "$out" == *"héllo"* ]]'
ok "config: the default file under \$XDG_CONFIG_HOME is read" \
   'mkdir -p "$tmp/xdg/rig" && cp "$tmp/allow.json" "$tmp/xdg/rig/config.json" &&
    XDG_CONFIG_HOME=$tmp/xdg call 0 fetch "url=$B/text" && [[ "$out" == *"héllo"* ]]'
ok "config: unknown top-level members are left for other features" \
   'printf "{\"allow_hosts\": [\"127.0.0.1\"], \"policy\": {}}" >"$tmp/c2.json" && call 0 fetch "url=$B/text" --config "$tmp/c2.json"'
ok "--allow-host with a scheme or path is refused" \
   'call 2 fetch "url=$B/text" --allow-host http://127.0.0.1/ && [[ "$err" == *"without a scheme, path or port"* ]]'
ok "--allow-host with a port is refused (a host is allowed on every port)" \
   'call 2 fetch "url=$B/text" --allow-host localhost:1 && [[ "$err" == *"without a scheme, path or port"* ]]'
ok "--allow-host takes an IPv6 address" \
   'call 0 fetch "url=$B/text" --allow-host ::1 --allow-host 127.0.0.1'

echo "1..$n"
[ "$failed" = 0 ]
