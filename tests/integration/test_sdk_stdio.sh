#!/usr/bin/env bash
# test_sdk_stdio.sh RIG [CONFORMANCE_SERVER] — `rig serve` against the
# official MCP TypeScript SDK's stdio client (sdk_stdio.mjs); with
# CONFORMANCE_SERVER (examples/conformance_server) also elicitation and
# sampling. Installs the SDK first (scripts/npm-deps.sh). TAP output.
set -euo pipefail
rig=$(realpath "$1")
example=${2:-}
if [ -e "$example" ]; then
  example=$(realpath "$example")
fi
here=$(cd "$(dirname "$0")" && pwd)
if ! "$here/../../scripts/npm-deps.sh" "$here" >&2; then
  echo "Bail out! the MCP SDK could not be installed (see above)"
  exit 1
fi
cd "$here"
exec node sdk_stdio.mjs "$rig" ${example:+"$example"}
