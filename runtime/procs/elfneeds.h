/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared libraries a program names (its DT_NEEDED entries), read from
 * its ELF file: how hnp tells, before launch, a program that cannot run
 * without a pmi interface none of its components serves. 64-bit
 * little-endian ELF only; anything else is "unreadable", never an error a
 * user sees.
 */
#ifndef HNP_ELFNEEDS_H
#define HNP_ELFNEEDS_H

#include <stdbool.h>
#include <stddef.h>

/** Call @p fn with each DT_NEEDED name of the ELF file @p path, in order,
 *  until it returns true. HNP_SUCCESS, or HNP_ERR_NOT_FOUND (no such
 *  file), HNP_ERR_BAD_PARAM (not a 64-bit little-endian ELF with a
 *  dynamic section: a script, a static program), HNP_ERR_IO. */
int hnp_elf_needed_each(const char *path,
                        bool (*fn)(void *ctx, const char *lib), void *ctx);

#endif /* HNP_ELFNEEDS_H */
