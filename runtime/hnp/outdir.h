/* SPDX-License-Identifier: BSD-3-Clause */
/* --output-filename's directory: DIR/1/rank.N/stdout and stderr (DIR/J
 * for job J of a DVM), Open
 * MPI 4.1's layout (outdir.c). */
#ifndef HNP_OUTDIR_H
#define HNP_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hnp_outdir hnp_outdir_t;

/**
 * Before launch: create @p dir and its missing parents, as mkdir -p does,
 * then DIR/1, DIR/1/rank.N and, empty, DIR/1/rank.N/stdout and stderr for
 * ranks 0 to @p nranks - 1, N with as many digits as @p nranks has:
 * directories 0700, files 0600. @p dir may end in Open MPI's directives,
 * ":nojobid" (no DIR/1 level) and ":nocopy" (hnp_outdir_nocopy()).
 * Refuses, naming the path, anything below DIR that hnp did not make: a
 * symbolic link, a path that is not a directory or a regular file, another
 * user's, a file with other hard links. @p dir itself is followed, as the
 * user gave it.
 */
int hnp_outdir_create(hnp_outdir_t **out, const char *dir, uint32_t job,
                      uint32_t nranks, char *err, size_t errlen);

/** Whether the output goes to the files only (DIR:nocopy). */
bool hnp_outdir_nocopy(const hnp_outdir_t *od);

/** Open DIR/1/rank.N/@p stream of rank @p rank to write, emptied, with the same checks:
 *  a descriptor (close-on-exec), or a negative HNP_ERR_* and a message. */
int hnp_outdir_open(const hnp_outdir_t *od, uint32_t rank, const char *stream,
                    char *err, size_t errlen);

void hnp_outdir_destroy(hnp_outdir_t *od);

#endif /* HNP_OUTDIR_H */
