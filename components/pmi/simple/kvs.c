/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI key-value store of one node, the blob a fence ships, and the
 * process mapping string.
 *
 * A store holds every key this node knows: what its own processes put and
 * what fences brought in from the other nodes. Keys put here since the last
 * fence are "pending": they go into the next fence blob, and nothing else
 * does, so a node ships only what the others do not have.
 *
 * An entry a local process put remembers who (its owner) and what it was
 * charged for it, so that the server can hold each process to its share
 * (pmi_simple_config_t.max_kvs_bytes): a put that replaces a key gives the
 * charge back to whoever paid it. A fence merge replaces a value but not
 * its owner or charge: a process pays for what it put, and what the other
 * nodes send is bounded on their side.
 *
 * Entries live in an array that only grows (an index stays valid), found
 * through an open-addressing table of indices kept at most half full. A
 * job of 10^5 ranks puts a few keys each, so lookups must not be linear.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "internal.h"

#define SLOTS_MIN 64
#define SLOT_EMPTY 0   /* slots hold entry index + 1 */
/* Candidate periods of a process mapping worth trying (see below). */
#define MAPPING_MAX_PERIOD 64

typedef struct kvs_entry {
    char *key;
    char *value;       /* value_len bytes and a NUL */
    size_t value_len;
    size_t charge;     /* what its owner was charged for it */
    uint32_t owner;    /* who put it (0: nobody local) */
    bool pending;      /* listed in kvs->pending, to ship at the next fence */
} kvs_entry_t;

struct pmi_simple_kvs {
    kvs_entry_t *entries;
    size_t count, cap;
    size_t *slots;
    size_t nslots;     /* a power of two */
    size_t *pending;   /* entry indices, in the order they were put */
    size_t npending, pending_cap;
};

int pmi_simple_kvs_create(pmi_simple_kvs_t **out)
{
    pmi_simple_kvs_t *kvs = calloc(1, sizeof(*kvs));

    if (kvs == NULL)
        return HNP_ERR_NOMEM;
    *out = kvs;
    return HNP_SUCCESS;
}

void pmi_simple_kvs_destroy(pmi_simple_kvs_t *kvs)
{
    if (kvs == NULL)
        return;
    for (size_t i = 0; i < kvs->count; i++) {
        free(kvs->entries[i].key);
        free(kvs->entries[i].value);
    }
    free(kvs->entries);
    free(kvs->slots);
    free(kvs->pending);
    free(kvs);
}

size_t pmi_simple_kvs_count(const pmi_simple_kvs_t *kvs)
{
    return kvs->count;
}

/* FNV-1a: short keys, no adversary that could choose collisions to any
 * effect worse than a slow lookup of its own job. */
static size_t hash_key(const char *key)
{
    uint64_t h = 14695981039346656037ULL;

    for (; *key != '\0'; key++)
        h = (h ^ (uint8_t)*key) * 1099511628211ULL;
    return (size_t)h;
}

/* The slot holding @p key, or the empty slot where it would go. */
static size_t find_slot(const pmi_simple_kvs_t *kvs, const char *key)
{
    size_t mask = kvs->nslots - 1;
    size_t i = hash_key(key) & mask;

    while (kvs->slots[i] != SLOT_EMPTY &&
           strcmp(kvs->entries[kvs->slots[i] - 1].key, key) != 0)
        i = (i + 1) & mask;
    return i;
}

static int grow_slots(pmi_simple_kvs_t *kvs, size_t want)
{
    size_t n = kvs->nslots > 0 ? kvs->nslots : SLOTS_MIN;
    size_t *old = kvs->slots, old_n = kvs->nslots;

    while (n / 2 < want) {
        if (n > SIZE_MAX / 4 / sizeof(size_t))
            return HNP_ERR_NOMEM;
        n *= 2;
    }
    if (n == old_n)
        return HNP_SUCCESS;
    kvs->slots = calloc(n, sizeof(*kvs->slots));
    if (kvs->slots == NULL) {
        kvs->slots = old;
        return HNP_ERR_NOMEM;
    }
    kvs->nslots = n;
    for (size_t i = 0; i < old_n; i++)
        if (old[i] != SLOT_EMPTY)
            kvs->slots[find_slot(kvs, kvs->entries[old[i] - 1].key)] = old[i];
    free(old);
    return HNP_SUCCESS;
}

static int grow_array(void **array, size_t *cap, size_t want, size_t size)
{
    size_t n = *cap > 0 ? *cap : 16;
    void *p;

    if (want <= *cap)
        return HNP_SUCCESS;
    while (n < want) {
        if (n > SIZE_MAX / 2 / size)
            return HNP_ERR_NOMEM;
        n *= 2;
    }
    p = realloc(*array, n * size);
    if (p == NULL)
        return HNP_ERR_NOMEM;
    *array = p;
    *cap = n;
    return HNP_SUCCESS;
}

/* Room for @p extra more entries and as many pending marks, so that the
 * inserts that follow cannot fail half way. */
static int reserve(pmi_simple_kvs_t *kvs, size_t extra)
{
    int rc = grow_array((void **)&kvs->entries, &kvs->cap, kvs->count + extra,
                        sizeof(*kvs->entries));
    if (rc == HNP_SUCCESS)
        rc = grow_array((void **)&kvs->pending, &kvs->pending_cap,
                        kvs->npending + extra, sizeof(*kvs->pending));
    if (rc == HNP_SUCCESS)
        rc = grow_slots(kvs, kvs->count + extra);
    return rc;
}

static char *copy_value(const char *value, size_t len)
{
    char *v = len < SIZE_MAX ? malloc(len + 1) : NULL;

    if (v != NULL) {
        if (len > 0)
            memcpy(v, value, len);
        v[len] = '\0';
    }
    return v;
}

/* Insert or replace with copies the store takes over; cannot fail once
 * reserve(kvs, 1) succeeded. A replaced entry keeps its owner and charge,
 * a new one has none. */
static kvs_entry_t *insert_owned(pmi_simple_kvs_t *kvs, char *key, char *value,
                                 size_t value_len, bool pending)
{
    size_t slot = find_slot(kvs, key);
    kvs_entry_t *e;
    size_t index;

    if (kvs->slots[slot] != SLOT_EMPTY) {
        index = kvs->slots[slot] - 1;
        e = &kvs->entries[index];
        free(key);
        free(e->value);
    } else {
        index = kvs->count++;
        e = &kvs->entries[index];
        e->key = key;
        e->charge = 0;
        e->owner = 0;
        e->pending = false;
        kvs->slots[slot] = index + 1;
    }
    e->value = value;
    e->value_len = value_len;
    /* Only packing clears the mark, so an index is listed at most once. */
    if (pending && !e->pending) {
        kvs->pending[kvs->npending++] = index;
        e->pending = true;
    }
    return e;
}

int pmi_simple_kvs_put(pmi_simple_kvs_t *kvs, const char *key,
                       const char *value, size_t value_len, bool pending)
{
    return pmi_simple_kvs_put_owned(kvs, key, value, value_len, pending, 0, 0);
}

int pmi_simple_kvs_put_owned(pmi_simple_kvs_t *kvs, const char *key,
                             const char *value, size_t value_len, bool pending,
                             uint32_t owner, size_t charge)
{
    kvs_entry_t *e;
    char *k, *v;

    if (key[0] == '\0')
        return HNP_ERR_BAD_PARAM;
    if (reserve(kvs, 1) != HNP_SUCCESS)
        return HNP_ERR_NOMEM;
    k = strdup(key);
    v = copy_value(value, value_len);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        return HNP_ERR_NOMEM;
    }
    e = insert_owned(kvs, k, v, value_len, pending);
    e->owner = owner;
    e->charge = charge;
    return HNP_SUCCESS;
}

/* The entry of @p key, or NULL. */
static const kvs_entry_t *find_entry(const pmi_simple_kvs_t *kvs,
                                     const char *key)
{
    size_t slot;

    if (kvs->nslots == 0)
        return NULL;
    slot = find_slot(kvs, key);
    if (kvs->slots[slot] == SLOT_EMPTY)
        return NULL;
    return &kvs->entries[kvs->slots[slot] - 1];
}

uint32_t pmi_simple_kvs_owner(const pmi_simple_kvs_t *kvs, const char *key,
                              size_t *charge)
{
    const kvs_entry_t *e = find_entry(kvs, key);

    *charge = e != NULL ? e->charge : 0;
    return e != NULL ? e->owner : 0;
}

const char *pmi_simple_kvs_get(const pmi_simple_kvs_t *kvs, const char *key,
                               size_t *value_len)
{
    const kvs_entry_t *e = find_entry(kvs, key);

    if (e == NULL)
        return NULL;
    if (value_len != NULL)
        *value_len = e->value_len;
    return e->value;
}

/* ----------------------------------------------------------- fence blobs */

int pmi_simple_kvs_pack_pending(pmi_simple_kvs_t *kvs, hnp_buffer_t *out)
{
    size_t start = out->len;

    if (kvs->npending > UINT32_MAX)
        return HNP_ERR_NOMEM;
    hnp_pack_u32(out, (uint32_t)kvs->npending);
    for (size_t i = 0; i < kvs->npending; i++) {
        const kvs_entry_t *e = &kvs->entries[kvs->pending[i]];
        hnp_pack_string(out, e->key);
        hnp_pack_blob(out, e->value, e->value_len);
    }
    if (hnp_buffer_status(out) != HNP_SUCCESS) {
        out->len = start;
        out->failed = false;
        return HNP_ERR_NOMEM;
    }
    for (size_t i = 0; i < kvs->npending; i++)
        kvs->entries[kvs->pending[i]].pending = false;
    kvs->npending = 0;
    return HNP_SUCCESS;
}

typedef struct blob_entry {
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
} blob_entry_t;

/* Read and check every entry of a blob without changing anything. */
static int read_blob(const void *blob, size_t len, blob_entry_t **out,
                     uint32_t *count, char *err, size_t errlen)
{
    hnp_reader_t rd;
    uint32_t n;
    blob_entry_t *list;

    hnp_reader_init(&rd, blob, len);
    n = hnp_unpack_u32(&rd);
    /* Each entry takes two lengths at least: a count that cannot fit is a
     * lie, not a reason to allocate. */
    if (rd.failed || n > hnp_reader_remaining(&rd) / 8) {
        hnp_err_set(err, errlen, "fence blob: bad entry count");
        return HNP_ERR_BAD_PARAM;
    }
    list = calloc(n > 0 ? n : 1, sizeof(*list));
    if (list == NULL)
        return HNP_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        list[i].key = hnp_unpack_blob(&rd, &list[i].key_len);
        list[i].value = hnp_unpack_blob(&rd, &list[i].value_len);
        if (!rd.failed && (list[i].key_len == 0 ||
                           list[i].key_len > PMI_SIMPLE_KEY_MAX ||
                           memchr(list[i].key, '\0', list[i].key_len))) {
            hnp_err_set(err, errlen, "fence blob: entry %u has a bad key", i);
            free(list);
            return HNP_ERR_BAD_PARAM;
        }
    }
    if (rd.failed || hnp_reader_remaining(&rd) != 0) {
        hnp_err_set(err, errlen, "fence blob: truncated or trailing bytes");
        free(list);
        return HNP_ERR_BAD_PARAM;
    }
    *out = list;
    *count = n;
    return HNP_SUCCESS;
}

static void free_copies(char **copies, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(copies[i]);
    free(copies);
}

/* Key and value copies of every entry: copies[2i] and copies[2i+1]. */
static char **copy_entries(const blob_entry_t *list, uint32_t n)
{
    char **copies = calloc(2 * (size_t)n + 1, sizeof(*copies));

    if (copies == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        copies[2 * i] = copy_value(list[i].key, list[i].key_len);
        copies[2 * i + 1] = copy_value(list[i].value, list[i].value_len);
        if (copies[2 * i] == NULL || copies[2 * i + 1] == NULL) {
            free_copies(copies, 2 * i + 2);
            return NULL;
        }
    }
    return copies;
}

int pmi_simple_kvs_merge(pmi_simple_kvs_t *kvs, const void *blob, size_t len,
                         char *err, size_t errlen)
{
    blob_entry_t *list;
    char **copies = NULL;
    uint32_t n;
    int rc;

    /* A process that has no ranks here (the HNP, an idle daemon) gives
     * nothing at all: no keys. */
    if (len == 0)
        return HNP_SUCCESS;
    rc = read_blob(blob, len, &list, &n, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    copies = copy_entries(list, n);
    if (copies == NULL || reserve(kvs, n) != HNP_SUCCESS) {
        if (copies != NULL)
            free_copies(copies, 2 * (size_t)n);
        free(list);
        hnp_err_set(err, errlen, "fence blob: out of memory");
        return HNP_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        insert_owned(kvs, copies[2 * i], copies[2 * i + 1],
                     list[i].value_len, false);
    free(copies);
    free(list);
    return HNP_SUCCESS;
}

/* ---------------------------------------------------- process mapping */

typedef struct map_block {
    uint32_t first_node, nodes, ppn;
} map_block_t;

/* Ranks in a row on one node make a run; runs of the same length on
 * consecutive nodes make a block (first node, how many nodes, ranks each). */
static size_t build_blocks(const uint32_t *node_of_rank, uint32_t nranks,
                           map_block_t *blocks)
{
    size_t nblocks = 0;
    uint32_t r = 0;

    while (r < nranks) {
        uint32_t node = node_of_rank[r], run = 0;
        while (r < nranks && node_of_rank[r] == node) {
            run++;
            r++;
        }
        map_block_t *last = nblocks > 0 ? &blocks[nblocks - 1] : NULL;
        if (last != NULL && last->ppn == run &&
            (uint64_t)last->first_node + last->nodes == node)
            last->nodes++;
        else
            blocks[nblocks++] = (map_block_t){ node, 1, run };
    }
    return nblocks;
}

/* The fewest leading blocks whose ranks, repeated, give the whole map.
 * MPICH restarts a short vector at its first block that begins at node 0,
 * so only a prefix beginning at node 0 can stand for the rest. */
static size_t repeating_prefix(const uint32_t *node_of_rank, uint32_t nranks,
                               const map_block_t *blocks, size_t nblocks)
{
    uint64_t covered = 0;

    if (blocks[0].first_node != 0)
        return nblocks;
    for (size_t k = 1; k < nblocks && k <= MAPPING_MAX_PERIOD; k++) {
        covered += (uint64_t)blocks[k - 1].nodes * blocks[k - 1].ppn;
        uint32_t r = (uint32_t)covered;
        while (r < nranks && node_of_rank[r] == node_of_rank[r % covered])
            r++;
        if (r == nranks)
            return k;
    }
    return nblocks;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* The job's own node numbers: its nodes from 0, in the order of the
 * numbers given (a DVM's job on its nodes 3 and 4 is on nodes 0 and 1).
 * MPICH counts the job's nodes as the highest number plus one: with a
 * number past the job's nodes it would count nodes that have none of its
 * ranks, and take a job whose ranks share a node for one rank a node,
 * skipping the barrier between a node's shared-memory put and get. */
static uint32_t *job_node_numbers(const uint32_t *node_of_rank,
                                  uint32_t nranks)
{
    uint32_t *sorted = malloc(nranks * sizeof(*sorted));
    uint32_t *own = malloc(nranks * sizeof(*own));
    size_t nnodes = 0;

    if (sorted == NULL || own == NULL) {
        free(sorted);
        free(own);
        return NULL;
    }
    memcpy(sorted, node_of_rank, nranks * sizeof(*sorted));
    qsort(sorted, nranks, sizeof(*sorted), compare_u32);
    for (uint32_t r = 0; r < nranks; r++)
        if (nnodes == 0 || sorted[nnodes - 1] != sorted[r])
            sorted[nnodes++] = sorted[r];
    for (uint32_t r = 0; r < nranks; r++) {
        const uint32_t *at = bsearch(&node_of_rank[r], sorted, nnodes,
                                     sizeof(*sorted), compare_u32);
        own[r] = (uint32_t)(at - sorted);
    }
    free(sorted);
    return own;
}

int pmi_simple_process_mapping(const uint32_t *node_of_rank, uint32_t nranks,
                               char **out)
{
    hnp_buffer_t text;
    map_block_t *blocks;
    uint32_t *own;
    char item[48];
    size_t nblocks;

    if (nranks == 0)
        return HNP_ERR_BAD_PARAM;
    blocks = calloc(nranks, sizeof(*blocks));
    own = job_node_numbers(node_of_rank, nranks);
    if (blocks == NULL || own == NULL) {
        free(blocks);
        free(own);
        return HNP_ERR_NOMEM;
    }
    nblocks = build_blocks(own, nranks, blocks);
    nblocks = repeating_prefix(own, nranks, blocks, nblocks);
    free(own);
    hnp_buffer_init(&text);
    hnp_pack_bytes(&text, "(vector", 7);
    for (size_t i = 0; i < nblocks; i++) {
        int n = snprintf(item, sizeof(item), ",(%u,%u,%u)",
                         blocks[i].first_node, blocks[i].nodes, blocks[i].ppn);
        hnp_pack_bytes(&text, item, (size_t)n);
    }
    hnp_pack_bytes(&text, ")", 2);   /* with the NUL */
    free(blocks);
    if (hnp_buffer_status(&text) != HNP_SUCCESS) {
        hnp_buffer_release(&text);
        return HNP_ERR_NOMEM;
    }
    size_t len;
    *out = (char *)hnp_buffer_steal(&text, &len);
    return *out != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}
