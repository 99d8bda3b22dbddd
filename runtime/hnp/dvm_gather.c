/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives across the jobs of a family (wire/gather.h): the HNP
 * matches the daemons' parts by their members (sorted, so that the order
 * each daemon names them in does not matter), counts the participants
 * each hosts against the members' count (a job's every rank counts its
 * size), and once they add up sends each of those daemons every part.
 * Two collectives over the same members complete in the order they
 * began: a daemon's part goes to the first that lacks it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dvm_server.h"
#include "hnp_buffer.h"
#include "wire/gather.h"

typedef struct part {
    hnp_vpid_t from;
    uint32_t reqid;
} part_t;

typedef struct across {
    struct across *next;
    uint32_t nmembers;
    hnp_wire_member_t *members;  /* sorted */
    uint32_t expected, counted;
    part_t *parts;
    uint32_t nparts, cap;
    hnp_buffer_t data;           /* every part's data, concatenated */
} across_t;

struct hnp_dvm_gathers {
    across_t *open;
};

static int compare_members(const void *a, const void *b)
{
    const hnp_wire_member_t *x = a, *y = b;

    if (x->jobid != y->jobid)
        return x->jobid < y->jobid ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void answer(hnp_dvm_t *dvm, const part_t *part, int status,
                   const void *data, size_t len)
{
    hnp_wire_gather_reply_t m = { .reqid = part->reqid, .status = status,
                                  .data = data, .len = len };
    hnp_buffer_t buf;

    hnp_buffer_init(&buf);
    if (hnp_wire_gather_reply_pack(&buf, &m) != HNP_SUCCESS ||
        hnp_rte_send(dvm->rte, part->from, HNP_TAG_GATHER_REPLY, buf.data,
                     buf.len) != HNP_SUCCESS)
        HNP_WARN(dvm->rte->log, "cannot answer vpid %u's part of a "
                 "collective across jobs", part->from);
    hnp_buffer_release(&buf);
}

static void across_free(across_t *a)
{
    free(a->members);
    free(a->parts);
    hnp_buffer_release(&a->data);
    free(a);
}

/* Every part answered with @p status (the data with success), and gone. */
static void finish(hnp_dvm_t *dvm, across_t *a, int status)
{
    for (across_t **at = &dvm->gathers->open; *at != NULL; at = &(*at)->next)
        if (*at == a) {
            *at = a->next;
            break;
        }
    if (status == HNP_SUCCESS)
        dvm_spawn_timing_gathered(dvm, a->members, a->nmembers);
    for (uint32_t i = 0; i < a->nparts; i++)
        answer(dvm, &a->parts[i], status,
               status == HNP_SUCCESS ? a->data.data : NULL,
               status == HNP_SUCCESS ? a->data.len : 0);
    across_free(a);
}

/* The participants @p m's members count; 0 if a job is not running. */
static uint32_t members_count(hnp_dvm_t *dvm, const hnp_wire_gather_t *m)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < m->nmembers; i++) {
        hnp_job_t *job = dvm_family_job(dvm, m->members[i].jobid);
        if (job == NULL || job->ending)
            return 0;
        if (m->members[i].rank == HNP_WIRE_ALL_RANKS)
            n += job->map.nprocs;
        else if (m->members[i].rank < job->map.nprocs)
            n++;
        else
            return 0;
    }
    return n > UINT32_MAX ? 0 : (uint32_t)n;
}

static bool from_already(const across_t *a, hnp_vpid_t from)
{
    for (uint32_t i = 0; i < a->nparts; i++)
        if (a->parts[i].from == from)
            return true;
    return false;
}

/* The open collective over @p m's (sorted) members that lacks @p from's
 * part, or a new one. */
static across_t *find_or_open(hnp_dvm_t *dvm, const hnp_wire_gather_t *m,
                              hnp_vpid_t from, uint32_t expected)
{
    across_t *a, **tail = &dvm->gathers->open;

    for (a = dvm->gathers->open; a != NULL; tail = &a->next, a = a->next)
        if (a->nmembers == m->nmembers &&
            memcmp(a->members, m->members,
                   m->nmembers * sizeof(*m->members)) == 0 &&
            !from_already(a, from))
            return a;
    if ((a = calloc(1, sizeof(*a))) == NULL ||
        (a->members = malloc(m->nmembers * sizeof(*a->members))) == NULL) {
        free(a);
        return NULL;
    }
    memcpy(a->members, m->members, m->nmembers * sizeof(*a->members));
    a->nmembers = m->nmembers;
    a->expected = expected;
    hnp_buffer_init(&a->data);
    *tail = a; /* in the order they began */
    return a;
}

static int add_part(across_t *a, hnp_vpid_t from, const hnp_wire_gather_t *m)
{
    if (a->nparts == a->cap) {
        uint32_t cap = a->cap ? 2 * a->cap : 8;
        part_t *grown = realloc(a->parts, cap * sizeof(*grown));
        if (grown == NULL)
            return HNP_ERR_NOMEM;
        a->parts = grown;
        a->cap = cap;
    }
    a->parts[a->nparts++] = (part_t){ from, m->reqid };
    a->counted += m->nlocal;
    hnp_pack_bytes(&a->data, m->data, m->len);
    return hnp_buffer_status(&a->data);
}

static void on_gather(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                      const void *data, size_t len, void *cbdata)
{
    hnp_dvm_t *dvm = cbdata;
    hnp_wire_gather_t m;
    uint32_t expected;
    across_t *a;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "part of a collective across jobs",
                        hnp_wire_gather_unpack, data, len, &m))
        return;
    qsort(m.members, m.nmembers, sizeof(*m.members), compare_members);
    expected = members_count(dvm, &m);
    if (expected == 0 || m.nlocal == 0) {
        part_t lone = { src, m.reqid };
        HNP_WARN(rte->log, "vpid %u's collective across jobs names a job "
                 "that is not running, or a rank it does not have", src);
        answer(dvm, &lone, HNP_ERR_NOT_FOUND, NULL, 0);
    } else if ((a = find_or_open(dvm, &m, src, expected)) == NULL ||
               add_part(a, src, &m) != HNP_SUCCESS) {
        part_t lone = { src, m.reqid };
        answer(dvm, &lone, HNP_ERR_NOMEM, NULL, 0);
    } else if (a->counted >= a->expected) {
        if (a->counted > a->expected)
            HNP_WARN(rte->log, "a collective across jobs counted %u "
                     "participants of %u", a->counted, a->expected);
        finish(dvm, a, a->counted == a->expected ? HNP_SUCCESS
                                                 : HNP_ERR_BAD_PARAM);
    }
    hnp_wire_gather_clear(&m);
}

int dvm_gather_listen(hnp_dvm_t *dvm)
{
    if ((dvm->gathers = calloc(1, sizeof(*dvm->gathers))) == NULL)
        return HNP_ERR_NOMEM;
    return hnp_rte_recv(dvm->rte, HNP_TAG_GATHER, on_gather, dvm);
}

void dvm_gather_job_ended(hnp_dvm_t *dvm, uint32_t jobid)
{
    across_t *a = dvm->gathers != NULL ? dvm->gathers->open : NULL;

    while (a != NULL) {
        across_t *next = a->next;
        bool names = false;
        for (uint32_t i = 0; i < a->nmembers && !names; i++)
            names = a->members[i].jobid == jobid;
        if (names)
            finish(dvm, a, HNP_ERR_UNREACHABLE);
        a = next;
    }
}

void dvm_gather_release(hnp_dvm_t *dvm)
{
    if (dvm->gathers == NULL)
        return;
    while (dvm->gathers->open != NULL) {
        across_t *a = dvm->gathers->open;
        dvm->gathers->open = a->next;
        across_free(a);
    }
    free(dvm->gathers);
    dvm->gathers = NULL;
}
