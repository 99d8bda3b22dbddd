/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_export.h
 * @brief HNP_EXPORT: the mark of the installed API.
 *
 * hnp is compiled with hidden visibility: nothing of the runtime is seen
 * outside the program it is linked into, except the functions that the
 * installed headers declare HNP_EXPORT. Those are what a component loaded
 * at run time may call, and the programs export them to it; every one has
 * the `hnp_` prefix (tests/integration/symbols.sh checks both).
 */
#ifndef HNP_EXPORT_H
#define HNP_EXPORT_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define HNP_EXPORT __attribute__((visibility("default")))
#else
#define HNP_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* HNP_EXPORT_H */
