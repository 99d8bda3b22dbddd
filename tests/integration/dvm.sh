#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A persistent runtime (hnp --dvm) on 16 simulated nodes and jobs submitted
# into it (hnp --dvm-uri): output, exit statuses and stdin as a standalone
# hnp gives them; a failing job, an interrupted client, a SIGKILLed client
# and a daemon killed mid-run each end their job only, the DVM serving on;
# a job waits for slots a running one holds (or is refused with
# --dvm-nowait); a wrong
# secret, a stranger on the socket and another user are refused; and
# --dvm-stop leaves nothing behind.
. "$top_srcdir/tests/integration/lib.sh"

uri="$tmp/dvm.uri"
dvm_log="$tmp/dvm.log"

# A rank that says it is up, then waits to be ended.
cat >"$tmp/spin.sh" <<'SPIN'
#!/bin/sh
echo "ready $HNP_RANK $HNP_NODE"
while :; do sleep 0.1; done
SPIN
chmod +x "$tmp/spin.sh"

ranks_alive() { pgrep -f -- "^/bin/sh $tmp/spin.sh" | wc -l; }
# wait_no_ranks WHAT: every spinning rank gone within 10 s.
wait_no_ranks() {
    for _ in $(seq 100); do
        [ "$(ranks_alive)" = 0 ] && return 0
        sleep 0.1
    done
    ps -o pid,args -p "$(pgrep -f -- "^/bin/sh $tmp/spin.sh" | paste -sd,)" || true
    fail "ranks left behind after: $1"
}
dvm_pid() { sed -n 's/^pid //p' "$uri"; }
dvm_alive() { kill -0 "$(dvm_pid)" 2>/dev/null; }
submit() { run_hnp --dvm-uri "$uri" "$@"; }

# ------------------------------------------------------------- the DVM
timeout -k 5 600 "$HNP" --dvm --report-uri "$uri" --daemonize --host "$(hosts 16)" \
    >"$dvm_log" 2>&1 || { cat "$dvm_log"; fail "hnp --dvm --daemonize failed"; }
[ -s "$uri" ] || fail "--daemonize returned before the file was written"
[ "$(stat -c %a "$uri")" = 600 ] || fail "the DVM's file is mode $(stat -c %a "$uri"), not 600"
dvm_alive || fail "the DVM is not running after --daemonize"
[ "$(pgrep -fc -- "hnpd --vpid [0-9]* --node ${prefix}n")" -ge 16 ] || fail "not 16 daemons up"

# ------------------------------------------------------------- jobs
submit -N 1 sh -c 'echo "$HNP_RANK $HNP_NODE"'
expect_status 0 "one rank a node"
expect_one_rank_per_node 16
submit -n 3 sh -c 'echo "rank $HNP_RANK"; exit 3'
expect_status 3 "a job whose ranks exit 3"
expect_in "$tmp/err" "exited with status 3" "the failure named"
# the next job runs as if nothing happened, its id a new one
submit -n 2 --tag-output sh -c 'echo "job $HNP_JOBID"'
expect_status 0 "a job after a failed one"
expect_in "$tmp/out" '^\[3,1\]<stdout>:job 3$' "--tag-output with the job's id"
echo "a line of stdin" | run_hnp --dvm-uri "$uri" -n 2 cat
expect_status 0 "stdin to rank 0"
[ "$(cat "$tmp/out")" = "a line of stdin" ] || fail "stdin did not reach rank 0 alone: $(cat "$tmp/out")"
submit -n 1 -x HNPTEST_VALUE sh -c 'echo "value=$HNPTEST_VALUE"'
expect_status 0 "-x of a variable the client does not have (a warning, as standalone)"
expect_in "$tmp/err" "HNPTEST_VALUE is not set" "-x read in the client's environment"
HNPTEST_VALUE=forty-two submit -n 1 --wdir "$tmp" -x HNPTEST_VALUE sh -c 'pwd; echo "value=$HNPTEST_VALUE"'
expect_status 0 "--wdir and -x"
expect_in "$tmp/out" "^$tmp\$" "--wdir"
expect_in "$tmp/out" "^value=forty-two\$" "-x from the client's environment"
# --mca and --tune of a client: Open MPI's are the job's (to its ranks, over
# the client's OMPI_MCA_*), hnp's are the DVM's (its own value only)
printf 'coll_tuned_use_dynamic_rules = 1\n' >"$tmp/job.tune"
OMPI_MCA_btl=self OMPI_MCA_pml=ob1 submit --mca btl self,tcp --tune "$tmp/job.tune" \
    -n 1 sh -c 'echo "btl=$OMPI_MCA_btl pml=$OMPI_MCA_pml rules=$OMPI_MCA_coll_tuned_use_dynamic_rules"'
expect_status 0 "--mca and --tune of Open MPI's given to a client"
expect_in "$tmp/out" "^btl=self,tcp pml=ob1 rules=1\$" "Open MPI's --mca, --tune and OMPI_MCA_* reach the job's ranks"
submit --mca routed_radix_degree 3 -n 1 true
expect_status 1 "--mca of the DVM's routing given to a client"
expect_in "$tmp/err" "routed_radix_degree 3: .*give it to hnp --dvm" "the refusal names the parameter and where it belongs"
submit --mca rte_heartbeat_interval "$HNP_MCA_rte_heartbeat_interval" -n 1 true
expect_status 0 "--mca of the value the DVM runs with"
submit --mca no_such_thing 1 -n 1 true
expect_status 1 "--mca of a name nobody has"
expect_in "$tmp/err" "no_such_thing" "the unknown name"
submit -n 1 /no/such/program
expect_status 127 "a program that does not exist"
submit -n 99 hostname
expect_status 1 "more ranks than slots"
expect_in "$tmp/err" "16 slots" "the refusal's figures"
dvm_alive || fail "the DVM died with a job's failure"

# ------------------------------------------------------ SIGINT, SIGKILL
start_hnp --dvm-uri "$uri" -N 1 "$tmp/spin.sh"
wait_ready 16
kill -INT "$hnp_pid"
finish
expect_status 130 "a client interrupted"
wait_no_ranks "SIGINT to a client"

start_hnp --dvm-uri "$uri" -n 4 "$tmp/spin.sh"
wait_ready 4
kill -KILL "$(pgrep -P "$hnp_pid")"   # the client, not its timeout
finish
wait_no_ranks "a client SIGKILLed"
submit -n 2 sh -c 'echo "after $HNP_RANK"'
expect_status 0 "a job after a SIGKILLed client"

# ------------------------------------------------ waiting, --dvm-nowait
# a job on every slot: the next one does not fit
start_hnp --dvm-uri "$uri" -N 1 "$tmp/spin.sh"
wait_ready 16
first=$hnp_pid
run_hnp --dvm-uri "$uri" --dvm-jobs
expect_status 0 "--dvm-jobs"
expect_in "$tmp/out" "running.*spin.sh" "the running job listed"
run_hnp --dvm-uri "$uri" --dvm-nowait -n 1 hostname
expect_status 1 "--dvm-nowait while a job holds every slot"
expect_in "$tmp/err" "needs 1 slots, 0 free of 16" "the refusal's figures"
timeout -k 5 60 "$HNP" --dvm-uri "$uri" -n 1 sh -c 'echo second job ran' >"$tmp/waiting.out" 2>"$tmp/waiting.err" &
waiter=$!
for _ in $(seq 100); do grep -q waiting "$tmp/waiting.err" && break; sleep 0.1; done
expect_in "$tmp/waiting.err" "waiting: job" "the waiting job told"
[ -s "$tmp/waiting.out" ] && fail "a job ran while another held every slot"
kill -TERM "$first"
wait "$first" || true
status=0; wait "$waiter" || status=$?
[ "$status" = 0 ] || fail "the waiting job ended with $status"
expect_in "$tmp/waiting.out" "second job ran" "the waiting job ran once the first ended"
wait_no_ranks "a waiting job"

# ------------------------------------------------------ authentication
sed 's/^secret .*/secret 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff/' \
    "$uri" >"$tmp/wrong.uri"
chmod 600 "$tmp/wrong.uri"
run_hnp --dvm-uri "$tmp/wrong.uri" -n 1 hostname
[ "$status" != 0 ] || fail "a client with a wrong secret was served"
expect_in "$tmp/err" "secret" "the wrong secret said"
sock=$(sed -n 's/^uri unix://p' "$uri")
python3 - "$sock" <<'PY' || fail "the stranger could not even connect"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"\x00\x00\x00\x2cGET / HTTP/1.0\r\n\r\n" + b"x" * 40)
s.settimeout(10)
try:
    data = s.recv(100)
except OSError:
    data = b""
sys.exit(0 if data == b"" else 1)
PY
submit -n 2 sh -c 'echo still serving'
expect_status 0 "a job after a stranger"
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
    echo "note: the other user's client is not tried: it needs root, useradd and setpriv"
else
    other="hnpdvm$$"
    useradd -M -N -s /bin/false "$other" 2>/dev/null || fail "useradd $other failed"
    # Everything readable to it, the file too: only the peer's uid is left
    # to refuse it.
    cp "$uri" "$tmp/other.uri"
    chmod 644 "$tmp/other.uri"
    chmod o+rx "$tmp" "$(dirname "$sock")" "$TMPDIR"
    chmod o+rw "$sock"
    status=0
    timeout -k 5 60 setpriv --reuid "$other" --regid "$(id -g "$other")" --clear-groups \
        "$HNP" --dvm-uri "$tmp/other.uri" -n 1 hostname >"$tmp/other.out" 2>"$tmp/other.err" || status=$?
    userdel "$other" 2>/dev/null || true
    chmod o-rwx "$sock" "$(dirname "$sock")" "$tmp" "$TMPDIR"
    [ "$status" != 0 ] || fail "another user's client was served: $(cat "$tmp/other.out")"
    [ -s "$tmp/other.out" ] && fail "another user's job ran: $(cat "$tmp/other.out")"
fi
dvm_alive || fail "the DVM died of a refused client"
submit -N 1 sh -c 'echo "$HNP_RANK $HNP_NODE"'
expect_status 0 "a job after the refusals"
expect_one_rank_per_node 16

# ------------------------------------------------------ a daemon dies
start_hnp --dvm-uri "$uri" -N 1 "$tmp/spin.sh"
wait_ready 16
killed=$(daemon_pid "${prefix}n5")
kill -KILL "$killed"
finish
# what only that daemon could have removed (its scratch directories)
rm -rf "$TMPDIR"/hnp-*-"$killed"-* "$TMPDIR"/hnp-pmix."$killed".*
[ "$status" != 0 ] || fail "a job lost a node and ended well"
expect_in "$tmp/err" "${prefix}n5" "the lost node named"
wait_no_ranks "a daemon killed"
submit -N 1 sh -c 'echo "$HNP_RANK $HNP_NODE"'
expect_status 0 "a job after a daemon died"
expect_one_rank_per_node 15
grep -q "${prefix}n5\$" "$tmp/out" && fail "a job ran on the lost node"

# ------------------------------------------------------ --dvm-stop
start_hnp --dvm-uri "$uri" -n 2 "$tmp/spin.sh"
wait_ready 2
pid=$(dvm_pid)
status=0
timeout -k 5 60 "$HNP" --dvm-uri "$uri" --dvm-stop || status=$?
[ "$status" = 0 ] || fail "--dvm-stop ended with $status"
finish
expect_status 143 "the running job's client at --dvm-stop"
kill -0 "$pid" 2>/dev/null && fail "the DVM runs after --dvm-stop returned"
[ -e "$uri" ] && fail "the DVM's file is left after --dvm-stop"
assert_no_leftovers "--dvm-stop"
assert_no_files_left "--dvm-stop"
echo "PASS"
