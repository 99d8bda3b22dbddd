/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only component claiming a component-architecture version this hnp
 * does not have: the loader must reject it before reading any other field.
 * The name fields are deliberately garbage (not NUL-terminated) to prove it.
 */
#include "config.h"

#include "hnp_routed.h"

HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_routed_badabi_component;

const hnp_mca_component_t mca_routed_badabi_component = {
    .mca_abi_version = HNP_MCA_ABI_VERSION + 1,
    .framework = "routedroutedroutedroutedroutedXX",
    .name = "badabibadabibadabibadabibadabiXX",
    .interface_version = HNP_ROUTED_INTERFACE_VERSION,
    .component_version = HNP_MCA_VERSION(1, 0, 0),
};
