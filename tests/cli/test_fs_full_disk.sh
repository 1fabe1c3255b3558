#!/usr/bin/env bash
# test_fs_full_disk.sh RIG — the file tools that change files, on a real
# full disk and a real read-only file system, through `rig call`: every
# change that cannot be made fails with a message naming the cause, and
# leaves the original byte for byte as it was, with no temporary file
# behind. TAP output.
#
#   blocks   a 512 KiB tmpfs filled to the last page (ENOSPC on writing)
#   inodes   a tmpfs with 16 inodes, all used (ENOSPC on creating a file
#            or directory: tmpfs directories take no blocks, so this is
#            how create_directory meets a full disk)
#   ro       the blocks tmpfs remounted read-only (EROFS)
#   nobody   a root-owned tree written by uid 65534 (EACCES; root itself
#            passes every permission check)
#   immutable  chattr +i on the original (EPERM at the rename)
#
# Mounting needs root: without it the whole test is skipped ("1..0 #
# SKIP", which meson counts as skipped under the TAP protocol; exit 77
# would count as an error there).
set -u
rig=$1
tmp=$(mktemp -d)
chmod 755 "$tmp"
blocks=$tmp/blocks
inodes=$tmp/inodes
mkdir -p "$blocks" "$inodes" "$tmp/src"
cleanup() {
  chattr -i "$tmp/imm/orig.txt" 2>/dev/null
  mountpoint -q "$blocks" && umount "$blocks"
  mountpoint -q "$inodes" && umount "$inodes"
  rm -rf "$tmp"
}
trap cleanup EXIT
if ! mount -t tmpfs -o size=512k,mode=0755 tmpfs "$blocks" 2>/dev/null ||
   ! mount -t tmpfs -o size=1m,nr_inodes=16,mode=0755 tmpfs "$inodes" 2>/dev/null; then
  echo "1..0 # SKIP cannot mount a tmpfs here (needs root)"
  exit 0
fi

n=0
failed=0
rc=
out=
err=

# run WANT_STATUS COMMAND... : runs it, keeps stdout/stderr in $out/$err
run() {
  local want=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
  [ "$rc" = "$want" ]
}

ok() {
  n=$((n + 1))
  if eval "$2"; then echo "ok $n - $1"; else
    echo "not ok $n - $1"
    printf '%s\n' "status $rc" "stdout: ${out:0:600}" "stderr: ${err:0:600}" | sed 's/^/# /'
    failed=$((failed + 1))
  fi
}

skip() {
  n=$((n + 1))
  echo "ok $n - $1 # SKIP $2"
}

sha() { sha256sum "$1" | cut -c1-64; }

# same FILE : FILE still has the SHA-256 it had when remembered with keep
declare -A kept
keep() { kept[$1]=$(sha "$1"); }
same() { [ -f "$1" ] && [ "$(sha "$1")" = "${kept[$1]}" ]; }

# names DIR NAME... : DIR holds exactly these names (hidden ones included):
# no temporary file was left
names() {
  local dir=$1
  shift
  [ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]
}

# A text of N lines "line K".
lines() { seq -f 'line %g' "$1"; }

# ---- blocks: every page of the tmpfs in use --------------------------------
r=$blocks/r
mkdir "$r"
lines 800 >"$r/orig.txt" # 6492 bytes: its second page has room left
chmod 640 "$r/orig.txt"
keep "$r/orig.txt"
echo "move me" >"$tmp/src/m.txt"
keep "$tmp/src/m.txt"
dd if=/dev/zero of="$blocks/filler" bs=4k 2>/dev/null
big=$(head -c 20000 /dev/zero | tr '\0' 'a')
mid=$(head -c 9000 /dev/zero | tr '\0' 'b')

ok "blocks: the tmpfs is full" '[ "$(df --output=avail "$blocks" | tail -1 | tr -d " ")" = 0 ]'
ok "blocks: write_file replacing fails, no space, original unchanged" \
   'run 1 "$rig" call write_file --root "$r" path=orig.txt content="$big" &&
    [[ "$out" == *"No space left on device"* && "$out" == *"The original file is unchanged."* ]] &&
    same "$r/orig.txt" && names "$r" orig.txt'
ok "blocks: even one byte cannot be written in place of it" \
   'run 1 "$rig" call write_file --root "$r" path=orig.txt content=x &&
    [[ "$out" == *"No space left on device"* ]] && same "$r/orig.txt" && names "$r" orig.txt'
ok "blocks: write_file of a new file fails and creates nothing" \
   'run 1 "$rig" call write_file --root "$r" path=new.txt content="$big" &&
    [[ "$out" == *"No space left on device"* && "$out" == *"No file was created."* ]] &&
    names "$r" orig.txt'
ok "blocks: an append larger than the room left fails and is taken back whole" \
   'run 1 "$rig" call write_file --root "$r" path=orig.txt content="$mid" append:=true &&
    [[ "$out" == *"No space left on device"* && "$out" == *"Nothing was appended"* ]] &&
    same "$r/orig.txt" && names "$r" orig.txt'
ok "blocks: an append to a new file fails and leaves no file" \
   'run 1 "$rig" call write_file --root "$r" path=new.log content="$mid" append:=true &&
    [[ "$out" == *"No space left on device"* && "$out" == *"no file was created"* ]] &&
    names "$r" orig.txt'
ok "blocks: edit_file fails, no space, the file unchanged" \
   'run 1 "$rig" call edit_file --root "$r" path=orig.txt "edits:=[{\"oldText\":\"line 400\n\",\"newText\":\"LINE 400\n\"}]" &&
    [[ "$out" == *"No space left on device"* && "$out" == *"The file is unchanged."* ]] &&
    same "$r/orig.txt" && names "$r" orig.txt'
ok "blocks: edit_file dry_run still shows the diff (it writes nothing)" \
   'run 0 "$rig" call edit_file --root "$r" path=orig.txt dry_run:=true "edits:=[{\"oldText\":\"line 400\n\",\"newText\":\"LINE 400\n\"}]" &&
    [[ "$out" == *"+LINE 400"* ]] && same "$r/orig.txt"'
ok "blocks: move_file from another file system fails, source kept, nothing arrives" \
   'run 1 "$rig" call move_file --root "$r" --root "$tmp/src" source="$tmp/src/m.txt" destination=m.txt &&
    [[ "$out" == *"No space left on device"* && "$out" == *"Nothing was moved"* ]] &&
    same "$tmp/src/m.txt" && names "$r" orig.txt && names "$tmp/src" m.txt'
ok "blocks: move_file overwrite=true onto the original fails, both kept" \
   'run 1 "$rig" call move_file --root "$r" --root "$tmp/src" source="$tmp/src/m.txt" destination=orig.txt overwrite:=true &&
    [[ "$out" == *"No space left on device"* ]] &&
    same "$tmp/src/m.txt" && same "$r/orig.txt" && names "$r" orig.txt'
ok "blocks: the original keeps its mode" '[ "$(stat -c %a "$r/orig.txt")" = 640 ]'
ok "blocks: read_file still reads it" \
   'run 0 "$rig" call read_file --root "$r" path=orig.txt offset:=800 && [[ "$out" == "line 800"* ]]'
ok "blocks: once there is room, the same write_file succeeds" \
   'rm "$blocks/filler" && run 0 "$rig" call write_file --root "$r" path=orig.txt content="$big" &&
    [ "$(cat "$r/orig.txt")" = "$big" ] && [ "$(stat -c %a "$r/orig.txt")" = 640 ] && names "$r" orig.txt'

# ---- inodes: no inode left --------------------------------------------------
q=$inodes/q
mkdir "$q"
lines 100 >"$q/orig.txt"
keep "$q/orig.txt"
i=0
while touch "$inodes/i$i" 2>/dev/null; do i=$((i + 1)); done
ok "inodes: the tmpfs has no inode left" '[ "$(df --output=iavail "$inodes" | tail -1 | tr -d " ")" = 0 ]'
ok "inodes: create_directory fails, no space, nothing created" \
   'run 1 "$rig" call create_directory --root "$q" path=d &&
    [[ "$out" == *"Creating the directory '"'"'d'"'"' failed: No space left on device"* ]] &&
    names "$q" orig.txt'
ok "inodes: create_directory of nested missing directories creates none" \
   'run 1 "$rig" call create_directory --root "$q" path=a/b/c &&
    [[ "$out" == *"No space left on device"* ]] && names "$q" orig.txt'
ok "inodes: write_file create_parents fails, nothing created" \
   'run 1 "$rig" call write_file --root "$q" path=a/b.txt content=x create_parents:=true &&
    [[ "$out" == *"No space left on device"* ]] && names "$q" orig.txt'
ok "inodes: write_file replacing fails at the temporary file, original unchanged" \
   'run 1 "$rig" call write_file --root "$q" path=orig.txt content=new &&
    [[ "$out" == *"creating a temporary file beside it: No space left on device"* &&
       "$out" == *"The original file is unchanged."* ]] &&
    same "$q/orig.txt" && names "$q" orig.txt'
ok "inodes: edit_file fails, the file unchanged" \
   'run 1 "$rig" call edit_file --root "$q" path=orig.txt "edits:=[{\"oldText\":\"line 7\n\",\"newText\":\"seven\n\"}]" &&
    [[ "$out" == *"No space left on device"* && "$out" == *"unchanged"* ]] &&
    same "$q/orig.txt" && names "$q" orig.txt'
ok "inodes: move_file from another file system fails, source kept" \
   'run 1 "$rig" call move_file --root "$q" --root "$tmp/src" source="$tmp/src/m.txt" destination=m.txt &&
    [[ "$out" == *"No space left on device"* ]] && same "$tmp/src/m.txt" && names "$q" orig.txt'

# ---- ro: the blocks tmpfs remounted read-only -------------------------------
lines 300 >"$r/orig.txt"
keep "$r/orig.txt"
mount -o remount,ro "$blocks"
ok "ro: the tmpfs is read-only" '! touch "$r/probe" 2>/dev/null'
ok "ro: write_file replacing fails, read-only, original unchanged" \
   'run 1 "$rig" call write_file --root "$r" path=orig.txt content=new &&
    [[ "$out" == *"Read-only file system"* && "$out" == *"The original file is unchanged."* ]] &&
    same "$r/orig.txt" && names "$r" orig.txt'
ok "ro: append fails, original unchanged" \
   'run 1 "$rig" call write_file --root "$r" path=orig.txt content=more append:=true &&
    [[ "$out" == *"Read-only file system"* ]] && same "$r/orig.txt"'
ok "ro: edit_file fails, the file unchanged" \
   'run 1 "$rig" call edit_file --root "$r" path=orig.txt "edits:=[{\"oldText\":\"line 7\n\",\"newText\":\"seven\n\"}]" &&
    [[ "$out" == *"Read-only file system"* && "$out" == *"unchanged"* ]] && same "$r/orig.txt"'
ok "ro: create_directory fails" \
   'run 1 "$rig" call create_directory --root "$r" path=d && [[ "$out" == *"Read-only file system"* ]] &&
    names "$r" orig.txt'
ok "ro: move_file within it fails, both names as they were" \
   'run 1 "$rig" call move_file --root "$r" source=orig.txt destination=renamed.txt &&
    [[ "$out" == *"Read-only file system"* ]] && same "$r/orig.txt" && names "$r" orig.txt'
ok "ro: move_file into it fails, source kept" \
   'run 1 "$rig" call move_file --root "$r" --root "$tmp/src" source="$tmp/src/m.txt" destination=m.txt &&
    [[ "$out" == *"Read-only file system"* ]] && same "$tmp/src/m.txt" && names "$r" orig.txt'
ok "ro: read_file reads it" 'run 0 "$rig" call read_file --root "$r" path=orig.txt offset:=300 && [[ "$out" == "line 300"* ]]'

# ---- nobody: permission denied ----------------------------------------------
p=$tmp/perm
mkdir "$p"
lines 50 >"$p/orig.txt"
keep "$p/orig.txt"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
if as_nobody "$rig" call read_file --root "$p" path=orig.txt offset:=50 >/dev/null 2>&1; then
  ok "nobody: write_file replacing is denied, original unchanged" \
     'run 1 as_nobody "$rig" call write_file --root "$p" path=orig.txt content=new &&
      [[ "$out" == *"Permission denied"* && "$out" == *"The original file is unchanged."* ]] &&
      same "$p/orig.txt" && names "$p" orig.txt'
  ok "nobody: append is denied, original unchanged" \
     'run 1 as_nobody "$rig" call write_file --root "$p" path=orig.txt content=more append:=true &&
      [[ "$out" == *"Permission denied"* ]] && same "$p/orig.txt"'
  ok "nobody: edit_file is denied, the file unchanged" \
     'run 1 as_nobody "$rig" call edit_file --root "$p" path=orig.txt "edits:=[{\"oldText\":\"line 7\n\",\"newText\":\"seven\n\"}]" &&
      [[ "$out" == *"Permission denied"* && "$out" == *"unchanged"* ]] && same "$p/orig.txt" && names "$p" orig.txt'
  ok "nobody: create_directory is denied" \
     'run 1 as_nobody "$rig" call create_directory --root "$p" path=d && [[ "$out" == *"Permission denied"* ]] &&
      names "$p" orig.txt'
  ok "nobody: move_file is denied" \
     'run 1 as_nobody "$rig" call move_file --root "$p" source=orig.txt destination=x.txt &&
      [[ "$out" == *"Permission denied"* ]] && same "$p/orig.txt" && names "$p" orig.txt'
else
  for t in write_file append edit_file create_directory move_file; do
    skip "nobody: $t is denied" "cannot run rig as uid 65534 here"
  done
fi

# ---- immutable: chattr +i (root cannot replace it either) -------------------
im=$tmp/imm
mkdir "$im"
lines 50 >"$im/orig.txt"
keep "$im/orig.txt"
if chattr +i "$im/orig.txt" 2>/dev/null; then
  ok "immutable: write_file fails at the rename, original unchanged, temporary removed" \
     'run 1 "$rig" call write_file --root "$im" path=orig.txt content=new &&
      [[ "$out" == *"renaming over it: Operation not permitted"* && "$out" == *"The original file is unchanged."* ]] &&
      same "$im/orig.txt" && names "$im" orig.txt'
  ok "immutable: edit_file fails, the file unchanged, temporary removed" \
     'run 1 "$rig" call edit_file --root "$im" path=orig.txt "edits:=[{\"oldText\":\"line 7\n\",\"newText\":\"seven\n\"}]" &&
      [[ "$out" == *"Operation not permitted"* && "$out" == *"unchanged"* ]] && same "$im/orig.txt" && names "$im" orig.txt'
  ok "immutable: append fails" \
     'run 1 "$rig" call write_file --root "$im" path=orig.txt content=more append:=true &&
      [[ "$out" == *"Operation not permitted"* ]] && same "$im/orig.txt"'
  chattr -i "$im/orig.txt"
else
  for t in write_file edit_file append; do
    skip "immutable: $t fails" "chattr +i is not supported here"
  done
fi

echo "1..$n"
[ "$failed" = 0 ]
