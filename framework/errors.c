/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "hnp_errors.h"

const char *hnp_strerror(int code)
{
    switch (code) {
    case HNP_SUCCESS: return "success";
    case HNP_ERR_NOMEM: return "out of memory";
    case HNP_ERR_BAD_PARAM: return "bad value";
    case HNP_ERR_NOT_FOUND: return "not found";
    case HNP_ERR_EXISTS: return "already exists";
    case HNP_ERR_NOT_AVAILABLE: return "not available";
    case HNP_ERR_VERSION: return "version mismatch";
    case HNP_ERR_LOAD: return "load failed";
    case HNP_ERR_IO: return "input/output error";
    case HNP_ERR_TRUNCATED: return "truncated";
    case HNP_ERR_UNREACHABLE: return "unreachable";
    case HNP_ERR_TIMEOUT: return "timed out";
    default: return "error";
    }
}

void hnp_err_set(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}
