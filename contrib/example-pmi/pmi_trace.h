/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pmi_trace.h
 * @brief `trace`, an example pmi component built outside the hnp tree: an
 * observer.
 *
 * It serves no interface to the ranks (its module's @c serves is 0) and
 * asks to see every job (HNP_PMI_NEEDS_EVERY_JOB): hnp loads it in every
 * daemon that runs ranks, whatever the job's programs speak, and calls its
 * hooks as it calls those of the components that serve them. It logs each
 * hook, on the `pmi` log stream (`--mca pmi_base_verbose 1`) and, when
 * `pmi_trace_dir` names a directory, as one line in the file NODE.log
 * there (NODE the daemon's node name). What sites build this way:
 * accounting, tracing, a prolog and an epilog, a container hook.
 *
 * Each rank also gets PMI_TRACE_NODE, its node's number (hnp numbers nodes
 * from 1: node n is run by daemon n), through hnp_pmi_fork_setenv().
 *
 * Only installed hnp headers are used, found through
 * `pkg-config --cflags hnp-component`.
 */
#ifndef PMI_TRACE_H
#define PMI_TRACE_H

#include <hnp_pmi.h>

/** Below the in-tree components: an observer's priority only orders the
 *  hooks among the active components (highest first). */
#define PMI_TRACE_DEFAULT_PRIORITY 5

/** `pmi_trace_dir` and `pmi_trace_priority`, bound at registration. */
extern char *pmi_trace_dir;
extern int pmi_trace_priority;

/** The component descriptor, the one symbol the shared object exports. */
HNP_COMPONENT_EXPORT
extern const hnp_mca_component_t mca_pmi_trace_component;

/** The module the component offers (pmi_trace_module.c). */
extern const hnp_pmi_module_t pmi_trace_module;

#endif /* PMI_TRACE_H */
