#!/usr/bin/env bash
# test_serve_stdio.sh RIG — `rig serve` fed raw lines: the bad-input table of
# MCP's stdio transport (every malformed frame gets the right JSON-RPC error
# and the session lives on), the end of a session (EOF, signals, a client
# that hangs up) and the command's options. TAP output.
#
# RIG_TEST_WRAPPER (e.g. "valgrind -q --error-exitcode=99") runs every
# `rig serve` under it.
set -u
rig=$1
wrap=${RIG_TEST_WRAPPER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
rc=
bad_rc=
out=
err=

init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'
ping='{"jsonrpc":"2.0","id":"p","method":"ping"}'
pong='{"jsonrpc":"2.0","id":"p","result":{}}'

# serve [ARGS...] < input : runs rig serve; stdout in $out, stderr in $err,
# exit status in $rc. Any status but 0 (done) or 2 (usage) fails the test:
# a crash, a sanitizer's report, a valgrind error.
serve() {
  $wrap "$rig" serve "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 2 ] || bad_rc=$rc
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# lines LINE... : feeds these lines to rig serve through a pipe.
lines() {
  serve < <(printf '%s\n' "$@")
}

has() { grep -qF -- "$1" "$tmp/out"; }
# the number of lines of output
count() { wc -l <"$tmp/out" | tr -d ' '; }

ok() {
  n=$((n + 1))
  bad_rc=
  if eval "$2" && [ -z "$bad_rc" ]; then echo "ok $n - $1"; else
    echo "not ok $n - $1"
    printf '%s\n' "status $rc" "stdout: ${out:0:800}" "stderr: ${err:0:800}" | sed 's/^/# /'
    failed=$((failed + 1))
  fi
}

perr() { printf '"id":%s,"error":{"code":%s' "$1" "$2"; }

# ---- the bad-input table
ok "not JSON: -32700 with id null, then the session goes on" \
   'lines "hello" "$ping"; [ $rc = 0 ] && has "$(perr null -32700)" && has "$pong" && [ $(count) = 2 ]'
ok "truncated JSON: -32700" 'lines "{\"jsonrpc\":\"2.0\",\"id\":1," "$ping"; has "$(perr null -32700)" && has "$pong"'
ok "an array (batch): -32600" 'lines "[]" "$ping"; has "$(perr null -32600)" && has "$pong"'
ok "a string: -32600" 'lines "\"x\"" "$ping"; has "$(perr null -32600)" && has "$pong"'
ok "a number: -32600" 'lines "42"; has "$(perr null -32600)"'
ok "no jsonrpc member: -32600" 'lines "{\"id\":1,\"method\":\"ping\"}" "$ping"; has "\"error\":{\"code\":-32600" && has "$pong"'
ok "jsonrpc 1.0: -32600" 'lines "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}"; has "\"error\":{\"code\":-32600"'
ok "unknown method: -32601 with its id" \
   'lines "$init" "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"no/such\"}"; has "$(perr 7 -32601)"'
ok "tools/call before initialize: an error with its id, and the session goes on" \
   'lines "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"think\"}}" "$ping"; [ $rc = 0 ] && has "\"id\":3,\"error\":{\"code\":" && has "$pong"'
deep=$(head -c 100000 /dev/zero | tr '\0' '[')
ok "10^5 nested arrays: an error, then a ping answers" \
   'lines "$deep" "$ping"; [ $rc = 0 ] && has "\"id\":null,\"error\":{\"code\":-32" && has "$pong" && [ $(count) = 2 ]'
deepobj=$(for _ in $(seq 1 20000); do printf '{"a":'; done)
ok "2x10^4 nested objects, unclosed: an error, then a ping answers" \
   'lines "$deepobj" "$ping"; has "\"id\":null,\"error\":{\"code\":-32" && has "$pong"'
ok "invalid UTF-8: -32700" \
   'serve < <(printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xc3\x28\"}\n%s\n" "$ping"); has "$(perr null -32700)" && has "$pong"'
ok "a NUL byte inside a line: -32700" \
   'serve < <(printf "{\"jsonrpc\":\"2.0\",\0\"id\":1}\n%s\n" "$ping"); has "$(perr null -32700)" && has "$pong"'
ok "a line over 16 MiB: -32700 with id null, then a ping answers" \
   'serve < <(echo "$ping"; head -c 17000000 /dev/zero | tr "\0" " "; printf "x\n"; echo "$ping"); [ $rc = 0 ] && has "$(perr null -32700)" && [ $(grep -cF "$pong" "$tmp/out") = 2 ]'
ok "blank lines and CRLF endings are fine" \
   'serve < <(printf "\n  \n%s\r\n\r\n" "$ping"); [ $rc = 0 ] && [ "$out" = "$pong" ]'
ok "the last line may lack its newline" 'serve < <(printf "%s" "$ping"); [ "$out" = "$pong" ]'
ok "answers come in order" \
   'lines "$init" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}" "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"; [ "$(grep -o "\"id\":[0-9]" "$tmp/out" | tr -d "\n")" = "\"id\":0\"id\":1\"id\":2\"id\":3" ]'
ok "every line of output is one JSON message, stderr is empty" \
   'lines "$init" "$inited" "garbage" "[1]" "$ping"; [ -z "$err" ] && while IFS= read -r l; do printf "%s" "$l" | "$rig" json check - >/dev/null || exit 1; done <"$tmp/out"'
ok "a notification gets no answer" 'lines "$init" "$inited"; [ $(count) = 1 ]'

# ---- the end of a session
ok "EOF at once: exit 0, nothing written" 'serve </dev/null; [ $rc = 0 ] && [ -z "$out" ]'
ok "EOF with a call running: its answer comes, then exit 0" \
   'lines "$init" "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\",\"arguments\":{\"seconds\":0.3}}}"; [ $rc = 0 ] && has "\"id\":9,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Slept"'
ok "input from a regular file, output to one" \
   'printf "%s\n" "$init" "$ping" >"$tmp/in"; $wrap "$rig" serve <"$tmp/in" >"$tmp/out" 2>"$tmp/err"; rc=$?; [ $rc = 0 ] && has "$pong" && [ $(count) = 2 ]'

# serve_until_signal SECS SIGNALS... : a client that keeps its end open,
# starts a sleep of SECS seconds, and once rig has answered initialize
# (the call then runs) sends the signals, 0.3 s apart.
serve_until_signal() {
  local secs=$1 fifo=$tmp/fifo
  shift
  rm -f "$fifo" && mkfifo "$fifo"
  : >"$tmp/out"
  # Between starting rig and reaping it, only builtins: a command
  # substitution's subshell here has been seen to run the EXIT trap (bash 5.2).
  $wrap "$rig" serve <"$fifo" >"$tmp/out" 2>"$tmp/err" &
  local pid=$! i line
  exec 8>"$fifo"
  printf '%s\n' "$init" '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":'"$secs"'}}}' >&8
  for ((i = 0; i < 300; i++)); do
    read -r line <"$tmp/out" || true
    [[ "$line" == *'"id":0'* ]] && break
    sleep 0.1
  done
  local t0=${EPOCHREALTIME/./}
  for s in "$@"; do kill -"$s" "$pid"; sleep 0.3; done
  wait "$pid"
  rc=$?
  elapsed=$(((${EPOCHREALTIME/./} - t0) / 1000))
  exec 8>&-
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
ok "SIGTERM: input stops, the running call still answers, exit 0" \
   'serve_until_signal 1 TERM; [ $rc = 0 ] && has "\"id\":5,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Slept"'
ok "SIGINT twice: ends at once, without the call's answer, exit 0" \
   'serve_until_signal 10 INT INT; [ $rc = 0 ] && [ $elapsed -lt 5000 ] && ! has "\"id\":5"'

ok "a client that stops reading (EPIPE): exit 0, no crash" \
   '{ printf "%s\n" "$init" "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\",\"arguments\":{\"seconds\":0.5}}}"; sleep 1; echo "$ping"; } | { $wrap "$rig" serve 2>"$tmp/err"; echo $? >"$tmp/rc"; } | head -c 1 >/dev/null; rc=$(cat "$tmp/rc"); err=$(cat "$tmp/err"); [ "$rc" = 0 ]'

# ---- options
ok "--timeout stops a long call with an error result" \
   'serve --timeout 0.3 < <(printf "%s\n" "$init" "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"sleep\",\"arguments\":{\"seconds\":30}}}"); [ $rc = 0 ] && has "\"id\":6,\"result\":" && has "\"isError\":true"'
ok "--timeout must be positive" 'serve --timeout 0 </dev/null; [ $rc = 2 ] && [[ "$err" == *"--timeout"* ]]'
ok "--root must be a directory" 'serve --root /nonexistent </dev/null; [ $rc = 2 ] && [[ "$err" == *"/nonexistent"* ]]'
ok "--root runs there" 'serve --root "$tmp" </dev/null; [ $rc = 0 ]'
mkdir -p "$tmp/sr1/d" "$tmp/sr2"
echo alpha >"$tmp/sr1/d/a.c"
echo beta >"$tmp/sr2/b.c"
globcall='{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"**/*.c"}}}'
readcall='{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"'"$tmp"'/sr2/b.c"}}}'
ok "--root repeats: file tools in each, relative paths in the first" \
   'serve --root "$tmp/sr1" --root "$tmp/sr2" < <(printf "%s\n" "$init" "$inited" "$globcall" "$readcall"); [ $rc = 0 ] &&
    has "d/a.c" && ! has "b.c\\n" && has "beta" && [ $(count) = 3 ]'
# A client with roots: rig asks (its first request: id 1) once initialized;
# the answer replaces --root for the session. Lines are handled in order,
# so the answer is in force before the calls after it.
rinit='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"sh","version":"1"}}}'
rroots='{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file://'"$tmp"'/sr2"}]}}'
relcall='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"b.c"}}}'
ok "client roots: roots/list asked after initialized; the answer replaces --root" \
   'serve --root "$tmp/sr1" < <(printf "%s\n" "$rinit" "$inited" "$rroots" "$relcall" "$globcall"); [ $rc = 0 ] &&
    has "\"id\":1,\"method\":\"roots/list\"" && has "beta" && ! has "d/a.c" && [[ "$err" == *"client'"'"'s roots: $tmp/sr2"* ]]'
ok "client roots: --fixed-roots asks nothing and keeps --root" \
   'serve --root "$tmp/sr1" --fixed-roots < <(printf "%s\n" "$rinit" "$inited" "$rroots" "$relcall" "$globcall"); [ $rc = 0 ] &&
    ! has "roots/list" && ! has "beta" && has "d/a.c" && [ $(count) = 3 ]'
ok "a bad second --root is a usage error naming it" \
   'serve --root "$tmp/sr1" --root "$tmp/nope" </dev/null; [ $rc = 2 ] && [[ "$err" == *"$tmp/nope"* ]]'
ok "--http without HOST:PORT: a usage error that says so" 'serve --http nonsense </dev/null; [ $rc = 2 ] && [[ "$err" == *"HOST:PORT"* ]] && [ -z "$out" ]'
ok "--token without --http: a usage error" 'serve --token x </dev/null; [ $rc = 2 ] && [[ "$err" == *"go with --http"* ]]'
ok "an option without its value" 'serve --root </dev/null; [ $rc = 2 ] && [[ "$err" == *"needs a value"* ]]'
ok "a stray argument is a usage error" 'serve extra </dev/null; [ $rc = 2 ]'
ok "serve --help" 'serve --help </dev/null; [ $rc = 0 ] && [[ "$out" == usage:* ]]'
ok "rig --help lists serve" 'out=$("$rig" --help); [[ "$out" == *"serve"* ]]'

echo "1..$n"
[ "$failed" = 0 ]
