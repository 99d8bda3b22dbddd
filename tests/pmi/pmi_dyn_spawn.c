/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Spawn with PMI-1 and PMI-2 as MPICH's clients write it, and the
 * spawned children's checks.
 *
 *   pmi_dyn spawn1|spawn2 PROG WDIR HOST [HOST2]
 *        rank 0 spawns two programs (MPI_Comm_spawn_multiple): 2 copies
 *        of PROG in child mode with info wdir=WDIR and host=HOST, and 1
 *        with no info (with HOST2: info hosts=HOST2, its own host); one
 *        preput key, PARENT_ROOT_PORT_NAME; then asks
 *        for two spawns that must be refused (no such program; a host
 *        outside the allocation) and prints their answers
 *   pmi_dyn each1|each2 PROG H0,H1,...
 *        every rank at once (after a barrier) spawns 1 copy of PROG in
 *        child mode with info host its own entry of the list (the last
 *        for the ranks after it) and prints "rank R: spawnV onto H ok"
 *   pmi_dyn spawnlate1 PROG HOST DIR
 *        says it runs (DIR/ready), waits for DIR/go, then spawns 1 copy
 *        of PROG in child mode onto HOST (PMI-1) and checks the answer
 *   pmi_dyn child1|child2 PORT [SPAWNER]
 *        a spawned child: checks that it was told it was spawned
 *        (PMI_SPAWNED=1; PMI-2 fullinit's spawner-jobid, SPAWNER), that
 *        PARENT_ROOT_PORT_NAME in its kvs is PORT, that its appnum and
 *        universe size are sane; prints "child R appnum A node N cwd D:
 *        spawned ok"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmi_dyn.h"

#define PORT_NAME "tag#0$description#parent-port$"

static char spawner_jobid[256], fullinit_appnum[32];

void dyn_fullinit_answer(const char *answer)
{
    const char *s = dyn_field(answer, "spawner-jobid");

    snprintf(spawner_jobid, sizeof(spawner_jobid), "%s", s != NULL ? s : "");
    s = dyn_field(answer, "appnum");
    snprintf(fullinit_appnum, sizeof(fullinit_appnum), "%s",
             s != NULL ? s : "?");
}

/* ------------------------------------------------------------ PMI-1 */

/* One mcmd=spawn block as MPICH 4.0's PMI_Spawn_multiple writes it. */
static void v1_block(char *out, size_t cap, const char *exe, int nprocs,
                     int total, int sofar, const char *const *args,
                     const char *const *info)
{
    size_t n = (size_t)snprintf(out, cap, "mcmd=spawn\nnprocs=%d\n"
                                "execname=%s\ntotspawns=%d\nspawnssofar=%d\n",
                                nprocs, exe, total, sofar);
    int argc = 0, ninfo = 0;

    for (; args != NULL && args[argc] != NULL; argc++)
        n += (size_t)snprintf(out + n, cap - n, "arg%d=%s\n", argc + 1,
                              args[argc]);
    n += (size_t)snprintf(out + n, cap - n, "argcnt=%d\npreput_num=1\n"
                          "preput_key_0=PARENT_ROOT_PORT_NAME\n"
                          "preput_val_0=%s\n", argc, PORT_NAME);
    while (info != NULL && info[2 * ninfo] != NULL)
        ninfo++;
    n += (size_t)snprintf(out + n, cap - n, "info_num=%d\n", ninfo);
    for (int i = 0; i < ninfo; i++)
        n += (size_t)snprintf(out + n, cap - n,
                              "info_key_%d=%s\ninfo_val_%d=%s\n", i,
                              info[2 * i], i, info[2 * i + 1]);
    snprintf(out + n, cap - n, "endcmd\n");
}

static void spawn1_one(const char *exe, const char *const *info, char *line)
{
    char req[DYN_LINE];
    const char *args[] = { "child1", PORT_NAME, NULL };

    v1_block(req, sizeof(req), exe, 1, 1, 1, args, info);
    dyn_ask(req, line, DYN_LINE);
}

static int spawn1(const char *prog, const char *wdir, const char *host,
                  const char *host2)
{
    char req[DYN_LINE], line[DYN_LINE];
    const char *args[] = { "child1", PORT_NAME, NULL };
    const char *info[] = { "wdir", wdir, "host", host, NULL };
    const char *info2[] = { "hosts", host2, NULL };
    const char *bad_host[] = { "host", "no-such-node-of-this-job", NULL };

    if (dyn_rank != 0)
        return 0;
    /* two programs, two blocks, one answer after the second */
    v1_block(req, sizeof(req), prog, 2, 2, 1, args, info);
    dyn_send(req);
    v1_block(req, sizeof(req), prog, 1, 2, 2, args,
             host2 != NULL ? info2 : NULL);
    dyn_ask(req, line, sizeof(line));
    dyn_expect("spawn of 2 programs", line, "spawn_result", 0);
    printf("parent: spawn1 ok\n");
    spawn1_one("/no/such/program", NULL, line);
    dyn_expect("spawn of a missing program", line, "spawn_result", -1);
    printf("parent: missing program refused: %s\n", dyn_field(line, "msg"));
    spawn1_one(prog, bad_host, line);
    dyn_expect("spawn on an unknown host", line, "spawn_result", -1);
    printf("parent: unknown host refused: %s\n", dyn_field(line, "msg"));
    return 0;
}

/* ------------------------------------------------------------ PMI-2 */

static void v2_app(char *out, size_t cap, const char *exe, int nprocs,
                   const char *spawner, const char *const *info)
{
    size_t n = strlen(out);
    int ninfo = 0;

    n += (size_t)snprintf(out + n, cap - n, "subcmd=%s;maxprocs=%d;argc=3;"
                          "argv0=child2;argv1=%s;argv2=%s;", exe, nprocs,
                          PORT_NAME, spawner);
    while (info != NULL && info[2 * ninfo] != NULL)
        ninfo++;
    n += (size_t)snprintf(out + n, cap - n, "infokeycount=%d;", ninfo);
    for (int i = 0; i < ninfo; i++)
        n += (size_t)snprintf(out + n, cap - n, "infokey%d=%s;infoval%d=%s;",
                              i, info[2 * i], i, info[2 * i + 1]);
}

static void spawn2_one(const char *exe, const char *const *info, char *line)
{
    char req[DYN_LINE] = "cmd=spawn;ncmds=1;preputcount=0;";

    v2_app(req, sizeof(req), exe, 1, "none", info);
    dyn_ask(req, line, DYN_LINE);
}

static int spawn2(const char *prog, const char *wdir, const char *host,
                  const char *host2)
{
    char req[DYN_LINE], line[DYN_LINE], me[256];
    const char *info[] = { "wdir", wdir, "host", host, NULL };
    const char *info2[] = { "hosts", host2, NULL };
    const char *bad_host[] = { "host", "no-such-node-of-this-job", NULL };
    const char *jobid;

    if (dyn_rank != 0)
        return 0;
    /* this job's id, which the children must be told */
    dyn_ask("cmd=job-getid;", line, sizeof(line));
    dyn_expect("job-getid", line, "job-getid-response", 0);
    snprintf(me, sizeof(me), "%s", dyn_field(line, "jobid"));
    snprintf(req, sizeof(req), "cmd=spawn;ncmds=2;preputcount=1;"
             "ppkey0=PARENT_ROOT_PORT_NAME;ppval0=%s;", PORT_NAME);
    v2_app(req, sizeof(req), prog, 2, me, info);
    v2_app(req, sizeof(req), prog, 1, me, host2 != NULL ? info2 : NULL);
    dyn_ask(req, line, sizeof(line));
    dyn_expect("spawn of 2 programs", line, "spawn-response", 0);
    jobid = dyn_field(line, "jobid");
    if (jobid == NULL || jobid[0] == '\0' || strcmp(jobid, me) == 0)
        dyn_fail("spawn-response without the new job's id: %s", line);
    printf("parent: spawn2 ok\n");
    spawn2_one("/no/such/program", NULL, line);
    dyn_expect("spawn of a missing program", line, "spawn-response", -1);
    printf("parent: missing program refused: %s\n",
           dyn_field(line, "errmsg"));
    spawn2_one(prog, bad_host, line);
    dyn_expect("spawn on an unknown host", line, "spawn-response", -1);
    printf("parent: unknown host refused: %s\n", dyn_field(line, "errmsg"));
    return 0;
}

/* ------------------------------------------------------------ at once */

/* The @p rank-th entry of the comma-separated @p list (the last one
 * past its end), into @p out. */
static void nth_host(const char *list, int rank, char *out, size_t len)
{
    const char *at = list, *comma;

    for (int i = 0; i < rank && (comma = strchr(at, ',')) != NULL; i++)
        at = comma + 1;
    comma = strchr(at, ',');
    snprintf(out, len, "%.*s", (int)(comma != NULL ? (size_t)(comma - at)
                                                   : strlen(at)), at);
}

static int spawn_each(int version, const char *prog, const char *hosts)
{
    char host[256], line[DYN_LINE], me[256] = "";
    char req[DYN_LINE];
    const char *info[] = { "host", host, NULL };

    nth_host(hosts, dyn_rank, host, sizeof(host));
    if (version == 2) {
        dyn_ask("cmd=job-getid;", line, sizeof(line));
        dyn_expect("job-getid", line, "job-getid-response", 0);
        snprintf(me, sizeof(me), "%s", dyn_field(line, "jobid"));
    }
    dyn_barrier(); /* the spawns go at once */
    if (version == 1) {
        spawn1_one(prog, info, line);
        dyn_expect("spawn onto a node of its own", line, "spawn_result", 0);
    } else {
        snprintf(req, sizeof(req), "cmd=spawn;ncmds=1;preputcount=1;"
                 "ppkey0=PARENT_ROOT_PORT_NAME;ppval0=%s;", PORT_NAME);
        v2_app(req, sizeof(req), prog, 1, me, info);
        dyn_ask(req, line, sizeof(line));
        dyn_expect("spawn onto a node of its own", line, "spawn-response",
                   0);
    }
    printf("rank %d: spawn%d onto %s ok\n", dyn_rank, version, host);
    return 0;
}

/* A spawn when the test says so (it may have stopped a daemon first). */
static int spawn_late(const char *prog, const char *host, const char *dir)
{
    char line[DYN_LINE], path[4096];
    const char *info[] = { "host", host, NULL };
    FILE *f;

    snprintf(path, sizeof(path), "%s/ready", dir);
    if ((f = fopen(path, "w")) == NULL || fclose(f) != 0)
        dyn_fail("cannot write %s", path);
    snprintf(path, sizeof(path), "%s/go", dir);
    if (dyn_wait_for_file(path) != 0)
        dyn_fail("%s never came", path);
    spawn1_one(prog, info, line);
    dyn_expect("spawn of children that end at once", line, "spawn_result", 0);
    printf("parent: spawnlate1 ok\n");
    fflush(stdout);
    return 0;
}

/* ------------------------------------------------------------ children */

static int child(int version, const char *port, const char *spawner)
{
    char line[DYN_LINE], req[512], cwd[4096], kvs[256];
    const char *value, *appnum;

    if (version == 1) {
        const char *s = getenv("PMI_SPAWNED");
        if (s == NULL || strcmp(s, "1") != 0)
            dyn_fail("PMI_SPAWNED is %s, not 1", s != NULL ? s : "unset");
        dyn_ask("cmd=get_universe_size\n", line, sizeof(line));
        value = dyn_field(line, "size");
        if (value == NULL || atoi(value) < 1)
            dyn_fail("universe size: %s", line);
        dyn_ask("cmd=get_appnum\n", line, sizeof(line));
        appnum = dyn_field(line, "appnum");
        snprintf(req, sizeof(req), "%s", appnum != NULL ? appnum : "?");
        dyn_ask("cmd=get_my_kvsname\n", line, sizeof(line));
        snprintf(kvs, sizeof(kvs), "%s", dyn_field(line, "kvsname"));
        appnum = req;
        char get[512];
        snprintf(get, sizeof(get), "cmd=get kvsname=%s "
                 "key=PARENT_ROOT_PORT_NAME\n", kvs);
        dyn_ask(get, line, sizeof(line));
        dyn_expect("get PARENT_ROOT_PORT_NAME", line, "get_result", 0);
    } else {
        if (strcmp(spawner_jobid, spawner) != 0)
            dyn_fail("fullinit's spawner-jobid is \"%s\", not %s",
                     spawner_jobid, spawner);
        appnum = fullinit_appnum;
        dyn_ask("cmd=kvs-get;jobid=;srcid=-1;key=PARENT_ROOT_PORT_NAME;",
                line, sizeof(line));
        dyn_expect("kvs-get PARENT_ROOT_PORT_NAME", line,
                   "kvs-get-response", 0);
    }
    value = dyn_field(line, "value");
    if (value == NULL || strcmp(value, port) != 0)
        dyn_fail("PARENT_ROOT_PORT_NAME is not %s: %s", port, line);
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        strcpy(cwd, "?");
    dyn_finalize();
    printf("child %d appnum %s node %s cwd %s: spawned ok\n", dyn_rank,
           appnum, getenv("HNP_NODE") != NULL ? getenv("HNP_NODE") : "?",
           cwd);
    return 0;
}

int dyn_spawn_main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if ((strcmp(mode, "spawn1") == 0 || strcmp(mode, "spawn2") == 0) &&
        (argc == 5 || argc == 6)) {
        const char *host2 = argc == 6 ? argv[5] : NULL;
        dyn_init(mode[5] - '0');
        int rc = mode[5] == '1' ? spawn1(argv[2], argv[3], argv[4], host2)
                                : spawn2(argv[2], argv[3], argv[4], host2);
        dyn_finalize();
        return rc;
    }
    if ((strcmp(mode, "each1") == 0 || strcmp(mode, "each2") == 0) &&
        argc == 4) {
        dyn_init(mode[4] - '0');
        int rc = spawn_each(mode[4] - '0', argv[2], argv[3]);
        dyn_finalize();
        return rc;
    }
    if (strcmp(mode, "spawnlate1") == 0 && argc == 5) {
        dyn_init(1);
        int rc = spawn_late(argv[2], argv[3], argv[4]);
        dyn_finalize();
        return rc;
    }
    if (strcmp(mode, "child1") == 0 && argc == 3) {
        dyn_init(1);
        return child(1, argv[2], NULL);
    }
    if (strcmp(mode, "child2") == 0 && argc == 4) {
        dyn_init(2);
        return child(2, argv[2], argv[3]);
    }
    fprintf(stderr, "usage: %s names1|names2 TAG | publish1 NAME PORT DIR "
            "| lookup1 NAME | spawn1|spawn2 PROG WDIR HOST [HOST2] | "
            "each1|each2 PROG HOSTS | spawnlate1 PROG HOST DIR | child1 "
            "PORT | child2 PORT SPAWNER\n",
            argv[0]);
    return 2;
}
