#!/usr/bin/env bash
# test_inspector.sh RIG — `rig serve` driven by the MCP Inspector's CLI mode
# (`mcp-inspector --cli SERVER... --method M ...`), the version that
# inspector/package-lock.json pins, installed there by scripts/npm-deps.sh.
# Checks what the inspector prints and its exit status, and, through a
# wrapper that logs both directions of stdio, what went over the wire.
# TAP output.
#
# The inspector's CLI, as observed (2.x): the result as pretty JSON on stdout;
# failures as one {"error":{"code":...,"message":...}} line on stderr. Exit 0
# ok, 5 for a result with isError:true or a tool the server did not list
# (then nothing is sent), 1 for anything else (a JSON-RPC error from the
# server, a usage error, a server that would not start). A --tool-arg value
# is parsed as JSON first (so message=123 sends the number 123), and only a
# value left a string is coerced to the type the tool's schema declares.
set -u
rig=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/inspector
if ! "$here/../../scripts/npm-deps.sh" "$dir" >&2; then
  echo "Bail out! the MCP Inspector could not be installed (see above)"
  exit 1
fi
inspector=$dir/node_modules/.bin/mcp-inspector
if [ ! -x "$inspector" ]; then
  echo "Bail out! $inspector is missing after npm ci"
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The inspector keeps its state under HOME; give it one of its own. No debug
# output (stack traces) on stderr.
mkdir "$tmp/home"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_DATA_HOME=$tmp/home/.local/share
unset DEBUG MCP_DEBUG NODE_OPTIONS

# One inspector run may take this long (generous for a slow machine; a run
# here takes about a second), then it is stopped.
limit=${RIG_INSPECTOR_TIMEOUT:-90}

# A server that logs both directions of its stdio into $tmp/wire, then the
# exit status of rig serve. It ignores SIGTERM so that the log is complete:
# the inspector closes rig's stdin on exit (and signals only if rig lingers).
cat >"$tmp/logged-rig" <<EOF
#!/usr/bin/env bash
trap '' TERM INT
mkdir -p "$tmp/wire"
tee -a "$tmp/wire/in" | "$rig" serve "\$@" | tee -a "$tmp/wire/out"
echo "\${PIPESTATUS[1]}" >>"$tmp/wire/status"
EOF
chmod +x "$tmp/logged-rig"

n=0
failed=0
rc=
out=
err=
wire_in=
wire_out=
wire_status=

# insp ARGS... : runs the inspector's CLI; stdout in $out (and $tmp/out),
# stderr in $err, exit status in $rc (124 or 137: it hung).
insp() {
  rm -rf "$tmp/wire"
  timeout -k 10 "$limit" "$inspector" --cli "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# insp_logged ARGS... : insp with the logging server (ARGS are the inspector's
# options; `-- logged-rig` comes last), then waits (bounded) for that server
# to end; the wire in $wire_in, $wire_out, rig's exit status in $wire_status.
insp_logged() {
  insp "$@" -- "$tmp/logged-rig"
  local i
  for ((i = 0; i < 300; i++)); do
    [ -s "$tmp/wire/status" ] && break
    sleep 0.1
  done
  wire_in=$(cat "$tmp/wire/in" 2>/dev/null)
  wire_out=$(cat "$tmp/wire/out" 2>/dev/null)
  wire_status=$(cat "$tmp/wire/status" 2>/dev/null)
}

# js EXPR : evaluates EXPR with r = the JSON on stdout; prints the value
# (strings bare, anything else as JSON). Fails when stdout is not JSON.
js() {
  node -e '
    const fs = require("fs");
    const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const v = eval(process.argv[2]);
    process.stdout.write(typeof v === "string" ? v : String(JSON.stringify(v)));
  ' "$tmp/out" "$1"
}
# jerr EXPR : the same over the error envelope (the last line of stderr).
jerr() {
  tail -n 1 "$tmp/err" >"$tmp/err.last"
  node -e '
    const fs = require("fs");
    const e = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const v = eval(process.argv[2]);
    process.stdout.write(typeof v === "string" ? v : String(JSON.stringify(v)));
  ' "$tmp/err.last" "$1"
}

ok() {
  n=$((n + 1))
  if eval "$2"; then echo "ok $n - $1"; else
    echo "not ok $n - $1"
    printf '%s\n' "inspector status $rc" "stdout: ${out:0:1200}" "stderr: ${err:0:1200}" \
      "to rig: ${wire_in:0:1200}" "from rig: ${wire_out:0:1200}" | sed 's/^/# /'
    failed=$((failed + 1))
  fi
}

# ---- tools/list
ok "tools/list: exit 0, rig's six built-in tools then the file tools, in order, then the rest" \
   'insp "$rig" serve --method tools/list; [ $rc = 0 ] &&
    [ "$(js "r.tools.slice(0, 17).map(t => t.name).join(\" \")")" = "think update_todos sleep get_current_time convert_time finish read_file list_directory directory_tree get_file_info read_multiple_files write_file create_directory move_file edit_file glob grep" ] &&
    [ "$(js "[\"shell\", \"shell_output\", \"shell_stop\"].every(n => r.tools.some(t => t.name === n))")" = true ]'
ok "tools/list: every tool has an object inputSchema and a description" \
   '[ "$(js "r.tools.every(t => t.inputSchema && t.inputSchema.type === \"object\" && typeof t.description === \"string\" && t.description.length > 0)")" = true ]'
ok "tools/list: sleep's inputSchema as rig declares it" \
   '[ "$(js "JSON.stringify([r.tools[2].inputSchema.properties.seconds.type, r.tools[2].inputSchema.required, r.tools[2].inputSchema.additionalProperties])")" = "[\"number\",[\"seconds\"],false]" ]'
ok "tools/list: the same list as rig tools prints" \
   '"$rig" tools >"$tmp/tools.json" && [ "$(js "r.tools.map(t => t.name).join()")" = "$(node -p "require(\"$tmp/tools.json\").tools.map(t => t.name).join()")" ]'

# ---- tools/call
now=$(date -u +%s)
ok "get_current_time timezone=UTC: exit 0, the time as text" \
   'insp "$rig" serve --method tools/call --tool-name get_current_time --tool-arg timezone=UTC; [ $rc = 0 ] &&
    [ "$(js "r.content[0].type")" = text ] &&
    [[ "$(js "r.content[0].text")" =~ ^It\ is\ [A-Z][a-z]+day,\ [0-9]{4}-[0-9]{2}-[0-9]{2}\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ in\ UTC ]] &&
    [ "$(js "r.isError === undefined || r.isError === false")" = true ]'
ok "get_current_time timezone=UTC: structuredContent with the zone, and the time is now" \
   '[ "$(js "r.structuredContent.timezone")" = UTC ] &&
    dt=$(js "r.structuredContent.datetime") && [[ "$dt" == *+00:00 ]] &&
    t=$(date -u -d "$dt" +%s) && [ $((t - now)) -ge -5 ] && [ $((t - now)) -le $((limit + 60)) ] &&
    [ "$(js "r.structuredContent.day_of_week")" = "$(date -u -d "$dt" +%A)" ]'
ok "get_current_time of an unknown zone: exit 5, rig's isError result" \
   'insp "$rig" serve --method tools/call --tool-name get_current_time --tool-arg timezone=Mars/Olympus; [ $rc = 5 ] &&
    [ "$(js "r.isError")" = true ] && [[ "$(js "r.content[0].text")" == "Unknown time zone '"'"'Mars/Olympus'"'"'"* ]] &&
    [ "$(jerr "e.error.code")" = tool_is_error ]'

# ---- bad arguments, unknown tools, JSON-RPC errors
ok "sleep seconds=-1: rig sends an isError result; exit 5" \
   'insp_logged --method tools/call --tool-name sleep --tool-arg seconds=-1; [ $rc = 5 ] &&
    [ "$(js "r.isError")" = true ] &&
    [[ "$(js "r.content[0].text")" == *"/seconds"*"must be at least 0"* ]] &&
    [[ "$wire_out" == *"\"isError\":true"* ]] &&
    [ "$(jerr "e.error.code")" = tool_is_error ]'
ok "sleep seconds=-1: -1 went over the wire as a number" \
   '[[ "$wire_in" == *"\"arguments\":{\"seconds\":-1}"* ]]'
ok "sleep with no arguments: rig names the missing property; exit 5" \
   'insp "$rig" serve --method tools/call --tool-name sleep; [ $rc = 5 ] &&
    [[ "$(js "r.content[0].text")" == *"missing required property '"'"'seconds'"'"'"* ]]'
ok "an unknown tool: exit 5, tool_not_found, and no tools/call reaches rig" \
   'insp_logged --method tools/call --tool-name no_such_tool; [ $rc = 5 ] && [ -z "$out" ] &&
    [ "$(jerr "e.error.code")" = tool_not_found ] &&
    [[ "$wire_in" == *"\"method\":\"tools/list\""* ]] && [[ "$wire_in" != *"tools/call"* ]]'
# wire_error METHOD : the error rig answered the request METHOD with, as
# JSON ({"code":...,"message":...}); fails when it answered with a result.
wire_error() {
  node -e '
    const fs = require("fs");
    const lines = f => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map(l => JSON.parse(l));
    const req = lines(process.argv[1]).find(m => m.method === process.argv[3]);
    const res = req && lines(process.argv[2]).find(m => m.id === req.id && !m.method);
    if (!res || !res.error) process.exit(1);
    process.stdout.write(JSON.stringify(res.error));
  ' "$tmp/wire/in" "$tmp/wire/out" "$1"
}
ok "a JSON-RPC error from rig (resources/read of no resource): exit 1, rig's message on stderr" \
   'insp_logged --method resources/read --uri file:///nonexistent/rig-inspector-test; [ $rc = 1 ] && [ -z "$out" ] &&
    rpcerr=$(wire_error resources/read) && [[ "$rpcerr" =~ ^\{\"code\":-32[0-9]{3}, ]] &&
    [ "$(jerr "e.error.message")" = "$(node -p "JSON.parse(process.argv[1]).message" "$rpcerr")" ] &&
    [[ "$(jerr "e.error.message")" == *[a-z]* ]]'
ok "rig exits 0 when the inspector hangs up" '[ "$wire_status" = 0 ]'

# ---- JSON-typed --tool-arg values
ok "think: a boolean and integers arrive as JSON, and come back so" \
   'insp_logged --method tools/call --tool-name think --tool-arg thought=check --tool-arg nextThoughtNeeded=false --tool-arg thoughtNumber=1 --tool-arg totalThoughts=3;
    [ $rc = 0 ] &&
    [[ "$wire_in" == *"\"arguments\":{\"thought\":\"check\",\"nextThoughtNeeded\":false,\"thoughtNumber\":1,\"totalThoughts\":3}"* ]] &&
    [ "$(js "JSON.stringify(r.structuredContent)")" = "{\"thoughtNumber\":1,\"totalThoughts\":3,\"nextThoughtNeeded\":false,\"branches\":[],\"thoughtHistoryLength\":1}" ]'
ok "sleep seconds=0.2: a fractional number, slept" \
   'insp_logged --method tools/call --tool-name sleep --tool-arg seconds=0.2; [ $rc = 0 ] &&
    [[ "$wire_in" == *"\"arguments\":{\"seconds\":0.2}"* ]] &&
    [ "$(js "r.content[0].text")" = "Slept for 0.2 seconds." ] && [ "$wire_status" = 0 ]'
ok "update_todos todos=[...]: a JSON array of objects" \
   'insp "$rig" serve --method tools/call --tool-name update_todos --tool-arg "todos=[{\"content\":\"Write the test\",\"status\":\"in_progress\"}]"; [ $rc = 0 ] &&
    [ "$(js "JSON.stringify([r.structuredContent.todos, r.structuredContent.counts.in_progress])")" = "[[{\"content\":\"Write the test\",\"status\":\"in_progress\"}],1]" ]'
ok "finish message=123: sent as the number 123, which rig refuses; exit 5" \
   'insp_logged --method tools/call --tool-name finish --tool-arg message=123; [ $rc = 5 ] &&
    [[ "$wire_in" == *"\"arguments\":{\"message\":123}"* ]] &&
    [[ "$(js "r.content[0].text")" == *"/message"*"expected string"* ]]'
ok "finish message='\"123\"': a JSON string, accepted" \
   'insp "$rig" serve --method tools/call --tool-name finish --tool-arg "message=\"123\""; [ $rc = 0 ] &&
    [ "$(js "r.structuredContent.message")" = 123 ] && [ "$(js "typeof r.structuredContent.message")" = string ]'

# ---- the server's own options, after --
ok "rig serve --timeout 0.3 after --: a 30 s sleep ends early with isError; exit 5" \
   't0=$SECONDS; insp --method tools/call --tool-name sleep --tool-arg seconds=30 -- "$rig" serve --timeout 0.3; [ $rc = 5 ] &&
    [ "$(js "r.isError")" = true ] && [ $((SECONDS - t0)) -lt 25 ]'
ok "a server that will not start (rig serve --bogus): exit 1, rig's usage on stderr" \
   'insp --method tools/list -- "$rig" serve --bogus; [ $rc = 1 ] && [ -z "$out" ] && [[ "$err" == *"rig serve: unexpected argument"* ]]'

echo "1..$n"
[ "$failed" = 0 ]
