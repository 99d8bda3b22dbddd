/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank's spawn (MPI_Comm_spawn, hnp_rte_spawn() in hnp_rte.h): its
 * daemon asks the HNP for a new job (HNP_TAG_SPAWN, up the routing tree),
 * the HNP answers the daemon (HNP_TAG_SPAWN_REPLY) once every child was
 * started, or with the error that stopped it.
 *
 *   request: reqid u32 | parent_jobid u32 | parent_rank u32 |
 *            parent_wdir string | map_by string | rank_by string |
 *            bind_to string | ppr string | display_map u8 |
 *            component string | data blob | napps u32 |
 *            napps x (cmd string | argc u32 | argc x string |
 *                     nenv u32 | nenv x "NAME=value" string |
 *                     maxprocs u32 | hosts string | hostfile string |
 *                     add_hosts string | add_hostfile string |
 *                     wdir string | path string | prefix string)
 *   reply:   reqid u32 | status i32 | jobid u32 | name string | err string
 *
 * argv excludes the program. A string that is "" stands for "not given".
 * Contract of runtime/wire: see join.h.
 */
#ifndef HNP_WIRE_SPAWN_H
#define HNP_WIRE_SPAWN_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

/* The most apps, children of an app, and opaque bytes a request carries:
 * beyond, it is refused before anything is allocated for it. */
#define HNP_WIRE_SPAWN_MAX_APPS 1024u
#define HNP_WIRE_SPAWN_MAX_PROCS (1u << 24)
#define HNP_WIRE_SPAWN_MAX_DATA (64u * 1024u)

typedef struct hnp_wire_spawn_app {
    char *cmd;          /**< never "" */
    uint32_t argc;
    char **argv;        /**< [argc], NULL-terminated once unpacked */
    uint32_t nenv;
    char **env;         /**< [nenv] "NAME=value", NULL-terminated */
    uint32_t maxprocs;  /**< 1 .. HNP_WIRE_SPAWN_MAX_PROCS */
    char *hosts;
    char *hostfile;
    char *add_hosts;
    char *add_hostfile;
    char *wdir;
    char *path;
    char *prefix;
} hnp_wire_spawn_app_t;

typedef struct hnp_wire_spawn_request {
    uint32_t reqid;        /**< the daemon's, echoed in the reply */
    uint32_t parent_jobid;
    uint32_t parent_rank;
    char *parent_wdir;
    char *map_by;
    char *rank_by;
    char *bind_to;
    char *ppr;
    uint8_t display_map;
    char *component;
    void *data;            /**< [data_len], owned once unpacked */
    size_t data_len;
    uint32_t napps;        /**< 1 .. HNP_WIRE_SPAWN_MAX_APPS */
    hnp_wire_spawn_app_t *apps;
} hnp_wire_spawn_request_t;

typedef struct hnp_wire_spawn_reply {
    uint32_t reqid;
    int32_t status;        /**< HNP_SUCCESS or an HNP_ERR_* code */
    uint32_t jobid;        /**< the new job's; 0 on an error */
    char *name;            /**< its name ("" on an error) */
    char *err;             /**< why it failed ("" on success) */
} hnp_wire_spawn_reply_t;

int hnp_wire_spawn_request_pack(hnp_buffer_t *buf,
                                const hnp_wire_spawn_request_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on no app, too many, an app without a
 *  program, maxprocs 0 or past the bound, or data too long. */
int hnp_wire_spawn_request_unpack(hnp_reader_t *rd,
                                  hnp_wire_spawn_request_t *m);
void hnp_wire_spawn_request_clear(hnp_wire_spawn_request_t *m);

int hnp_wire_spawn_reply_pack(hnp_buffer_t *buf,
                              const hnp_wire_spawn_reply_t *m);
/** Also fails (HNP_ERR_BAD_PARAM) on a positive status. */
int hnp_wire_spawn_reply_unpack(hnp_reader_t *rd, hnp_wire_spawn_reply_t *m);
void hnp_wire_spawn_reply_clear(hnp_wire_spawn_reply_t *m);

#endif /* HNP_WIRE_SPAWN_H */
