/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the body of every runtime message (runtime/wire), as a
 * daemon or the HNP reads it from a peer.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    which message, modulo the number of them (the table below,
 *             in its order)
 *   then      the body
 * Besides the sanitizers (every unpack into a struct, every clear), the
 * target checks what a correct codec guarantees: a body it accepts packs
 * again to as many bytes as it read (a flag's byte may come back as 1),
 * which unpack and pack again to the very same bytes; a refused body
 * leaves nothing allocated (the sanitizers' leak check).
 */
#include "config.h"

#include <string.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "hnp_buffer.h"
#include "control.h"
#include "failure.h"
#include "iof.h"
#include "join.h"
#include "launch.h"
#include "name.h"
#include "pmi_abort.h"
#include "spawn.h"
#include "gather.h"
#include "proc_exit.h"
#include "dvm.h"
#include "report.h"
#include "request.h"
#include "state.h"
#include "stats.h"
#include "stdin.h"
#include "roster.h"
#include "welcome.h"
#include "xcast.h"

typedef struct codec {
    int (*unpack)(hnp_reader_t *rd, void *m);
    int (*pack)(hnp_buffer_t *buf, const void *m);
    void (*clear)(void *m);
} codec_t;

/* One union large enough for any message struct. */
typedef union any_message {
    hnp_wire_signal_t signal;
    hnp_wire_shutdown_t shutdown;
    hnp_wire_kill_daemon_t kill_daemon;
    hnp_wire_job_end_t job_end;
    hnp_wire_procs_started_t procs_started;
    hnp_wire_collective_t collective;
    hnp_wire_dvm_request_t dvm_request;
    hnp_wire_dvm_reply_t dvm_reply;
    hnp_wire_failure_t failure;
    hnp_wire_peer_lost_t peer_lost;
    hnp_wire_spawn_note_t spawn_note;
    hnp_wire_iof_t iof;
    hnp_wire_join_t join;
    hnp_wire_daemon_up_t daemon_up;
    hnp_wire_launch_t launch;
    hnp_wire_pmi_abort_t pmi_abort;
    hnp_wire_proc_exit_t proc_exit;
    hnp_wire_report_t report;
    hnp_wire_request_t request;
    hnp_wire_reply_t reply;
    hnp_wire_stats_t stats;
    hnp_wire_stdin_t stdin_msg;
    hnp_wire_stdin_ack_t stdin_ack;
    hnp_wire_welcome_t welcome;
    hnp_wire_roster_t roster;
    hnp_wire_xcast_t xcast;
    hnp_wire_state_request_t state_request;
    hnp_wire_state_reply_t state_reply;
    hnp_wire_spawn_request_t spawn_request;
    hnp_wire_spawn_reply_t spawn_reply;
    hnp_wire_name_t name;
    hnp_wire_gather_t gather;
    hnp_wire_gather_reply_t gather_reply;
} any_message_t;

/* Each message's codec behind one signature (a call through a cast
 * function pointer would be undefined). */
#define CODEC_FUNCS(name)                                                     \
    static int unpack_##name(hnp_reader_t *rd, void *m)                       \
    {                                                                         \
        return hnp_wire_##name##_unpack(rd, m);                               \
    }                                                                         \
    static int pack_##name(hnp_buffer_t *buf, const void *m)                  \
    {                                                                         \
        return hnp_wire_##name##_pack(buf, m);                                \
    }
#define CLEAR_FUNC(name)                                                      \
    static void clear_##name(void *m)                                         \
    {                                                                         \
        hnp_wire_##name##_clear(m);                                           \
    }

/* What borrows from the reader allocates nothing. */
static void clear_nothing(void *m)
{
    (void)m;
}

CODEC_FUNCS(launch) CLEAR_FUNC(launch)
CODEC_FUNCS(welcome) CLEAR_FUNC(welcome)
CODEC_FUNCS(roster) CLEAR_FUNC(roster)
CODEC_FUNCS(join) CLEAR_FUNC(join)
CODEC_FUNCS(failure) CLEAR_FUNC(failure)
CODEC_FUNCS(peer_lost) CLEAR_FUNC(peer_lost)
CODEC_FUNCS(spawn_note) CLEAR_FUNC(spawn_note)
CODEC_FUNCS(pmi_abort) CLEAR_FUNC(pmi_abort)
CODEC_FUNCS(proc_exit) CLEAR_FUNC(proc_exit)
CODEC_FUNCS(report) CLEAR_FUNC(report)
CODEC_FUNCS(state_reply) CLEAR_FUNC(state_reply)
CODEC_FUNCS(dvm_request) CLEAR_FUNC(dvm_request)
CODEC_FUNCS(dvm_reply) CLEAR_FUNC(dvm_reply)
CODEC_FUNCS(spawn_request) CLEAR_FUNC(spawn_request)
CODEC_FUNCS(spawn_reply) CLEAR_FUNC(spawn_reply)
CODEC_FUNCS(gather) CLEAR_FUNC(gather)
CODEC_FUNCS(gather_reply)
CODEC_FUNCS(daemon_up)
CODEC_FUNCS(signal)
CODEC_FUNCS(shutdown)
CODEC_FUNCS(kill_daemon)
CODEC_FUNCS(job_end)
CODEC_FUNCS(procs_started)
CODEC_FUNCS(collective)
CODEC_FUNCS(iof)
CODEC_FUNCS(request)
CODEC_FUNCS(reply)
CODEC_FUNCS(stats)
CODEC_FUNCS(stdin)
CODEC_FUNCS(stdin_ack)
CODEC_FUNCS(xcast)
CODEC_FUNCS(state_request)
CODEC_FUNCS(name_request)
CODEC_FUNCS(name_reply)
static void clear_name_request(void *m)
{
    hnp_wire_name_clear(m);
}
static void clear_name_reply(void *m)
{
    hnp_wire_name_clear(m);
}

#define CODEC(name) { unpack_##name, pack_##name, clear_##name }
#define CODEC_BORROWED(name) { unpack_##name, pack_##name, clear_nothing }

/* The order make-corpus.sh numbers the seeds by. */
static const codec_t codecs[] = {
    CODEC(launch),          CODEC(welcome),         CODEC(join),
    CODEC(failure),         CODEC(peer_lost),       CODEC(pmi_abort),
    CODEC(proc_exit),       CODEC(report),          CODEC_BORROWED(daemon_up),
    CODEC_BORROWED(signal), CODEC_BORROWED(shutdown), CODEC_BORROWED(iof),
    CODEC_BORROWED(request), CODEC_BORROWED(reply), CODEC_BORROWED(stats),
    CODEC_BORROWED(stdin),  CODEC_BORROWED(stdin_ack), CODEC_BORROWED(xcast),
    CODEC_BORROWED(state_request), CODEC(state_reply),
    CODEC(spawn_note),      CODEC_BORROWED(kill_daemon),
    CODEC_BORROWED(job_end), CODEC(dvm_request),    CODEC(dvm_reply),
    CODEC_BORROWED(collective), CODEC_BORROWED(procs_started),
    CODEC(spawn_request),   CODEC(spawn_reply),
    CODEC(name_request),    CODEC(name_reply),
    CODEC(gather),          CODEC_BORROWED(gather_reply),
    CODEC(roster),
};
#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const codec_t *c;
    any_message_t m, again;
    hnp_buffer_t out, out2;
    hnp_reader_t rd;
    size_t used;

    if (size < 1)
        return 0;
    c = &codecs[data[0] % NCODECS];
    data++;
    size--;
    memset(&m, 0, sizeof(m));
    hnp_reader_init(&rd, data, size);
    if (c->unpack(&rd, &m) != HNP_SUCCESS) {
        c->clear(&m);
        return 0;
    }
    used = size - hnp_reader_remaining(&rd);
    hnp_buffer_init(&out);
    FUZZ_CHECK(c->pack(&out, &m) == HNP_SUCCESS);
    /* as long as what it read: the byte of a flag may be normalised (any
     * byte but 0 is true), nothing else */
    FUZZ_CHECK(out.len == used);
    memset(&again, 0, sizeof(again));
    hnp_reader_init(&rd, out.data, out.len);
    FUZZ_CHECK(c->unpack(&rd, &again) == HNP_SUCCESS);
    FUZZ_CHECK(hnp_reader_remaining(&rd) == 0);
    hnp_buffer_init(&out2);
    FUZZ_CHECK(c->pack(&out2, &again) == HNP_SUCCESS);
    FUZZ_CHECK(out2.len == out.len && memcmp(out2.data, out.data, out.len) == 0);
    hnp_buffer_release(&out2);
    c->clear(&again);
    hnp_buffer_release(&out);
    c->clear(&m);
    return 0;
}
