/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A daemon's word to the HNP on the children it is still starting
 * (HNP_TAG_SPAWN_NOTE, wire/failure.h): the agent's command line and its
 * last lines of output. The HNP starts only its own children; those a
 * daemon starts (a tree launch) it would otherwise know nothing of, and its
 * launch-timeout message could say neither how such a daemon was started
 * nor what its agent complained of (a host key refused, a password prompt).
 *
 * Nothing is sent while the children come up in time, which is the usual
 * case: the first look is after half of plm_base_launch_timeout, and only
 * the children still missing then are described. From then on, whatever
 * such a child's agent prints is sent again, a little later, so that the
 * HNP holds its latest words when it gives up. A note goes up the spawn
 * tree, each daemon passing it on to its own spawn parent, over the
 * connections phase 1 made: however many daemons are slow, the HNP opens
 * no connection for them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "rte.h"
#include "wire/failure.h"

/* Output that keeps coming is sent at most this often a child. */
#define NOTE_RESEND_DELAY 0.25

struct hnp_rte_spawn_notes {
    hnp_rte_timer_t *first;  /* the first look */
    hnp_rte_timer_t *again;  /* new output to send */
    bool looked;             /* the first look was taken */
    bool *changed;           /* [nprocs]: its agent printed since */
};

static void send_note(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    char output[LAUNCH_TAIL_BYTES];
    hnp_wire_spawn_note_t note = {
        .vpid = vpid,
        .command = (char *)hnp_launcher_command(rte->launcher, vpid),
        .output = output,
    };
    hnp_buffer_t buf;

    hnp_launcher_output_tail(rte->launcher, vpid, output, sizeof(output));
    hnp_buffer_init(&buf);
    if (hnp_wire_spawn_note_pack(&buf, &note) == HNP_SUCCESS &&
        hnp_rte_send_direct(rte, hnp_tree_parent(&rte->spawn_tree, rte->self),
                            HNP_TAG_SPAWN_NOTE, buf.data, buf.len) ==
            HNP_SUCCESS)
        HNP_VERBOSE(rte->log, 5, "told the HNP how vpid %u is being "
                    "started", vpid);
    hnp_buffer_release(&buf);
}

/* Every spawn child still missing (@p only_changed: whose agent printed
 * something since the last note). */
static void send_notes(hnp_rte_t *rte, bool only_changed)
{
    hnp_rte_spawn_notes_t *n = rte->spawn_notes;
    uint32_t count = hnp_rte_spawn_children(rte, NULL, 0);
    hnp_vpid_t *kids;

    if (count == 0 || rte->closing ||
        (kids = malloc(count * sizeof(*kids))) == NULL)
        return;
    hnp_rte_spawn_children(rte, kids, count);
    for (uint32_t i = 0; i < count; i++) {
        hnp_vpid_t v = kids[i];
        bool changed = v < rte->nprocs && n->changed[v];
        if (v < rte->nprocs)
            n->changed[v] = false;
        if ((changed || !only_changed) &&
            hnp_launcher_awaiting(rte->launcher, v))
            send_note(rte, v);
    }
    free(kids);
}

static void first_look(hnp_rte_t *rte, void *cbdata)
{
    hnp_rte_spawn_notes_t *n = cbdata;

    hnp_rte_timer_destroy(n->first);
    n->first = NULL;
    n->looked = true;
    send_notes(rte, false);
}

static void look_again(hnp_rte_t *rte, void *cbdata)
{
    hnp_rte_spawn_notes_t *n = cbdata;

    hnp_rte_timer_destroy(n->again);
    n->again = NULL;
    send_notes(rte, true);
}

/* A note from a spawn child, on one of its own children: on its way to
 * the HNP. */
static void pass_note_on(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                         const void *data, size_t len, void *cbdata)
{
    (void)cbdata;
    if (hnp_tree_parent(&rte->spawn_tree, src) != rte->self) {
        HNP_WARN(rte->log, "spawn note from vpid %u, not a child of this "
                 "daemon, dropped", src);
        return;
    }
    hnp_rte_send_direct(rte, hnp_tree_parent(&rte->spawn_tree, rte->self),
                        tag, data, len);
}

int hnp_rte_spawn_notes_relay(hnp_rte_t *rte)
{
    return hnp_rte_recv(rte, HNP_TAG_SPAWN_NOTE, pass_note_on, NULL);
}

void hnp_rte_spawn_notes_arm(hnp_rte_t *rte)
{
    const hnp_core_params_t *core = rte->core;
    double delay = core->launch_timeout / 2;
    hnp_rte_spawn_notes_t *n;

    if (rte->is_hnp || rte->spawn_notes != NULL || core->launch_timeout <= 0)
        return;
    n = calloc(1, sizeof(*n));
    if (n == NULL || (n->changed = calloc(rte->nprocs, sizeof(bool))) == NULL ||
        (n->first = hnp_rte_timer_create(rte, delay, first_look, n)) == NULL) {
        if (n != NULL)
            free(n->changed);
        free(n);
        return; /* only the HNP's message is poorer for it */
    }
    rte->spawn_notes = n;
}

void hnp_rte_spawn_notes_printed(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    hnp_rte_spawn_notes_t *n = rte->spawn_notes;

    if (n == NULL || !n->looked || vpid >= rte->nprocs || rte->closing)
        return;
    n->changed[vpid] = true;
    if (n->again == NULL)
        n->again = hnp_rte_timer_create(rte, NOTE_RESEND_DELAY, look_again, n);
}

int hnp_rte_spawn_notes_grow(hnp_rte_t *rte, uint32_t nprocs)
{
    hnp_rte_spawn_notes_t *n = rte->spawn_notes;
    bool *changed;

    if (n == NULL)
        return HNP_SUCCESS;
    changed = realloc(n->changed, nprocs * sizeof(*changed));
    if (changed == NULL)
        return HNP_ERR_NOMEM;
    memset(changed + rte->nprocs, 0, (nprocs - rte->nprocs) * sizeof(bool));
    n->changed = changed;
    return HNP_SUCCESS;
}

void hnp_rte_spawn_notes_stop(hnp_rte_t *rte)
{
    hnp_rte_spawn_notes_t *n = rte->spawn_notes;

    if (n == NULL)
        return;
    hnp_rte_timer_destroy(n->first);
    hnp_rte_timer_destroy(n->again);
    free(n->changed);
    free(n);
    rte->spawn_notes = NULL;
}
