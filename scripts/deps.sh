#!/usr/bin/env bash
# deps.sh — installs the Debian packages rig's build and tests need.
#
# Idempotent: does nothing when everything is present. As root it installs
# what is missing with apt-get; otherwise it prints the exact command to run
# and fails, so a build never half-works for lack of a package.
set -euo pipefail

packages=(
  build-essential pkg-config meson ninja-build   # compiler, build system
  libcmocka-dev                                  # unit tests
  libjansson-dev libjson-c-dev                   # JSON oracle (tests, fuzzing) and benchmark peers
  clang libclang-rt-14-dev                       # libFuzzer targets, sanitizer builds
  valgrind                                       # memory checks of the unit tests
  libpcre2-dev                                   # JSON Schema "pattern" (and grep, later)
  tzdata                                         # IANA zones for get_current_time / convert_time
  libuv1-dev                                     # the event loop: stdio, TCP, pipes, timers (MCP server)
  ripgrep                                        # the grep benchmark's peer (bench/)
  libcurl4-openssl-dev                           # fetch and web_search (HTTP client, SSRF check at connect)
  libxml2-dev                                    # fetch: the HTML parser under HTML-to-Markdown
  tmux                                           # a terminal for the approval prompt tests (tests/cli)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing packages: ${missing[*]}" >&2
  echo "deps.sh: run as root:  apt-get update && $cmd" >&2
  exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $cmd >/dev/null 2>&1; then
  apt-get update -q >/dev/null
  $cmd >/dev/null
fi
