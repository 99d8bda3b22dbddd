/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMI-2 client for tests/pmi/mpich.sh, built on Slurm's libpmi2 (the
 * MPICH PMI-2 client Slurm ships): init, job id and process mapping, a put
 * whose value needs escaping, a fence, every rank's value back, node
 * attributes (the last rank puts one the others wait for), finalize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/pmi2.h>

#define CHECK(call)                                                       \
    do {                                                                  \
        int rc_ = (call);                                                 \
        if (rc_ != PMI2_SUCCESS) {                                        \
            fprintf(stderr, "%s failed: %d\n", #call, rc_);               \
            return 1;                                                     \
        }                                                                 \
    } while (0)

static void value_of(int rank, char *buf, size_t len)
{
    /* ';' must survive the wire's escaping; the length, MPICH's limit. */
    int n = snprintf(buf, len, "rank;%d;", rank);
    memset(buf + n, 'a' + rank % 26, len - 1 - (size_t)n);
    buf[len - 1] = '\0';
}

int main(void)
{
    int spawned, size, rank, appnum, found, len;
    char jobid[256], map[PMI2_MAX_VALLEN], key[64];
    char want[PMI2_MAX_VALLEN], got[PMI2_MAX_VALLEN + 1];

    CHECK(PMI2_Init(&spawned, &size, &rank, &appnum));
    CHECK(PMI2_Job_GetId(jobid, sizeof(jobid)));
    CHECK(PMI2_Info_GetJobAttr("PMI_process_mapping", map, sizeof(map),
                               &found));
    if (!found)
        return fprintf(stderr, "no PMI_process_mapping\n"), 1;
    snprintf(key, sizeof(key), "card-%d", rank);
    value_of(rank, want, sizeof(want));
    CHECK(PMI2_KVS_Put(key, want));
    CHECK(PMI2_KVS_Fence());
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof(key), "card-%d", r);
        value_of(r, want, sizeof(want));
        CHECK(PMI2_KVS_Get(jobid, r, key, got, sizeof(got), &len));
        if (strcmp(got, want) != 0)
            return fprintf(stderr, "rank %d: wrong value for %s\n", rank,
                           key), 1;
    }
    if (rank == size - 1)
        CHECK(PMI2_Info_PutNodeAttr("shm-seg", "/dev/shm/hnp-test"));
    CHECK(PMI2_Info_GetNodeAttr("shm-seg", got, sizeof(got), &found, 1));
    if (!found || strcmp(got, "/dev/shm/hnp-test") != 0)
        return fprintf(stderr, "rank %d: node attribute missing\n", rank), 1;
    printf("pmi2 rank %d of %d: jobid %s mapping %s ok\n", rank, size, jobid,
           map);
    CHECK(PMI2_Finalize());
    return 0;
}
