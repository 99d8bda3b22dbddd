#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The documentation agrees with the components, as hnp-info --parsable
# reports them:
#   1. the components list of hnp-components(7) (IN-TREE COMPONENTS, one
#      `.IP "\fBfw name\fR priority"` a component) names every component
#      hnp-info lists, with the priority its query offers (slurm's inside an
#      allocation), and no other (one configure left out is not listed by
#      hnp-info and may stay in the page);
#   2. every framework hnp-info lists is among the frameworks hnp-info(1)
#      names, and its module struct among those hnp_mca.h names.
# Exit status: 0 pass, 1 fail, 77 skip.
set -eu

: "${top_srcdir:?run me through make check, or set top_srcdir}"
: "${top_builddir:?run me through make check, or set top_builddir}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# hnp-info with the defaults alone (no user file, no HNP_MCA_* but the
# component path of the build tree), inside a stand-in Slurm allocation.
path=
if [ "${HNP_DLOPEN:-yes}" = yes ]; then
    path=$(printf '%s:' "$top_builddir"/components/*/*/.libs)
fi
mkdir -p "$tmp/home"
env -i PATH="$PATH" HOME="$tmp/home" TMPDIR="$tmp" SLURM_JOB_ID=1 \
    ${path:+HNP_MCA_mca_base_component_path="$path"} \
    timeout 60 "$top_builddir/bin/hnp-info" --parsable >"$tmp/info" 2>"$tmp/info.err" || {
    cat "$tmp/info.err"
    echo "FAIL: hnp-info --parsable failed"
    exit 1
}

# --- 1. The components list.
awk -F: '$1 == "mca" && $4 == "priority" { print $2, $3, $5 }' "$tmp/info" |
    sort >"$tmp/info.prio"
awk -F: '$1 == "mca" && $4 == "not_built" { print $2, $3 }' "$tmp/info" |
    sort >"$tmp/not_built"
[ -s "$tmp/info.prio" ] || fail "hnp-info lists no component with a priority"
page=$top_srcdir/framework/man/hnp-components.7
sed -n '/^\.SH IN-TREE COMPONENTS/,/^\.SH /p' "$page" |
    sed -n 's/^\.IP "\\fB\([a-z_]*\) \([a-z_]*\)\\fR \([0-9]*\)".*/\1 \2 \3/p' |
    sort >"$tmp/page.all"
[ -s "$tmp/page.all" ] || fail "no component found in the IN-TREE COMPONENTS of $page"
while read -r fw name prio; do
    grep -qx "$fw $name" "$tmp/not_built" || echo "$fw $name $prio"
done <"$tmp/page.all" >"$tmp/page.prio"
comm -23 "$tmp/info.prio" "$tmp/page.prio" | while read -r fw name prio; do
    echo "FAIL: hnp-info: $fw $name priority $prio; hnp-components(7) says: $(grep "^$fw $name " "$tmp/page.all" | cut -d' ' -f3 || true)"
done >"$tmp/wrong"
comm -13 "$tmp/info.prio" "$tmp/page.prio" | while read -r fw name prio; do
    grep -q "^$fw $name " "$tmp/info.prio" ||
        echo "FAIL: hnp-components(7) lists $fw $name ($prio), which hnp-info does not"
done >>"$tmp/wrong"
if [ -s "$tmp/wrong" ]; then
    cat "$tmp/wrong"
    failures=$((failures + $(wc -l <"$tmp/wrong")))
fi

# --- 2. The frameworks.
info_page=$top_srcdir/runtime/info/hnp-info.1
named=$(sed -n '/it lists each of the/,/^with its interface version/p' "$info_page" | tr -d '(),' )
for fw in $(awk -F: '$1 == "framework" && $3 == "interface" { print $2 }' "$tmp/info"); do
    printf '%s\n' $named | grep -qx "$fw" ||
        fail "hnp-info(1) does not name the framework $fw among those hnp-info lists"
    grep -q "hnp_${fw}_module_t" "$top_srcdir/framework/hnp_mca.h" ||
        fail "hnp_mca.h does not name hnp_${fw}_module_t among the modules"
done

[ "$failures" -eq 0 ] || exit 1
echo "PASS: hnp-components(7) lists $(wc -l <"$tmp/page.prio") components as hnp-info does; hnp-info(1) and hnp_mca.h name its frameworks"
