#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up and run the whole test suite: install what is missing, then build
# and run `make check` twice (components loaded at run time, and linked in
# with --disable-dlopen), a part of it under the sanitizers, then `make
# distcheck`. Ends with one line
# "N passed, N failed[, N skipped]".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
passed=0 failed=0 skipped=0
failed_logs=()

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

# build NAME CONFIGURE-ARGS...: configure, build and check in _build/NAME
# (the tests in $check_tests only, when set).
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
    (cd "$dir" && make -j"$jobs" check ${check_tests:+TESTS="$check_tests"} >check.out 2>&1)
    grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):' "$dir/check.out"
    if [ -f "$dir/test-suite.log" ]; then
        count_results "$dir/test-suite.log"
        grep -q '^# \(FAIL\|ERROR\): *[1-9]' "$dir/test-suite.log" && cat "$dir/test-suite.log" >&2
        local t
        for t in $(sed -n 's/^\(FAIL\|ERROR\): //p' "$dir/check.out"); do
            failed_logs+=("$name: $dir/$t.log")
        done
    else
        echo "build '$name': the tests did not run; the end of make check:" >&2
        tail -n 30 "$dir/check.out" >&2
        failed=$((failed + 1))
    fi
}

# The sanitizer build: ASan, LSan and UBSan in everything, components
# included. It runs the unit tests and a representative set of the
# integration tests (none of the hundreds-of-nodes ones: a sanitized
# daemon is several times bigger and slower). Every sanitized process (the
# tests, hnp, the daemons, which the local agent starts with the tests'
# environment, and what they start) writes its reports to a file of its
# own in _build/sanitizer-reports; any report fails the build and is shown.
sanitizer_build() {
    local reports="$top/_build/sanitizer-reports" n t
    local integration="launch-basic stdin signals flood pmi-select
        daemon-failure daemon-log ompi pmix-held ompi-names"

    check_tests="$(cd "$top" && ls tests/unit/*/test_*.c | sed 's/\.c$//' | paste -sd' ')"
    for t in $integration; do
        check_tests="$check_tests tests/integration/$t.sh"
    done
    rm -rf "$reports" && mkdir -p "$reports"
    ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1" \
    LSAN_OPTIONS="suppressions=$top/contrib/lsan-suppressions.txt:print_suppressions=0" \
    UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1" \
        build_and_check sanitizers --enable-sanitizers
    check_tests=
    n=$(find "$reports" -type f -size +0 | wc -l)
    if [ "$n" -gt 0 ]; then
        echo "FAIL: sanitizers: $n report(s) in $reports"
        find "$reports" -type f -size +0 | sort | while read -r report; do
            echo "--- $report" >&2
            head -n 60 "$report" >&2
        done
        failed=$((failed + 1))
    else
        echo "PASS: sanitizers: no report"
        passed=$((passed + 1))
    fi
}

# CHECK_BUILDS picks some of the builds (dlopen static sanitizers scale
# distcheck) for a developer's run; CI runs them all.
builds=${CHECK_BUILDS:-dlopen static sanitizers scale distcheck}
wanted() { case " $builds " in *" $1 "*) return 0 ;; esac; return 1; }
check_tests=

wanted dlopen && build_and_check dlopen
wanted static && build_and_check static --disable-dlopen
wanted sanitizers && sanitizer_build

# 2,048 simulated nodes (tests/integration/scale.sh), and an Open MPI job
# of 256 nodes x 4 ranks (tests/integration/ompi-memory.sh at scale), in
# the dlopen build and alone: beside other tests they would starve them
# of the CPU. The build's own run above skipped scale.sh (this run's
# result stands instead) and ran ompi-memory.sh small (both count).
if wanted scale && wanted dlopen && [ -f "$top/_build/dlopen/Makefile" ]; then
    dir="$top/_build/dlopen"
    for t in scale ompi-memory; do
        echo "=== scale: tests/integration/$t.sh, alone"
        (cd "$dir" && HNP_TEST_SCALE=1 timeout 1500 make check \
            TESTS=tests/integration/$t.sh >$t.out 2>&1)
        result=$(sed -n "s|^\([A-Z]*\): tests/integration/$t.sh\$|\1|p" "$dir/$t.out")
        [ "$t" = scale ] && skipped=$((skipped - 1))
        grep -E '^[0-9]+ nodes, |RssAnon' "$dir/tests/integration/$t.sh.log" 2>/dev/null
        case $result in
            PASS) echo "PASS: $t at scale"; passed=$((passed + 1)) ;;
            SKIP) tail -n 1 "$dir/tests/integration/$t.sh.log"
                  skipped=$((skipped + 1)) ;;
            *) echo "FAIL: $t at scale"; tail -n 40 "$dir/tests/integration/$t.sh.log" >&2
               failed=$((failed + 1)) ;;
        esac
    done
fi

# The tarball must build, install and pass its tests; the full suite has
# already run twice above, so distcheck runs the unit tests, the tests of
# the installed tree, and the check of what the programs export.
if wanted distcheck; then
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
fi

# The whole log of a failed test is above; the end of the output repeats
# the end of each, where a long log would be cut when the output is shown
# by its head and its tail.
for entry in "${failed_logs[@]}"; do
    echo "--- the end of ${entry%%: *}'s ${entry#*: }" >&2
    tail -n 25 "${entry#*: }" >&2 2>/dev/null
done

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
