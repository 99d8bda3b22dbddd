/* SPDX-License-Identifier: BSD-3-Clause */
/* The DVM's local socket: frames, descriptors, the handshake (see
 * dvm_proto.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dvm_proto.h"
#include "hnp_buffer.h"
#include "hnp_errors.h"
#include "hnp_log.h"

/* How long a client waits for the DVM's answer to its hello. */
#define DVM_ANSWER_SECONDS 30
/* What one read may add to a connection's buffer. */
#define DVM_READ_CHUNK 65536

static double now_seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* poll() one descriptor for @p events until @p seconds have passed; a
 * signal caught meanwhile (EINTR) only makes it wait the rest. Returns
 * its revents, 0 when out of time, -1 on an error. */
static int wait_for(int fd, short events, double seconds)
{
    double end = now_seconds() + seconds, left = seconds;

    for (;;) {
        struct pollfd p = { .fd = fd, .events = events };
        int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n == 1)
            return p.revents;
        if (n < 0 && errno != EINTR)
            return -1;
        left = end - now_seconds();
        if (left <= 0)
            return 0;
    }
}

static int wait_writable(int fd)
{
    int revents = wait_for(fd, POLLOUT, 10.0);

    return revents > 0 && !(revents & (POLLERR | POLLHUP)) ? HNP_SUCCESS
                                                           : HNP_ERR_IO;
}

/* One sendmsg of what is left; the descriptors go with the first byte. */
static ssize_t send_part(int fd, const uint8_t *data, size_t len,
                         const int *fds, int nfds)
{
    union {
        struct cmsghdr hdr;
        char space[CMSG_SPACE(sizeof(int) * HNP_DVM_MAX_FDS)];
    } control;
    struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (nfds > 0) {
        memset(&control, 0, sizeof(control));
        msg.msg_control = control.space;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    return sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int dvm_send_frame(int fd, const void *body, size_t len, const int *fds,
                   int nfds)
{
    uint8_t *frame;
    size_t total = len + 4, sent = 0;
    int rc = HNP_SUCCESS;

    if (len > HNP_DVM_MAX_MESSAGE || nfds > HNP_DVM_MAX_FDS ||
        (frame = malloc(total)) == NULL)
        return HNP_ERR_BAD_PARAM;
    frame[0] = (uint8_t)(len >> 24);
    frame[1] = (uint8_t)(len >> 16);
    frame[2] = (uint8_t)(len >> 8);
    frame[3] = (uint8_t)len;
    memcpy(frame + 4, body, len);
    while (rc == HNP_SUCCESS && sent < total) {
        ssize_t n = send_part(fd, frame + sent, total - sent,
                              sent == 0 ? fds : NULL, sent == 0 ? nfds : 0);
        if (n > 0)
            sent += (size_t)n;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            rc = wait_writable(fd);
        else if (n < 0 && errno == EINTR)
            continue;
        else
            rc = HNP_ERR_IO;
    }
    free(frame);
    return rc;
}

int dvm_send_reply(int fd, const hnp_wire_dvm_reply_t *m)
{
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    rc = hnp_wire_dvm_reply_pack(&buf, m);
    if (rc == HNP_SUCCESS)
        rc = dvm_send_frame(fd, buf.data, buf.len, NULL, 0);
    hnp_buffer_release(&buf);
    return rc;
}

int dvm_send_request(int fd, const hnp_wire_dvm_request_t *m, const int *fds,
                     int nfds)
{
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    rc = hnp_wire_dvm_request_pack(&buf, m);
    if (rc == HNP_SUCCESS)
        rc = dvm_send_frame(fd, buf.data, buf.len, fds, nfds);
    hnp_buffer_release(&buf);
    return rc;
}

static void take_fds(struct msghdr *msg, int *fds, int *nfds)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL;
         c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int got;
            memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (fds != NULL && *nfds < HNP_DVM_MAX_FDS)
                fds[(*nfds)++] = got;
            else
                close(got);
        }
    }
}

uint8_t *dvm_inbuf_space(dvm_inbuf_t *in, size_t *avail)
{
    if (in->cap - in->len < DVM_READ_CHUNK) {
        size_t cap = in->cap + DVM_READ_CHUNK;
        uint8_t *grown = realloc(in->data, cap);
        if (grown == NULL)
            return NULL;
        in->data = grown;
        in->cap = cap;
    }
    *avail = in->cap - in->len;
    return in->data + in->len;
}

long dvm_recv_some(int fd, dvm_inbuf_t *in, int *fds, int *nfds)
{
    union {
        struct cmsghdr hdr;
        char space[CMSG_SPACE(sizeof(int) * HNP_DVM_MAX_FDS)];
    } control;
    struct msghdr msg = { 0 };
    struct iovec iov;
    ssize_t n;

    iov.iov_base = dvm_inbuf_space(in, &iov.iov_len);
    if (iov.iov_base == NULL)
        return -2;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.space;
    msg.msg_controllen = sizeof(control.space);
    n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
                   ? -1 : -2;
    take_fds(&msg, fds, nfds);
    in->len += (size_t)n;
    return (long)n;
}

const uint8_t *dvm_inbuf_frame(const dvm_inbuf_t *in, size_t *len, bool *bad)
{
    size_t n;

    *bad = false;
    if (in->len < 4)
        return NULL;
    n = (size_t)in->data[0] << 24 | (size_t)in->data[1] << 16 |
        (size_t)in->data[2] << 8 | in->data[3];
    if (n > HNP_DVM_MAX_MESSAGE) {
        *bad = true;
        return NULL;
    }
    if (in->len - 4 < n)
        return NULL;
    *len = n;
    return in->data + 4;
}

void dvm_inbuf_drop(dvm_inbuf_t *in, size_t body_len)
{
    size_t used = body_len + 4;

    memmove(in->data, in->data + used, in->len - used);
    in->len -= used;
}

void dvm_inbuf_release(dvm_inbuf_t *in)
{
    free(in->data);
    memset(in, 0, sizeof(*in));
}

int dvm_accept_hello(const uint8_t secret[HNP_SECRET_LEN], const uint8_t *body,
                     size_t len, hnp_auth_transcript_t *t,
                     uint8_t reply[HNP_REPLY_LEN])
{
    int rc;

    if (len != HNP_HELLO_LEN)
        return HNP_ERR_BAD_PARAM;
    rc = hnp_hello_check(body, len, 0, &t->connector, NULL, 0);
    if (rc != HNP_SUCCESS)
        return rc;
    if (t->connector.vpid != HNP_DVM_CLIENT_VPID)
        return HNP_ERR_BAD_PARAM;
    t->acceptor.version = HNP_PROTOCOL_VERSION;
    t->acceptor.vpid = 0;
    hnp_auth_nonce(t->acceptor.nonce);
    hnp_hello_encode(&t->acceptor, reply);
    hnp_auth_proof(secret, t, HNP_AUTH_ACCEPTOR, reply + HNP_HELLO_LEN);
    return HNP_SUCCESS;
}

bool dvm_accept_proof(const uint8_t secret[HNP_SECRET_LEN],
                      const hnp_auth_transcript_t *t, const uint8_t *body,
                      size_t len)
{
    return len == HNP_PROOF_LEN &&
           hnp_auth_proof_check(secret, t, HNP_AUTH_CONNECTOR, body);
}

int dvm_client_check_reply(const uint8_t secret[HNP_SECRET_LEN],
                           hnp_auth_transcript_t *t, const uint8_t *body,
                           size_t len)
{
    if (len != HNP_REPLY_LEN ||
        hnp_hello_check(body, HNP_HELLO_LEN, 0, &t->acceptor, NULL, 0) !=
            HNP_SUCCESS ||
        !hnp_auth_proof_check(secret, t, HNP_AUTH_ACCEPTOR,
                              body + HNP_HELLO_LEN))
        return HNP_ERR_BAD_PARAM;
    return HNP_SUCCESS;
}

/* Wait for one whole frame on blocking @p fd into @p in; *timed_out
 * says whether the DVM did not answer in time. */
static const uint8_t *read_frame(int fd, dvm_inbuf_t *in, size_t *len,
                                 bool *timed_out)
{
    bool bad;
    const uint8_t *body;

    *timed_out = false;
    while ((body = dvm_inbuf_frame(in, len, &bad)) == NULL && !bad) {
        int revents = wait_for(fd, POLLIN, DVM_ANSWER_SECONDS);
        if (revents <= 0) {
            *timed_out = revents == 0;
            return NULL;
        }
        long n = dvm_recv_some(fd, in, NULL, NULL);
        if (n == 0 || n < -1)
            return NULL;
    }
    return body;
}

int dvm_client_handshake(int fd, const uint8_t secret[HNP_SECRET_LEN],
                         char *err, size_t errlen)
{
    hnp_auth_transcript_t t;
    uint8_t hello[HNP_HELLO_LEN], proof[HNP_PROOF_LEN];
    dvm_inbuf_t in = { 0 };
    const uint8_t *body;
    size_t len = 0;
    bool timed_out = false;
    int rc = HNP_ERROR;

    t.connector.version = HNP_PROTOCOL_VERSION;
    t.connector.vpid = HNP_DVM_CLIENT_VPID;
    hnp_auth_nonce(t.connector.nonce);
    hnp_hello_encode(&t.connector, hello);
    if (dvm_send_frame(fd, hello, sizeof(hello), NULL, 0) != HNP_SUCCESS ||
        (body = read_frame(fd, &in, &len, &timed_out)) == NULL) {
        if (timed_out)
            hnp_err_set(err, errlen, "the DVM did not answer the handshake "
                        "within %d s", DVM_ANSWER_SECONDS);
        else
            hnp_err_set(err, errlen, "the DVM closed the connection during "
                        "the handshake (a wrong secret, or another user's "
                        "DVM)");
        goto out;
    }
    if (dvm_client_check_reply(secret, &t, body, len) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "the DVM could not prove that it knows the "
                    "secret of the file");
        goto out;
    }
    hnp_auth_proof(secret, &t, HNP_AUTH_CONNECTOR, proof);
    rc = dvm_send_frame(fd, proof, sizeof(proof), NULL, 0);
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "the DVM closed the connection during the "
                    "handshake");
out:
    dvm_inbuf_release(&in);
    return rc;
}
