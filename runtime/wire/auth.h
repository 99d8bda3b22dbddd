/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may talk on a connection, and that nothing else can: the handshake's
 * proofs and the frames' MACs (pure functions over libsodium; no I/O).
 *
 * The job's secret never crosses the network. A connection starts with
 *   connector -> acceptor: hello (frame.h: magic, version, vpid, nonce)
 *   acceptor -> connector: hello | acceptor's proof (HNP_PROOF_LEN)
 *   connector -> acceptor: connector's proof (HNP_PROOF_LEN)
 * Each nonce is fresh (randombytes_buf). The transcript is both hellos as
 * sent (so both nonces, both vpids and the protocol version); a proof is
 * HMAC-SHA256 keyed with the secret over a label naming the prover and the
 * transcript. The acceptor's proof covers the connector's fresh nonce and
 * the connector's covers the acceptor's, so a recorded handshake replayed
 * to either side fails, and a label per role keeps one side's proof from
 * being reflected back as the other's. A side sends nothing after its
 * hello (the acceptor: after its proof) until it has checked the other's.
 *
 * Then each direction has its own key, HMAC-SHA256(secret, label of the
 * direction | transcript), fresh for every connection since the nonces
 * are. Every frame carries a MAC: Poly1305 (crypto_onetimeauth) over
 *   frame header | body
 * with a one-time key, the first 32 bytes of ChaCha20 (crypto_stream_
 * chacha20) under the direction's key with the frame's sequence number
 * (u64, big-endian) as nonce: the authenticator of ChaCha20-Poly1305,
 * without the encryption. The sequence counts the frames sent that way
 * on this connection from 0 and is never sent, so no one-time key is
 * used twice, and a frame forged, altered, replayed, reordered, dropped
 * or moved from another connection fails the check, and the receiver
 * closes the connection. (Protocol 2 used keyed BLAKE2b over the
 * direction, the sequence and the frame; Poly1305 is 2 to 4 times faster
 * on the large frames of a big job's launch and exchange.)
 */
#ifndef HNP_WIRE_AUTH_H
#define HNP_WIRE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "frame.h"

#define HNP_PROOF_LEN 32 /* crypto_auth_hmacsha256_BYTES */
#define HNP_MAC_LEN 16   /* crypto_onetimeauth_poly1305_BYTES */
#define HNP_REPLY_LEN (HNP_HELLO_LEN + HNP_PROOF_LEN)

/** The two ends of a connection; the sender of a frame, the prover. */
typedef enum hnp_auth_role {
    HNP_AUTH_CONNECTOR = 0,
    HNP_AUTH_ACCEPTOR = 1,
} hnp_auth_role_t;

/** What both proofs and both keys are bound to: the two hellos. */
typedef struct hnp_auth_transcript {
    hnp_hello_t connector;
    hnp_hello_t acceptor;
} hnp_auth_transcript_t;

/** One direction of a connection: its key and the number of the next
 *  frame. Wipe with hnp_frame_mac_wipe(). */
typedef struct hnp_frame_mac {
    uint8_t key[crypto_stream_chacha20_KEYBYTES];
    uint64_t seq;
} hnp_frame_mac_t;

/** One frame's MAC while its bytes are fed in, chunk by chunk; a local
 *  variable (see the alignment above). */
typedef struct hnp_frame_mac_run {
    crypto_onetimeauth_poly1305_state state;
} hnp_frame_mac_run_t;

/** Start libsodium (idempotent): HNP_ERROR when it cannot. */
int hnp_auth_init(void);

/** A fresh nonce for a hello. hnp_auth_init() first. */
void hnp_auth_nonce(uint8_t nonce[HNP_NONCE_LEN]);

/** The job's name for the processes' wire-up (a PMIx namespace, a PMI
 *  kvs name): "hnp-" and 32 hex digits of HMAC-SHA256(secret, label and
 *  @p jobid), then "-" and @p jobid. The same in every daemon of the run,
 *  and not derivable without the secret, so that no one who lacks it can
 *  name the job to its PMIx server. @p out holds HNP_AUTH_JOB_NAME_LEN. */
#define HNP_AUTH_JOB_NAME_LEN 48
void hnp_auth_job_name(const uint8_t secret[HNP_SECRET_LEN], uint32_t jobid,
                       char out[HNP_AUTH_JOB_NAME_LEN]);

/** @p prover's proof that it knows @p secret, bound to @p t. */
void hnp_auth_proof(const uint8_t secret[HNP_SECRET_LEN],
                    const hnp_auth_transcript_t *t, hnp_auth_role_t prover,
                    uint8_t proof[HNP_PROOF_LEN]);

/** Whether @p proof is @p prover's for @p t (compared in constant time). */
bool hnp_auth_proof_check(const uint8_t secret[HNP_SECRET_LEN],
                          const hnp_auth_transcript_t *t,
                          hnp_auth_role_t prover,
                          const uint8_t proof[HNP_PROOF_LEN]);

/** The key of the frames @p sender sends on the connection of @p t. */
void hnp_frame_mac_init(hnp_frame_mac_t *m,
                        const uint8_t secret[HNP_SECRET_LEN],
                        const hnp_auth_transcript_t *t,
                        hnp_auth_role_t sender);
void hnp_frame_mac_wipe(hnp_frame_mac_t *m);

/** A frame's MAC in pieces: begin, add its header and body in order,
 *  then end (the sender) or check (the receiver). Both count the frame. */
void hnp_frame_mac_begin(const hnp_frame_mac_t *m, hnp_frame_mac_run_t *run);
void hnp_frame_mac_add(hnp_frame_mac_run_t *run, const void *data,
                       size_t len);
void hnp_frame_mac_end(hnp_frame_mac_t *m, hnp_frame_mac_run_t *run,
                       uint8_t tag[HNP_MAC_LEN]);
/** Whether @p tag is right (constant time). The frame counts either way:
 *  a connection that saw a wrong one must be closed. */
bool hnp_frame_mac_check(hnp_frame_mac_t *m, hnp_frame_mac_run_t *run,
                         const uint8_t tag[HNP_MAC_LEN]);

/** The same for a frame in one piece. */
void hnp_frame_mac_sign(hnp_frame_mac_t *m,
                        const uint8_t header[HNP_FRAME_HEADER_LEN],
                        const void *body, size_t len,
                        uint8_t tag[HNP_MAC_LEN]);
bool hnp_frame_mac_verify(hnp_frame_mac_t *m,
                          const uint8_t header[HNP_FRAME_HEADER_LEN],
                          const void *body, size_t len,
                          const uint8_t tag[HNP_MAC_LEN]);

#endif /* HNP_WIRE_AUTH_H */
