/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared libraries a program names (its DT_NEEDED entries) and the
 * functions it imports, read from its ELF file: how hnp tells, before
 * launch, which pmi interfaces a program can use (none for /bin/true,
 * anything for a program that runs others or loads libraries). 64-bit
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

/** Call @p fn with the name of each symbol the dynamic ELF file @p path
 *  imports (undefined in its dynamic symbol table: the functions it calls
 *  in its libraries), until it returns true. The errors of
 *  hnp_elf_needed_each(); HNP_ERR_BAD_PARAM also for a file without
 *  section headers. */
int hnp_elf_imports_each(const char *path,
                         bool (*fn)(void *ctx, const char *sym), void *ctx);

#endif /* HNP_ELFNEEDS_H */
