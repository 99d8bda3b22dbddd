/* SPDX-License-Identifier: BSD-3-Clause */
/* A DVM client's requests and the HNP's replies (see dvm.h). */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dvm.h"
#include "hnp_errors.h"

static void pack_strings(hnp_buffer_t *buf, char *const *v, uint32_t n)
{
    hnp_pack_u32(buf, n);
    for (uint32_t i = 0; i < n; i++)
        hnp_pack_string(buf, v[i]);
}

int hnp_wire_dvm_request_pack(hnp_buffer_t *buf,
                              const hnp_wire_dvm_request_t *m)
{
    hnp_pack_u8(buf, m->kind);
    hnp_pack_u8(buf, m->flags);
    hnp_pack_i32(buf, m->signo);
    pack_strings(buf, m->argv, m->argc);
    hnp_pack_string(buf, m->cwd);
    pack_strings(buf, m->env, m->nenv);
    pack_strings(buf, m->mca, 2 * m->nmca);
    return hnp_buffer_status(buf);
}

static void free_strings(char **v, uint32_t n)
{
    for (uint32_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

/* A count of strings (4 bytes each at least) and the strings, into a new
 * NULL-terminated vector; a count no message could hold is refused before
 * anything is allocated for it. */
static int unpack_strings(hnp_reader_t *rd, uint32_t *n, char ***out)
{
    char **v;

    *n = hnp_unpack_u32(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS ||
        *n > hnp_reader_remaining(rd) / 4) {
        *n = 0;
        return HNP_ERR_TRUNCATED;
    }
    v = calloc((size_t)*n + 1, sizeof(*v));
    if (v == NULL) {
        *n = 0;
        return HNP_ERR_NOMEM;
    }
    *out = v;
    for (uint32_t i = 0; i < *n; i++)
        v[i] = hnp_unpack_string(rd);
    return hnp_reader_status(rd);
}

/* Names and values: an even count of strings, or none kept. */
static int unpack_mca(hnp_reader_t *rd, hnp_wire_dvm_request_t *m)
{
    uint32_t n = 0;
    int rc = unpack_strings(rd, &n, &m->mca);

    if (rc == HNP_SUCCESS && n % 2 != 0)
        rc = HNP_ERR_BAD_PARAM; /* a name without its value */
    if (rc != HNP_SUCCESS) {
        free_strings(m->mca, n);
        m->mca = NULL;
        n = 0;
    }
    m->nmca = n / 2;
    return rc;
}

static bool known_request(const hnp_wire_dvm_request_t *m)
{
    if (m->kind == HNP_DVM_SUBMIT)
        return m->argc > 0;
    return m->kind >= HNP_DVM_SIGNAL && m->kind <= HNP_DVM_STOP;
}

int hnp_wire_dvm_request_unpack(hnp_reader_t *rd, hnp_wire_dvm_request_t *m)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->kind = hnp_unpack_u8(rd);
    m->flags = hnp_unpack_u8(rd);
    m->signo = hnp_unpack_i32(rd);
    rc = unpack_strings(rd, &m->argc, &m->argv);
    if (rc == HNP_SUCCESS)
        m->cwd = hnp_unpack_string(rd);
    if (rc == HNP_SUCCESS)
        rc = unpack_strings(rd, &m->nenv, &m->env);
    if (rc == HNP_SUCCESS)
        rc = unpack_mca(rd, m);
    if (rc == HNP_SUCCESS && hnp_reader_status(rd) != HNP_SUCCESS)
        rc = HNP_ERR_TRUNCATED;
    if (rc == HNP_SUCCESS && !known_request(m))
        rc = HNP_ERR_BAD_PARAM;
    if (rc != HNP_SUCCESS)
        hnp_wire_dvm_request_clear(m);
    return rc;
}

void hnp_wire_dvm_request_clear(hnp_wire_dvm_request_t *m)
{
    free_strings(m->argv, m->argc);
    free(m->cwd);
    free_strings(m->env, m->nenv);
    free_strings(m->mca, 2 * m->nmca);
    memset(m, 0, sizeof(*m));
}

int hnp_wire_dvm_reply_pack(hnp_buffer_t *buf, const hnp_wire_dvm_reply_t *m)
{
    hnp_pack_u8(buf, m->kind);
    hnp_pack_u32(buf, m->jobid);
    hnp_pack_i32(buf, m->status);
    hnp_pack_string(buf, m->text);
    return hnp_buffer_status(buf);
}

int hnp_wire_dvm_reply_unpack(hnp_reader_t *rd, hnp_wire_dvm_reply_t *m)
{
    memset(m, 0, sizeof(*m));
    m->kind = hnp_unpack_u8(rd);
    m->jobid = hnp_unpack_u32(rd);
    m->status = hnp_unpack_i32(rd);
    m->text = hnp_unpack_string(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        hnp_wire_dvm_reply_clear(m);
        return HNP_ERR_TRUNCATED;
    }
    if (m->kind < HNP_DVM_QUEUED || m->kind > HNP_DVM_STOPPING) {
        hnp_wire_dvm_reply_clear(m);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

void hnp_wire_dvm_reply_clear(hnp_wire_dvm_reply_t *m)
{
    free(m->text);
    memset(m, 0, sizeof(*m));
}
