/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMIx client for hnp's tests: a direct-modex request still out when
 * its job ends.
 *
 *   pmix-held GATE     rank 0 asks for a key that rank 1 never puts
 *                      (PMIx_Get without a timeout: its daemon asks rank
 *                      1's daemon, which holds the request); rank 1 says
 *                      "ready", waits for the file GATE (at most 120 s)
 *                      and exits with status 7 without PMIx_Finalize,
 *                      which ends the job while rank 0 still waits
 *   pmix-held          every rank puts a key, fences, reads its
 *                      neighbour's, and says "fenced RANK of SIZE"
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int plain(const pmix_proc_t *me)
{
    pmix_proc_t wild, next;
    pmix_value_t value, *got = NULL;
    pmix_info_t collect;
    bool yes = true;
    uint32_t size = 0;
    char mine[64];

    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got) != PMIX_SUCCESS ||
        got == NULL) {
        fprintf(stderr, "rank %u: no job size\n", me->rank);
        return 1;
    }
    size = got->data.uint32;
    PMIX_VALUE_RELEASE(got);
    snprintf(mine, sizeof(mine), "value of %u", me->rank);
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_STRING;
    value.data.string = mine;
    if (PMIx_Put(PMIX_GLOBAL, "hnptest.key", &value) != PMIX_SUCCESS ||
        PMIx_Commit() != PMIX_SUCCESS) {
        fprintf(stderr, "rank %u: put failed\n", me->rank);
        return 1;
    }
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIx_Fence(&wild, 1, &collect, 1) != PMIX_SUCCESS) {
        fprintf(stderr, "rank %u: fence failed\n", me->rank);
        return 1;
    }
    PMIX_LOAD_PROCID(&next, me->nspace, (me->rank + 1) % size);
    char want[64];
    snprintf(want, sizeof(want), "value of %u", next.rank);
    if (PMIx_Get(&next, "hnptest.key", NULL, 0, &got) != PMIX_SUCCESS ||
        got == NULL || got->type != PMIX_STRING ||
        strcmp(got->data.string, want) != 0) {
        fprintf(stderr, "rank %u: the key of rank %u is wrong\n", me->rank,
                next.rank);
        return 1;
    }
    PMIX_VALUE_RELEASE(got);
    printf("fenced %u of %u\n", me->rank, size);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, peer;
    pmix_value_t *got = NULL;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed\n");
        return 1;
    }
    if (argc < 2) {
        int rc = plain(&me);
        PMIx_Finalize(NULL, 0);
        return rc;
    }
    if (me.rank == 0) {
        printf("asking\n");
        fflush(stdout);
        PMIX_LOAD_PROCID(&peer, me.nspace, 1);
        pmix_status_t rc = PMIx_Get(&peer, "hnptest.never", NULL, 0, &got);
        printf("answered: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 0;
    }
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 12000 && access(argv[1], F_OK) != 0; i++)
        usleep(10000);
    _exit(7);
}
