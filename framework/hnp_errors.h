/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_errors.h
 * @brief Error codes shared by the core and every component.
 *
 * Functions return HNP_SUCCESS (0) or a negative HNP_ERR_* code. A caller
 * that needs a sentence for a human passes an error buffer that the callee
 * fills (see hnp_err_set()).
 */
#ifndef HNP_ERRORS_H
#define HNP_ERRORS_H

#include <stddef.h>

#include "hnp_export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HNP_SUCCESS = 0,
    HNP_ERROR = -1,             /**< unspecified failure */
    HNP_ERR_NOMEM = -2,         /**< out of memory */
    HNP_ERR_BAD_PARAM = -3,     /**< an argument or value is malformed */
    HNP_ERR_NOT_FOUND = -4,     /**< no such name, file or entry */
    HNP_ERR_EXISTS = -5,        /**< already registered or present */
    HNP_ERR_NOT_AVAILABLE = -6, /**< a component declines to run here */
    HNP_ERR_VERSION = -7,       /**< built against another version */
    HNP_ERR_LOAD = -8,          /**< a shared object failed to load */
    HNP_ERR_IO = -9,            /**< a read or write failed (see errno) */
    HNP_ERR_TRUNCATED = -10,    /**< input ended early or buffer too small */
    HNP_ERR_UNREACHABLE = -11,  /**< no route to the destination */
    HNP_ERR_TIMEOUT = -12,      /**< a deadline passed */
};

/** A short, static description of an HNP_ERR_* code. */
HNP_EXPORT const char *hnp_strerror(int code);

/**
 * Fill an error buffer printf-style. Does nothing when @p buf is NULL or
 * @p len is 0, so callees can report unconditionally. A message longer than
 * the buffer ends with "... (N bytes cut)", so that a reader knows it is
 * not whole.
 */
HNP_EXPORT void hnp_err_set(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* HNP_ERRORS_H */
