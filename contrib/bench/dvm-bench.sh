#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dvm-bench.sh: what a persistent runtime (hnp --dvm) saves. On N simulated
# nodes (hnp-local-agent as ssh, launch model SEQ/REM), it measures
#   1. `hnp -N 1 /bin/true` started fresh against the same job submitted
#      into a running DVM (hnp --dvm-uri), interleaved (fresh, DVM, fresh,
#      ...), RUNS each: wall time, and for the DVM job the CPU it cost
#      (client, HNP, every daemon and the ranks they started: a cpuacct
#      cgroup holding them all, else /proc's clock ticks);
#   2. the throughput of small jobs (-n 4 on 4 nodes, /bin/true): JOBS jobs
#      back to back from one client, then from 4 clients at once;
#   3. the HNP's and a daemon's RSS and descriptors after 100 and after
#      MANY jobs (4 clients at once, MANY in all), with the rate they ran
#      at; the figures also after every 10,000 jobs, on stderr.
# It writes dvm.csv (one line a measurement) and dvm-report.txt (medians)
# to the output directory. See README.md beside this file.
set -euo pipefail
export LC_ALL=C

ME=dvm-bench
NODES="256 1024"
RUNS=5
JOBS=500
MANY=5000
SEQ=0.01
REM=0.05
HNP=""
OUTDIR=""

usage() {
    cat <<USAGE
usage: $ME [options]
  -n, --nodes LIST   node counts of the fresh-against-DVM runs ($NODES)
  -r, --runs N       runs of each, interleaved ($RUNS)
  -j, --jobs N       jobs of the throughput runs ($JOBS)
      --many N       jobs in all before the last RSS and descriptor figures
                     ($MANY)
  -m, --model S:R    the agent's launch model HNP_AGENT_SEQ:HNP_AGENT_REM
                     in seconds ($SEQ:$REM)
      --hnp PATH     the hnp to run (default: the build tree's, else PATH)
  -o, --outdir DIR   where results go (default: ./$ME-DATE)
  -h, --help         this text
USAGE
}

die() { echo "$ME: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
    -n|--nodes) NODES=$(tr ',' ' ' <<<"$2"); shift 2 ;;
    -r|--runs) RUNS=$2; shift 2 ;;
    -j|--jobs) JOBS=$2; shift 2 ;;
    --many) MANY=$2; shift 2 ;;
    -m|--model) SEQ=${2%%:*}; REM=${2#*:}; shift 2 ;;
    --hnp) HNP=$2; shift 2 ;;
    -o|--outdir) OUTDIR=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
    esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ && $JOBS =~ ^[1-9][0-9]*$ && $MANY =~ ^[1-9][0-9]*$ ]] ||
    die "--runs, --jobs and --many take positive counts"
[ $((JOBS % 4)) = 0 ] || die "--jobs must be a multiple of 4 (4 clients share them)"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "$HNP" ]; then
    for try in "$HERE/../../bin/hnp" "$HERE/../../_build/dev/bin/hnp" "$(command -v hnp || true)"; do
        [ -n "$try" ] && [ -x "$try" ] && { HNP=$try; break; }
    done
fi
[ -n "$HNP" ] && [ -x "$HNP" ] || die "no hnp found: give --hnp PATH"
HNP=$(cd "$(dirname "$HNP")" && pwd)/$(basename "$HNP")
AGENT=""
for try in "$(dirname "$HNP")/../contrib/local-agent/hnp-local-agent" \
           "$(dirname "$HNP")/../libexec/hnp/hnp-local-agent"; do
    [ -x "$try" ] && { AGENT=$try; break; }
done
[ -n "$AGENT" ] || die "no hnp-local-agent beside $HNP"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

OUTDIR=${OUTDIR:-./$ME-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/$ME.XXXXXX")
export TMPDIR=$WORK/tmp HNP_AGENT_LOCKDIR=$WORK/agent
mkdir -p "$TMPDIR"
export HNP_MCA_plm_rsh_agent=$AGENT HNP_MCA_oob_tcp_if_include=127.0.0.1/8
export HNP_AGENT_SEQ=$SEQ HNP_AGENT_REM=$REM
if [ -d "$(dirname "$HNP")/../components" ]; then   # a build tree
    HNP_MCA_mca_base_component_path="$(printf '%s:' "$(dirname "$HNP")"/../components/*/*/.libs)$(dirname "$HNP")/../runtime/.libs"
    export HNP_MCA_mca_base_component_path
fi
CSV=$OUTDIR/dvm.csv
echo "measure,nodes,run,value,unit" >"$CSV"
URI=$WORK/dvm.uri
NAME=b$$n

# The DVM, its daemons, the ranks they start and the clients run in a
# cpuacct cgroup where one can be made: the CPU a DVM job costs is then
# the group's usage across the job, to the nanosecond. Without one it is
# read from /proc in clock ticks (10 ms a process: it undercounts a job
# whose daemons each spend less).
CG=/sys/fs/cgroup/cpuacct/$ME-$$
IN_CG=() # a command's prefix that runs it in the group
if mkdir "$CG" 2>/dev/null; then
    # shellcheck disable=SC2016 # $$ and $@ are the inner shell's
    IN_CG=(sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG")
else
    CG=""
fi
cg_gone() {
    [ -n "$CG" ] || return 0
    local tries=0
    while [ -s "$CG/cgroup.procs" ] && [ $tries -lt 100 ]; do
        sleep 0.1; tries=$((tries + 1))
    done
    rmdir "$CG" 2>/dev/null || true
}
stop_dvm() { [ -s "$URI" ] && "$HNP" --dvm-uri "$URI" --dvm-stop >/dev/null 2>&1 || true; }
trap 'stop_dvm; cg_gone; rm -rf "$WORK"' EXIT
start_dvm() { # N
    rm -f "$URI"
    "${IN_CG[@]}" "$HNP" --dvm --report-uri "$URI" --daemonize -q --host "${NAME}[1-$1]" ||
        die "the DVM on $1 nodes did not start"
}
record() { echo "$1,$2,$3,$4,$5" >>"$CSV"; }
# CPU seconds of the group so far
cg_cpu() { awk '{ printf "%.4f\n", $1 / 1e9 }' "$CG/cpuacct.usage"; }
# CPU seconds (user + system, and of the reaped children) of pids
cpu_of() {
    local hz total=0 p
    hz=$(getconf CLK_TCK)
    for p in "$@"; do
        [ -r "/proc/$p/stat" ] || continue
        total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$p/stat")))
    done
    echo "scale=3; $total / $hz" | bc
}
dvm_pids() { echo "$(sed -n 's/^pid //p' "$URI") $(pgrep -f -- "hnpd --vpid [0-9]* --node ${NAME}" | paste -sd' ')"; }
# wall and CPU of one command: "WALL USER+SYS"
# (a run that failed gives "NA NA": time's last line is its figures)
timed() {
    if /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$@" >/dev/null 2>&1; then
        tail -n 1 "$WORK/time" | awk '{ printf "%s %.3f\n", $1, $2 + $3 }'
    else
        echo "$ME: a run failed: $*" >&2
        echo "NA NA"
    fi
}
# the median of the numbers on stdin (NA left out)
median() { grep -v '^NA$' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -F, -v m="$1" -v n="$2" '$1 == m && $2 == n { print $4 }' "$CSV"; }

# ------------------------------------------------ 1. fresh against DVM
for n in $NODES; do
    start_dvm "$n"
    echo "$ME: $n nodes: $RUNS runs of each, interleaved" >&2
    for r in $(seq "$RUNS"); do
        read -r wall _ <<<"$(timed "$HNP" -N 1 --host "${NAME}f[1-$n]" /bin/true)"
        record fresh_wall "$n" "$r" "$wall" s
        if [ -n "$CG" ]; then
            before=$(cg_cpu)
            read -r wall client_cpu <<<"$(timed "${IN_CG[@]}" "$HNP" --dvm-uri "$URI" -N 1 /bin/true)"
            after=$(cg_cpu)
            client_cpu=${client_cpu/#[0-9]*/0} # counted in the group
        else
            read -r -a pids <<<"$(dvm_pids)"
            before=$(cpu_of "${pids[@]}")
            read -r wall client_cpu <<<"$(timed "$HNP" --dvm-uri "$URI" -N 1 /bin/true)"
            after=$(cpu_of "${pids[@]}")
        fi
        record dvm_wall "$n" "$r" "$wall" s
        if [ "$client_cpu" = NA ]; then
            record dvm_cpu "$n" "$r" NA s
        else
            record dvm_cpu "$n" "$r" "$(echo "$after - $before + $client_cpu" | bc)" s
        fi
    done
    stop_dvm
done

# ------------------------------------------------ 2. throughput
start_dvm 4
TPUT_FAILS=$WORK/throughput-fails
: >"$TPUT_FAILS"
client_loop() { local i; for i in $(seq "$1"); do "$HNP" --dvm-uri "$URI" -q -n 4 -N 1 /bin/true || echo "$i" >>"$TPUT_FAILS"; done; }
for r in $(seq "$RUNS"); do
    t0=$(date +%s.%N); client_loop "$JOBS"; t1=$(date +%s.%N)
    record jobs_per_s_1client 4 "$r" "$(echo "scale=1; $JOBS / ($t1 - $t0)" | bc)" jobs/s
    t0=$(date +%s.%N)
    for c in 1 2 3 4; do client_loop $((JOBS / 4)) & done
    wait
    t1=$(date +%s.%N)
    record jobs_per_s_4clients 4 "$r" "$(echo "scale=1; $JOBS / ($t1 - $t0)" | bc)" jobs/s
done
stop_dvm

# ------------------------------------------------ 3. memory, descriptors
start_dvm 4
hnp_pid=$(sed -n 's/^pid //p' "$URI")
# (the loop's status is its last test's, which pipefail would make the
# script's: the first hnpd found, whatever the others are)
daemon=$(for p in $(pgrep -f -- "hnpd --vpid 2 --node ${NAME}2 "); do
             if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hnpd ]; then
                 echo "$p"; break
             fi
         done)
figures() { # AFTER
    record hnp_rss 4 "$1" "$(awk '/^VmRSS/ { print $2 }' "/proc/$hnp_pid/status")" kB
    record hnp_fds 4 "$1" "$(ls "/proc/$hnp_pid/fd" | wc -l)" fds
    record daemon_rss 4 "$1" "$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status")" kB
    record daemon_fds 4 "$1" "$(ls "/proc/$daemon/fd" | wc -l)" fds
}
# N jobs from client C of 4 (C = 0..3): its share of N, /bin/true and a
# shell in turn (a PMIx namespace each); one line a job that failed, on
# FAILS
many_jobs() { # N C
    local i share=$(($1 / 4 + ($2 < $1 % 4 ? 1 : 0)))
    for i in $(seq "$share"); do
        if [ $((i % 2)) = 1 ]; then
            "$HNP" --dvm-uri "$URI" -q -N 1 /bin/true || echo "$2 $i" >>"$FAILS"
        else
            "$HNP" --dvm-uri "$URI" -q -N 1 sh -c 'exit 0' || echo "$2 $i" >>"$FAILS"
        fi
    done
}
# N jobs from 4 clients at once; records their rate under AFTER (the jobs
# run so far), prints it
many_round() { # N AFTER
    local t0 t1 rate
    t0=$(date +%s.%N)
    for c in 0 1 2 3; do many_jobs "$1" "$c" & done
    wait
    t1=$(date +%s.%N)
    rate=$(echo "scale=1; $1 / ($t1 - $t0)" | bc)
    record many_jobs_per_s 4 "$2" "$rate" jobs/s
    figures "$2"
    echo "$ME: $2 of $MANY jobs run ($(wc -l <"$FAILS") failed), $rate jobs/s;" \
         "HNP $(col_at hnp_rss "$2") kB $(col_at hnp_fds "$2") fds," \
         "daemon $(col_at daemon_rss "$2") kB $(col_at daemon_fds "$2") fds" >&2
}
col_at() { awk -F, -v m="$1" -v k="$2" '$1 == m && $3 == k { print $4 }' "$CSV"; }
FAILS=$WORK/fails
: >"$FAILS"
# the first 100, then rounds of at most 10,000: figures after each, so
# that a run stopped early has said how far it got
done_jobs=0
round=$((MANY < 100 ? MANY : 100))
while [ "$done_jobs" -lt "$MANY" ]; do
    many_round "$round" $((done_jobs + round))
    done_jobs=$((done_jobs + round))
    round=$((MANY - done_jobs < 10000 ? MANY - done_jobs : 10000))
done
stop_dvm

# ------------------------------------------------ the report
{
    echo "# $ME, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, HNP_AGENT_SEQ=$SEQ HNP_AGENT_REM=$REM"
    echo "# $HNP"
    for n in $NODES; do
        f=$(col fresh_wall "$n" | median); d=$(col dvm_wall "$n" | median)
        c=$(col dvm_cpu "$n" | median)
        printf '%5s nodes: fresh hnp %.3f s, DVM job %.3f s (%.1fx faster); DVM job CPU %.3f s, wall / (CPU / 2 cores) = %.2f\n' \
            "$n" "$f" "$d" "$(echo "$f / $d" | bc -l)" "$c" "$(echo "$d / ($c / 2)" | bc -l)"
    done
    printf 'throughput (4 ranks on 4 nodes, /bin/true): %s jobs/s from 1 client, %s jobs/s from 4 clients (medians of %s x %s jobs; %s of them failed)\n' \
        "$(col jobs_per_s_1client 4 | median)" "$(col jobs_per_s_4clients 4 | median)" "$RUNS" "$JOBS" "$(wc -l <"$TPUT_FAILS")"
    first=$((MANY < 100 ? MANY : 100))
    for w in hnp daemon; do
        printf '%s: %s kB, %s fds after %s jobs; %s kB, %s fds after %s jobs\n' "$w" \
            "$(col_at ${w}_rss "$first")" "$(col_at ${w}_fds "$first")" "$first" \
            "$(col_at ${w}_rss "$MANY")" "$(col_at ${w}_fds "$MANY")" "$MANY"
    done
    printf '%s jobs from 4 clients (/bin/true and sh -c in turn): %s failed, %s jobs/s past the first %s\n' \
        "$MANY" "$(wc -l <"$FAILS")" \
        "$(awk -F, -v k="$first" '$1 == "many_jobs_per_s" && $3 > k { n += $3 - p; t += ($3 - p) / $4 } $1 == "many_jobs_per_s" { p = $3 } END { if (t > 0) printf "%.1f", n / t; else print "NA" }' "$CSV")" "$first"
} | tee "$OUTDIR/dvm-report.txt"
