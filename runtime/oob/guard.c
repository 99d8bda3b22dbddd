/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections that never authenticate: anyone who can reach a listener can
 * open them, and each holds a descriptor until its handshake ends. Three
 * limits keep them from exhausting the process:
 *
 *  - at most max_waiting accepted connections await their handshake at
 *    once. Past that, the oldest SILENT one (no valid magic yet) is
 *    dropped, and when none is old enough, the oldest that has said its
 *    hello and no proof. A daemon says hello as soon as its connect
 *    completes, so a connection that has waited longest without a word is
 *    the likeliest to be a stranger holding its slot, while refusing the
 *    newest would let strangers that came first lock every daemon out
 *    until their deadline. Anyone can say a well-formed hello naming any
 *    vpid (the real daemon's too): a hello proves nothing, so it holds no
 *    vpid, and it cannot hold its slot past the others' need either;
 *    strangers that kept their slots until the deadline left the listener
 *    paused and every daemon out (1,000 hellos a second failed a 64-node
 *    launch). A daemon's hello is answered at once, whoever else named
 *    its vpid, and its proof comes one round trip later; dropped before
 *    it came (a round trip longer than GUARD_MIN_AGE), the daemon sees
 *    its handshake fail and connects again (conn.c): strangers can slow
 *    a launch, not fail one. A connection
 *    is dropped only once it has had a turn of the event loop to be read
 *    and is GUARD_MIN_AGE old: a burst of strangers accepted in one go must
 *    not push out a daemon whose hello is still on its way (the listener
 *    pauses until the oldest may go, and the rest wait in the kernel's
 *    queue). Half a second: on a loaded node a daemon may wait that long
 *    for a CPU to write its hello (50 ms dropped daemons under CI's load),
 *    and strangers still go at 128 per half second;
 *  - a peer whose first four bytes are not the protocol's magic is dropped
 *    at once, not when a whole hello has arrived or the deadline passes;
 *  - the handshake deadline (oob_tcp_handshake_timeout) ends the rest.
 *
 * Warnings about such connections are rate-limited: one line per cause per
 * second, with the count of those not shown (ratelimit.h). A connection
 * dropped for want of a slot is not told while it may have been one of
 * our daemons (retried_by_its_daemon()): those connect again, and a clean
 * launch on a loaded node prints nothing the user did not cause.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "internal.h"
#include "wire/frame.h"

#define GUARD_MIN_AGE 0.5
#define GUARD_FULL_POLL 0.02
/* A connection that said its hello is given, after our answer, four
 * times as long as proofs have lately taken to come, within these
 * bounds; 0.1 s before any has come. */
#define GUARD_PROOF_FACTOR 4.0
#define GUARD_PROOF_AGE_MIN 0.05
#define GUARD_PROOF_AGE_FIRST 0.1

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void oob_guard_warn(hnp_oob_t *oob, const char *remote, const char *reason)
{
    char key[OOB_RATELIMIT_KEY_LEN];
    unsigned long suppressed = 0;

    oob_ratelimit_key(reason, key, sizeof(key));
    if (!oob_ratelimit_allow(&oob->warn_limit, key, now_seconds(),
                             &suppressed))
        return;
    char more[OOB_RATELIMIT_KEY_LEN + 64] = "";
    if (suppressed > 0)
        snprintf(more, sizeof(more), " (and %lu more \"%s\" not shown "
                 "since the last)", suppressed, key);
    if (remote != NULL)
        HNP_WARN(oob->log, "connection from %s dropped: %s%s", remote, reason,
                 more);
    else
        HNP_WARN(oob->log, "%s%s", reason, more);
}

static void flush_one(void *ctx, const char *key, unsigned long suppressed)
{
    hnp_oob_t *oob = ctx;

    HNP_WARN(oob->log, "%lu more connection(s) dropped (\"%s\") were not "
             "shown", suppressed, key);
}

void oob_guard_flush(hnp_oob_t *oob)
{
    oob_ratelimit_flush(&oob->warn_limit, flush_one, oob);
}

static void waiting_unlink(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;

    if (c->wait_prev != NULL)
        c->wait_prev->wait_next = c->wait_next;
    else
        oob->wait_head = c->wait_next;
    if (c->wait_next != NULL)
        c->wait_next->wait_prev = c->wait_prev;
    else
        oob->wait_tail = c->wait_prev;
    c->wait_prev = c->wait_next = NULL;
    c->waiting = false;
    oob->nwaiting--;
}

void oob_guard_release(oob_conn_t *c)
{
    if (c->waiting)
        waiting_unlink(c);
}

/* The oldest waiting connection that has said nothing yet (@p hello
 * false), or that has said its hello (true); NULL if there is none. */
static oob_conn_t *oldest_waiting(hnp_oob_t *oob, bool hello)
{
    oob_conn_t *c = oob->wait_head;

    while (c != NULL && c->magic_seen != hello)
        c = c->wait_next;
    return c;
}

void oob_guard_replied(oob_conn_t *c)
{
    c->replied_at = now_seconds();
}

/* A decaying maximum: one slow proof lengthens the wait at once; it
 * shortens again over the next proofs. */
void oob_guard_proven(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;
    double took = now_seconds() - c->replied_at;

    if (oob->silent_unmatched > 0)
        oob->silent_unmatched--;

    oob->proof_wait = took > 0.9 * oob->proof_wait ? took
                                                   : 0.9 * oob->proof_wait;
}

/* How long a connection that said its hello keeps its slot after our
 * answer: what a daemon's proof has lately needed, with a margin. */
static double proof_age(const hnp_oob_t *oob)
{
    double age = oob->proof_wait > 0 ? GUARD_PROOF_FACTOR * oob->proof_wait
                                     : GUARD_PROOF_AGE_FIRST;

    if (age < GUARD_PROOF_AGE_MIN)
        return GUARD_PROOF_AGE_MIN;
    return age < GUARD_MIN_AGE ? age : GUARD_MIN_AGE;
}

double oob_guard_proof_due(const oob_peer_t *peer)
{
    double now = now_seconds(), due = 0;

    for (const oob_conn_t *c = peer->oob->wait_head; c != NULL;
         c = c->wait_next) {
        double left = proof_age(peer->oob) - (now - c->replied_at);
        if (c->peer == peer && c->state == OOB_CONN_AWAIT_PROOF && left > due)
            due = left;
    }
    return due;
}

/* Whether @p c may be dropped now; else how long until it may. */
static bool old_enough(const hnp_oob_t *oob, const oob_conn_t *c, double now,
                       double *wait)
{
    bool answered = c->state == OOB_CONN_AWAIT_PROOF;
    double age = now - (answered ? c->replied_at : c->accepted_at);
    double min = answered ? proof_age(oob) : GUARD_MIN_AGE;

    if (age >= min && c->accept_round != oob->accept_round)
        return true;
    *wait = age < min ? min - age : 0;
    return false;
}

/* Whether dropping @p c is a delay its daemon recovers from by itself,
 * nothing to tell the user. A daemon whose connection goes before its
 * handshake ends connects again (conn.c, up to OOB_HANDSHAKE_RETRIES
 * times). On a loaded node (1,024 daemons calling one HNP back at once)
 * a daemon's hello, or its proof, may come after its slot's time is up
 * (a hello lost to a full accept queue is sent again only at TCP's
 * retransmission timeout). So:
 *  - a connection that said a hello naming a peer with no connection up:
 *    quiet, unless more hellos naming that peer were dropped than its
 *    daemon would try;
 *  - a silent one: quiet while the silent ones dropped and not followed
 *    by as many proven handshakes (each daemon dropped proves itself
 *    when it comes again) fill no more than the slots; past that they
 *    are strangers, and told. */
static bool retried_by_its_daemon(oob_conn_t *c)
{
    oob_peer_t *peer = c->peer;

    if (!c->magic_seen)
        return ++c->oob->silent_unmatched <= c->oob->max_waiting;
    if (c->state != OOB_CONN_AWAIT_PROOF || peer == NULL || peer->nopen > 0 ||
        peer->evicted > OOB_HANDSHAKE_RETRIES)
        return false;
    peer->evicted++;
    return true;
}

/* Before accepting: when the slots are full, drop the oldest silent
 * connection if it is old enough, else the oldest that said only its
 * hello; false, with how long to wait, if neither is old enough (see
 * above). */
bool oob_guard_room(hnp_oob_t *oob, double *wait)
{
    char reason[200];
    double now = now_seconds(), wait_silent = GUARD_FULL_POLL;

    if (oob->nwaiting < oob->max_waiting || oob->wait_head == NULL)
        return true;
    oob_conn_t *silent = oldest_waiting(oob, false);
    oob_conn_t *old = silent;
    if (old == NULL || !old_enough(oob, old, now, &wait_silent)) {
        old = oldest_waiting(oob, true);
        if (old == NULL || !old_enough(oob, old, now, wait)) {
            if (silent != NULL && (old == NULL || wait_silent < *wait))
                *wait = wait_silent;
            else if (old == NULL)
                *wait = GUARD_FULL_POLL;
            return false;
        }
    }
    if (old->magic_seen) {
        /* Its proof may be waiting, unread while this process was busy. */
        oob_conn_read_now(old);
        if (!old->waiting)
            return true;
    }
    snprintf(reason, sizeof(reason), "too many connections awaiting their "
             "handshake: more than oob_tcp_max_handshakes = %u, the oldest "
             "%s goes", oob->max_waiting,
             old->magic_seen ? "one that said only its hello" : "silent one");
    if (retried_by_its_daemon(old))
        HNP_VERBOSE(oob->log, 1, "connection from %s dropped: %s (a daemon "
                    "connects again)", old->remote, reason);
    else
        oob_guard_warn(oob, old->remote, reason);
    oob_conn_close(old); /* unlinks it */
    return true;
}

/* An accepted connection that did not complete its handshake at once
 * takes a waiting slot (oob_guard_room made one). */
void oob_guard_admit(oob_conn_t *c)
{
    hnp_oob_t *oob = c->oob;

    c->accepted_at = now_seconds();
    c->accept_round = oob->accept_round;
    c->waiting = true;
    c->wait_prev = oob->wait_tail;
    c->wait_next = NULL;
    if (oob->wait_tail != NULL)
        oob->wait_tail->wait_next = c;
    else
        oob->wait_head = c;
    oob->wait_tail = c;
    oob->nwaiting++;
}

/* True when the stream's first bytes already rule out an hnp peer; @p why
 * then says what came instead. Only the first four bytes of a connection
 * are looked at, before the handshake consumes any of them. */
bool oob_guard_foreign(oob_conn_t *c, char *why, size_t whylen)
{
    uint8_t head[4] = { 0 };
    char shown[sizeof(head) + 1];

    if (c->magic_seen || c->state == OOB_CONN_CONNECTING ||
        c->state == OOB_CONN_OPEN || c->state == OOB_CONN_CLOSING ||
        c->state == OOB_CONN_DEAD)
        return false;
    ev_ssize_t n = evbuffer_copyout(c->in, head, sizeof(head));
    if (n <= 0)
        return false;
    int rc = hnp_hello_magic_check(head, (size_t)n);
    if (rc == 0)
        return false;
    if (rc > 0) {
        c->magic_seen = true;
        return false;
    }
    for (ev_ssize_t i = 0; i < n; i++)
        shown[i] = isprint(head[i]) ? (char)head[i] : '.';
    shown[n] = '\0';
    snprintf(why, whylen, "failed handshake: bad magic (it began with "
             "\"%s\"): not an hnp peer", shown);
    return true;
}
