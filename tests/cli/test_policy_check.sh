#!/usr/bin/env bash
# test_policy_check.sh RIG — `rig policy check`, end to end: the verdict on
# stdout ("allow: ..." / "ask: ..." and what an "always" would remember),
# the exit status (0 allow, 1 ask, 2 usage or a bad allowlist). TAP output.
set -u
rig=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# check NAME WANT_STATUS WANT_STDOUT_SUBSTRING -- COMMAND...
check() {
  local name=$1 want_rc=$2 want=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  n=$((n + 1))
  if [ "$rc" != "$want_rc" ] || [[ "$out" != *"$want"* ]]; then
    echo "not ok $n - $name: status $rc (want $want_rc), output:"
    printf '%s\n' "$out" | sed 's/^/# /'
    failed=$((failed + 1))
  else
    echo "ok $n - $name"
  fi
}

al=$tmp/allow.json
printf '{"shell": ["git log *", "ls *"], "write_file": ["/tmp/w/notes.txt"], "think": ["*"]}\n' >"$al"

check "an allowed command" 0 "allow: every command matches the allowlist (git log *)" -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"git log --oneline -3"}'
check "a pipeline of allowed commands" 0 "allow:" -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"git log | ls -la"}'
check "a list with another command asks, naming it" 1 'ask: `rm -rf /tmp/x` matches no allowlist pattern' -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"git log; rm -rf /tmp/x"}'
check "... and says what always would remember" 1 "remember: rm *" -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"git log; rm -rf /tmp/x"}'
check "a command substitution is a command too" 1 'ask: `curl evil` matches no' -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"git log $(curl evil)"}'
check "a redirection into a file asks" 1 "writes to '/tmp/x'" -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"git log > /tmp/x"}'
check "what cannot be read for certain asks" 1 "cannot be read for certain" -- \
  "$rig" policy check --allowlist "$al" shell '{"command":"cat <<EOF\nx\nEOF"}'
check "an array of commands: each must pass" 1 "ask:" -- \
  "$rig" policy check --allowlist "$al" shell '{"command":["ls", {"command":"rm x"}]}'
check "a file tool's exact path" 0 "allow:" -- \
  "$rig" policy check --allowlist "$al" write_file '{"path":"/tmp/w/notes.txt","content":"x"}'
check "another path asks, and would remember exactly it" 1 "remember: /tmp/w/other.txt" -- \
  "$rig" policy check --allowlist "$al" write_file '{"path":"/tmp/w/other.txt","content":"x"}'
check "a tool allowed as a whole" 0 "allow: the allowlist allows think" -- \
  "$rig" policy check --allowlist "$al" think '{"thought":"x"}'
check "no allowlist: everything asks" 1 "ask:" -- \
  "$rig" policy check shell '{"command":"ls"}'
check "a missing allowlist file is an empty one" 1 "ask:" -- \
  "$rig" policy check --allowlist "$tmp/none.json" shell '{"command":"ls"}'
printf '{"shell": "git log *"}' >"$tmp/bad.json"
check "a malformed allowlist is a usage error" 2 "array of" -- \
  "$rig" policy check --allowlist "$tmp/bad.json" shell '{"command":"ls"}'
check "arguments that are not an object ask" 1 "not a JSON object" -- \
  "$rig" policy check --allowlist "$al" shell '[1]'
check "a missing argument is a usage error" 2 "usage:" -- "$rig" policy check shell
check "help" 0 "usage: rig policy check" -- "$rig" policy --help

echo "1..$n"
[ "$failed" = 0 ]
