#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Another user of the node against an Open MPI job's PMIx server: a user
# created here (the intruder) tries to join a job of root's and a job of a
# third user's (also created here), by every door the server has, while
# the job's ranks wait to start MPI_Init and with a forged uid (an
# LD_PRELOAD that fakes getuid, tests/integration/pmix-fakeuid.c):
#   - the server's TCP port, as a client naming the namespace that hnp
#     used to derive from the daemons' public command line, as rank 0 and
#     as rank 1, forged and not (a refused attempt against a rank not yet
#     connected used to hang that rank's PMIx_Init);
#   - a tool connection by URI, by the daemon's pid and its rendezvous
#     files, and to a system server;
#   - the port held open and silent while the real ranks connect;
#   - the server's files: its directory is the job owner's, mode 0700, and
#     no system-wide rendezvous file is written.
# Nothing gets in, and the job then finishes normally. Skipped where
# users cannot be created (not root, no useradd); the users are deleted
# at the end.
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/ompi-lib.sh"

why=$(ompi_missing) && skip "$why"
[ "$(id -u)" = 0 ] || skip "creating the test's users needs root"
for tool in useradd userdel setpriv python3; do
    command -v "$tool" >/dev/null || skip "$tool is not installed"
done
pkg-config --exists pmix || skip "libpmix's headers (libpmix-dev) are missing"

intruder="hnpi$$"
victim="hnpv$$"
delete_users() {
    local u
    for u in "$intruder" "$victim"; do
        if id "$u" >/dev/null 2>&1; then
            pkill -KILL -u "$u" 2>/dev/null || true
            userdel "$u" 2>/dev/null || true
        fi
    done
}
trap 'delete_users; cleanup' EXIT
useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$intruder" ||
    skip "useradd $intruder failed"
useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$victim" ||
    skip "useradd $victim failed"

# What the users may reach: the programs (755); $tmp itself only to pass.
chmod 711 "$tmp"
pub="$tmp/pub"
mkdir -m 755 "$pub"
build_ompi mpi_ring
cp "$tmp/mpi_ring" "$pub/"
"${CC:-cc}" -o "$pub/intruder" "$top_srcdir/tests/integration/pmix-intruder.c" \
    $(pkg-config --cflags --libs pmix) || fail "cannot build pmix-intruder.c"
"${CC:-cc}" -shared -fPIC -o "$pub/fakeuid.so" \
    "$top_srcdir/tests/integration/pmix-fakeuid.c" || fail "cannot build pmix-fakeuid.c"
# Each rank says it is ready, then waits for the go before MPI_Init.
cat >"$pub/rank.sh" <<EOF
#!/bin/sh
echo "ready \$HNP_RANK"
while [ ! -e "$pub/go" ]; do sleep 0.1; done
exec "\$@"
EOF
chmod 755 "$pub/rank.sh"

# as_intruder [FAKE_UID] -- CMD...: CMD as the intruder, under a time limit;
# with a FAKE_UID, it claims that uid (and gid).
as_intruder() {
    local fake=$1
    shift 2
    if [ -n "$fake" ]; then
        setpriv --reuid="$intruder" --regid="$(id -g "$intruder")" --clear-groups \
            env LD_PRELOAD="$pub/fakeuid.so" FAKE_UID="$fake" FAKE_GID="$fake" \
            timeout -k 2 20 "$@" 2>&1 || true
    else
        setpriv --reuid="$intruder" --regid="$(id -g "$intruder")" --clear-groups \
            timeout -k 2 20 "$@" 2>&1 || true
    fi
}

# The namespace of job 1 as hnp made it before: "hnp-%08x-1" of the
# 32-bit FNV-1a hash of the HNP's contact, on every daemon's command line.
old_namespace() {
    python3 - "$1" <<'EOF'
import sys
args = open("/proc/%s/cmdline" % sys.argv[1], "rb").read().split(b"\0")
uri = args[args.index(b"--parent-uri") + 1]
h = 2166136261
for c in uri:
    h = ((h ^ c) * 16777619) & 0xffffffff
print("hnp-%08x-1" % h)
EOF
}

# The PMIx server's URI that the ranks of this test were given (the port
# is public anyway: /proc/net/tcp lists it with its owner).
server_uri() {
    grep -lzx -- "HNPTEST_MARK=$prefix" /proc/[0-9]*/environ 2>/dev/null |
        xargs -r grep -hzo '^PMIX_SERVER_URI41=.*' 2>/dev/null | tr '\0' '\n' |
        sed 's/^PMIX_SERVER_URI41=//' | sort -u | head -1
}

# attack OWNER_UID WHO: every door against the job started last.
attack() {
    local owner=$1 who=$2 daemon uri guess port dir out="$tmp/intruder.$2"
    daemon=$(daemon_pid "${prefix}n1")
    [ -n "$daemon" ] || fail "$who: the daemon of ${prefix}n1 was not found"
    uri=$(server_uri)
    [ -n "$uri" ] || fail "$who: no rank was given a PMIx server URI"
    guess=$(old_namespace "$daemon")
    port=${uri##*:}
    : >"$out"
    for rank in 0 1; do
        as_intruder "$owner" -- "$pub/intruder" client "$guess" "$rank" "$uri" >>"$out"
        as_intruder "" -- "$pub/intruder" client "$guess" "$rank" "$uri" >>"$out"
    done
    as_intruder "$owner" -- "$pub/intruder" tool "$uri" >>"$out"
    for dir in "$TMPDIR" "$(find "$TMPDIR" -mindepth 2 -maxdepth 2 -name pmix | head -1)"; do
        as_intruder "$owner" -- "$pub/intruder" tool-pid "$daemon" "$dir" >>"$out"
    done
    as_intruder "$owner" -- "$pub/intruder" tool-system >>"$out"
    if grep -q JOINED "$out"; then
        cat "$out"; fail "$who: the intruder joined the job"
    fi
    [ "$(grep -c REFUSED "$out")" -ge 4 ] ||
        { cat "$out"; fail "$who: the intruder's attempts did not run"; }
    # The server's files: in directories of the owner's, mode 0700.
    for dir in $(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'hnp-*'); do
        [ "$(stat -c '%a %u' "$dir")" = "700 $owner" ] ||
            fail "$who: $dir is $(stat -c '%a, uid %u' "$dir")"
    done
    if ls /tmp/pmix.sys.* "$TMPDIR"/pmix.sys.* 2>/dev/null | grep -q .; then
        fail "$who: a system-wide rendezvous file was written"
    fi
    echo "$who: the intruder's attempts: $(grep -c REFUSED "$out") refused"
    # Last, a connection held open and silent while the real ranks connect
    # (job_done ends it).
    setpriv --reuid="$intruder" --regid="$(id -g "$intruder")" --clear-groups \
        timeout -k 2 120 python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
print("silent connection open", flush=True)
time.sleep(110)' "$port" >"$out.silent" 2>&1 &
    silent=$!
    for _ in $(seq 100); do
        grep -q "silent connection open" "$out.silent" && return 0
        sleep 0.1
    done
    cat "$out.silent"; fail "$who: the silent connection was not made"
}

# job_done WHO: the ranks go; the job ends normally, on time.
job_done() {
    local started=$SECONDS
    touch "$pub/go"
    finish
    # Generous: 4 ranks take a few seconds even on a starved machine; a
    # server held by the intruder never lets them through.
    [ $((SECONDS - started)) -le 40 ] ||
        fail "$1: the job took $((SECONDS - started)) s after the intruder"
    echo "$1: the job took $((SECONDS - started)) s after the go"
    kill "$silent" 2>/dev/null || true
    wait "$silent" 2>/dev/null || true
    rm -f "$pub/go"
    expect_status 0 "$1: the job after the intruder"
    [ "$(grep -c 'of 4: ring ok, allreduce 6 ok' "$tmp/out")" = 4 ] ||
        { cat "$tmp/out" "$tmp/err"; fail "$1: not every rank got through"; }
}

# ------------------------------------------------------------ root's job
start_hnp "${OMPI_X[@]}" --mca plm rsh -N 2 --host "$(hosts 2)" \
    "$pub/rank.sh" "$pub/mpi_ring" "$prefix"
wait_ready 4
attack 0 "root's job"
job_done "root's job"

# ---------------------------------------------------- another user's job
vhome="$tmp/victim"
mkdir -p "$vhome/scratch" "$vhome/locks"
chown -R "$victim" "$vhome"
: >"$tmp/out"
: >"$tmp/err"
setpriv --reuid="$victim" --regid="$(id -g "$victim")" --clear-groups \
    env HOME="$vhome" TMPDIR="$vhome/scratch" HNP_AGENT_LOCKDIR="$vhome/locks" \
    timeout -k 5 60 "$HNP" "${OMPI_X[@]}" --mca plm rsh -N 2 --host "$(hosts 2)" \
    "$pub/rank.sh" "$pub/mpi_ring" "$prefix" >"$tmp/out" 2>"$tmp/err" &
hnp_pid=$!
wait_ready 4
TMPDIR="$vhome/scratch" attack "$(id -u "$victim")" "$victim's job"
job_done "$victim's job"

assert_no_leftovers "the intruder's attempts"
echo "PASS"
