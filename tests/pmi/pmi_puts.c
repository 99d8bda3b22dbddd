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

int main(int argc, char **argv)
{
    static char line[8192], req[8192], kvs[300], value[4096];
    const char *env_fd = getenv("PMI_FD"), *env_rank = getenv("PMI_RANK");
    long count, vallen, ok = 0;
    int rank;

    if (argc < 3 || env_fd == NULL || env_rank == NULL)
        return 3;
    fd = atoi(env_fd);
    rank = atoi(env_rank);
    count = rank == 0 ? atol(argv[1]) : 1;
    vallen = atol(argv[2]);
    if (vallen <= 0 || vallen >= (long)sizeof(value))
        return 3;
    memset(value, 'a' + rank % 26, (size_t)vallen);
    say("cmd=init pmi_version=1 pmi_subversion=1\n");
    hear(line, sizeof(line));
    say("cmd=get_my_kvsname\n");
    hear(line, sizeof(line));
    if (strstr(line, "kvsname=") == NULL ||
        sscanf(strstr(line, "kvsname="), "kvsname=%299s", kvs) != 1)
        return 3;
    for (long i = 0; i < count; i++) {
        snprintf(req, sizeof(req), "cmd=put kvsname=%s key=r%d-%ld "
                 "value=%s\n", kvs, rank, i, value);
        say(req);
        hear(line, sizeof(line));
        if (strstr(line, "rc=0") != NULL)
            ok++;
        else if (ok == i)
            printf("rank %d: put %ld refused: %s\n", rank, i, line);
    }
    printf("rank %d: %ld of %ld puts ok\n", rank, ok, count);
    fflush(stdout);
    if (argc < 4 || strcmp(argv[3], "nofence") != 0) {
        say("cmd=barrier_in\n");
        hear(line, sizeof(line));
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=r0-0\n", kvs);
        say(req);
        hear(line, sizeof(line));
        if (strstr(line, "rc=0") == NULL) {
            printf("rank %d: rank 0's first key: %s\n", rank, line);
            return 1;
        }
    }
    say("cmd=finalize\n");
    hear(line, sizeof(line));
    return 0;
}
