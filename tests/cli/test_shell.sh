#!/usr/bin/env bash
# test_shell.sh RIG — the shell tools end to end: `rig call shell` (exit
# status, output, the sandbox on and off, the private TMPDIR removed when
# rig exits), and background jobs under `rig serve` dying with their
# session: an HTTP session deleted, and a stdio client that goes away.
# TAP output.
set -u
rig=$1
tmp=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null; rm -rf "$tmp"' EXIT
n=0
failed=0

# ok NAME SHELL-CONDITION
ok() {
  n=$((n + 1))
  if eval "$2"; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    [ -f "$tmp/out" ] && sed 's/^/# /' "$tmp/out" | head -20
    failed=$((failed + 1))
  fi
}

# dead PID: gone, or a zombie waiting for init (up to 3 s)
dead() {
  for _ in $(seq 60); do
    if ! kill -0 "$1" 2>/dev/null; then return 0; fi
    case $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) in Z | X | "") return 0 ;; esac
    sleep 0.05
  done
  return 1
}

mkdir -p "$tmp/root" "$tmp/outside"
cd "$tmp/root" || exit 1

ok "a command's output and exit 0" \
  '"$rig" call shell command="echo hello" >"$tmp/out" 2>&1 && grep -q "^hello$" "$tmp/out" && grep -q "^\[exit 0 after" "$tmp/out"'
ok "a failing command: exit status 1, its code and stderr shown" \
  '! "$rig" call shell command="echo oops >&2; exit 3" >"$tmp/out" 2>&1 && grep -q "^\[stderr\]$" "$tmp/out" && grep -q "^oops$" "$tmp/out" && grep -q "^\[exit 3 after" "$tmp/out"'
ok "--json gives every field of a command" \
  '"$rig" call --json shell command="printf x" >"$tmp/out" && grep -q "\"exit_code\":0" "$tmp/out" && grep -q "\"stdout\":\"x\"" "$tmp/out" && grep -q "\"duration_ms\":" "$tmp/out" && grep -q "\"timed_out\":false" "$tmp/out"'
ok "a timeout: exit 124, said so" \
  '! "$rig" call shell command="sleep 30" timeout:=0.3 >"$tmp/out" 2>&1 && grep -q "timed out after 300 ms" "$tmp/out" && grep -q "^\[exit 124 after" "$tmp/out"'
ok "--sandbox takes on, strict or off" \
  '"$rig" call --sandbox maybe shell command=true >"$tmp/out" 2>&1; [ $? = 2 ] && grep -q "on, strict or off" "$tmp/out"'
# Landlock confines reads from ABI 1; without Landlock the command runs
# unconfined (rig warns), so the check is what the kernel can do.
if [ "$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')" -ge 1 ] 2>/dev/null; then
  ok "--sandbox strict: a file outside the root cannot be read, the root can" \
    'mkdir -p "$tmp/root" "$tmp/away" && echo inside > "$tmp/root/in.txt" && echo s > "$tmp/away/secret" && ! "$rig" call --sandbox strict --root "$tmp/root" shell command="cat $tmp/away/secret" >"$tmp/out" 2>&1 && grep -q "Permission denied" "$tmp/out" && "$rig" call --sandbox strict --root "$tmp/root" shell command="cat in.txt" >"$tmp/out" 2>&1 && grep -q "^inside" "$tmp/out"'
else
  ok "--sandbox strict without Landlock: rig says the command ran unconfined" \
    '"$rig" call --sandbox strict shell command=true >"$tmp/out" 2>&1; grep -qi "landlock" "$tmp/out"'
fi
ok "the private TMPDIR is writable and removed when rig exits" \
  '"$rig" call shell command="echo x > \$TMPDIR/f && echo \$TMPDIR" >"$tmp/out" 2>&1 && d=$(grep "^/" "$tmp/out" | head -1) && [ -n "$d" ] && [ ! -e "$d" ]'

ok "a rig that runs no command makes no temporary directory" \
  'mkdir -p "$tmp/t" && TMPDIR=$tmp/t "$rig" call get_current_time >"$tmp/out" 2>&1 && [ -z "$(ls -A "$tmp/t")" ]'
ok "... and one that does makes it under \$TMPDIR, and removes it" \
  'TMPDIR=$tmp/t "$rig" call shell command="echo \$TMPDIR" >"$tmp/out" 2>&1 && grep -q "^$tmp/t/rig-shell-" "$tmp/out" && [ -z "$(ls -A "$tmp/t")" ]'

# The sandbox: only where the kernel has Landlock (rig warns otherwise).
"$rig" call shell command=true >/dev/null 2>"$tmp/warn"
if grep -q "no Landlock" "$tmp/warn"; then
  n=$((n + 1)); echo "ok $n - # SKIP this kernel has no Landlock"
else
  ok "sandboxed: a write outside the roots fails" \
    '! "$rig" call shell command="echo pwned > $tmp/outside/x" >"$tmp/out" 2>&1 && grep -q "Permission denied" "$tmp/out" && [ ! -e "$tmp/outside/x" ]'
  ok "sandboxed: a write inside the root works" \
    '"$rig" call shell command="echo fine > inside" >"$tmp/out" 2>&1 && [ "$(cat inside)" = fine ]'
  ok "sandboxed: --root widens it to each root" \
    '"$rig" call --root . --root "$tmp/outside" shell command="echo two > $tmp/outside/y" >"$tmp/out" 2>&1 && [ "$(cat "$tmp/outside/y")" = two ]'
  ok "sandboxed: rm -rf of a directory outside fails, nothing removed" \
    'mkdir -p "$tmp/outside/keep" && touch "$tmp/outside/keep/f" && ! "$rig" call shell command="rm -rf $tmp/outside/keep" >"$tmp/out" 2>&1 && [ -e "$tmp/outside/keep/f" ]'
  ok "--sandbox off: the write outside works" \
    '"$rig" call --sandbox off shell command="echo off > $tmp/outside/z" >"$tmp/out" 2>&1 && [ "$(cat "$tmp/outside/z")" = off ]'
fi

# Background jobs die with their session: Streamable HTTP, session deleted.
"$rig" serve --http 127.0.0.1:0 --root "$tmp/root" >"$tmp/serve.out" 2>"$tmp/serve.err" &
srv=$!
for _ in $(seq 100); do grep -q "Streamable HTTP at" "$tmp/serve.out" 2>/dev/null && break; sleep 0.05; done
url=$(grep -o "http://[^ ]*/mcp" "$tmp/serve.out" | head -1)
python3 - "$url" "$tmp" >"$tmp/http.out" 2>&1 <<'EOF'
import json, sys, time, urllib.request
url, tmp = sys.argv[1], sys.argv[2]
H = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
def post(body, sid=None):
    h = dict(H)
    if sid: h["Mcp-Session-Id"] = sid
    r = urllib.request.urlopen(urllib.request.Request(url, json.dumps(body).encode(), h))
    return r.headers.get("Mcp-Session-Id"), r.read().decode()
sid, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
_, out = post({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "shell", "arguments": {
    "command": "echo $$ > %s/root/http.pid; exec sleep 60" % tmp, "run_in_background": True}}}, sid)
print("started" if "job-1" in out else "no job: " + out)
for _ in range(100):
    try:
        if open(tmp + "/root/http.pid").read().strip(): break
    except OSError: pass
    time.sleep(0.05)
_, out = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "shell_output",
    "arguments": {"job_id": "job-1"}}}, sid)
print("running" if '\\"status\\":\\"running\\"' in out or '"status":"running"' in out else "not running: " + out)
req = urllib.request.Request(url, method="DELETE", headers={"Mcp-Session-Id": sid})
print("deleted", urllib.request.urlopen(req).status)
EOF
cp "$tmp/http.out" "$tmp/out"
ok "HTTP: a background job starts and runs" 'grep -q "^started$" "$tmp/http.out" && grep -q "^running$" "$tmp/http.out"'
ok "HTTP: deleting the session kills its job" \
  'grep -q "^deleted 200$" "$tmp/http.out" && p=$(cat "$tmp/root/http.pid") && dead "$p"'
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null

# stdio: the client goes away (stdin ends): rig exits and the job with it.
init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'
start="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"shell\",\"arguments\":{\"command\":\"echo \$\$ > $tmp/root/stdio.pid; exec sleep 60\",\"run_in_background\":true}}}"
{ printf '%s\n%s\n%s\n' "$init" "$inited" "$start"; for _ in $(seq 100); do [ -s "$tmp/root/stdio.pid" ] && break; sleep 0.05; done; } |
  timeout 20 "$rig" serve --root "$tmp/root" >"$tmp/out" 2>&1
rc=$?
ok "stdio: rig exits when the client goes, its job stopped" \
  '[ $rc = 0 ] && grep -q "job-1" "$tmp/out" && p=$(cat "$tmp/root/stdio.pid") && dead "$p"'

echo "1..$n"
[ "$failed" = 0 ]
