#!/usr/bin/env bash
# fs_fixture.sh DIR [SLOTS] — the files the file tools benchmark works on
# (run.sh --only fs), written into DIR (created; it must not exist yet):
#
#   DIR/read.c           a 200-line C-like source file (~6 KB), read whole
#                        by read_file; its last line is "/* end of read.c */"
#   DIR/list/            100 entries for list_directory: 90 files entry-NNN.txt
#                        of 0-2 KB and 10 directories dir-NN/ (each with one file)
#   DIR/edit/edit-K.txt  K = 0..SLOTS-1 (default 64): one file per call in
#                        flight, for edit_file. Each holds the line
#                        "    total += counter_alpha;" once, which the edits
#                        turn into "counter_omega" and back.
#
# The same content every time (no randomness), so both servers of a run and
# runs on different days see the same files. run.sh makes one copy per server,
# so that each server's edits change only its own files.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bench/fs_fixture.sh DIR [SLOTS]" >&2
  exit 2
fi
dir=$1
slots=${2:-64}
mkdir "$dir" "$dir/list" "$dir/edit"

# 200 lines: a header, then functions of ten lines each, tab-indented, with
# string literals, escapes and comments, as source files have.
{
  printf '/* read.c — a source file for the file tools benchmark. */\n'
  printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n'
  n=5
  f=0
  while [ $n -lt 194 ]; do
    printf 'static int step_%03d(const char *name, int count) {\n' $f
    printf '\t/* step %d: count the "%s" entries, twice */\n' $f '%s'
    printf '\tint total = 0;\n'
    printf '\tfor (int i = 0; i < count; i++)\n'
    printf '\t\ttotal += (int)strlen(name) * %d;\n' $((f + 1))
    printf '\tif (total > %d)\n' $((f * 1000 + 7))
    printf '\t\tprintf("step %d: %%s\\t%%d\\n", name, total);\n' $f
    printf '\treturn total;\n'
    printf '}\n\n'
    n=$((n + 10))
    f=$((f + 1))
  done
  # 5 + 19*10 = 195 lines so far
  printf 'int main(void) {\n'
  printf '\treturn step_000("main", 1) > 0 ? 0 : 1;\n'
  printf '}\n'
  printf '\n'
  printf '/* end of read.c */\n'
} >"$dir/read.c"

# An ordinary text: 40 lines, the edited line in the middle.
edit_text() {
  local i
  for ((i = 1; i <= 20; i++)); do
    printf 'line %02d: unchanged text that the edit leaves alone\n' "$i"
  done
  printf 'void tally(void) {\n'
  printf '    total += counter_alpha;\n'
  printf '}\n'
  for ((i = 24; i <= 40; i++)); do
    printf 'line %02d: unchanged text that the edit leaves alone\n' "$i"
  done
}
edit_text >"$dir/edit/edit-0.txt"
for ((k = 1; k < slots; k++)); do
  cp "$dir/edit/edit-0.txt" "$dir/edit/edit-$k.txt"
done

for ((i = 0; i < 90; i++)); do
  head -c $(((i * 23) % 2048)) "$dir/read.c" >"$dir/list/entry-$(printf %03d "$i").txt"
done
for ((i = 0; i < 10; i++)); do
  mkdir "$dir/list/dir-$(printf %02d "$i")"
  printf 'x\n' >"$dir/list/dir-$(printf %02d "$i")/inner.txt"
done
