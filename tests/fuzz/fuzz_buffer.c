/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the message reader over arbitrary bytes.
 *
 * The input drives the reader itself: each step reads one byte choosing the
 * next unpack call (its value modulo 8: u8, u32, u64, i32, double, string,
 * blob, blob without asking its length), then makes that call. Whatever is
 * read successfully is packed again and must give back exactly the bytes it
 * came from, so packer and reader agree on every value the fuzzer finds.
 * Once a read fails, the reader must stay failed and yield nothing.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "hnp_buffer.h"
#include "fuzz_target.h"
#include "hnp_errors.h"

enum unpack_op {
    OP_U8, OP_U32, OP_U64, OP_I32, OP_DOUBLE, OP_STRING, OP_BLOB,
    OP_BLOB_NO_LEN, OP_COUNT
};

/* Make one unpack call and pack its result into @p out. Returns false when
 * the value cannot be compared bit for bit (a NaN may be quietened when a
 * double passes through x87 registers). */
static bool unpack_and_repack(hnp_reader_t *rd, enum unpack_op op,
                              hnp_buffer_t *out)
{
    const void *blob;
    size_t len = 0;
    char *s;
    double d;

    switch (op) {
    case OP_U8: hnp_pack_u8(out, hnp_unpack_u8(rd)); break;
    case OP_U32: hnp_pack_u32(out, hnp_unpack_u32(rd)); break;
    case OP_U64: hnp_pack_u64(out, hnp_unpack_u64(rd)); break;
    case OP_I32: hnp_pack_i32(out, hnp_unpack_i32(rd)); break;
    case OP_DOUBLE:
        d = hnp_unpack_double(rd);
        hnp_pack_double(out, d);
        return !isnan(d);
    case OP_STRING:
        s = hnp_unpack_string(rd);
        FUZZ_CHECK((s == NULL) == rd->failed);
        hnp_pack_string(out, s);
        free(s);
        break;
    case OP_BLOB:
        blob = hnp_unpack_blob(rd, &len);
        FUZZ_CHECK((blob == NULL) == rd->failed);
        hnp_pack_blob(out, blob, len);
        break;
    default:
        blob = hnp_unpack_blob(rd, NULL);
        FUZZ_CHECK((blob == NULL) == rd->failed);
        break;
    }
    return op != OP_BLOB_NO_LEN;
}

/* After a failure: sticky, and nothing comes out. */
static void check_reader_dead(hnp_reader_t *rd)
{
    size_t len = 1;
    char *s;

    FUZZ_CHECK(hnp_reader_status(rd) == HNP_ERR_TRUNCATED);
    FUZZ_CHECK(hnp_reader_remaining(rd) == 0);
    FUZZ_CHECK(hnp_unpack_u8(rd) == 0);
    FUZZ_CHECK(hnp_unpack_u64(rd) == 0);
    s = hnp_unpack_string(rd);
    FUZZ_CHECK(s == NULL);
    FUZZ_CHECK(hnp_unpack_blob(rd, &len) == NULL && len == 0);
    FUZZ_CHECK(rd->failed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hnp_reader_t rd;
    hnp_buffer_t again;

    hnp_reader_init(&rd, data, size);
    while (hnp_reader_remaining(&rd) > 0) {
        enum unpack_op op = (enum unpack_op)(hnp_unpack_u8(&rd) % OP_COUNT);
        size_t start = rd.pos;
        bool comparable;

        hnp_buffer_init(&again);
        comparable = unpack_and_repack(&rd, op, &again);
        FUZZ_CHECK(rd.pos <= rd.len);
        if (!rd.failed && comparable) {
            FUZZ_CHECK(hnp_buffer_status(&again) == HNP_SUCCESS);
            FUZZ_CHECK(again.len == rd.pos - start);
            FUZZ_CHECK(again.len == 0 ||
                       memcmp(again.data, data + start, again.len) == 0);
        }
        hnp_buffer_release(&again);
        if (rd.failed) {
            check_reader_dead(&rd);
            break;
        }
    }
    FUZZ_CHECK(hnp_reader_remaining(&rd) == 0);
    return 0;
}
