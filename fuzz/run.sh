#!/usr/bin/env bash
# fuzz/run.sh BUILD_DIR SECONDS — runs each libFuzzer target for SECONDS.
#
# Environment:
#   FUZZ_RUNS=N       run N executions per target instead of SECONDS (-runs=N)
#   FUZZ_TARGETS="…"  which targets (default: every fuzz_* the build made)
#   FUZZ_JOBS=J       J parallel processes per target (libFuzzer -jobs/-workers);
#                     with FUZZ_RUNS the N executions are split between them
#   FUZZ_ARGS="…"     extra libFuzzer flags
#
# Corpora: new inputs go to BUILD_DIR/fuzz-corpus/TARGET (writable, first on
# the command line); the committed seeds in fuzz/corpus/TARGET and, for
# fuzz_json_parse, ../shared/data/JSONTestSuite/test_parsing (when present)
# are read only. Crashes land in BUILD_DIR/fuzz-artifacts/TARGET/ and make the
# script exit 1 after all targets ran. Per target it prints the executions,
# the time and libFuzzer's last coverage line.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [SECONDS]   (env: FUZZ_RUNS, FUZZ_TARGETS, FUZZ_JOBS, FUZZ_ARGS)" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
suite="$here/../../shared/data/JSONTestSuite/test_parsing"
# every fuzz_* executable the build made
default_targets() {
  for f in "$build"/fuzz/fuzz_*; do
    if [ -f "$f" ] && [ -x "$f" ]; then basename "$f"; fi
  done | tr '\n' ' '
}
targets=${FUZZ_TARGETS:-$(default_targets)}
if [ -z "${targets// }" ]; then
  echo "run.sh: no fuzz targets in $build/fuzz (configure with -Dfuzz=true and run ninja)" >&2
  exit 1
fi
jobs=${FUZZ_JOBS:-1}

# A sanitizer report stops the run so the input is kept; leaks count too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

max_len() {
  case $1 in
    fuzz_json_parse) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

status=0
summary=()
for t in $targets; do
  bin="$build/fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "run.sh: $bin is missing (configure with -Dfuzz=true and run ninja)" >&2
    status=1
    continue
  fi
  corpus="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t"
  logdir="$build/fuzz-logs/$t"
  mkdir -p "$corpus" "$artifacts" "$logdir"
  rm -f "$logdir"/fuzz-*.log
  seeds=("$here/corpus/$t")
  if [ "$t" = fuzz_json_parse ] && [ -d "$suite" ]; then
    seeds+=("$suite")
  fi
  args=(-max_len="$(max_len "$t")" -timeout=60 -print_final_stats=1
        -artifact_prefix="$artifacts/")
  if [ -f "$here/dict/$t.dict" ]; then
    args+=(-dict="$here/dict/$t.dict")
  fi
  if [ -n "${FUZZ_RUNS:-}" ]; then
    args+=(-runs=$(( (FUZZ_RUNS + jobs - 1) / jobs )))
  else
    args+=(-max_total_time="$seconds")
  fi
  # shellcheck disable=SC2206
  extra=(${FUZZ_ARGS:-})
  log="$logdir/run.log"
  if [ -n "${FUZZ_RUNS:-}" ]; then what="$FUZZ_RUNS runs"; else what="$seconds s"; fi
  echo "== $t: $what, $jobs job(s), log $log"
  start=$(date +%s)
  if [ "$jobs" -gt 1 ]; then
    (cd "$logdir" && "$bin" "${args[@]}" "${extra[@]}" -jobs="$jobs" -workers="$jobs" \
       "$corpus" "${seeds[@]}") >"$log" 2>&1
    rc=$?   # libFuzzer copies each job's fuzz-J.log into its own output
  else
    "$bin" "${args[@]}" "${extra[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1
    rc=$?
  fi
  elapsed=$(( $(date +%s) - start ))
  # "Done N runs in S second(s)", once per job
  execs=$(grep -o '^Done [0-9]* runs' "$log" | awk '{s += $2} END {print s + 0}')
  if [ "$execs" -eq 0 ]; then   # killed or crashed before "Done": the last status line
    execs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
    execs=${execs:-0}
  fi
  cov=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 |
        grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+' || true)
  crashes=$(find "$artifacts" -type f -newermt "@$start" | wc -l)
  verdict=PASS
  if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ] || grep -q 'FUZZ CHECK FAILED\|ERROR: AddressSanitizer\|runtime error:' "$log"; then
    verdict=FAIL
    status=1
    echo "   FAILED (exit $rc): see $log; artifacts:"
    find "$artifacts" -type f -newermt "@$start" -printf '     %p\n'
    grep -m 3 -A 2 'FUZZ CHECK FAILED\|ERROR: AddressSanitizer\|runtime error:' "$log" | sed 's/^/     /'
  fi
  rate=$(( elapsed > 0 ? execs / elapsed : execs ))
  line=$(printf '%-16s execs %10s  time %5ss  exec/s %7s  %s' "$t" "$execs" "$elapsed" "$rate" "$cov")
  echo "   $line"
  summary+=("$line")
  echo "$verdict $t"   # one line a target, for .ci/run's tally
done

echo "== summary"
for l in "${summary[@]}"; do echo "   $l"; done
if [ $status -ne 0 ]; then
  echo "== FINDINGS: see $build/fuzz-artifacts/ (reproduce: BINARY FILE)" >&2
fi
exit $status
