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
mkdir -p "$out/frame" "$out/buffer" "$out/messages" "$out/oob"

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
{ bytes $JOB12_MAX4096; hello 2 3
  frame 3 0 1 6; u32 2; text hi            # a string body
  frame 0 11 7 0                           # an empty body
  frame 5 6 2 7; u32 3; bytes 00 ff 01; } >"$fd/valid-stream"
{ bytes 00; hello 2 4294967295; frame 4294967295 0 0 0; } >"$fd/any-size-job"
{ bytes 1a; hello 2 2; frame 2 1 3 4; bytes de ad be ef; } >"$fd/peer-knows-secret"
{ bytes $JOB12_MAX4096; hello 2 3 | dd bs=1 count=20 2>/dev/null; } >"$fd/truncated-hello"
{ bytes $JOB12_MAX4096; hello 2 3; frame 3 0 1 6 | dd bs=1 count=10 2>/dev/null; } >"$fd/truncated-header"
{ bytes $JOB12_MAX4096; hello 2 3; frame 3 0 1 100; text short; } >"$fd/truncated-body"
{ bytes $JOB12_MAX4096; hello 2 3; frame 3 0 1 2147483647; } >"$fd/oversize-length"
{ bytes 06; hello 2 0; frame 0 0 1 17; } >"$fd/over-small-limit"
{ bytes $JOB12_MAX4096; text "GET / HTTP/1.0"; bytes 0d 0a 0d 0a; } >"$fd/bad-magic"
{ bytes $JOB12_MAX4096; hello 1 3; } >"$fd/bad-version"
# The hello of protocol 1, which carried the secret itself: refused.
{ bytes $JOB12_MAX4096; text HNP1; u16 1; u16 0; u32 3
  bytes 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f \
        10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 20; } >"$fd/bad-secret"
{ bytes $JOB12_MAX4096; hello 2 77; } >"$fd/bad-hello-vpid"
{ bytes $JOB12_MAX4096; hello 2 3; frame 3 4294967295 1 0; } >"$fd/invalid-destination"
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
# 13 reply, 14 stats, 9 signal: the order of its table), then the body as
# runtime/wire documents it. Strings and blobs: a u32 length, the bytes.
md=$out/messages
str() { u32 ${#1}; text "$1"; }
launch() { # jobid 1, 2 ranks on nodes a (4 slots) and bc (5), universe 9,
    # wdir /w, A=1, bound, not reported, stdin to none, one app "x -v",
    # pmi components "simple"
    u32 1; u32 2; u32 2; u32 0; u32 1
    str a; u32 4; str bc; u32 5; u32 9
    str /w; u32 1; str A=1
    bytes 01 00 ff ff ff ff
    u32 1; u32 0; u32 2; u32 2; str x; str -v; str simple
}
{ bytes 00; launch; } >"$md/launch"
{ bytes 00; launch | dd bs=1 count=40 2>/dev/null; } >"$md/launch-truncated"
{ bytes 00; u32 1; u32 4294967295; u32 1; } >"$md/launch-huge-nprocs"
{ bytes 0c; u32 7; u32 450; u32 3; u32 4; text key1; } >"$md/request"
{ bytes 0d; u32 7; bytes ff ff ff fe; u32 0; } >"$md/reply"
{ bytes 0e; u32 3; u32 0; u32 1500; u32 0; u32 2048; u32 0; u32 90000
  u32 0; u32 4096; u32 0; u32 700; u32 0; u32 1900; u32 0; u32 80
  u32 4; } >"$md/stats"
{ bytes 09 00 00 00 0f; } >"$md/signal"

# fuzz_oob: a configuration byte (bits 0-1 the OOB's vpid of 0 1 2 5,
# bits 2-4 the vpid the peer claims, bit 5 the peer does the handshake
# itself, bit 6 small socket buffers), then records: 00 raw N BYTES,
# 01 frame T N BYTES (09: in two pieces), 02 forged T N K BYTES, 03 replay,
# 04 pump, 05 eof, 06 switch connection, 07 send N (N * 16 bytes).
od=$out/oob
HONEST_AS3=2c   # the OOB is vpid 0; the peer says 3 and knows the secret
{ bytes 0c 00 12; text "GET / HTTP/1.0"; bytes 0d 0a 0d 0a; } >"$od/stranger-http"
{ bytes 0c 00 2c; hello 2 3; bytes 00 20; counting; } >"$od/stranger-hello-and-guess"
{ bytes 0c 00 2c; text HNP1; u16 1; u16 0; u32 3; counting; } >"$od/stranger-old-hello"
{ bytes $HONEST_AS3 01 01 05; text hello; bytes 04 01 02 00 07 02 05; } >"$od/frames-and-eof"
{ bytes $HONEST_AS3 09 07 0b; text "two pieces!"; bytes 01 08 03; text abc; } >"$od/split-frames"
{ bytes $HONEST_AS3 01 01 03; text abc; bytes 02 02 03 05; text def; bytes 01 03 01 78; } >"$od/forged-mac"
{ bytes $HONEST_AS3 01 01 03; text abc; bytes 03 01 02 01 78; } >"$od/replayed-frame"
{ bytes $HONEST_AS3 01 01 01 61 06 01 02 01 62 06 01 03 01 63 07 04 05 06 05; } >"$od/duplicate-connection"
{ bytes 20 01 01 01 61; } >"$od/own-vpid"
{ bytes 6d 07 ff 07 ff 01 01 ff; counting; counting; counting; counting; counting
  counting; counting; text 0123456789abcde; bytes 07 ff 04; } >"$od/small-buffers"
