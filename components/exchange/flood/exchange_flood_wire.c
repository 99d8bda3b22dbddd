/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flood` exchange on the wire: what goes out to one neighbour, cut
 * into messages of bounded size, and what comes in, checked whole before
 * anything of it is believed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "exchange_flood_internal.h"

/* ------------------------------------------------------------ sending */

/* Whether the entry at log position @p pos still has to go to @p to: what
 * came from a neighbour never goes back to it. */
static bool owed_to(const flood_coll_t *c, uint32_t pos, hnp_vpid_t to)
{
    return c->entries[c->log[pos]].origin != to;
}

static uint32_t next_owed(const flood_coll_t *c, uint32_t pos, hnp_vpid_t to)
{
    while (pos < c->known && !owed_to(c, pos, to))
        pos++;
    return pos;
}

/* Where the message starting at @p pos ends: as many entries as fit in
 * FLOOD_MAX_MESSAGE, and at least one whatever its size. */
static uint32_t message_end(const flood_coll_t *c, uint32_t pos, hnp_vpid_t to,
                            uint32_t *count)
{
    size_t bytes = FLOOD_HEADER_BYTES;

    *count = 0;
    for (; pos < c->known; pos++) {
        if (!owed_to(c, pos, to))
            continue;
        size_t more = FLOOD_ENTRY_OVERHEAD + c->entries[c->log[pos]].len;
        if (*count > 0 && bytes + more > FLOOD_MAX_MESSAGE)
            break;
        bytes += more;
        (*count)++;
    }
    return pos;
}

/* Down the tree, the member count goes with every message once known. */
static int send_message(flood_state_t *st, flood_coll_t *c, hnp_vpid_t to,
                        bool down, uint32_t from, uint32_t end,
                        uint32_t count)
{
    bool members = down && c->members > 0;
    hnp_buffer_t buf;
    int rc;

    hnp_buffer_init(&buf);
    hnp_pack_u32(&buf, c->id);
    hnp_pack_u32(&buf, members ? FLOOD_FLAG_MEMBERS : 0);
    hnp_pack_u32(&buf, count);
    if (members)
        hnp_pack_u32(&buf, c->members);
    for (uint32_t pos = from; pos < end; pos++) {
        if (!owed_to(c, pos, to))
            continue;
        const flood_entry_t *e = &c->entries[c->log[pos]];
        hnp_pack_u32(&buf, c->log[pos]);
        hnp_pack_blob(&buf, e->data, e->len);
    }
    rc = hnp_buffer_status(&buf);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send_direct(st->rte, to, FLOOD_TAG_ENTRIES, buf.data,
                                 buf.len);
    if (rc == HNP_SUCCESS) {
        c->msgs_sent++;
        c->bytes_sent += buf.len;
        HNP_VERBOSE(st->log, 10, "flood: all-gather %u: %u entries (%zu "
                    "bytes) to vpid %u", c->id, count, buf.len, to);
    }
    hnp_buffer_release(&buf);
    return rc;
}

/* Send @p link everything learnt here since its cursor that did not come
 * from it: one message, unless the batch outgrows FLOOD_MAX_MESSAGE. */
int flood_send_link(flood_state_t *st, flood_coll_t *c, flood_link_t *link)
{
    uint32_t pos = next_owed(c, link->sent, link->vpid);
    bool down = link < c->links + c->nchildren;
    int rc = HNP_SUCCESS;

    while (rc == HNP_SUCCESS && pos < c->known) {
        uint32_t count;
        uint32_t end = message_end(c, pos, link->vpid, &count);
        rc = send_message(st, c, link->vpid, down, pos, end, count);
        pos = next_owed(c, end, link->vpid);
    }
    if (rc == HNP_SUCCESS)
        link->sent = c->known;
    return rc;
}

/* ------------------------------------------------------------ receiving */

typedef struct flood_msg {
    uint32_t id;
    uint32_t flags;
    uint32_t count;
    uint32_t members;  /* 0: the message does not say */
    hnp_reader_t body; /* at the first entry */
} flood_msg_t;

static int parse_header(const flood_state_t *st, const void *data, size_t len,
                        flood_msg_t *msg, char *why, size_t whylen)
{
    hnp_reader_init(&msg->body, data, len);
    msg->id = hnp_unpack_u32(&msg->body);
    msg->flags = hnp_unpack_u32(&msg->body);
    msg->count = hnp_unpack_u32(&msg->body);
    if (hnp_reader_status(&msg->body) != HNP_SUCCESS) {
        hnp_err_set(why, whylen, "truncated header (%zu bytes)", len);
        return HNP_ERR_TRUNCATED;
    }
    if ((msg->flags & ~FLOOD_FLAGS_KNOWN) != 0) {
        hnp_err_set(why, whylen, "unknown flags 0x%x", msg->flags);
        return HNP_ERR_BAD_PARAM;
    }
    msg->members = 0;
    if ((msg->flags & FLOOD_FLAG_MEMBERS) != 0) {
        msg->members = hnp_unpack_u32(&msg->body);
        if (hnp_reader_status(&msg->body) != HNP_SUCCESS) {
            hnp_err_set(why, whylen, "truncated header (%zu bytes)", len);
            return HNP_ERR_TRUNCATED;
        }
        /* never fewer than the runtime had when this process began, which
         * every all-gather it takes part in counts */
        if (msg->members < st->nfirst) {
            hnp_err_set(why, whylen, "%u members, fewer than %u",
                        msg->members, st->nfirst);
            return HNP_ERR_BAD_PARAM;
        }
    }
    if (msg->count == 0 || msg->count > st->nprocs + msg->members) {
        hnp_err_set(why, whylen, "%u entries for %u processes", msg->count,
                    msg->members > st->nprocs ? msg->members : st->nprocs);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* One entry of a message against the tree and what is known here; the
 * all-gather's members are @p members, 0 while unknown. */
static int check_entry(flood_state_t *st, const flood_coll_t *c,
                       uint32_t members, hnp_vpid_t src, hnp_vpid_t v,
                       const void *blob, size_t len, char *why, size_t whylen)
{
    const flood_entry_t *e;

    if (v >= st->nprocs || (members > 0 && v >= members)) {
        hnp_err_set(why, whylen, "vpid %u out of range", v);
        return HNP_ERR_BAD_PARAM;
    }
    /* Entries travel away from their owner: from a child only its own
     * subtree's, from the parent only what lies outside ours. */
    if (hnp_tree_next_hop(flood_tree(st), st->self, v) != src) {
        hnp_err_set(why, whylen, "the entry of vpid %u cannot come from there",
                    v);
        return HNP_ERR_BAD_PARAM;
    }
    if (st->seen[v] == st->serial) {
        hnp_err_set(why, whylen, "vpid %u twice in one message", v);
        return HNP_ERR_BAD_PARAM;
    }
    st->seen[v] = st->serial;
    e = c != NULL && v < c->cap ? &c->entries[v] : NULL;
    if (e != NULL && e->known &&
        (e->len != len || (len > 0 && memcmp(e->data, blob, len) != 0))) {
        hnp_err_set(why, whylen, "vpid %u again, with other contents", v);
        return HNP_ERR_EXISTS;
    }
    return HNP_SUCCESS;
}

/* Every entry, before any is stored: a bad message changes nothing. */
static int check_entries(flood_state_t *st, const flood_coll_t *c,
                         hnp_vpid_t src, const flood_msg_t *msg, char *why,
                         size_t whylen)
{
    hnp_reader_t rd = msg->body;
    uint32_t members = msg->members > 0 ? msg->members
                       : c != NULL ? c->members : 0;
    int rc = HNP_SUCCESS;

    if (++st->serial == 0) { /* wrapped: old marks could match again */
        memset(st->seen, 0, st->nprocs * sizeof(*st->seen));
        st->serial = 1;
    }
    for (uint32_t i = 0; rc == HNP_SUCCESS && i < msg->count; i++) {
        size_t len = 0;
        hnp_vpid_t v = hnp_unpack_u32(&rd);
        const void *blob = hnp_unpack_blob(&rd, &len);
        if (hnp_reader_status(&rd) != HNP_SUCCESS) {
            hnp_err_set(why, whylen, "truncated at entry %u of %u", i,
                        msg->count);
            return HNP_ERR_TRUNCATED;
        }
        rc = check_entry(st, c, members, src, v, blob, len, why, whylen);
    }
    if (rc == HNP_SUCCESS && hnp_reader_remaining(&rd) > 0) {
        hnp_err_set(why, whylen, "%zu bytes after the last entry",
                    hnp_reader_remaining(&rd));
        rc = HNP_ERR_BAD_PARAM;
    }
    return rc;
}

/* Store what is new; a repeat was checked identical and is skipped. A
 * child's link counts what it brought, to see its report complete. */
static int store_entries(flood_coll_t *c, hnp_vpid_t src, int link,
                         const flood_msg_t *msg)
{
    hnp_reader_t rd = msg->body;

    for (uint32_t i = 0; i < msg->count; i++) {
        size_t len = 0;
        hnp_vpid_t v = hnp_unpack_u32(&rd);
        const void *blob = hnp_unpack_blob(&rd, &len);
        if (c->entries[v].known)
            continue;
        int rc = flood_coll_store(c, v, blob, (uint32_t)len, src);
        if (rc != HNP_SUCCESS)
            return rc;
        c->links[link].received++;
    }
    return HNP_SUCCESS;
}

/*
 * A child whose whole subtree has arrived becomes an "older child": from
 * now on it gets what is learnt here, starting with what it lacks. Counting
 * entries rather than trusting a flag keeps this right when a large report
 * comes in several messages, in any order.
 */
static void note_report(flood_state_t *st, flood_coll_t *c, int link)
{
    flood_link_t *l = &c->links[link];

    if ((uint32_t)link >= c->nchildren || l->open ||
        l->received < st->subtree_size[link])
        return;
    l->open = true;
    c->reported++;
}

/*
 * The member count a message brings, against what is known: only the
 * parent says it, always the same, and no entry known here lies beyond it.
 */
static int check_members(const flood_state_t *st, const flood_coll_t *c,
                         int link, const flood_msg_t *msg, char *why,
                         size_t whylen)
{
    if (msg->members == 0)
        return HNP_SUCCESS;
    if (st->nlinks == st->nchildren || (uint32_t)link != st->nchildren) {
        hnp_err_set(why, whylen, "a member count from a spawn child");
        return HNP_ERR_BAD_PARAM;
    }
    if (msg->members > st->nprocs)
        return HNP_ERR_NOT_AVAILABLE; /* not yet: held */
    if (c == NULL || c->members == msg->members)
        return HNP_SUCCESS;
    if (c->members > 0) {
        hnp_err_set(why, whylen, "all-gather %u has %u members, not %u",
                    msg->id, c->members, msg->members);
        return HNP_ERR_BAD_PARAM;
    }
    for (uint32_t i = 0; i < c->known; i++)
        if (c->log[i] >= msg->members) {
            hnp_err_set(why, whylen, "%u members, but vpid %u's entry is "
                        "here", msg->members, c->log[i]);
            return HNP_ERR_BAD_PARAM;
        }
    return HNP_SUCCESS;
}

/* Whether spawn child number @p link takes part in the all-gather whose
 * member children are the first @p nchildren: at the root, a daemon added
 * after the all-gather began there does not. */
static bool child_is_member(const flood_state_t *st, uint32_t nchildren,
                            int link)
{
    return (uint32_t)link >= st->nchildren || (uint32_t)link < nchildren;
}

/* The spawn children taking part in all-gather @p c, or in the one that
 * would begin now. */
static uint32_t member_children(const flood_state_t *st,
                                const flood_coll_t *c)
{
    if (c != NULL)
        return c->nchildren;
    return st->nlinks > st->nchildren ? st->nchildren
                                      : flood_member_children(st, st->members);
}

/* HNP_ERR_NOT_FOUND, with nothing in @p why, for a message of a process
 * that is not one of the all-gather's: not an error, it came too late.
 * HNP_ERR_NOT_AVAILABLE for one that names processes this one has not
 * heard of yet: it came early, and waits for the grow hook. */
static int check_message(flood_state_t *st, hnp_vpid_t src, const void *data,
                         size_t len, flood_msg_t *msg, int *link, char *why,
                         size_t whylen)
{
    int rc = parse_header(st, data, len, msg, why, whylen);
    const flood_coll_t *c;
    uint32_t nchildren;

    if (rc != HNP_SUCCESS)
        return rc;
    if ((*link = flood_link_index(st, src)) < 0) {
        hnp_err_set(why, whylen, "not a spawn-tree neighbour");
        return HNP_ERR_BAD_PARAM;
    }
    if (flood_id_is_recent(st, msg->id, &nchildren)) {
        if (!child_is_member(st, nchildren, *link))
            return HNP_ERR_NOT_FOUND;
        hnp_err_set(why, whylen, "all-gather %u is already complete here",
                    msg->id);
        return HNP_ERR_EXISTS;
    }
    c = flood_coll_find(st, msg->id);
    if (!child_is_member(st, member_children(st, c), *link))
        return HNP_ERR_NOT_FOUND;
    rc = check_members(st, c, *link, msg, why, whylen);
    if (rc == HNP_SUCCESS)
        rc = check_entries(st, c, src, msg, why, whylen);
    return rc;
}

/* What a message brings besides its entries: room for every vpid the
 * runtime has now, and the member count. */
static int take_members(const flood_state_t *st, flood_coll_t *c,
                        const flood_msg_t *msg)
{
    int rc = flood_coll_reserve(c, st->nprocs);

    if (rc == HNP_SUCCESS && msg->members > 0 && c->members == 0) {
        c->members = msg->members;
        HNP_VERBOSE(st->log, 5, "flood: all-gather %u at vpid %u counts %u "
                    "processes", c->id, st->self, c->members);
    }
    return rc;
}

/* Keep a message that came before the word of the growth it counts. */
static void hold(flood_state_t *st, hnp_vpid_t src, const void *data,
                 size_t len, const flood_msg_t *msg)
{
    flood_held_t *h, **tail = &st->held;

    if (st->nheld >= FLOOD_MAX_HELD || (h = malloc(sizeof(*h) + len)) == NULL) {
        HNP_WARN(st->log, "flood: message from vpid %u dropped: all-gather %u "
                 "has %u processes, this one knows %u and holds %u such "
                 "messages already", src, msg->id, msg->members, st->nprocs,
                 st->nheld);
        return;
    }
    *h = (flood_held_t){ .src = src, .len = len };
    memcpy(h->data, data, len);
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = h;
    st->nheld++;
    HNP_VERBOSE(st->log, 3, "flood: vpid %u holds a message of all-gather %u "
                "from vpid %u until it hears of its %u processes (it knows %u)",
                st->self, msg->id, src, msg->members, st->nprocs);
}

/* The held messages, taken in the order they came (@p replay), or
 * dropped. One still early is held again. */
void flood_release_held(flood_state_t *st, bool replay)
{
    flood_held_t *h = st->held;

    st->held = NULL;
    st->nheld = 0;
    while (h != NULL) {
        flood_held_t *next = h->next;
        if (replay)
            flood_on_entries(st->rte, h->src, FLOOD_TAG_ENTRIES, h->data,
                             h->len, st);
        free(h);
        h = next;
    }
}

/* The receive handler of FLOOD_TAG_ENTRIES. */
void flood_on_entries(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    flood_state_t *st = cbdata;
    flood_coll_t *c;
    flood_msg_t msg;
    char why[160] = "";
    int link = -1;
    int rc;

    (void)tag;
    if ((rc = flood_state_sync(st)) != HNP_SUCCESS) {
        HNP_ERROR_LOG(st->log, "flood: cannot take the runtime's growth (%s); "
                      "message from vpid %u dropped", hnp_strerror(rc), src);
        return;
    }
    rc = check_message(st, src, data, len, &msg, &link, why, sizeof(why));
    if (rc == HNP_ERR_NOT_FOUND) {
        HNP_VERBOSE(st->log, 2, "flood: vpid %u came after all-gather %u "
                    "began; its part is dropped", src, msg.id);
        return;
    }
    if (rc == HNP_ERR_NOT_AVAILABLE) {
        hold(st, src, data, len, &msg);
        return;
    }
    if (rc != HNP_SUCCESS) {
        HNP_WARN(st->log, "flood: message from vpid %u dropped: %s", src, why);
        return;
    }
    if (flood_coll_get(st, msg.id, &c) != HNP_SUCCESS ||
        take_members(st, c, &msg) != HNP_SUCCESS) {
        HNP_ERROR_LOG(st->log, "flood: out of memory for all-gather %u; "
                      "message from vpid %u dropped", msg.id, src);
        return;
    }
    if (!c->joined)
        hnp_rte_collective_seen(rte, msg.id);
    if (store_entries(c, src, link, &msg) != HNP_SUCCESS &&
        c->status == HNP_SUCCESS)
        c->status = HNP_ERR_NOMEM;
    note_report(st, c, link);
    c->dirty = true;
    flood_coll_deliver(c);
    /* Without a timer, forwarding now only costs batching, not correctness. */
    if (flood_schedule_flush(st) != HNP_SUCCESS)
        flood_flush_all(st);
}
