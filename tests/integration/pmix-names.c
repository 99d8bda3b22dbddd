/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMIx client of name publishing as Open MPI's connect/accept uses it:
 * a lookup that waits (PMIX_WAIT) for a name published after it was
 * asked, answered when the publish comes; a waiting lookup with a
 * PMIX_TIMEOUT that passes, answered "not found"; a name another rank
 * publishes, looked up with PMIX_WAIT, whatever comes first. Prints
 * "rank R: pmix names ok", or "FAIL: ..." and exits 1.
 *
 * "pmix-names family": rank 0 publishes a name, spawns a copy of this
 * program ("family-child"), which looks the name up (its job is of the
 * parent's family) and publishes what it found; the parent waits for
 * that and prints "family ok: VALUE".
 */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pmix_proc_t me;

static void fail(const char *what, pmix_status_t rc)
{
    printf("FAIL: rank %u: %s (%s)\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

typedef struct waited {
    volatile bool done;
    pmix_status_t status;
    char value[256];
} waited_t;

static void looked_up(pmix_status_t status, pmix_pdata_t data[], size_t ndata,
                      void *cbdata)
{
    waited_t *w = cbdata;

    w->status = status;
    if (status == PMIX_SUCCESS && ndata == 1 &&
        data[0].value.type == PMIX_STRING)
        snprintf(w->value, sizeof(w->value), "%s", data[0].value.data.string);
    w->done = true;
}

static void publish(const char *key, const char *value)
{
    pmix_info_t info;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
    if ((rc = PMIx_Publish(&info, 1)) != PMIX_SUCCESS)
        fail("publish", rc);
    PMIX_INFO_DESTRUCT(&info);
}

static void wait_info(pmix_info_t info[2], int timeout)
{
    bool yes = true;

    PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
}

static int family(const char *self)
{
    char *cargv[] = { (char *)self, "family-child", NULL };
    pmix_info_t info[2];
    pmix_pdata_t pdata;
    pmix_nspace_t nspace = "";
    pmix_app_t app;
    pmix_status_t rc;

    if (me.rank != 0)
        return 0;
    publish("family-key", "from-the-parent");
    memset(&app, 0, sizeof(app));
    app.cmd = cargv[0];
    app.argv = cargv;
    app.maxprocs = 1;
    if ((rc = PMIx_Spawn(NULL, 0, &app, 1, nspace)) != PMIX_SUCCESS)
        fail("PMIx_Spawn", rc);
    PMIX_PDATA_CONSTRUCT(&pdata);
    PMIX_LOAD_KEY(pdata.key, "child-saw");
    /* a bound a starved child meets; past it the child published where
     * the parent cannot see */
    wait_info(info, 120);
    if ((rc = PMIx_Lookup(&pdata, 1, info, 2)) != PMIX_SUCCESS)
        fail("lookup of what the child saw", rc);
    printf("family ok: %s\n", pdata.value.type == PMIX_STRING
                                  ? pdata.value.data.string : "?");
    return 0;
}

static int family_child(void)
{
    pmix_pdata_t pdata;
    pmix_status_t rc;

    PMIX_PDATA_CONSTRUCT(&pdata);
    PMIX_LOAD_KEY(pdata.key, "family-key");
    rc = PMIx_Lookup(&pdata, 1, NULL, 0);
    publish("child-saw", rc == PMIX_SUCCESS &&
                             pdata.value.type == PMIX_STRING
                         ? pdata.value.data.string : "nothing");
    return 0;
}

int main(int argc, char **argv)
{
    pmix_info_t info[2];
    pmix_pdata_t pdata;
    pmix_status_t rc;
    char *keys[2] = { NULL, NULL };
    waited_t w = { 0 };
    char key[64];

    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        fail("PMIx_Init", rc);
    if (argc > 1) {
        int status = strcmp(argv[1], "family") == 0 ? family(argv[0])
                     : strcmp(argv[1], "family-child") == 0 ? family_child()
                                                            : 2;
        fflush(stdout);
        PMIx_Finalize(NULL, 0);
        return status;
    }
    /* asked first, published after: answered by the publish */
    snprintf(key, sizeof(key), "later-%u", me.rank);
    keys[0] = key;
    wait_info(info, 0);
    if ((rc = PMIx_Lookup_nb(keys, info, 1, looked_up, &w)) != PMIX_SUCCESS)
        fail("PMIx_Lookup_nb", rc);
    publish(key, "came-later");
    for (int i = 0; !w.done && i < 120 * 100; i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (!w.done)
        fail("a waiting lookup was never answered", PMIX_ERR_TIMEOUT);
    if (w.status != PMIX_SUCCESS || strcmp(w.value, "came-later") != 0)
        fail("the waiting lookup's answer", w.status);
    /* a wait with a timeout that passes */
    PMIX_PDATA_CONSTRUCT(&pdata);
    PMIX_LOAD_KEY(pdata.key, "never-published");
    wait_info(info, 1);
    rc = PMIx_Lookup(&pdata, 1, info, 2);
    if (rc == PMIX_SUCCESS)
        fail("a lookup of a name never published succeeded", rc);
    /* rank 0's name, seen by every rank */
    if (me.rank == 0)
        publish("from-rank-0", "zero");
    PMIX_PDATA_CONSTRUCT(&pdata);
    PMIX_LOAD_KEY(pdata.key, "from-rank-0");
    wait_info(info, 0);
    if ((rc = PMIx_Lookup(&pdata, 1, info, 1)) != PMIX_SUCCESS)
        fail("lookup of rank 0's name", rc);
    if (pdata.value.type != PMIX_STRING ||
        strcmp(pdata.value.data.string, "zero") != 0 ||
        pdata.proc.rank != 0)
        fail("rank 0's name: another value or publisher", PMIX_ERROR);
    /* everyone has read it before rank 0 leaves (its names go with the
     * job, not the rank, but a clean end is one fence away) */
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        fail("fence", rc);
    printf("rank %u: pmix names ok\n", me.rank);
    PMIx_Finalize(NULL, 0);
    return 0;
}
