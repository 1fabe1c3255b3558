#!/usr/bin/env bash
# run.sh BUILD_DIR [--runs N] [--only round|parse|write]
#
# The JSON benchmark in one go: bench_json (rig vs jansson vs json-c), then
# the Node peer (json_round.mjs) on the same inputs when node is installed.
# Markdown goes to stdout (bench/RESULTS.md is made from it). `make bench`
# builds BUILD_DIR (build-bench) and calls this.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bench/run.sh BUILD_DIR [--runs N] [--only round|parse|write]" >&2
  exit 2
fi
build=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
exe=$build/bench/bench_json
if [ ! -x "$exe" ]; then
  echo "run.sh: $exe not found; configure with -Dbench=true (make bench does)" >&2
  exit 1
fi

# bench_json writes its generated inputs and its figures here for the Node peer.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rig-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$exe" --dump "$tmp" "$@"
echo

if node=$(command -v node); then
  "$node" "$here/json_round.mjs" "$tmp" "$@"
else
  echo "_node not found: the Node (V8) peer is skipped._"
fi
