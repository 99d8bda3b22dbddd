/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The name service of hnp_rte.h over the runtime's messages: a daemon's
 * hnp_rte_name_*() sends HNP_TAG_NAME to the HNP, which holds the names
 * (names_table.c) and answers with HNP_TAG_NAME_REPLY. A lookup that
 * waits is held at the HNP until every key it asks for is published (it
 * is answered then), its timeout passes or its job ends (answered "not
 * found" both). A job's end drops, at the HNP, the names it published
 * without persistence and, at a daemon, fails the job's requests still
 * waiting for an answer.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "names.h"
#include "rte.h"
#include "wire/auth.h"
#include "wire/name.h"

/* A request of this daemon's, waiting for its answer. */
typedef struct pending {
    struct pending *next;
    uint32_t id;
    uint32_t jobid;
    hnp_rte_names_fn fn;
    void *cbdata;
} pending_t;

/* A lookup held at the HNP until its names come. */
typedef struct waiter {
    struct waiter *next;
    hnp_rte_t *rte;
    hnp_vpid_t src;
    uint32_t id;
    uint32_t jobid;
    uint32_t family;
    size_t nkeys;
    char **keys;
    hnp_rte_timer_t *timer;
} waiter_t;

struct hnp_rte_names {
    hnp_names_t *table;       /* the HNP's */
    waiter_t *waiters;        /* the HNP's */
    pending_t *pending;       /* a daemon's */
    uint32_t next_id;
    bool listening;
};

/* ------------------------------------------------------------ the HNP */

static void send_answer(hnp_rte_t *rte, hnp_vpid_t dest, uint32_t id,
                        int status, const hnp_names_entry_t *found,
                        size_t count)
{
    hnp_wire_name_t m = { .id = id, .status = status };
    hnp_wire_name_entry_t *e = NULL;
    char (*job_names)[HNP_AUTH_JOB_NAME_LEN] = NULL;
    hnp_buffer_t buf;
    int rc;

    if (count > 0 && ((e = calloc(count, sizeof(*e))) == NULL ||
                      (job_names = calloc(count, sizeof(*job_names))) ==
                          NULL)) {
        status = HNP_ERR_NOMEM;
        count = 0;
        m.status = status;
    }
    for (size_t i = 0; i < count; i++) {
        if (found[i].key == NULL)
            continue;
        hnp_auth_job_name(rte->secret, found[i].jobid, job_names[m.count]);
        e[m.count] = (hnp_wire_name_entry_t){
            .key = (char *)found[i].key, .jobid = found[i].jobid,
            .rank = found[i].rank, .job_name = job_names[m.count],
            .value = found[i].value, .len = found[i].len };
        m.count++;
    }
    m.entries = e;
    HNP_VERBOSE(rte->log, 3, "name answer %u to vpid %u: %s, %u names", id,
                dest, hnp_strerror(status), m.count);
    hnp_buffer_init(&buf);
    rc = hnp_wire_name_reply_pack(&buf, &m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(rte, dest, HNP_TAG_NAME_REPLY, buf.data, buf.len);
    hnp_buffer_release(&buf);
    free(e);
    free(job_names);
    /* the rank must not wait for an answer that cannot go */
    if (rc != HNP_SUCCESS && count > 0)
        send_answer(rte, dest, id, rc, NULL, 0);
    else if (rc != HNP_SUCCESS)
        HNP_VERBOSE(rte->log, 1, "cannot answer name request %u of vpid %u: "
                    "%s", id, dest, hnp_strerror(rc));
}

static void waiter_free(waiter_t *w)
{
    for (size_t i = 0; i < w->nkeys; i++)
        free(w->keys[i]);
    free(w->keys);
    hnp_rte_timer_destroy(w->timer);
    free(w);
}

static void waiter_unlink(struct hnp_rte_names *n, waiter_t *w)
{
    for (waiter_t **p = &n->waiters; *p != NULL; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            return;
        }
}

static void waiter_timeout(hnp_rte_t *rte, void *cbdata)
{
    waiter_t *w = cbdata;

    HNP_VERBOSE(rte->log, 2, "name lookup %u of vpid %u (job %u) timed out",
                w->id, w->src, w->jobid);
    waiter_unlink(rte->names, w);
    send_answer(rte, w->src, w->id, HNP_ERR_NOT_FOUND, NULL, 0);
    waiter_free(w);
}

/* Answer the waiting lookups that every key of is there now. */
static void wake_waiters(hnp_rte_t *rte)
{
    struct hnp_rte_names *n = rte->names;
    waiter_t **p = &n->waiters;

    while (*p != NULL) {
        waiter_t *w = *p;
        hnp_names_entry_t *found = calloc(w->nkeys, sizeof(*found));
        if (found == NULL ||
            hnp_names_lookup(n->table, w->family,
                             (const char *const *)w->keys, w->nkeys,
                             found) < w->nkeys) {
            free(found);
            p = &w->next;
            continue;
        }
        *p = w->next;
        send_answer(rte, w->src, w->id, HNP_SUCCESS, found, w->nkeys);
        free(found);
        waiter_free(w);
    }
}

static int hold_lookup(hnp_rte_t *rte, hnp_vpid_t src,
                       const hnp_wire_name_t *m, uint32_t family)
{
    waiter_t *w = calloc(1, sizeof(*w));

    if (w == NULL || (w->keys = calloc(m->count, sizeof(char *))) == NULL)
        goto nomem;
    *w = (waiter_t){ .rte = rte, .src = src, .id = m->id, .jobid = m->jobid,
                     .family = family, .keys = w->keys };
    for (; w->nkeys < m->count; w->nkeys++)
        if ((w->keys[w->nkeys] = strdup(m->entries[w->nkeys].key)) == NULL)
            goto nomem;
    if (m->timeout_ms > 0 &&
        (w->timer = hnp_rte_timer_create(rte, m->timeout_ms / 1000.0,
                                         waiter_timeout, w)) == NULL)
        goto nomem;
    w->next = rte->names->waiters;
    rte->names->waiters = w;
    return HNP_SUCCESS;
nomem:
    if (w != NULL)
        waiter_free(w);
    return HNP_ERR_NOMEM;
}

static void serve_lookup(hnp_rte_t *rte, hnp_vpid_t src,
                         const hnp_wire_name_t *m, uint32_t family)
{
    hnp_names_entry_t *found = calloc(m->count, sizeof(*found));
    const char **keys = calloc(m->count, sizeof(*keys));
    size_t nfound = 0;
    int rc = HNP_SUCCESS;

    if (found == NULL || keys == NULL) {
        rc = HNP_ERR_NOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < m->count; i++)
        keys[i] = m->entries[i].key;
    nfound = hnp_names_lookup(rte->names->table, family, keys, m->count,
                              found);
    if (nfound < m->count && (m->flags & HNP_RTE_NAME_WAIT) != 0) {
        rc = hold_lookup(rte, src, m, family);
        if (rc == HNP_SUCCESS)
            goto out; /* answered later */
    } else if (nfound == 0) {
        rc = HNP_ERR_NOT_FOUND;
    }
done:
    send_answer(rte, src, m->id, rc, rc == HNP_SUCCESS ? found : NULL,
                rc == HNP_SUCCESS ? m->count : 0);
out:
    free(found);
    free(keys);
}

static int serve_publish(hnp_rte_t *rte, const hnp_wire_name_t *m,
                         uint32_t scope)
{
    hnp_names_put_t *puts = calloc(m->count, sizeof(*puts));
    int rc;

    if (puts == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < m->count; i++)
        puts[i] = (hnp_names_put_t){ .key = m->entries[i].key,
                                     .value = m->entries[i].value,
                                     .len = m->entries[i].len };
    rc = hnp_names_publish(rte->names->table, scope, m->jobid, m->rank, puts,
                           m->count, (m->flags & HNP_RTE_NAME_PERSIST) != 0);
    free(puts);
    return rc;
}

static int serve_unpublish(hnp_rte_t *rte, const hnp_wire_name_t *m,
                           uint32_t family)
{
    const char **keys = m->count > 0 ? calloc(m->count, sizeof(*keys)) : NULL;
    int rc;

    if (m->count > 0 && keys == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < m->count; i++)
        keys[i] = m->entries[i].key;
    rc = hnp_names_unpublish(rte->names->table, family, m->jobid, m->rank,
                             keys, m->count);
    free(keys);
    return rc;
}

static void on_name_request(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                            const void *data, size_t len, void *cbdata)
{
    hnp_wire_name_t m;
    uint32_t family;
    bool session;
    int rc;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "name request",
                        hnp_wire_name_request_unpack, data, len, &m))
        return;
    session = (m.flags & HNP_RTE_NAME_SESSION) != 0 ||
              rte->core->name_scope == HNP_NAME_SCOPE_SESSION;
    family = session ? 0 : hnp_names_family(rte->names->table, m.jobid);
    HNP_VERBOSE(rte->log, 2, "name request %u (op %u, %u keys, first %s) "
                "from rank %u of job %u", m.id, m.op, m.count,
                m.count > 0 ? m.entries[0].key : "-", m.rank, m.jobid);
    if (m.op == HNP_WIRE_NAME_LOOKUP) {
        serve_lookup(rte, src, &m, family);
    } else {
        rc = m.op == HNP_WIRE_NAME_PUBLISH ? serve_publish(rte, &m, family)
                                           : serve_unpublish(rte, &m, family);
        send_answer(rte, src, m.id, rc, NULL, 0);
        if (m.op == HNP_WIRE_NAME_PUBLISH && rc == HNP_SUCCESS)
            wake_waiters(rte);
    }
    hnp_wire_name_clear(&m);
}

int hnp_rte_names_job_family(hnp_rte_t *rte, uint32_t jobid, uint32_t parent)
{
    if (rte->names == NULL || rte->names->table == NULL)
        return HNP_ERR_BAD_PARAM;
    return hnp_names_set_family(rte->names->table, jobid, parent);
}

/* ------------------------------------------------------------ a daemon */

static void on_name_reply(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                          const void *data, size_t len, void *cbdata)
{
    struct hnp_rte_names *n = rte->names;
    hnp_wire_name_t m;
    hnp_rte_name_t *names = NULL;
    pending_t *p = NULL;

    (void)tag;
    (void)cbdata;
    if (!HNP_RTE_UNPACK(rte, src, "name answer",
                        hnp_wire_name_reply_unpack, data, len, &m))
        return;
    for (pending_t **q = &n->pending; *q != NULL; q = &(*q)->next)
        if ((*q)->id == m.id) {
            p = *q;
            *q = p->next;
            break;
        }
    HNP_VERBOSE(rte->log, 3, "name answer %u: %s, %u names", m.id,
                hnp_strerror(m.status), m.count);
    if (p == NULL) {
        HNP_VERBOSE(rte->log, 2, "name answer %u: nobody waits for it", m.id);
        hnp_wire_name_clear(&m);
        return;
    }
    if (m.count > 0 && (names = calloc(m.count, sizeof(*names))) == NULL)
        m.status = HNP_ERR_NOMEM;
    for (uint32_t i = 0; names != NULL && i < m.count; i++)
        names[i] = (hnp_rte_name_t){ .key = m.entries[i].key,
                                     .value = m.entries[i].value,
                                     .len = m.entries[i].len,
                                     .jobid = m.entries[i].jobid,
                                     .rank = m.entries[i].rank,
                                     .job_name = m.entries[i].job_name };
    p->fn(rte, m.status, names, names != NULL ? m.count : 0, p->cbdata);
    free(names);
    free(p);
    hnp_wire_name_clear(&m);
}

static int listen_names(hnp_rte_t *rte)
{
    int rc;

    if (rte->names->listening)
        return HNP_SUCCESS;
    rc = rte->is_hnp
             ? hnp_rte_recv(rte, HNP_TAG_NAME, on_name_request, NULL)
             : hnp_rte_recv(rte, HNP_TAG_NAME_REPLY, on_name_reply, NULL);
    rte->names->listening = rc == HNP_SUCCESS;
    return rc;
}

static int ask(hnp_rte_t *rte, hnp_wire_name_t *m, hnp_rte_names_fn fn,
               void *cbdata)
{
    struct hnp_rte_names *n = rte->names;
    hnp_buffer_t buf;
    pending_t *p;
    int rc;

    if (rte->is_hnp || fn == NULL || hnp_rte_job_host(rte, m->jobid, m->rank)
                                         != rte->self)
        return HNP_ERR_BAD_PARAM;
    if ((rc = listen_names(rte)) != HNP_SUCCESS)
        return rc;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return HNP_ERR_NOMEM;
    m->id = ++n->next_id;
    hnp_buffer_init(&buf);
    rc = hnp_wire_name_request_pack(&buf, m);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_send(rte, 0, HNP_TAG_NAME, buf.data, buf.len);
    hnp_buffer_release(&buf);
    if (rc != HNP_SUCCESS) {
        free(p);
        return rc;
    }
    *p = (pending_t){ .next = n->pending, .id = m->id, .jobid = m->jobid,
                      .fn = fn, .cbdata = cbdata };
    n->pending = p;
    return HNP_SUCCESS;
}

static bool key_ok(const char *key)
{
    return key != NULL && key[0] != '\0' &&
           strlen(key) <= HNP_WIRE_NAME_KEY_MAX;
}

/* The wire entries of @p count keys (and values, @p names not NULL). */
static hnp_wire_name_entry_t *entries_of(const hnp_rte_name_t *names,
                                         const char *const *keys,
                                         size_t count)
{
    hnp_wire_name_entry_t *e;

    if (count > UINT32_MAX || (e = calloc(count + 1, sizeof(*e))) == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        const char *key = names != NULL ? names[i].key : keys[i];
        if (!key_ok(key) ||
            (names != NULL && names[i].len > 0 && names[i].value == NULL)) {
            free(e);
            return NULL;
        }
        e[i].key = (char *)key;
        if (names != NULL) {
            e[i].value = names[i].value;
            e[i].len = names[i].len;
        }
    }
    return e;
}

static int request(hnp_rte_t *rte, uint8_t op, uint32_t jobid, uint32_t rank,
                   const hnp_rte_name_t *names, const char *const *keys,
                   size_t count, unsigned flags, double timeout,
                   hnp_rte_names_fn fn, void *cbdata)
{
    hnp_wire_name_t m = { .op = op, .jobid = jobid, .rank = rank,
                          .flags = flags, .count = (uint32_t)count };
    int rc;

    if (rte == NULL || timeout < 0 || timeout > 4e6 ||
        (count > 0 && names == NULL && keys == NULL))
        return HNP_ERR_BAD_PARAM;
    m.timeout_ms = (uint32_t)(timeout * 1000.0);
    if (timeout > 0 && m.timeout_ms == 0)
        m.timeout_ms = 1;
    if ((m.entries = entries_of(names, keys, count)) == NULL)
        return HNP_ERR_BAD_PARAM;
    rc = ask(rte, &m, fn, cbdata);
    free(m.entries);
    return rc;
}

int hnp_rte_name_publish(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                         const hnp_rte_name_t *names, size_t count,
                         unsigned flags, hnp_rte_names_fn fn, void *cbdata)
{
    if (count == 0 || names == NULL)
        return HNP_ERR_BAD_PARAM;
    return request(rte, HNP_WIRE_NAME_PUBLISH, jobid, rank, names, NULL,
                   count, flags & ~HNP_RTE_NAME_WAIT, 0, fn, cbdata);
}

int hnp_rte_name_lookup(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                        const char *const *keys, size_t count, unsigned flags,
                        double timeout, hnp_rte_names_fn fn, void *cbdata)
{
    if (count == 0 || keys == NULL)
        return HNP_ERR_BAD_PARAM;
    return request(rte, HNP_WIRE_NAME_LOOKUP, jobid, rank, NULL, keys, count,
                   flags & ~HNP_RTE_NAME_PERSIST, timeout, fn, cbdata);
}

int hnp_rte_name_unpublish(hnp_rte_t *rte, uint32_t jobid, uint32_t rank,
                           const char *const *keys, size_t count,
                           unsigned flags, hnp_rte_names_fn fn, void *cbdata)
{
    return request(rte, HNP_WIRE_NAME_UNPUBLISH, jobid, rank, NULL, keys,
                   count, flags & HNP_RTE_NAME_SESSION, 0, fn, cbdata);
}

/* ------------------------------------------------------------ both */

void hnp_rte_names_job_end(hnp_rte_t *rte, uint32_t jobid)
{
    struct hnp_rte_names *n = rte->names;
    pending_t *p;

    if (n == NULL)
        return;
    if (n->table != NULL) {
        waiter_t **w = &n->waiters;
        while (*w != NULL) {
            waiter_t *gone = *w;
            if (gone->jobid != jobid) {
                w = &gone->next;
                continue;
            }
            *w = gone->next;
            send_answer(rte, gone->src, gone->id, HNP_ERR_NOT_FOUND, NULL, 0);
            waiter_free(gone);
        }
        hnp_names_job_end(n->table, jobid);
        return;
    }
    /* a daemon: the job's requests still waiting fail now */
    for (pending_t **q = &n->pending; *q != NULL;) {
        p = *q;
        if (p->jobid != jobid) {
            q = &p->next;
            continue;
        }
        *q = p->next;
        p->fn(rte, HNP_ERR_UNREACHABLE, NULL, 0, p->cbdata);
        free(p);
        q = &n->pending; /* the callback may have asked again */
    }
}

int hnp_rte_names_create(hnp_rte_t *rte)
{
    struct hnp_rte_names *n = calloc(1, sizeof(*n));

    if (n == NULL)
        return HNP_ERR_NOMEM;
    rte->names = n;
    if (rte->is_hnp &&
        (hnp_names_create(&n->table) != HNP_SUCCESS ||
         listen_names(rte) != HNP_SUCCESS)) {
        hnp_rte_names_destroy(rte);
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

void hnp_rte_names_destroy(hnp_rte_t *rte)
{
    struct hnp_rte_names *n = rte->names;

    if (n == NULL)
        return;
    while (n->waiters != NULL) {
        waiter_t *w = n->waiters;
        n->waiters = w->next;
        waiter_free(w);
    }
    while (n->pending != NULL) {
        pending_t *p = n->pending;
        n->pending = p->next;
        free(p);
    }
    hnp_names_destroy(n->table);
    free(n);
    rte->names = NULL;
}
