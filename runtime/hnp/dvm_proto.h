/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DVM's local socket, both ends (see wire/dvm.h for the messages):
 * frames of length u32 | body, descriptors beside a frame (SCM_RIGHTS),
 * and the handshake of the runtime's connections (wire/auth.h) with the
 * client as the connector, under the name HNP_DVM_CLIENT_VPID.
 */
#ifndef HNP_DVM_PROTO_H
#define HNP_DVM_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/auth.h"
#include "wire/dvm.h"

/* The name a client gives in its hello: no process of the runtime's. */
#define HNP_DVM_CLIENT_VPID 0xfffffff0u
#define HNP_DVM_MAX_FDS 3

/* Bytes read from the socket, not yet taken as frames. */
typedef struct dvm_inbuf {
    uint8_t *data;
    size_t len;
    size_t cap;
} dvm_inbuf_t;

/** Send one frame (and @p nfds descriptors with it), waiting while the
 *  socket is full; HNP_ERR_IO when the peer is gone. */
int dvm_send_frame(int fd, const void *body, size_t len, const int *fds,
                   int nfds);
/** Pack and send a reply or a request. */
int dvm_send_reply(int fd, const hnp_wire_dvm_reply_t *m);
int dvm_send_request(int fd, const hnp_wire_dvm_request_t *m, const int *fds,
                     int nfds);
/** One read into @p in; descriptors that came are added to @p fds (at most
 *  HNP_DVM_MAX_FDS, more are closed). > 0: bytes, 0: end of file, -1:
 *  nothing now (EAGAIN), < -1: an error. */
long dvm_recv_some(int fd, dvm_inbuf_t *in, int *fds, int *nfds);
/** The first complete frame's body, or NULL (none yet; *bad set when the
 *  frame is longer than HNP_DVM_MAX_MESSAGE). dvm_inbuf_drop() it after. */
const uint8_t *dvm_inbuf_frame(const dvm_inbuf_t *in, size_t *len, bool *bad);
void dvm_inbuf_drop(dvm_inbuf_t *in, size_t body_len);
/** Room for the next read at the end of @p in (grown as needed): where,
 *  and how many bytes in *avail; NULL when out of memory. */
uint8_t *dvm_inbuf_space(dvm_inbuf_t *in, size_t *avail);
void dvm_inbuf_release(dvm_inbuf_t *in);

/** The acceptor's answer to a client's hello @p body: its hello and proof
 *  into @p reply (HNP_REPLY_LEN), the transcript into @p t. A hello that
 *  is not a client's fails. */
int dvm_accept_hello(const uint8_t secret[HNP_SECRET_LEN], const uint8_t *body,
                     size_t len, hnp_auth_transcript_t *t,
                     uint8_t reply[HNP_REPLY_LEN]);
/** Whether @p body is the client's proof for transcript @p t. */
bool dvm_accept_proof(const uint8_t secret[HNP_SECRET_LEN],
                      const hnp_auth_transcript_t *t, const uint8_t *body,
                      size_t len);
/** The client's check of the acceptor's hello and proof @p body (its own
 *  hello is in t->connector; t->acceptor is filled in). */
int dvm_client_check_reply(const uint8_t secret[HNP_SECRET_LEN],
                           hnp_auth_transcript_t *t, const uint8_t *body,
                           size_t len);
/** The client's side of the handshake on connected @p fd, blocking. */
int dvm_client_handshake(int fd, const uint8_t secret[HNP_SECRET_LEN],
                         char *err, size_t errlen);

#endif /* HNP_DVM_PROTO_H */
