/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The codec of every runtime message as test_messages.c drives it: its
 * pack, unpack and clear, and what "equal" means for its struct.
 */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "message_codecs.h"

#include "codec_check.h"
#include "hnp_buffer.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "control.h"
#include "dvm.h"
#include "failure.h"
#include "iof.h"
#include "join.h"
#include "launch.h"
#include "name.h"
#include "pmi_abort.h"
#include "proc_exit.h"
#include "report.h"
#include "request.h"
#include "spawn.h"
#include "gather.h"
#include "state.h"
#include "stats.h"
#include "stdin.h"
#include "roster.h"
#include "welcome.h"
#include "xcast.h"

/* ------------------------------------------------------------ the codecs */

static bool equal_join(const void *a, const void *b)
{
    const hnp_wire_join_t *x = a, *y = b;

    return same_string(x->uri, y->uri) && x->pid == y->pid;
}

static bool equal_roster(const void *a, const void *b)
{
    const hnp_wire_roster_t *x = a, *y = b;

    if (x->nprocs != y->nprocs || x->count != y->count)
        return false;
    for (uint32_t i = 0; i < x->count; i++)
        if (x->entries[i].vpid != y->entries[i].vpid ||
            !same_string(x->entries[i].node, y->entries[i].node) ||
            !same_string(x->entries[i].uri, y->entries[i].uri))
            return false;
    return true;
}

static bool equal_daemon_up(const void *a, const void *b)
{
    const hnp_wire_daemon_up_t *x = a, *y = b;

    return x->vpid == y->vpid;
}

static bool equal_welcome(const void *a, const void *b)
{
    const hnp_wire_welcome_t *x = a, *y = b;

    if (x->nprocs != y->nprocs || x->nfirst != y->nfirst ||
        !same_string(x->hnp_uri, y->hnp_uri) ||
        !same_bytes(x->params, x->params_len, y->params, y->params_len) ||
        x->nsubtree != y->nsubtree)
        return false;
    for (int i = 0; i < HNP_WIRE_WELCOME_NCOMPONENTS; i++)
        if (!same_string(x->components[i], y->components[i]))
            return false;
    for (uint32_t i = 0; i < x->nsubtree; i++)
        if (x->subtree[i].vpid != y->subtree[i].vpid ||
            !same_string(x->subtree[i].name, y->subtree[i].name))
            return false;
    return true;
}

static bool equal_xcast(const void *a, const void *b)
{
    const hnp_wire_xcast_t *x = a, *y = b;

    return x->tag == y->tag && same_bytes(x->data, x->len, y->data, y->len);
}

static bool same_placement(const hnp_wire_placement_t *x,
                           const hnp_wire_placement_t *y)
{
    return x->map_obj == y->map_obj && x->span == y->span &&
           x->ppr == y->ppr && x->pe == y->pe && x->bind_obj == y->bind_obj &&
           x->flags == y->flags && same_string(x->cpu_list, y->cpu_list) &&
           x->nspecs == y->nspecs && same_strings(x->specs, y->specs, x->nspecs);
}

static bool equal_launch(const void *a, const void *b)
{
    const hnp_wire_launch_t *x = a, *y = b;

    if (x->jobid != y->jobid || x->nprocs != y->nprocs ||
        x->nnodes != y->nnodes || !same_placement(&x->place, &y->place) ||
        x->stdin_target != y->stdin_target ||
        x->output != y->output || x->napps != y->napps ||
        x->universe_size != y->universe_size ||
        !same_string(x->pmi, y->pmi) ||
        x->parent_jobid != y->parent_jobid ||
        !same_string(x->spawn_component, y->spawn_component) ||
        !same_bytes(x->spawn_data, x->spawn_data_len, y->spawn_data,
                    y->spawn_data_len) ||
        !same_strings(x->node_names, y->node_names, x->nnodes))
        return false;
    for (uint32_t r = 0; r < x->nprocs; r++)
        if (x->node_of[r] != y->node_of[r])
            return false;
    for (uint32_t n = 0; n < x->nnodes; n++)
        if (x->node_slots[n] != y->node_slots[n])
            return false;
    for (uint32_t i = 0; i < x->napps; i++) {
        const hnp_wire_launch_app_t *p = &x->apps[i], *q = &y->apps[i];
        if (p->first_rank != q->first_rank || p->np != q->np ||
            p->argc != q->argc || !same_strings(p->argv, q->argv, p->argc) ||
            !same_string(p->wdir, q->wdir) || p->nenv != q->nenv ||
            !same_strings(p->env, q->env, p->nenv))
            return false;
    }
    return true;
}

static bool equal_signal(const void *a, const void *b)
{
    const hnp_wire_signal_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->signo == y->signo;
}

static bool equal_kill_daemon(const void *a, const void *b)
{
    const hnp_wire_kill_daemon_t *x = a, *y = b;

    return x->vpid == y->vpid;
}

static bool equal_shutdown(const void *a, const void *b)
{
    const hnp_wire_shutdown_t *x = a, *y = b;

    return x->now == y->now;
}

static bool equal_procs_started(const void *a, const void *b)
{
    const hnp_wire_procs_started_t *x = a, *y = b;

    return x->jobid == y->jobid;
}

static bool equal_job_end(const void *a, const void *b)
{
    const hnp_wire_job_end_t *x = a, *y = b;

    return x->jobid == y->jobid && x->now == y->now;
}

static bool equal_collective(const void *a, const void *b)
{
    const hnp_wire_collective_t *x = a, *y = b;

    return x->id == y->id;
}

static bool equal_dvm_request(const void *a, const void *b)
{
    const hnp_wire_dvm_request_t *x = a, *y = b;

    return x->kind == y->kind && x->flags == y->flags &&
           x->signo == y->signo && x->argc == y->argc &&
           same_strings(x->argv, y->argv, x->argc) &&
           same_string(x->cwd, y->cwd) && x->nenv == y->nenv &&
           same_strings(x->env, y->env, x->nenv) && x->nmca == y->nmca &&
           same_strings(x->mca, y->mca, 2 * x->nmca);
}

static bool equal_dvm_reply(const void *a, const void *b)
{
    const hnp_wire_dvm_reply_t *x = a, *y = b;

    return x->kind == y->kind && x->jobid == y->jobid &&
           x->status == y->status && same_string(x->text, y->text);
}

static bool equal_iof(const void *a, const void *b)
{
    const hnp_wire_iof_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->rank == y->rank && x->stream == y->stream &&
           x->flags == y->flags && x->read_us == y->read_us &&
           same_bytes(x->data, x->len, y->data, y->len);
}

static bool equal_iof_ack(const void *a, const void *b)
{
    const hnp_wire_iof_ack_t *x = a, *y = b;

    return x->bytes == y->bytes;
}

static bool equal_request(const void *a, const void *b)
{
    const hnp_wire_request_t *x = a, *y = b;

    return x->id == y->id && x->service == y->service &&
           x->rank == y->rank && same_bytes(x->data, x->len, y->data, y->len);
}

static bool equal_reply(const void *a, const void *b)
{
    const hnp_wire_reply_t *x = a, *y = b;

    return x->id == y->id && x->status == y->status &&
           same_bytes(x->data, x->len, y->data, y->len);
}

static bool equal_state_request(const void *a, const void *b)
{
    const hnp_wire_state_request_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->flags == y->flags && x->stack_ms == y->stack_ms;
}

static bool equal_state_reply(const void *a, const void *b)
{
    const hnp_wire_state_reply_t *x = a, *y = b;

    if (x->jobid != y->jobid)
        return false;
    if (x->nranks != y->nranks)
        return false;
    for (uint32_t i = 0; i < x->nranks; i++) {
        const hnp_wire_rank_state_t *p = &x->ranks[i], *q = &y->ranks[i];
        if (p->rank != q->rank || p->pid != q->pid || p->state != q->state ||
            p->wait_status != q->wait_status ||
            !same_string(p->stack, q->stack))
            return false;
    }
    return true;
}

static bool equal_proc_exit(const void *a, const void *b)
{
    const hnp_wire_proc_exit_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->rank == y->rank && x->pid == y->pid &&
           x->wait_status == y->wait_status &&
           x->exec_errno == y->exec_errno && same_string(x->why, y->why);
}

static bool equal_stdin(const void *a, const void *b)
{
    const hnp_wire_stdin_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->seq == y->seq && x->eof == y->eof &&
           same_bytes(x->data, x->len, y->data, y->len);
}

static bool equal_stdin_ack(const void *a, const void *b)
{
    const hnp_wire_stdin_ack_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->seq == y->seq;
}

static bool equal_report(const void *a, const void *b)
{
    const hnp_wire_report_t *x = a, *y = b;

    return x->severity == y->severity && same_string(x->stream, y->stream) &&
           same_string(x->line, y->line);
}

static bool equal_failure(const void *a, const void *b)
{
    const hnp_wire_failure_t *x = a, *y = b;

    return x->jobid == y->jobid && x->status == y->status &&
           same_string(x->message, y->message);
}

static bool equal_peer_lost(const void *a, const void *b)
{
    const hnp_wire_peer_lost_t *x = a, *y = b;

    return x->vpid == y->vpid && same_string(x->why, y->why);
}

static bool equal_spawn_note(const void *a, const void *b)
{
    const hnp_wire_spawn_note_t *x = a, *y = b;

    return x->vpid == y->vpid && same_string(x->command, y->command) &&
           same_string(x->output, y->output);
}

static bool equal_pmi_abort(const void *a, const void *b)
{
    const hnp_wire_pmi_abort_t *x = a, *y = b;

    return x->jobid == y->jobid &&
           x->rank == y->rank && x->code == y->code &&
           same_string(x->words, y->words);
}

static bool equal_stats(const void *a, const void *b)
{
    const hnp_wire_stats_t *x = a, *y = b;

    return x->max_connections == y->max_connections &&
           x->startup_cpu_us == y->startup_cpu_us &&
           x->startup_rss_kb == y->startup_rss_kb &&
           x->total_cpu_us == y->total_cpu_us &&
           x->peak_rss_kb == y->peak_rss_kb &&
           x->connected_cpu_us == y->connected_cpu_us &&
           x->pmi_cpu_us == y->pmi_cpu_us &&
           x->handshake_cpu_us == y->handshake_cpu_us &&
           x->handshakes == y->handshakes &&
           x->pmi_early_cpu_us == y->pmi_early_cpu_us;
}

static bool equal_spawn_app(const hnp_wire_spawn_app_t *x,
                            const hnp_wire_spawn_app_t *y)
{
    return same_string(x->cmd, y->cmd) && x->argc == y->argc &&
           same_strings(x->argv, y->argv, x->argc) && x->nenv == y->nenv &&
           same_strings(x->env, y->env, x->nenv) &&
           x->maxprocs == y->maxprocs && same_string(x->hosts, y->hosts) &&
           same_string(x->hostfile, y->hostfile) &&
           same_string(x->add_hosts, y->add_hosts) &&
           same_string(x->add_hostfile, y->add_hostfile) &&
           same_string(x->wdir, y->wdir) && same_string(x->path, y->path) &&
           same_string(x->prefix, y->prefix);
}

static bool equal_spawn_request(const void *a, const void *b)
{
    const hnp_wire_spawn_request_t *x = a, *y = b;
    bool same = x->reqid == y->reqid && x->parent_jobid == y->parent_jobid &&
                x->parent_rank == y->parent_rank &&
                same_string(x->parent_wdir, y->parent_wdir) &&
                same_string(x->map_by, y->map_by) &&
                same_string(x->rank_by, y->rank_by) &&
                same_string(x->bind_to, y->bind_to) &&
                same_string(x->ppr, y->ppr) &&
                x->display_map == y->display_map &&
                same_string(x->component, y->component) &&
                same_bytes(x->data, x->data_len, y->data, y->data_len) &&
                x->napps == y->napps;

    for (uint32_t i = 0; same && i < x->napps; i++)
        same = equal_spawn_app(&x->apps[i], &y->apps[i]);
    return same;
}

static bool equal_spawn_reply(const void *a, const void *b)
{
    const hnp_wire_spawn_reply_t *x = a, *y = b;

    return x->reqid == y->reqid && x->status == y->status &&
           x->jobid == y->jobid && same_string(x->name, y->name) &&
           same_string(x->err, y->err);
}

static bool equal_gather(const void *a, const void *b)
{
    const hnp_wire_gather_t *x = a, *y = b;
    bool same = x->reqid == y->reqid && x->nmembers == y->nmembers &&
                x->nlocal == y->nlocal &&
                same_bytes(x->data, x->len, y->data, y->len);

    for (uint32_t i = 0; same && i < x->nmembers; i++)
        same = x->members[i].jobid == y->members[i].jobid &&
               x->members[i].rank == y->members[i].rank;
    return same;
}

static bool equal_gather_reply(const void *a, const void *b)
{
    const hnp_wire_gather_reply_t *x = a, *y = b;

    return x->reqid == y->reqid && x->status == y->status &&
           same_bytes(x->data, x->len, y->data, y->len);
}

static bool equal_name_entries(const hnp_wire_name_t *x,
                               const hnp_wire_name_t *y, bool answer)
{
    if (x->count != y->count)
        return false;
    for (uint32_t i = 0; i < x->count; i++) {
        const hnp_wire_name_entry_t *a = &x->entries[i], *b = &y->entries[i];
        if (!same_string(a->key, b->key) ||
            !same_bytes(a->value, a->len, b->value, b->len))
            return false;
        if (answer && (a->jobid != b->jobid || a->rank != b->rank ||
                       !same_string(a->job_name, b->job_name)))
            return false;
    }
    return true;
}

static bool equal_name_request(const void *a, const void *b)
{
    const hnp_wire_name_t *x = a, *y = b;

    return x->op == y->op && x->id == y->id && x->jobid == y->jobid &&
           x->rank == y->rank && x->flags == y->flags &&
           x->timeout_ms == y->timeout_ms && equal_name_entries(x, y, false);
}

static bool equal_name_reply(const void *a, const void *b)
{
    const hnp_wire_name_t *x = a, *y = b;

    return x->id == y->id && x->status == y->status &&
           equal_name_entries(x, y, true);
}

static int pack_name_request(hnp_buffer_t *buf, const void *m)
{
    return hnp_wire_name_request_pack(buf, m);
}
static int unpack_name_request(hnp_reader_t *rd, void *m)
{
    return hnp_wire_name_request_unpack(rd, m);
}
static int pack_name_reply(hnp_buffer_t *buf, const void *m)
{
    return hnp_wire_name_reply_pack(buf, m);
}
static int unpack_name_reply(hnp_reader_t *rd, void *m)
{
    return hnp_wire_name_reply_unpack(rd, m);
}
static void clear_name(void *m) { hnp_wire_name_clear(m); }

const codec_t name_request_codec = {
    "name_request", sizeof(hnp_wire_name_t), pack_name_request,
    unpack_name_request, clear_name, equal_name_request };
const codec_t name_reply_codec = {
    "name_reply", sizeof(hnp_wire_name_t), pack_name_reply,
    unpack_name_reply, clear_name, equal_name_reply };

CODEC_CALLS(join)
CLEAR_CALL(join)
CODEC_CALLS(daemon_up)
CODEC_CALLS(welcome)
CLEAR_CALL(welcome)
CODEC_CALLS(roster)
CLEAR_CALL(roster)
CODEC_CALLS(xcast)
CODEC_CALLS(launch)
CLEAR_CALL(launch)
CODEC_CALLS(signal)
CODEC_CALLS(kill_daemon)
CODEC_CALLS(shutdown)
CODEC_CALLS(job_end)
CODEC_CALLS(procs_started)
CODEC_CALLS(collective)
CODEC_CALLS(dvm_request)
CLEAR_CALL(dvm_request)
CODEC_CALLS(dvm_reply)
CLEAR_CALL(dvm_reply)
CODEC_CALLS(iof)
CODEC_CALLS(iof_ack)
CODEC_CALLS(proc_exit)
CLEAR_CALL(proc_exit)
CODEC_CALLS(stdin)
CODEC_CALLS(stdin_ack)
CODEC_CALLS(report)
CLEAR_CALL(report)
CODEC_CALLS(failure)
CLEAR_CALL(failure)
CODEC_CALLS(peer_lost)
CLEAR_CALL(peer_lost)
CODEC_CALLS(spawn_note)
CLEAR_CALL(spawn_note)
CODEC_CALLS(pmi_abort)
CLEAR_CALL(pmi_abort)
CODEC_CALLS(stats)
CODEC_CALLS(state_request)
CODEC_CALLS(state_reply)
CLEAR_CALL(state_reply)
CODEC_CALLS(spawn_request)
CLEAR_CALL(spawn_request)
CODEC_CALLS(spawn_reply)
CLEAR_CALL(spawn_reply)
CODEC_CALLS(gather)
CLEAR_CALL(gather)
CODEC_CALLS(gather_reply)
CODEC_CALLS(request)
CODEC_CALLS(reply)

const codec_t join_codec = CODEC(join, clear_join);
const codec_t daemon_up_codec = CODEC(daemon_up, NULL);
const codec_t welcome_codec = CODEC(welcome, clear_welcome);
const codec_t roster_codec = CODEC(roster, clear_roster);
const codec_t xcast_codec = CODEC(xcast, NULL);
const codec_t launch_codec = CODEC(launch, clear_launch);
const codec_t signal_codec = CODEC(signal, NULL);
const codec_t kill_daemon_codec = CODEC(kill_daemon, NULL);
const codec_t shutdown_codec = CODEC(shutdown, NULL);
const codec_t job_end_codec = CODEC(job_end, NULL);
const codec_t procs_started_codec = CODEC(procs_started, NULL);
const codec_t collective_codec = CODEC(collective, NULL);
const codec_t dvm_request_codec = CODEC(dvm_request, clear_dvm_request);
const codec_t dvm_reply_codec = CODEC(dvm_reply, clear_dvm_reply);
const codec_t iof_codec = CODEC(iof, NULL);
const codec_t iof_ack_codec = CODEC(iof_ack, NULL);
const codec_t proc_exit_codec = CODEC(proc_exit, clear_proc_exit);
const codec_t stdin_codec = CODEC(stdin, NULL);
const codec_t stdin_ack_codec = CODEC(stdin_ack, NULL);
const codec_t report_codec = CODEC(report, clear_report);
const codec_t failure_codec = CODEC(failure, clear_failure);
const codec_t peer_lost_codec = CODEC(peer_lost, clear_peer_lost);
const codec_t spawn_note_codec = CODEC(spawn_note, clear_spawn_note);
const codec_t pmi_abort_codec = CODEC(pmi_abort, clear_pmi_abort);
const codec_t stats_codec = CODEC(stats, NULL);
const codec_t state_request_codec = CODEC(state_request, NULL);
const codec_t state_reply_codec =
    CODEC(state_reply, clear_state_reply);
const codec_t request_codec = CODEC(request, NULL);
const codec_t reply_codec = CODEC(reply, NULL);
const codec_t spawn_request_codec =
    CODEC(spawn_request, clear_spawn_request);
const codec_t spawn_reply_codec = CODEC(spawn_reply, clear_spawn_reply);
const codec_t gather_codec = CODEC(gather, clear_gather);
const codec_t gather_reply_codec = CODEC(gather_reply, NULL);
