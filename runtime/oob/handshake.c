/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a connection says and checks in its handshake (auth.h): the hellos
 * with their fresh nonces, the proofs, the per-direction keys. conn.c
 * decides when; this file, what. The CPU it costs is counted for --timing
 * (hnp_oob_handshake_cpu_us).
 */
#include "config.h"

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
