#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The rooms are enforced by the compiler: a component is compiled with the
# flags of the in-tree components ($hnp_component_cppflags, from the
# Makefile), in the build tree. It compiles with the installed headers and
# the build's config.h; it does not compile when it includes a header of
# the runtime's rooms (the core's, the wire's, a framework's private base).
# Exit status: 0 pass, 1 fail, 77 skip.
set -eu

: "${top_builddir:?run me through make check, or set top_builddir}"
: "${hnp_component_cppflags:?run me through make check (it passes the components flags)}"

skip() { echo "SKIP: $*"; exit 77; }
CC=${CC:-cc}
command -v "${CC%% *}" >/dev/null 2>&1 || skip "no C compiler ($CC)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hnp-rooms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$top_builddir"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# compile NAME HEADER...: a component source NAME.c that includes each
# HEADER, compiled as an in-tree component is; the compiler's status.
compile() {
    name=$1
    shift
    {
        echo '#include "config.h"'
        for h in "$@"; do printf '#include "%s"\n' "$h"; done
        echo 'int routed_rooms_anchor;'
    } >"$tmp/$name.c"
    # shellcheck disable=SC2086 # the flags are a list
    $CC $hnp_component_cppflags -c -o "$tmp/$name.o" "$tmp/$name.c" \
        >"$tmp/$name.log" 2>&1
}

# The contract compiles.
compile contract hnp_errors.h hnp_log.h hnp_mca.h hnp_rte.h hnp_buffer.h \
    hnp_plm.h hnp_routed.h hnp_exchange.h hnp_pmi.h ||
    { cat "$tmp/contract.log"; fail "a component that includes the installed headers does not compile"; }

# The rooms do not: the core's context and parameters, the wire's frames
# and messages, the daemon's and the programs' headers, the framework's
# private base headers and the component repository.
for h in rte.h params.h frame.h launch.h auth.h daemon.h pmi_base.h \
    routed_base.h hnp_mca_base.h mca_repository.h param_internal.h \
    runtime/core/rte.h core/rte.h; do
    name=room_$(echo "$h" | tr '/.' '__')
    if compile "$name" "$h"; then
        fail "a component that includes \"$h\" compiles; it must not see the runtime's rooms"
    elif ! grep -q "$h" "$tmp/$name.log"; then
        cat "$tmp/$name.log"
        fail "a component that includes \"$h\" fails, but not for want of $h"
    fi
done

[ "$failures" -eq 0 ] || exit 1
echo "PASS: a component compiles with the installed headers and not with a header of the runtime's rooms"
