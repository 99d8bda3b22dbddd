/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMI-1 client with no MPI library: puts a value as long as the server
 * allows, fences, and reads back the values of two other ranks — what an
 * MPI library does at MPI_Init, at the scale the tests want.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;

static void say(const char *line)
{
    size_t len = strlen(line);

    if (write(fd, line, len) != (ssize_t)len)
        exit(2);
}

/* One answer line (the server answers in order). */
static void hear(char *buf, size_t cap)
{
    size_t n = 0;

    while (n + 1 < cap && read(fd, buf + n, 1) == 1 && buf[n] != '\n')
        n++;
    buf[n] = '\0';
}

static int field(const char *line, const char *key)
{
    const char *p = strstr(line, key);

    return p != NULL ? atoi(p + strlen(key)) : -1;
}

static void value_of(int rank, int len, char *out)
{
    for (int i = 0; i < len; i++)
        out[i] = (char)('a' + (rank + i) % 26);
    out[len] = '\0';
}

int main(void)
{
    static char line[8192], want[4096], req[8192], kvs[300];
    int rank, size, vallen;

    fd = atoi(getenv("PMI_FD") ? getenv("PMI_FD") : "-1");
    rank = atoi(getenv("PMI_RANK") ? getenv("PMI_RANK") : "-1");
    say("cmd=init pmi_version=1 pmi_subversion=1\n");
    hear(line, sizeof(line));
    say("cmd=get_maxes\n");
    hear(line, sizeof(line));
    vallen = field(line, "vallen_max=");
    say("cmd=get_my_kvsname\n");
    hear(line, sizeof(line));
    sscanf(strstr(line, "kvsname="), "kvsname=%299s", kvs);
    size = atoi(getenv("PMI_SIZE"));
    if (vallen <= 0 || vallen > 4000)
        return 3;
    value_of(rank, vallen - 1, want);
    snprintf(req, sizeof(req), "cmd=put kvsname=%s key=k%d value=%s\n", kvs,
             rank, want);
    say(req);
    hear(line, sizeof(line));
    say("cmd=barrier_in\n");
    hear(line, sizeof(line));
    for (int k = 1; k <= 2; k++) {
        int other = (rank + k * size / 3 + 1) % size;
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=k%d\n", kvs, other);
        say(req);
        hear(line, sizeof(line));
        value_of(other, vallen - 1, want);
        const char *got = strstr(line, "value=");
        if (got == NULL || strcmp(got + 6, want) != 0) {
            printf("rank %d: wrong value for rank %d\n", rank, other);
            return 1;
        }
    }
    say("cmd=finalize\n");
    hear(line, sizeof(line));
    printf("rank %d: %d-byte values of 2 others ok\n", rank, vallen - 1);
    return 0;
}
