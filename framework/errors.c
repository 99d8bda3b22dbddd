/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The end of a message of @p full bytes cut to fit @p len says so. */
static void mark_cut(char *buf, size_t len, size_t full)
{
    char tail[48];
    size_t kept = len - 1, taillen = 0;

    if (len < 2 * sizeof(tail))
        return; /* too small a buffer to say it and still say something */
    /* Twice: the count's digits change what fits before the tail. */
    for (int pass = 0; pass < 2; pass++) {
        taillen = (size_t)snprintf(tail, sizeof(tail), "... (%zu bytes cut)",
                                   full - (len - 1 - taillen));
        kept = len - 1 - taillen;
    }
    memcpy(buf + kept, tail, taillen + 1);
}

void hnp_err_set(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0)
        return;
    va_start(ap, fmt);
    int full = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (full >= 0 && (size_t)full >= len)
        mark_cut(buf, len, (size_t)full);
}
