/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file plm_rsh.h
 * @brief The `rsh` plm component: the vanilla launch.
 *
 * The HNP starts every daemon itself through the remote-shell agent, at most
 * plm_rsh_num_concurrent at a time, and every daemon calls back to the HNP:
 * the spawn tree is flat (a star). Simple and robust, and the baseline the
 * tree launchers are measured against.
 */
#ifndef PLM_RSH_H
#define PLM_RSH_H

#include "hnp_plm.h"

extern const hnp_plm_module_t plm_rsh_module;

#endif /* PLM_RSH_H */
