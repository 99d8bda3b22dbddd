#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/) byte by
# byte from the layouts documented in runtime/wire/frame.h and fuzz_frame.c /
# fuzz_buffer.c, independently of the codec under test.
#
#   sh tests/fuzz/make-corpus.sh [DIR]      (default: the corpus next to me)
#
# The seeds are checked in; tests/integration/fuzz.sh regenerates them into
# a temporary directory and fails if the checked-in copies differ. A new
# seed needs a line here and its file name in tests/fuzz/fuzz.inc.
set -eu

out=${1:-$(dirname "$0")/corpus}
mkdir -p "$out/frame" "$out/buffer" "$out/messages" "$out/oob" \
    "$out/exchange" "$out/params" "$out/uri" "$out/hosts" "$out/pmi_server" \
    "$out/dvm" "$out/pmix_cards"

# Each argument is one byte, in hex.
bytes() {
    for hex_byte in "$@"; do
        # shellcheck disable=SC2059 # the format is the escaped byte
        printf "\\$(printf %03o "0x$hex_byte")"
    done
}
u16() { bytes "$(printf %02x $(($1 >> 8 & 255)))" "$(printf %02x $(($1 & 255)))"; }
u32() { u16 $(($1 >> 16 & 65535)); u16 $(($1 & 65535)); }
text() { printf %s "$1"; }

# The bytes 0, 1, ..., 31: the nonce of the seeds' hellos.
counting() { bytes 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f \
                   10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f; }
# hello VERSION VPID: magic, version, reserved 0, vpid, nonce.
hello() { text HNP1; u16 "$1"; u16 0; u32 "$2"; counting; }
# frame SRC DST TAG LEN: a frame header (the body follows separately).
frame() { u32 "$1"; u32 "$2"; u32 "$3"; u32 "$4"; }

# fuzz_frame's first byte: job size 12 (2), bodies up to 4096 (2 << 2).
JOB12_MAX4096=0a

fd=$out/frame
{ bytes $JOB12_MAX4096; hello 3 3
  frame 3 0 1 6; u32 2; text hi            # a string body
  frame 0 11 7 0                           # an empty body
  frame 5 6 2 7; u32 3; bytes 00 ff 01; } >"$fd/valid-stream"
{ bytes 00; hello 3 4294967295; frame 4294967295 0 0 0; } >"$fd/any-size-job"
{ bytes 1a; hello 3 2; frame 2 1 3 4; bytes de ad be ef; } >"$fd/peer-knows-secret"
{ bytes $JOB12_MAX4096; hello 3 3 | dd bs=1 count=20 2>/dev/null; } >"$fd/truncated-hello"
{ bytes $JOB12_MAX4096; hello 3 3; frame 3 0 1 6 | dd bs=1 count=10 2>/dev/null; } >"$fd/truncated-header"
{ bytes $JOB12_MAX4096; hello 3 3; frame 3 0 1 100; text short; } >"$fd/truncated-body"
{ bytes $JOB12_MAX4096; hello 3 3; frame 3 0 1 2147483647; } >"$fd/oversize-length"
{ bytes 06; hello 3 0; frame 0 0 1 17; } >"$fd/over-small-limit"
{ bytes $JOB12_MAX4096; text "GET / HTTP/1.0"; bytes 0d 0a 0d 0a; } >"$fd/bad-magic"
{ bytes $JOB12_MAX4096; hello 1 3; } >"$fd/bad-version"
# The hello of protocol 1, which carried the secret itself: refused.
{ bytes $JOB12_MAX4096; text HNP1; u16 1; u16 0; u32 3
  bytes 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f \
        10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 20; } >"$fd/bad-secret"
{ bytes $JOB12_MAX4096; hello 3 77; } >"$fd/bad-hello-vpid"
{ bytes $JOB12_MAX4096; hello 3 3; frame 3 4294967295 1 0; } >"$fd/invalid-destination"
{ bytes 00; text 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f; } >"$fd/secret-hex"

# fuzz_buffer: an op byte (0 u8, 1 u32, 2 u64, 3 i32, 4 double, 5 string,
# 6 blob, 7 blob without length) before each value.
bd=$out/buffer
{ bytes 00 ff; bytes 01; u32 4294967295; bytes 02; u32 1; u32 2
  bytes 03 80 00 00 00; bytes 04 3f f0 00 00 00 00 00 00
  bytes 05; u32 5; text node1; bytes 06; u32 3; bytes 00 01 02
  bytes 07; u32 0; } >"$bd/every-type"
{ bytes 04 7f f8 00 00 00 00 01 23; bytes 04 80 00 00 00 00 00 00 00; } >"$bd/nan-and-negative-zero"
{ bytes 05; u32 3; bytes 61 00 62; } >"$bd/string-with-nul"
{ bytes 05; u32 4294967295; text abc; } >"$bd/string-past-end"
{ bytes 06; u32 4; bytes 01 02 03; } >"$bd/blob-one-short"
{ bytes 02 01 02 03 04 05; } >"$bd/truncated-u64"
{ bytes 08 0a 0e; u32 0; bytes 0f; u32 0; } >"$bd/op-wraparound"

# fuzz_messages: a byte choosing the message (0 launch, 12 request,
# 13 reply, 14 stats, 9 signal, 18 and 19 the state of the ranks, 20
# spawn note, 21 kill daemon, 26 procs started: the order of its table),
# then the body as runtime/wire documents it; a message about a job's
# processes begins with its jobid. Strings and blobs: a u32 length, the bytes.
md=$out/messages
str() { u32 ${#1}; text "$1"; }
launch() { # jobid 1, 2 ranks on nodes a (4 slots) and bc (5), universe 9,
    # spread over the node, bound to cores, stdin to none, stderr merged
    # into stdout, one app "x -v" in /w with A=1, pmi components "simple",
    # not spawned
    u32 1; u32 2; u32 2; u32 0; u32 1
    str a; u32 4; str bc; u32 5; u32 9
    bytes 01 00; u32 0; u32 0; bytes 04 00; u32 0; u32 0
    bytes ff ff ff ff 01
    u32 1; u32 0; u32 2; u32 2; str x; str -v; str /w; u32 1; str A=1
    str simple; u32 0; str ""; u32 0
}
{ bytes 00; launch; } >"$md/launch"
{ bytes 00; launch | dd bs=1 count=40 2>/dev/null; } >"$md/launch-truncated"
{ bytes 00; u32 1; u32 4294967295; u32 1; } >"$md/launch-huge-nprocs"
{ bytes 0c; u32 2; u32 7; u32 450; u32 3; u32 4; text key1; } >"$md/request"
{ bytes 0d; u32 7; bytes ff ff ff fe; u32 0; } >"$md/reply"
{ bytes 0e; u32 3; u32 0; u32 1500; u32 0; u32 2048; u32 0; u32 90000
  u32 0; u32 4096; u32 0; u32 700; u32 0; u32 1900; u32 0; u32 80
  u32 4; } >"$md/stats"
{ bytes 09; u32 70000; bytes 00 00 00 0f; } >"$md/signal"
# 18 the state request of --timeout (stacks, 10 s), 19 a daemon's answer:
# rank 0 running with its stack, rank 1 exited 1, then a count too large.
{ bytes 12; u32 2; bytes 01; u32 10000; } >"$md/state-request"
{ bytes 13; u32 2; u32 2; u32 0; u32 4242; bytes 01; u32 0
  str "#0  main ()"; u32 1; u32 4243; bytes 02; u32 256; u32 0; } >"$md/state-reply"
{ bytes 13; u32 2; u32 4294967295; u32 0; } >"$md/state-reply-huge-count"
# job 3's output of rank 1 (stdout, read at 1 s), its exit (status 1), its
# MPI_Abort; stdin chunk 4 (the last) of job 3 and its acknowledgement;
# the processes of job 3 started on a node.
{ bytes 0b; u32 3; u32 1; bytes 01 00; u32 0; u32 1000000; u32 3
  text "hi
"; } >"$md/iof"
{ bytes 06; u32 3; u32 1; u32 4243; u32 256; u32 0; u32 0; } >"$md/proc-exit"
{ bytes 05; u32 3; u32 1; u32 2; str "giving up"; } >"$md/pmi-abort"
{ bytes 0f; u32 3; u32 4; bytes 01; u32 2; text "x
"; } >"$md/stdin"
{ bytes 10; u32 3; u32 4; } >"$md/stdin-ack"
{ bytes 1a; u32 3; } >"$md/procs-started"
# 3 a failure of job 3 (status 1), then a daemon's own (job 0)
{ bytes 03; u32 3; u32 1; str "node n3: cannot start rank 2"; } >"$md/failure"
{ bytes 03; u32 0; u32 1; str "node n3: out of memory"; } >"$md/failure-of-the-daemon"
{ bytes 14; u32 3; str "ssh n3 '/usr/bin/hnpd' '--vpid' '3'"
  str "Host key verification failed."; } >"$md/spawn-note"
{ bytes 15; u32 3; } >"$md/kill-daemon"
{ bytes 16; u32 70000; bytes 1; } >"$md/job-end"
{ bytes 17 01 00; u32 0; u32 2; str "-n"; str "hostname"; str "/tmp"; u32 1;
  str "PATH=/bin"; u32 2; str btl; str "self,tcp"; } >"$md/dvm-submit"
{ bytes 18 03; u32 9; u32 143; str "terminated"; } >"$md/dvm-reply"
{ bytes 19; u32 327683; } >"$md/collective"
# 27 a spawn request: job 1's rank 0 asks, from /w, for 2 children of
# "worker -v" with OMPI_PARENT_PORT set, on node a, by node, with 3 opaque
# bytes of the pmix component; then one claiming 2^32-1 apps; 28 its
# answer: job 2, named.
spawn_request() {
    u32 5; u32 1; u32 0; str /w; str node; str ""; str ""; str ""; bytes 00
    str pmix; u32 3; bytes 01 02 03; u32 1
    str worker; u32 1; str -v; u32 1; str OMPI_PARENT_PORT=1.0:7; u32 2
    str a; str ""; str ""; str ""; str ""; str ""; str ""
}
{ bytes 1b; spawn_request; } >"$md/spawn-request"
{ bytes 1b; u32 5; u32 1; u32 0; str ""; str ""; str ""; str ""; str ""
  bytes 00; str ""; u32 0; u32 4294967295; } >"$md/spawn-request-huge-apps"
{ bytes 1c; u32 5; u32 0; u32 2; str "hnp-2-abc"; str ""; } >"$md/spawn-reply"
# 29 the name service: rank 3 of job 2 publishes two names (session,
# persistent), looks one up waiting 5 s; 30 the answer, with the
# publisher; then a lookup of a count past its bytes.
{ bytes 1d 01; u32 7; u32 2; u32 3; u32 3; u32 0; u32 2
  str ompi-svc; str "0.1:2"; str other; u32 0; } >"$md/name-publish"
{ bytes 1d 02; u32 8; u32 2; u32 3; u32 4; u32 5000; u32 1
  str ompi-svc; u32 0; } >"$md/name-lookup"
{ bytes 1e; u32 8; u32 0; u32 1; str ompi-svc; u32 2; u32 3
  str job-2; str "0.1:2"; } >"$md/name-reply"
{ bytes 1d 02; u32 8; u32 2; u32 3; u32 4; u32 5000; u32 268435456
  str k; } >"$md/name-lookup-huge-count"
# 31 a daemon's part of a disconnect of job 1's every rank and job 2's
# rank 3 (it hosts 2 of them, 3 bytes), then one claiming 2^32-1 members;
# 32 the answer: every part's bytes.
{ bytes 1f; u32 9; u32 2; u32 1; u32 4294967295; u32 2; u32 3; u32 2
  str abc; } >"$md/gather"
{ bytes 1f; u32 9; u32 4294967295; u32 1; u32 0; } >"$md/gather-huge-members"
{ bytes 20; u32 9; u32 0; str abcdef; } >"$md/gather-reply"

# fuzz_dvm: a byte (bits 0-3 reads of 1 + 13 * n bytes, bit 4 the
# client's side, bit 5 an honest peer), then the socket's bytes: frames of
# a u32 length and a body. A body is written to a file first, to count it.
vd=$out/dvm
body=$(mktemp)
trap 'rm -f "$body"' EXIT
dvmframe() { "$@" >"$body"; u32 "$(wc -c <"$body")"; cat "$body"; }
client_hello() { hello 2 4294967280; }
zero_proof() { for _ in 1 2 3 4 5 6 7 8; do u32 0; done; }
submit() { bytes 01 00; u32 0; u32 2; str -n; str 2; str hostname; str /tmp
           u32 1; str PATH=/bin; u32 2; str btl; str tcp; }
list() { bytes 03 00; u32 0; u32 0; str ""; u32 0; u32 0; }
reply() { bytes "$1"; u32 7; u32 "$2"; str "$3"; }
{ bytes 20; dvmframe client_hello; dvmframe zero_proof; dvmframe submit
  dvmframe list; } >"$vd/hnp-honest-bytewise"
{ bytes 2f; dvmframe client_hello; dvmframe zero_proof; dvmframe submit
  dvmframe list; dvmframe bytes 02 00 00 00 00 02; } >"$vd/hnp-honest-big-reads"
# a parameter's name without its value (this leaked what was read)
odd_mca() { bytes 01 00; u32 0; u32 1; str x; str /; u32 0; u32 1; str btl; }
{ bytes 20; dvmframe client_hello; dvmframe zero_proof; dvmframe odd_mca; } >"$vd/hnp-mca-name-alone"
{ bytes 03; dvmframe client_hello; dvmframe zero_proof; dvmframe list; } >"$vd/hnp-stranger-guesses"
{ bytes 05; dvmframe hello 2 3; } >"$vd/hnp-daemon-hello"
{ bytes 05; text "GET / HTTP/1.0"; bytes 0d 0a 0d 0a; } >"$vd/hnp-http"
{ bytes 21; dvmframe client_hello; dvmframe zero_proof; u32 4194305; } >"$vd/hnp-oversize"
{ bytes 22; dvmframe client_hello; dvmframe zero_proof; u32 0; u32 100; text short; } >"$vd/hnp-empty-and-truncated"
# the HNP's hello and proof: one frame
hnp_answer() { hello 2 0; zero_proof; }
{ bytes 33; dvmframe hnp_answer; } >"$vd/client-honest-reply"
{ bytes 30; dvmframe hnp_answer; dvmframe reply 01 0 "waiting"
  dvmframe reply 02 0 ""; dvmframe reply 03 143 ""; } >"$vd/client-honest-job"
{ bytes 10; dvmframe hnp_answer; dvmframe reply 03 0 ""; } >"$vd/client-forged-reply"

# fuzz_oob: a configuration byte (bits 0-1 the OOB's vpid of 0 1 2 5,
# bits 2-4 the vpid the peer claims, bit 5 the peer does the handshake
# itself, bit 6 small socket buffers), then records: 00 raw N BYTES,
# 01 frame T N BYTES (09: in two pieces), 02 forged T N K BYTES, 03 replay,
# 04 pump, 05 eof, 06 switch connection, 07 send N (N * 16 bytes).
od=$out/oob
HONEST_AS3=2c   # the OOB is vpid 0; the peer says 3 and knows the secret
{ bytes 0c 00 12; text "GET / HTTP/1.0"; bytes 0d 0a 0d 0a; } >"$od/stranger-http"
{ bytes 0c 00 2c; hello 3 3; bytes 00 20; counting; } >"$od/stranger-hello-and-guess"
{ bytes 0c 00 2c; text HNP1; u16 1; u16 0; u32 3; counting; } >"$od/stranger-old-hello"
{ bytes $HONEST_AS3 01 01 05; text hello; bytes 04 01 02 00 07 02 05; } >"$od/frames-and-eof"
{ bytes $HONEST_AS3 09 07 0b; text "two pieces!"; bytes 01 08 03; text abc; } >"$od/split-frames"
{ bytes $HONEST_AS3 01 01 03; text abc; bytes 02 02 03 05; text def; bytes 01 03 01 78; } >"$od/forged-mac"
{ bytes $HONEST_AS3 01 01 03; text abc; bytes 03 01 02 01 78; } >"$od/replayed-frame"
{ bytes $HONEST_AS3 01 01 01 61 06 01 02 01 62 06 01 03 01 63 07 04 05 06 05; } >"$od/duplicate-connection"
{ bytes 20 01 01 01 61; } >"$od/own-vpid"
{ bytes 6d 07 ff 07 ff 01 01 ff; counting; counting; counting; counting; counting
  counting; counting; text 0123456789abcde; bytes 07 ff 04; } >"$od/small-buffers"

# fuzz_exchange: 4 bytes (component and tree, job size - 2, our vpid, the
# message before which we join all-gather 0), then messages: the sender, a
# u16 length, the body. Bodies as the components write them: flood's
# "id, flags, count, [members,] count x (vpid, blob)" (members with flag
# 1, from the parent only), gather_scatter's contribution
# "id, blob" and table "id, n, n blobs"; the blobs are contact URIs with
# their NUL, as in the contact exchange.
xd=$out/exchange
uri() { u32 $((${#1} + 1)); text "$1"; bytes 00; }
contact() { uri "tcp://127.0.0.1:$((40000 + $1))"; }
# message SRC: the body is read from stdin
message() {
    cat >"$xd/.body"
    bytes "$(printf %02x "$1")"; u16 "$(wc -c <"$xd/.body")"; cat "$xd/.body"
    rm -f "$xd/.body"
}
# entries ID VPID...: a flood message carrying the contacts of VPID...
entries() {
    id=$1; shift
    u32 "$id"; u32 0; u32 $#
    for v in "$@"; do u32 "$v"; contact "$v"; done
}
# down ID MEMBERS VPID...: the same from the parent, with the member count
down() {
    id=$1; members=$2; shift 2
    u32 "$id"; u32 1; u32 $#; u32 "$members"
    for v in "$@"; do u32 "$v"; contact "$v"; done
}
# Vpid 1 of 8 in a binary tree (children 3 and 4, parent 0): the
# children's reports, then the rest from the parent.
{ bytes 02 06 01 00
  entries 0 3 7 | message 3
  entries 0 4 | message 4
  down 0 8 0 2 5 6 | message 0; } >"$xd/flood-complete"
# The same, but we join only once the reports are in, and the parent
# sends the rest in two messages, one entry again.
{ bytes 02 06 01 02
  entries 0 7 3 | message 3
  entries 0 4 | message 4
  entries 0 0 2 | message 0
  down 0 8 2 5 6 | message 0; } >"$xd/flood-late-join"
# The root of a binomial tree of 6 (children 1, 2, 4; 3 and 5 under 1),
# for all-gather 9, which only the messages tell it of.
{ bytes 06 04 00 ff
  entries 9 1 3 5 | message 1
  entries 9 2 | message 2
  entries 9 4 | message 4; } >"$xd/flood-root-binomial"
# A message from a process that is not a neighbour, one with an entry that
# cannot come from there, one with trailing bytes.
{ bytes 02 06 01 00
  entries 0 5 | message 5
  entries 0 0 | message 3
  { entries 0 3; bytes 00; } | message 3; } >"$xd/flood-misrouted"
# Member counts: from a child, fewer than the job has, the right one,
# more than it has (held, as if the word of a growth were on its way).
{ bytes 02 06 01 00
  down 0 8 3 | message 3
  down 0 7 0 | message 0
  down 0 8 0 | message 0
  down 0 9 2 | message 0; } >"$xd/flood-members"
# gather_scatter, the HNP of 4: the daemons' contributions.
{ bytes 01 02 00 00
  for v in 1 2 3; do { u32 0; contact "$v"; } | message "$v"; done; } >"$xd/gs-hnp"
# gather_scatter, daemon 2 of 4: the HNP's table.
{ bytes 01 02 02 00
  { u32 0; u32 4; for v in 0 1 2 3; do contact "$v"; done; } | message 0; } >"$xd/gs-daemon"
# Found by fuzzing: a contribution claiming to come from the HNP itself
# took the HNP's own place, and the HNP's allgather then failed.
{ bytes 01 02 00 ff
  { u32 5; uri x; } | message 0
  { u32 5; contact 1; } | message 1; } >"$xd/gs-hnp-own-vpid"

# fuzz_params: a byte (0: the buffer as it arrives; 1: only its entries,
# the target adds magic, version and hash), then the buffer. Lengths are
# varints; every length here is under 128, one byte.
pd=$out/params
entry() { bytes "$(printf %02x ${#1})"; text "$1"; bytes "$(printf %02x ${#2})"; text "$2"; }
# fnv1a FILE: the hash param_pack.c ends a buffer with, big-endian.
fnv1a() {
    h=2166136261
    for b in $(od -An -v -tu1 "$1"); do h=$(( ((h ^ b) * 16777619) & 4294967295 )); done
    u32 "$h"
}
# packed COUNT: the entries on stdin, framed and hashed as the HNP sends them
packed() {
    { text HNPP; bytes 01 "$(printf %02x "$1")"; cat; } >"$pd/.body"
    cat "$pd/.body"; fnv1a "$pd/.body"; rm -f "$pd/.body"
}
# What an HNP forwards to its daemons (names as a real job sets them).
{ bytes 00; { entry oob_tcp_if_include 127.0.0.1/8
              entry plm_rsh_agent /usr/bin/ssh
              entry routed radix
              entry fuzz_x_int -12; } | packed 4; } >"$pd/welcome"
{ bytes 00; { entry fuzz_x_bool yes; } | packed 1 | dd bs=1 count=12 2>/dev/null; } >"$pd/truncated"
{ bytes 00; { entry fuzz_x_bool yes; } | packed 1 | sed 's/yes/yeS/'; } >"$pd/bad-hash"
{ bytes 01 07; entry fuzz_x_int -12; entry fuzz_x_unsigned 9
  entry fuzz_x_size 2m; entry fuzz_x_bool on; entry fuzz_x_double 1e-3
  entry fuzz_x_string "a b"; entry fuzz_x_enum blue; } >"$pd/every-type"
{ bytes 01 04; entry fuzz_old_int 5; entry fuzz_y_later w; entry fuzz ""
  entry fuzz_x_double 7; } >"$pd/synonym-unregistered-weaker"
{ bytes 01 02; entry fuzz_x_bool maybe; entry fuzz_x_int 1; } >"$pd/bad-value"
{ bytes 01 02; entry fuzz_x_int 1; entry fuzz_x_int 2; } >"$pd/duplicate-name"
{ bytes 01 01 00 01; text v; } >"$pd/empty-name"
{ bytes 01 8f 80 80 80 10; } >"$pd/huge-count"

# fuzz_uri: the text of a contact URI.
ud=$out/uri
text "tcp://127.0.0.1:40001" >"$ud/daemon"
text "tcp://10.1.0.5:40001,tcp6://[fd00::5]:40001,tcp://127.0.0.1:40001" >"$ud/several"
text "tcp6://[::ffff:10.1.0.5]:1" >"$ud/mapped-v6"
text "tcp://node1:40001" >"$ud/name-not-address"
text "tcp://10.1.0.5:0" >"$ud/port-zero"
text "tcp://10.1.0.5:65536,tcp://10.1.0.5:1" >"$ud/port-too-large"
text "tcp6://[fd00::5:40001" >"$ud/no-bracket"
text "tcp://10.1.0.5:40001," >"$ud/trailing-comma"

# fuzz_hosts: a byte (0 an expression, 1 --host, 2 a hostfile), the text.
hd=$out/hosts
{ bytes 00; text "node[001-128,140],r[1-2]n[01-04]"; } >"$hd/expression"
{ bytes 00; text "n[9-10]x[08-11]"; } >"$hd/padding"
{ bytes 00; text "n[1-3,b"; } >"$hd/unbalanced"
{ bytes 01; text "a,b:4,node[1-8]:2,a:1"; } >"$hd/host-list"
{ bytes 01; text "keep:4294967295,keep:1"; } >"$hd/host-list-slots-overflow"
{ bytes 02; printf '%s\n' "# the cluster" "node[01-16] slots=8" \
      "  login max_slots=2 slots=1  # head" "" "node03 slots=2"; } >"$hd/hostfile"
{ bytes 02; printf '%s\n' "node1 slots=x" "n:4"; } >"$hd/hostfile-errors"
# Found by fuzzing: a long name over a large range took gigabytes.
{ bytes 02; printf '%0100d[1-999999] slots=1\n' 0; } >"$hd/hostfile-names-too-long"

# fuzz_pmi_server: a byte of settings (bits 0-1 the bound on what a process
# stores, bit 2 bounded fence blobs, bit 3 destroy at the first client
# error), then operations: "say P TEXT" is process P writing TEXT (under
# 256 bytes), 04 a loop turn, 05 LEN BLOB the fence completing with
# another node's blob (0d: failing), 06/0e process 0/1 closing, 07 both
# processes reading.
sd=$out/pmi_server
say() {
    [ ${#2} -le 256 ] || { echo "make-corpus.sh: say: too long: $2" >&2; exit 1; }
    bytes "0$1" "$(printf %02x $((${#2} - 1)))"; text "$2"
}
v2() { printf '%-6d%s' ${#1} "$1"; }
say2() { body=$(v2 "$2"); say "$1" "$body"; }
turns() { bytes 04 04 07; }
nl='
'
{ bytes 00
  say 0 "cmd=init pmi_version=1 pmi_subversion=1$nl"
  say 1 "cmd=init pmi_version=1 pmi_subversion=1$nl"; turns
  say 0 "cmd=get_maxes${nl}cmd=get_my_kvsname${nl}cmd=get_appnum${nl}cmd=get_universe_size$nl"
  say 0 "cmd=put kvsname=kvs_fuzz_1 key=bc-0 value=tcp://10.1.0.5:40001${nl}cmd=barrier_in$nl"
  say 1 "cmd=put kvsname=kvs_fuzz_1 key=bc-1 value=x${nl}cmd=barrier_in$nl"; turns
  bytes 05 00; turns
  say 1 "cmd=get kvsname=kvs_fuzz_1 key=bc-0${nl}cmd=get kvsname=kvs_fuzz_1 key=PMI_process_mapping$nl"
  say 0 "cmd=get kvsname=kvs_fuzz_1 key=nobody${nl}cmd=finalize$nl"
  say 1 "cmd=finalize$nl"; turns; } >"$sd/v1-session"
# A node's blob: u32 count, then key and value, each a u32 length and bytes.
kv() { u32 ${#1}; text "$1"; u32 ${#2}; text "$2"; }
{ bytes 00
  say 0 "cmd=init pmi_version=2 pmi_subversion=0$nl"; turns
  say2 0 "cmd=fullinit;pmijobid=kvs_fuzz_1;pmirank=0;threaded=FALSE;"
  say2 1 "cmd=fullinit;pmijobid=kvs_fuzz_1;pmirank=1;threaded=TRUE;"; turns
  say2 0 "cmd=job-getid;thrid=0x7f00;"
  say2 0 "cmd=info-getjobattr;key=PMI_process_mapping;"
  say2 1 "cmd=info-getnodeattr;key=shm;wait=TRUE;thrid=7;"; turns
  say2 0 "cmd=info-putnodeattr;key=shm;value=/dev/shm/x;"
  say2 0 "cmd=kvs-put;key=bc-0;value=a;;b;"
  say2 0 "cmd=kvs-fence;"
  say2 1 "cmd=kvs-fence;thrid=8;"; turns
  bytes 05 "$(printf %02x 22)"; { u32 1; kv bc-2 remote; }; turns
  say2 1 "cmd=kvs-get;jobid=kvs_fuzz_1;srcid=-1;key=bc-2;"
  say2 0 "cmd=finalize;"
  say2 1 "cmd=abort;isworld=TRUE;msg=bye;"; turns; } >"$sd/v2-session"
{ bytes 09
  say 0 "cmd=init pmi_version=1 pmi_subversion=1$nl"; turns
  say 0 "mcmd=spawn${nl}nprocs=1${nl}execname=/bin/true${nl}totspawns=1${nl}spawnssofar=1${nl}endcmd$nl"
  say 0 "cmd=put kvsname=kvs_fuzz_1 key=k value=$(printf '%0200d' 0)$nl"
  say 0 "cmd=put kvsname=kvs_fuzz_1 key=l value=$(printf '%0200d' 0)$nl"
  say 0 "cmd=put kvsname=kvs_fuzz_1 key=m value=$(printf '%0200d' 0)$nl"
  say 0 "cmd=put kvsname=kvs_fuzz_1 key=n value=$(printf '%0200d' 0)$nl"; turns
  say 0 "cmd=barrier_in$nl"
  say 1 "cmd=barrier_in$nl"; turns
  bytes 0d 00; turns
  say 1 "cmd=publish_name service=s port=p$nl"
  say 1 "cmd=abort exitcode=3$nl"; turns
  say 0 "garbage$nl"; turns; } >"$sd/v1-limits-spawn-abort"
{ bytes 00
  say 0 "cmd=init pmi_version=1 pmi_subversion=1$nl"
  say 1 "00012 cmd=finalize;"; turns; bytes 06 0e; turns; } >"$sd/mixed-wires-close"
# Name publishing as MPICH writes it: PMI-1 publish, a refused second
# publish (0c: the daemon answers with an error), lookups, unpublish;
# PMI-2 the same, and a request left unanswered when the process closes.
{ bytes 00
  say 0 "cmd=init pmi_version=1 pmi_subversion=1$nl"
  say 1 "cmd=init pmi_version=2 pmi_subversion=0$nl"; turns
  say 0 "cmd=publish_name service=svc port=tag#0\$tcp#10.0.0.1:5$nl"; turns
  say 0 "cmd=publish_name service=svc port=p2$nl"; bytes 0c 07
  say 0 "cmd=lookup_name service=svc${nl}cmd=lookup_name service=$nl"; turns; turns
  say 0 "cmd=unpublish_name service=svc$nl"; turns
  say2 1 "cmd=fullinit;pmijobid=kvs_fuzz_1;pmirank=1;threaded=FALSE;"; turns
  say2 1 "cmd=name-publish;name=svc2;port=a;;b;infokeycount=0;"; turns
  say2 1 "cmd=name-lookup;name=svc2;infokeycount=0;thrid=9;"
  say2 1 "cmd=name-unpublish;name=svc2;infokeycount=0;"; bytes 07
  say2 1 "cmd=name-lookup;name=never;"; bytes 0e; turns; } >"$sd/names"
# Spawn as MPICH writes it: PMI-1 two blocks (the answer after the
# second), a block out of order; PMI-2 two programs with preput and info
# keys, one refused (0c), one with argc past its arguments.
{ bytes 00
  say 0 "cmd=init pmi_version=1 pmi_subversion=1$nl"
  say 1 "cmd=init pmi_version=2 pmi_subversion=0$nl"; turns
  say 0 "mcmd=spawn${nl}nprocs=2${nl}execname=/bin/w${nl}totspawns=2${nl}spawnssofar=1${nl}arg1=a b${nl}argcnt=1${nl}preput_num=1${nl}preput_key_0=PARENT_ROOT_PORT_NAME${nl}preput_val_0=tag#0\$x${nl}info_num=2${nl}info_key_0=wdir${nl}info_val_0=/tmp${nl}info_key_1=host${nl}info_val_1=n2${nl}endcmd$nl"
  say 0 "mcmd=spawn${nl}nprocs=1${nl}execname=/bin/v${nl}totspawns=2${nl}spawnssofar=2${nl}argcnt=0${nl}preput_num=1${nl}preput_key_0=PARENT_ROOT_PORT_NAME${nl}preput_val_0=tag#0\$x${nl}info_num=0${nl}endcmd$nl"; turns
  bytes 04 07
  say 0 "mcmd=spawn${nl}nprocs=1${nl}execname=/bin/v${nl}totspawns=2${nl}spawnssofar=2${nl}argcnt=0${nl}endcmd$nl"; turns
  say2 1 "cmd=fullinit;pmijobid=kvs_fuzz_1;pmirank=1;threaded=FALSE;"; turns
  say2 1 "cmd=spawn;ncmds=2;preputcount=1;ppkey0=PARENT_ROOT_PORT_NAME;ppval0=p;;q;subcmd=/bin/w;maxprocs=2;argc=1;argv0=x;infokeycount=1;infokey0=path;infoval0=/opt/bin;subcmd=/bin/v;maxprocs=1;argc=0;infokeycount=0;"; turns
  bytes 0c 07
  say2 1 "cmd=spawn;ncmds=1;thrid=3;subcmd=w;maxprocs=1;argc=2;argv0=x;"; turns; } >"$sd/spawn"

# fuzz_pmix_cards: a daemon's part of a connect across jobs, a run of
# cards (namespace string, rank u32, data blob; strings and blobs: a u32
# length, the bytes). The target keeps the cards of even ranks below 64.
cd=$out/pmix_cards
{ str job-1; u32 0; str alpha; str job-2; u32 4; str bravo
  str job-2; u32 3; str skipped; str job-2; u32 6; u32 0; } >"$cd/two-jobs"
{ str job-1; u32 2; str old; str job-1; u32 2; str newer; } >"$cd/sent-twice"
{ str job-1; u32 0; str alpha; str job-1; u32 2; u32 10; text abc; } >"$cd/truncated"
{ str job-1; u32 0; str alpha; u32 0; u32 2; str x; } >"$cd/empty-namespace"
{ str job-1; u32 4294967294; str far; str job-1; u32 62; str last; } >"$cd/far-rank"
