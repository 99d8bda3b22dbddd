/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open MPI's own MCA parameters under hnp (ompi_params.c): `--mca btl
 * self,tcp` and its kind are not hnp's, but the ranks'. hnp hands them to
 * every rank as OMPI_MCA_<name>=<value>, as mpirun does, together with the
 * OMPI_MCA_* variables of its own environment.
 */
#ifndef HNP_OMPI_PARAMS_H
#define HNP_OMPI_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "hnp_param.h"
#include "core/ompi_names.h"

/**
 * Give every app context of @p args OMPI_MCA_<name>=<value> for each
 * OMPI_MCA_* variable of hnp's environment and each of Open MPI's
 * parameters set through hnp's sources (--mca, --gmca, HNP_MCA_*, --tune,
 * the parameter files; --mca and the environment win over the files, as
 * for hnp's own), unless the context sets that variable itself (-x, -env,
 * -genv).
 */
int hnp_ompi_params_forward(const hnp_params_t *params, hnp_args_t *args,
                            char *err, size_t errlen);

#endif /* HNP_OMPI_PARAMS_H */
