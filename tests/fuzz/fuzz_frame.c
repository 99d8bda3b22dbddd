/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the bytes a peer sends down a fresh connection.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    how the receiver is configured:
 *               bits 0-1  job size nprocs: 0 (unknown), 1, 12, 4096
 *               bits 2-3  largest body accepted: 0, 16, 4096, 1 MiB
 *               bit 4     unused (it was "the peer knows the secret" when
 *                         a hello carried the secret; the handshake's
 *                         proofs and the frames' MACs are fuzzed by
 *                         fuzz_oob.c)
 *   then      the stream: a hello, then frame headers each followed by
 *             their body, parsed the way the receiving side does: stop at
 *             the first refusal (the connection is closed) or when the
 *             stream ends inside a header or a body (more bytes would be
 *             awaited).
 * Besides the sanitizers, the target checks what a correct codec
 * guarantees: accepted headers re-encode to the bytes they came from and
 * respect the limits they were checked against; refusals explain
 * themselves. The same bytes are also fed to the secret's hex decoder.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "hnp_buffer.h"
#include "wire/frame.h"
#include "fuzz_target.h"
#include "hnp_errors.h"

typedef struct receiver {
    uint32_t nprocs;
    size_t max_len;
} receiver_t;

static receiver_t receiver_from_config(uint8_t config)
{
    static const uint32_t nprocs[4] = { 0, 1, 12, 4096 };
    static const size_t max_len[4] = { 0, 16, 4096, 1u << 20 };
    receiver_t rcv = {
        .nprocs = nprocs[config & 3],
        .max_len = max_len[(config >> 2) & 3],
    };

    return rcv;
}

/* The hello; returns how many bytes it used, 0 when the receiver stops. */
static size_t check_hello(const receiver_t *rcv, const uint8_t *p, size_t n)
{
    uint8_t again[HNP_HELLO_LEN];
    hnp_hello_t hello;
    char why[256] = "";
    int rc;

    rc = hnp_hello_check(p, n, rcv->nprocs, &hello, why, sizeof(why));
    if (n < HNP_HELLO_LEN)
        FUZZ_CHECK(rc == HNP_ERR_TRUNCATED);
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(rc == HNP_ERR_TRUNCATED || rc == HNP_ERR_BAD_PARAM ||
                   rc == HNP_ERR_VERSION);
        FUZZ_CHECK(why[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(hello.version == HNP_PROTOCOL_VERSION);
    FUZZ_CHECK(rcv->nprocs == 0 || hello.vpid < rcv->nprocs);
    /* Only the reserved field (ignored, sent as 0) may differ. */
    hnp_hello_encode(&hello, again);
    FUZZ_CHECK(memcmp(again, p, 6) == 0);
    FUZZ_CHECK(memcmp(again + 8, p + 8, HNP_HELLO_LEN - 8) == 0);
    return HNP_HELLO_LEN;
}

/* A body as a message handler reads it: a string and a blob; whatever the
 * reader hands out lies inside the body. */
static void read_body(const uint8_t *body, size_t len)
{
    hnp_reader_t rd;
    const uint8_t *blob;
    size_t blob_len;
    char *s;

    hnp_reader_init(&rd, body, len);
    s = hnp_unpack_string(&rd);
    FUZZ_CHECK(s == NULL || strlen(s) <= len);
    free(s);
    blob = hnp_unpack_blob(&rd, &blob_len);
    if (blob != NULL)
        FUZZ_CHECK(blob >= body && blob_len <= len &&
                   (size_t)(blob - body) <= len - blob_len);
    FUZZ_CHECK(rd.pos <= rd.len);
}

/* One frame; returns how many bytes it used, 0 when the receiver stops. */
static size_t check_frame(const receiver_t *rcv, const uint8_t *p, size_t n)
{
    uint8_t again[HNP_FRAME_HEADER_LEN];
    hnp_frame_header_t hdr;
    char why[256] = "";
    int rc;

    rc = hnp_frame_header_decode(p, n, rcv->max_len, rcv->nprocs, &hdr, why,
                                 sizeof(why));
    FUZZ_CHECK((rc == HNP_ERR_TRUNCATED) == (n < HNP_FRAME_HEADER_LEN));
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(rc == HNP_ERR_TRUNCATED || rc == HNP_ERR_BAD_PARAM);
        FUZZ_CHECK(why[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(hdr.len <= rcv->max_len);
    FUZZ_CHECK(rcv->nprocs == 0 ||
               (hdr.src < rcv->nprocs && hdr.dst < rcv->nprocs));
    FUZZ_CHECK(rcv->nprocs == 0 ||
               (hdr.src != HNP_VPID_INVALID && hdr.dst != HNP_VPID_INVALID));
    hnp_frame_header_encode(&hdr, again);
    FUZZ_CHECK(memcmp(again, p, sizeof(again)) == 0);
    if (hdr.len > n - HNP_FRAME_HEADER_LEN)
        return 0; /* the body has not arrived yet */
    read_body(p + HNP_FRAME_HEADER_LEN, hdr.len);
    return HNP_FRAME_HEADER_LEN + (size_t)hdr.len;
}

/* The input as the text a daemon reads its secret from. */
static void check_secret_hex(const uint8_t *p, size_t n)
{
    char text[2 * HNP_SECRET_LEN + 2], again[2 * HNP_SECRET_LEN + 1];
    uint8_t secret[HNP_SECRET_LEN];
    size_t len = n < sizeof(text) - 1 ? n : sizeof(text) - 1;

    memcpy(text, p, len);
    text[len] = '\0';
    if (hnp_secret_from_hex(text, secret) != HNP_SUCCESS)
        return;
    FUZZ_CHECK(strlen(text) == 2 * HNP_SECRET_LEN);
    hnp_secret_to_hex(secret, again);
    for (size_t i = 0; i < 2 * HNP_SECRET_LEN; i++)
        FUZZ_CHECK(again[i] == tolower((unsigned char)text[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    receiver_t rcv;
    size_t pos, used;

    if (size == 0)
        return 0;
    rcv = receiver_from_config(data[0]);
    check_secret_hex(data + 1, size - 1);
    pos = 1;
    used = check_hello(&rcv, data + pos, size - pos);
    while (used > 0) {
        pos += used;
        used = check_frame(&rcv, data + pos, size - pos);
    }
    return 0;
}
