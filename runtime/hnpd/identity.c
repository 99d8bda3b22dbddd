/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hnp_errors.h"
#include "identity.h"

int hnpd_added_vpid(const char *first_text, hnp_vpid_t identity,
                    hnp_vpid_t *vpid, char *err, size_t errlen)
{
    char *end = NULL;
    unsigned long long first = 0, sum;

    errno = 0;
    if (first_text != NULL && first_text[0] >= '0' && first_text[0] <= '9')
        first = strtoull(first_text, &end, 10);
    if (end == NULL || *end != '\0' || errno != 0 || first < 1 ||
        first >= HNP_VPID_INVALID) {
        snprintf(err, errlen, "--first-vpid \"%s\": expected the first added "
                 "daemon's vpid, a number from 1 to %u",
                 first_text != NULL ? first_text : "", HNP_VPID_INVALID - 1);
        return HNP_ERR_BAD_PARAM;
    }
    sum = first + identity - 1;
    if (identity == 0 || sum >= HNP_VPID_INVALID) {
        snprintf(err, errlen, "--first-vpid %llu: daemon %u of the command "
                 "would have vpid %llu, %s", first, identity, sum,
                 identity == 0 ? "but the plm numbers them from 1"
                               : "past the largest vpid");
        return HNP_ERR_BAD_PARAM;
    }
    *vpid = (hnp_vpid_t)sum;
    return HNP_SUCCESS;
}
