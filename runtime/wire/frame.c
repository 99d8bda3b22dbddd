/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire codec of runtime messages: the connection hello and the frame
 * header (see frame.h for the layout), and the job secret (which stays on
 * the hosts: auth.c proves knowledge of it without sending it).
 *
 * Everything decoded here comes from a socket anyone on the network can
 * open, so decoders check every field before they fill their output, and
 * leave the output untouched when they refuse. The `why` sentences end up
 * in the log of the refusing side; they name what was wrong in terms an
 * administrator can act on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "frame.h"
#include "hnp_errors.h"

static const uint8_t hello_magic[4] = { 'H', 'N', 'P', '1' };

/* Offsets of the fields inside a hello and a frame header. */
enum {
    HELLO_OFF_MAGIC = 0,
    HELLO_OFF_VERSION = 4,
    HELLO_OFF_RESERVED = 6,
    HELLO_OFF_VPID = 8,
    HELLO_OFF_NONCE = 12,
    HEADER_OFF_SRC = 0,
    HEADER_OFF_DST = 4,
    HEADER_OFF_TAG = 8,
    HEADER_OFF_LEN = 12,
};

_Static_assert(HELLO_OFF_NONCE + HNP_NONCE_LEN == HNP_HELLO_LEN,
               "hello layout and HNP_HELLO_LEN disagree");
_Static_assert(HEADER_OFF_LEN + 4 == HNP_FRAME_HEADER_LEN,
               "frame header layout and HNP_FRAME_HEADER_LEN disagree");

static void store_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint16_t load_be16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

void hnp_hello_encode(const hnp_hello_t *hello, uint8_t out[HNP_HELLO_LEN])
{
    memcpy(out + HELLO_OFF_MAGIC, hello_magic, sizeof(hello_magic));
    store_be16(out + HELLO_OFF_VERSION, hello->version);
    store_be16(out + HELLO_OFF_RESERVED, 0);
    store_be32(out + HELLO_OFF_VPID, hello->vpid);
    memcpy(out + HELLO_OFF_NONCE, hello->nonce, HNP_NONCE_LEN);
}

/*
 * Magic and version come first: a peer speaking another protocol (or none)
 * deserves that diagnosis, not "failed proof". The reserved field is
 * ignored so that a later version can use it without breaking this one.
 */
int hnp_hello_check(const uint8_t *buf, size_t len, uint32_t nprocs,
                    hnp_hello_t *out, char *why, size_t whylen)
{
    uint16_t version;
    hnp_vpid_t vpid;

    if (buf == NULL || len < HNP_HELLO_LEN) {
        hnp_err_set(why, whylen, "hello truncated: %zu of %d bytes",
                    buf != NULL ? len : 0, HNP_HELLO_LEN);
        return HNP_ERR_TRUNCATED;
    }
    if (memcmp(buf + HELLO_OFF_MAGIC, hello_magic, sizeof(hello_magic)) != 0) {
        hnp_err_set(why, whylen, "bad magic 0x%08x: not an hnp peer",
                    load_be32(buf + HELLO_OFF_MAGIC));
        return HNP_ERR_BAD_PARAM;
    }
    version = load_be16(buf + HELLO_OFF_VERSION);
    if (version != HNP_PROTOCOL_VERSION) {
        hnp_err_set(why, whylen, "protocol version %u, expected %d",
                    (unsigned)version, HNP_PROTOCOL_VERSION);
        return HNP_ERR_VERSION;
    }
    vpid = load_be32(buf + HELLO_OFF_VPID);
    if (nprocs != 0 && vpid >= nprocs) {
        hnp_err_set(why, whylen, "vpid %u out of range (job has %u processes)",
                    vpid, nprocs);
        return HNP_ERR_BAD_PARAM;
    }
    if (out != NULL) {
        out->version = version;
        out->vpid = vpid;
        memcpy(out->nonce, buf + HELLO_OFF_NONCE, HNP_NONCE_LEN);
    }
    return HNP_SUCCESS;
}

void hnp_frame_header_encode(const hnp_frame_header_t *hdr,
                             uint8_t out[HNP_FRAME_HEADER_LEN])
{
    store_be32(out + HEADER_OFF_SRC, hdr->src);
    store_be32(out + HEADER_OFF_DST, hdr->dst);
    store_be32(out + HEADER_OFF_TAG, hdr->tag);
    store_be32(out + HEADER_OFF_LEN, hdr->len);
}

/* HNP_VPID_INVALID is UINT32_MAX, at or above any nprocs, so this also
 * refuses it whenever a job size is known. */
static int check_vpid(const char *role, hnp_vpid_t vpid, uint32_t nprocs,
                      char *why, size_t whylen)
{
    if (nprocs != 0 && vpid >= nprocs) {
        hnp_err_set(why, whylen,
                    "frame %s vpid %u out of range (job has %u processes)",
                    role, vpid, nprocs);
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

int hnp_frame_header_decode(const uint8_t *buf, size_t len, size_t max_len,
                            uint32_t nprocs, hnp_frame_header_t *out,
                            char *why, size_t whylen)
{
    hnp_frame_header_t hdr;
    int rc;

    if (buf == NULL || len < HNP_FRAME_HEADER_LEN) {
        hnp_err_set(why, whylen, "frame header truncated: %zu of %d bytes",
                    buf != NULL ? len : 0, HNP_FRAME_HEADER_LEN);
        return HNP_ERR_TRUNCATED;
    }
    hdr.src = load_be32(buf + HEADER_OFF_SRC);
    hdr.dst = load_be32(buf + HEADER_OFF_DST);
    hdr.tag = load_be32(buf + HEADER_OFF_TAG);
    hdr.len = load_be32(buf + HEADER_OFF_LEN);
    if (hdr.len > max_len) {
        hnp_err_set(why, whylen,
                    "frame of %u bytes exceeds the limit of %zu bytes "
                    "(tag %u, from vpid %u)",
                    hdr.len, max_len, hdr.tag, hdr.src);
        return HNP_ERR_BAD_PARAM;
    }
    rc = check_vpid("source", hdr.src, nprocs, why, whylen);
    if (rc == HNP_SUCCESS)
        rc = check_vpid("destination", hdr.dst, nprocs, why, whylen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (out != NULL)
        *out = hdr;
    return HNP_SUCCESS;
}

void hnp_secret_to_hex(const uint8_t secret[HNP_SECRET_LEN],
                       char out[2 * HNP_SECRET_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < HNP_SECRET_LEN; i++) {
        out[2 * i] = digits[secret[i] >> 4];
        out[2 * i + 1] = digits[secret[i] & 0x0f];
    }
    out[2 * HNP_SECRET_LEN] = '\0';
}

/* The value of one hex digit, or -1. Not isxdigit(): its answer depends on
 * the locale, the wire format does not. */
static int hex_digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Exactly 2 * HNP_SECRET_LEN hex digits, nothing around them: a shorter
 * secret would be a weaker one, and trailing bytes mean the caller read
 * the wrong thing. @p secret is written only on success. */
int hnp_secret_from_hex(const char *hex, uint8_t secret[HNP_SECRET_LEN])
{
    uint8_t bytes[HNP_SECRET_LEN];

    if (hex == NULL || strnlen(hex, 2 * HNP_SECRET_LEN + 1) !=
                           2 * HNP_SECRET_LEN)
        return HNP_ERR_BAD_PARAM;
    for (size_t i = 0; i < HNP_SECRET_LEN; i++) {
        int hi = hex_digit_value(hex[2 * i]);
        int lo = hex_digit_value(hex[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return HNP_ERR_BAD_PARAM;
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    memcpy(secret, bytes, sizeof(bytes));
    return HNP_SUCCESS;
}

/* Only for kernels older than getrandom(2) (Linux < 3.17). */
static int read_urandom(uint8_t *out, size_t len)
{
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return HNP_ERR_IO;
    while (got < len) {
        ssize_t n = read(fd, out + got, len - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return HNP_ERR_IO;
        }
        got += (size_t)n;
    }
    close(fd);
    return HNP_SUCCESS;
}

/* getrandom(2) may return fewer bytes than asked or be interrupted by a
 * signal; both are retried. Blocking until the kernel's pool is seeded (no
 * GRND_NONBLOCK) is intended: an early-boot secret must not be guessable. */
static int fill_random(uint8_t *out, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom(out + got, len - got, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == ENOSYS && got == 0)
            return read_urandom(out, len);
        if (n <= 0)
            return HNP_ERR_IO;
        got += (size_t)n;
    }
    return HNP_SUCCESS;
}

int hnp_secret_generate(uint8_t secret[HNP_SECRET_LEN])
{
    uint8_t bytes[HNP_SECRET_LEN];
    int rc = fill_random(bytes, sizeof(bytes));

    if (rc == HNP_SUCCESS)
        memcpy(secret, bytes, sizeof(bytes));
    /* Do not leave a copy of the job's secret on the stack. */
    explicit_bzero(bytes, sizeof(bytes));
    return rc;
}

int hnp_hello_magic_check(const uint8_t *buf, size_t len)
{
    size_t n = len < sizeof(hello_magic) ? len : sizeof(hello_magic);

    if (memcmp(buf, hello_magic, n) != 0)
        return -1;
    return n == sizeof(hello_magic) ? 1 : 0;
}
