#!/usr/bin/env bash
# run.sh BUILD_DIR [--runs N] [--only round|parse|write|json|dispatch|mcp]
#
# The benchmarks in one go:
#   - the JSON benchmark: bench_json (rig vs jansson vs json-c), then the
#     Node peer (json_round.mjs) on the same inputs when node is installed;
#   - the dispatch benchmark: bench_dispatch (validation and one tool call),
#     then its Node + Ajv peer (dispatch_peer.mjs) on the same inputs, when
#     node is installed (install-peers.sh fetches Ajv into bench/node_modules
#     the first time);
#   - the MCP server benchmark: bench_mcp drives rig's echo server
#     (mcp_echo_server) and @modelcontextprotocol/server-everything (when node
#     is installed) over stdio and Streamable HTTP: cold start, tools/call
#     latency, pipelined throughput, memory.
# --only round|parse|write runs one part of the JSON benchmark, --only json
# all of it, --only dispatch the dispatch benchmark alone, --only mcp the MCP
# server benchmark alone. Markdown goes to
# stdout (bench/RESULTS.md is made from it). `make bench` builds BUILD_DIR
# (build-bench) and calls this.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bench/run.sh BUILD_DIR [--runs N] [--only round|parse|write|json|dispatch|mcp]" >&2
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
mcp=1
json_args=("${runs[@]}")
case $only in
  "") ;;
  round|parse|write) dispatch=0; mcp=0; json_args+=(--only "$only") ;;
  json) dispatch=0; mcp=0 ;;
  dispatch) json=0; mcp=0 ;;
  mcp) json=0; dispatch=0 ;;
  *) echo "run.sh: --only takes round, parse, write, json, dispatch or mcp" >&2; exit 2 ;;
esac

for exe in bench_json bench_dispatch bench_mcp mcp_echo_server; do
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

if [ $mcp = 1 ]; then
  if [ $json = 1 ] || [ $dispatch = 1 ]; then
    echo
  fi
  # Commands are split at spaces by bench_mcp (no shell); {port} is a free
  # port it picks for each start.
  echo_server="$build/bench/mcp_echo_server"
  url="http://127.0.0.1:{port}/mcp"
  servers=(--stdio rig "$echo_server" --stdio "rig, inline echo" "$echo_server --inline")
  everything="$here/node_modules/@modelcontextprotocol/server-everything"
  note=""
  if [ -z "$node" ]; then
    note="_node not found: server-everything is skipped._"
  elif ! "$here/install-peers.sh"; then
    note="_server-everything could not be installed (bench/install-peers.sh): it is skipped._"
  else
    servers+=(--stdio server-everything "$node $everything/dist/index.js stdio")
  fi
  servers+=(--http rig "$echo_server --http 127.0.0.1:{port}" "$url")
  servers+=(--http "rig, inline echo" "$echo_server --inline --http 127.0.0.1:{port}" "$url")
  if [ -z "$note" ]; then
    servers+=(--http server-everything "$node $everything/dist/index.js streamableHttp" "$url")
  fi
  "$build/bench/bench_mcp" "${runs[@]}" --vs server-everything "${servers[@]}"
  echo
  if [ -n "$note" ]; then
    echo "$note"
  else
    version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$everything/package.json" | head -n 1)
    echo "server-everything $version on node $("$node" --version) (its own build, as npm ships it)."
  fi
fi
