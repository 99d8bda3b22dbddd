/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMI-1 client that stores more than an MPI library would: rank 0 puts
 * COUNT keys of VALLEN bytes, every other rank one, each waiting for its
 * answer; then, unless told "nofence", they fence and read one of rank
 * 0's keys back; they finalize. It says how many puts were accepted and the
 * first refusal as the server worded it.
 *
 *   pmi_puts COUNT VALLEN [nofence]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi1_client.h"

int main(int argc, char **argv)
{
    static char line[8192], req[8192], kvs[PMI1_KVSNAME_LEN], value[4096];
    long count, vallen, ok = 0;
    int rank;

    if (argc < 3 || pmi1_start(&rank, kvs) != 0)
        return 3;
    count = rank == 0 ? atol(argv[1]) : 1;
    vallen = atol(argv[2]);
    if (vallen <= 0 || vallen >= (long)sizeof(value))
        return 3;
    memset(value, 'a' + rank % 26, (size_t)vallen);
    for (long i = 0; i < count; i++) {
        snprintf(req, sizeof(req), "cmd=put kvsname=%s key=r%d-%ld "
                 "value=%s\n", kvs, rank, i, value);
        pmi1_ask(req, line, sizeof(line));
        if (strstr(line, "rc=0") != NULL)
            ok++;
        else if (ok == i)
            printf("rank %d: put %ld refused: %s\n", rank, i, line);
    }
    printf("rank %d: %ld of %ld puts ok\n", rank, ok, count);
    fflush(stdout);
    if (argc < 4 || strcmp(argv[3], "nofence") != 0) {
        pmi1_ask("cmd=barrier_in\n", line, sizeof(line));
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=r0-0\n", kvs);
        pmi1_ask(req, line, sizeof(line));
        if (strstr(line, "rc=0") == NULL) {
            printf("rank %d: rank 0's first key: %s\n", rank, line);
            return 1;
        }
    }
    pmi1_finalize();
    return 0;
}
