#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build hnp, install it under _build/install, and run a real job on a
# simulated cluster of 16 nodes on this machine: each "node" gets its own
# daemon, started through the local agent that stands in for ssh, and the
# daemons talk over real TCP on the loopback interface.
#
#   contrib/demo.sh [hnp options...]     (default: -N 2 on node[01-16])
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/_build/demo"
prefix="$top/_build/install"

"$top/contrib/install-deps.sh"
if [ ! -x "$prefix/bin/hnp" ] || [ "${HNP_DEMO_REBUILD:-0}" = 1 ]; then
    echo "=== building hnp into $prefix"
    (cd "$top" && ./autogen.sh >/dev/null 2>&1)
    mkdir -p "$build"
    (cd "$build" && "$top/configure" -q --prefix="$prefix" >/dev/null &&
     make -s -j2 >/dev/null && make -s install >/dev/null)
fi

agent="$prefix/libexec/hnp/hnp-local-agent"
[ $# -gt 0 ] || set -- -N 2 --host 'node[01-16]'
echo "=== hnp $* (agent: the local stand-in for ssh; loopback only)"
exec "$prefix/bin/hnp" --mca plm_rsh_agent "$agent" \
    --mca oob_tcp_if_include 127.0.0.1/8 "$@" \
    sh -c 'echo "rank $HNP_RANK of $HNP_SIZE on node $HNP_NODE (local rank $HNP_LOCAL_RANK, pid $$)"'
