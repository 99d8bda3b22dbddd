#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The option matrix: every Open MPI mpirun option hnp accepts (and MPICH's
# spellings it takes), in one command line each, checked against where
# each rank ran and the environment it got. The hwloc options run on the
# topology of tests/topo (2 sockets x 2 NUMA nodes x 4 cores x 2 threads);
# mapping.sh checks their placements inside a node in depth.
. "$top_srcdir/tests/integration/lib.sh"

big="$top_srcdir/tests/topo/2sock-4numa-smt2.xml"
n1="${prefix}n1" n2="${prefix}n2" n3="${prefix}n3" n4="${prefix}n4"
# shellcheck disable=SC2016 # expanded by each rank's shell
where='echo "R $HNP_RANK $HNP_NODE"'
# shellcheck disable=SC2016
envs='echo "E $HNP_RANK ${OPT_A-unset} ${OPT_B-unset} ${OPT_C-unset} $(pwd)"'

# placed WHAT ARGS...: run `ARGS sh -c $where`, which must succeed.
placed() {
    local what=$1
    shift
    run_hnp "$@" sh -c "$where" "$prefix"
    expect_status 0 "$what"
}
# expect_placement "RANK:NODE ..." WHAT: every rank ran where listed (node
# names without the test's prefix), and no other rank ran.
expect_placement() {
    local got
    got=$(sed -n "s/^R \([0-9]*\) $prefix\(.*\)$/\1:\2/p" "$tmp/out" | sort -n | paste -sd' ')
    [ "$got" = "$1" ] || { cat "$tmp/err"; fail "$2: ranks ran at '$got', expected '$1'"; }
}
# expect_env RANK "A B C PWD" WHAT: what rank RANK saw of OPT_A, OPT_B,
# OPT_C and its working directory ("unset" when not set).
expect_env() {
    local got
    got=$(sed -n "s/^E $1 //p" "$tmp/out")
    [ "$got" = "$2" ] || { cat "$tmp/out" "$tmp/err"; fail "$3: rank $1 saw '$got', expected '$2'"; }
}
expect_not_in() { # FILE PATTERN WHAT
    if grep -q -- "$2" "$1"; then cat "$1"; fail "$3: '$2' should not be there"; fi
}

# --- How many, and on which hosts
for np in -n -np --np -c; do
    placed "$np 3" "$np" 3 --host "$n1:2,$n2:2"
    expect_placement "0:n1 1:n1 2:n2" "$np 3"
done
for pernode in -N -npernode --npernode -ppn; do
    placed "$pernode 2" "$pernode" 2 --host "$n1:2,$n2:2,$n3:2"
    expect_placement "0:n1 1:n1 2:n2 3:n2 4:n3 5:n3" "$pernode 2"
done
for host in -H -host --host -hosts --hosts; do
    placed "$host" "$host" "$n2,$n1"
    expect_placement "0:n2 1:n1" "$host"
done
printf '# hosts\n%s slots=2\n%s\n' "$n3" "$n1" >"$tmp/hostfile"
for hostfile in -hostfile --hostfile -machinefile --machinefile -f; do
    placed "$hostfile" "$hostfile" "$tmp/hostfile"
    expect_placement "0:n3 1:n3 2:n1" "$hostfile"
done
# MPICH's machinefile: HOST:N
printf '%s:3\n%s:1 # one\n' "$n2" "$n4" >"$tmp/machinefile"
placed "-f HOST:N" -f "$tmp/machinefile"
expect_placement "0:n2 1:n2 2:n2 3:n4" "machinefile HOST:N"
placed "-f HOST:N -ppn 1" -f "$tmp/machinefile" -ppn 1
expect_placement "0:n2 1:n4" "machinefile with -ppn 1"

# --default-hostfile: the hosts when no other is named.
placed "--default-hostfile" --default-hostfile "$tmp/hostfile"
expect_placement "0:n3 1:n3 2:n1" "--default-hostfile alone"
placed "--default-hostfile with --host" --default-hostfile "$tmp/hostfile" --host "$n4"
expect_placement "0:n4" "--host wins over --default-hostfile"
run_hnp --default-hostfile "$tmp/no-such-file" true
expect_status 1 "--default-hostfile missing"
expect_in "$tmp/err" "cannot open hostfile $tmp/no-such-file" "missing default hostfile named"

# --oversubscribe, --nooversubscribe: the last one holds.
placed "--oversubscribe" -n 3 --host "$n1" --oversubscribe
expect_placement "0:n1 1:n1 2:n1" "--oversubscribe"
run_hnp -n 3 --host "$n1" --oversubscribe -nooversubscribe true
expect_status 1 "--nooversubscribe"
expect_in "$tmp/err" "3 processes requested but the 1 node has 1 slot" "--nooversubscribe: not enough slots"
placed "-oversubscribe last" -n 2 --host "$n1" --nooversubscribe -oversubscribe
expect_placement "0:n1 1:n1" "-oversubscribe given last"

# --- Mapping and binding (hwloc on the XML topology)
export HNP_MCA_hwloc_base_topo_file="$big"
for per in -npersocket --npersocket; do
    placed "$per 1" "$per" 1 --host "$n1,$n2" --report-bindings
    expect_placement "0:n1 1:n1 2:n2 3:n2" "$per 1: a rank on each of 2 sockets"
    expect_in "$tmp/err" "\[$n1:[0-9]*\] MCW rank 1 bound to socket 1\[" "$per binds to the socket"
done
placed "--map-by node" --map-by node -n 3 --host "$n1:2,$n2:2"
expect_placement "0:n1 1:n2 2:n1" "--map-by node"
placed "--map-by ppr:1:node" -map-by ppr:1:node --host "$n1:4,$n2:4"
expect_placement "0:n1 1:n2" "--map-by ppr:1:node"
run_hnp -n 5 --map-by ppr:1:socket --host "$n1,$n2" true
expect_status 1 "--map-by ppr:1:socket with too many processes"
expect_in "$tmp/err" "5 processes requested but --map-by ppr:1:socket (2 a node) on 2 nodes makes 4" \
    "the error names the option given, not -N"
placed "--rank-by node" --rank-by node -n 4 --host "$n1:2,$n2:2"
expect_placement "0:n1 1:n2 2:n1 3:n2" "--rank-by node"
placed "--bind-to core" -bind-to core --report-bindings -n 2 --host "$n1:2"
expect_in "$tmp/err" "MCW rank 1 bound to socket 0\[core 1\[hwt 0-1\]\]" "--bind-to core"
placed "--report-bindings" -report-bindings -n 1 --host "$n1"
expect_in "$tmp/err" "MCW rank 0 is not bound" "--report-bindings unbound"
placed "--cpus-per-proc" --cpus-per-proc 2 --report-bindings -n 1 --host "$n1"
expect_in "$tmp/err" "MCW rank 0 bound to socket 0\[core 0\[hwt 0-1\]\], socket 0\[core 1\[hwt 0-1\]\]" "--cpus-per-proc 2"
placed "--use-hwthread-cpus" --use-hwthread-cpus --bind-to hwthread --report-bindings -n 2 --host "$n1:2"
expect_in "$tmp/err" "MCW rank 1 bound to socket 0\[core 0\[hwt 1\]\]" "--use-hwthread-cpus"
placed "--cpu-list" --cpu-list 3 --report-bindings -n 1 --host "$n1"
expect_in "$tmp/err" "MCW rank 0 bound to socket 0\[core 3\[hwt 0-1\]\]" "--cpu-list"
printf 'rank 0=%s slot=0\nrank 1=%s slot=1\n' "$n2" "$n1" >"$tmp/rankfile"
for rf in --rankfile -rf; do
    placed "$rf" "$rf" "$tmp/rankfile" --host "$n1,$n2"
    expect_placement "0:n2 1:n1" "$rf"
done
placed "--display-map --display-allocation" --display-map -display-allocation -n 1 --host "$n1"
expect_in "$tmp/out" "ALLOCATED NODES" "--display-allocation"
expect_in "$tmp/out" "JOB MAP" "--display-map"
unset HNP_MCA_hwloc_base_topo_file

# --- Environment and working directory
export OPT_B=from-hnp
run_hnp -x OPT_A=1 -x OPT_B -n 1 --host "$n1" sh -c "$envs"
expect_env 0 "1 from-hnp unset $PWD" "-x"
for wdir in --wdir -wdir --wd -wd; do
    run_hnp "$wdir" "$tmp" -n 1 --host "$n1" sh -c "$envs"
    expect_env 0 "unset from-hnp unset $tmp" "$wdir"
done
# -env: its app context's; -genv: every context's, below their own.
run_hnp -genv OPT_A g -env OPT_C c1 -n 1 --host "$n1:2" sh -c "$envs" : \
    -n 1 -env OPT_A own sh -c "$envs"
expect_env 0 "g from-hnp c1 $PWD" "-genv, -env in the first context"
expect_env 1 "own from-hnp unset $PWD" "-env wins over -genv, and stays in its context"
# -genvall: all of hnp's environment, which the daemons here do not have.
export HNP_MCA_plm_rsh_agent="env -u OPT_B $AGENT"
run_hnp -n 1 --host "$n1" sh -c "$envs"
expect_env 0 "unset unset unset $PWD" "the daemons lack OPT_B"
run_hnp -genvall -n 1 --host "$n1" sh -c "$envs"
expect_env 0 "unset from-hnp unset $PWD" "-genvall"
export HNP_MCA_plm_rsh_agent="$AGENT"

# --app: one context a line; the command line's -x and --wdir are every
# line's, unless it says otherwise.
cat >"$tmp/appfile" <<EOF
# an appfile
-n 2 -x OPT_A=first sh -c '$envs; $where'

-n 1 --wdir / -x OPT_C=third sh -c '$envs; $where'  # the last line
EOF
for app in --app -app; do
    run_hnp -x OPT_C=all --wdir "$tmp" --host "$n1:2,$n2" "$app" "$tmp/appfile"
    expect_status 0 "$app"
    expect_placement "0:n1 1:n1 2:n2" "$app"
    expect_env 1 "first from-hnp all $tmp" "$app: first line"
    expect_env 2 "unset from-hnp third /" "$app: second line"
done
printf -- '-n 1 true\n-n 1 --bogus-option x\n' >"$tmp/bad-appfile"
run_hnp --app "$tmp/bad-appfile"
expect_status 1 "bad appfile"
expect_in "$tmp/err" "$tmp/bad-appfile:2: unknown option --bogus-option" "appfile errors name file:line"

# --- Control and output
placed "--allow-run-as-root" --allow-run-as-root -n 1 --host "$n1"
expect_placement "0:n1" "--allow-run-as-root"
placed "--prefix" --prefix "$top_builddir" -n 1 --host "$n1"
expect_placement "0:n1" "--prefix"
placed "--tag-output" -tag-output -n 1 --host "$n1"
expect_in "$tmp/out" "^\[[0-9]*,0\]<stdout>:R 0 $n1" "--tag-output"
placed "--output-filename" -output-filename "$tmp/outdir" -n 1 --host "$n1"
expect_in "$tmp/outdir/1/rank.0/stdout" "^R 0 $n1" "--output-filename"
placed "--timestamp-output" -timestamp-output -n 1 --host "$n1"
expect_in "$tmp/out" "^[0-9-]*T[0-9:.]*Z<stdout>:R 0 $n1" "--timestamp-output"
run_hnp -merge-stderr-to-stdout -n 1 --host "$n1" sh -c 'echo to-stderr >&2'
expect_status 0 "--merge-stderr-to-stdout"
expect_in "$tmp/out" "^to-stderr" "--merge-stderr-to-stdout"
expect_not_in "$tmp/err" "to-stderr" "--merge-stderr-to-stdout"
run_hnp -timeout 1 -n 1 --host "$n1" sleep 30
expect_status 124 "--timeout"
run_hnp --timeout 1 -report-state-on-timeout -get-stack-traces -n 1 --host "$n1" sleep 30
expect_status 124 "--timeout with its reports"
expect_in "$tmp/err" "^hnp:   rank 0 on node $n1: pid [0-9]*, running" "--report-state-on-timeout"
expect_in "$tmp/err" "stack of rank 0 (pid [0-9]*) on node $n1:\\|rank 0 on node $n1: no stack" "--get-stack-traces"
echo from-stdin >"$tmp/in"
# shellcheck disable=SC2016
run_hnp --stdin 1 -n 2 --host "$n1:2" sh -c 'read -r l; echo "S $HNP_RANK $l"' <"$tmp/in"
expect_status 0 "--stdin"
expect_in "$tmp/out" "^S 1 from-stdin" "--stdin 1"
for mca in --mca -mca --gmca -gmca; do
    placed "$mca" "$mca" opt_no_such_parameter 1 -n 1 --host "$n1"
    expect_in "$tmp/err" "unknown parameter 'opt_no_such_parameter'" "$mca reaches the parameters"
done
echo "opt_tuned_no_such_parameter = 1" >"$tmp/tune"
for tune in --tune -tune; do
    placed "$tune" "$tune" "$tmp/tune" -n 1 --host "$n1"
    expect_in "$tmp/err" "unknown parameter 'opt_tuned_no_such_parameter'" "$tune reads hnp's parameters"
done
# --timing: the phases overlap (the launch goes down during the contact
# exchange); they are listed in the order they ended, each time after the
# one before.
placed "--timing" --timing -N 1 --host "$(hosts 16)"
sed -n 's/^hnp:   \([a-z ]*\)  *\([0-9][0-9.]*\)$/\2 \1/p' "$tmp/err" | head -n 6 >"$tmp/phases"
[ "$(wc -l <"$tmp/phases")" -ge 5 ] || { cat "$tmp/err"; fail "--timing: its phases are missing"; }
sort -s -n -k1,1 "$tmp/phases" | cmp -s - "$tmp/phases" ||
    { cat "$tmp/err"; fail "--timing: the phases are not in the order they ended"; }
placed "-v" -v -n 1 --host "$n1"
expect_in "$tmp/err" "\[hnp:rte\] 1 process(es) mapped on 1 node(s)" "-v"
placed "--verbose" --verbose -n 1 --host "$n1"
expect_in "$tmp/err" "\[hnp:rte\]" "--verbose"
placed "no -v" -n 1 --host "$n1"
expect_not_in "$tmp/err" "\[hnp:rte\]" "without -v"

# -q: no informational message (here: the signal forwarded), errors stay.
for quiet in "" -q --quiet; do
    rm -f "$tmp/out" # not the last round's "ready"
    timeout -k 5 60 "$HNP" $quiet -n 1 --host "$n1" sh -c \
        'trap "echo got; exit 3" USR1; echo ready; sleep 60 & wait' >"$tmp/out" 2>"$tmp/err" &
    hnp_pid=$!
    for _ in $(seq 600); do grep -qs ready "$tmp/out" && break; sleep 0.1; done
    grep -qs ready "$tmp/out" || { cat "$tmp/err"; fail "${quiet:-without -q}: the process did not start"; }
    kill -USR1 "$(pgrep -P "$hnp_pid")"
    status=0
    wait "$hnp_pid" || status=$?
    expect_status 3 "SIGUSR1 ${quiet:-without -q}"
    expect_in "$tmp/err" "exited with status 3" "${quiet:-without -q}: errors stay"
    if [ -z "$quiet" ]; then
        expect_in "$tmp/err" "forwarding signal" "informational message"
    else
        expect_not_in "$tmp/err" "forwarding signal" "$quiet"
    fi
done

# --- Hydra's -l, -prepend-rank, -iface, -launcher, -launcher-exec, and
# mpirun's --bynode, --byslot, --am, --mca-param-file, --launch-agent,
# --do-not-launch: each with its meaning.
for l in -l -prepend-rank --prepend-rank; do
    placed "$l" "$l" -n 2 --host "$n1,$n2"
    expect_in "$tmp/out" "^\[1\] R 1 $n2$" "$l prefixes the rank"
done
placed "-iface lo" -iface lo -n 1 --host "$n1"
expect_placement "0:n1" "-iface lo"
run_hnp -iface "nosuchif$$" -n 1 --host "$n1" true
expect_status 1 "-iface of no interface"
expect_in "$tmp/err" "nosuchif$$" "-iface reaches the runtime's interface choice"
# -launcher ssh: the remote shell is "ssh", here one that is the agent.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$tmp/ssh.log" "$AGENT" >"$tmp/bin/ssh"
chmod +x "$tmp/bin/ssh"
PATH="$tmp/bin:$PATH" placed "-launcher ssh" -launcher ssh -N 1 --host "$n1,$n2"
expect_placement "0:n1 1:n2" "-launcher ssh"
expect_in "$tmp/ssh.log" "$n2 .*hnpd" "-launcher ssh starts the daemons by ssh"
rm -f "$tmp/ssh.log"
placed "-launcher-exec" -launcher-exec "$tmp/bin/ssh" -N 1 --host "$n1,$n2"
expect_in "$tmp/ssh.log" "$n1 .*hnpd" "-launcher-exec is the remote shell"
# -launcher slurm, as --mca plm slurm, outside an allocation: says why.
(unset SLURM_JOB_ID; run_hnp -launcher slurm -n 1 true
 expect_status 1 "-launcher slurm outside an allocation"
 expect_in "$tmp/err" "no plm component is available (considered: slurm): slurm: not inside a Slurm allocation (SLURM_JOB_ID is not set)" \
     "-launcher slurm says why slurm declined")
run_hnp -launcher fork -n 1 true
expect_status 1 "-launcher fork"
expect_in "$tmp/err" "\-launcher fork: hnp starts its daemons by ssh or rsh" "-launcher fork says what hnp has"
placed "--bynode" --bynode -n 3 --host "$n1:2,$n2:2"
expect_placement "0:n1 1:n2 2:n1" "--bynode"
placed "-byslot" --map-by node -byslot -n 3 --host "$n1:2,$n2:2"
expect_placement "0:n1 1:n1 2:n2" "-byslot"
echo "opt_am_no_such_parameter = 1" >"$tmp/am1"
echo "opt_am_other_no_such_parameter = 1" >"$tmp/am2"
placed "--am" --am "$tmp/am1,$tmp/am2" -n 1 --host "$n1"
expect_in "$tmp/err" "unknown parameter 'opt_am_no_such_parameter' (set by tune file $tmp/am1:1)" "--am reads its first file"
expect_in "$tmp/err" "unknown parameter 'opt_am_other_no_such_parameter' (set by tune file $tmp/am2:1)" "--am reads its second file"
placed "-mca-param-file" -mca-param-file "$tmp/am1" -n 1 --host "$n1"
expect_in "$tmp/err" "unknown parameter 'opt_am_no_such_parameter'" "--mca-param-file reads the file"
placed "--launch-agent" --launch-agent "$top_builddir/bin/hnpd" -n 1 --host "$n1"
expect_placement "0:n1" "--launch-agent DIR/bin/hnpd"
run_hnp --launch-agent /opt/x/orted -n 1 --host "$n1" true
expect_status 1 "--launch-agent orted"
expect_in "$tmp/err" "give --launch-agent DIR/bin/hnpd, or --prefix DIR" "--launch-agent names the replacement"
run_hnp --do-not-launch -n 2 --host "$n1,$n2" sh -c "$where"
expect_status 0 "--do-not-launch"
expect_in "$tmp/out" "^spawn tree" "--do-not-launch plans"
expect_not_in "$tmp/out" "^R " "--do-not-launch starts nothing"
run_hnp --path /usr/bin -n 1 true
expect_in "$tmp/err" "option --path of Open MPI's mpirun is not supported: give the program's path" "--path"
run_hnp --noprefix -n 1 true
expect_in "$tmp/err" "option --noprefix of Open MPI's mpirun is not supported: .*--prefix DIR" "--noprefix"
run_hnp -bind-to user:0+1 -n 1 true
expect_in "$tmp/err" "for Hydra's user:A+B, give --cpu-list A,B" "Hydra's -bind-to user"
run_hnp -map-by hwthread:2 -n 1 true
expect_in "$tmp/err" "Hydra's OBJ:N is Open MPI's OBJ:PE=N" "Hydra's -map-by OBJ:N"
assert_no_leftovers "Hydra's and mpirun's other options"

# --- Help, and what is refused
run_hnp --help
expect_status 0 "--help"
expect_in "$tmp/out" "usage: hnp" "--help"
run_hnp -V
expect_in "$tmp/out" "^hnp (hnp) " "-V"
run_hnp --hostfil "$tmp/hostfile" true
expect_status 1 "a typo"
expect_in "$tmp/err" "unknown option --hostfil (did you mean --hostfile" "a typo gets a suggestion"
run_hnp --preload-binary true
expect_status 1 "--preload-binary"
expect_in "$tmp/err" "option --preload-binary of Open MPI's mpirun is not supported: hnp copies no files" "unsupported, with why"

# --- Every spelling of hnp's option table, and every option it refuses
# with a reason, is in hnp(1).
for name in $(grep -o '"-[-a-z]*"' "$top_srcdir/runtime/hnp/options.c" | tr -d '"' | sort -u); do
    bare=${name#-}
    bare=${bare#-}
    grep -qF -- "\\-$(printf %s "$bare" | sed 's/-/\\-/g')" "$top_srcdir/runtime/hnp/hnp.1" ||
        fail "option $name is not in hnp(1)"
done

assert_no_leftovers "the option matrix"
echo "PASS: the option matrix"
