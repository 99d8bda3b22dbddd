/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one child gets besides its program: variables (later wins per
 * name) and descriptors it inherits. The pmi components fill it through
 * hnp_pmi_fork_setenv() and hnp_pmi_fork_keep_fd() (hnp_pmi.h), and the
 * daemon with its own rank variables; odls forks with the result.
 */
#ifndef HNP_FORKENV_H
#define HNP_FORKENV_H

#include <stddef.h>

#include "hnp_pmi.h"

hnp_pmi_fork_t *hnp_fork_create(void);
/** Frees, closing the descriptors still held. NULL is ignored. */
void hnp_fork_destroy(hnp_pmi_fork_t *fork);
/**
 * The child's environment: @p base ("NAME=value", NULL-terminated) less
 * the names @p fork sets, then @p fork's variables. Strings are shared
 * with @p base and @p fork (free only the array); NULL without memory.
 */
char **hnp_fork_environ(const hnp_pmi_fork_t *fork, char *const *base);
/** The descriptors the child inherits (valid until destroy). */
const int *hnp_fork_fds(const hnp_pmi_fork_t *fork, size_t *count);

#endif /* HNP_FORKENV_H */
