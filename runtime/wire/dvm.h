/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client of a persistent runtime (`hnp --dvm-uri FILE ...`) and the HNP
 * that serves it (`hnp --dvm`), on the DVM's local socket, once the
 * handshake (auth.h: the same hellos and proofs as a daemon's, the client
 * the connector) is done. Each message is a frame
 *   length u32 | body
 * of at most HNP_DVM_MAX_MESSAGE bytes, the body one of:
 *
 *   request: kind u8 | flags u8 | signo i32 | argc u32 | argc x string |
 *            cwd string | nenv u32 | nenv x "NAME=value" string
 *   reply:   kind u8 | jobid u32 | status i32 | text string
 *
 * A submission (HNP_DVM_SUBMIT) carries the client's command line, working
 * directory and environment: the HNP reads the command line as hnp would
 * in that directory and environment. It comes with the client's stdin,
 * stdout and stderr (SCM_RIGHTS, beside the frame): the job's output is
 * written to the client's own descriptors, as a standalone hnp writes
 * its own. Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_DVM_H
#define HNP_WIRE_DVM_H

#include <stdint.h>

#include "hnp_buffer.h"

#define HNP_DVM_MAX_MESSAGE (4u << 20)

typedef enum hnp_dvm_request_kind {
    HNP_DVM_SUBMIT = 1, /**< run argv as a job (with the client's stdio) */
    HNP_DVM_SIGNAL,     /**< signo to the client's job's ranks */
    HNP_DVM_LIST,       /**< the jobs, one line a job */
    HNP_DVM_STOP,       /**< end every job, the daemons and the HNP */
} hnp_dvm_request_kind_t;

/* request flags */
#define HNP_DVM_NOWAIT 0x01 /**< refuse a job that must wait for slots */

typedef enum hnp_dvm_reply_kind {
    HNP_DVM_QUEUED = 1, /**< waits for slots; text says for what */
    HNP_DVM_STARTED,    /**< jobid launched */
    HNP_DVM_DONE,       /**< the job ended: status is hnp's exit status */
    HNP_DVM_REFUSED,    /**< not run: status to exit with, text why */
    HNP_DVM_LISTING,    /**< text: the jobs */
    HNP_DVM_STOPPING,   /**< the DVM ends */
} hnp_dvm_reply_kind_t;

typedef struct hnp_wire_dvm_request {
    uint8_t kind;    /**< hnp_dvm_request_kind_t */
    uint8_t flags;   /**< HNP_DVM_NOWAIT */
    int32_t signo;   /**< HNP_DVM_SIGNAL */
    uint32_t argc;
    char **argv;     /**< [argc], NULL-terminated once unpacked */
    char *cwd;       /**< "" (or NULL when packing): none */
    uint32_t nenv;
    char **env;      /**< [nenv], NULL-terminated once unpacked */
    uint32_t nmca;
    char **mca;      /**< [2 * nmca]: the client's --mca and --tune values,
                          name then value; NULL-terminated once unpacked */
} hnp_wire_dvm_request_t;

typedef struct hnp_wire_dvm_reply {
    uint8_t kind;    /**< hnp_dvm_reply_kind_t */
    uint32_t jobid;
    int32_t status;
    char *text;      /**< "" (or NULL when packing); owned once unpacked */
} hnp_wire_dvm_reply_t;

int hnp_wire_dvm_request_pack(hnp_buffer_t *buf,
                              const hnp_wire_dvm_request_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on an unknown kind, or a submission
 *  without a word. */
int hnp_wire_dvm_request_unpack(hnp_reader_t *rd, hnp_wire_dvm_request_t *m);
void hnp_wire_dvm_request_clear(hnp_wire_dvm_request_t *m);

int hnp_wire_dvm_reply_pack(hnp_buffer_t *buf, const hnp_wire_dvm_reply_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on an unknown kind. */
int hnp_wire_dvm_reply_unpack(hnp_reader_t *rd, hnp_wire_dvm_reply_t *m);
void hnp_wire_dvm_reply_clear(hnp_wire_dvm_reply_t *m);

#endif /* HNP_WIRE_DVM_H */
