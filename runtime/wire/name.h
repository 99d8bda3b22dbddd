/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The name service (MPI_Publish_name, MPI_Lookup_name,
 * MPI_Unpublish_name): a daemon asks the HNP, which holds the names, on
 * behalf of a rank (HNP_TAG_NAME), and gets its answer (HNP_TAG_NAME_REPLY).
 *
 *   request: op u8 | id u32 | jobid u32 | rank u32 | flags u32 |
 *            timeout_ms u32 | count u32 |
 *            count x (key string | value blob)
 *   reply:   id u32 | status i32 | count u32 |
 *            count x (key string | jobid u32 | rank u32 | job name
 *                     string | value blob)
 *
 * A publish carries its names and values; a lookup or an unpublish its
 * keys with empty values (an unpublish of no key: every name the rank
 * published). A lookup's answer carries what was found, with who
 * published it. The id is the requesting daemon's own; the job and rank
 * say on whose behalf (the HNP scopes the names by the job's family).
 * Contract of runtime/wire: see join.h. Keys are owned once unpacked
 * (hnp_wire_name_clear()); values point into the reader's data.
 */
#ifndef HNP_WIRE_NAME_H
#define HNP_WIRE_NAME_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"

/** Longest key, in bytes. */
#define HNP_WIRE_NAME_KEY_MAX 511

typedef enum hnp_wire_name_op {
    HNP_WIRE_NAME_PUBLISH = 1,
    HNP_WIRE_NAME_LOOKUP = 2,
    HNP_WIRE_NAME_UNPUBLISH = 3,
} hnp_wire_name_op_t;

typedef struct hnp_wire_name_entry {
    char *key;          /**< owned once unpacked */
    uint32_t jobid;     /**< the publisher's (answers) */
    uint32_t rank;
    char *job_name;     /**< the publisher's job's name (answers), owned
                             once unpacked */
    const void *value;  /**< borrowed */
    size_t len;
} hnp_wire_name_entry_t;

typedef struct hnp_wire_name {
    uint8_t op;         /**< hnp_wire_name_op_t (requests) */
    uint32_t id;
    uint32_t jobid;     /**< the asking rank's job (requests) */
    uint32_t rank;
    uint32_t flags;     /**< HNP_RTE_NAME_* of hnp_rte.h (requests) */
    uint32_t timeout_ms; /**< a waiting lookup's bound, 0: none */
    int32_t status;     /**< HNP_SUCCESS or an HNP_ERR_* (answers) */
    uint32_t count;
    hnp_wire_name_entry_t *entries; /**< [count], owned once unpacked */
} hnp_wire_name_t;

int hnp_wire_name_request_pack(hnp_buffer_t *buf, const hnp_wire_name_t *m);
int hnp_wire_name_request_unpack(hnp_reader_t *rd, hnp_wire_name_t *m);
int hnp_wire_name_reply_pack(hnp_buffer_t *buf, const hnp_wire_name_t *m);
int hnp_wire_name_reply_unpack(hnp_reader_t *rd, hnp_wire_name_t *m);
void hnp_wire_name_clear(hnp_wire_name_t *m);

#endif /* HNP_WIRE_NAME_H */
