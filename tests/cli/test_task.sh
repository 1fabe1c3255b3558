#!/usr/bin/env bash
# test_task.sh RIG — `rig task` (list, start, grade, cancel) against a real
# `rig env serve` of tests/cli/data/task_tasks.json on 127.0.0.1, port 0:
# the table of tasks, a prompt started now and graded later by a bare
# tasks.grade (right answer 1.0, wrong 0), --session resuming one of two
# parked sessions (a bare grade then fails naming both), grading with
# nothing parked, --answer-json and --answer-file, --out files, cancel, the
# server's errors as exit 1, bad options and URLs as exit 2, and connection
# failures (refused, no answer) as exit 1. TAP output.
set -u
rig=$1
here=$(cd "$(dirname "$0")" && pwd)
taskset=$here/data/task_tasks.json
tmp=$(mktemp -d)
srv=
big_srv=
hang=
cleanup() {
  local p
  for p in $srv $big_srv $hang; do
    kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
unset RIG_ENV_URL
# In a sanitizer build, a report must fail the check it happens in, and
# not pass for the exit status 1 a check may expect.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=99}
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99}
n=0
failed=0

# ok NAME SHELL-CONDITION
ok() {
  n=$((n + 1))
  if eval "$2"; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    for f in out err; do
      [ -f "$tmp/$f" ] && sed "s/^/# $f: /" "$tmp/$f" | head -20
    done
    failed=$((failed + 1))
  fi
}

# code N COMMAND...: COMMAND exits with status N.
code() {
  local want=$1
  shift
  "$@"
  [ $? = "$want" ]
}

# score X: stdout is one grade frame, scoring X.
score() { [ "$(wc -l <"$tmp/out")" = 1 ] && grep -q "^{\"score\":$1[,}]" "$tmp/out"; }

# port_of FILE: the port of a complete RIG_SERVE_PORT=<port> line in FILE,
# waiting for it up to 60 s (a loaded machine or a sanitizer build is slow
# to start). Only lines that ended in a newline count.
port_of() {
  local deadline=$((SECONDS + 60)) lines port
  while [ "$SECONDS" -lt "$deadline" ]; do
    lines=$(wc -l <"$1" 2>/dev/null || echo 0)
    if [ "$lines" -gt 0 ]; then
      port=$(head -n "$lines" "$1" | sed -n 's/^RIG_SERVE_PORT=\([0-9][0-9]*\)$/\1/p' | head -n 1)
      if [ -n "$port" ]; then
        echo "$port"
        return 0
      fi
    fi
    kill -0 "$srv" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

"$rig" env serve "$taskset" --port 0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
srv=$!
if ! port=$(port_of "$tmp/serve.out"); then
  echo "1..0 # SKIP rig env serve did not start: $(head -c 300 "$tmp/serve.err" | tr '\n' ' ')"
  exit 0
fi
url=tcp://127.0.0.1:$port
sessre='sess-[0-9a-f]\{8\}'

# task ARGS...: rig task with --url, stdout in out, stderr in err; $? kept.
task() { "$rig" task "$1" --url "$url" "${@:2}" >"$tmp/out" 2>"$tmp/err"; }
# session_of: the session id `rig task start` said on stderr.
session_of() { sed -n "s/^session: \($sessre\)$/\1/p" "$tmp/err"; }

# -------------------------------------------------------------- list
ok "list: a table of id, description and required args" \
  'task list && grep -q "^ID  *DESCRIPTION  *REQUIRED ARGS$" "$tmp/out" && grep -q "^echo  *Say a word  *word$" "$tmp/out" && grep -q "^sum  *Add two numbers, answer as JSON  *a, b$" "$tmp/out" && grep -q "^essay  *Write about rigs  *-$" "$tmp/out" && [ "$(wc -l <"$tmp/out")" = 5 ]'
ok "list --json: the result as JSON on stdout" \
  'task list --json && [ "$(wc -l <"$tmp/out")" = 1 ] && "$rig" json check "$tmp/out" >/dev/null && grep -q "\"tasks\":\[{\"id\":\"echo\"" "$tmp/out" && grep -q "\"required\":\[\"word\"\]" "$tmp/out"'
ok "list --out FILE: the table on stdout, the result JSON in FILE" \
  'task list --out "$tmp/list.json" && grep -q "^echo " "$tmp/out" && "$rig" json check "$tmp/list.json" >/dev/null && grep -q "\"id\":\"essay\"" "$tmp/list.json"'
ok "the URL defaults from \$RIG_ENV_URL" \
  'RIG_ENV_URL=$url "$rig" task list >"$tmp/out" 2>"$tmp/err" && grep -q "^echo " "$tmp/out"'

# -------------------------------------------------------------- start now, grade later
ok "start: the prompt on stdout, the session on stderr, the result in --out" \
  'task start --id echo --args "{\"word\":\"hi\"}" --out "$tmp/start.json" && [ "$(cat "$tmp/out")" = "Say hi" ] && grep -q "^session: $sessre$" "$tmp/err" && grep -q "\"prompt\":\"Say hi\"" "$tmp/start.json"'
ok "grade later, bare: the right answer scores 1.0, the frame in --out too" \
  'task grade --answer hi --out "$tmp/grade.json" && score 1.0 && [ "$(cat "$tmp/grade.json")" = "{\"score\":1.0}" ]'
ok "grade with nothing parked: no task in progress, exit 1" \
  'code 1 task grade --answer hi && grep -q "^rig task: no task in progress (code -32600)$" "$tmp/err" && [ ! -s "$tmp/out" ]'
ok "a wrong answer scores 0" \
  'task start --id echo --args "{\"word\":\"yes\"}" && task grade --answer no && score 0.0'

# -------------------------------------------------------------- two parked sessions
task start --id echo --args '{"word":"alpha"}'
s1=$(session_of)
task start --id echo --args '{"word":"beta"}'
s2=$(session_of)
ok "two starts park two sessions" '[ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ]'
ok "... a bare grade then fails, naming both" \
  'code 1 task grade --answer alpha && grep -q "2 sessions are parked" "$tmp/err" && grep -q "$s1" "$tmp/err" && grep -q "$s2" "$tmp/err" && grep -q "(code -32600)$" "$tmp/err"'
ok "... --session resumes the first: its answer scores 1.0" \
  'task grade --session "$s1" --answer alpha && score 1.0'
ok "... and the other, left alone, is graded by a bare grade" \
  'task grade --answer beta && score 1.0'
ok "--session naming a session gone: unknown session, exit 1" \
  'code 1 task grade --session "$s1" --answer alpha && grep -q "^rig task: unknown session (code -32600)$" "$tmp/err"'
ok "start --session reuses a parked session; its new task replaces the old" \
  'task start --id echo --args "{\"word\":\"one\"}" && s=$(session_of) && task start --session "$s" --id echo --args "{\"word\":\"two\"}" && [ "$(session_of)" = "$s" ] && [ "$(cat "$tmp/out")" = "Say two" ] && task grade --session "$s" --answer two && score 1.0'

# -------------------------------------------------------------- answers
ok "--answer-json sends a JSON value (a declared returns type)" \
  'task start --id sum --args "{\"a\":2,\"b\":3}" && [ "$(cat "$tmp/out")" = "What is 2 + 3? Answer {\"sum\": N}." ] && task grade --answer-json "{ \"sum\" : 5 }" && score 1.0'
ok "--answer-json, a wrong value: 0" \
  'task start --id sum --args "{\"a\":2,\"b\":3}" && task grade --answer-json "{\"sum\":6}" && score 0.0'
printf 'A line about a RIG,\nand another.\n' >"$tmp/answer.txt"
ok "--answer-file FILE sends its text" \
  'task start --id essay && task grade --answer-file "$tmp/answer.txt" && score 1.0'
ok "--answer-file - reads stdin" \
  'task start --id essay && echo "Rigs rule" | "$rig" task grade --url "$url" --answer-file - >"$tmp/out" 2>"$tmp/err" && score 1.0'
ok "--answer-file of a missing file: exit 1, nothing graded" \
  'task start --id essay && code 1 task grade --answer-file "$tmp/nope.txt" && grep -q "nope.txt: No such file" "$tmp/err" && task grade --answer "" && score 0.0'

ok "a grader that cannot grade: the frame on stdout, isError said, exit 1" \
  'task start --id broken && code 1 task grade --answer x && grep -q "\"isError\":true" "$tmp/out" && grep -q "^rig task: the grader could not grade the answer" "$tmp/err"'

# -------------------------------------------------------------- cancel
ok "cancel without --session is a usage error naming it" 'code 2 task cancel && grep -q "cancel needs --session" "$tmp/err"'
ok "cancel --session drops the task: {\"cancelled\":true}" \
  'task start --id echo --args "{\"word\":\"x\"}" && s=$(session_of) && task cancel --session "$s" && [ "$(cat "$tmp/out")" = "{\"cancelled\":true}" ]'
ok "... after which nothing is parked" \
  'code 1 task grade --session "$s" --answer x && grep -q "unknown session" "$tmp/err" && code 1 task grade --answer x && grep -q "no task in progress" "$tmp/err"'

# -------------------------------------------------------------- server errors
ok "an unknown task: the server's error, exit 1" \
  'code 1 task start --id nope && grep -q "^rig task: unknown task: .nope. (code -32602)$" "$tmp/err" && [ ! -s "$tmp/out" ]'
ok "args the task's schema refuses: exit 1 with the server's message" \
  'code 1 task start --id echo --args "{\"word\":5}" && grep -q "^rig task: .*(code -32[0-9]*)$" "$tmp/err"'
ok "a failed start parks nothing" \
  'code 1 task grade --answer x && grep -q "no task in progress" "$tmp/err"'

# -------------------------------------------------------------- usage errors: exit 2, nothing sent
ok "--args that is not an object: exit 2" \
  'code 2 task start --id echo --args "[1]" && grep -q "\-\-args needs a JSON object, not array" "$tmp/err"'
ok "--args that is not JSON: exit 2" \
  'code 2 task start --id echo --args "{word" && grep -q "\-\-args needs a JSON object: line 1" "$tmp/err"'
ok "--answer-json that is not JSON: exit 2" \
  'code 2 task grade --answer-json "sum: 5" && grep -q "\-\-answer-json needs JSON" "$tmp/err"'
ok "grade without an answer, or with two: exit 2" \
  'code 2 task grade && code 2 task grade --answer a --answer-json 1'
ok "start without --id: exit 2" 'code 2 task start && grep -q "give --id" "$tmp/err"'
ok "an option of another verb: exit 2" \
  'code 2 task start --id echo --answer x && grep -q "\-\-answer is not an option of .start." "$tmp/err"'
ok "an unknown verb or option: exit 2" \
  'code 2 "$rig" task frob >"$tmp/out" 2>"$tmp/err" && code 2 task list --frob'
ok "a bad --timeout: exit 2" 'code 2 task list --timeout 0 && code 2 task list --timeout x'
for bad in "http://127.0.0.1:$port" "tcp://127.0.0.1" "tcp://127.0.0.1:" "tcp://:$port" \
  "tcp://127.0.0.1:99999" "tcp://127.0.0.1:0" "tcp://::1:$port" "tcp://[::1]$port" "127.0.0.1:$port"; do
  ok "a bad --url ($bad): exit 2" \
    'code 2 "$rig" task list --url "$bad" >"$tmp/out" 2>"$tmp/err" && grep -q "is not tcp://HOST:PORT" "$tmp/err"'
done
ok "no URL at all: exit 2" \
  'code 2 "$rig" task list >"$tmp/out" 2>"$tmp/err" && grep -q "RIG_ENV_URL" "$tmp/err"'
ok "a bad \$RIG_ENV_URL: exit 2, naming it" \
  'code 2 env RIG_ENV_URL=nonsense "$rig" task list >"$tmp/out" 2>"$tmp/err" && grep -q "RIG_ENV_URL .nonsense." "$tmp/err"'
ok "--help: usage on stdout, exit 0" \
  '"$rig" task --help >"$tmp/out" 2>"$tmp/err" && grep -q "^usage: rig task list" "$tmp/out" && "$rig" task grade --help >"$tmp/out" && grep -q "answer-file" "$tmp/out"'

# -------------------------------------------------------------- connection failures: exit 1
# A port nobody listens on: one the kernel just gave out and took back.
free_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 1)
ok "connection refused: exit 1, said so" \
  'code 1 "$rig" task list --url "tcp://127.0.0.1:$free_port" >"$tmp/out" 2>"$tmp/err" && grep -q "^rig task: cannot connect to 127.0.0.1:$free_port: Connection refused$" "$tmp/err"'
ok "an IPv6 URL is read ([::1]; the server is on 127.0.0.1 only): exit 1" \
  'code 1 "$rig" task list --url "tcp://[::1]:$free_port" >"$tmp/out" 2>"$tmp/err" && grep -q "^rig task: cannot connect to \[::1\]:$free_port: " "$tmp/err"'
if command -v python3 >/dev/null; then
  # A server that accepts (the kernel does, from its backlog) but never answers.
  python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$tmp/hang.port" &
  hang=$!
  for _ in $(seq 200); do [ -s "$tmp/hang.port" ] && break; sleep 0.05; done
  hang_port=$(cat "$tmp/hang.port")
  ok "a server that never answers: --timeout, exit 1" \
    'start=$SECONDS && code 1 "$rig" task grade --url "tcp://127.0.0.1:$hang_port" --answer x --timeout 1 >"$tmp/out" 2>"$tmp/err" && grep -q "^rig task: no answer to tasks.grade from 127.0.0.1:$hang_port within 1 s (--timeout)$" "$tmp/err" && [ $((SECONDS - start)) -lt 10 ]'
else
  n=$((n + 1)); echo "ok $n - # SKIP python3 not found"
fi

# A prompt of 12 MiB: one reply line far bigger than any read.
big=$tmp/big.json
{
  printf '{"name":"big","version":"1.0.0","tasks":[{"id":"big","prompt":"'
  head -c $((12 << 20)) /dev/zero | tr '\0' x
  printf '","grader":{"type":"exact","value":"x"}}]}\n'
} >"$big"
"$rig" env serve "$big" --port 0 >"$tmp/big.out" 2>"$tmp/big.err" &
big_srv=$!
if big_port=$(srv=$big_srv port_of "$tmp/big.out"); then
  ok "a 12 MiB prompt comes through whole" \
    '"$rig" task start --url "tcp://127.0.0.1:$big_port" --id big --out "$tmp/big.start" >"$tmp/big.prompt" 2>"$tmp/err" && [ "$(wc -c <"$tmp/big.prompt")" = $(((12 << 20) + 1)) ] && [ "$(tr -d x <"$tmp/big.prompt" | wc -c)" = 1 ] && [ "$(wc -c <"$tmp/big.start")" = $(((12 << 20) + 14)) ]'
else
  ok "a 12 MiB prompt comes through whole (the server did not start)" false
fi
kill "$big_srv" 2>/dev/null
wait "$big_srv" 2>/dev/null
big_srv=

ok "the server lived through it all" 'kill -0 "$srv" && task list && grep -q "^echo " "$tmp/out"'
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
srv=
ok "the server stops on SIGTERM with no sanitizer report" \
  '! grep -q "Sanitizer\|runtime error" "$tmp/serve.err"'

echo "1..$n"
exit $((failed > 0))
