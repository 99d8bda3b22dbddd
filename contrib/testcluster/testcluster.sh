#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A small real cluster on this machine, made of network namespaces, and its
# removal. See README.md beside this file.
#
#   testcluster.sh up [K]   build K nodes (default 4, at most 32), or bring an
#                           existing cluster to K nodes; safe to repeat
#   testcluster.sh down     remove everything `up` made; fine when nothing is up
#   testcluster.sh status   what is there; exit 0 only when all of it runs
#   testcluster.sh env      shell exports for a test: eval "$(testcluster.sh env)"
#
# Exit status: 0 done; 1 a step failed (the message names the step, the node
# and the daemon's last log lines); 2 usage; 3 (status, env) nothing is up;
# 77 namespaces cannot be made here (not root, or no CAP_SYS_ADMIN and
# CAP_NET_ADMIN), which automake counts as a skipped test.
set -Eeuo pipefail

# The daemons live in sbin, which a non-login root shell may not have; C
# numbers and sorting whatever the caller's locale.
PATH=$PATH:/usr/sbin:/sbin
export LC_ALL=C

# Every name below starts with hnptc or hnp-testcluster, so that up and down
# never touch anything they did not make (host names must be nodeK, though).
readonly STATE=/run/hnp-testcluster
readonly LOCK=/run/hnp-testcluster.lock
readonly BRIDGE=hnptc0
readonly NS_PREFIX=hnptc-node     # network namespaces hnptc-node1, ...
readonly VETH_PREFIX=hnptcv       # root-namespace ends of the veth pairs
readonly CTL_HOST=hnptc-ctl       # slurmctld's own host name
readonly SSH_CLIENT_CONF=/etc/ssh/ssh_config.d/hnp-testcluster.conf
readonly HOSTS=/etc/hosts
readonly MARK_BEGIN='# hnp-testcluster begin'
readonly MARK_END='# hnp-testcluster end'
# Not Slurm's default ports, so that a system slurmctld is left alone.
readonly CTLD_PORT=16817 SLURMD_PORT=16818
readonly DEFAULT_NODES=4 MAX_NODES=32
readonly EXIT_SKIP=77
readonly PACKAGES=(iproute2 openssh-server openssh-client munge slurm-wlm)
readonly COMMANDS=(ip sshd ssh ssh-keygen munged munge unmunge slurmctld slurmd
    srun sinfo scontrol unshare nsenter setsid flock mountpoint)

CMD=${1:-}
STEP=start
BUILDING=0 # set once up starts changing things
NET=${HNP_TESTCLUSTER_NET:-10.213.0} # first three octets of the private /24
NODES=0

# ---------------------------------------------------------------- reporting

say() { printf 'testcluster: %s\n' "$*"; }

die() {
    printf 'testcluster: %s: FAILED: %s\n' "$STEP" "$*" >&2
    exit 1
}

log_tail() {
    if [ -s "$1" ]; then
        tail -n 15 "$1" | sed 's/^/    | /'
    else
        echo "    (nothing in $1)"
    fi
}

# daemon_failed LOG WHAT: a daemon did not start or answer; its own words
# usually say why, so they are shown: what it wrote on stderr in this run
# (the Slurm daemons copy their log there), else its log.
daemon_failed() {
    local log=$1 err="${1%.log}.err"
    [ -s "$err" ] && log=$err
    printf 'testcluster: %s: FAILED: %s; last lines of %s:\n' "$STEP" "$2" "$log" >&2
    log_tail "$log" >&2
    exit 1
}

# Any other failing command: say which step and which command.
on_error() {
    printf 'testcluster: %s: FAILED: "%s" exited %s (line %s)\n' \
        "$STEP" "$2" "$1" "$3" >&2
}
trap 'on_error "$?" "$BASH_COMMAND" "$LINENO"' ERR

on_exit() {
    local rc=$?
    if [ "$BUILDING" = 1 ] && [ "$rc" = 1 ]; then
        echo "testcluster: what was built stays for inspection; '$0 down' removes it" >&2
    fi
}
trap on_exit EXIT

# ---------------------------------------------------------------- helpers

ns_name() { echo "$NS_PREFIX$1"; }
node_ip() { echo "$NET.$((10 + $1))"; }
uts_file() { echo "$STATE/uts/$1"; }

# is_ours PID: running and one of ours: every daemon we start names a file
# under $STATE on its command line (a zombie's command line is empty).
is_ours() {
    local cmd
    cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
    [[ $cmd == *"$STATE/"* ]]
}

# our_daemon PID: one of the daemons we start (a mere `tail` of one of our
# logs names $STATE too, and is left alone).
our_daemon() {
    local comm
    comm=$(cat "/proc/$1/comm" 2>/dev/null) || return 1
    case $comm in munged | slurmctld | slurmd | slurmstepd | sshd) is_ours "$1" ;; *) return 1 ;; esac
}

alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# pid_of FILE: the pid in a pid file, if that process is ours and running.
pid_of() {
    local pid
    [ -r "$1" ] || return 1
    read -r pid <"$1" || return 1
    [[ $pid =~ ^[0-9]+$ ]] && is_ours "$pid" && echo "$pid"
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds.
wait_for() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.1
    done
}

# spawn PIDFILE LOG COMMAND...: start a daemon that stays in the
# foreground, so that its pid is known at once (setsid, env, ip netns exec
# and nsenter all exec, none forks) and its death is seen at once. Its
# stdout and stderr go to LOG's .err file: what it says before it opens
# LOG, or instead. setsid: a ^C or a timeout(1) aimed at whoever ran up
# must not reach it. env: bash makes background commands ignore SIGINT and
# SIGQUIT, and ssh sessions and job steps would inherit that. Without fd 9,
# the lock.
spawn() {
    local pidfile=$1 log=$2
    shift 2
    setsid env --default-signal=INT,QUIT "$@" </dev/null >"${log%.log}.err" 2>&1 9>&- &
    echo "$!" >"$pidfile"
}

# spawned_dead PIDFILE: the process spawn started has exited. Daemons
# told to write the same pid file (munged --pid-file) truncate and rewrite
# it while they start: an empty or unreadable file is not a death, only a
# pid that no longer runs is (the file is read again at the next poll).
spawned_dead() {
    local pid=""
    read -r pid 2>/dev/null <"$1" || true
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    ! alive "$pid"
}

# wait_daemon SECONDS PIDFILE COMMAND...: poll COMMAND until it succeeds;
# give up at once when the daemon has died (a bad config, a port in use).
wait_daemon() {
    local end=$((SECONDS + $1)) pidfile=$2
    shift 2
    until "$@"; do
        ! spawned_dead "$pidfile" || return 1
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.1
    done
}

# stop_pids PID...: TERM, a few seconds' grace, then KILL.
stop_pids() {
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    wait_for 5 none_alive "$@" && return 0
    kill -KILL "$@" 2>/dev/null || true
    wait_for 3 none_alive "$@" || die "processes survive SIGKILL: $*"
}

none_alive() {
    local p
    for p in "$@"; do
        ! alive "$p" || return 1
    done
}

# spawn_in_node K PIDFILE LOG COMMAND...: spawn in node K's network and UTS
# namespaces. `ip netns exec` rather than nsenter --net: it also remounts
# /sys for the namespace, the setting in which slurmd is known to work.
spawn_in_node() {
    local k=$1 pidfile=$2 log=$3
    shift 3
    spawn "$pidfile" "$log" ip netns exec "$(ns_name "$k")" \
        nsenter --uts="$(uts_file "node$k")" -- "$@"
}

# The node numbers that exist in any form: namespace, veth or UTS file.
present_nodes() {
    local f
    {
        for f in /run/netns/"$NS_PREFIX"* "$STATE"/uts/node*; do
            if [ -e "$f" ]; then echo "${f##*node}"; fi
        done
        ip -o link show | sed -n "s/^[0-9]*: $VETH_PREFIX\([0-9]*\)[@:].*/\1/p"
    } | grep -E '^[0-9]+$' | sort -un || true
}

load_state() {
    [ -r "$STATE/cluster" ] || return 1
    NODES=$(sed -n 's/^nodes=//p' "$STATE/cluster")
    NET=$(sed -n 's/^net=//p' "$STATE/cluster")
    [[ $NODES =~ ^[0-9]+$ ]] && [ -n "$NET" ]
}

# Concurrent up and down (two tests at once) would undo each other's work.
# The lock is fd 9, which every daemon is started without: one that kept it
# would hold the lock for as long as it runs.
take_lock() {
    exec 9>"$LOCK"
    flock -w 300 9 || die "another testcluster.sh holds $LOCK"
}

# ---------------------------------------------------------------- up: checks

need_namespaces() {
    STEP=check
    if [ "$(id -u)" != 0 ]; then
        echo "testcluster: SKIP: needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) to make network namespaces" >&2
        exit "$EXIT_SKIP"
    fi
    # A container without CAP_SYS_ADMIN refuses this; unshare is in
    # util-linux, which every Debian has, so this runs before any install.
    if ! unshare --net --uts true 2>/dev/null; then
        echo "testcluster: SKIP: cannot make network namespaces here (no CAP_SYS_ADMIN/CAP_NET_ADMIN?)" >&2
        exit "$EXIT_SKIP"
    fi
}

check_args() {
    if ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ] || [ "$1" -gt "$MAX_NODES" ]; then
        echo "testcluster: up: K must be 1..$MAX_NODES, not '$1'" >&2
        exit 2
    fi
    [[ $NET =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
        { echo "testcluster: HNP_TESTCLUSTER_NET must be three octets, like 10.213.0" >&2; exit 2; }
}

# A cluster already up keeps its subnet: changing it means down first.
check_same_net() {
    local old
    old=$(sed -n 's/^net=//p' "$STATE/cluster" 2>/dev/null) || return 0
    [ -z "$old" ] || [ "$old" = "$NET" ] ||
        die "the cluster is up on $old.0/24, not $NET.0/24: run '$0 down' first"
}

missing_commands() {
    local c
    for c in "${COMMANDS[@]}"; do
        command -v "$c" >/dev/null || echo "$c"
    done
}

# Only what is missing, so that a second up costs nothing here.
install_packages() {
    STEP=packages
    [ -z "$(missing_commands)" ] && return 0
    command -v apt-get >/dev/null ||
        die "missing $(missing_commands | tr '\n' ' ')and no apt-get to install ${PACKAGES[*]}"
    local log="$STATE/apt.log"
    say "installing ${PACKAGES[*]} with apt-get (log: $log)"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            -o DPkg::Lock::Timeout=300 "${PACKAGES[@]}"; } >"$log" 2>&1 </dev/null; then
        log_tail "$log" >&2
        die "apt-get could not install ${PACKAGES[*]}"
    fi
    [ -z "$(missing_commands)" ] ||
        die "still missing after apt-get: $(missing_commands | tr '\n' ' ')"
}

make_state_dirs() {
    STEP="state directory $STATE"
    # 0755: non-root users may read the Slurm config and use srun; the ssh
    # keys are in a 0700 directory of their own.
    install -d -m 0755 "$STATE" "$STATE/uts" "$STATE/munge" "$STATE/slurm"
    install -d -m 0700 "$STATE/ssh"
}

# ---------------------------------------------------------------- network

# Only addresses inside our own namespaces and on our bridge are used: if
# another interface already holds one in the subnet, stop rather than guess.
check_subnet_free() {
    local other
    other=$(ip -o -4 addr show to "$NET.0/24" | awk -v b="$BRIDGE" '$2 != b { print $2 }')
    [ -z "$other" ] ||
        die "$NET.0/24 is in use on $other; choose another with HNP_TESTCLUSTER_NET=A.B.C"
}

ensure_bridge() {
    STEP="network: bridge $BRIDGE"
    check_subnet_free
    ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
    # The root namespace (ssh clients, slurmctld, munged, hnp) reaches the
    # nodes through this address; nodes get no default route at all.
    ip addr replace "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
}

# ensure_uts NAME: a persistent UTS namespace whose host name is NAME, kept
# as a bind mount so that sshd and slurmd of one node share it.
ensure_uts() {
    local f
    f=$(uts_file "$1")
    mountpoint -q "$f" 2>/dev/null && return 0
    : >"$f"
    unshare --uts="$f" hostname "$1"
}

ensure_node() {
    local k=$1 ns veth="$VETH_PREFIX$1"
    ns=$(ns_name "$k")
    STEP="network: node$k"
    [ -e "/run/netns/$ns" ] || ip netns add "$ns"
    if ! ip -n "$ns" link show eth0 >/dev/null 2>&1; then
        # A lone root-side end would block the new pair's name.
        ip link del "$veth" 2>/dev/null || true
        ip link add "$veth" type veth peer name eth0 netns "$ns"
    fi
    ip link set "$veth" master "$BRIDGE" up
    ip -n "$ns" addr replace "$(node_ip "$k")/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ensure_uts "node$k"
}

remove_node_network() {
    local k=$1 ns f
    ns=$(ns_name "$k")
    f=$(uts_file "node$k")
    if mountpoint -q "$f" 2>/dev/null; then umount "$f"; fi
    rm -f "$f"
    # `ip netns del` only drops a reference: the namespace and its veth go
    # away later, asynchronously. Deleting the veth first makes it certain.
    if ip link show "$VETH_PREFIX$k" >/dev/null 2>&1; then ip link del "$VETH_PREFIX$k"; fi
    if [ -e "/run/netns/$ns" ]; then ip netns del "$ns"; fi
}

# ---------------------------------------------------------------- /etc/hosts

strip_hosts_block() {
    awk -v b="$MARK_BEGIN" -v e="$MARK_END" '$0 == b { skip = 1; next } $0 == e { skip = 0; next } !skip' "$HOSTS"
}

# write_hosts FILE: replace /etc/hosts's content in place, never the file:
# it may be a bind mount (containers), and the daemons' mount namespaces
# (ip netns exec makes one for each) keep seeing the file they started with.
write_hosts() {
    cmp -s "$1" "$HOSTS" || cat "$1" >"$HOSTS"
    rm -f "$1"
}

ensure_hosts_block() {
    local k new="$STATE/hosts.new"
    STEP="$HOSTS"
    {
        strip_hosts_block
        echo "$MARK_BEGIN"
        echo "$NET.1 $CTL_HOST"
        for k in $(seq "$NODES"); do echo "$(node_ip "$k") node$k"; done
        echo "$MARK_END"
    } >"$new"
    write_hosts "$new"
}

remove_hosts_block() {
    STEP="$HOSTS"
    [ -f "$HOSTS" ] && grep -qxF "$MARK_BEGIN" "$HOSTS" || return 0
    strip_hosts_block >"$STATE.hosts.new"
    write_hosts "$STATE.hosts.new"
}

# ---------------------------------------------------------------- ssh

# new_key FILE COMMENT: a key pair, made once; a half-made pair is redone.
new_key() {
    [ -s "$1" ] && [ -s "$1.pub" ] && return 0
    rm -f "$1" "$1.pub"
    ssh-keygen -q -t ed25519 -N '' -C "$2" -f "$1" </dev/null
}

sshd_config() {
    local k=$1 d="$STATE/ssh"
    cat <<EOF
# node$k of hnp-testcluster; written by testcluster.sh up.
ListenAddress $(node_ip "$k"):22
PidFile $d/sshd.node$k.pid
HostKey $d/host_ed25519_key
AuthorizedKeysFile $d/authorized_keys
AllowUsers root
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# A launcher opens many connections at once: none may be refused.
MaxStartups 1024
MaxSessions 256
AcceptEnv LANG LC_* HNP_*
PrintMotd no
PrintLastLog no
X11Forwarding no
EOF
}

# Host lists only the cluster's names, so that no other nodeK is affected.
ssh_client_config() {
    local d="$STATE/ssh"
    cat <<EOF
# hnp-testcluster: the nodes of the test cluster in network namespaces on
# this machine. Written by contrib/testcluster/testcluster.sh up; its down
# removes this file.
Host $(seq -f 'node%g' -s ' ' "$NODES")
    IdentityFile $d/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $d/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 10
EOF
}

write_ssh_files() {
    local d="$STATE/ssh" k hostkey
    STEP="ssh keys and configs"
    new_key "$d/id_ed25519" "hnp-testcluster root"
    new_key "$d/host_ed25519_key" "hnp-testcluster host"
    cp "$d/id_ed25519.pub" "$d/authorized_keys"
    hostkey=$(cut -d' ' -f1,2 "$d/host_ed25519_key.pub")
    for k in $(seq "$NODES"); do
        echo "node$k,$(node_ip "$k") $hostkey"
    done >"$d/known_hosts"
    for k in $(seq "$NODES"); do sshd_config "$k" >"$d/sshd.node$k.conf"; done
    install -d -m 0755 "${SSH_CLIENT_CONF%/*}"
    ssh_client_config >"$SSH_CLIENT_CONF.new"
    chmod 0644 "$SSH_CLIENT_CONF.new"
    mv "$SSH_CLIENT_CONF.new" "$SSH_CLIENT_CONF"
}

start_sshd() {
    local k=$1 d="$STATE/ssh"
    STEP="sshd on node$k"
    pid_of "$d/sshd.node$k.pid" >/dev/null && return 0
    # An absolute path: sshd re-executes itself.
    spawn_in_node "$k" "$d/sshd.node$k.pid" "$d/sshd.node$k.log" \
        "$(command -v sshd)" -D -f "$d/sshd.node$k.conf" -E "$d/sshd.node$k.log"
}

# An SSH banner on the node's port 22, read from the root namespace: far
# cheaper than a whole ssh login.
sshd_answers() {
    local banner
    # shellcheck disable=SC2016 # $1 is the inner shell's
    banner=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/22" && head -c 4 <&3' _ "$1" 2>/dev/null) || return 1
    [ "$banner" = SSH- ]
}

ensure_ssh() {
    local k
    write_ssh_files
    # sshd's privilege separation directory; the system's sshd uses it too,
    # so down leaves it.
    install -d -m 0755 /run/sshd
    for k in $(seq "$NODES"); do start_sshd "$k"; done
    for k in $(seq "$NODES"); do
        STEP="sshd on node$k"
        wait_daemon 20 "$STATE/ssh/sshd.node$k.pid" sshd_answers "$(node_ip "$k")" ||
            daemon_failed "$STATE/ssh/sshd.node$k.log" "no answer on $(node_ip "$k"):22"
    done
}

# Node to node goes through the bridge's forwarding, which a host firewall
# can filter (bridge-nf-call-iptables with a FORWARD policy of DROP, as
# Docker sets it); node to root namespace does not. Daemons talk to each
# other, so it must work.
check_node_to_node() {
    local last=$NODES
    STEP="node1 to node$last"
    [ "$last" -ge 2 ] || return 0
    # shellcheck disable=SC2016 # $1 is the inner shell's
    ip netns exec "$(ns_name 1)" timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/22"' _ "$(node_ip "$last")" ||
        die "node1 cannot reach node$last's sshd across $BRIDGE: is bridged traffic filtered? (sysctl net.bridge.bridge-nf-call-iptables, iptables -S FORWARD)"
}

# One real login proves the keys, known_hosts and client config together.
check_ssh_login() {
    local got
    STEP="ssh node1 hostname"
    got=$(timeout 20 ssh node1 hostname </dev/null 2>"$STATE/ssh/check.err") ||
        daemon_failed "$STATE/ssh/check.err" "ssh node1 failed"
    [ "$got" = node1 ] || die "ssh node1 hostname answered '$got', not node1"
}

# ---------------------------------------------------------------- munge

munge_works() {
    local sock="$STATE/munge/munged.sock"
    timeout 5 munge -n -S "$sock" 2>/dev/null | timeout 5 unmunge -S "$sock" >/dev/null 2>&1
}

# A munged of our own, with its own key and socket: a system munge (and its
# key) stays untouched, and Slurm finds ours through AuthInfo.
ensure_munged() {
    local d="$STATE/munge"
    STEP=munged
    [ -s "$d/munge.key" ] || (umask 077 && head -c 1024 /dev/urandom >"$d/munge.key")
    if ! pid_of "$d/munged.pid" >/dev/null; then
        spawn "$d/munged.pid" "$d/munged.log" munged -F --socket="$d/munged.sock" \
            --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
            --log-file="$d/munged.log" --seed-file="$d/munged.seed"
    fi
    wait_daemon 20 "$d/munged.pid" munge_works ||
        daemon_failed "$d/munged.log" "munge and unmunge through $d/munged.sock fail"
}

# ---------------------------------------------------------------- slurm

slurm_conf() {
    local d="$STATE/slurm" k cpus
    cpus=$(nproc)
    cat <<EOF
# hnp-testcluster; written by testcluster.sh up.
ClusterName=hnptc
SlurmctldHost=$CTL_HOST($NET.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$STATE/munge/munged.sock
StateSaveLocation=$d/ctld
SlurmctldPidFile=$d/slurmctld.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdSpoolDir=$d/spool.%n
SlurmdPidFile=$d/slurmd.%n.pid
SlurmdLogFile=$d/slurmd.%n.log
# The nodes' "hardware" is what this file says, not what slurmd finds.
SlurmdParameters=config_overrides
MailProg=/bin/true
# No cgroups: under ip netns exec, /sys is a fresh one without them.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
# Cores only: memory as a resource would give each job a whole node.
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=1
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=10
EOF
    for k in $(seq "$NODES"); do
        echo "NodeName=node$k NodeAddr=$(node_ip "$k") CPUs=$cpus State=UNKNOWN"
    done
    echo "PartitionName=hnptc Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
}

# slurmd's cgroup version autodetection fails under ip netns exec, whose
# fresh /sys has no /sys/fs/cgroup; a version named skips it (Slurm 22.05).
cgroup_conf() {
    echo "# hnp-testcluster; written by testcluster.sh up."
    echo "CgroupPlugin=cgroup/v1"
}

slurm_pids() {
    local f
    for f in "$STATE/slurm/slurmctld.pid" "$STATE"/slurm/slurmd.*.pid; do
        pid_of "$f" || true
    done
}

# slurmctld and slurmd read the node list only when they start: a new
# config means a restart of both.
write_slurm_conf() {
    local conf="$STATE/slurm/slurm.conf"
    STEP="slurm config"
    cgroup_conf >"$STATE/slurm/cgroup.conf"
    slurm_conf >"$conf.new"
    if cmp -s "$conf.new" "$conf"; then
        rm -f "$conf.new"
        return 0
    fi
    # shellcheck disable=SC2046 # one pid a word
    stop_pids $(slurm_pids)
    mv "$conf.new" "$conf"
}

ctld_up() { timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; }

start_slurmctld() {
    local d="$STATE/slurm"
    STEP=slurmctld
    pid_of "$d/slurmctld.pid" >/dev/null && return 0
    ensure_uts "$CTL_HOST"
    install -d -m 0700 "$d/ctld"
    # Its own host name, because slurmctld only runs where the host name is
    # SlurmctldHost. -c: a clean start, no jobs from an earlier cluster.
    spawn "$d/slurmctld.pid" "$d/slurmctld.log" \
        nsenter --uts="$(uts_file "$CTL_HOST")" -- slurmctld -D -c -f "$d/slurm.conf"
    wait_daemon 30 "$d/slurmctld.pid" ctld_up ||
        daemon_failed "$d/slurmctld.log" "scontrol ping does not answer UP"
}

# SLURMD_SINCE[K]: when this run started node K's slurmd (Slurm's time
# format, which sorts as text); unset for a slurmd that was already running.
declare -A SLURMD_SINCE=()

start_slurmd() {
    local k=$1 d="$STATE/slurm"
    STEP="slurmd on node$k"
    pid_of "$d/slurmd.node$k.pid" >/dev/null && return 0
    install -d -m 0755 "$d/spool.node$k"
    SLURMD_SINCE[$k]=$(date +%Y-%m-%dT%H:%M:%S)
    spawn_in_node "$k" "$d/slurmd.node$k.pid" "$d/slurmd.node$k.log" \
        slurmd -D -f "$d/slurm.conf" -N "node$k"
}

# "NAME SLURMD-START-TIME" of each node that can run jobs.
ready_nodes() {
    timeout 5 scontrol -o show node 2>/dev/null | awk '{
        name = st = t = ""
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^NodeName=/) name = substr($i, 10)
            else if ($i ~ /^State=/) st = substr($i, 7)
            else if ($i ~ /^SlurmdStartTime=/) t = substr($i, 17)
        }
        if (st ~ /^(IDLE|MIXED|ALLOCATED|COMPLETING)/ && st !~ /NOT_RESPONDING|DRAIN|DOWN|FAIL/)
            print name, t
    }'
}

# Nodes not ready yet. A node whose slurmd this run started must have
# registered since: slurmctld shows a node whose slurmd just died as idle
# for a while.
nodes_not_ready() {
    local -A started=()
    local name t k
    while read -r name t; do started[$name]=$t; done < <(ready_nodes || true)
    for k in $(seq "$NODES"); do
        t=${started[node$k]:-}
        if [ -z "$t" ] || [[ $t < ${SLURMD_SINCE[$k]:-0} ]]; then echo "node$k"; fi
    done
}

all_nodes_ready() { [ -z "$(nodes_not_ready)" ]; }

# Ready, or no point in waiting longer: a slurmd this run started has died.
nodes_settled() {
    local k
    for k in "${!SLURMD_SINCE[@]}"; do
        ! spawned_dead "$STATE/slurm/slurmd.node$k.pid" || return 0
    done
    all_nodes_ready
}

ensure_slurm() {
    local k bad
    export SLURM_CONF="$STATE/slurm/slurm.conf"
    write_slurm_conf
    start_slurmctld
    for k in $(seq "$NODES"); do start_slurmd "$k"; done
    STEP="slurm nodes"
    wait_for 60 nodes_settled || true
    if ! all_nodes_ready; then
        for bad in $(nodes_not_ready); do
            printf 'testcluster: slurmd on %s: not ready%s; last lines of its output:\n' "$bad" \
                "$(spawned_dead "$STATE/slurm/slurmd.$bad.pid" && echo ', its slurmd died')" >&2
            log_tail "$STATE/slurm/slurmd.$bad.err" >&2
        done
        die "nodes not ready: $(nodes_not_ready | paste -sd' ' -) (sinfo: $(timeout 5 sinfo -h -N -o '%N=%t' | paste -sd' ' -))"
    fi
}

# ---------------------------------------------------------------- commands

# Processes of nodes K...: those named by pid files, then whatever else runs
# in their network namespaces (ssh sessions, job steps, hnpd).
node_pids() {
    local k
    for k in "$@"; do
        pid_of "$STATE/ssh/sshd.node$k.pid" || true
        pid_of "$STATE/slurm/slurmd.node$k.pid" || true
        ip netns pids "$(ns_name "$k")" 2>/dev/null || true
    done
}

# Ours in the root namespace, pid file or not (a lost pid file must not
# leave a daemon behind).
root_pids() {
    local p
    pid_of "$STATE/slurm/slurmctld.pid" || true
    pid_of "$STATE/munge/munged.pid" || true
    for p in $(pgrep -f -- "$STATE/" || true); do
        if our_daemon "$p"; then echo "$p"; fi
    done
}

# remove_nodes K...: stop everything in those nodes and delete them.
remove_nodes() {
    local k
    [ $# -gt 0 ] || return 0
    STEP="stop node processes"
    # shellcheck disable=SC2046 # one pid a word
    stop_pids $(node_pids "$@" | sort -un)
    for k in "$@"; do
        STEP="network: remove node$k"
        remove_node_network "$k"
        rm -f "$STATE/ssh/sshd.node$k".* "$STATE/slurm/slurmd.node$k".*
        rm -rf "$STATE/slurm/spool.node$k"
    done
}

remove_nodes_beyond() {
    local k extra=()
    for k in $(present_nodes); do
        [ "$k" -le "$1" ] || extra+=("$k")
    done
    remove_nodes "${extra[@]}"
}

cmd_up() {
    local start=$EPOCHREALTIME k
    NODES=${1:-$DEFAULT_NODES}
    check_args "$NODES"
    need_namespaces
    take_lock
    check_same_net
    BUILDING=1
    make_state_dirs
    install_packages
    printf 'nodes=%s\nnet=%s\n' "$NODES" "$NET" >"$STATE/cluster"
    remove_nodes_beyond "$NODES"
    ensure_bridge
    for k in $(seq "$NODES"); do ensure_node "$k"; done
    ensure_hosts_block
    ensure_ssh
    check_node_to_node
    ensure_munged
    ensure_slurm
    check_ssh_login
    say "up: $NODES nodes (node1..node$NODES on $NET.0/24) in $(elapsed "$start") s"
}

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

# Gone: our namespaces, links, processes, hosts block and ssh config.
leftovers() {
    find /run/netns -maxdepth 1 -name "$NS_PREFIX*" -printf 'namespace %f\n' 2>/dev/null
    ip -o link show 2>/dev/null | awk -F': ' -v b="$BRIDGE" -v v="$VETH_PREFIX" \
        '$2 == b || index($2, v) == 1 { sub(/@.*/, "", $2); print "link " $2 }'
    root_pids | sed 's/^/process /'
    if grep -qxF "$MARK_BEGIN" "$HOSTS" 2>/dev/null; then echo "block in $HOSTS"; fi
    if [ -e "$SSH_CLIENT_CONF" ]; then echo "file $SSH_CLIENT_CONF"; fi
}

cmd_down() {
    local start=$EPOCHREALTIME f left
    if [ "$(id -u)" != 0 ]; then
        echo "testcluster: down: needs root" >&2
        exit 1
    fi
    take_lock
    # shellcheck disable=SC2046 # one number a word
    remove_nodes $(present_nodes)
    STEP="stop slurmctld and munged"
    # shellcheck disable=SC2046 # one pid a word
    stop_pids $(root_pids | sort -un)
    STEP="network: remove bridge $BRIDGE"
    if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE"; fi
    remove_hosts_block
    rm -f "$SSH_CLIENT_CONF" "$SSH_CLIENT_CONF.new"
    STEP="remove $STATE"
    for f in "$STATE"/uts/*; do
        if mountpoint -q "$f" 2>/dev/null; then umount "$f"; fi
    done
    rm -rf "$STATE"
    STEP="check"
    left=$(leftovers)
    [ -z "$left" ] || die "still there after down: $(echo "$left" | paste -sd, -)"
    say "down in $(elapsed "$start") s"
}

BAD=0 # things status finds missing

# item NAME COMMAND...: one status line; COMMAND prints the detail and
# fails when the thing is missing.
item() {
    local name=$1 out
    shift
    if out=$("$@" 2>/dev/null); then
        printf '  %-24s %s\n' "$name" "$out"
    else
        printf '  %-24s MISSING\n' "$name"
        BAD=$((BAD + 1))
    fi
}

bridge_state() { ip -br addr show dev "$BRIDGE" | awk '$2 == "UP" { print $2, $3 }' | grep .; }
pid_state() { local pid; pid=$(pid_of "$1") && echo "pid $pid"; }
netns_state() { local ns; ns=$(ns_name "$1") && [ -e "/run/netns/$ns" ] && echo "$ns"; }

# slurm_state K SINFO: node K's state in sinfo's output; fails unless it
# can run jobs.
slurm_state() {
    local st
    st=$(awk -v n="node$1" '$1 == n { print $2 }' <<<"$2")
    echo "${st:-not in sinfo}"
    [[ $st =~ ^(idle|mix|alloc|comp)$ ]]
}

cmd_status() {
    local k sinfo
    if ! load_state; then
        if [ -z "$(present_nodes)" ]; then
            say "not up"
            exit 3
        fi
        say "partly there, without $STATE/cluster: run '$0 down'"
        exit 1
    fi
    export SLURM_CONF="$STATE/slurm/slurm.conf"
    say "$NODES nodes on $NET.0/24, state in $STATE"
    item "bridge $BRIDGE" bridge_state
    item munged pid_state "$STATE/munge/munged.pid"
    item slurmctld pid_state "$STATE/slurm/slurmctld.pid"
    sinfo=$(timeout 5 sinfo -h -N -o '%N %t' 2>/dev/null || true)
    for k in $(seq "$NODES"); do
        item "node$k $(node_ip "$k") netns" netns_state "$k"
        item "node$k sshd" pid_state "$STATE/ssh/sshd.node$k.pid"
        item "node$k slurmd" pid_state "$STATE/slurm/slurmd.node$k.pid"
        item "node$k slurm" slurm_state "$k" "$sinfo"
    done
    [ "$BAD" = 0 ] || { say "$BAD things missing or not ready"; exit 1; }
}

cmd_env() {
    load_state || { echo "testcluster: env: the cluster is not up ('$0 up')" >&2; exit 3; }
    local names
    names=$(seq -f 'node%g' -s ' ' "$NODES")
    # Slurm's clients find everything (munge socket, ports) in SLURM_CONF;
    # ssh finds its key and known_hosts through $SSH_CLIENT_CONF by itself.
    # None of the values holds a quote: single quotes suffice.
    echo "export SLURM_CONF='$STATE/slurm/slurm.conf'"
    echo "export HNP_TESTCLUSTER_NNODES='$NODES'"
    echo "export HNP_TESTCLUSTER_NODES='$names'"
    echo "export HNP_TESTCLUSTER_NETNS_PREFIX='$NS_PREFIX'"
    echo "export HNP_TESTCLUSTER_HOSTS='node[1-$NODES]'"
    echo "export HNP_TESTCLUSTER_SUBNET='$NET.0/24'"
    echo "export HNP_TESTCLUSTER_SSH_CONFIG='$SSH_CLIENT_CONF'"
    # The nodes cannot reach the root namespace's loopback: the runtime's
    # own traffic must use the bridge.
    echo "export HNP_MCA_oob_tcp_if_include='$NET.0/24'"
}

usage() {
    echo "usage: $0 up [K] | down | status | env" >&2
    exit 2
}

case $CMD in
    up) [ $# -le 2 ] || usage; cmd_up "${2:-$DEFAULT_NODES}" ;;
    down) [ $# -eq 1 ] || usage; cmd_down ;;
    status) [ $# -eq 1 ] || usage; cmd_status ;;
    env) [ $# -eq 1 ] || usage; cmd_env ;;
    *) usage ;;
esac
