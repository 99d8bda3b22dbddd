/* SPDX-License-Identifier: BSD-3-Clause */
/* hnp's checks of the programs before launch (prelaunch.c). */
#ifndef HNP_PRELAUNCH_H
#define HNP_PRELAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "pmi_base.h"

/** Whether @p prog (looked up in PATH like execvp) links a library that
 *  needs PMIx: its name into @p lib, and whether it is Open MPI's
 *  libmpi. A program that cannot be read needs nothing. */
bool hnp_program_needs_pmix(const char *prog, char *lib, size_t liblen,
                            bool *open_mpi);

/** The pmi interfaces (HNP_PMI_SERVES_*) @p prog (looked up in PATH) can
 *  use: those of the MPI it links; PMI-1/2, which any program can speak,
 *  when it links none; all when it can load or run another program, or
 *  that cannot be told. */
uint32_t hnp_program_pmi_uses(const char *prog);

/** Set each app's pmi_uses; refuse (HNP_ERR_NOT_AVAILABLE, with a
 *  message naming the program) an app that needs PMIx when no component
 *  of @p pmi serves it. */
int hnp_prelaunch_check(hnp_args_t *args, const hnp_pmi_active_t *pmi,
                        char *err, size_t errlen);

/** The active pmi components the job needs, "a,b" into @p buf (""
 *  for none): those that serve an interface one of its apps can use,
 *  and those that see every job (HNP_PMI_NEEDS_EVERY_JOB). */
void hnp_prelaunch_pmi_names(const hnp_args_t *args,
                             const hnp_pmi_active_t *pmi, char *buf,
                             size_t len);
/** The name of the first component the job starts that has @p flag
 *  (HNP_PMI_NEEDS_*), or NULL. */
const char *hnp_prelaunch_pmi_needing(const hnp_args_t *args,
                                      const hnp_pmi_active_t *pmi,
                                      uint32_t flag);
/** The HNP_PMI_NEEDS_* flags of the components the job starts. */
uint32_t hnp_prelaunch_pmi_needs(const hnp_args_t *args,
                                 const hnp_pmi_active_t *pmi);

#endif /* HNP_PRELAUNCH_H */
