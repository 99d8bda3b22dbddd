/* SPDX-License-Identifier: BSD-3-Clause */
/* Spawn with PMI-1 and PMI-2 as MPICH writes it, and the children. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi_dyn.h"

static char spawner_jobid[256];

void dyn_fullinit_answer(const char *answer)
{
    const char *s = dyn_field(answer, "spawner-jobid");

    snprintf(spawner_jobid, sizeof(spawner_jobid), "%s", s != NULL ? s : "");
}

int dyn_spawn_main(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "usage: %s names1|names2 TAG | publish1 NAME PORT DIR "
            "| lookup1 NAME\n", argv[0]);
    return 2;
}
