/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * This process's descriptor limit: raised to the most it may be at start
 * (hnp and hnpd hold a connection per neighbour and pipes per child), and
 * what is open now, for the HNP's plan. The soft limit it had before is
 * what the programs it starts get back (forkexec.c): a rank must not run
 * with a limit the user did not give it.
 */
#ifndef HNP_FDLIMIT_H
#define HNP_FDLIMIT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * Raise the soft RLIMIT_NOFILE to the hard one. *@p soft and *@p hard (may
 * be NULL) get the limits in force afterwards, clamped to UINT32_MAX.
 * HNP_ERR_IO when the limit could not be read; failing to raise it is no
 * error (the old limit stays, and is what *@p soft says).
 */
int hnp_fd_limit_raise(uint32_t *soft, uint32_t *hard);

/**
 * The soft limit this process had before its first hnp_fd_limit_raise()
 * into *@p soft: true when that raised it, false when the limit is still
 * the one it started with (or was never raised).
 */
bool hnp_fd_limit_original(uint64_t *soft);

/** The descriptors open in this process now, or -1 when unknown. */
int hnp_fd_count_open(void);

#endif /* HNP_FDLIMIT_H */
