#!/usr/bin/env bash
# test_cli_tools.sh RIG — `rig tools` and `rig call`, end to end. TAP output.
set -u
rig=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# run WANT_STATUS COMMAND... : runs it, keeps stdout/stderr in $out/$err
run() {
  local want=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
  [ "$rc" = "$want" ]
}

ok() {
  n=$((n + 1))
  if eval "$2"; then echo "ok $n - $1"; else
    echo "not ok $n - $1"
    printf '%s\n' "status $rc" "stdout: ${out:0:600}" "stderr: ${err:0:600}" | sed 's/^/# /'
    failed=$((failed + 1))
  fi
}

ok "tools: MCP by default, every built-in and file tool" \
   'run 0 "$rig" tools && for t in think update_todos sleep get_current_time convert_time finish read_file list_directory directory_tree get_file_info read_multiple_files write_file create_directory move_file edit_file glob grep; do grep -q "\"name\": \"$t\"" "$tmp/out" || exit 1; done; true'
ok "tools: output is JSON" 'run 0 "$rig" tools --compact && "$rig" json check - <"$tmp/out" >/dev/null'
for f in openai responses anthropic gemini; do
  ok "tools --format $f is JSON with a tools array" \
     'run 0 "$rig" tools --format '$f' --compact && grep -q "^{\"tools\":\[" "$tmp/out" && "$rig" json check - <"$tmp/out" >/dev/null'
done
ok "tools --format openai shape" 'run 0 "$rig" tools --format openai --compact && grep -q "{\"type\":\"function\",\"function\":{\"name\":\"think\"" "$tmp/out"'
ok "tools --format anthropic has betas" 'run 0 "$rig" tools --format anthropic --compact && grep -q "\"betas\":\[\]" "$tmp/out"'
ok "tools --security-risk adds security_risk to the tools that change files only" \
   'run 0 "$rig" tools --compact && cp "$tmp/out" "$tmp/plain" && ! grep -q security_risk "$tmp/plain" &&
    run 0 "$rig" tools --security-risk --compact && [ "$(grep -o "\"security_risk\":{" "$tmp/out" | wc -l)" = "$(grep -o "\"readOnlyHint\":false" "$tmp/out" | wc -l)" ] &&
    grep -q security_risk "$tmp/out"'
ok "tools: unknown format is a usage error" 'run 2 "$rig" tools --format xml && [[ "$err" == *"unknown format"* ]]'
ok "tools: stray argument is a usage error" 'run 2 "$rig" tools extra'
ok "tools: an option without its value" 'run 2 "$rig" tools --format && [[ "$err" == *"--format needs a value"* ]]'
ok "call: an option without its value" 'run 2 "$rig" call finish --args && [[ "$err" == *"--args needs a value"* ]]'
ok "tools --help" 'run 0 "$rig" tools --help && [[ "$out" == usage:* ]]'

ok "call: get_current_time in UTC" 'run 0 "$rig" call get_current_time timezone=UTC && [[ "$out" == *UTC* ]]'
ok "call --json prints a CallToolResult" \
   'run 0 "$rig" call get_current_time --args "{\"timezone\":\"UTC\"}" --json && grep -q "\"structuredContent\"" "$tmp/out" && grep -q "\"content\"" "$tmp/out"'
ok "call: key:=json pairs" 'run 0 "$rig" call think thought=plan nextThoughtNeeded:=false thoughtNumber:=1 totalThoughts:=1'
ok "call: string coerced where the schema wants a number" \
   'run 0 "$rig" call think thought=plan nextThoughtNeeded=false thoughtNumber=1 totalThoughts=2'
ok "call: --args from stdin" 'run 0 "$rig" call finish --args - <<<"{\"message\":\"all done\"}" && [[ "$out" == *"all done"* ]]'
ok "call: error result exits 1" 'run 1 "$rig" call get_current_time timezone=Mars/Base && [[ "$out" == *"Mars/Base"* ]]'
ok "call: validation failure exits 1 and names the key" 'run 1 "$rig" call sleep && [[ "$out" == *"seconds"* ]]'
ok "call: unknown tool lists the available ones" 'run 1 "$rig" call nope && [[ "$out" == *"Available: [think"* ]]'
ok "call: malformed --args" 'run 1 "$rig" call finish --args "{\"message\":" && [[ "$out" == *"not valid JSON"* ]]'
ok "call: bad key:= value is a usage error" 'run 2 "$rig" call finish "message:={bad"'
ok "call: no tool is a usage error" 'run 2 "$rig" call'
ok "call: --args and pairs together is a usage error" 'run 2 "$rig" call finish --args "{}" message=x'
ok "call: --root must be a directory" 'run 2 "$rig" call finish message=x --root /nonexistent'
ok "call: --root runs there" 'run 0 "$rig" call finish message=x --root "$tmp"'
ok "call: --timeout stops a long tool" 'run 1 "$rig" call sleep seconds:=30 --timeout 0.2 && [[ "$out" == *"deadline"* || "$out" == *"cancel"* || "$out" == *"time"* ]]'
mkdir -p "$tmp/r1/sub" "$tmp/r2"
echo one >"$tmp/r1/sub/a.c"
echo two >"$tmp/r2/b.c"
ok "call: glob in the current directory by default" \
   'pushd "$tmp/r1" >/dev/null && { run 0 "$rig" call glob "pattern=**/*.c"; s=$?; popd >/dev/null; [ $s = 0 ]; } && [ "$out" = "sub/a.c" ]'
ok "call: --root confines the file tools" 'run 0 "$rig" call glob "pattern=**/*.c" --root "$tmp/r1" && [ "$out" = "sub/a.c" ] &&
   run 1 "$rig" call read_file path="$tmp/r2/b.c" --root "$tmp/r1" && [[ "$out" == *"$tmp/r1"* ]]'
ok "call: --root repeats; relative paths resolve against the first" \
   'run 0 "$rig" call read_file path="$tmp/r2/b.c" --root "$tmp/r1" --root "$tmp/r2" && [[ "$out" == *two* ]] &&
    run 0 "$rig" call read_file path=sub/a.c --root "$tmp/r1" --root "$tmp/r2" && [[ "$out" == *one* ]]'
ok "call: a bad second --root is a usage error naming it" \
   'run 2 "$rig" call glob pattern=x --root "$tmp/r1" --root "$tmp/nope" && [[ "$err" == *"$tmp/nope"* ]]'
ok "call --help" 'run 0 "$rig" call --help && [[ "$out" == usage:* ]]'
ok "rig --help lists tools and call" 'run 0 "$rig" --help && [[ "$out" == *"tools"* && "$out" == *"call"* ]]'

echo "1..$n"
[ "$failed" = 0 ]
