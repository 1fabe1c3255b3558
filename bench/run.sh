#!/usr/bin/env bash
# run.sh BUILD_DIR [--runs N] [--only round|parse|write|json|dispatch]
#
# The benchmarks in one go:
#   - the JSON benchmark: bench_json (rig vs jansson vs json-c), then the
#     Node peer (json_round.mjs) on the same inputs when node is installed;
#   - the dispatch benchmark: bench_dispatch (validation and one tool call),
#     then its Node + Ajv peer (dispatch_peer.mjs) on the same inputs, when
#     node is installed (install-peers.sh fetches Ajv into bench/node_modules
#     the first time).
# --only round|parse|write runs one part of the JSON benchmark, --only json
# all of it, --only dispatch the dispatch benchmark alone. Markdown goes to
# stdout (bench/RESULTS.md is made from it). `make bench` builds BUILD_DIR
# (build-bench) and calls this.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bench/run.sh BUILD_DIR [--runs N] [--only round|parse|write|json|dispatch]" >&2
  exit 2
fi
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

# Which benchmarks, and the options each program takes.
only=""
runs=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --only) only=${args[i + 1]:-}; i=$((i + 1)) ;;
    --runs) runs=(--runs "${args[i + 1]:-}"); i=$((i + 1)) ;;
  esac
done
json=1
dispatch=1
json_args=("${runs[@]}")
case $only in
  "") ;;
  round|parse|write) dispatch=0; json_args+=(--only "$only") ;;
  json) dispatch=0 ;;
  dispatch) json=0 ;;
  *) echo "run.sh: --only takes round, parse, write, json or dispatch" >&2; exit 2 ;;
esac

for exe in bench_json bench_dispatch; do
  if [ ! -x "$build/bench/$exe" ]; then
    echo "run.sh: $build/bench/$exe not found; configure with -Dbench=true (make bench does)" >&2
    exit 1
  fi
done

# The C programs write their inputs and figures here for the Node peers.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rig-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
node=$(command -v node || true)

if [ $json = 1 ]; then
  "$build/bench/bench_json" --dump "$tmp" "${json_args[@]}"
  echo
  if [ -n "$node" ]; then
    "$node" "$here/json_round.mjs" "$tmp" "${json_args[@]}"
  else
    echo "_node not found: the Node (V8) peer is skipped._"
  fi
  echo
fi

if [ $dispatch = 1 ]; then
  "$build/bench/bench_dispatch" --dump "$tmp" "${runs[@]}"
  echo
  if [ -z "$node" ]; then
    echo "_node not found: the Node + Ajv peer is skipped._"
  elif ! "$here/install-peers.sh"; then
    echo "_Ajv could not be installed (bench/install-peers.sh): the Node + Ajv peer is skipped._"
  else
    "$node" "$here/dispatch_peer.mjs" "$tmp" "${runs[@]}"
  fi
fi
