/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_mca.h
 * @brief The descriptor every component exports, and the version rules.
 *
 * A component is a shared object `mca_<framework>_<name>.so` exporting one
 * symbol, `mca_<framework>_<name>_component` (declared HNP_COMPONENT_EXPORT):
 * a const hnp_mca_component_t, the same struct in every framework. What the
 * component does for its framework is the module its query returns: the
 * struct of the framework's header, one for each of the four frameworks
 * (hnp_plm_module_t, hnp_routed_module_t, hnp_exchange_module_t,
 * hnp_pmi_module_t).
 * The loader reads @c mca_abi_version first, and only when it matches does
 * it look at anything else: then the framework and component names (which
 * must agree with the file name), the framework interface version, and
 * that there is a query.
 *
 * Version rules. HNP_MCA_ABI_VERSION changes when the layout of this header
 * changes; a component built for another one is never used. A framework's
 * interface version is major.minor.release: a component is usable when it
 * was built for the same major and a minor no newer than the running hnp's.
 */
#ifndef HNP_MCA_H
#define HNP_MCA_H

#include <stdint.h>

#include "hnp_errors.h"
#include "hnp_export.h"
#include "hnp_param.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Layout version of hnp_mca_component_t. */
#define HNP_MCA_ABI_VERSION 1u

/**
 * Message tags (hnp_rte_send(), hnp_rte_recv(), hnp_rte_serve() of
 * hnp_rte.h), 1..HNP_TAG_USER_LAST. The core owns 1..99; each framework
 * owns a hundred, shared by its components; 500..HNP_TAG_USER_LAST belong
 * to no framework yet and no component may use them.
 *
 * The rule for a component: every tag it uses lies in its framework's
 * hundred and is listed in its descriptor's @c tags. The loader reserves
 * them for it and refuses a component that lists a tag outside its
 * framework's hundred, or one another loaded component (of any framework)
 * has reserved, naming both. So pick tags no other component you may be
 * installed beside lists: `hnp-info --parsable` shows each component's
 * tags (mca:FW:NAME:tags:...). The in-tree components keep to the low end
 * of each hundred (gather_scatter +0 and +1, flood +10, pmix +50): a third
 * party's start from +90 down.
 */
enum {
    HNP_TAG_PLM_FIRST = 100,      /**< 100..199: plm components */
    HNP_TAG_EXCHANGE_FIRST = 200, /**< 200..299: exchange components */
    HNP_TAG_ROUTED_FIRST = 300,   /**< 300..399: routed components */
    HNP_TAG_PMI_FIRST = 400,      /**< 400..499: pmi components */
    HNP_TAG_FRAMEWORK_RANGE = 100, /**< tags a framework owns */
    HNP_TAG_USER_LAST = 999,
};

/** Room for a framework or component name, with its terminating NUL. */
#define HNP_MCA_NAME_LEN 32

/** A version number major.minor.release packed in 32 bits. */
#define HNP_MCA_VERSION(major, minor, release)                              \
    ((uint32_t)(((major) & 0xffu) << 16 | ((minor) & 0xffu) << 8 |          \
                ((release) & 0xffu)))
#define HNP_MCA_VERSION_MAJOR(v) (((v) >> 16) & 0xffu)
#define HNP_MCA_VERSION_MINOR(v) (((v) >> 8) & 0xffu)
#define HNP_MCA_VERSION_RELEASE(v) ((v) & 0xffu)

struct hnp_mca_component;

/**
 * The component descriptor.
 *
 * Every entry point may be NULL except @c query (a component without one is
 * refused). They are called in this order, each at most once per process:
 * register_params, open (only when the user's selection list allows the
 * component), query (only when open succeeded), close (only when open
 * succeeded).
 */
typedef struct hnp_mca_component {
    uint32_t mca_abi_version;          /**< HNP_MCA_ABI_VERSION */
    char framework[HNP_MCA_NAME_LEN];  /**< "plm", "routed", "exchange",
                                            "pmi" */
    char name[HNP_MCA_NAME_LEN];       /**< "rsh", "radix", ... */
    uint32_t interface_version;        /**< the framework's, at build time */
    uint32_t component_version;        /**< the component's own */

    /** Register the component's parameters. HNP_ERR_BAD_PARAM (a value the
     *  user set does not parse) fails the whole framework, so a typo never
     *  silently drops a component; any other error skips the component. */
    int (*register_params)(const struct hnp_mca_component *self,
                           hnp_params_t *params);
    /** Prepare for use. HNP_ERR_NOT_AVAILABLE: not usable here, silently. */
    int (*open)(const struct hnp_mca_component *self);
    /**
     * Offer a module. Set *module to the framework's module struct and
     * *priority (higher wins), and return HNP_SUCCESS; or return
     * HNP_ERR_NOT_AVAILABLE to decline. HNP_ERR_BAD_PARAM: the value of
     * one of its parameters is one it cannot work with (it logs which and
     * why); the selection of the framework then fails, before anything
     * is launched, rather than run with another component.
     */
    int (*query)(const struct hnp_mca_component *self, const void **module,
                 int *priority);
    /** Release what open acquired. */
    int (*close)(const struct hnp_mca_component *self);

    /** The message tags the component uses, ended by 0; NULL: none. Each
     *  lies in its framework's hundred (see the rule above); the loader
     *  refuses the component if one is outside it or reserved by another
     *  component already. (Carved from what was room to grow, zero in a
     *  component built before: the layout is unchanged.) */
    const uint32_t *tags;
    void *reserved[7]; /**< room to grow; zero */
} hnp_mca_component_t;

/**
 * Marks a component's descriptor, the one symbol its shared object exports:
 * compile the component with -fvisibility=hidden and declare or define the
 * descriptor `HNP_COMPONENT_EXPORT const ... mca_<framework>_<name>_component`.
 * An in-tree component linked into the programs (--disable-dlopen) is
 * compiled with HNP_COMPONENT_BUILTIN and keeps its descriptor hidden there.
 */
#ifdef HNP_COMPONENT_BUILTIN
#define HNP_COMPONENT_EXPORT
#else
#define HNP_COMPONENT_EXPORT HNP_EXPORT
#endif

/** Fill the common header in a component's static initializer. */
#define HNP_MCA_COMPONENT_INIT(fw, comp, iface_version, comp_version)       \
    .mca_abi_version = HNP_MCA_ABI_VERSION, .framework = fw, .name = comp,  \
    .interface_version = (iface_version),                                   \
    .component_version = (comp_version)

#ifdef __cplusplus
}
#endif

#endif /* HNP_MCA_H */
