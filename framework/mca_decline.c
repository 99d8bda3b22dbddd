/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why a component the user asked for by name declined. A component that
 * declines (HNP_ERR_NOT_AVAILABLE) says why in a verbose message of level
 * MCA_DECLINE_VERBOSE or below on its framework's stream ("slurm: no
 * allocation (SLURM_JOB_ID is not set)"); when the user's selection names
 * it, that message is caught during its query and becomes part of the
 * error, however quiet the framework is. Other messages pass on as they
 * would have.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mca_internal.h"

typedef struct decline_capture {
    const char *stream;
    int quiet_level;          /* what the user's verbosity shows */
    hnp_log_handler_fn prev;  /* the sink to pass everything else to */
    void *prev_ctx;
    char *why;
    size_t whylen;
} decline_capture_t;

static void capture(void *ctx, hnp_log_severity_t sev, const char *stream,
                    const char *message)
{
    decline_capture_t *c = ctx;

    if (sev == HNP_LOG_VERBOSE && strcmp(stream, c->stream) == 0) {
        snprintf(c->why, c->whylen, "%s", message);
        return;
    }
    if (c->prev != NULL)
        c->prev(c->prev_ctx, sev, stream, message);
    else
        hnp_log_write(sev, stream, message);
}

static bool named_alone_or_listed(const hnp_mca_framework_t *fw,
                                  const hnp_mca_component_t *c)
{
    return !fw->sel.exclude && fw->sel.count > 0 &&
           hnp_mca_selection_allows(&fw->sel, c->name);
}

int mca_query_explained(hnp_mca_framework_t *fw, const hnp_mca_component_t *c,
                        const void **module, int *priority)
{
    decline_capture_t cap = { fw->log->name, fw->log->verbose, NULL, NULL,
                              fw->declined_why, sizeof(fw->declined_why) };
    int rc;

    if (!named_alone_or_listed(fw, c) || fw->log->verbose >= MCA_DECLINE_VERBOSE)
        return c->query(c, module, priority);
    hnp_log_get_handler(&cap.prev, &cap.prev_ctx);
    hnp_log_set_handler(capture, &cap);
    fw->log->verbose = MCA_DECLINE_VERBOSE;
    rc = c->query(c, module, priority);
    fw->log->verbose = cap.quiet_level;
    hnp_log_set_handler(cap.prev, cap.prev_ctx);
    if (rc == HNP_SUCCESS)
        fw->declined_why[0] = '\0';
    return rc;
}
