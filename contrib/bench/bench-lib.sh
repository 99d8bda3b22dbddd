# shellcheck shell=bash
# Sourced by the benchmark drivers: messages, options, and finding and
# ending a run's processes. The driver sets ME (its name for messages).

say() { printf '%s: %s\n' "$ME" "$*"; }
die() {
    printf '%s: error: %s\n' "$ME" "$*" >&2
    exit 1
}

# Lists may come comma-separated from the command line.
words() { printf '%s\n' "${1//,/ }"; }

need_arg() { [ $# -ge 2 ] || die "option $1 needs a value (see --help)"; }

# Every process of a run inherits HNP_BENCH_RUN (the agent passes the
# environment on, to daemons and proxies alike), so stragglers are found
# by pid, without touching anyone else's processes.

marked_pids() { # REGEX: pids whose environment has HNP_BENCH_RUN=REGEX
    local f
    { grep -lzE -- "^HNP_BENCH_RUN=$1\$" /proc/[0-9]*/environ 2>/dev/null || true; } |
        while read -r f; do
            f=${f#/proc/}
            printf '%s\n' "${f%/environ}"
        done
}

# sweep REGEX GRACE: wait up to GRACE seconds for the run's processes to
# end by themselves, then TERM and KILL the rest, each by its pid. Prints
# how many had to be killed.
sweep() {
    local regex=$1 grace=$2 pids p i killed=0
    for ((i = 0; i < grace * 10; i++)); do
        pids=$(marked_pids "$regex")
        # "return 0", not "return": from the EXIT trap a bare return would
        # give the status the script is exiting with, and set -e would stop
        # the clean-up half way.
        if [ -z "$pids" ]; then
            echo 0
            return 0
        fi
        sleep 0.1
    done
    pids=$(marked_pids "$regex")
    for p in $pids; do kill -TERM "$p" 2>/dev/null && killed=$((killed + 1)); done
    [ -n "$pids" ] && sleep 0.5
    for p in $(marked_pids "$regex"); do kill -KILL "$p" 2>/dev/null || true; done
    echo "$killed"
}
