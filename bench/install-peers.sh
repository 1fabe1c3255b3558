#!/usr/bin/env bash
# install-peers.sh — installs the npm packages the Node peers need (Ajv for
# dispatch_peer.mjs, @modelcontextprotocol/server-everything and
# @modelcontextprotocol/server-filesystem for bench_mcp; @mozilla/readability,
# turndown, turndown-plugin-gfm and jsdom for html2md_peer.mjs) into
# bench/node_modules, at the versions package-lock.json pins. Idempotent:
# does nothing when they are there. node_modules/ is not committed
# (bench/.gitignore). run.sh calls this when a peer is missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/node_modules/ajv/package.json" ] &&
   [ -f "$here/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ] &&
   [ -f "$here/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" ] &&
   [ -f "$here/node_modules/@mozilla/readability/Readability.js" ] &&
   [ -f "$here/node_modules/turndown/package.json" ] &&
   [ -f "$here/node_modules/turndown-plugin-gfm/package.json" ] &&
   [ -f "$here/node_modules/jsdom/package.json" ]; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "install-peers.sh: npm not found (Debian: apt-get install npm)" >&2
  exit 1
fi
echo "install-peers.sh: installing the Node peers' packages into $here/node_modules" >&2
cd "$here"
npm ci --no-audit --no-fund --loglevel=error >&2
