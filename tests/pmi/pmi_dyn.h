/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI test client of dynamic processes (pmi_dyn.c: the wire, names;
 * pmi_dyn_spawn.c: spawn and the spawned children).
 */
#ifndef HNP_TEST_PMI_DYN_H
#define HNP_TEST_PMI_DYN_H

#include <stdbool.h>
#include <stddef.h>

#define DYN_LINE 4096

extern int dyn_rank;

void dyn_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
                                                    noreturn));
/** Connect (PMI_FD) and init in PMI-@p version (1 or 2: then fullinit). */
void dyn_init(int version);
void dyn_send(const char *request);
void dyn_recv(char *answer, size_t cap);
void dyn_ask(const char *request, char *answer, size_t cap);
const char *dyn_field(const char *answer, const char *key);
void dyn_expect(const char *what, const char *answer, const char *cmd,
                int rc);
void dyn_barrier(void);
/** 0 once @p path exists; -1 if it never comes (within 2 minutes). */
int dyn_wait_for_file(const char *path);
void dyn_finalize(void);

/* pmi_dyn_spawn.c */
/** What fullinit answered (PMI-2): spawner-jobid is kept. */
void dyn_fullinit_answer(const char *answer);
int dyn_spawn_main(int argc, char **argv);

#endif /* HNP_TEST_PMI_DYN_H */
