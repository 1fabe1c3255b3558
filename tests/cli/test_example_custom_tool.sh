#!/usr/bin/env bash
# test_example_custom_tool.sh EXE — runs examples/custom_tool and checks what a
# model would get back from each of its calls. TAP output.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() {
  n=$((n + 1))
  if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

"$exe" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "exits 0" '[ "$rc" = 0 ]'
ok "lists the tool as MCP tools/list" 'grep -q "\"name\": \"search_notes\"" "$tmp/out"'
ok "lists its read-only annotation" 'grep -q "\"readOnlyHint\": true" "$tmp/out"'
ok "a plain call finds the notes" 'grep -q "^  1. Deploy checklist" "$tmp/out" && grep -q "^  2. Ask Ana" "$tmp/out"'
ok "\"1\" is read as the integer 1 (one result)" \
   '[ "$(awk "/^call .*release/{on=1;next} /^call/{on=0} on" "$tmp/out" | grep -c "^  [0-9]\.")" = 1 ]'
ok "the before hook blocks a search for secrets" \
   'grep -q "error: Tool .search_notes. was blocked: searching notes for secrets is not allowed" "$tmp/out"'
ok "validation names the failing value" 'grep -q "error: Error validating tool .search_notes.: at ./query.:" "$tmp/out"'
ok "the after hook audited the two calls that ran" 'grep -q "^audited 2 calls$" "$tmp/out"'
ok "audit lines go to stderr" '[ "$(grep -c "^audit: search_notes" "$tmp/err")" = 2 ]'

echo "1..$n"
[ "$failed" = 0 ]
