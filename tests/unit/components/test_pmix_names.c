/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Name publishing of the pmix component (pmi_pmix_names.c and its
 * values, pmi_pmix_name_value.c) on libpmix's real server, with the
 * name service a stand-in of the HNP's table (pmix_doubles.c): a value
 * of each type published through the server module's upcall and looked
 * up through it, as it was published; strings and bytes kept as they
 * always were (the simple component's PMI names read the strings); and
 * values that claim to be packed and are not, which fail their lookup
 * with PMIX_ERR_UNPACK_FAILURE.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../loop_helpers.h"
#include "../../../components/pmi/pmix/pmi_pmix_internal.h"
#include "pmix_doubles.h"

#define BATCH 8 /* names in one publish, at most (the stand-in's) */

static char hostname[256];
static char tmpdir[] = "/tmp/hnp-pmix-names-XXXXXX";
static void *job_state;
static struct event *tick; /* turns the loop while libpmix's thread answers */
static pmix_proc_t publisher;

/* ---------------------------------------------------------- the values */

static const uint32_t array_of[3] = { 1, 0, 4294967295u };
static const char bytes_of[5] = { (char)0xff, 0, 'p', 0, (char)0xff };

typedef struct typed {
    const char *key;
    pmix_data_type_t type;
} typed_t;

static const typed_t typed[] = {
    { "int", PMIX_INT },       { "int8", PMIX_INT8 },
    { "int64", PMIX_INT64 },   { "uint32", PMIX_UINT32 },
    { "uint64", PMIX_UINT64 }, { "size", PMIX_SIZE },
    { "double", PMIX_DOUBLE }, { "float", PMIX_FLOAT },
    { "bool", PMIX_BOOL },     { "proc", PMIX_PROC },
    { "rank", PMIX_PROC_RANK }, { "array", PMIX_DATA_ARRAY },
    { "string", PMIX_STRING }, { "bytes", PMIX_BYTE_OBJECT },
    { "empty", PMIX_STRING },
};
#define NTYPED (sizeof(typed) / sizeof(typed[0]))

static void value_of(size_t i, pmix_value_t *v)
{
    int n = -7;
    int8_t i8 = -128;
    int64_t i64 = INT64_MIN;
    uint32_t u32 = 4000000000u;
    uint64_t u64 = UINT64_MAX;
    size_t sz = (size_t)1 << 40;
    double d = 0.125; /* libpmix carries six decimals ("%f") */
    float f = -2.5f;
    bool b = true;
    pmix_rank_t rank = 12;
    pmix_proc_t p;
    pmix_data_array_t da = { .type = PMIX_UINT32, .size = 3,
                             .array = (void *)array_of };
    pmix_byte_object_t bo = { .bytes = (char *)bytes_of,
                              .size = sizeof(bytes_of) };
    const void *data[NTYPED] = { &n, &i8, &i64, &u32, &u64, &sz, &d, &f, &b,
                                 &p, &rank, &da, "a string", &bo, "" };

    PMIX_LOAD_PROCID(&p, "another-namespace", 5);
    PMIX_VALUE_CONSTRUCT(v);
    assert_int_equal(PMIx_Value_load(v, data[i], typed[i].type),
                     PMIX_SUCCESS);
}

static void assert_value(size_t i, const pmix_value_t *got)
{
    pmix_value_t want;

    value_of(i, &want);
    assert_int_equal(got->type, want.type);
    switch (want.type) {
    case PMIX_PROC:
        assert_true(PMIX_CHECK_PROCID(got->data.proc, want.data.proc));
        break;
    case PMIX_DATA_ARRAY:
        assert_int_equal(got->data.darray->type, PMIX_UINT32);
        assert_int_equal(got->data.darray->size, 3);
        assert_memory_equal(got->data.darray->array, array_of,
                            sizeof(array_of));
        break;
    case PMIX_STRING:
        assert_string_equal(got->data.string, want.data.string);
        break;
    case PMIX_BYTE_OBJECT:
        assert_int_equal(got->data.bo.size, want.data.bo.size);
        assert_memory_equal(got->data.bo.bytes, want.data.bo.bytes,
                            want.data.bo.size);
        break;
    case PMIX_DOUBLE:
        assert_true(got->data.dval == want.data.dval);
        break;
    case PMIX_FLOAT:
        assert_true(got->data.fval == want.data.fval);
        break;
    case PMIX_INT:
        assert_int_equal(got->data.integer, want.data.integer);
        break;
    case PMIX_INT8:
        assert_int_equal(got->data.int8, want.data.int8);
        break;
    case PMIX_INT64:
        assert_true(got->data.int64 == want.data.int64);
        break;
    case PMIX_UINT32:
        assert_int_equal(got->data.uint32, want.data.uint32);
        break;
    case PMIX_UINT64:
        assert_true(got->data.uint64 == want.data.uint64);
        break;
    case PMIX_SIZE:
        assert_true(got->data.size == want.data.size);
        break;
    case PMIX_BOOL:
        assert_true(got->data.flag == want.data.flag);
        break;
    case PMIX_PROC_RANK:
        assert_int_equal(got->data.rank, want.data.rank);
        break;
    default:
        fail_msg("no check of type %s", PMIx_Data_type_string(want.type));
    }
    PMIX_VALUE_DESTRUCT(&want);
}

/* ------------------------------------------------------- the server's */

static void op_done(pmix_status_t status, void *cbdata)
{
    *(pmix_status_t *)cbdata = status;
}

typedef struct looked {
    bool done;
    pmix_status_t status;
    size_t count;
    pmix_pdata_t *data; /* copies */
} looked_t;

static void looked_up(pmix_status_t status, pmix_pdata_t data[], size_t ndata,
                      void *cbdata)
{
    looked_t *l = cbdata;

    l->status = status;
    l->count = data != NULL ? ndata : 0;
    if (l->count > 0) {
        PMIX_PDATA_CREATE(l->data, l->count);
        for (size_t i = 0; i < l->count; i++) {
            PMIX_LOAD_KEY(l->data[i].key, data[i].key);
            l->data[i].proc = data[i].proc;
            PMIx_Value_xfer(&l->data[i].value, &data[i].value);
        }
    }
    /* libpmix's thread: the lookup's answer is given there */
    __atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
}

static void looked_clear(looked_t *l)
{
    if (l->data != NULL)
        PMIX_PDATA_FREE(l->data, l->count);
    memset(l, 0, sizeof(*l));
}

/* Publish @p n of @p info through the server module. */
static pmix_status_t publish(const pmix_info_t *info, size_t n)
{
    pmix_status_t st = PMIX_ERR_TIMEOUT;
    pmix_status_t rc = pmi_pmix_publish(&publisher, info, n, op_done, &st);

    if (rc != PMIX_SUCCESS)
        return rc;
    assert_true(LOOP_UNTIL(doubles.base, 10.0, st != PMIX_ERR_TIMEOUT));
    return st;
}

static void lookup(const char *const *keys, looked_t *l)
{
    char *copy[BATCH + 1] = { NULL };
    size_t n = 0;

    for (; keys[n] != NULL; n++)
        copy[n] = (char *)keys[n];
    assert_int_equal(pmi_pmix_lookup(&publisher, copy, NULL, 0, looked_up,
                                     l), PMIX_SUCCESS);
    assert_true(LOOP_UNTIL(doubles.base, 10.0,
                           __atomic_load_n(&l->done, __ATOMIC_ACQUIRE)));
}

/* What the name service keeps as @p key (the stand-in's table). */
typedef struct kept {
    bool done;
    int status;
    char bytes[256];
    size_t len;
} kept_t;

static void kept_answer(hnp_rte_t *rte, int status,
                        const hnp_rte_name_t *names, size_t count,
                        void *cbdata)
{
    kept_t *k = cbdata;

    (void)rte;
    k->status = status;
    if (status == HNP_SUCCESS && count == 1 &&
        names[0].len <= sizeof(k->bytes)) {
        memcpy(k->bytes, names[0].value, names[0].len);
        k->len = names[0].len;
    }
    k->done = true;
}

static void kept_as(const char *key, kept_t *k)
{
    memset(k, 0, sizeof(*k));
    assert_int_equal(hnp_rte_name_lookup(NULL, doubles.jobid, 0, &key, 1, 0,
                                         0, kept_answer, k), HNP_SUCCESS);
    assert_true(LOOP_UNTIL(doubles.base, 10.0, k->done));
    assert_int_equal(k->status, HNP_SUCCESS);
}

/* Put @p len bytes as @p key into the name service, past the server. */
static void keep(const char *key, const void *bytes, size_t len)
{
    kept_t k = { 0 };
    hnp_rte_name_t put = { .key = key, .value = bytes, .len = len };

    assert_int_equal(hnp_rte_name_publish(NULL, doubles.jobid, 1, &put, 1, 0,
                                          kept_answer, &k), HNP_SUCCESS);
    assert_true(LOOP_UNTIL(doubles.base, 10.0, k.done));
    assert_int_equal(k.status, HNP_SUCCESS);
}

/* ------------------------------------------------------------ the tests */

/* Every type, published in one publish a batch, looked up as it was
 * published; strings and bytes kept as they always were, the others
 * behind the packed mark. */
static void test_every_type_as_published(void **unused)
{
    static const unsigned char mark[] = PMI_PMIX_NAME_PACKED;
    pmix_info_t info[BATCH];
    const char *keys[BATCH + 1];
    looked_t l = { 0 };
    kept_t k;

    (void)unused;
    for (size_t first = 0; first < NTYPED; first += BATCH) {
        size_t n = NTYPED - first < BATCH ? NTYPED - first : BATCH;
        for (size_t i = 0; i < n; i++) {
            pmix_value_t v;
            value_of(first + i, &v);
            PMIX_INFO_CONSTRUCT(&info[i]);
            PMIX_LOAD_KEY(info[i].key, typed[first + i].key);
            PMIx_Value_xfer(&info[i].value, &v);
            PMIX_VALUE_DESTRUCT(&v);
            keys[i] = typed[first + i].key;
        }
        keys[n] = NULL;
        assert_int_equal(publish(info, n), PMIX_SUCCESS);
        for (size_t i = 0; i < n; i++)
            PMIX_INFO_DESTRUCT(&info[i]);
        lookup(keys, &l);
        assert_int_equal(l.status, PMIX_SUCCESS);
        assert_int_equal(l.count, n);
        for (size_t i = 0; i < n; i++) {
            assert_string_equal(l.data[i].key, keys[i]);
            assert_int_equal(l.data[i].proc.rank, 0);
            assert_value(first + i, &l.data[i].value);
        }
        looked_clear(&l);
    }
    kept_as("string", &k);
    assert_int_equal(k.len, strlen("a string"));
    assert_memory_equal(k.bytes, "a string", k.len);
    kept_as("empty", &k);
    assert_int_equal(k.len, 0);
    kept_as("bytes", &k);
    assert_int_equal(k.len, 1 + sizeof(bytes_of));
    assert_int_equal(k.bytes[0], '\0');
    assert_memory_equal(k.bytes + 1, bytes_of, sizeof(bytes_of));
    kept_as("uint64", &k);
    assert_true(k.len > sizeof(mark));
    assert_memory_equal(k.bytes, mark, sizeof(mark));
}

/* What was kept before values were packed reads as it did. */
static void test_strings_and_bytes_read_as_before(void **unused)
{
    static const char blob[] = { 0, (char)0xff, 0, 'x' };
    const char *keys[] = { "old-port", "old-blob", "old-empty-blob",
                           "old-empty", NULL };
    looked_t l = { 0 };

    (void)unused;
    keep("old-port", "tcp://10.0.0.1:5000", strlen("tcp://10.0.0.1:5000"));
    keep("old-blob", blob, sizeof(blob));
    keep("old-empty-blob", "", 1);
    keep("old-empty", "", 0);
    lookup(keys, &l);
    assert_int_equal(l.status, PMIX_SUCCESS);
    assert_int_equal(l.count, 4);
    assert_int_equal(l.data[0].value.type, PMIX_STRING);
    assert_string_equal(l.data[0].value.data.string, "tcp://10.0.0.1:5000");
    assert_int_equal(l.data[1].value.type, PMIX_BYTE_OBJECT);
    assert_int_equal(l.data[1].value.data.bo.size, 3);
    assert_memory_equal(l.data[1].value.data.bo.bytes, blob + 1, 3);
    assert_int_equal(l.data[2].value.type, PMIX_BYTE_OBJECT);
    assert_int_equal(l.data[2].value.data.bo.size, 0);
    assert_int_equal(l.data[3].value.type, PMIX_STRING);
    assert_string_equal(l.data[3].value.data.string, "");
    looked_clear(&l);
}

/* Each packed value, decoded back as it was; a copy @p f changed
 * each way it can be, refused with nothing given back. */
static void each_packed_changed(size_t (*f)(char *bytes, size_t len,
                                            size_t way))
{
    for (size_t t = 0; t < NTYPED; t++) {
        pmix_value_t v, out;
        char *bytes, *changed;
        size_t len, n;

        if (typed[t].type == PMIX_STRING || typed[t].type == PMIX_BYTE_OBJECT)
            continue;
        value_of(t, &v);
        assert_int_equal(pmi_pmix_name_value_encode(&v, &bytes, &len),
                         PMIX_SUCCESS);
        PMIX_VALUE_DESTRUCT(&v);
        assert_int_equal(pmi_pmix_name_value_decode(bytes, len, &out),
                         PMIX_SUCCESS);
        assert_value(t, &out);
        PMIX_VALUE_DESTRUCT(&out);
        assert_non_null(changed = malloc(len + 1));
        for (size_t way = 0;; way++) {
            memcpy(changed, bytes, len);
            if ((n = f(changed, len, way)) == 0)
                break;
            if (n == len && memcmp(changed, bytes, len) == 0)
                continue;
            assert_int_equal(pmi_pmix_name_value_decode(changed, n, &out),
                             PMIX_ERR_UNPACK_FAILURE);
            assert_int_equal(out.type, PMIX_UNDEF);
        }
        free(changed);
        free(bytes);
    }
}

/* Cut after the mark at each length, or a byte longer. */
static size_t cut_or_longer(char *bytes, size_t len, size_t way)
{
    if (PMI_PMIX_NAME_MARK_LEN + way < len)
        return PMI_PMIX_NAME_MARK_LEN + way;
    if (PMI_PMIX_NAME_MARK_LEN + way == len) {
        bytes[len] = 0;
        return len + 1;
    }
    return 0;
}

/* Each byte after the mark set to each of a few values. */
static size_t byte_changed(char *bytes, size_t len, size_t way)
{
    static const unsigned char to[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
    size_t at = PMI_PMIX_NAME_MARK_LEN + way / sizeof(to);

    if (at >= len)
        return 0;
    bytes[at] = (char)to[way % sizeof(to)];
    return len;
}

static void test_packed_value_cut_or_longer(void **unused)
{
    (void)unused;
    each_packed_changed(cut_or_longer);
}

static void test_packed_value_with_a_byte_changed(void **unused)
{
    (void)unused;
    each_packed_changed(byte_changed);
}

/* The documented form, made here: mark, FNV-1a of @p packed (8 bytes,
 * most significant first), @p packed. */
static size_t forge(char *out, const void *packed, size_t len)
{
    static const unsigned char mark[] = PMI_PMIX_NAME_PACKED;
    const unsigned char *p = packed;
    uint64_t sum = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < len; i++)
        sum = (sum ^ p[i]) * 0x100000001b3ull;
    memcpy(out, mark, sizeof(mark));
    for (size_t i = 0; i < 8; i++)
        out[sizeof(mark) + i] = (char)(sum >> (8 * (7 - i)));
    memcpy(out + sizeof(mark) + 8, packed, len);
    return sizeof(mark) + 8 + len;
}

/* Packings whose check sums match and that are still not one value:
 * libpmix refuses them, or finds more, or fewer. */
static void test_packing_that_is_not_one_value(void **unused)
{
    static const char junk[] = "not a packed value at all";
    pmix_value_t two[2], out;
    pmix_data_buffer_t buf;
    pmix_byte_object_t bo;
    char forged[256];
    size_t n;

    (void)unused;
    /* the test's own forging matches the component's */
    value_of(0, &two[0]);
    value_of(4, &two[1]);
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    assert_int_equal(PMIx_Data_pack(NULL, &buf, &two[0], 1, PMIX_VALUE),
                     PMIX_SUCCESS);
    assert_int_equal(PMIx_Data_unload(&buf, &bo), PMIX_SUCCESS);
    n = forge(forged, bo.bytes, bo.size);
    assert_int_equal(pmi_pmix_name_value_decode(forged, n, &out),
                     PMIX_SUCCESS);
    assert_value(0, &out);
    PMIX_VALUE_DESTRUCT(&out);
    /* the same packing and a byte more */
    memcpy(forged + 64, bo.bytes, bo.size);
    forged[64 + bo.size] = 1;
    n = forge(forged, forged + 64, bo.size + 1);
    assert_int_equal(pmi_pmix_name_value_decode(forged, n, &out),
                     PMIX_ERR_UNPACK_FAILURE);
    assert_int_equal(out.type, PMIX_UNDEF);
    free(bo.bytes);
    /* two values */
    assert_int_equal(PMIx_Data_pack(NULL, &buf, two, 2, PMIX_VALUE),
                     PMIX_SUCCESS);
    assert_int_equal(PMIx_Data_unload(&buf, &bo), PMIX_SUCCESS);
    assert_true(bo.size < 200);
    n = forge(forged, bo.bytes, bo.size);
    assert_int_equal(pmi_pmix_name_value_decode(forged, n, &out),
                     PMIX_ERR_UNPACK_FAILURE);
    assert_int_equal(out.type, PMIX_UNDEF);
    free(bo.bytes);
    PMIX_VALUE_DESTRUCT(&two[0]);
    PMIX_VALUE_DESTRUCT(&two[1]);
    /* an array of integers whose last is missing: libpmix 4.2 reads on
     * past the end of such a packing (the component pads its copy) */
    value_of(11, &two[0]);
    assert_int_equal(two[0].type, PMIX_DATA_ARRAY);
    assert_int_equal(PMIx_Data_pack(NULL, &buf, &two[0], 1, PMIX_VALUE),
                     PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&two[0]);
    assert_int_equal(PMIx_Data_unload(&buf, &bo), PMIX_SUCCESS);
    assert_true(bo.size > 5 && bo.size < 200);
    /* 4294967295 is the last: 5 bytes of 7 bits, the first four with
     * the continuation bit (their padding stops libpmix) */
    n = forge(forged, bo.bytes, bo.size - 5);
    assert_int_equal(pmi_pmix_name_value_decode(forged, n, &out),
                     PMIX_ERR_UNPACK_FAILURE);
    assert_int_equal(out.type, PMIX_UNDEF);
    free(bo.bytes);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    /* no packing at all */
    n = forge(forged, junk, sizeof(junk) - 1);
    assert_int_equal(pmi_pmix_name_value_decode(forged, n, &out),
                     PMIX_ERR_UNPACK_FAILURE);
    assert_int_equal(out.type, PMIX_UNDEF);
}

/* A lookup of a value that claims to be packed and is not fails, with
 * no data, also when the other names it asks for are fine. */
static void test_lookup_of_a_corrupt_value_fails(void **unused)
{
    static const char mark_only[] = { (char)0xff, 0 };
    static const char garbage[] = { (char)0xff, 0, 1, 2, 3, 4, 5, 6, 7, 8,
                                    'n', 'o', 't', ' ', 'a', ' ', 'v', 'a',
                                    'l', 'u', 'e' };
    const char *one[] = { "corrupt-mark-only", NULL };
    const char *two[] = { "good-port", "corrupt-garbage", NULL };
    looked_t l = { 0 };

    (void)unused;
    keep("corrupt-mark-only", mark_only, sizeof(mark_only));
    keep("corrupt-garbage", garbage, sizeof(garbage));
    keep("good-port", "port", 4);
    lookup(one, &l);
    assert_int_equal(l.status, PMIX_ERR_UNPACK_FAILURE);
    assert_int_equal(l.count, 0);
    looked_clear(&l);
    lookup(two, &l);
    assert_int_equal(l.status, PMIX_ERR_UNPACK_FAILURE);
    assert_int_equal(l.count, 0);
    looked_clear(&l);
}

/* An address means nothing in another process. */
static void test_pointer_refused(void **unused)
{
    pmix_info_t info;
    int x = 0;

    (void)unused;
    PMIX_INFO_LOAD(&info, "pointer", &x, PMIX_POINTER);
    assert_int_equal(publish(&info, 1), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&info);
}

/* ------------------------------------------------------------ the job */

static char job_name[64];
static const char *node_names[2] = { NULL, hostname };
static uint32_t node_of[2] = { 1, 1 }, local_ranks[2] = { 0, 1 };
static char *app_argv[] = { "publisher", NULL };
static hnp_pmi_app_t app = { .first_rank = 0, .nprocs = 2,
                             .argv = app_argv };
static hnp_pmi_job_t job = {
    .jobid = 1, .name = job_name, .nprocs = 2, .universe_size = 2,
    .nnodes = 1, .node_of = node_of, .node_names = node_names, .my_node = 1,
    .local_ranks = local_ranks, .nlocal = 2, .slots = 2, .napps = 1,
    .apps = &app, .tmpdir = tmpdir, .series = 1,
    .max_allgather_bytes = 1 << 20,
};

static int job_up(void **unused)
{
    char err[512] = "";

    (void)unused;
    gethostname(hostname, sizeof(hostname) - 1);
    if ((doubles.base = event_base_new()) == NULL || mkdtemp(tmpdir) == NULL)
        return -1;
    struct timeval tv = { 0, 10000 };
    if ((tick = event_new(doubles.base, -1, EV_PERSIST, loop_tick, NULL)) ==
            NULL ||
        event_add(tick, &tv) != 0)
        return -1;
    snprintf(job_name, sizeof(job_name), "hnp-names-%d", (int)getpid());
    doubles.jobid = job.jobid;
    doubles.series = job.series;
    if (pmi_pmix_module.job_start(NULL, &job, &job_state, err,
                                  sizeof(err)) != HNP_SUCCESS) {
        fprintf(stderr, "test_pmix_names: %s\n", err);
        return -1;
    }
    PMIX_LOAD_PROCID(&publisher, job_name, 0);
    return 0;
}

static int job_down(void **unused)
{
    (void)unused;
    pmi_pmix_module.job_end(job_state);
    pmi_pmix_module.finalize(NULL);
    pmix_doubles_names_clean();
    pmix_doubles_scratch_clean();
    rmdir(tmpdir);
    event_free(tick);
    event_base_free(doubles.base);
    return doubles.watches != 0 || doubles.scratch_dirs != 0 ? -1 : 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_as_published),
        cmocka_unit_test(test_strings_and_bytes_read_as_before),
        cmocka_unit_test(test_packed_value_cut_or_longer),
        cmocka_unit_test(test_packed_value_with_a_byte_changed),
        cmocka_unit_test(test_packing_that_is_not_one_value),
        cmocka_unit_test(test_lookup_of_a_corrupt_value_fails),
        cmocka_unit_test(test_pointer_refused),
    };

    return cmocka_run_group_tests(tests, job_up, job_down);
}
