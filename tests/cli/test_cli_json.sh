#!/usr/bin/env bash
# test_cli_json.sh RIG — the rig command and `rig json`, end to end. TAP output.
set -u
rig=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# check NAME WANT_STATUS WANT_STDOUT [WANT_STDERR_SUBSTRING] -- COMMAND...
check() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  local out err rc
  out=$("$@" 2>"$tmp/err")
  rc=$?
  err=$(cat "$tmp/err")
  n=$((n + 1))
  if [ "$rc" != "$want_rc" ]; then
    echo "not ok $n - $name: status $rc, want $want_rc (stderr: $err)"
    failed=$((failed + 1))
  elif [ "$want_out" != "*" ] && [ "$out" != "$want_out" ]; then
    echo "not ok $n - $name: stdout differs"
    printf '%s\n' "$out" | sed 's/^/# got: /'
    printf '%s\n' "$want_out" | sed 's/^/# want: /'
    failed=$((failed + 1))
  elif [ -n "$want_err" ] && [[ "$err" != *"$want_err"* ]]; then
    echo "not ok $n - $name: stderr lacks '$want_err' (got: $err)"
    failed=$((failed + 1))
  else
    echo "ok $n - $name"
  fi
}

printf '{"b":[1,2.50,{}],"a":"\\u00e9","b":[]}' > "$tmp/dup.json"
printf '{\n  "a": [1,\n  2,]\n}\n' > "$tmp/bad.json"
printf '\xef\xbb\xbf{"x":1}' > "$tmp/bom.json"
printf '["\\ud800", 123456789012345678901234567890]' > "$tmp/lenient.json"
printf '[[[[1]]]]' > "$tmp/deep.json"

check "version" 0 "rig 0.1.0" "" -- "$rig" --version
check "help" 0 "*" "" -- "$rig" --help
check "no command is a usage error" 2 "" "usage:" -- "$rig"
check "unknown command" 2 "" "unknown command 'nope'" -- "$rig" nope
check "json help" 0 "*" "" -- "$rig" json --help
check "json without subcommand" 2 "" "usage:" -- "$rig" json
check "json unknown subcommand" 2 "" "unknown subcommand" -- "$rig" json lint x
check "check ok" 0 "$tmp/dup.json: ok" "" -- "$rig" json check "$tmp/dup.json"
check "check reports line and column" 1 "" "bad.json: line 3, column 5 (byte 17): expected a value (a trailing comma?)" -- "$rig" json check "$tmp/bad.json"
check "check several files, one bad" 1 "$tmp/dup.json: ok" "bad.json" -- "$rig" json check "$tmp/dup.json" "$tmp/bad.json"
check "check missing file" 1 "" "No such file or directory" -- "$rig" json check "$tmp/none.json"
check "check needs a file" 2 "" "name at least one FILE" -- "$rig" json check
check "fmt pretty, last duplicate wins" 0 '{
  "a": "é",
  "b": []
}' "" -- "$rig" json fmt "$tmp/dup.json"
check "fmt compact" 0 '{"a":"é","b":[]}' "" -- "$rig" json fmt --compact "$tmp/dup.json"
check "fmt keeps numbers as written, U+FFFD for a lone surrogate" 0 '["'$'\xef\xbf\xbd''",123456789012345678901234567890]' "" -- "$rig" json fmt --compact "$tmp/lenient.json"
check "fmt from stdin" 0 '[1,true]' "" -- sh -c "printf '[1, true]' | '$rig' json fmt --compact"
check "fmt one file at a time" 2 "" "one FILE at a time" -- "$rig" json fmt "$tmp/dup.json" "$tmp/dup.json"
check "strict refuses a lone surrogate" 1 "" "lone UTF-16 surrogate escape" -- "$rig" json check --strict "$tmp/lenient.json"
check "BOM refused by default" 1 "" "column 1 (byte 0)" -- "$rig" json check "$tmp/bom.json"
check "BOM skipped when allowed" 0 '{"x":1}' "" -- "$rig" json fmt --compact --allow-bom "$tmp/bom.json"
check "max-depth" 1 "" "nesting is deeper than the depth limit" -- "$rig" json check --max-depth 3 "$tmp/deep.json"
check "max-depth enough" 0 "*" "" -- "$rig" json check --max-depth 4 "$tmp/deep.json"
check "max-size" 1 "" "input is larger than the size limit" -- "$rig" json check --max-size 5 "$tmp/deep.json"
check "bad max-size value" 2 "" "needs a positive number" -- "$rig" json check --max-size -1 "$tmp/deep.json"
check "unknown option" 2 "" "unknown option '--nope'" -- "$rig" json check --nope "$tmp/deep.json"

echo "1..$n"
[ "$failed" -eq 0 ]
