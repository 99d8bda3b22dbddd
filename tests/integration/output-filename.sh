#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --output-filename DIR: DIR/1/rank.N/stdout and stderr, as Open MPI 4.1
# lays them out (N with as many digits as the number of ranks has, the
# directives :nojobid and :nocopy). Nothing below DIR is
# followed: a symbolic link, a FIFO or a hard link planted at a rank's path
# is refused before anything is launched, naming the path, and what it
# points at is left alone. Missing directories are made, as mkdir -p would,
# private to the user.
. "$top_srcdir/tests/integration/lib.sh"

app='echo "out $HNP_RANK"; touch "$1"'

# refused PATH WHY WHAT: hnp failed before launch, naming PATH and WHY.
refused() {
    expect_status 1 "$3"
    expect_in "$tmp/err" "^hnp: error: --output-filename: $1 $2; " "$3: the path named"
    [ ! -e "$tmp/launched" ] || fail "$3: something was launched"
    assert_no_leftovers "$3"
}

# A symbolic link at DIR/1/rank.0/stdout: its target is not overwritten.
echo "keep me" >"$tmp/target"
mkdir -p "$tmp/of/1/rank.0"
ln -s "$tmp/target" "$tmp/of/1/rank.0/stdout"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/1/rank.0/stdout" "is a symbolic link" "link at a file"
[ "$(cat "$tmp/target")" = "keep me" ] || fail "the link's target was written"
[ -L "$tmp/of/1/rank.0/stdout" ] || fail "the link was removed"

# A dangling one is not created through either.
rm "$tmp/of/1/rank.0/stdout"
ln -s "$tmp/absent" "$tmp/of/1/rank.0/stdout"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/1/rank.0/stdout" "is a symbolic link" "dangling link"
[ ! -e "$tmp/absent" ] || fail "a dangling link's target was created"

# A symbolic link in place of a rank's directory (a trailing slash on DIR
# changes nothing).
rm -r "$tmp/of"
mkdir -p "$tmp/of/1" "$tmp/elsewhere"
echo "keep me" >"$tmp/elsewhere/stdout"
ln -s "$tmp/elsewhere" "$tmp/of/1/rank.3"
run_hnp --output-filename "$tmp/of/" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/1/rank.3" "is a symbolic link" "link at a rank's directory"
[ "$(cat "$tmp/elsewhere/stdout")" = "keep me" ] || fail "written through a linked directory"
[ "$(ls "$tmp/elsewhere")" = stdout ] || fail "created through a linked directory"

# A FIFO (hnp must not block opening it) and a hard link.
rm -r "$tmp/of"
mkdir -p "$tmp/of/1/rank.1"
mkfifo "$tmp/of/1/rank.1/stderr"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/1/rank.1/stderr" "is not a regular file" "FIFO"
rm "$tmp/of/1/rank.1/stderr"
ln "$tmp/target" "$tmp/of/1/rank.1/stderr"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/1/rank.1/stderr" "has other hard links" "hard link"
[ "$(cat "$tmp/target")" = "keep me" ] || fail "a hard link's file was emptied"

# Missing directories, nested, are made; everything is the user's alone,
# whatever the umask; a rank that says nothing on a stream has an empty file.
umask 022
run_hnp --output-filename "$tmp/a/b/c" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
expect_status 0 "nested missing directories"
for r in 0 1 2 3; do
    [ "$(cat "$tmp/a/b/c/1/rank.$r/stdout")" = "out $r" ] || fail "output file of rank $r"
    [ -f "$tmp/a/b/c/1/rank.$r/stderr" ] && [ ! -s "$tmp/a/b/c/1/rank.$r/stderr" ] ||
        fail "rank $r: no empty stderr file"
done
modes=$(cd "$tmp" && find a -type d -exec stat -c %a {} + | sort -u)
[ "$modes" = 700 ] || fail "directory modes $modes, want 700"
modes=$(cd "$tmp" && find a -type f -exec stat -c %a {} + | sort -u)
[ "$modes" = 600 ] || fail "file modes $modes, want 600"

# Run again into the same directory: hnp's own files are emptied and
# rewritten, those of a rank silent this time too.
echo "stale" >"$tmp/a/b/c/1/rank.2/stderr"
run_hnp --output-filename "$tmp/a/b/c" -N 2 --host "$(hosts 2)" \
    sh -c 'echo "again $HNP_RANK"' "$prefix"
expect_status 0 "same directory again"
for r in 0 1 2 3; do
    [ "$(cat "$tmp/a/b/c/1/rank.$r/stdout")" = "again $r" ] || fail "rank $r's output file not rewritten"
done
[ ! -s "$tmp/a/b/c/1/rank.2/stderr" ] || fail "a stale file was kept"
# The job's directory is below DIR too: a link there is refused.
rm -r "$tmp/of"
mkdir -p "$tmp/of" "$tmp/elsewhere2"
rm -f "$tmp/launched"
ln -s "$tmp/elsewhere2" "$tmp/of/1"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/1" "is a symbolic link" "link at the job's directory"
[ -z "$(ls "$tmp/elsewhere2")" ] || fail "created through a linked job directory"

# Twelve ranks: rank.00 to rank.11, as mpirun numbers them, nothing else.
run_hnp --output-filename "$tmp/wide" -N 6 --host "$(hosts 2)" \
    sh -c 'echo "out $HNP_RANK"' "$prefix"
expect_status 0 "twelve ranks"
[ "$(ls "$tmp/wide")" = 1 ] || fail "DIR holds $(ls "$tmp/wide"), want 1"
[ "$(ls "$tmp/wide/1" | paste -sd' ')" = "$(seq -f 'rank.%02g' 0 11 | paste -sd' ')" ] ||
    fail "rank directories: $(ls "$tmp/wide/1" | paste -sd' ')"
[ "$(cat "$tmp/wide/1/rank.07/stdout")" = "out 7" ] || fail "rank 7's file"

# DIR:nojobid puts the ranks' directories in DIR; DIR:nocopy writes the
# files only. A relative DIR is hnp's working directory's.
(cd "$tmp" && run_hnp --output-filename rel:NOJOBID,nocopy -N 1 --host "$(hosts 2)" \
    sh -c 'echo "out $HNP_RANK"; echo "err $HNP_RANK" >&2' "$prefix" && echo "$status" >"$tmp/status")
status=$(cat "$tmp/status")
[ "$status" = 0 ] || fail "nojobid,nocopy: status $status"
[ "$(cat "$tmp/rel/rank.1/stdout")" = "out 1" ] && [ "$(cat "$tmp/rel/rank.1/stderr")" = "err 1" ] ||
    fail "nojobid: no DIR/rank.N files"
[ ! -e "$tmp/rel/1" ] && [ ! -e "$tmp/rel:NOJOBID,nocopy" ] || fail "nojobid: a job directory or the directive in the name"
grep -q "out\|err" "$tmp/out" "$tmp/err" && fail "nocopy: output shown as well"

# --merge-stderr-to-stdout: both streams into the stdout file, in order.
run_hnp --merge-stderr-to-stdout --output-filename "$tmp/merged" -N 1 --host "$(hosts 1)" \
    sh -c 'echo o1; echo e1 >&2; echo o2' "$prefix"
expect_status 0 "merged into the file"
[ "$(paste -sd' ' "$tmp/merged/1/rank.0/stdout")" = "o1 e1 o2" ] || fail "merged file: $(cat "$tmp/merged/1/rank.0/stdout")"
[ ! -s "$tmp/merged/1/rank.0/stderr" ] || fail "merged: the stderr file is not empty"
assert_no_leftovers "output-filename"
echo "PASS"
