/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp --plan: what a launch would do, without launching. The spawn tree the
 * selected plm would build, its shape, the launch model's time of it
 * (paper 001) next to the usual alternatives, and the connections the HNP
 * and the busiest daemon would hold.
 */
#ifndef HNP_PLAN_H
#define HNP_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "args.h"
#include "hosts/jobmap.h"
#include "core/rte.h"

/**
 * Print the plan for the daemons of @p map (one a node, plus the HNP) to
 * @p out in @p format. @p rte has its components selected; nothing is
 * started. The launch model's SEQ and REM are the plm's (its
 * launch_model, or that of the plm component that has one). The text
 * also gives the exchange chosen for the job's size and the HNP's
 * descriptor plan (@p output_files: --output-filename's files count).
 * Errors say what was missing.
 */
int hnp_plan_print(hnp_rte_t *rte, const hnp_job_map_t *map,
                   bool output_files, hnp_plan_format_t format, FILE *out,
                   char *err, size_t errlen);

#endif /* HNP_PLAN_H */
