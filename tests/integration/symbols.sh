#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Export only the contract. The installed API is every
# function declared in an installed header; each of them must be marked
# HNP_EXPORT. Then, in the dynamic symbol table (nm -D --defined-only):
#   hnp, hnpd, hnp-info  export exactly the installed API, and beyond it
#                        only what the linker puts there itself;
#   each in-tree component exports only mca_<fw>_<name>_component, named
#                        as its file is;
#   the binding module   exports only its descriptor (runtime/bind/bind.h).
# The programs must export the whole API, called by themselves or not: a
# component that calls a function missing there fails to load.
#
# Exit status: 0 pass, 1 fail, 77 skip (automake's convention).
set -eu

: "${top_srcdir:?run me through make check, or set top_srcdir}"
: "${top_builddir:?run me through make check, or set top_builddir}"
: "${hnp_installed_headers:?run me through make check (it passes the installed headers)}"

skip() { echo "SKIP: $*"; exit 77; }
command -v nm >/dev/null 2>&1 || skip "nm is not installed"
CC=${CC:-cc}
command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-symbols.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- The installed API (api-lib.sh).
. "$top_srcdir/tests/integration/api-lib.sh"
installed_api || {
    echo "FAIL: the installed headers do not preprocess together"
    exit 1
}
[ -s "$tmp/api" ] || { echo "FAIL: no function found in the installed headers"; exit 1; }
awk '$2 == "hidden" { print "FAIL: " $1 "() is declared in an installed header without HNP_EXPORT" }' \
    "$tmp/api" >"$tmp/unmarked"
if [ -s "$tmp/unmarked" ]; then
    cat "$tmp/unmarked"
    failures=$((failures + $(wc -l <"$tmp/unmarked")))
fi
cut -d' ' -f1 "$tmp/api" | sort -u >"$tmp/api.names"

# exports FILE: the names FILE's dynamic symbol table defines (absolute
# symbols, which name version nodes, left out), sorted.
exports() {
    nm -D --defined-only "$1" >"$tmp/nm.out" 2>"$tmp/nm.err" || {
        cat "$tmp/nm.err"
        return 1
    }
    awk 'NF >= 3 && $2 != "A" { print $3 }' "$tmp/nm.out" | sort -u
}

# The symbols the linker and the C start-up files define in any program,
# and the C library's variables a program copies into its own data
# (versioned, such as environ@GLIBC_2.2.5), and what a sanitizer's
# runtime, linked into the programs of a -fsanitize build, exports.
linker_own='^(_init|_fini|_start|_edata|_end|__bss_start|_IO_stdin_used|__data_start|data_start|main|__dso_handle|_DYNAMIC|_GLOBAL_OFFSET_TABLE_)$|@|^__(asan|ubsan|lsan|tsan|sanitizer)_'

# is_elf FILE
is_elf() { [ "$(head -c 4 "$1" | tr -d '\177')" = ELF ]; }

# --- The programs: the installed API, the whole API, nothing else.
for p in hnp hnpd hnp-info; do
    bin=$top_builddir/bin/$p
    # A libtool wrapper script stands in front of the real program.
    if [ -f "$bin" ] && ! is_elf "$bin" && [ -f "$top_builddir/bin/.libs/$p" ]; then
        bin=$top_builddir/bin/.libs/$p
    fi
    [ -f "$bin" ] || { fail "$bin is not built"; continue; }
    exports "$bin" >"$tmp/$p.all" || { fail "nm -D cannot read $bin"; continue; }
    grep -E -v "$linker_own" "$tmp/$p.all" >"$tmp/$p.ours" || true
    comm -23 "$tmp/$p.ours" "$tmp/api.names" | while read -r s; do
        echo "FAIL: $p exports $s, which no installed header declares"
    done >"$tmp/$p.extra"
    comm -13 "$tmp/$p.ours" "$tmp/api.names" | while read -r s; do
        echo "FAIL: $p does not export $s() of the installed API (a component calling it would not load)"
    done >"$tmp/$p.missing"
    cat "$tmp/$p.extra" "$tmp/$p.missing"
    failures=$((failures + $(cat "$tmp/$p.extra" "$tmp/$p.missing" | wc -l)))
done

# only_export FILE SYMBOL: FILE's one export of ours is SYMBOL.
only_export() {
    exports "$1" >"$tmp/so.all" || { fail "nm -D cannot read $1"; return; }
    others=$(grep -v -x -e "$2" -e _init -e _fini "$tmp/so.all" | tr '\n' ' ')
    grep -q -x -e "$2" "$tmp/so.all" || fail "${1#"$top_builddir"/} does not export $2"
    [ -z "$others" ] || fail "${1#"$top_builddir"/} exports $others beside $2"
}

# --- The components and the binding module, when they are loadable
# modules (not with --disable-dlopen).
ncomponents=
if [ "${HNP_DLOPEN:-yes}" = yes ]; then
    ncomponents=0
    for so in "$top_builddir"/components/*/*/.libs/mca_*.so; do
        [ -f "$so" ] || continue
        name=${so##*/}
        only_export "$so" "${name%.so}_component"
        ncomponents=$((ncomponents + 1))
    done
    [ "$ncomponents" -gt 0 ] || fail "no component module found under $top_builddir/components"
    bind_symbol=$(sed -n 's/^#define HNP_BIND_SYMBOL "\(.*\)"$/\1/p' "$top_srcdir/runtime/bind/bind.h")
    bind_module=$(sed -n 's/^#define HNP_BIND_MODULE "\(.*\)"$/\1/p' "$top_srcdir/runtime/bind/bind.h")
    if [ -n "$bind_symbol" ] && [ -n "$bind_module" ]; then
        only_export "$top_builddir/runtime/.libs/$bind_module.so" "$bind_symbol"
    else
        fail "runtime/bind/bind.h names no module or symbol"
    fi
fi

if [ "$failures" -gt 0 ]; then
    echo "FAIL: $failures symbol problem(s); see framework/hnp_export.h"
    exit 1
fi
echo "PASS: hnp, hnpd and hnp-info export the $(wc -l <"$tmp/api.names") functions of the installed API and nothing else${ncomponents:+; $ncomponents components and the binding module export their descriptor only}"
exit 0
