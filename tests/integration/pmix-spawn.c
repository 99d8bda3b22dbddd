/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMIx_Spawn under hnp, as Open MPI's MPI_Comm_spawn calls it, without
 * the MPI library's rendezvous around it: this program spawns copies of
 * itself and each copy says what it was given.
 *
 *   pmix-spawn N [HOSTS [PROGRAM [MODE]]]
 *                          rank 0 spawns N children (on HOSTS, "" for any;
 *                          PROGRAM instead of this one, "" for this one),
 *                          prints the outcome and exits
 *   pmix-spawn child [MODE]
 *                          (what the children run) print rank, job size,
 *                          host, SPAWN_TEST and cwd; MODE "abort": child 0
 *                          then aborts with status 5; MODE "outlive": each
 *                          child first waits for its parent process to be
 *                          gone (SPAWN_PARENT_PID) and says so
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

static int child(const pmix_proc_t *me, const char *mode)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    unsigned size = 0;
    char host[256] = "", cwd[4096] = "";
    const char *var = getenv("SPAWN_TEST");

    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS &&
        val != NULL) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    gethostname(host, sizeof(host));
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        strcpy(cwd, "?");
    if (strcmp(mode, "outlive") == 0) {
        const char *pid = getenv("SPAWN_PARENT_PID");
        while (pid != NULL && kill((pid_t)atol(pid), 0) == 0)
            usleep(10000);
        printf("child %u outlived its parent\n", me->rank);
    }
    printf("child %u of %u on %s: SPAWN_TEST=%s cwd=%s\n", me->rank, size,
           host, var != NULL ? var : "(unset)", cwd);
    fflush(stdout);
    if (strcmp(mode, "abort") == 0 && me->rank == 0)
        PMIx_Abort(5, "child 0 gives up", NULL, 0);
    return 0;
}

static int parent(const pmix_proc_t *me, int argc, char **argv)
{
    char *cargv[] = { argc > 3 && argv[3][0] != '\0' ? argv[3] : argv[0],
                      "child", argc > 4 ? argv[4] : "", NULL };
    char pid[64];
    char *env[] = { "SPAWN_TEST=given", pid, NULL };
    char cwd[4096];
    pmix_app_t app;
    pmix_info_t info[2];
    pmix_nspace_t nspace = "";
    pmix_status_t rc;
    size_t ninfo = 0;

    if (me->rank != 0) /* rank 0 spawns for the job */
        return 0;
    snprintf(pid, sizeof(pid), "SPAWN_PARENT_PID=%ld", (long)getpid());
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        strcpy(cwd, "/");
    memset(&app, 0, sizeof(app));
    app.cmd = cargv[0];
    app.argv = cargv;
    app.env = env;
    app.maxprocs = atoi(argv[1]);
    PMIX_INFO_LOAD(&info[ninfo], PMIX_WDIR, cwd, PMIX_STRING);
    ninfo++;
    if (argc > 2 && argv[2][0] != '\0') {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_HOST, argv[2], PMIX_STRING);
        ninfo++;
    }
    app.info = info;
    app.ninfo = ninfo;
    rc = PMIx_Spawn(NULL, 0, &app, 1, nspace);
    if (rc == PMIX_SUCCESS)
        printf("spawned %d children: %s\n", app.maxprocs,
               nspace[0] != '\0' ? "named" : "NO NAME");
    else
        printf("spawn failed: %s\n", PMIx_Error_string(rc));
    fflush(stdout);
    return rc == PMIX_SUCCESS ? 0 : 3;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    int status;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed\n");
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        status = child(&me, argc > 2 ? argv[2] : "");
    else if (argc > 1)
        status = parent(&me, argc, argv);
    else
        status = 2;
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return status;
}
