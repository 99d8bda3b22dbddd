/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the PMI wire codec, fence blobs and process mappings
 * (runtime/pmi/parse.c, runtime/pmi/kvs.c).
 *
 * The first byte chooses what the rest is: its low two bits the mode, the
 * upper six a message limit (0: the protocol's own, else 16 times it).
 *  0, 1: a stream a process could send, PMI-1 lines or PMI-2 messages. It
 *        is cut into messages as the server does; each one that parses is
 *        written back with the answer builder, and that must frame and
 *        parse to the same command and pairs.
 *  2:    a fence blob from another node, merged into a store that holds a
 *        key already, put by a local process. A refused blob changes
 *        nothing; an accepted one makes every key it carries readable with
 *        its last value, and leaves who put the key and what it was
 *        charged (what that process may store is counted on them).
 *  3:    a job map, one byte a rank (node = byte % 8): the mapping string
 *        is expanded the way MPICH reads it (a short vector repeats) and
 *        must give every rank its node back.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "pmi/simple/internal.h"

#define ERRLEN 256

static bool same_pairs(const pmi_simple_msg_t *a, const pmi_simple_msg_t *b)
{
    if (strcmp(a->cmd, b->cmd) != 0 || a->npairs != b->npairs)
        return false;
    for (size_t i = 0; i < a->npairs; i++)
        if (strcmp(a->pairs[i].key, b->pairs[i].key) != 0 ||
            a->pairs[i].value_len != b->pairs[i].value_len ||
            memcmp(a->pairs[i].value, b->pairs[i].value,
                   a->pairs[i].value_len) != 0)
            return false;
    return true;
}

static int parse(pmi_simple_wire_t wire, pmi_simple_msg_t *msg, const char *text,
                 size_t len)
{
    char err[ERRLEN];

    return wire == PMI_SIMPLE_WIRE_V1
               ? pmi_simple_parse_v1(msg, text, len, err, sizeof(err))
               : pmi_simple_parse_v2(msg, text, len, err, sizeof(err));
}

/* Write @p msg back as an answer would be written; it must read the same. */
static void check_round_trip(pmi_simple_wire_t wire, const pmi_simple_msg_t *msg)
{
    hnp_buffer_t out;
    pmi_simple_reply_t r;
    pmi_simple_msg_t again;
    size_t start, len, consumed;
    char err[ERRLEN];

    hnp_buffer_init(&out);
    pmi_simple_reply_begin(&r, &out, wire, msg->cmd);
    for (size_t i = 0; i < msg->npairs; i++)
        pmi_simple_reply_add(&r, msg->pairs[i].key, msg->pairs[i].value,
                             msg->pairs[i].value_len);
    int rc = pmi_simple_reply_end(&r);
    /* Only length can stop it: PMI-1 lines have a shorter limit for
     * answers than for requests, and a PMI-2 body may gain its last ';'. */
    FUZZ_CHECK(rc == HNP_SUCCESS || (rc == HNP_ERR_BAD_PARAM &&
                                     wire == PMI_SIMPLE_WIRE_V1) ||
               rc == HNP_ERR_TRUNCATED);
    FUZZ_CHECK(rc == HNP_SUCCESS || out.len == 0);
    if (rc == HNP_SUCCESS) {
        rc = pmi_simple_frame(wire, (const char *)out.data, out.len,
                              PMI_SIMPLE_V2_BODY_MAX, &start, &len, &consumed,
                              err, sizeof(err));
        FUZZ_CHECK(rc == 1 && consumed == out.len);
        FUZZ_CHECK(parse(wire, &again, (const char *)out.data + start, len) ==
                   HNP_SUCCESS);
        FUZZ_CHECK(same_pairs(msg, &again));
        pmi_simple_msg_release(&again);
    }
    hnp_buffer_release(&out);
}

static void check_parsed(pmi_simple_wire_t wire, const pmi_simple_msg_t *msg)
{
    FUZZ_CHECK(msg->cmd != NULL && msg->cmd[0] != '\0');
    for (size_t i = 0; i < msg->npairs; i++) {
        FUZZ_CHECK(msg->pairs[i].key[0] != '\0');
        FUZZ_CHECK(strchr(msg->pairs[i].key, '=') == NULL);
        FUZZ_CHECK(msg->pairs[i].value[msg->pairs[i].value_len] == '\0');
        if (wire == PMI_SIMPLE_WIRE_V1)
            FUZZ_CHECK(strlen(msg->pairs[i].value) ==
                       msg->pairs[i].value_len);
    }
    if (!msg->multiline)
        check_round_trip(wire, msg);
}

static void fuzz_stream(pmi_simple_wire_t wire, const char *data, size_t size,
                        size_t max)
{
    size_t start, len, consumed;
    char err[ERRLEN];

    while (size > 0) {
        int rc = pmi_simple_frame(wire, data, size, max, &start, &len,
                                  &consumed, err, sizeof(err));
        FUZZ_CHECK(rc <= 1);
        if (rc <= 0) {
            FUZZ_CHECK(rc == 0 || err[0] != '\0');
            return;
        }
        FUZZ_CHECK(consumed > 0 && consumed <= size);
        FUZZ_CHECK(start + len <= consumed && len <= max);
        pmi_simple_msg_t msg;
        if (parse(wire, &msg, data + start, len) == HNP_SUCCESS) {
            check_parsed(wire, &msg);
            pmi_simple_msg_release(&msg);
        }
        data += consumed;
        size -= consumed;
    }
}

/* The last value the blob gives @p key (blob already checked valid). */
static const void *last_value(const uint8_t *data, size_t size,
                              const char *key, size_t *vlen)
{
    hnp_reader_t rd;
    const void *found = NULL;

    hnp_reader_init(&rd, data, size);
    uint32_t n = hnp_unpack_u32(&rd);
    for (uint32_t i = 0; i < n; i++) {
        size_t klen, len;
        const char *k = hnp_unpack_blob(&rd, &klen);
        const void *v = hnp_unpack_blob(&rd, &len);
        if (klen == strlen(key) && memcmp(k, key, klen) == 0) {
            found = v;
            *vlen = len;
        }
    }
    return found;
}

static void fuzz_blob(const uint8_t *data, size_t size)
{
    pmi_simple_kvs_t *kvs;
    char err[ERRLEN], key[PMI_SIMPLE_KEY_MAX + 1];
    size_t len;

    if (pmi_simple_kvs_create(&kvs) != HNP_SUCCESS)
        return;
    pmi_simple_kvs_put_owned(kvs, "mine", "before", 6, true, 1, 74);
    int rc = pmi_simple_kvs_merge(kvs, data, size, err, sizeof(err));
    size_t charge;
    FUZZ_CHECK(pmi_simple_kvs_owner(kvs, "mine", &charge) == 1 && charge == 74);
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(pmi_simple_kvs_count(kvs) == 1);
        FUZZ_CHECK(strcmp(pmi_simple_kvs_get(kvs, "mine", &len), "before") == 0);
        pmi_simple_kvs_destroy(kvs);
        return;
    }
    hnp_reader_t rd;
    hnp_reader_init(&rd, data, size);
    uint32_t n = hnp_unpack_u32(&rd);
    for (uint32_t i = 0; i < n; i++) {
        size_t klen, vlen = 0;
        const char *k = hnp_unpack_blob(&rd, &klen);
        hnp_unpack_blob(&rd, NULL);
        FUZZ_CHECK(k != NULL && klen > 0 && klen <= PMI_SIMPLE_KEY_MAX);
        memcpy(key, k, klen);
        key[klen] = '\0';
        const void *want = last_value(data, size, key, &vlen);
        const char *got = pmi_simple_kvs_get(kvs, key, &len);
        FUZZ_CHECK(got != NULL && len == vlen && got[len] == '\0');
        FUZZ_CHECK(len == 0 || memcmp(got, want, len) == 0);
    }
    pmi_simple_kvs_destroy(kvs);
}

/* Read "(vector,(a,b,c),...)": the triples, or NULL when it does not
 * parse. */
static unsigned long *read_mapping(const char *s, size_t *count)
{
    size_t cap = 3;
    char *end;

    for (const char *p = s; *p != '\0'; p++)
        cap += 3 * (*p == '(');
    unsigned long *blocks = malloc(cap * sizeof(*blocks));
    if (blocks == NULL || strncmp(s, "(vector", 7) != 0)
        goto bad;
    s += 7;
    *count = 0;
    while (*s == ',') {
        if (s[1] != '(' || *count + 3 > cap)
            goto bad;
        s += 2;
        for (int i = 0; i < 3; i++, s = end + 1) {
            blocks[(*count)++] = strtoul(s, &end, 10);
            if (end == s || *end != (i < 2 ? ',' : ')'))
                goto bad;
        }
    }
    if (strcmp(s, ")") == 0 && *count > 0)
        return blocks;
bad:
    free(blocks);
    return NULL;
}

/* Give ranks their nodes as MPICH does: the blocks in order, and while
 * ranks are left, again, skipping leading blocks that do not start at node
 * 0 once one that does was seen. */
static bool expand_mapping(const char *s, uint32_t *nodes, uint32_t n)
{
    size_t nb;
    unsigned long *blocks = read_mapping(s, &nb);
    bool found_wrap = false;
    uint32_t r = 0;

    if (blocks == NULL)
        return false;
    while (r < n) {
        uint32_t before = r;
        size_t b = 0;
        while (found_wrap && b < nb && blocks[b] != 0)
            b += 3;
        for (; b < nb && r < n; b += 3) {
            found_wrap |= blocks[b] == 0;
            for (unsigned long k = 0; k < blocks[b + 1] * blocks[b + 2] &&
                                      r < n; k++)
                nodes[r++] = (uint32_t)(blocks[b] + k / blocks[b + 2]);
        }
        if (r == before)
            break;
    }
    free(blocks);
    return r == n;
}

/* The mapping numbers the job's own nodes from 0, in the order of the
 * numbers it was given: node n becomes the count of the smaller numbers
 * among the job's nodes. */
static void own_numbers(const uint32_t *node, uint32_t *own, size_t size)
{
    bool used[8] = { false };

    for (size_t i = 0; i < size; i++)
        used[node[i]] = true;
    for (size_t i = 0; i < size; i++) {
        own[i] = 0;
        for (uint32_t n = 0; n < node[i]; n++)
            own[i] += used[n];
    }
}

static void fuzz_mapping(const uint8_t *data, size_t size)
{
    uint32_t *node, *want, *got;
    char *mapping;

    if (size == 0 || size > 4096)
        return;
    node = malloc(size * sizeof(*node));
    want = malloc(size * sizeof(*want));
    got = malloc(size * sizeof(*got));
    if (node != NULL && want != NULL && got != NULL) {
        for (size_t i = 0; i < size; i++)
            node[i] = data[i] % 8;
        own_numbers(node, want, size);
        int rc = pmi_simple_process_mapping(node, (uint32_t)size, &mapping);
        FUZZ_CHECK(rc == HNP_SUCCESS);
        if (rc == HNP_SUCCESS) {
            FUZZ_CHECK(expand_mapping(mapping, got, (uint32_t)size));
            FUZZ_CHECK(memcmp(want, got, size * sizeof(*got)) == 0);
            free(mapping);
        }
    }
    free(node);
    free(want);
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned mode = data[0] & 3, scale = data[0] >> 2;
    data++;
    size--;
    switch (mode) {
    case 0:
        fuzz_stream(PMI_SIMPLE_WIRE_V1, (const char *)data, size,
                    scale > 0 ? scale * 16u : PMI_SIMPLE_V1_INPUT_MAX);
        break;
    case 1:
        fuzz_stream(PMI_SIMPLE_WIRE_V2, (const char *)data, size,
                    scale > 0 ? scale * 16u : PMI_SIMPLE_V2_BODY_MAX);
        break;
    case 2:
        fuzz_blob(data, size);
        break;
    default:
        fuzz_mapping(data, size);
        break;
    }
    return 0;
}
