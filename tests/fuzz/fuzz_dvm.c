/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: what either end of a DVM's local socket (runtime/hnp/
 * dvm_proto.c) reads from a peer it does not know yet. The HNP's side: a
 * client's frames (u32 length | body) arriving in reads of any size, its
 * hello, its proof, then its requests. The client's side: the HNP's hello
 * and proof, then its replies.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    bits 0-3  the size of each read: 1 + 13 * n bytes, n = 0..15
 *             bit 4     the client's side (else the HNP's)
 *             bit 5     honest: the proof frame (HNP's side) or the hello
 *                       and proof frame (client's side) of the right length
 *                       gets the right proof, so the requests or replies
 *                       behind it are read; else the bytes are all the
 *                       peer's and the handshake must fail
 *   then      the bytes as they come from the socket.
 * The oracle, besides the sanitizers: a frame handed out lies inside what
 * was read and within HNP_DVM_MAX_MESSAGE; a hello the HNP accepts is a
 * client's and its answer passes the client's check; nobody passes the
 * handshake without the secret; a request or reply read re-packs to the
 * bytes it came from.
 */
#include "config.h"

#include <string.h>

#include "fuzz_target.h"
#include "hnp/dvm_proto.h"
#include "hnp_buffer.h"
#include "hnp_errors.h"

typedef enum { AT_HELLO, AT_PROOF, AT_MESSAGES, AT_END } stage_t;

typedef struct reader_side {
    bool client, honest;
    stage_t stage;
    hnp_auth_transcript_t t;
} reader_side_t;

static const uint8_t secret[HNP_SECRET_LEN] = { 7, 1, 2, 3, 4, 5, 6, 7 };

/* A message read whole re-packs to the bytes it was read from. */
static void check_repack(const uint8_t *body, size_t used,
                         const hnp_buffer_t *again)
{
    FUZZ_CHECK(hnp_buffer_status(again) == HNP_SUCCESS);
    FUZZ_CHECK(again->len == used && memcmp(again->data, body, used) == 0);
}

static void read_request(const uint8_t *body, size_t len)
{
    hnp_wire_dvm_request_t m;
    hnp_buffer_t again;
    hnp_reader_t rd;

    hnp_reader_init(&rd, body, len);
    if (hnp_wire_dvm_request_unpack(&rd, &m) != HNP_SUCCESS)
        return;
    FUZZ_CHECK(m.argv != NULL && m.env != NULL && m.cwd != NULL);
    FUZZ_CHECK(m.argv[m.argc] == NULL && m.env[m.nenv] == NULL);
    hnp_buffer_init(&again);
    hnp_wire_dvm_request_pack(&again, &m);
    check_repack(body, rd.pos, &again);
    hnp_buffer_release(&again);
    hnp_wire_dvm_request_clear(&m);
}

static void read_reply(const uint8_t *body, size_t len)
{
    hnp_wire_dvm_reply_t m;
    hnp_buffer_t again;
    hnp_reader_t rd;

    hnp_reader_init(&rd, body, len);
    if (hnp_wire_dvm_reply_unpack(&rd, &m) != HNP_SUCCESS)
        return;
    FUZZ_CHECK(m.text != NULL);
    hnp_buffer_init(&again);
    hnp_wire_dvm_reply_pack(&again, &m);
    check_repack(body, rd.pos, &again);
    hnp_buffer_release(&again);
    hnp_wire_dvm_reply_clear(&m);
}

/* The HNP's side of one frame, as dvm.c takes it. */
static bool hnp_takes(reader_side_t *s, uint8_t *body, size_t len)
{
    uint8_t answer[HNP_REPLY_LEN];
    hnp_auth_transcript_t client;

    switch (s->stage) {
    case AT_HELLO:
        if (dvm_accept_hello(secret, body, len, &s->t, answer) !=
            HNP_SUCCESS)
            return false;
        FUZZ_CHECK(len == HNP_HELLO_LEN);
        FUZZ_CHECK(s->t.connector.vpid == HNP_DVM_CLIENT_VPID);
        client = s->t;
        memset(&client.acceptor, 0, sizeof(client.acceptor));
        FUZZ_CHECK(dvm_client_check_reply(secret, &client, answer,
                                          sizeof(answer)) == HNP_SUCCESS);
        s->stage = AT_PROOF;
        return true;
    case AT_PROOF:
        if (s->honest && len == HNP_PROOF_LEN)
            hnp_auth_proof(secret, &s->t, HNP_AUTH_CONNECTOR, body);
        if (!dvm_accept_proof(secret, &s->t, body, len))
            return false;
        FUZZ_CHECK(s->honest);
        s->stage = AT_MESSAGES;
        return true;
    default:
        read_request(body, len);
        return true;
    }
}

/* The client's side of one frame, as dvm_client.c takes it. */
static bool client_takes(reader_side_t *s, uint8_t *body, size_t len)
{
    hnp_hello_t acceptor;

    if (s->stage != AT_HELLO) {
        read_reply(body, len);
        return true;
    }
    if (s->honest && len == HNP_REPLY_LEN &&
        hnp_hello_check(body, HNP_HELLO_LEN, 0, &acceptor, NULL, 0) ==
            HNP_SUCCESS) {
        s->t.acceptor = acceptor;
        hnp_auth_proof(secret, &s->t, HNP_AUTH_ACCEPTOR, body + HNP_HELLO_LEN);
    }
    if (dvm_client_check_reply(secret, &s->t, body, len) != HNP_SUCCESS)
        return false;
    FUZZ_CHECK(s->honest);
    s->stage = AT_MESSAGES;
    return true;
}

/* Every whole frame in @p in, as the readers loop over them. */
static void take_frames(reader_side_t *s, dvm_inbuf_t *in)
{
    const uint8_t *body;
    size_t len = 0;
    bool bad = false;

    while (s->stage != AT_END &&
           (body = dvm_inbuf_frame(in, &len, &bad)) != NULL) {
        FUZZ_CHECK(len <= HNP_DVM_MAX_MESSAGE);
        FUZZ_CHECK(body == in->data + 4 && len <= in->len - 4);
        /* the readers own the buffer: the honest peer's proof goes in it */
        bool ok = s->client ? client_takes(s, (uint8_t *)body, len)
                            : hnp_takes(s, (uint8_t *)body, len);
        if (!ok)
            s->stage = AT_END;
        else
            dvm_inbuf_drop(in, len);
    }
    if (bad)
        s->stage = AT_END;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool sodium_ready;
    reader_side_t s = { 0 };
    dvm_inbuf_t in = { 0 };
    size_t step, pos = 1;

    if (size == 0)
        return 0;
    if (!sodium_ready && hnp_auth_init() != HNP_SUCCESS)
        abort();
    sodium_ready = true;
    step = 1 + 13 * (size_t)(data[0] & 15);
    s.client = (data[0] & 0x10) != 0;
    s.honest = (data[0] & 0x20) != 0;
    s.t.connector.version = HNP_PROTOCOL_VERSION;
    s.t.connector.vpid = HNP_DVM_CLIENT_VPID;
    for (size_t i = 0; i < HNP_NONCE_LEN; i++)
        s.t.connector.nonce[i] = (uint8_t)i;
    while (pos < size && s.stage != AT_END) {
        size_t avail = 0, n = size - pos < step ? size - pos : step;
        uint8_t *space = dvm_inbuf_space(&in, &avail);

        FUZZ_CHECK(space != NULL && avail >= n);
        memcpy(space, data + pos, n);
        in.len += n;
        pos += n;
        take_frames(&s, &in);
    }
    dvm_inbuf_release(&in);
    return 0;
}
