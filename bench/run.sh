#!/usr/bin/env bash
# run.sh BUILD_DIR [--runs N] [--only round|parse|write|json|dispatch|mcp|fs|grep|html]
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
#     latency, pipelined throughput, memory;
#   - the file tools benchmark: bench_mcp drives `rig serve --root DIR` and
#     @modelcontextprotocol/server-filesystem over stdio with read_file,
#     edit_file and list_directory on files fs_fixture.sh writes into a temp
#     directory (TMPDIR, default /tmp: the file system the edits write to);
#   - the grep benchmark: bench_grep.sh runs `rig call grep` against ripgrep
#     (rg) on /usr/include, /usr/share and a small tree;
#   - the HTML to Markdown benchmark: bench_html2md (rig's html2md on a
#     generated ~5 MB page), then its Node peer (html2md_peer.mjs: Mozilla
#     Readability + Turndown on jsdom) on the same page when node is installed.
# --only round|parse|write runs one part of the JSON benchmark, --only json
# all of it, --only dispatch the dispatch benchmark alone, --only mcp the MCP
# server benchmark alone, --only fs the file tools benchmark, --only grep the
# grep benchmark, --only html the HTML to Markdown benchmark. Markdown goes to
# stdout (bench/RESULTS.md is made from it). `make bench` builds BUILD_DIR
# (build-bench) and calls this.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bench/run.sh BUILD_DIR [--runs N] [--only round|parse|write|json|dispatch|mcp|fs|grep|html]" >&2
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
json=0
dispatch=0
mcp=0
fs=0
grep=0
html=0
json_args=("${runs[@]}")
case $only in
  "") json=1; dispatch=1; mcp=1; fs=1; grep=1; html=1 ;;
  round|parse|write) json=1; json_args+=(--only "$only") ;;
  json) json=1 ;;
  dispatch) dispatch=1 ;;
  mcp) mcp=1 ;;
  fs) fs=1 ;;
  grep) grep=1 ;;
  html) html=1 ;;
  *) echo "run.sh: --only takes round, parse, write, json, dispatch, mcp, fs, grep or html" >&2; exit 2 ;;
esac

for exe in bench/bench_json bench/bench_dispatch bench/bench_mcp bench/mcp_echo_server bench/bench_html2md rig; do
  if [ ! -x "$build/$exe" ]; then
    echo "run.sh: $build/$exe not found; configure with -Dbench=true (make bench does)" >&2
    exit 1
  fi
done

# The C programs write their inputs and figures here for the Node peers; the
# file tools benchmark's files are here too.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rig-bench.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
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

# Between the parts of a full run: a blank line.
sep() {
  if [ $json = 1 ] || [ $dispatch = 1 ] || [ $mcp = 1 ]; then
    echo
  fi
}

if [ $fs = 1 ]; then
  sep
  # One copy of the files per server, so that each edits only its own; both
  # get absolute paths inside their directory. bench_mcp splits commands at
  # spaces, so the directory must have none.
  case $tmp in
    *" "*) echo "run.sh: the temp directory $tmp has a space; set TMPDIR" >&2; exit 1 ;;
  esac
  rig_exe=$(cd "$build" && pwd)/rig
  filesystem="$here/node_modules/@modelcontextprotocol/server-filesystem"
  note=""
  if [ -z "$node" ]; then
    note="_node not found: server-filesystem is skipped._"
  elif ! "$here/install-peers.sh"; then
    note="_server-filesystem could not be installed (bench/install-peers.sh): it is skipped._"
  fi
  # $1: the server's name in the tables, $2: its command, $3: its directory,
  # $4: the read tool, $5: edit_file's dry-run key, $6: the listing tool
  # that gives sizes, as rig's list_directory does (a second row pair), $7:
  # what the plain listing needs to give no sizes (rig: sizes=false; its
  # default prints them), $8: "grep" for a row of rig's grep on list/ (the
  # peer has no content search).
  fs_peer() {
    local d=$3
    "$here/fs_fixture.sh" "$d" 64
    fs_args+=(--stdio "$1" "$2" --tool "$4" --task read_file
              --args "{\"path\":\"$d/read.c\"}" --expect "/* end of read.c */")
    fs_args+=(--stdio "$1" "$2" --tool edit_file
              --args "{\"path\":\"$d/edit/edit-{slot}.txt\",\"edits\":[{\"oldText\":\"counter_alpha\",\"newText\":\"counter_omega\"}],\"$5\":false}"
              --expect "+    total += counter_omega;"
              --alt-args "{\"path\":\"$d/edit/edit-{slot}.txt\",\"edits\":[{\"oldText\":\"counter_omega\",\"newText\":\"counter_alpha\"}],\"$5\":false}"
              --alt-expect "+    total += counter_alpha;")
    fs_args+=(--stdio "$1" "$2" --tool list_directory
              --args "{\"path\":\"$d/list\"$7}" --expect "entry-089.txt")
    fs_args+=(--stdio "$1" "$2" --tool "$6" --task "list_directory, sizes"
              --args "{\"path\":\"$d/list\"}" --expect "entry-089.txt")
    if [ "${8:-}" = grep ]; then
      fs_args+=(--stdio "$1" "$2" --tool grep --task "grep, 100 entries"
                --args "{\"pattern\":\"strlen\\\\(name\\\\)\",\"path\":\"$d/list\"}"
                --expect "entry-089.txt")
    fi
  }
  fs_args=()
  fs_peer rig "$rig_exe serve --root $tmp/fs-rig" "$tmp/fs-rig" read_file dry_run list_directory \
    ',"sizes":false' grep
  if [ -z "$note" ]; then
    fs_peer server-filesystem "$node $filesystem/dist/index.js $tmp/fs-server-filesystem" \
      "$tmp/fs-server-filesystem" read_text_file dryRun list_directory_with_sizes ""
  fi
  "$build/bench/bench_mcp" "${runs[@]}" --inflight 64 --vs server-filesystem \
    --title "rig file tools benchmark: rig serve against server-filesystem over stdio" \
    "${fs_args[@]}"
  echo
  if [ -n "$note" ]; then
    echo "$note"
  else
    version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$filesystem/package.json" | head -n 1)
    echo "server-filesystem $version on node $("$node" --version) (its own build, as npm ships it). The files on $(df -T "$tmp" | awk 'NR == 2 {print $2}') (${TMPDIR:-/tmp})."
  fi
  # The same search as the grep row, done the way a tool that spawns rg
  # does it: one rg process a call (median wall time of 101).
  if command -v rg >/dev/null; then
    spawn=()
    for ((i = 0; i < 101; i++)); do
      t0=${EPOCHREALTIME/./}
      rg --no-config -l 'strlen\(name\)' "$tmp/fs-rig/list" >/dev/null || true
      t1=${EPOCHREALTIME/./}
      spawn+=($((t1 - t0)))
    done
    med=$(printf '%s\n' "${spawn[@]}" | sort -n | sed -n 51p)
    echo
    echo "The grep row's search by spawning rg instead (\`rg -l 'strlen\\(name\\)' list/\`, one process a call, as a tool that shells out to rg does): median $((med / 1000)).$(printf %03d $((med % 1000))) ms a call, sequential."
  fi
fi

if [ $grep = 1 ]; then
  if [ $json = 1 ] || [ $dispatch = 1 ] || [ $mcp = 1 ] || [ $fs = 1 ]; then
    echo
  fi
  grep_runs=()
  if [ ${#runs[@]} -gt 0 ]; then
    grep_runs=(--runs "${runs[1]}")
  fi
  "$here/bench_grep.sh" "$build/rig" "${grep_runs[@]}"
fi

if [ $html = 1 ]; then
  if [ $json = 1 ] || [ $dispatch = 1 ] || [ $mcp = 1 ] || [ $fs = 1 ] || [ $grep = 1 ]; then
    echo
  fi
  "$build/bench/bench_html2md" --dump "$tmp" "${runs[@]}"
  echo
  if [ -z "$node" ]; then
    echo "_node not found: the Readability + Turndown peer is skipped._"
  elif ! "$here/install-peers.sh"; then
    echo "_Readability, Turndown or jsdom could not be installed (bench/install-peers.sh): the peer is skipped._"
  else
    "$node" "$here/html2md_peer.mjs" "$tmp"
  fi
fi
