#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The daemons run under valgrind's memcheck, and it finds no error in
# them, libpmix's server included: jobs of `sh` ranks, of PMIx clients
# that fence and read each other's keys, one that ends while a rank waits
# for another node's data (pmix-held.sh), and an Open MPI ring, on 2
# nodes. Under valgrind the daemon forks its sentinel: valgrind ends a
# program that makes a clone sharing its memory without being a thread
# ("Unsupported clone() flags"), and before that no daemon could run
# under it at all. Skipped without valgrind, and in a sanitizer's build.
. "$top_srcdir/tests/integration/lib.sh"

command -v valgrind >/dev/null || skip "valgrind is not installed"
address_sanitized && skip "a build with AddressSanitizer, which valgrind cannot run"

# The local agent, with each hnpd it starts under valgrind: the daemon's
# path (quoted as the launcher quotes it) gets valgrind before it.
hnpd="$top_builddir/bin/hnpd"
mkdir -p "$tmp/vg"
cat >"$tmp/vg-agent" <<'AGENT'
#!/bin/bash
args=()
for a in "$@"; do
    args+=("${a/"'@HNPD@'"/"valgrind -q --log-file=@VG@/%p.log '@HNPD@'"}")
done
exec "@AGENT@" "${args[@]}"
AGENT
sed -i -e "s|@HNPD@|$hnpd|g" -e "s|@VG@|$tmp/vg|g" -e "s|@AGENT@|$AGENT|g" "$tmp/vg-agent"
chmod +x "$tmp/vg-agent"
export HNP_MCA_plm_rsh_agent="$tmp/vg-agent"
# A daemon under valgrind starts in seconds, not milliseconds.
slow=(--mca oob_tcp_handshake_timeout 120 --mca plm_base_launch_timeout 300
      --mca plm_base_launch_warn 0)
export HNP_TEST_TIMEOUT=300

# valgrind_clean WHAT: no daemon's log holds a report (valgrind -q writes
# nothing else), and the daemons did run under it.
valgrind_clean() {
    local n
    n=$(find "$tmp/vg" -name '*.log' | wc -l)
    [ "$n" -ge 2 ] || fail "$1: $n valgrind logs, the daemons did not run under it"
    if grep -l . "$tmp"/vg/*.log >/dev/null 2>&1; then
        for log in $(grep -l . "$tmp"/vg/*.log); do
            echo "--- $log"; head -n 60 "$log"
        done
        fail "$1: valgrind reported errors in a daemon"
    fi
}

run_hnp "${slow[@]}" -N 2 --host "${prefix}n1:2,${prefix}n2:2" sh -c 'echo "rank $HNP_RANK"'
expect_status 0 "sh ranks, daemons under valgrind"
[ "$(grep -c '^rank [0-3]$' "$tmp/out")" = 4 ] || { cat "$tmp/out" "$tmp/err"; fail "not 4 ranks"; }
valgrind_clean "sh ranks"
assert_no_leftovers "sh ranks"

if ! pmix_missing >/dev/null; then
    build_pmix pmix-held
    run_hnp "${slow[@]}" -N 2 --host "${prefix}n1:2,${prefix}n2:2" "$tmp/pmix-held"
    expect_status 0 "PMIx clients, daemons under valgrind"
    [ "$(grep -c '^fenced [0-3] of 4$' "$tmp/out")" = 4 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "PMIx clients: not 4 ranks fenced"; }
    valgrind_clean "PMIx clients"

    # rank 1 exits once rank 0's request for its data is held on its node
    start_hnp "${slow[@]}" --mca pmi_base_verbose 5 -N 1 --host "${prefix}n1,${prefix}n2" \
        "$tmp/pmix-held" "$tmp/gate"
    for _ in $(seq 1200); do
        grep -q "direct modex: rank 1 of .* asked of this node" "$tmp/err" && break
        sleep 0.1
    done
    touch "$tmp/gate"
    finish
    expect_status 7 "a job ended with a request held, daemons under valgrind"
    valgrind_clean "a request held at the job's end"
    assert_no_leftovers "PMIx clients"

    . "$top_srcdir/tests/integration/ompi-lib.sh"
    if ! ompi_missing >/dev/null; then
        build_ompi mpi_ring
        run_hnp "${slow[@]}" "${OMPI_X[@]}" -N 2 --host "${prefix}n1:2,${prefix}n2:2" "$tmp/mpi_ring"
        expect_status 0 "an Open MPI ring, daemons under valgrind"
        valgrind_clean "an Open MPI ring"
        assert_no_leftovers "an Open MPI ring"
    fi
fi
echo "PASS"
