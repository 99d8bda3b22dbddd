/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Daemons that never called back: at plm_base_launch_timeout, the job ends
 * with one entry for each, saying how it was started and what its agent
 * printed last (a host key refused, a password prompt, ssh -v's last
 * words), which is what tells why. The HNP knows that of the daemons it
 * started itself; of those another daemon started (a tree launch), that
 * daemon tells it (HNP_TAG_SPAWN_NOTE, up the spawn tree), and the HNP
 * keeps the latest word.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_buffer.h"
#include "job.h"
#include "wire/failure.h"

/* What the HNP was told of one daemon still starting. */
struct hnp_spawn_note {
    char *command;
    char *output;
};

static void note_free(struct hnp_spawn_note *n)
{
    free(n->command);
    free(n->output);
    n->command = n->output = NULL;
}

/* Whether a note on @p vpid may come from spawn child @p src: the daemon
 * that starts @p vpid is @p src or below it. */
static bool note_from_its_branch(const hnp_rte_t *rte, hnp_vpid_t src,
                                 hnp_vpid_t vpid)
{
    if (vpid == 0 || vpid >= rte->nprocs)
        return false;
    for (hnp_vpid_t p = hnp_tree_parent(&rte->spawn_tree, vpid);
         p != 0 && p < rte->nprocs; p = hnp_tree_parent(&rte->spawn_tree, p))
        if (p == src)
            return true;
    return false;
}

static void on_spawn_note(hnp_rte_t *rte, hnp_vpid_t src, uint32_t tag,
                          const void *data, size_t len, void *cbdata)
{
    hnp_job_t *job = cbdata;
    hnp_wire_spawn_note_t note;

    (void)tag;
    if (!HNP_RTE_UNPACK(rte, src, "spawn note",
                        hnp_wire_spawn_note_unpack, data, len, &note))
        return;
    /* Only the branch that starts it speaks of a daemon. */
    if (!note_from_its_branch(rte, src, note.vpid)) {
        HNP_WARN(rte->log, "vpid %u sent a spawn note on vpid %u, which it "
                 "does not start; dropped", src, note.vpid);
        hnp_wire_spawn_note_clear(&note);
        return;
    }
    /* the daemons of the first launch (those added later are the HNP's
     * own spawn children, of which no daemon speaks) */
    if (note.vpid >= rte->nfirst ||
        (job->notes == NULL &&
         (job->notes = calloc(rte->nfirst, sizeof(*job->notes))) == NULL)) {
        hnp_wire_spawn_note_clear(&note);
        return;
    }
    note_free(&job->notes[note.vpid]);
    job->notes[note.vpid].command = note.command;
    job->notes[note.vpid].output = note.output;
    note.command = note.output = NULL;
    hnp_wire_spawn_note_clear(&note);
}

/* "    | line" for each line of @p text, or that it printed nothing. */
static void print_agent_lines(FILE *out, const char *text)
{
    if (text == NULL || text[0] == '\0') {
        fprintf(out, "\n    its agent printed nothing");
        return;
    }
    fprintf(out, "\n    its agent's last lines:");
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        int n = nl != NULL ? (int)(nl - line) : (int)strlen(line);
        fprintf(out, "\n    | %.*s", n, line);
        line = nl != NULL ? nl + 1 : NULL;
    }
}

/* One missing daemon: who started it, how, and what the agent said. */
static void describe_missing(const hnp_job_t *job, hnp_vpid_t v, FILE *out)
{
    hnp_rte_t *rte = job->rte;
    hnp_vpid_t parent = hnp_tree_parent(&rte->spawn_tree, v);
    const struct hnp_spawn_note *note =
        job->notes != NULL && job->notes[v].command != NULL ? &job->notes[v]
                                                            : NULL;
    const char *cmd = rte->launcher != NULL
                          ? hnp_launcher_command(rte->launcher, v) : NULL;
    char tail[LAUNCH_TAIL_BYTES] = "";

    fprintf(out, "\n  node %s (vpid %u)", hnp_rte_node_name(rte, v), v);
    if (cmd != NULL) { /* started here */
        hnp_launcher_output_tail(rte->launcher, v, tail, sizeof(tail));
        fprintf(out, ": command: %s", cmd);
        print_agent_lines(out, tail);
    } else if (note != NULL) {
        fprintf(out, ", started by node %s (vpid %u): command: %s",
                hnp_rte_node_name(rte, parent), parent, note->command);
        print_agent_lines(out, note->output);
    } else if (parent != 0 && parent < rte->nprocs &&
               job->up_at != NULL && job->up_at[parent] == 0) {
        fprintf(out, ": not started, its parent node %s (vpid %u) did not "
                "call back either", hnp_rte_node_name(rte, parent), parent);
    } else if (parent != 0 && parent < rte->nprocs) {
        fprintf(out, ", started by node %s (vpid %u), which sent no word "
                "of it", hnp_rte_node_name(rte, parent), parent);
    }
}

static void launch_timed_out(hnp_rte_t *rte, void *cbdata)
{
    hnp_job_t *job = cbdata;
    char *msg = NULL;
    size_t len = 0;
    FILE *out;

    hnp_rte_timer_destroy(job->launch_timer);
    job->launch_timer = NULL;
    out = open_memstream(&msg, &len);
    if (out == NULL) {
        hnp_job_abort(job, 1, "daemons did not call back in time");
        return;
    }
    fprintf(out, "%u of %u daemons did not call back within "
            "plm_base_launch_timeout (%g s):", job->ndaemons - job->known,
            job->ndaemons, rte->core->launch_timeout);
    for (hnp_vpid_t v = 1; v < rte->nfirst; v++)
        if (job->up_at == NULL || job->up_at[v] == 0)
            describe_missing(job, v, out);
    if (fclose(out) != 0 || msg == NULL)
        hnp_job_abort(job, 1, "daemons did not call back in time");
    else
        hnp_job_abort(job, 1, msg);
    free(msg);
}

void hnp_job_arm_launch_timer(hnp_job_t *job)
{
    double timeout = job->rte->core->launch_timeout;

    hnp_rte_recv(job->rte, HNP_TAG_SPAWN_NOTE, on_spawn_note, job);
    if (timeout > 0)
        job->launch_timer = hnp_rte_timer_create(job->rte, timeout,
                                                 launch_timed_out, job);
}

void hnp_job_notes_release(hnp_job_t *job)
{
    for (uint32_t v = 0; job->notes != NULL && v < job->rte->nfirst; v++)
        note_free(&job->notes[v]);
    free(job->notes);
    job->notes = NULL;
}
