/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire format of runtime messages (pure codec, no I/O).
 *
 * A connection starts with one hello in each direction:
 *   magic "HNP1" (4 bytes) | protocol version u16 | reserved u16 |
 *   vpid u32 | nonce (HNP_NONCE_LEN fresh random bytes)
 * The magic comes first, so that a stranger is told apart by the first four
 * bytes. A hello proves nothing: the job's secret never crosses the
 * network. auth.h says how each side proves it knows the secret (the
 * acceptor's proof follows its hello, the connector's comes last) and how
 * every frame after the handshake is authenticated. The accepting side
 * checks that the vpid is one of the job's; the connecting side checks that
 * the peer is the vpid it meant to reach. Then frames follow:
 *   source vpid u32 | destination vpid u32 | tag u32 | length u32 | body |
 *   MAC (HNP_MAC_LEN bytes, auth.h)
 * all integers in network byte order; a length above the configured maximum
 * is a protocol error that closes the connection.
 */
#ifndef HNP_FRAME_H
#define HNP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_tree.h"

/* 2: challenge-response handshake and authenticated frames (auth.h).
 * 3: the frames' MAC is Poly1305 with a key from ChaCha20 (was BLAKE2b),
 *    and every message about a job's processes names the job (jobid). */
#define HNP_PROTOCOL_VERSION 3
#define HNP_SECRET_LEN 32
#define HNP_NONCE_LEN 32
#define HNP_HELLO_LEN (4 + 2 + 2 + 4 + HNP_NONCE_LEN)
#define HNP_FRAME_HEADER_LEN 16

typedef struct hnp_hello {
    uint16_t version;
    hnp_vpid_t vpid;
    uint8_t nonce[HNP_NONCE_LEN];
} hnp_hello_t;

typedef struct hnp_frame_header {
    hnp_vpid_t src;
    hnp_vpid_t dst;
    uint32_t tag;
    uint32_t len;
} hnp_frame_header_t;

void hnp_hello_encode(const hnp_hello_t *hello, uint8_t out[HNP_HELLO_LEN]);

/**
 * Decode and check a hello: HNP_ERR_TRUNCATED when fewer than HNP_HELLO_LEN
 * bytes, HNP_ERR_BAD_PARAM for a wrong magic, HNP_ERR_VERSION for another
 * protocol version, HNP_ERR_BAD_PARAM when vpid >= @p nprocs (nprocs 0:
 * any). Who sent it is proven only by the proof that follows (auth.h).
 * @p why (may be NULL) gets a sentence for the log.
 */
int hnp_hello_check(const uint8_t *buf, size_t len, uint32_t nprocs,
                    hnp_hello_t *out, char *why, size_t whylen);

void hnp_frame_header_encode(const hnp_frame_header_t *hdr,
                             uint8_t out[HNP_FRAME_HEADER_LEN]);

/**
 * Decode a frame header: HNP_ERR_TRUNCATED when fewer than
 * HNP_FRAME_HEADER_LEN bytes, HNP_ERR_BAD_PARAM when the length exceeds
 * @p max_len or a vpid is >= @p nprocs (nprocs 0: any).
 */
int hnp_frame_header_decode(const uint8_t *buf, size_t len, size_t max_len,
                            uint32_t nprocs, hnp_frame_header_t *out,
                            char *why, size_t whylen);

/** Secrets as text (lower-case hex), for the agent's stdin. */
void hnp_secret_to_hex(const uint8_t secret[HNP_SECRET_LEN],
                       char out[2 * HNP_SECRET_LEN + 1]);
int hnp_secret_from_hex(const char *hex, uint8_t secret[HNP_SECRET_LEN]);
/** Fill @p secret from getrandom(2). */
int hnp_secret_generate(uint8_t secret[HNP_SECRET_LEN]);

/**
 * Whether the first @p len bytes a peer sent (any number) begin a hello:
 * 1 when the four bytes of the magic are there, 0 when fewer arrived and
 * they agree so far, -1 when they differ (not an hnp peer: no need to
 * wait for the rest of a hello, or for a deadline).
 */
int hnp_hello_magic_check(const uint8_t *buf, size_t len);

#endif /* HNP_FRAME_H */
