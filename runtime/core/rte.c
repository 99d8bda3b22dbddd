/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime services of hnp_rte.h: identity, topology, messaging with
 * routing and forwarding, timers. Shared by the HNP and the daemon.
 */
#include "config.h"

#include <event2/event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/failure.h"
#include "wire/report.h"
#include "wire/xcast.h"

/* A message that arrived for a tag nobody listens to yet. */
typedef struct hnp_held_message {
    struct hnp_held_message *next;
    hnp_vpid_t from; /* the direct peer it came from */
    hnp_vpid_t src;
    uint32_t tag;
    size_t len;
    uint8_t data[];
} held_message_t;

hnp_vpid_t hnp_rte_my_vpid(const hnp_rte_t *rte) { return rte->self; }
uint32_t hnp_rte_num_procs(const hnp_rte_t *rte) { return rte->nprocs; }
bool hnp_rte_is_hnp(const hnp_rte_t *rte) { return rte->is_hnp; }
const char *hnp_rte_my_uri(const hnp_rte_t *rte) { return hnp_oob_uri(rte->oob); }
const hnp_tree_t *hnp_rte_spawn_tree(const hnp_rte_t *rte) { return &rte->spawn_tree; }

const char *hnp_rte_node_name(const hnp_rte_t *rte, hnp_vpid_t vpid)
{
    if (rte->node_names == NULL || vpid >= rte->nprocs)
        return NULL;
    return rte->node_names[vpid];
}

hnp_vpid_t hnp_rte_route_parent(const hnp_rte_t *rte)
{
    return rte->routed->parent(rte->self, rte->nprocs);
}

uint32_t hnp_rte_route_children(const hnp_rte_t *rte, hnp_vpid_t *out,
                                uint32_t max)
{
    return rte->routed->children(rte->self, rte->nprocs, out, max);
}

uint32_t hnp_rte_spawn_children(const hnp_rte_t *rte, hnp_vpid_t *out,
                                uint32_t max)
{
    return hnp_tree_children(&rte->spawn_tree, rte->self, out, max);
}

hnp_reader_t *hnp_rte_reader(hnp_reader_t *rd, const void *data, size_t len)
{
    hnp_reader_init(rd, data, len);
    return rd;
}

bool hnp_rte_unpacked(hnp_rte_t *rte, hnp_vpid_t src, const char *what,
                      int rc)
{
    if (rc == HNP_SUCCESS)
        return true;
    HNP_WARN(rte->log, "malformed %s from vpid %u dropped", what, src);
    return false;
}

int hnp_rte_plm_spawn_tree(hnp_rte_t *rte, uint32_t nprocs,
                           const hnp_tree_t *routing, hnp_tree_t *out)
{
    if (rte->plm->spawn_tree == NULL) {
        *out = hnp_tree_kary(nprocs, 0);
        return HNP_SUCCESS;
    }
    return rte->plm->spawn_tree(rte, nprocs, routing, out);
}

void hnp_rte_release_trees(hnp_tree_t *spawn, hnp_tree_t *routing)
{
    hnp_tree_release(spawn);
    hnp_tree_release(routing);
    *spawn = (hnp_tree_t){ 0 };
    *routing = (hnp_tree_t){ 0 };
}

/* The spawn tree of the first launch, grown to rte->nprocs. */
static int build_grown_spawn_tree(hnp_rte_t *rte)
{
    hnp_tree_t routing = { 0 }, first = { 0 };
    int rc = rte->routed->spanning_tree(rte->nfirst, &routing);

    if (rc == HNP_SUCCESS)
        rc = hnp_rte_plm_spawn_tree(rte, rte->nfirst, &routing, &first);
    if (rc == HNP_SUCCESS)
        rc = hnp_tree_extend(&first, rte->nprocs, &rte->spawn_tree);
    hnp_rte_release_trees(&first, &routing);
    return rc;
}

int hnp_rte_build_trees(hnp_rte_t *rte)
{
    int rc = rte->routed->spanning_tree(rte->nprocs, &rte->routing_tree);

    if (rc == HNP_SUCCESS && rte->nfirst > 0 && rte->nfirst < rte->nprocs)
        rc = build_grown_spawn_tree(rte);
    else if (rc == HNP_SUCCESS)
        rc = hnp_rte_plm_spawn_tree(rte, rte->nprocs, &rte->routing_tree,
                                    &rte->spawn_tree);
    return rc;
}

/* ------------------------------------------------------------ receiving */

/*
 * Messages for a tag with no handler yet (or, in a daemon before its
 * welcome, for any tag but the welcome) are held in arrival order. When a
 * handler is posted or the daemon becomes ready, the held messages that can
 * now be delivered are due: they are delivered by an event of the loop, so
 * that no handler runs inside the call that registered it, and until then
 * every message that arrives waits behind them.
 *
 * What only comes down the trees (a broadcast and what it carries, a
 * welcome, stdin, a shutdown from the spawn parent) is taken only from a
 * direct peer the role says is above this process (role.above): a daemon's
 * spawn or routing parent, or the HNP. The HNP has nobody above it. The
 * check is made at delivery, when a daemon knows its routing parent.
 */

static void dispatch(hnp_rte_t *rte, hnp_vpid_t from, hnp_vpid_t src,
                     uint32_t tag, const uint8_t *data, size_t len);
static void deliver(hnp_rte_t *rte, hnp_vpid_t from, hnp_vpid_t src,
                    uint32_t tag, const uint8_t *data, size_t len);
static void want_uri(hnp_rte_t *rte, hnp_vpid_t hop);

static void hold_message(hnp_rte_t *rte, hnp_vpid_t from, hnp_vpid_t src,
                         uint32_t tag, const uint8_t *data, size_t len)
{
    held_message_t *m = malloc(sizeof(*m) + len);
    held_message_t **tail = &rte->held;

    if (m == NULL) {
        HNP_ERROR_LOG(rte->log, "out of memory holding a message (tag %u)", tag);
        return;
    }
    m->next = NULL;
    m->from = from;
    m->src = src;
    m->tag = tag;
    m->len = len;
    if (len > 0)
        memcpy(m->data, data, len);
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = m;
}

static bool deliverable(const hnp_rte_t *rte, uint32_t tag)
{
    if (!rte->ready)
        return tag == HNP_TAG_WELCOME && rte->handlers[tag].fn != NULL;
    return tag == HNP_TAG_XCAST || rte->handlers[tag].fn != NULL;
}

/* Deliver, in arrival order, what was held and can be delivered now. A
 * delivery may hold or release other messages, so each search starts over
 * from the head. What a delivery unwraps (an xcast's message) arrived with
 * it, ahead of everything still held: it goes straight on. */
static void release_held(evutil_socket_t fd, short what, void *arg)
{
    hnp_rte_t *rte = arg;

    (void)fd;
    (void)what;
    for (;;) {
        held_message_t **link = &rte->held;
        while (*link != NULL && !deliverable(rte, (*link)->tag))
            link = &(*link)->next;
        if (*link == NULL)
            break;
        held_message_t *m = *link;
        *link = m->next;
        rte->held_due = false;
        deliver(rte, m->from, m->src, m->tag, m->data, m->len);
        rte->held_due = true;
        free(m);
    }
    rte->held_due = false;
}

/* Held messages may have become deliverable: deliver them from the loop. */
static void release_held_later(hnp_rte_t *rte)
{
    if (rte->held == NULL || rte->held_due)
        return;
    rte->held_due = true;
    event_active(rte->deliver_held, EV_TIMEOUT, 0);
}

int hnp_rte_held_create(hnp_rte_t *rte)
{
    rte->deliver_held = event_new(rte->base, -1, 0, release_held, rte);
    return rte->deliver_held != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

void hnp_rte_held_destroy(hnp_rte_t *rte)
{
    while (rte->held != NULL) {
        held_message_t *m = rte->held;
        rte->held = m->next;
        free(m);
    }
    if (rte->deliver_held != NULL)
        event_free(rte->deliver_held);
    rte->deliver_held = NULL;
    rte->held_due = false;
}

int hnp_rte_recv(hnp_rte_t *rte, uint32_t tag, hnp_rte_recv_fn fn,
                 void *cbdata)
{
    if (tag == 0 || tag >= HNP_RTE_MAX_TAG)
        return HNP_ERR_BAD_PARAM;
    rte->handlers[tag].fn = fn;
    rte->handlers[tag].cbdata = cbdata;
    if (fn != NULL)
        release_held_later(rte);
    return HNP_SUCCESS;
}

void hnp_rte_set_ready(hnp_rte_t *rte)
{
    rte->ready = true;
    release_held_later(rte);
}

/* Forward an xcast to this process's routing children, then deliver the
 * wrapped message here. */
static void handle_xcast(hnp_rte_t *rte, hnp_vpid_t from, hnp_vpid_t src,
                         const uint8_t *data, size_t len)
{
    hnp_wire_xcast_t inner;
    hnp_reader_t rd;

    hnp_reader_init(&rd, data, len);
    if (hnp_wire_xcast_unpack(&rd, &inner) != HNP_SUCCESS ||
        inner.tag == HNP_TAG_XCAST) {
        HNP_WARN(rte->log, "malformed broadcast from vpid %u dropped", src);
        return;
    }
    /* A shutdown is passed on only to children still connected (see
     * send_via): one that has gone got its copy down the spawn tree. */
    if (inner.tag == HNP_TAG_SHUTDOWN)
        rte->closing = true;
    hnp_rte_xcast(rte, inner.tag, inner.data, inner.len);
    dispatch(rte, from, src, inner.tag, inner.data, inner.len);
}

static void dispatch(hnp_rte_t *rte, hnp_vpid_t from, hnp_vpid_t src,
                     uint32_t tag, const uint8_t *data, size_t len)
{
    if (tag == 0 || tag >= HNP_RTE_MAX_TAG) {
        HNP_WARN(rte->log, "message with unknown tag %u from vpid %u dropped",
                 tag, src);
        return;
    }
    if (rte->held_due || !deliverable(rte, tag)) {
        hold_message(rte, from, src, tag, data, len);
        return;
    }
    deliver(rte, from, src, tag, data, len);
}

static bool comes_from_above(uint32_t tag)
{
    return tag == HNP_TAG_XCAST || tag == HNP_TAG_WELCOME ||
           tag == HNP_TAG_LAUNCH || tag == HNP_TAG_SHUTDOWN ||
           tag == HNP_TAG_SIGNAL || tag == HNP_TAG_STDIN ||
           tag == HNP_TAG_STATE_REQUEST || tag == HNP_TAG_KILL_DAEMON ||
           tag == HNP_TAG_JOB_END || tag == HNP_TAG_COLLECTIVE ||
           tag == HNP_TAG_GROW || tag == HNP_TAG_CONTACTS;
}

/* Whether @p from may send @p tag here (see "What only comes down"). */
static bool sent_by_right_peer(hnp_rte_t *rte, hnp_vpid_t from, uint32_t tag)
{
    if (from == rte->self || !comes_from_above(tag))
        return true;
    if (!rte->is_hnp && rte->role.above != NULL && rte->role.above(rte, from))
        return true;
    HNP_WARN(rte->log, "message with tag %u from vpid %u dropped: only a "
             "process above this one in the trees may send it", tag, from);
    return false;
}

/* A message whose tag is deliverable, to its handler. */
static void deliver(hnp_rte_t *rte, hnp_vpid_t from, hnp_vpid_t src,
                    uint32_t tag, const uint8_t *data, size_t len)
{
    if (!sent_by_right_peer(rte, from, tag))
        return;
    if (tag == HNP_TAG_XCAST) {
        handle_xcast(rte, from, src, data, len);
        return;
    }
    rte->handlers[tag].fn(rte, src, tag, data, len, rte->handlers[tag].cbdata);
}

/* ------------------------------------------------------------ sending */

/* The neighbour a message for @p dest goes to next. Before a routing
 * component is selected (a daemon that has not heard from its parent yet)
 * everything goes straight to its destination. */
hnp_vpid_t hnp_rte_next_hop(const hnp_rte_t *rte, hnp_vpid_t dest)
{
    if (rte->routed == NULL || rte->nprocs == 0)
        return dest;
    return rte->routed->next_hop(rte->self, dest, rte->nprocs);
}

static int send_via(hnp_rte_t *rte, hnp_vpid_t hop, hnp_vpid_t src,
                    hnp_vpid_t dest, uint32_t tag, const void *data,
                    size_t len)
{
    hnp_frame_header_t hdr = { .src = src, .dst = dest, .tag = tag,
                               .len = (uint32_t)len };

    if (rte->oob != NULL && len > hnp_oob_max_frame(rte->oob)) {
        HNP_ERROR_LOG(rte->log, "message of %zu bytes for vpid %u exceeds "
                      "oob_tcp_max_frame (%zu)", len, dest,
                      hnp_oob_max_frame(rte->oob));
        return HNP_ERR_BAD_PARAM;
    }
    if (hop == HNP_VPID_INVALID)
        return HNP_ERR_UNREACHABLE;
    /* While the job ends, peers leave: reaching out to one that has gone
     * would only produce warnings about an exit everybody expects. */
    if (rte->closing && !hnp_oob_connected(rte->oob, hop))
        return HNP_ERR_UNREACHABLE;
    want_uri(rte, hop);
    return hnp_oob_send(rte->oob, hop, &hdr, data);
}

typedef struct self_delivery {
    hnp_rte_t *rte;
    uint32_t tag;
    size_t len;
    uint8_t data[];
} self_delivery_t;

static void deliver_to_self(evutil_socket_t fd, short what, void *arg)
{
    self_delivery_t *d = arg;
    (void)fd;
    (void)what;
    dispatch(d->rte, d->rte->self, d->rte->self, d->tag, d->data, d->len);
    free(d);
}

/* A message to oneself is delivered from the loop, like any other. */
static int send_to_self(hnp_rte_t *rte, uint32_t tag, const void *data,
                        size_t len)
{
    self_delivery_t *d = malloc(sizeof(*d) + len);

    if (d == NULL)
        return HNP_ERR_NOMEM;
    d->rte = rte;
    d->tag = tag;
    d->len = len;
    if (len > 0)
        memcpy(d->data, data, len);
    if (event_base_once(rte->base, -1, EV_TIMEOUT, deliver_to_self, d, NULL) != 0) {
        free(d);
        return HNP_ERROR;
    }
    return HNP_SUCCESS;
}

int hnp_rte_send(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                 const void *data, size_t len)
{
    if (dest == rte->self)
        return send_to_self(rte, tag, data, len);
    return send_via(rte, hnp_rte_next_hop(rte, dest), rte->self, dest, tag,
                    data, len);
}

int hnp_rte_send_direct(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t tag,
                        const void *data, size_t len)
{
    if (dest == rte->self)
        return send_to_self(rte, tag, data, len);
    return send_via(rte, dest, rte->self, dest, tag, data, len);
}

int hnp_rte_xcast(hnp_rte_t *rte, uint32_t tag, const void *data, size_t len)
{
    hnp_vpid_t children[1024];
    uint32_t total = rte->routed->children(rte->self, rte->nprocs, NULL, 0);
    hnp_vpid_t *kids = children;
    hnp_wire_xcast_t envelope = { .tag = tag, .data = data, .len = len };
    hnp_buffer_t buf;
    bool packed;
    int rc;

    if (total > 1024 && (kids = malloc(total * sizeof(*kids))) == NULL)
        return HNP_ERR_NOMEM;
    rte->routed->children(rte->self, rte->nprocs, kids, total);
    hnp_buffer_init(&buf);
    rc = hnp_wire_xcast_pack(&buf, &envelope);
    packed = rc == HNP_SUCCESS;
    /* A child that cannot be reached (one that never came up, while a job
     * ends) must not keep the message from its siblings. */
    for (uint32_t i = 0; packed && i < total; i++) {
        int sent = send_via(rte, kids[i], rte->self, kids[i], HNP_TAG_XCAST,
                            buf.data, buf.len);
        if (rc == HNP_SUCCESS)
            rc = sent;
    }
    hnp_buffer_release(&buf);
    if (kids != children)
        free(kids);
    return rc;
}

int hnp_rte_send_spawn_children(hnp_rte_t *rte, uint32_t tag,
                                const void *data, size_t len)
{
    uint32_t total = hnp_rte_spawn_children(rte, NULL, 0);
    hnp_vpid_t *kids;
    int rc = HNP_SUCCESS;

    if (total == 0)
        return HNP_SUCCESS;
    kids = malloc(total * sizeof(*kids));
    if (kids == NULL)
        return HNP_ERR_NOMEM;
    hnp_rte_spawn_children(rte, kids, total);
    for (uint32_t i = 0; i < total; i++) {
        if (!hnp_oob_connected(rte->oob, kids[i]))
            continue;
        int sent = send_via(rte, kids[i], rte->self, kids[i], tag, data, len);
        if (rc == HNP_SUCCESS)
            rc = sent;
    }
    free(kids);
    return rc;
}

/* Whether this process may ever talk to @p v directly: the HNP to anyone,
 * a daemon to the HNP and its spawn and routing neighbours. */
static bool may_contact(const hnp_rte_t *rte, hnp_vpid_t v)
{
    uint32_t n = rte->nprocs;

    if (rte->is_hnp || v == 0 ||
        hnp_tree_parent(&rte->spawn_tree, v) == rte->self ||
        hnp_tree_parent(&rte->spawn_tree, rte->self) == v)
        return true;
    return rte->routed == NULL || rte->routed->parent(rte->self, n) == v ||
           rte->routed->parent(v, n) == rte->self;
}

/*
 * Every daemon learns every daemon's contact, but talks to a few of them:
 * the others are kept as text and handed to the OOB (which parses them)
 * only if a message ever waits for one. Parsing all N in each of N
 * daemons would cost O(N^2) in all.
 */
int hnp_rte_set_uri(hnp_rte_t *rte, hnp_vpid_t vpid, const char *uri)
{
    char *copy;

    if (vpid == rte->self)
        return HNP_SUCCESS;
    if (rte->uris == NULL || vpid >= rte->nprocs || rte->uri_wanted[vpid] ||
        may_contact(rte, vpid))
        return hnp_oob_set_uri(rte->oob, vpid, uri);
    if ((copy = strdup(uri)) == NULL)
        return HNP_ERR_NOMEM;
    free(rte->uris[vpid]);
    rte->uris[vpid] = copy;
    return HNP_SUCCESS;
}

/* A message goes to @p hop: hand its contact to the OOB if it is kept
 * here, or ask for it to be handed over when it comes. Once per hop, so
 * that a send costs one array read here. */
static void want_uri(hnp_rte_t *rte, hnp_vpid_t hop)
{
    if (rte->uris == NULL || hop >= rte->nprocs || rte->uri_wanted[hop])
        return;
    rte->uri_wanted[hop] = true;
    if (rte->uris[hop] != NULL) {
        hnp_oob_set_uri(rte->oob, hop, rte->uris[hop]);
        free(rte->uris[hop]);
        rte->uris[hop] = NULL;
    }
}

/* ------------------------------------------------------------ OOB events */

static void oob_deliver(void *ctx, hnp_vpid_t from, const hnp_frame_header_t *hdr,
                        const uint8_t *body)
{
    hnp_rte_t *rte = ctx;

    hnp_rte_heartbeat_heard(rte, from);
    if (hdr->dst != rte->self) {
        hnp_vpid_t hop = hnp_rte_next_hop(rte, hdr->dst);
        if (hop == from || hop == rte->self) {
            HNP_WARN(rte->log, "message from vpid %u for vpid %u has no route "
                     "onward from here; dropped", hdr->src, hdr->dst);
            return;
        }
        send_via(rte, hop, hdr->src, hdr->dst, hdr->tag, body, hdr->len);
        return;
    }
    dispatch(rte, from, hdr->src, hdr->tag, body, hdr->len);
}

static void oob_peer_up(void *ctx, hnp_vpid_t peer)
{
    hnp_rte_t *rte = ctx;
    if (rte->role.peer_up != NULL)
        rte->role.peer_up(rte, peer);
}

static void oob_peer_down(void *ctx, hnp_vpid_t peer, size_t unsent)
{
    hnp_rte_t *rte = ctx;

    hnp_rte_requests_lost(rte, peer);
    if (rte->role.peer_down != NULL)
        rte->role.peer_down(rte, peer, unsent);
}

static void oob_drained(void *ctx)
{
    hnp_rte_t *rte = ctx;
    if (rte->role.drained != NULL)
        rte->role.drained(rte);
}

int hnp_rte_start_oob(hnp_rte_t *rte, uint32_t nprocs, char *err,
                      size_t errlen)
{
    hnp_oob_config_t config = {
        .if_include = rte->core->if_include,
        .if_exclude = rte->core->if_exclude,
        .max_frame = rte->core->max_frame,
        .backlog = (int)(nprocs > 128 ? nprocs : 128),
        .connect_timeout = 10.0,
        .handshake_timeout = rte->core->handshake_timeout,
        .max_handshakes = rte->max_handshakes > 0 ? rte->max_handshakes
                                                  : rte->core->max_handshakes,
        .nprocs = nprocs,
        .test_stall = rte->core->test_stall_vpid == rte->self
                          ? rte->core->test_stall_seconds : 0,
    };
    hnp_oob_callbacks_t cb = {
        .deliver = oob_deliver,
        .peer_up = oob_peer_up,
        .peer_down = oob_peer_down,
        .drained = oob_drained,
        .ctx = rte,
    };
    return hnp_oob_create(&rte->oob, rte->base, rte->self, rte->secret,
                          &config, &cb, err, errlen);
}

/* ------------------------------------------------------------ failures */

static void fail_as(hnp_rte_t *rte, uint32_t jobid, int status,
                    char *message)
{
    if (rte->is_hnp) {
        if (rte->role.failure != NULL)
            rte->role.failure(rte, status, message);
        return;
    }
    hnp_wire_failure_t failure = { .jobid = jobid, .status = status,
                                   .message = message };
    hnp_buffer_t buf;
    hnp_buffer_init(&buf);
    /* Straight to the HNP: the routing tree may not be connected yet (a
     * failure during phase 1 can keep it from ever being). */
    if (hnp_wire_failure_pack(&buf, &failure) != HNP_SUCCESS ||
        hnp_rte_send_direct(rte, 0, HNP_TAG_FAILURE, buf.data, buf.len) != HNP_SUCCESS)
        HNP_ERROR_LOG(rte->log, "%s", message);
    hnp_buffer_release(&buf);
}

/* A pmi component's failure is its job's when this daemon holds one job
 * (hnp_rte_job_begin()); of several, it names the job itself
 * (hnp_rte_fail_job()). */
void hnp_rte_fail(hnp_rte_t *rte, int status, const char *fmt, ...)
{
    char message[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    fail_as(rte, hnp_rte_job_only(rte), status, message);
}

void hnp_rte_fail_job(hnp_rte_t *rte, uint32_t jobid, int status,
                      const char *fmt, ...)
{
    char message[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    fail_as(rte, jobid, status, message);
}

void hnp_rte_report(hnp_rte_t *rte, const char *fmt, ...)
{
    char line[2048];
    hnp_wire_report_t report = { .severity = HNP_WIRE_REPORT_USER,
                                 .line = line };
    hnp_buffer_t buf;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (rte->is_hnp) {
        HNP_INFO(rte->log, "%s", line);
        return;
    }
    hnp_buffer_init(&buf);
    if (hnp_wire_report_pack(&buf, &report) != HNP_SUCCESS ||
        hnp_rte_send(rte, 0, HNP_TAG_REPORT, buf.data, buf.len) !=
            HNP_SUCCESS)
        HNP_WARN(rte->log, "%s", line);
    hnp_buffer_release(&buf);
}

/* ------------------------------------------------------------ the loop */

static void break_loop(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopbreak(arg);
}

/* event_base_loopbreak() before the loop runs is forgotten when it starts,
 * so the stop is an event of its own. */
void hnp_rte_stop_loop(hnp_rte_t *rte)
{
    struct timeval now = { 0, 0 };

    if (event_base_once(rte->base, -1, EV_TIMEOUT, break_loop, rte->base,
                        &now) != 0)
        event_base_loopbreak(rte->base);
}

/* ------------------------------------------------------------ timers */

struct hnp_rte_timer {
    struct event *ev;
    hnp_rte_t *rte;
    hnp_rte_timer_fn fn;
    void *cbdata;
};

static void timer_fired(evutil_socket_t fd, short what, void *arg)
{
    hnp_rte_timer_t *t = arg;
    (void)fd;
    (void)what;
    t->fn(t->rte, t->cbdata);
}

hnp_rte_timer_t *hnp_rte_timer_create(hnp_rte_t *rte, double seconds,
                                      hnp_rte_timer_fn fn, void *cbdata)
{
    hnp_rte_timer_t *t = calloc(1, sizeof(*t));
    struct timeval tv;

    if (t == NULL)
        return NULL;
    t->rte = rte;
    t->fn = fn;
    t->cbdata = cbdata;
    t->ev = evtimer_new(rte->base, timer_fired, t);
    if (t->ev == NULL) {
        free(t);
        return NULL;
    }
    tv.tv_sec = (time_t)seconds;
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    evtimer_add(t->ev, &tv);
    return t;
}

void hnp_rte_timer_destroy(hnp_rte_timer_t *timer)
{
    if (timer == NULL)
        return;
    event_free(timer->ev);
    free(timer);
}
