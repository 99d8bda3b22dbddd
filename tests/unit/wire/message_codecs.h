/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime messages' codecs for test_messages.c (message_codecs.c).
 */
#ifndef HNP_TEST_MESSAGE_CODECS_H
#define HNP_TEST_MESSAGE_CODECS_H

#include "codec_check.h"

extern const codec_t join_codec;
extern const codec_t daemon_up_codec;
extern const codec_t welcome_codec;
extern const codec_t roster_codec;
extern const codec_t xcast_codec;
extern const codec_t launch_codec;
extern const codec_t signal_codec;
extern const codec_t kill_daemon_codec;
extern const codec_t shutdown_codec;
extern const codec_t job_end_codec;
extern const codec_t procs_started_codec;
extern const codec_t collective_codec;
extern const codec_t dvm_request_codec;
extern const codec_t dvm_reply_codec;
extern const codec_t iof_codec;
extern const codec_t iof_ack_codec;
extern const codec_t proc_exit_codec;
extern const codec_t stdin_codec;
extern const codec_t stdin_ack_codec;
extern const codec_t report_codec;
extern const codec_t failure_codec;
extern const codec_t peer_lost_codec;
extern const codec_t spawn_note_codec;
extern const codec_t pmi_abort_codec;
extern const codec_t stats_codec;
extern const codec_t state_request_codec;
extern const codec_t state_reply_codec;
extern const codec_t request_codec;
extern const codec_t reply_codec;
extern const codec_t spawn_request_codec;
extern const codec_t spawn_reply_codec;
extern const codec_t gather_codec;
extern const codec_t gather_reply_codec;
extern const codec_t name_request_codec;
extern const codec_t name_reply_codec;

#endif /* HNP_TEST_MESSAGE_CODECS_H */
