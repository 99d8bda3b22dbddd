/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections that never authenticate: anyone who can reach a listener can
 * open them, and each holds a descriptor until its handshake ends. Three
 * limits keep them from exhausting the process:
 *
 *  - at most max_waiting accepted connections await their handshake at
 *    once. Past that, the oldest SILENT one (no valid magic yet) is
 *    dropped; one that has said hello never is, and when every slot holds
 *    one the listener pauses (GUARD_FULL_POLL) until a handshake ends,
 *    what comes meanwhile waiting in the kernel's queue. A daemon says
 *    hello as soon as its connect completes, so a connection that has
 *    waited longest without a word is the likeliest to be a stranger
 *    holding its slot, while refusing the newest would let strangers that
 *    came first lock every daemon out until their deadline. A daemon whose
 *    hello has arrived is never in line with the strangers: its proof is
 *    one round trip away, and under load that round trip can take longer
 *    than the next 128 strangers (or the job's own 2,048 daemons calling
 *    back at once under gather_scatter) need to connect. A stranger that
 *    says a well-formed hello and no more holds its slot until the
 *    handshake deadline: it can slow a launch, not fail one. A connection
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
 * second, with the count of those not shown (ratelimit.h).
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

/* Before accepting: when the slots are full, drop the oldest silent
 * connection if it is old enough; false, with how long to wait, if it is
 * not or if none is silent (see above). */
bool oob_guard_room(hnp_oob_t *oob, double *wait)
{
    char reason[160];

    if (oob->nwaiting < oob->max_waiting || oob->wait_head == NULL)
        return true;
    oob_conn_t *old = oob->wait_head;
    while (old != NULL && old->magic_seen)
        old = old->wait_next;
    if (old == NULL) {
        *wait = GUARD_FULL_POLL;
        return false;
    }
    double age = now_seconds() - old->accepted_at;
    if (age < GUARD_MIN_AGE || old->accept_round == oob->accept_round) {
        *wait = age < GUARD_MIN_AGE ? GUARD_MIN_AGE - age : 0;
        return false;
    }
    snprintf(reason, sizeof(reason), "too many connections awaiting their "
             "handshake: more than oob_tcp_max_handshakes = %u, the oldest "
             "silent one goes", oob->max_waiting);
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
