/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who a daemon started by a launcher's own command is when that command
 * started daemons added to a running job (hnpd --plm NAME --first-vpid F):
 * the plm numbers the command's daemons from 1 on the command's first
 * node, the job from F. Pure: the caller gives both numbers.
 */
#ifndef HNPD_IDENTITY_H
#define HNPD_IDENTITY_H

#include <stddef.h>

#include "hnp_errors.h"
#include "hnp_tree.h"

/**
 * The vpid of the daemon the plm calls @p identity (1 is the command's
 * first) among daemons numbered from @p first_text (decimal, at least 1) into *@p vpid. HNP_ERR_BAD_PARAM,
 * with @p err naming the value and what was expected, when @p first_text
 * is no such number or the sum passes the largest vpid.
 */
int hnpd_added_vpid(const char *first_text, hnp_vpid_t identity,
                    hnp_vpid_t *vpid, char *err, size_t errlen);

#endif /* HNPD_IDENTITY_H */
