/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file routed_direct.h
 * @brief The `direct` routed component: every daemon talks to the HNP.
 *
 * The topology is the flat tree (hnp_tree_kary() with k = 0): the HNP is
 * every daemon's parent and a daemon has no children, so a message between
 * two daemons goes through the HNP. It is the vanilla ORTE star: simple and
 * short for small jobs, but the HNP holds one connection per daemon.
 */
#ifndef ROUTED_DIRECT_H
#define ROUTED_DIRECT_H

#include "hnp_routed.h"

/** The module the component offers (routed_direct_module.c). */
extern const hnp_routed_module_t routed_direct_module;

#endif /* ROUTED_DIRECT_H */
