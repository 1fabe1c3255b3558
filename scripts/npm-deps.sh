#!/usr/bin/env bash
# npm-deps.sh [DIR] — installs the npm packages the integration tests need
# (the official MCP SDK, ...) into DIR/node_modules (default
# tests/integration), at the versions DIR/package-lock.json pins.
#
# Idempotent: runs `npm ci` only when node_modules is missing or was
# installed from another package-lock.json (a stamp keeps the lock's hash).
# Fails with a clear message when node (>= 18) or npm is missing. Node and
# npm come with the machine (NodeSource's nodejs, which bundles npm), not
# from scripts/deps.sh: Debian's npm package conflicts with that nodejs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/tests/integration}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "npm-deps.sh: node and npm are needed for the integration tests" >&2
  echo "npm-deps.sh: install Node.js >= 18 with npm (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  echo "npm-deps.sh: Node.js $(node --version) is too old; the MCP SDK needs >= 18" >&2
  exit 1
fi

lock="$dir/package-lock.json"
stamp="$dir/node_modules/.rig-lock-sha256"
want=$(sha256sum "$lock" | cut -d' ' -f1)

install() {
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  echo "npm-deps.sh: npm ci in $dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$want" >"$stamp"
}

# Two test runs at once must not install over each other.
if command -v flock >/dev/null; then
  exec 9>"$dir/.npm-deps.lock"
  flock 9
fi
install
