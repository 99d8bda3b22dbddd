/* SPDX-License-Identifier: BSD-3-Clause */
#include "pmi1_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pmi1_fd = -1;

static void say(const char *line)
{
    size_t len = strlen(line);

    if (write(pmi1_fd, line, len) != (ssize_t)len)
        exit(2);
}

/* One answer line (the server answers in order). */
static void hear(char *buf, size_t cap)
{
    size_t n = 0;

    while (n + 1 < cap && read(pmi1_fd, buf + n, 1) == 1 && buf[n] != '\n')
        n++;
    buf[n] = '\0';
}

void pmi1_ask(const char *request, char *answer, size_t cap)
{
    say(request);
    hear(answer, cap);
}

int pmi1_field(const char *line, const char *key)
{
    const char *p = strstr(line, key);

    return p != NULL ? atoi(p + strlen(key)) : -1;
}

int pmi1_start(int *rank, char kvs[PMI1_KVSNAME_LEN])
{
    const char *env_fd = getenv("PMI_FD"), *env_rank = getenv("PMI_RANK");
    char line[1024];
    const char *at;

    if (env_fd == NULL || env_rank == NULL)
        return -1;
    pmi1_fd = atoi(env_fd);
    *rank = atoi(env_rank);
    pmi1_ask("cmd=init pmi_version=1 pmi_subversion=1\n", line, sizeof(line));
    if (pmi1_field(line, "rc=") != 0)
        return -1;
    pmi1_ask("cmd=get_my_kvsname\n", line, sizeof(line));
    at = strstr(line, "kvsname=");
    if (at == NULL || sscanf(at, "kvsname=%299s", kvs) != 1)
        return -1;
    return 0;
}

void pmi1_finalize(void)
{
    char line[256];

    pmi1_ask("cmd=finalize\n", line, sizeof(line));
}
