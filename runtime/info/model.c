/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-info's view of the launch model (plm_prsh_model=auto): the estimate
 * per agent in ~/.hnp/launch-model, so that a user can see what the next
 * greedy tree will be built for. A missing or malformed file is reported,
 * never an error: hnp ignores it too.
 */
#include "config.h"

#include <stdio.h>

#include "info.h"
#include "launch/model.h"

static void print_entry(const hnp_launch_model_entry_t *e, bool parsable)
{
    if (!parsable) {
        printf("  agent %s\n    seq %.4f s, rem %.4f s (%lu run%s)\n",
               e->agent, e->seq, e->rem, e->samples,
               e->samples == 1 ? "" : "s");
        return;
    }
    /* The agent may hold ':'; it is the middle field, and the last two
     * fields are fixed words and numbers, so a script splits from the
     * right. */
    printf("launch-model:%s:seq:%.6f\n", e->agent, e->seq);
    printf("launch-model:%s:rem:%.6f\n", e->agent, e->rem);
    printf("launch-model:%s:samples:%lu\n", e->agent, e->samples);
}

void hnp_info_print_launch_model(bool parsable)
{
    hnp_launch_model_t model = { NULL, 0 };
    char path[4096], err[512] = "";
    int rc = hnp_launch_model_path(path, sizeof(path), err, sizeof(err));

    if (rc == HNP_SUCCESS)
        rc = hnp_launch_model_load(&model, path, err, sizeof(err));
    if (parsable) {
        if (rc == HNP_SUCCESS || rc == HNP_ERR_NOT_FOUND)
            printf("launch-model:path:%s\n", path);
        for (size_t i = 0; i < model.n; i++)
            print_entry(&model.entries[i], true);
        hnp_launch_model_free(&model);
        return;
    }
    printf("\nlaunch model (~/.hnp/launch-model)\n");
    if (rc == HNP_ERR_NOT_FOUND)
        printf("  no estimate yet (plm_prsh_model=auto makes one)\n");
    else if (rc != HNP_SUCCESS)
        printf("  ignored: %s\n", err);
    for (size_t i = 0; i < model.n; i++)
        print_entry(&model.entries[i], false);
    hnp_launch_model_free(&model);
}
