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

/**
 * Whether no descriptor from @p first to @p end - 1 is open (one poll(2)
 * of them): then each open one is below @p first, which bounds how many
 * are open without counting them in /proc (whose listing costs far more).
 * False when unknown, or when the range is larger than
 * HNP_FD_PROBE_MAX.
 */
#define HNP_FD_PROBE_MAX 4096u
bool hnp_fd_none_open(uint32_t first, uint32_t end);

#endif /* HNP_FDLIMIT_H */
