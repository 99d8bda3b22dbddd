/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: host lists and hostfiles (runtime/hosts), what a user or a
 * batch system hands hnp: Slurm-style ranges, --host, hostfile lines.
 *
 * Input layout (make-corpus.sh writes seeds in it):
 *   byte 0    the parser, modulo 3: 0 a host expression
 *             (hnp_hostlist_expand), 1 a --host list, 2 a hostfile
 *   then      the text (a NUL ends the first two early, as it would a C
 *             string; a hostfile is read as a file, NULs and all)
 *
 * Besides the sanitizers, the target checks what the parsers promise:
 * every name expanded is non-empty and expands, alone, to itself; a node
 * list has every name once, and a refused input leaves the caller's list
 * as it was (one node is in it before each parse).
 */
#define _GNU_SOURCE /* memfd_create */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "hosts/hostlist.h"

#define ERRLEN 512

static void check_expand(const char *text)
{
    char **names, **alone;
    size_t count, n;
    char err[ERRLEN];

    if (hnp_hostlist_expand(text, &names, &count, err, sizeof(err)) !=
        HNP_SUCCESS) {
        FUZZ_CHECK(err[0] != '\0');
        return;
    }
    FUZZ_CHECK(count > 0);
    /* The first few: a name is a name, not an expression. */
    for (size_t i = 0; i < count && i < 64; i++) {
        FUZZ_CHECK(names[i] != NULL && names[i][0] != '\0');
        FUZZ_CHECK(hnp_hostlist_expand(names[i], &alone, &n, err,
                                       sizeof(err)) == HNP_SUCCESS);
        FUZZ_CHECK(n == 1 && strcmp(alone[0], names[i]) == 0);
        hnp_hostlist_free(alone, n);
    }
    hnp_hostlist_free(names, count);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every name once; the node that was there first is still first. */
static void check_list(const hnp_nodelist_t *list)
{
    FUZZ_CHECK(list->count >= 1 && strcmp(list->nodes[0].name, "first") == 0);
    FUZZ_CHECK(list->capacity == 0 || list->count <= list->capacity);
    char **sorted = malloc(list->count * sizeof(*sorted));
    if (sorted == NULL)
        abort();
    for (size_t i = 0; i < list->count; i++) {
        sorted[i] = list->nodes[i].name;
        FUZZ_CHECK(sorted[i] != NULL && sorted[i][0] != '\0');
    }
    qsort(sorted, list->count, sizeof(*sorted), by_name);
    for (size_t i = 1; i < list->count; i++)
        FUZZ_CHECK(strcmp(sorted[i - 1], sorted[i]) != 0);
    free(sorted);
}

/* A hostfile is read by path: a memory file of exactly the input. */
static int parse_hostfile(hnp_nodelist_t *list, const uint8_t *data,
                          size_t size, char *err, size_t errlen)
{
    static int fd = -1;
    char path[64];

    if (fd < 0 && (fd = memfd_create("hostfile", 0)) < 0)
        abort();
    if (ftruncate(fd, 0) != 0 ||
        (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    return hnp_nodelist_parse_hostfile(list, path, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hnp_nodelist_t list = { NULL, 0, 0 };
    char err[ERRLEN];
    int rc;

    if (size < 1)
        return 0;
    unsigned mode = data[0] % 3;
    char *text = malloc(size);
    if (text == NULL)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (mode == 0) {
        check_expand(text);
        free(text);
        return 0;
    }
    FUZZ_CHECK(hnp_nodelist_add(&list, "first", 2, true) == HNP_SUCCESS);
    if (mode == 1)
        rc = hnp_nodelist_parse_hosts(&list, text, err, sizeof(err));
    else
        rc = parse_hostfile(&list, data + 1, size - 1, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(err[0] != '\0');
        FUZZ_CHECK(list.count == 1 && list.nodes[0].slots == 2);
    }
    check_list(&list);
    hnp_nodelist_free(&list);
    free(text);
    return 0;
}
