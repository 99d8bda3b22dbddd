/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A copy of an array of strings in one block: the pointers first, then
 * the characters. A daemon keeps the node names of the runtime and of
 * each job it serves; one allocation a copy, where a strdup a name cost
 * every daemon of a 1,024-node job a thousand mallocs and frees per job.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rte.h"

char **hnp_rte_strings_copy(uint32_t n, char *const *strings,
                            const char *for_null)
{
    size_t chars = 0;
    char **copy;
    char *at;

    for (uint32_t i = 0; strings != NULL && i < n; i++) {
        const char *s = strings[i] != NULL ? strings[i] : for_null;
        if (s != NULL)
            chars += strlen(s) + 1;
    }
    copy = calloc(1, ((size_t)n + 1) * sizeof(*copy) + chars);
    if (copy == NULL)
        return NULL;
    at = (char *)(copy + n + 1);
    for (uint32_t i = 0; strings != NULL && i < n; i++) {
        const char *s = strings[i] != NULL ? strings[i] : for_null;
        if (s == NULL)
            continue;
        size_t len = strlen(s) + 1;
        memcpy(at, s, len);
        copy[i] = at;
        at += len;
    }
    return copy;
}
