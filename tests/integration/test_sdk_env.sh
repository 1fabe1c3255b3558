#!/usr/bin/env bash
# test_sdk_env.sh RIG — `rig env serve examples/tasks.json` with the
# official MCP TypeScript SDK as the agent's tool client (sdk_env_tools.mjs):
# the "tools" binding of a started task, its bearer token, grep, edit_file
# and shell in the session's workspace, and the grade over the control
# channel. Installs the SDK first (scripts/npm-deps.sh). TAP output.
set -euo pipefail
rig=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tasks=$(realpath "$here/../../examples/tasks.json")
if ! "$here/../../scripts/npm-deps.sh" "$here" >&2; then
  echo "Bail out! the MCP SDK could not be installed (see above)"
  exit 1
fi
cd "$here"
exec node sdk_env_tools.mjs "$rig" "$tasks"
