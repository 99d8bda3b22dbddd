#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --output-filename DIR: DIR/rank.N/stdout and stderr. Nothing below DIR is
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

# A symbolic link at DIR/rank.0/stdout: its target is not overwritten.
echo "keep me" >"$tmp/target"
mkdir -p "$tmp/of/rank.0"
ln -s "$tmp/target" "$tmp/of/rank.0/stdout"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/rank.0/stdout" "is a symbolic link" "link at a file"
[ "$(cat "$tmp/target")" = "keep me" ] || fail "the link's target was written"
[ -L "$tmp/of/rank.0/stdout" ] || fail "the link was removed"

# A dangling one is not created through either.
rm "$tmp/of/rank.0/stdout"
ln -s "$tmp/absent" "$tmp/of/rank.0/stdout"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/rank.0/stdout" "is a symbolic link" "dangling link"
[ ! -e "$tmp/absent" ] || fail "a dangling link's target was created"

# A symbolic link in place of a rank's directory (a trailing slash on DIR
# changes nothing).
rm -r "$tmp/of"
mkdir -p "$tmp/of" "$tmp/elsewhere"
echo "keep me" >"$tmp/elsewhere/stdout"
ln -s "$tmp/elsewhere" "$tmp/of/rank.3"
run_hnp --output-filename "$tmp/of/" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/rank.3" "is a symbolic link" "link at a rank's directory"
[ "$(cat "$tmp/elsewhere/stdout")" = "keep me" ] || fail "written through a linked directory"
[ "$(ls "$tmp/elsewhere")" = stdout ] || fail "created through a linked directory"

# A FIFO (hnp must not block opening it) and a hard link.
rm -r "$tmp/of"
mkdir -p "$tmp/of/rank.1"
mkfifo "$tmp/of/rank.1/stderr"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/rank.1/stderr" "is not a regular file" "FIFO"
rm "$tmp/of/rank.1/stderr"
ln "$tmp/target" "$tmp/of/rank.1/stderr"
run_hnp --output-filename "$tmp/of" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
refused "$tmp/of/rank.1/stderr" "has other hard links" "hard link"
[ "$(cat "$tmp/target")" = "keep me" ] || fail "a hard link's file was emptied"

# Missing directories, nested, are made; everything is the user's alone,
# whatever the umask; a rank that says nothing on a stream has an empty file.
umask 022
run_hnp --output-filename "$tmp/a/b/c" -N 2 --host "$(hosts 2)" \
    sh -c "$app" "$prefix" "$tmp/launched"
expect_status 0 "nested missing directories"
for r in 0 1 2 3; do
    [ "$(cat "$tmp/a/b/c/rank.$r/stdout")" = "out $r" ] || fail "output file of rank $r"
    [ -f "$tmp/a/b/c/rank.$r/stderr" ] && [ ! -s "$tmp/a/b/c/rank.$r/stderr" ] ||
        fail "rank $r: no empty stderr file"
done
modes=$(cd "$tmp" && find a -type d -exec stat -c %a {} + | sort -u)
[ "$modes" = 700 ] || fail "directory modes $modes, want 700"
modes=$(cd "$tmp" && find a -type f -exec stat -c %a {} + | sort -u)
[ "$modes" = 600 ] || fail "file modes $modes, want 600"

# Run again into the same directory: hnp's own files are emptied and
# rewritten, those of a rank silent this time too.
echo "stale" >"$tmp/a/b/c/rank.2/stderr"
run_hnp --output-filename "$tmp/a/b/c" -N 2 --host "$(hosts 2)" \
    sh -c 'echo "again $HNP_RANK"' "$prefix"
expect_status 0 "same directory again"
for r in 0 1 2 3; do
    [ "$(cat "$tmp/a/b/c/rank.$r/stdout")" = "again $r" ] || fail "rank $r's output file not rewritten"
done
[ ! -s "$tmp/a/b/c/rank.2/stderr" ] || fail "a stale file was kept"
assert_no_leftovers "output-filename"
echo "PASS"
