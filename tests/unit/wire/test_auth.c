/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handshake's proofs and the frames' MACs (runtime/wire/auth.h): known
 * answers that pin the format, and that each thing a proof or a MAC is
 * bound to (secret, nonces, vpids, version, role, direction, sequence,
 * connection, every byte of a frame) makes it fail when it changes.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "auth.h"
#include "hnp_errors.h"

static void counting(uint8_t *p, size_t n, uint8_t base, unsigned mod)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(base + i % mod);
}

/* The connection of the known answers: vpid 3 connects to the HNP, both
 * hellos saying version 3 (the answers were computed for those bytes; the
 * version is one more input the proof and the MACs are bound to). */
#define EXAMPLE_VERSION 3

static void example(uint8_t secret[HNP_SECRET_LEN], hnp_auth_transcript_t *t)
{
    counting(secret, HNP_SECRET_LEN, 0, 256);
    memset(t, 0, sizeof(*t));
    t->connector.version = EXAMPLE_VERSION;
    t->connector.vpid = 3;
    counting(t->connector.nonce, HNP_NONCE_LEN, 0xc0, 16);
    t->acceptor.version = EXAMPLE_VERSION;
    t->acceptor.vpid = 0;
    counting(t->acceptor.nonce, HNP_NONCE_LEN, 0xa0, 16);
}

static void unhex(const char *hex, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

static int setup(void **state)
{
    (void)state;
    return hnp_auth_init() == HNP_SUCCESS ? 0 : -1;
}

/* HMAC-SHA256(secret, "hnp v3 <role> proof" NUL | hello C | hello A),
 * computed independently of libsodium. */
static void test_proof_known_answers(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], proof[HNP_PROOF_LEN], want[HNP_PROOF_LEN];
    hnp_auth_transcript_t t;

    (void)state;
    example(secret, &t);
    hnp_auth_proof(secret, &t, HNP_AUTH_CONNECTOR, proof);
    unhex("d8032daeaec84ba9a2ac0b72352c1be090c5dbd4b3cd1ea5f29eb023d0ccfb56",
          want, sizeof(want));
    assert_memory_equal(proof, want, sizeof(want));
    hnp_auth_proof(secret, &t, HNP_AUTH_ACCEPTOR, proof);
    unhex("4aa4dbdc86e8e3b0b4022e574eee26acb74ba82d218f21c915fbb571371dd537",
          want, sizeof(want));
    assert_memory_equal(proof, want, sizeof(want));
}

static void test_proof_checks(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], proof[HNP_PROOF_LEN];
    hnp_auth_transcript_t t, u;

    (void)state;
    example(secret, &t);
    hnp_auth_proof(secret, &t, HNP_AUTH_CONNECTOR, proof);
    assert_true(hnp_auth_proof_check(secret, &t, HNP_AUTH_CONNECTOR, proof));
    /* Not the other role's: a proof cannot be reflected back. */
    assert_false(hnp_auth_proof_check(secret, &t, HNP_AUTH_ACCEPTOR, proof));
    /* Any bit of the proof. */
    for (size_t i = 0; i < HNP_PROOF_LEN; i++) {
        proof[i] ^= 0x01;
        assert_false(hnp_auth_proof_check(secret, &t, HNP_AUTH_CONNECTOR,
                                          proof));
        proof[i] ^= 0x01;
    }
    /* Another secret. */
    secret[31] ^= 0x80;
    assert_false(hnp_auth_proof_check(secret, &t, HNP_AUTH_CONNECTOR, proof));
    secret[31] ^= 0x80;
    /* Every byte of both nonces: a handshake replayed against a fresh nonce
     * fails. */
    for (size_t i = 0; i < HNP_NONCE_LEN; i++) {
        u = t;
        u.acceptor.nonce[i] ^= 0x10;
        assert_false(hnp_auth_proof_check(secret, &u, HNP_AUTH_CONNECTOR,
                                          proof));
        u = t;
        u.connector.nonce[i] ^= 0x10;
        assert_false(hnp_auth_proof_check(secret, &u, HNP_AUTH_CONNECTOR,
                                          proof));
    }
    /* Both identities and the version. */
    u = t;
    u.connector.vpid = 4;
    assert_false(hnp_auth_proof_check(secret, &u, HNP_AUTH_CONNECTOR, proof));
    u = t;
    u.acceptor.vpid = 1;
    assert_false(hnp_auth_proof_check(secret, &u, HNP_AUTH_CONNECTOR, proof));
    u = t;
    u.connector.version = 1;
    assert_false(hnp_auth_proof_check(secret, &u, HNP_AUTH_CONNECTOR, proof));
    /* The two sides' hellos swapped. */
    u.connector = t.acceptor;
    u.acceptor = t.connector;
    assert_false(hnp_auth_proof_check(secret, &u, HNP_AUTH_CONNECTOR, proof));
}

/* Neither the hellos nor the proofs contain the secret. */
static void test_handshake_does_not_carry_the_secret(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], wire[2 * HNP_HELLO_LEN + 2 * HNP_PROOF_LEN];
    hnp_auth_transcript_t t;

    (void)state;
    example(secret, &t);
    hnp_hello_encode(&t.connector, wire);
    hnp_hello_encode(&t.acceptor, wire + HNP_HELLO_LEN);
    hnp_auth_proof(secret, &t, HNP_AUTH_ACCEPTOR, wire + 2 * HNP_HELLO_LEN);
    hnp_auth_proof(secret, &t, HNP_AUTH_CONNECTOR,
                   wire + 2 * HNP_HELLO_LEN + HNP_PROOF_LEN);
    for (size_t i = 0; i + 8 <= sizeof(wire); i++)
        for (size_t j = 0; j + 8 <= HNP_SECRET_LEN; j++)
            assert_memory_not_equal(wire + i, secret + j, 8);
}

static void test_nonces_are_fresh(void **state)
{
    uint8_t a[HNP_NONCE_LEN], b[HNP_NONCE_LEN];

    (void)state;
    hnp_auth_nonce(a);
    hnp_auth_nonce(b);
    assert_memory_not_equal(a, b, sizeof(a));
}

static const uint8_t frame_header[HNP_FRAME_HEADER_LEN] = {
    0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 5,
};

/* Poly1305 over header | body, keyed with the first 32 bytes of ChaCha20
 * (64-bit nonce: seq, big-endian) under HMAC-SHA256(secret, "hnp v3
 * frames from connector" NUL | hellos); computed independently of
 * libsodium. */
static void test_frame_mac_known_answers(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], tag[HNP_MAC_LEN], want[HNP_MAC_LEN];
    hnp_auth_transcript_t t;
    hnp_frame_mac_t tx;

    (void)state;
    example(secret, &t);
    hnp_frame_mac_init(&tx, secret, &t, HNP_AUTH_CONNECTOR);
    hnp_frame_mac_sign(&tx, frame_header, "hello", 5, tag);
    unhex("1b928ef29276fb95f449e1287511a18b", want, sizeof(want));
    assert_memory_equal(tag, want, sizeof(want));
    hnp_frame_mac_sign(&tx, frame_header, "hello", 5, tag);
    unhex("d113e054a4d606d2c5ac19648c674359", want, sizeof(want));
    assert_memory_equal(tag, want, sizeof(want));
    hnp_frame_mac_wipe(&tx);
}

/* In order, every frame passes; the same frame again (a replay), or two
 * frames swapped, do not. */
static void test_frame_mac_sequence(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], tags[3][HNP_MAC_LEN];
    hnp_auth_transcript_t t;
    hnp_frame_mac_t tx, rx;

    (void)state;
    example(secret, &t);
    hnp_frame_mac_init(&tx, secret, &t, HNP_AUTH_ACCEPTOR);
    for (int i = 0; i < 3; i++)
        hnp_frame_mac_sign(&tx, frame_header, "hello", 5, tags[i]);
    /* The same frame three times: the sequence alone tells them apart. */
    assert_memory_not_equal(tags[0], tags[1], HNP_MAC_LEN);
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_ACCEPTOR);
    assert_true(hnp_frame_mac_verify(&rx, frame_header, "hello", 5, tags[0]));
    assert_false(hnp_frame_mac_verify(&rx, frame_header, "hello", 5,
                                      tags[0]));
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_ACCEPTOR);
    assert_false(hnp_frame_mac_verify(&rx, frame_header, "hello", 5,
                                      tags[1]));
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_ACCEPTOR);
    for (int i = 0; i < 3; i++)
        assert_true(hnp_frame_mac_verify(&rx, frame_header, "hello", 5,
                                         tags[i]));
    hnp_frame_mac_wipe(&tx);
    hnp_frame_mac_wipe(&rx);
}

/* A frame sealed for one direction or one connection fails in another. */
static void test_frame_mac_binds_direction_and_connection(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], tag[HNP_MAC_LEN];
    hnp_auth_transcript_t t, other;
    hnp_frame_mac_t tx, rx;

    (void)state;
    example(secret, &t);
    hnp_frame_mac_init(&tx, secret, &t, HNP_AUTH_CONNECTOR);
    hnp_frame_mac_sign(&tx, frame_header, "hello", 5, tag);
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_ACCEPTOR);
    assert_false(hnp_frame_mac_verify(&rx, frame_header, "hello", 5, tag));
    other = t;
    other.acceptor.nonce[0] ^= 1;
    hnp_frame_mac_init(&rx, secret, &other, HNP_AUTH_CONNECTOR);
    assert_false(hnp_frame_mac_verify(&rx, frame_header, "hello", 5, tag));
    secret[0] ^= 1;
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_CONNECTOR);
    assert_false(hnp_frame_mac_verify(&rx, frame_header, "hello", 5, tag));
    hnp_frame_mac_wipe(&tx);
    hnp_frame_mac_wipe(&rx);
}

/* Any bit of the header, body or tag; a body cut short. */
static void test_frame_mac_covers_every_byte(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], tag[HNP_MAC_LEN], hdr[HNP_FRAME_HEADER_LEN];
    uint8_t body[5] = { 'h', 'e', 'l', 'l', 'o' };
    hnp_auth_transcript_t t;
    hnp_frame_mac_t tx, rx;

    (void)state;
    example(secret, &t);
    hnp_frame_mac_init(&tx, secret, &t, HNP_AUTH_CONNECTOR);
    hnp_frame_mac_sign(&tx, frame_header, body, sizeof(body), tag);
    memcpy(hdr, frame_header, sizeof(hdr));
    for (size_t i = 0; i < sizeof(hdr) + sizeof(body) + sizeof(tag); i++) {
        uint8_t *p = i < sizeof(hdr) ? hdr + i
                     : i < sizeof(hdr) + sizeof(body)
                         ? body + i - sizeof(hdr)
                         : tag + i - sizeof(hdr) - sizeof(body);
        *p ^= 0x04;
        hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_CONNECTOR);
        assert_false(hnp_frame_mac_verify(&rx, hdr, body, sizeof(body), tag));
        *p ^= 0x04;
    }
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_CONNECTOR);
    assert_false(hnp_frame_mac_verify(&rx, hdr, body, 4, tag));
    hnp_frame_mac_init(&rx, secret, &t, HNP_AUTH_CONNECTOR);
    assert_true(hnp_frame_mac_verify(&rx, hdr, body, sizeof(body), tag));
    hnp_frame_mac_wipe(&tx);
    hnp_frame_mac_wipe(&rx);
}

/* Fed in pieces (as from a queue's chunks) it is the same MAC. */
static void test_frame_mac_in_pieces(void **state)
{
    uint8_t secret[HNP_SECRET_LEN], whole[HNP_MAC_LEN], pieces[HNP_MAC_LEN];
    uint8_t frame[HNP_FRAME_HEADER_LEN + 5];
    hnp_auth_transcript_t t;
    hnp_frame_mac_t a, b;
    hnp_frame_mac_run_t run;

    (void)state;
    example(secret, &t);
    memcpy(frame, frame_header, HNP_FRAME_HEADER_LEN);
    memcpy(frame + HNP_FRAME_HEADER_LEN, "hello", 5);
    hnp_frame_mac_init(&a, secret, &t, HNP_AUTH_ACCEPTOR);
    hnp_frame_mac_init(&b, secret, &t, HNP_AUTH_ACCEPTOR);
    hnp_frame_mac_sign(&a, frame_header, "hello", 5, whole);
    hnp_frame_mac_begin(&b, &run);
    for (size_t i = 0; i < sizeof(frame); i += 3)
        hnp_frame_mac_add(&run, frame + i,
                          sizeof(frame) - i < 3 ? sizeof(frame) - i : 3);
    hnp_frame_mac_end(&b, &run, pieces);
    assert_memory_equal(whole, pieces, HNP_MAC_LEN);
    assert_int_equal(a.seq, 1);
    assert_int_equal(b.seq, 1);
    hnp_frame_mac_wipe(&a);
    hnp_frame_mac_wipe(&b);
}

static void test_frame_mac_wipe(void **state)
{
    uint8_t secret[HNP_SECRET_LEN];
    hnp_auth_transcript_t t;
    hnp_frame_mac_t m, zero;

    (void)state;
    example(secret, &t);
    hnp_frame_mac_init(&m, secret, &t, HNP_AUTH_ACCEPTOR);
    memset(&zero, 0, sizeof(zero));
    assert_memory_not_equal(&m, &zero, sizeof(m));
    hnp_frame_mac_wipe(&m);
    assert_memory_equal(&m, &zero, sizeof(m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proof_known_answers),
        cmocka_unit_test(test_proof_checks),
        cmocka_unit_test(test_handshake_does_not_carry_the_secret),
        cmocka_unit_test(test_nonces_are_fresh),
        cmocka_unit_test(test_frame_mac_known_answers),
        cmocka_unit_test(test_frame_mac_sequence),
        cmocka_unit_test(test_frame_mac_binds_direction_and_connection),
        cmocka_unit_test(test_frame_mac_covers_every_byte),
        cmocka_unit_test(test_frame_mac_in_pieces),
        cmocka_unit_test(test_frame_mac_wipe),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
