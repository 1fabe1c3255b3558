#!/usr/bin/env bash
# test_sdk_approval.sh RIG — `rig serve --policy ask` against the official
# MCP TypeScript SDK client answering elicitation, over stdio and
# Streamable HTTP (sdk_approval.mjs): approvals, ask_user and plan mode.
# Installs the SDK first (scripts/npm-deps.sh). TAP output.
set -euo pipefail
rig=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
if ! "$here/../../scripts/npm-deps.sh" "$here" >&2; then
  echo "Bail out! the MCP SDK could not be installed (see above)"
  exit 1
fi
cd "$here"
exec node sdk_approval.mjs "$rig"
