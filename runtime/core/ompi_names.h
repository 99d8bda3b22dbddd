/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI's parameter names among hnp's (ompi_names.c). */
#ifndef HNP_CORE_OMPI_NAMES_H
#define HNP_CORE_OMPI_NAMES_H

#include <stdbool.h>

#include "hnp_param.h"

/**
 * Whether @p name, which hnp did not register, is plausibly one of Open
 * MPI's: a name of its projects (opal, orte, ompi, mpi) or of one of its
 * frameworks (btl, pml, coll, ...), alone or as `<framework>_...`, made of
 * letters, digits and '_'; never one in hnp's own families (a first word
 * that is the name of one of hnp's frameworks, as plm or routed, or first
 * two words that one of hnp's parameters has, as oob_tcp), where it is
 * more likely a misspelled parameter of hnp's. @p params is the registry
 * (an hnp_params_t *). The hook of hnp_mca_set_foreign_params().
 */
bool hnp_ompi_param_claims(const char *name, void *params);

#endif /* HNP_CORE_OMPI_NAMES_H */
