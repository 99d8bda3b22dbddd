/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The --mca, --gmca and --tune values a client gives with its job (dvm.h).
 * Open MPI's parameters are the job's: its ranks get OMPI_MCA_<name>, as
 * from a standalone hnp, over those of the client's environment and the
 * DVM's own command line. hnp's parameters are read by the DVM's HNP and
 * daemons when they start (plm, routed, exchange, oob, heartbeats, the
 * PMI servers): a value other than the DVM's is refused, naming the
 * parameter and where it belongs; the DVM's own value is accepted. A name
 * that is neither's is refused as a mistyped one.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvm.h"
#include "hnp_errors.h"
#include "ompi_params.h"
#include "wire/dvm.h"

/* One of hnp's parameters: only the value the DVM runs with. */
static int check_dvm_param(const hnp_param_info_t *info, const char *name,
                           const char *value, char *err, size_t errlen)
{
    if (strcmp(info->value, value) == 0)
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "--mca %s %s: the DVM's HNP and daemons read "
                "%s when they start (the DVM runs with %s); give it to hnp "
                "--dvm, not to a job", name, value, info->full_name,
                info->value);
    return HNP_ERR_BAD_PARAM;
}

/* "OMPI_MCA_<name>=<value>" for each of Open MPI's; the rest checked. */
static int split_params(const hnp_params_t *params,
                        const hnp_wire_dvm_request_t *req, char **ompi,
                        size_t *nompi, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < req->nmca; i++) {
        const char *name = req->mca[2 * i], *value = req->mca[2 * i + 1];
        hnp_param_info_t info;
        int rc = HNP_SUCCESS;

        if (hnp_param_lookup(params, name, &info) == HNP_SUCCESS)
            rc = check_dvm_param(&info, name, value, err, errlen);
        else if (!hnp_ompi_param_claims(name, (void *)params)) {
            hnp_err_set(err, errlen, "--mca %s: no parameter of hnp's or of "
                        "Open MPI's has that name", name);
            rc = HNP_ERR_NOT_FOUND;
        } else if (asprintf(&ompi[*nompi], "OMPI_MCA_%s=%s", name, value) <
                   0) {
            ompi[*nompi] = NULL;
            rc = HNP_ERR_NOMEM;
        } else {
            (*nompi)++;
        }
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return HNP_SUCCESS;
}

int hnp_dvm_job_params(const hnp_params_t *params,
                       const hnp_wire_dvm_request_t *req, hnp_args_t *args,
                       char *err, size_t errlen)
{
    char **ompi = calloc((size_t)req->nmca + 1, sizeof(*ompi));
    size_t nompi = 0;
    int rc = ompi != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;

    if (rc == HNP_SUCCESS)
        rc = split_params(params, req, ompi, &nompi, err, errlen);
    /* the client's command line first: it wins over what follows */
    if (rc == HNP_SUCCESS)
        rc = hnp_args_add_default_env(args, ompi, nompi);
    if (rc == HNP_SUCCESS)
        rc = hnp_ompi_params_forward(params, args, err, errlen);
    if (rc == HNP_ERR_NOMEM && err[0] == '\0')
        hnp_err_set(err, errlen, "out of memory");
    for (size_t i = 0; i < nompi; i++)
        free(ompi[i]);
    free(ompi);
    return rc;
}
