/* SPDX-License-Identifier: BSD-3-Clause */
/* --output-filename's directory: DIR/rank.N/stdout and stderr (outdir.c). */
#ifndef HNP_OUTDIR_H
#define HNP_OUTDIR_H

#include <stddef.h>
#include <stdint.h>

typedef struct hnp_outdir hnp_outdir_t;

/**
 * Before launch: create @p dir and its missing parents, as mkdir -p does,
 * then DIR/rank.N and, empty, DIR/rank.N/stdout and stderr for ranks 0 to
 * @p nranks - 1: directories 0700, files 0600. Refuses, naming the path,
 * anything below DIR that hnp did not make: a symbolic link, a path that is
 * not a directory or a regular file, another user's, a file with other hard
 * links. @p dir itself is followed, as the user gave it.
 */
int hnp_outdir_create(hnp_outdir_t **out, const char *dir, uint32_t nranks,
                      char *err, size_t errlen);

/** Open DIR/rank.@p rank/@p stream to write, emptied, with the same checks:
 *  a descriptor (close-on-exec), or a negative HNP_ERR_* and a message. */
int hnp_outdir_open(const hnp_outdir_t *od, uint32_t rank, const char *stream,
                    char *err, size_t errlen);

void hnp_outdir_destroy(hnp_outdir_t *od);

#endif /* HNP_OUTDIR_H */
