#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The fuzz targets (tests/fuzz/): the wire codec, the runtime messages, the
# PMI codec and server, the endpoint data of a PMIx connect, the
# exchanges, the packed parameters, contact URIs, host lists and the DVM's
# local socket. Always: checks that the
# checked-in seed corpus is what make-corpus.sh writes, and replays it
# through the replay programs `make check` built. Then, when clang can build
# with -fsanitize=fuzzer,address,undefined, builds real libFuzzer binaries
# from the sources and fuzzes each target briefly, starting from a copy of
# the corpus (the source tree is never written); a crash fails the test.
#
# HNP_FUZZ_SECONDS (default 8) sets the fuzzing time per target,
# HNP_FUZZ_CC (default clang) the compiler.
#
# Exit status: 0 pass, 1 fail, 77 skip (automake's convention).
set -eu

: "${top_srcdir:?run me through make check, or set top_srcdir}"
: "${top_builddir:?run me through make check, or set top_builddir}"
TARGETS="frame buffer pmi messages oob exchange params uri hosts pmi_server dvm pmix_cards"
FUZZ_SECONDS=${HNP_FUZZ_SECONDS:-8}
FUZZ_CC=${HNP_FUZZ_CC:-clang}
STEP_TIMEOUT=60
corpus="$top_srcdir/tests/fuzz/corpus"

for t in $TARGETS; do
    if [ ! -x "$top_builddir/tests/fuzz/fuzz_${t}_replay" ]; then
        echo "SKIP: $top_builddir/tests/fuzz/fuzz_${t}_replay is not built"
        exit 77
    fi
done
if ! command -v timeout >/dev/null 2>&1; then
    echo "SKIP: timeout(1) is not installed"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-fuzz-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# A seed edited by hand would silently drift from its documented layout.
timeout "$STEP_TIMEOUT" sh "$top_srcdir/tests/fuzz/make-corpus.sh" "$tmp/seeds"
for seed in "$tmp"/seeds/*/*; do
    name=${seed#"$tmp/seeds/"}
    if ! cmp -s "$seed" "$corpus/$name"; then
        echo "FAIL: tests/fuzz/corpus/$name differs from what" \
             "tests/fuzz/make-corpus.sh writes (rerun it, or list the file" \
             "in tests/fuzz/fuzz.inc)"
        exit 1
    fi
done

for t in $TARGETS; do
    if ! timeout "$STEP_TIMEOUT" "$top_builddir/tests/fuzz/fuzz_${t}_replay" \
            "$corpus/$t"; then
        echo "FAIL: replaying the $t corpus crashed or broke an invariant"
        exit 1
    fi
done

# Whether $FUZZ_CC builds and runs a libFuzzer binary here. LeakSanitizer
# cannot run where ptrace is forbidden (some containers): fuzz without it
# rather than not at all.
fuzz_cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all"
libfuzzer_works() {
    command -v "$FUZZ_CC" >/dev/null 2>&1 || return 1
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
        '{ (void)d; (void)n; return 0; }' >"$tmp/probe.c"
    # shellcheck disable=SC2086 # the flags are a list
    timeout "$STEP_TIMEOUT" "$FUZZ_CC" $fuzz_cflags -o "$tmp/probe" \
        "$tmp/probe.c" >/dev/null 2>&1 || return 1
    timeout "$STEP_TIMEOUT" "$tmp/probe" -runs=1 >/dev/null 2>&1 && return 0
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
    timeout "$STEP_TIMEOUT" "$tmp/probe" -runs=1 >/dev/null 2>&1 || return 1
    echo "libFuzzer: LeakSanitizer does not work here; fuzzing without it"
}
if ! libfuzzer_works; then
    echo "libFuzzer: $FUZZ_CC cannot build and run" \
         "-fsanitize=fuzzer,address,undefined here; replayed the corpus only"
    exit 0
fi

count_files() {
    set -- "$1"/*
    if [ -e "$1" ]; then echo $#; else echo 0; fi
}
# What each target compiles in besides itself (as its replay program in
# tests/fuzz/*.inc), and the flags it needs.
target_sources() {
    s=$top_srcdir
    echo "$s/tests/fuzz/fuzz_$1.c $s/framework/errors.c $s/framework/log.c"
    case $1 in
    exchange)
        echo "$s/components/exchange/flood/exchange_flood_module.c" \
             "$s/components/exchange/flood/exchange_flood_collective.c" \
             "$s/components/exchange/flood/exchange_flood_wire.c" \
             "$s/components/exchange/gather_scatter/exchange_gather_scatter_module.c" \
             "$s/runtime/wire/buffer.c" "$s"/framework/tree*.c ;;
    params)
        echo "$s"/framework/param*.c "$s/framework/suggest.c" ;;
    uri)
        echo "$s/runtime/oob/addr.c" ;;
    hosts)
        echo "$s/runtime/hosts/hostlist.c $s/runtime/hosts/hostfile.c" ;;
    pmix_cards)
        echo "$s/components/pmi/pmix/pmi_pmix_cards.c $s/runtime/wire/buffer.c" ;;
    pmi_server)
        echo "$s/components/pmi/simple/parse.c $s/components/pmi/simple/kvs.c" \
             "$s/components/pmi/simple/server.c" \
             "$s/components/pmi/simple/commands.c" \
             "$s/components/pmi/simple/names.c" \
             "$s/components/pmi/simple/spawn.c $s/runtime/wire/buffer.c" ;;
    *)
        [ "$1" != dvm ] || echo "$s/runtime/hnp/dvm_proto.c"
        echo "$s/runtime/wire/buffer.c $s/runtime/wire/frame.c" \
             "$s/components/pmi/simple/parse.c $s/components/pmi/simple/kvs.c" \
             $(ls "$s"/runtime/wire/*.c | grep -v -e '/buffer\.c$' -e '/frame\.c$')
        # The OOB's connection state machine runs on libevent.
        [ "$1" != oob ] ||
            echo "$s"/runtime/oob/*.c \
                 "$(pkg-config --libs libevent_core 2>/dev/null || echo -levent_core)" ;;
    esac
}
target_flags() {
    case $1 in
    hosts)
        echo "-DHNP_HOSTLIST_MAX_NAMES=20000u" \
             "-DHNP_HOSTLIST_MAX_BYTES=((uint64_t)1<<20)" ;;
    pmi_server)
        pkg-config --libs libevent 2>/dev/null || echo -levent ;;
    esac
}
# runtime/wire/auth.c is libsodium's.
sodium_libs=$(pkg-config --libs libsodium 2>/dev/null || echo -lsodium)
for t in $TARGETS; do
    # shellcheck disable=SC2046,SC2086 # the flags and sources are lists
    status=0
    timeout "$STEP_TIMEOUT" "$FUZZ_CC" $fuzz_cflags \
        -I"$top_builddir" -I"$top_srcdir/framework" \
        -I"$top_srcdir/runtime" -I"$top_srcdir/runtime/wire" \
        -I"$top_srcdir/runtime/core" -I"$top_srcdir/tests/fuzz" \
        -I"$top_srcdir/framework/exchange" -I"$top_srcdir/framework/pmi" \
        -I"$top_srcdir/components" $(pkg-config --cflags libevent_core 2>/dev/null) \
        -o "$tmp/fuzz_$t" $(target_sources "$t") $(target_flags "$t") $sodium_libs \
        >"$tmp/build-$t.log" 2>&1 || status=$?
    # Out of time, not in error: the compiler said nothing wrong.
    if [ "$status" = 124 ] && [ ! -s "$tmp/build-$t.log" ]; then
        echo "libFuzzer fuzz_$t: not built within $STEP_TIMEOUT s (the" \
             "machine is too loaded); its corpus was replayed only"
        continue
    fi
    if [ "$status" != 0 ]; then
        cat "$tmp/build-$t.log"
        echo "FAIL: $FUZZ_CC could build a probe but not fuzz_$t"
        exit 1
    fi
    mkdir "$tmp/corpus-$t"
    cp "$corpus/$t"/* "$tmp/corpus-$t/"
    status=0
    timeout $((FUZZ_SECONDS + STEP_TIMEOUT)) "$tmp/fuzz_$t" \
        -max_total_time="$FUZZ_SECONDS" -timeout=30 -max_len=4096 \
        -artifact_prefix="$tmp/crash-$t-" "$tmp/corpus-$t" \
        >"$tmp/fuzz-$t.log" 2>&1 || status=$?
    # Stopped from outside (a machine too loaded to finish in time) with
    # no input at fault: libFuzzer found nothing, it ran out of time. A
    # slow input is its own finding (-timeout writes it as an artifact);
    # its limit is wall-clock time, generous enough that a loaded machine
    # starving the fuzzer of CPU for a few seconds does not look like one.
    if [ "$status" = 124 ] && ! ls "$tmp/crash-$t-"* >/dev/null 2>&1; then
        echo "libFuzzer fuzz_$t: stopped after $((FUZZ_SECONDS + STEP_TIMEOUT)) s" \
             "without a finding (the machine is too loaded to finish in time)"
        continue
    fi
    if [ "$status" != 0 ]; then
        tail -n 60 "$tmp/fuzz-$t.log"
        for crash in "$tmp/crash-$t-"*; do
            [ -f "$crash" ] || continue
            echo "reproducer ($(basename "$crash")), in hex:"
            od -An -tx1 "$crash" | head -n 20
        done
        echo "FAIL: libFuzzer found a problem in fuzz_$t (reproduce: write" \
             "the input above to a file and run tests/fuzz/fuzz_${t}_replay" \
             "FILE; once fixed, keep it as a seed in make-corpus.sh)"
        exit 1
    fi
    echo "libFuzzer fuzz_$t: $(grep '^Done' "$tmp/fuzz-$t.log" || echo "ran")," \
         "corpus grew from $(count_files "$corpus/$t") to" \
         "$(count_files "$tmp/corpus-$t") inputs"
done
