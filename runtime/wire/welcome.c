/* SPDX-License-Identifier: BSD-3-Clause */
/* The welcome a spawn parent sends a child that joined (see welcome.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "welcome.h"

int hnp_wire_welcome_pack(hnp_buffer_t *buf, const hnp_wire_welcome_t *m)
{
    hnp_pack_u32(buf, m->nprocs);
    hnp_pack_u32(buf, m->nfirst);
    hnp_pack_string(buf, m->hnp_uri);
    hnp_pack_blob(buf, m->params, m->params_len);
    for (int i = 0; i < HNP_WIRE_WELCOME_NCOMPONENTS; i++)
        hnp_pack_string(buf, m->components[i]);
    hnp_pack_u32(buf, m->nsubtree);
    for (uint32_t i = 0; i < m->nsubtree; i++) {
        hnp_pack_u32(buf, m->subtree[i].vpid);
        hnp_pack_string(buf, m->subtree[i].name);
    }
    return hnp_buffer_status(buf);
}

/* Each entry takes at least 8 bytes (a vpid and an empty string): a count
 * larger than the rest of the message could hold is refused before
 * anything is allocated for it. */
static int unpack_subtree(hnp_reader_t *rd, hnp_wire_welcome_t *m)
{
    m->nsubtree = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS ||
        m->nsubtree > hnp_reader_remaining(rd) / 8)
        return HNP_ERR_TRUNCATED;
    m->subtree = calloc(m->nsubtree > 0 ? m->nsubtree : 1, sizeof(*m->subtree));
    if (m->subtree == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < m->nsubtree; i++) {
        m->subtree[i].vpid = hnp_unpack_u32(rd);
        m->subtree[i].name = hnp_unpack_string(rd);
        if (hnp_reader_status(rd) != HNP_SUCCESS)
            return HNP_ERR_TRUNCATED;
        if (m->subtree[i].vpid >= m->nprocs)
            return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

int hnp_wire_welcome_unpack(hnp_reader_t *rd, hnp_wire_welcome_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->nprocs = hnp_unpack_u32(rd);
    m->nfirst = hnp_unpack_u32(rd);
    m->hnp_uri = hnp_unpack_string(rd);
    m->params = hnp_unpack_blob(rd, &m->params_len);
    for (int i = 0; i < HNP_WIRE_WELCOME_NCOMPONENTS; i++)
        m->components[i] = hnp_unpack_string(rd);
    rc = hnp_reader_status(rd);
    if (rc == HNP_SUCCESS && (m->nfirst == 0 || m->nfirst > m->nprocs))
        rc = HNP_ERR_BAD_PARAM;
    if (rc == HNP_SUCCESS)
        rc = unpack_subtree(rd, m);
    if (rc != HNP_SUCCESS)
        hnp_wire_welcome_clear(m);
    return rc;
}

void hnp_wire_welcome_clear(hnp_wire_welcome_t *m)
{
    free(m->hnp_uri);
    for (int i = 0; i < HNP_WIRE_WELCOME_NCOMPONENTS; i++)
        free(m->components[i]);
    for (uint32_t i = 0; m->subtree != NULL && i < m->nsubtree; i++)
        free(m->subtree[i].name);
    free(m->subtree);
    memset(m, 0, sizeof(*m));
}
