#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Several jobs at once in a persistent runtime (hnp --dvm) of 4 simulated
# nodes of one slot each: two jobs that can only finish together (one
# reads a fifo the other writes) both finish, each client with exactly its
# own output, its own error lines and its own exit status; a client's
# SIGINT ends its job only, the other running on untouched; --dvm-jobs
# lists both; --dvm-nowait is refused with the figures only when the slots
# are short; a waiting job starts when slots free; a job that could never
# fit is refused at once.
. "$top_srcdir/tests/integration/lib.sh"

uri="$tmp/dvm.uri"
dvm_log="$tmp/dvm.log"

# A job that may use MPI (a shell script) runs beside the others too, as
# MPI jobs do (dvm-mpi-concurrent.sh).
# ranks_of ARG: this test's processes "cat ARG" (the ranks of one job).
ranks_of() {
    local p n=0
    for p in $(pgrep -f -- "^cat $1\$" || true); do
        grep -qzx -- "HNPTEST_MARK=$prefix" "/proc/$p/environ" 2>/dev/null && n=$((n + 1))
    done
    echo "$n"
}
dvm_pid() { sed -n 's/^pid //p' "$uri"; }

# client NAME ARGS...: a client in the background, its stdin from
# $client_in (/dev/null), stdout and stderr in $tmp/NAME.out and .err, its
# pid in $client_pid.
client() {
    local name=$1
    shift
    : >"$tmp/$name.out"
    : >"$tmp/$name.err"
    # not holding the test's ends of the other clients' stdin (7, 8, 9)
    timeout -k 5 120 "$HNP" --dvm-uri "$uri" "$@" <"${client_in:-/dev/null}" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" 7>&- 8>&- 9>&- &
    client_pid=$!
}
# wait_lines FILE PATTERN N: until N lines of FILE match (15 s at most).
wait_lines() {
    for _ in $(seq 150); do
        [ "$(grep -c -- "$2" "$1" || true)" -ge "$3" ] && return 0
        sleep 0.1
    done
    echo "--- $1"; cat "$1"; echo "--- ${1%.*}.err"; cat "${1%.*}.err"; fail "no $3 lines '$2' in $1"
}
# status_of PID: its exit status in $status.
status_of() { status=0; wait "$1" || status=$?; }

timeout -k 5 300 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 4)" \
    >"$dvm_log" 2>&1 || { cat "$dvm_log"; fail "hnp --dvm --daemonize failed"; }

# --------------------------------------------- two jobs that need each other
# A opens the fifo to read, B to write: each open waits for the other, so
# both finish only if both run at once. A's head then fails on a missing
# file (status 1); B's tee copies its client's stdin (status 0).
mkfifo "$tmp/fifo"
client A -n 1 head -n 1 "$tmp/fifo" "$tmp/missing"
a=$client_pid
printf 'from-B\n' >"$tmp/B.in"
client_in="$tmp/B.in" client B -n 1 tee "$tmp/fifo"
b=$client_pid
status_of "$a"
a_status=$status
status_of "$b"
[ "$a_status" = 1 ] || { cat "$tmp/A.err"; fail "job A ended with $a_status, not 1 (the jobs did not run at once?)"; }
[ "$status" = 0 ] || { cat "$tmp/B.err"; fail "job B ended with $status, not 0"; }
[ "$(cat "$tmp/A.out")" = "$(printf '==> %s <==\nfrom-B' "$tmp/fifo")" ] ||
    fail "client A's output is not its job's alone: $(cat "$tmp/A.out")"
[ "$(cat "$tmp/B.out")" = "from-B" ] || fail "client B's output is not its job's alone: $(cat "$tmp/B.out")"
expect_in "$tmp/A.err" "missing" "job A's own error output"
expect_in "$tmp/A.err" "exited with status 1" "job A's failure told to its client"
[ -s "$tmp/B.err" ] && fail "client B got another job's messages: $(cat "$tmp/B.err")"

# ------------------------------------------ --dvm-jobs; SIGINT ends one only
# Each job's rank 0 echoes what the test writes into its client's stdin.
mkfifo "$tmp/inA" "$tmp/inB" "$tmp/inC"
client_in="$tmp/inA" client A -n 2 cat -u
a=$client_pid
exec 7>"$tmp/inA"
client_in="$tmp/inB" client B -n 1 cat -v
b=$client_pid
exec 8>"$tmp/inB"
echo "ready A" >&7
echo "ready B" >&8
wait_lines "$tmp/A.out" '^ready A' 1
wait_lines "$tmp/B.out" '^ready B' 1
timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-jobs >"$tmp/jobs.out" 2>&1 || fail "--dvm-jobs failed"
expect_in "$tmp/jobs.out" "running.*cat -u" "job A listed running"
expect_in "$tmp/jobs.out" "running.*cat -v" "job B listed running"
kill -INT "$a"
status_of "$a"
exec 7>&-
[ "$status" = 130 ] || fail "the interrupted client ended with $status, not 130"
for _ in $(seq 100); do [ "$(ranks_of -u)" = 0 ] && break; sleep 0.1; done
[ "$(ranks_of -u)" = 0 ] || fail "job A's ranks outlived its SIGINT"
[ "$(ranks_of -v)" = 1 ] || fail "job B's rank ended with job A"
echo "still B" >&8
wait_lines "$tmp/B.out" '^still B' 1
[ "$(cat "$tmp/B.out")" = "$(printf 'ready B\nstill B')" ] || fail "job B's output touched: $(cat "$tmp/B.out")"
[ -s "$tmp/B.err" ] && fail "job B's client got another job's messages: $(cat "$tmp/B.err")"
# A --timeout (a timer of the HNP's, no daemon's message) ends its job,
# said to its client only.
run_hnp --dvm-uri "$uri" --timeout 1 -n 1 cat "$tmp/fifo"
expect_status 124 "a job past its --timeout"
expect_in "$tmp/err" "longer than --timeout 1" "the --timeout told to its client"
[ -s "$tmp/B.err" ] && fail "job B's client got another job's --timeout: $(cat "$tmp/B.err")"

# ------------------------------------------------ --dvm-nowait, waiting
# B holds 1 slot of 4: a job of 1 rank is taken at once even with nowait.
run_hnp --dvm-uri "$uri" --dvm-nowait -n 1 echo taken
expect_status 0 "--dvm-nowait with slots free"
[ "$(cat "$tmp/out")" = taken ] || fail "the --dvm-nowait job's output: $(cat "$tmp/out")"
run_hnp --dvm-uri "$uri" --dvm-nowait -n 1 sh -c 'echo shell'
expect_status 0 "--dvm-nowait of a job that may use MPI while another runs"
[ "$(cat "$tmp/out")" = shell ] || fail "the shell job beside B: $(cat "$tmp/out")"
client_in="$tmp/inC" client C -n 3 cat -s
c=$client_pid
exec 9>"$tmp/inC"
echo "ready C" >&9
wait_lines "$tmp/C.out" '^ready C' 1
run_hnp --dvm-uri "$uri" --dvm-nowait -n 1 echo ran
expect_status 1 "--dvm-nowait with no slot free"
expect_in "$tmp/err" "needs 1 slots, 0 free of 4" "the refusal's figures"
[ -s "$tmp/out" ] && fail "a refused job ran"
client D -n 2 echo "D ran"
d=$client_pid
wait_lines "$tmp/D.err" "waiting: job" 1
expect_in "$tmp/D.err" "needs 2 slots, 0 free of 4" "the waiting job's figures"
[ -s "$tmp/D.out" ] && fail "a job ran on slots not free"
exec 9>&- # C's stdin ends: C's ranks end, its 3 slots free
status_of "$c"
[ "$status" = 0 ] || fail "job C ended with $status"
status_of "$d"
[ "$status" = 0 ] || { cat "$tmp/D.err"; fail "the waiting job ended with $status"; }
[ "$(cat "$tmp/D.out")" = "$(printf 'D ran\nD ran')" ] ||
    fail "the waiting job did not run once slots freed: $(cat "$tmp/D.out")"

# ------------------------------------------- a job that could never fit
for mode in --dvm-wait --dvm-nowait; do
    run_hnp --dvm-uri "$uri" "$mode" -n 5 hostname
    expect_status 1 "5 ranks on 4 slots ($mode)"
    expect_in "$tmp/err" "needs 5 slots.*has 4" "the figures of a job that never fits ($mode)"
done
kill -0 "$b" 2>/dev/null || fail "client B ended while other jobs came and went"
echo "last B" >&8
exec 8>&-
status_of "$b"
[ "$status" = 0 ] || fail "client B ended with $status, not 0"
[ "$(cat "$tmp/B.out")" = "$(printf 'ready B\nstill B\nlast B')" ] || fail "job B's output touched: $(cat "$tmp/B.out")"
pid=$(dvm_pid)
timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-stop || fail "--dvm-stop failed"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the DVM runs after --dvm-stop"
assert_no_leftovers "--dvm-stop"
echo "PASS"
