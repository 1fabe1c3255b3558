#!/usr/bin/env bash
# test_conformance.sh SERVER — the official MCP conformance suite (run.sh,
# --suite all) against SERVER (examples/conformance_server) over Streamable
# HTTP on a free loopback port. TAP: one line per scenario, ok only when the
# scenario has no FAILURE and no WARNING, then one for a clean SIGTERM exit.
set -uo pipefail
server=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if ! "$here/../../scripts/npm-deps.sh" "$here" >&2; then
  echo "Bail out! the conformance suite could not be installed (see above)"
  exit 1
fi

"$server" --http 127.0.0.1:0 2>"$tmp/server.err" &
pid=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$tmp/server.err")
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "Bail out! conformance_server did not start: $(cat "$tmp/server.err")"
  exit 1
fi

CONFORMANCE_RESULTS="$tmp/results" "$here/run.sh" "$url" >"$tmp/run.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/run.out" | grep -E '^# (ok|FAIL|WARN|MISSING|   |conformance:)' || true

n=0
while read -r tag name rest; do
  n=$((n + 1))
  name=${name%:}
  case $tag in
    ok) echo "ok $n - $name: $rest" ;;
    *) echo "not ok $n - $name: $tag $rest" ;;
  esac
done < <(grep -E '^(ok  |FAIL|WARN|MISSING) ' "$tmp/run.out")
if [ "$n" -lt 32 ]; then
  n=$((n + 1))
  echo "not ok $n - the suite ran $((n - 1)) scenarios, not 32 (run.sh exit $rc)"
fi
n=$((n + 1))
kill -TERM "$pid"
if wait "$pid"; then echo "ok $n - the server exits 0 on SIGTERM"; else echo "not ok $n - the server's exit status on SIGTERM: $?"; fi
pid=
echo "1..$n"
