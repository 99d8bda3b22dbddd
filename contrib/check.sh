#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up and run the whole test suite: install what is missing, then build
# and run `make check` twice (components loaded at run time, and linked in
# with --disable-dlopen), then `make distcheck`. Ends with one line
# "N passed, N failed[, N skipped]".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
passed=0 failed=0 skipped=0

"$top/contrib/install-deps.sh" || exit 1
(cd "$top" && ./autogen.sh >/dev/null 2>&1) || { echo "autogen.sh failed" >&2; exit 1; }

# Add the counts of one build's test-suite.log to the totals.
count_results() {
    local log=$1 n
    for kind in PASS FAIL ERROR SKIP XPASS; do
        n=$(sed -n "s/^# $kind: *\([0-9]*\)$/\1/p" "$log" | head -n 1)
        n=${n:-0}
        case $kind in
            PASS) passed=$((passed + n)) ;;
            SKIP) skipped=$((skipped + n)) ;;
            *) failed=$((failed + n)) ;;
        esac
    done
}

# build NAME CONFIGURE-ARGS...: configure, build and check in _build/NAME.
build_and_check() {
    local name=$1 dir="$top/_build/$1"
    shift
    echo "=== build '$name': configure $*"
    rm -rf "$dir" && mkdir -p "$dir"
    if ! (cd "$dir" && "$top/configure" -q --enable-werror "$@" >configure.out 2>&1 &&
          make -j"$jobs" >make.out 2>&1); then
        echo "build '$name' failed; the end of its output:" >&2
        tail -n 30 "$dir/configure.out" "$dir/make.out" 2>/dev/null >&2
        failed=$((failed + 1))
        return
    fi
    (cd "$dir" && make -j"$jobs" check 2>&1 | grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):')
    if [ -f "$dir/test-suite.log" ]; then
        count_results "$dir/test-suite.log"
        grep -q '^# \(FAIL\|ERROR\): *[1-9]' "$dir/test-suite.log" && cat "$dir/test-suite.log" >&2
    else
        failed=$((failed + 1))
    fi
}

build_and_check dlopen
build_and_check static --disable-dlopen

# The tarball must build, install and pass its tests; the full suite has
# already run twice above, so distcheck runs the unit tests, the tests of
# the installed tree, and the check of what the programs export.
distcheck_tests=$(cd "$top" && ls tests/unit/*/test_*.c | sed 's/\.c$//' | paste -sd' ')
distcheck_tests="$distcheck_tests tests/integration/launch-basic.sh tests/integration/hnp-info.sh tests/integration/example-component.sh tests/integration/example-plm.sh tests/integration/symbols.sh"
echo "=== make distcheck"
if (cd "$top/_build/dlopen" && make -j"$jobs" distcheck TESTS="$distcheck_tests" >distcheck.out 2>&1); then
    echo "PASS: distcheck"
    passed=$((passed + 1))
else
    echo "FAIL: distcheck" && tail -n 40 "$top/_build/dlopen/distcheck.out" >&2
    # distcheck leaves its tree behind when it fails: the log of its own
    # make check holds the output of the tests that failed.
    find "$top/_build/dlopen" -path '*/hnp-*/_build/*' -name test-suite.log \
        -type f 2>/dev/null | while read -r log; do
        echo "--- $log" >&2
        cat "$log" >&2
    done
    failed=$((failed + 1))
fi

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
