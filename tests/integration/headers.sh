#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The installed headers are the whole contract, for C and C++ authors:
#   1. each one, copied alone into a directory as `make install` lays them
#      out, compiles by itself (included twice) as C and as C++, with
#      warnings as errors;
#   2. a C++ file that takes the address of every function of the
#      installed API refers to each by its C name (the extern "C" guards),
#      so that a component written in C++ finds them in the program.
# Exit status: 0 pass, 1 fail, 77 skip.
set -eu

: "${top_srcdir:?run me through make check, or set top_srcdir}"
: "${hnp_installed_headers:?run me through make check (it passes the installed headers)}"

skip() { echo "SKIP: $*"; exit 77; }
CC=${CC:-cc}
CXX=${CXX:-c++}
command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"
command -v "${CXX%% *}" >/dev/null 2>&1 || skip "no C++ compiler ($CXX; contrib/install-deps.sh installs g++)"
command -v nm >/dev/null 2>&1 || skip "nm is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The installed layout: every header in one directory, which is all that
# `pkg-config --cflags hnp-component` puts on the include path.
inc=$tmp/include/hnp
mkdir -p "$inc"
for h in $hnp_installed_headers; do
    cp "$top_srcdir/$h" "$inc/"
done

# --- 1. Each header alone, as C and as C++.
nheaders=0
for h in $hnp_installed_headers; do
    name=${h##*/}
    printf '#include "%s"\n#include "%s"\nint hnp_header_test_anchor;\n' \
        "$name" "$name" >"$tmp/one.c"
    cp "$tmp/one.c" "$tmp/one.cc"
    $CC -std=c11 -Wall -Wextra -Werror -I"$inc" -c -o "$tmp/one.o" \
        "$tmp/one.c" >"$tmp/c.log" 2>&1 ||
        { cat "$tmp/c.log"; fail "$name does not compile alone as C"; }
    $CXX -std=c++11 -Wall -Wextra -Werror -I"$inc" -c -o "$tmp/one.o" \
        "$tmp/one.cc" >"$tmp/cxx.log" 2>&1 ||
        { cat "$tmp/cxx.log"; fail "$name does not compile alone as C++"; }
    nheaders=$((nheaders + 1))
done
[ "$nheaders" -gt 0 ] || fail "no installed header found"

# --- 2. C linkage from C++: every function of the API, referred to by
# its C name.
. "$top_srcdir/tests/integration/api-lib.sh"
installed_api || { echo "FAIL: the installed headers do not preprocess together"; exit 1; }
[ -s "$tmp/api" ] || { echo "FAIL: no function found in the installed headers"; exit 1; }
cut -d' ' -f1 "$tmp/api" | sort -u >"$tmp/api.names"
{
    for h in $hnp_installed_headers; do printf '#include "%s"\n' "${h##*/}"; done
    echo 'void *const hnp_header_test_refs[] = {'
    sed 's/.*/    reinterpret_cast<void *>(\&&),/' "$tmp/api.names"
    echo '};'
} >"$tmp/refs.cc"
if $CXX -std=c++11 -Wall -Wextra -Werror -I"$inc" -c -o "$tmp/refs.o" \
        "$tmp/refs.cc" >"$tmp/refs.log" 2>&1; then
    nm -u "$tmp/refs.o" | awk '{ print $2 }' | sort -u >"$tmp/refs.undef"
    comm -23 "$tmp/api.names" "$tmp/refs.undef" >"$tmp/mangled"
    while read -r f; do
        fail "$f() has C++ linkage in C++ (no extern \"C\" around its declaration)"
    done <"$tmp/mangled"
else
    cat "$tmp/refs.log"
    fail "a C++ file that refers to every function of the installed API does not compile"
fi

[ "$failures" -eq 0 ] || { echo "FAIL: $failures problem(s) in the installed headers"; exit 1; }
echo "PASS: $nheaders installed headers compile alone as C and C++; $(wc -l <"$tmp/api.names") functions have C linkage"
