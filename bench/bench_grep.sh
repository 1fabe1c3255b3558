#!/usr/bin/env bash
# bench_grep.sh RIG [--runs N] [--no-check] — rig's grep tool against ripgrep.
#
# Each search runs as a process, as a person or an agent's shell would run
# it: `RIG call grep ... --root TREE` against `rg -l ...` in TREE, on
# /usr/include and /usr/share (a literal, a case-insensitive literal, a
# regex with \b, \s and \w, and a rare literal that one to three files
# hold), then on a ~20-file tree copied from /usr/include into a temp dir
# (there the start of the process is most of the time: the rig process
# against the rg process).
#
# Same work on both sides. rig's grep skips hidden files, .git, files its
# ignore files (.gitignore in a git repository, .ignore, .rgignore) name,
# binary files and files over 1 GiB, and follows no symlinks; rg does the
# same by default, with `--max-filesize 1G` for the size. Both list the
# files that match (rig: output_mode files_with_matches and a head_limit
# above any count; rg: -l). rig's regex is PCRE2 with UTF and without UCP,
# so \b \w \s are ASCII; rg gets the pattern behind (?-u), which means the
# same in its engine. rg runs with --no-config, so no RIPGREP_CONFIG_PATH
# changes it.
#
# Timing: one untimed run of each first (it warms the page cache), then
# --runs runs (default 5; the small tree 10 times as many), rig and rg in
# turns, the order swapped every run; the median wall time (bash's
# EPOCHREALTIME around the process) and the median CPU time of the process
# (user + system, all threads, from `times`). Outputs go to /dev/null.
#
# Check (outside the timing): both must list the same files (rig runs with
# --max-output 0, so no output cap cuts its list). --no-check skips that.
# Markdown goes to stdout.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: bench/bench_grep.sh RIG_BINARY [--runs N] [--no-check]" >&2
  exit 2
fi
rig=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
runs=5
check=1
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:?--runs takes a number}; shift 2 ;;
    --no-check) check=0; shift ;;
    *) echo "bench_grep.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
export LC_ALL=C # sort order, and grep -E on any bytes

echo "# rig grep vs ripgrep"
echo
rg=$(command -v rg || true)
if [ -z "$rg" ]; then
  echo "_rg (ripgrep) not found: the grep benchmark is skipped (Debian: apt-get install ripgrep)._"
  exit 0
fi

# The small tree: the first 20 headers of /usr/include, by name.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rig-bench-grep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
small=$tmp/small
mkdir "$small"
find /usr/include -maxdepth 1 -type f -name '*.h' | sort | head -n 20 |
  while read -r f; do cp "$f" "$small/"; done

# The searches: tree | what | pattern | rig arguments | rg options (the
# pattern follows them). The pattern for rg comes from the fourth field.
searches=(
  "/usr/include|literal|uint32_t|fixed_strings:=true|-F"
  "/usr/include|literal, case-insensitive|MUTEX|fixed_strings:=true case_insensitive:=true|-F -i"
  "/usr/include|regex|\\bstruct\\s+\\w+_t\\b||(?-u)"
  "/usr/include|rare literal (1-3 files)|PCRE2_MAJOR|fixed_strings:=true|-F"
  "/usr/share|literal|License|fixed_strings:=true|-F"
  "/usr/share|literal, case-insensitive|license|fixed_strings:=true case_insensitive:=true|-F -i"
  "/usr/share|regex|\\bstruct\\s+\\w+_t\\b||(?-u)"
  "/usr/share|rare literal (1-3 files)|Bourne-Again|fixed_strings:=true|-F"
  "$small|literal|size_t|fixed_strings:=true|-F"
  "$small|regex|\\bsize_t\\s+\\w+\\b||(?-u)"
)

rig_cmd=()
rg_cmd=()
set_cmds() { # pattern, rig arguments, rg options
  local pattern=$1 rigargs=$2 rgopts=$3 rgpat=$1
  local a words
  rig_cmd=("$rig" call --max-output 0 grep "pattern=$pattern" output_mode=files_with_matches)
  read -r -a words <<<"$rigargs"
  rig_cmd+=("${words[@]}")
  rg_cmd=("$rg" --no-config -l --max-filesize 1G)
  read -r -a words <<<"$rgopts"
  for a in "${words[@]}"; do
    if [ "$a" = "(?-u)" ]; then rgpat="(?-u)$pattern"; else rg_cmd+=("$a"); fi
  done
  rg_cmd+=(-e "$rgpat")
}

# The CPU time of all waited-for children so far (user + system), in
# microseconds, into cpu_now. No subshell: its own CPU time would count.
cpu_now=0
children_cpu() {
  local u s
  times >"$tmp/times" # "0m0.012s 0m0.004s" (the shell), then its children
  { read -r _; read -r u s; } <"$tmp/times"
  cpu_now=0
  add_us "$u"
  add_us "$s"
}
add_us() { # 1m2.345s: added to cpu_now
  local v=${1%s}
  local m=${v%%m*} sec=${v#*m}
  cpu_now=$((cpu_now + 10#$m * 60000000 + 10#${sec%.*} * 1000000 + 10#${sec#*.} * 1000))
}

# Runs "$@" once to /dev/null; sets wall_us and cpu_us.
wall_us=0
cpu_us=0
time_once() {
  local c0 t0 t1 rc=0
  children_cpu
  c0=$cpu_now
  t0=${EPOCHREALTIME/./}
  "$@" >/dev/null || rc=$?
  t1=${EPOCHREALTIME/./}
  children_cpu
  wall_us=$((t1 - t0))
  cpu_us=$((cpu_now - c0))
  return $rc
}

median() { # numbers... → the median (the lower middle of an even count)
  printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"
}
minmax() {
  local s
  s=$(printf '%s\n' "$@" | sort -n)
  echo "$(echo "$s" | head -n 1) $(echo "$s" | tail -n 1)"
}
ms() { # microseconds → ms with one decimal (three under 10 ms)
  if [ "$1" -lt 10000 ]; then
    printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
  else
    printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100))
  fi
}
ratio() { # a / b with one decimal
  local r=$((($1 * 100 + $2 / 2) / $2))
  printf '%d.%02d' $((r / 100)) $((r % 100))
}

# rig's notes: the lines of its answer that are not file names.
notes_re='^(\[(truncated: |[0-9]+ binary files? skipped|[0-9]+ files? larger than|The search stopped|[0-9]+ entr(y|ies) could not|Directories more than|The pattern hit|\.\.\. [0-9]+ characters cut)|No matches for |No results at offset )'

# The files rig lists (its answer in $2, without the notes), sorted, into $1.
rig_files() {
  grep -v -E "$notes_re" "$2" | grep . | sort >"$1" || true
}

# Lines on stdin as one line of `code` spans.
code_list() {
  # shellcheck disable=SC2016 # the backquotes are markdown
  sed 's/.*/`&`/' | paste -sd ' '
}

machine() {
  local model
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| CPU | ${model:-unknown} ($(nproc) online) |"
  echo "| kernel | $(uname -srm) |"
  echo "| rig | $("$rig" --version 2>&1 | sed -n 1p) (\`$rig\`) |"
  echo "| ripgrep | $("$rg" --version | sed -n 1p) (\`$rg\`) |"
  echo "| load average at start | $(cat /proc/loadavg) |"
  echo "| method | median of $runs runs ($((runs * 10)) on the small tree) after one untimed run; rig and rg in turns |"
}

machine
echo
echo "rig: \`rig call --max-output 0 grep pattern=P output_mode=files_with_matches [fixed_strings:=true] [case_insensitive:=true] head_limit:=1000000 --root TREE\`;"
echo "rg: \`rg --no-config -l --max-filesize 1G [-F] [-i] -e P\` in TREE (regex: \`-e '(?-u)P'\`)."
echo "Small tree: $(find "$small" -type f | wc -l) headers copied from /usr/include ($(du -sk "$small" | cut -f1) KB)."
echo
echo "| tree | search | pattern | files rig / rg | rig ms (median) | min - max | rg ms (median) | min - max | rig CPU ms | rg CPU ms | rg time / rig time |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"

footnotes=()
for s in "${searches[@]}"; do
  IFS='|' read -r tree what pattern rigargs rgopts <<<"$s"
  [ -d "$tree" ] || continue
  cd "$tree"
  set_cmds "$pattern" "$rigargs" "$rgopts"
  n=$runs
  label=$tree
  if [ "$tree" = "$small" ]; then
    n=$((runs * 10))
    label="small tree"
  fi
  # Untimed: warms the page cache (and gives the check rig's answer).
  "${rig_cmd[@]}" head_limit:=1000000 --root "$tree" >"$tmp/full.txt"
  "${rg_cmd[@]}" >/dev/null || true

  rig_w=() rig_c=() rg_w=() rg_c=()
  for ((r = 0; r < n; r++)); do
    for side in $((r % 2)) $((1 - r % 2)); do
      if [ "$side" = 0 ]; then
        time_once "${rig_cmd[@]}" head_limit:=1000000 --root "$tree" ||
          { echo "bench_grep.sh: rig call grep failed in $tree" >&2; exit 1; }
        rig_w+=("$wall_us") rig_c+=("$cpu_us")
      else
        # rg exits 1 when nothing matches
        time_once "${rg_cmd[@]}" || true
        rg_w+=("$wall_us") rg_c+=("$cpu_us")
      fi
    done
  done

  files="-"
  if [ $check = 1 ]; then
    rig_files "$tmp/rig.txt" "$tmp/full.txt"
    { "${rg_cmd[@]}" || true; } | sort >"$tmp/rg.txt"
    nrig=$(wc -l <"$tmp/rig.txt")
    nrg=$(wc -l <"$tmp/rg.txt")
    if cmp -s "$tmp/rig.txt" "$tmp/rg.txt"; then
      files="$nrig / $nrg, same"
    else
      files="**$nrig / $nrg, differ**"
      only_rig=$(comm -23 "$tmp/rig.txt" "$tmp/rg.txt")
      only_rg=$(comm -13 "$tmp/rig.txt" "$tmp/rg.txt")
      note="$label, $what: $(grep -c . <<<"$only_rig" || true) files only rig lists, $(grep -c . <<<"$only_rg" || true) only rg lists."
      [ -n "$only_rig" ] && note+=" Only rig (first 10): $(head -n 10 <<<"$only_rig" | code_list)."
      [ -n "$only_rg" ] && note+=" Only rg (first 10): $(head -n 10 <<<"$only_rg" | code_list)."
      footnotes+=("$note")
    fi
  fi
  # What rig says besides the files (binary files skipped, ...); not the cut.
  grep -E "$notes_re" "$tmp/full.txt" | grep -v -E '^\[\.\.\. [0-9]+ characters cut' >"$tmp/notes.txt" || true
  if [ -s "$tmp/notes.txt" ]; then
    footnotes+=("$label, $what: rig's notes: $(code_list <"$tmp/notes.txt")")
  fi

  rw=$(median "${rig_w[@]}")
  gw=$(median "${rg_w[@]}")
  read -r rmin rmax <<<"$(minmax "${rig_w[@]}")"
  read -r gmin gmax <<<"$(minmax "${rg_w[@]}")"
  rc=$(median "${rig_c[@]}")
  gc=$(median "${rg_c[@]}")
  echo "| $label | $what | \`$pattern\` | $files | $(ms "$rw") | $(ms "$rmin") - $(ms "$rmax") | $(ms "$gw") | $(ms "$gmin") - $(ms "$gmax") | $(ms "$rc") | $(ms "$gc") | $(ratio "$gw" "$rw")x |"
done
cd /
# What starting any process costs here, timed the same way: the floor of
# the small tree's figures.
spawn_w=()
for ((r = 0; r < runs * 10; r++)); do
  time_once /bin/true
  spawn_w+=("$wall_us")
done
echo
echo "Starting a process and waiting for it (\`/bin/true\`, timed the same way, median of $((runs * 10))): $(ms "$(median "${spawn_w[@]}")") ms."
echo
echo "rg time / rig time: above 1, rig is faster. CPU ms: the process's user + system time, all its threads (from bash's \`times\`, 1 ms resolution); beside the wall time it shows how much of the machine each used. $( [ $check = 1 ] || echo 'Files not compared (--no-check).')"
for f in "${footnotes[@]}"; do
  echo
  echo "- $f"
done
echo
echo "Load average at the end: $(cat /proc/loadavg)."
