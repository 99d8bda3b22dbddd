/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI-1 wire as the test clients speak it, with no MPI library: one
 * connection (PMI_FD), one request line at a time, answers in order.
 * Shared by pmi_fence and pmi_puts.
 */
#ifndef HNP_TEST_PMI1_CLIENT_H
#define HNP_TEST_PMI1_CLIENT_H

#include <stddef.h>

/** Room for the job's kvs name, with its NUL. */
#define PMI1_KVSNAME_LEN 300

/** Connect as PMI_FD and PMI_RANK say, init (PMI-1.1) and learn the
 *  job's kvs name into @p kvs. 0, or -1 when the environment or the
 *  server's answers are not what a PMI-1 server gives. */
int pmi1_start(int *rank, char kvs[PMI1_KVSNAME_LEN]);
/** Send @p request (one line, with its newline) and read the answer into
 *  @p answer; exits with status 2 when the request cannot be written. */
void pmi1_ask(const char *request, char *answer, size_t cap);
/** The integer after @p key in @p line, or -1. */
int pmi1_field(const char *line, const char *key);
/** cmd=finalize, and its answer. */
void pmi1_finalize(void);

#endif /* HNP_TEST_PMI1_CLIENT_H */
