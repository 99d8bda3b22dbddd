/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handshake proofs, per-connection keys and frame MACs (see auth.h). Every
 * primitive is libsodium's; this file only decides what goes into them.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "hnp_errors.h"

_Static_assert(HNP_PROOF_LEN == crypto_auth_hmacsha256_BYTES,
               "a proof is one HMAC-SHA256");
_Static_assert(HNP_MAC_LEN == crypto_onetimeauth_poly1305_BYTES,
               "a frame MAC is a Poly1305 tag");
_Static_assert(crypto_auth_hmacsha256_BYTES == crypto_stream_chacha20_KEYBYTES,
               "a derived key keys ChaCha20");
_Static_assert(crypto_onetimeauth_poly1305_KEYBYTES <= 64,
               "a one-time key is within ChaCha20's first block");
_Static_assert(crypto_stream_chacha20_NONCEBYTES == 8,
               "the nonce is the 64-bit sequence number");

/* One label per use, so that no output can stand in for another: a proof
 * for the other role, a key for a proof. The version is in the labels as
 * well as in the hellos. */
static const char *const proof_label[2] = {
    "hnp v3 connector proof", "hnp v3 acceptor proof",
};
static const char *const key_label[2] = {
    "hnp v3 frames from connector", "hnp v3 frames from acceptor",
};

int hnp_auth_init(void)
{
    return sodium_init() >= 0 ? HNP_SUCCESS : HNP_ERROR;
}

void hnp_auth_nonce(uint8_t nonce[HNP_NONCE_LEN])
{
    randombytes_buf(nonce, HNP_NONCE_LEN);
}

/* HMAC-SHA256(secret, label NUL | connector's hello | acceptor's hello). */
static void transcript_hmac(const uint8_t secret[HNP_SECRET_LEN],
                            const char *label, const hnp_auth_transcript_t *t,
                            uint8_t out[crypto_auth_hmacsha256_BYTES])
{
    crypto_auth_hmacsha256_state st;
    uint8_t hello[HNP_HELLO_LEN];

    crypto_auth_hmacsha256_init(&st, secret, HNP_SECRET_LEN);
    crypto_auth_hmacsha256_update(&st, (const uint8_t *)label,
                                  strlen(label) + 1);
    hnp_hello_encode(&t->connector, hello);
    crypto_auth_hmacsha256_update(&st, hello, sizeof(hello));
    hnp_hello_encode(&t->acceptor, hello);
    crypto_auth_hmacsha256_update(&st, hello, sizeof(hello));
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof(st));
}

void hnp_auth_proof(const uint8_t secret[HNP_SECRET_LEN],
                    const hnp_auth_transcript_t *t, hnp_auth_role_t prover,
                    uint8_t proof[HNP_PROOF_LEN])
{
    transcript_hmac(secret, proof_label[prover != HNP_AUTH_CONNECTOR], t,
                    proof);
}

void hnp_auth_job_name(const uint8_t secret[HNP_SECRET_LEN], uint32_t jobid,
                       char out[HNP_AUTH_JOB_NAME_LEN])
{
    static const char label[] = "hnp job name v1";
    uint8_t msg[sizeof(label) + sizeof(uint32_t)];
    uint8_t mac[crypto_auth_hmacsha256_BYTES];
    char hex[2 * 16 + 1];

    memcpy(msg, label, sizeof(label));
    for (size_t i = 0; i < sizeof(uint32_t); i++)
        msg[sizeof(label) + i] = (uint8_t)(jobid >> (8 * i));
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, HNP_SECRET_LEN);
    crypto_auth_hmacsha256_update(&st, msg, sizeof(msg));
    crypto_auth_hmacsha256_final(&st, mac);
    sodium_bin2hex(hex, sizeof(hex), mac, 16);
    snprintf(out, HNP_AUTH_JOB_NAME_LEN, "hnp-%s-%u", hex, (unsigned)jobid);
    sodium_memzero(mac, sizeof(mac));
    sodium_memzero(&st, sizeof(st));
}

bool hnp_auth_proof_check(const uint8_t secret[HNP_SECRET_LEN],
                          const hnp_auth_transcript_t *t,
                          hnp_auth_role_t prover,
                          const uint8_t proof[HNP_PROOF_LEN])
{
    uint8_t expect[HNP_PROOF_LEN];

    hnp_auth_proof(secret, t, prover, expect);
    bool ok = crypto_verify_32(expect, proof) == 0;
    sodium_memzero(expect, sizeof(expect));
    return ok;
}

void hnp_frame_mac_init(hnp_frame_mac_t *m,
                        const uint8_t secret[HNP_SECRET_LEN],
                        const hnp_auth_transcript_t *t,
                        hnp_auth_role_t sender)
{
    unsigned dir = sender != HNP_AUTH_CONNECTOR;

    transcript_hmac(secret, key_label[dir], t, m->key);
    m->seq = 0;
}

void hnp_frame_mac_wipe(hnp_frame_mac_t *m)
{
    sodium_memzero(m, sizeof(*m));
}

/* The frame's one-time Poly1305 key: ChaCha20's keystream under the
 * direction's key, the sequence number as nonce, from its first byte. */
void hnp_frame_mac_begin(const hnp_frame_mac_t *m, hnp_frame_mac_run_t *run)
{
    uint8_t nonce[crypto_stream_chacha20_NONCEBYTES];
    uint8_t once[crypto_onetimeauth_poly1305_KEYBYTES];

    for (int i = 0; i < 8; i++)
        nonce[i] = (uint8_t)(m->seq >> (56 - 8 * i));
    crypto_stream_chacha20(once, sizeof(once), nonce, m->key);
    crypto_onetimeauth_poly1305_init(&run->state, once);
    sodium_memzero(once, sizeof(once));
}

void hnp_frame_mac_add(hnp_frame_mac_run_t *run, const void *data, size_t len)
{
    if (len > 0)
        crypto_onetimeauth_poly1305_update(&run->state, data, len);
}

void hnp_frame_mac_end(hnp_frame_mac_t *m, hnp_frame_mac_run_t *run,
                       uint8_t tag[HNP_MAC_LEN])
{
    crypto_onetimeauth_poly1305_final(&run->state, tag);
    sodium_memzero(run, sizeof(*run));
    m->seq++;
}

bool hnp_frame_mac_check(hnp_frame_mac_t *m, hnp_frame_mac_run_t *run,
                         const uint8_t tag[HNP_MAC_LEN])
{
    uint8_t expect[HNP_MAC_LEN];

    hnp_frame_mac_end(m, run, expect);
    _Static_assert(HNP_MAC_LEN == 16, "crypto_verify_16 compares 16 bytes");
    bool ok = crypto_verify_16(expect, tag) == 0;
    sodium_memzero(expect, sizeof(expect));
    return ok;
}

void hnp_frame_mac_sign(hnp_frame_mac_t *m,
                        const uint8_t header[HNP_FRAME_HEADER_LEN],
                        const void *body, size_t len,
                        uint8_t tag[HNP_MAC_LEN])
{
    hnp_frame_mac_run_t run;

    hnp_frame_mac_begin(m, &run);
    hnp_frame_mac_add(&run, header, HNP_FRAME_HEADER_LEN);
    hnp_frame_mac_add(&run, body, len);
    hnp_frame_mac_end(m, &run, tag);
}

bool hnp_frame_mac_verify(hnp_frame_mac_t *m,
                          const uint8_t header[HNP_FRAME_HEADER_LEN],
                          const void *body, size_t len,
                          const uint8_t tag[HNP_MAC_LEN])
{
    hnp_frame_mac_run_t run;

    hnp_frame_mac_begin(m, &run);
    hnp_frame_mac_add(&run, header, HNP_FRAME_HEADER_LEN);
    hnp_frame_mac_add(&run, body, len);
    return hnp_frame_mac_check(m, &run, tag);
}
