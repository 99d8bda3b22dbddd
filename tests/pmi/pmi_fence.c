/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMI-1 client with no MPI library: puts a value as long as the server
 * allows, fences, and reads back the values of two other ranks — what an
 * MPI library does at MPI_Init, at the scale the tests want.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi1_client.h"

static void value_of(int rank, int len, char *out)
{
    for (int i = 0; i < len; i++)
        out[i] = (char)('a' + (rank + i) % 26);
    out[len] = '\0';
}

int main(void)
{
    static char line[8192], want[4096], req[8192], kvs[PMI1_KVSNAME_LEN];
    int rank, size, vallen;

    if (pmi1_start(&rank, kvs) != 0 || getenv("PMI_SIZE") == NULL)
        return 3;
    pmi1_ask("cmd=get_maxes\n", line, sizeof(line));
    vallen = pmi1_field(line, "vallen_max=");
    size = atoi(getenv("PMI_SIZE"));
    if (vallen <= 0 || vallen > 4000)
        return 3;
    value_of(rank, vallen - 1, want);
    snprintf(req, sizeof(req), "cmd=put kvsname=%s key=k%d value=%s\n", kvs,
             rank, want);
    pmi1_ask(req, line, sizeof(line));
    pmi1_ask("cmd=barrier_in\n", line, sizeof(line));
    for (int k = 1; k <= 2; k++) {
        int other = (rank + k * size / 3 + 1) % size;
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=k%d\n", kvs, other);
        pmi1_ask(req, line, sizeof(line));
        value_of(other, vallen - 1, want);
        const char *got = strstr(line, "value=");
        if (got == NULL || strcmp(got + 6, want) != 0) {
            printf("rank %d: wrong value for rank %d\n", rank, other);
            return 1;
        }
    }
    pmi1_finalize();
    printf("rank %d: %d-byte values of 2 others ok\n", rank, vallen - 1);
    return 0;
}
