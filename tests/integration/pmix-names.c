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
 *
 * "pmix-names types": rank 0 publishes, in one PMIx_Publish, a value of
 * each of PMIX_INT, PMIX_UINT32, PMIX_UINT64, PMIX_SIZE, PMIX_DOUBLE,
 * PMIX_BOOL, PMIX_PROC, PMIX_DATA_ARRAY (of PMIX_UINT32), PMIX_STRING and
 * PMIX_BYTE_OBJECT (whose bytes begin as a packed value's mark would);
 * every other rank looks them all up in one PMIx_Lookup with PMIX_WAIT
 * and checks each type and value exactly. Prints "rank R: pmix types ok".
 *
 * "pmix-names race [ROUNDS]": each rank, ROUNDS times over (100), looks a
 * name of its own up with PMIX_WAIT and then publishes it, so that the
 * server answers the publish and the waiting lookup at the same moment;
 * both must be answered, the lookup with the value, within 60 s. Prints
 * "rank R: pmix race ok".
 *
 * "pmix-names persist": rank 0 publishes "pmix-int" (PMIX_INT 42) and
 * "pmix-str" (PMIX_STRING "from-pmix") to outlive the job
 * (PMIX_PERSIST_INDEF), for PMI lookups of later jobs; prints
 * "persist ok".
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
    bool done; /* set last, on libpmix's thread */
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
    __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
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

#define NTYPES 10
static const char *const type_keys[NTYPES] = {
    "t-int", "t-uint32", "t-uint64", "t-size", "t-double",
    "t-bool", "t-proc", "t-array", "t-string", "t-bytes",
};
static const uint32_t array_of[3] = { 7, 0, 4294967295u };
static const char bytes_of[4] = { (char)0xff, 0, 'x', 0 };

/* The value published as type_keys[i]. */
static void type_value(size_t i, pmix_value_t *v)
{
    int i32 = -42;
    uint32_t u32 = 4000000000u;
    uint64_t u64 = 0xfedcba9876543210ull;
    size_t sz = (size_t)1 << 40;
    /* libpmix carries a double as printf's "%f" (six decimals), from the
     * client to its server already: one that text holds exactly */
    double d = -1234.5625;
    bool b = true;
    pmix_proc_t p;
    pmix_data_array_t da = { .type = PMIX_UINT32, .size = 3,
                             .array = (void *)array_of };
    pmix_byte_object_t bo = { .bytes = (char *)bytes_of,
                              .size = sizeof(bytes_of) };
    const void *data[NTYPES] = { &i32, &u32, &u64, &sz, &d, &b, &p, &da,
                                 "a string", &bo };
    const pmix_data_type_t type[NTYPES] = {
        PMIX_INT, PMIX_UINT32, PMIX_UINT64, PMIX_SIZE, PMIX_DOUBLE,
        PMIX_BOOL, PMIX_PROC, PMIX_DATA_ARRAY, PMIX_STRING,
        PMIX_BYTE_OBJECT,
    };

    PMIX_LOAD_PROCID(&p, me.nspace, 3);
    PMIX_VALUE_CONSTRUCT(v);
    PMIx_Value_load(v, data[i], type[i]);
}

/* @p got is exactly the value published as type_keys[i]. */
static bool same_value(size_t i, const pmix_value_t *got)
{
    pmix_value_t want;
    bool same;

    type_value(i, &want);
    same = got->type == want.type;
    switch (same ? want.type : PMIX_UNDEF) {
    case PMIX_INT: same = got->data.integer == want.data.integer; break;
    case PMIX_UINT32: same = got->data.uint32 == want.data.uint32; break;
    case PMIX_UINT64: same = got->data.uint64 == want.data.uint64; break;
    case PMIX_SIZE: same = got->data.size == want.data.size; break;
    case PMIX_DOUBLE: same = got->data.dval == want.data.dval; break;
    case PMIX_BOOL: same = got->data.flag == want.data.flag; break;
    case PMIX_PROC:
        same = got->data.proc != NULL &&
               PMIX_CHECK_PROCID(got->data.proc, want.data.proc);
        break;
    case PMIX_DATA_ARRAY:
        same = got->data.darray != NULL &&
               got->data.darray->type == PMIX_UINT32 &&
               got->data.darray->size == 3 &&
               memcmp(got->data.darray->array, array_of,
                      sizeof(array_of)) == 0;
        break;
    case PMIX_STRING:
        same = got->data.string != NULL &&
               strcmp(got->data.string, want.data.string) == 0;
        break;
    case PMIX_BYTE_OBJECT:
        same = got->data.bo.size == sizeof(bytes_of) &&
               memcmp(got->data.bo.bytes, bytes_of, sizeof(bytes_of)) == 0;
        break;
    default:
        same = false;
    }
    PMIX_VALUE_DESTRUCT(&want);
    return same;
}

static int types(void)
{
    pmix_info_t info[NTYPES + 1];
    pmix_pdata_t pdata[NTYPES];
    pmix_status_t rc;
    char what[128];

    if (me.rank == 0) {
        for (size_t i = 0; i < NTYPES; i++) {
            pmix_value_t v;
            type_value(i, &v);
            PMIX_INFO_CONSTRUCT(&info[i]);
            PMIX_LOAD_KEY(info[i].key, type_keys[i]);
            PMIx_Value_xfer(&info[i].value, &v);
            PMIX_VALUE_DESTRUCT(&v);
        }
        if ((rc = PMIx_Publish(info, NTYPES)) != PMIX_SUCCESS)
            fail("publish of a value of each type", rc);
        for (size_t i = 0; i < NTYPES; i++)
            PMIX_INFO_DESTRUCT(&info[i]);
    } else {
        for (size_t i = 0; i < NTYPES; i++) {
            PMIX_PDATA_CONSTRUCT(&pdata[i]);
            PMIX_LOAD_KEY(pdata[i].key, type_keys[i]);
        }
        wait_info(info, 0);
        if ((rc = PMIx_Lookup(pdata, NTYPES, info, 1)) != PMIX_SUCCESS)
            fail("lookup of a value of each type", rc);
        for (size_t i = 0; i < NTYPES; i++) {
            snprintf(what, sizeof(what), "'%s' came back as a %s, or "
                     "another value", type_keys[i],
                     PMIx_Data_type_string(pdata[i].value.type));
            if (!same_value(i, &pdata[i].value))
                fail(what, PMIX_ERROR);
            if (pdata[i].proc.rank != 0)
                fail("another publisher than rank 0", PMIX_ERROR);
            PMIX_PDATA_DESTRUCT(&pdata[i]);
        }
    }
    /* rank 0 stays until every rank has read its names */
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        fail("fence", rc);
    printf("rank %u: pmix types ok\n", me.rank);
    return 0;
}

/* Wait for @p w's answer (a bound a starved rank meets); false if none. */
static bool wait_answer(waited_t *w)
{
    for (int i = 0; !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) &&
                    i < 60 * 1000;
         i++) {
        struct timespec ts = { 0, 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

static void published(pmix_status_t status, void *cbdata)
{
    waited_t *w = cbdata;

    w->status = status;
    __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
}

/* Lookup with PMIX_WAIT of a name of ours, then its publish: both
 * answered, the lookup with the value. */
static void lookup_then_publish(const char *key, const char *value)
{
    char *keys[2] = { (char *)key, NULL };
    pmix_info_t info[2], put;
    waited_t w = { 0 }, p = { 0 };
    pmix_status_t rc;

    wait_info(info, 0);
    if ((rc = PMIx_Lookup_nb(keys, info, 1, looked_up, &w)) != PMIX_SUCCESS)
        fail("PMIx_Lookup_nb", rc);
    PMIX_INFO_LOAD(&put, key, value, PMIX_STRING);
    if ((rc = PMIx_Publish_nb(&put, 1, published, &p)) != PMIX_SUCCESS)
        fail("PMIx_Publish_nb", rc);
    if (!wait_answer(&p))
        fail("a publish was never answered", PMIX_ERR_TIMEOUT);
    if (p.status != PMIX_SUCCESS)
        fail("publish", p.status);
    if (!wait_answer(&w))
        fail("a waiting lookup was never answered", PMIX_ERR_TIMEOUT);
    if (w.status != PMIX_SUCCESS || strcmp(w.value, value) != 0)
        fail("the waiting lookup's answer", w.status);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&put);
}

static int race(int rounds)
{
    char key[64], value[64];
    pmix_status_t rc;

    for (int i = 0; i < rounds; i++) {
        snprintf(key, sizeof(key), "race-%u-%d", me.rank, i);
        snprintf(value, sizeof(value), "value-%d", i);
        lookup_then_publish(key, value);
    }
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        fail("fence", rc);
    printf("rank %u: pmix race ok\n", me.rank);
    return 0;
}

static int persist(void)
{
    pmix_persistence_t indef = PMIX_PERSIST_INDEF;
    pmix_info_t info[3];
    pmix_status_t rc;
    int answer = 42;

    if (me.rank != 0)
        return 0;
    PMIX_INFO_LOAD(&info[0], "pmix-int", &answer, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], "pmix-str", "from-pmix", PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_PERSISTENCE, &indef, PMIX_PERSIST);
    if ((rc = PMIx_Publish(info, 3)) != PMIX_SUCCESS)
        fail("persistent publish", rc);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    printf("persist ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    pmix_info_t info[2];
    pmix_pdata_t pdata;
    pmix_status_t rc;
    char key[64];

    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        fail("PMIx_Init", rc);
    if (argc > 1) {
        int status = strcmp(argv[1], "family") == 0 ? family(argv[0])
                     : strcmp(argv[1], "family-child") == 0 ? family_child()
                     : strcmp(argv[1], "types") == 0        ? types()
                     : strcmp(argv[1], "race") == 0
                         ? race(argc > 2 ? atoi(argv[2]) : 100)
                     : strcmp(argv[1], "persist") == 0      ? persist()
                                                            : 2;
        fflush(stdout);
        PMIx_Finalize(NULL, 0);
        return status;
    }
    /* asked first, published after: answered by the publish */
    snprintf(key, sizeof(key), "later-%u", me.rank);
    lookup_then_publish(key, "came-later");
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
