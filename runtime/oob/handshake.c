/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a connection says and checks in its handshake (auth.h): the hellos
 * with their fresh nonces, the proofs, the per-direction keys, and the
 * steps that take the other side's from a connection's input (conn.c reads
 * and writes the socket). The CPU it costs is counted for --timing
 * (hnp_oob_handshake_cpu_us).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>

#include "hnp_errors.h"
#include "internal.h"

static uint64_t cpu_now_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpu_count(hnp_oob_t *oob, uint64_t since)
{
    uint64_t now = cpu_now_ns();

    if (now > since)
        oob->handshake_cpu_ns += now - since;
}

int oob_handshake_init(hnp_oob_t *oob)
{
    uint64_t t0 = cpu_now_ns();
    int rc = hnp_auth_init();

    cpu_count(oob, t0);
    return rc;
}

/* Who we are, with a nonce never used before. */
static void hello_mine(const hnp_oob_t *oob, hnp_hello_t *hello)
{
    memset(hello, 0, sizeof(*hello));
    hello->version = HNP_PROTOCOL_VERSION;
    hello->vpid = oob->self;
    hnp_auth_nonce(hello->nonce);
}

static int out_add(oob_conn_t *c, const void *data, size_t len)
{
    return evbuffer_add(c->out, data, len) == 0 ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

int oob_handshake_hello(oob_conn_t *c)
{
    uint8_t raw[HNP_HELLO_LEN];
    uint64_t t0 = cpu_now_ns();

    hello_mine(c->oob, &c->hs.connector);
    hnp_hello_encode(&c->hs.connector, raw);
    cpu_count(c->oob, t0);
    return out_add(c, raw, sizeof(raw));
}

int oob_handshake_reply(oob_conn_t *c)
{
    uint8_t raw[HNP_REPLY_LEN];
    uint64_t t0 = cpu_now_ns();

    hello_mine(c->oob, &c->hs.acceptor);
    hnp_hello_encode(&c->hs.acceptor, raw);
    hnp_auth_proof(c->oob->secret, &c->hs, HNP_AUTH_ACCEPTOR,
                   raw + HNP_HELLO_LEN);
    cpu_count(c->oob, t0);
    return out_add(c, raw, sizeof(raw));
}

int oob_handshake_proof(oob_conn_t *c)
{
    uint8_t proof[HNP_PROOF_LEN];
    uint64_t t0 = cpu_now_ns();

    hnp_auth_proof(c->oob->secret, &c->hs, HNP_AUTH_CONNECTOR, proof);
    cpu_count(c->oob, t0);
    return out_add(c, proof, sizeof(proof));
}

int oob_handshake_proof_take(oob_conn_t *c, hnp_auth_role_t prover)
{
    uint8_t proof[HNP_PROOF_LEN];

    if (evbuffer_get_length(c->in) < sizeof(proof))
        return 0;
    evbuffer_remove(c->in, proof, sizeof(proof));
    uint64_t t0 = cpu_now_ns();
    bool ok = hnp_auth_proof_check(c->oob->secret, &c->hs, prover, proof);
    cpu_count(c->oob, t0);
    return ok ? 1 : HNP_ERR_BAD_PARAM;
}

void oob_handshake_keys(oob_conn_t *c, hnp_auth_role_t me)
{
    hnp_auth_role_t other = me == HNP_AUTH_CONNECTOR ? HNP_AUTH_ACCEPTOR
                                                     : HNP_AUTH_CONNECTOR;
    uint64_t t0 = cpu_now_ns();

    hnp_frame_mac_init(&c->tx, c->oob->secret, &c->hs, me);
    hnp_frame_mac_init(&c->rx, c->oob->secret, &c->hs, other);
    c->oob->handshakes++;
    cpu_count(c->oob, t0);
}

/* ---------------------------------------------------------- the steps */

#define NO_PROOF                                                           \
    "failed handshake: no proof that it knows the job's secret (a "        \
    "stranger, or a replayed handshake)"

/* True: a hello with the right magic and version was taken off the input.
 * False: not all of it has arrived, or it is wrong and the connection
 * ended saying why. */
static bool hello_take(oob_conn_t *c, hnp_hello_t *hello)
{
    uint8_t raw[HNP_HELLO_LEN];
    char why[OOB_REASON_MAX] = "";

    if (evbuffer_get_length(c->in) < sizeof(raw))
        return false;
    evbuffer_remove(c->in, raw, sizeof(raw));
    /* nprocs 0: the vpid range is checked by the caller, which can say
     * more about an unknown peer. */
    if (hnp_hello_check(raw, sizeof(raw), 0, hello, why, sizeof(why)) < 0) {
        oob_conn_end(c, HNP_LOG_WARN, "failed handshake: %s", why);
        return false;
    }
    return true;
}

static bool vpid_known(const hnp_oob_t *oob, hnp_vpid_t vpid)
{
    return oob->nprocs == 0 || vpid < oob->nprocs;
}

/* Acceptor side: the connector's hello, then our hello and proof. */
static bool hello_from_connector(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;
    hnp_hello_t hello;

    if (!hello_take(c, &hello))
        return false;
    if (!vpid_known(oob, hello.vpid) || hello.vpid == oob->self) {
        oob_conn_end(c, HNP_LOG_WARN, "unknown peer: the hello names vpid %u "
                     "(we are %u of %u)", hello.vpid, oob->self, oob->nprocs);
        return false;
    }
    c->peer = oob_peer_get(oob, hello.vpid);
    c->hs.connector = hello;
    if (c->peer == NULL || oob_handshake_reply(c) != HNP_SUCCESS) {
        c->peer = NULL;
        oob_conn_end(c, HNP_LOG_WARN, "out of memory");
        return false;
    }
    c->state = OOB_CONN_AWAIT_PROOF;
    c->peer->naccepting++;
    oob_guard_replied(c);
    oob_conn_flush(c);
    return true;
}

/* Acceptor side: the connector's proof; frames may follow it at once. */
static bool proof_from_connector(oob_conn_t *c)
{
    int rc = oob_handshake_proof_take(c, HNP_AUTH_CONNECTOR);

    if (rc == 0)
        return false;
    if (rc < 0) {
        oob_conn_end(c, HNP_LOG_WARN, NO_PROOF);
        return false;
    }
    c->peer->naccepting--;
    oob_guard_proven(c);
    oob_handshake_keys(c, HNP_AUTH_ACCEPTOR);
    oob_conn_opened(c);
    return true;
}

/* Connector side: the acceptor's hello and proof must come from the vpid
 * we meant; then our proof, and our frames may follow it. */
static bool hello_from_acceptor(oob_conn_t *c)
{
    hnp_hello_t hello;

    /* The hello and the proof after it, read together. */
    if (evbuffer_get_length(c->in) < HNP_REPLY_LEN || !hello_take(c, &hello))
        return false;
    if (hello.vpid != c->peer->vpid) {
        oob_conn_end(c, HNP_LOG_WARN,
                     "failed handshake: the address answered as vpid %u",
                     hello.vpid);
        return false;
    }
    c->hs.acceptor = hello;
    if (oob_handshake_proof_take(c, HNP_AUTH_ACCEPTOR) < 0) {
        oob_conn_end(c, HNP_LOG_WARN, NO_PROOF);
        return false;
    }
    if (oob_handshake_proof(c) != HNP_SUCCESS) {
        oob_conn_end(c, HNP_LOG_WARN, "out of memory");
        return false;
    }
    oob_handshake_keys(c, HNP_AUTH_CONNECTOR);
    c->peer->connecting = NULL;
    oob_conn_opened(c);
    return true;
}

bool oob_handshake_step(oob_conn_t *c)
{
    switch (c->state) {
    case OOB_CONN_AWAIT_HELLO: return hello_from_connector(c);
    case OOB_CONN_AWAIT_PROOF: return proof_from_connector(c);
    case OOB_CONN_AWAIT_REPLY: return hello_from_acceptor(c);
    default: return false;
    }
}
