/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-mitm: an attacker on the cluster network, for tests/integration/
 * auth-mitm.sh. It speaks only what it can see on the wire.
 *
 *   hnp-mitm forward PORTFILE TARGET_PORT LOG [inject]
 *       Listen on 127.0.0.1 (the port goes to PORTFILE), take one
 *       connection, connect it to 127.0.0.1:TARGET_PORT and relay both
 *       ways until both sides have closed. Every byte goes to LOG; what the
 *       connecting side sent also to LOG.c2s. With "inject", a well-formed
 *       FAILURE frame (status 42) made without any key goes into the
 *       connector's stream after its first whole frame, where the protocol
 *       has a MAC with a MAC of zeros.
 *   hnp-mitm replay TARGET_PORT C2S
 *       Replay a connector's recorded bytes to 127.0.0.1:TARGET_PORT: its
 *       hello, then (once the answer is in) everything after it. Prints
 *       "closed" when the target closed the connection within 5 s, else
 *       "open".
 *   hnp-mitm find HEX FILE
 *       Exit 0 when FILE contains the bytes HEX stands for, or the text
 *       HEX itself; 1 when it contains neither.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hnp_buffer.h"
#include "wire/failure.h"
#include "wire/frame.h"

#define HELLO_LEN 44     /* both protocols */
#define PROOF_LEN 32     /* protocol 2: the connector's proof */
#define MAC_LEN 16       /* protocol 2 */
#define REPLY2_LEN 76    /* protocol 2: hello and proof */
#define TAG_FAILURE 10   /* runtime/core/rte.h */

static void die(const char *what)
{
    fprintf(stderr, "hnp-mitm: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* that side has gone: the relay ends with it */
        p += w;
        n -= (size_t)w;
    }
}

static int connect_to(unsigned port)
{
    struct sockaddr_in sin;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
        die("connect");
    return fd;
}

/* Where the connector's stream is: its handshake, then frames. */
typedef struct stream {
    uint8_t hello[HELLO_LEN];
    size_t seen;       /* bytes so far */
    unsigned version;  /* from the hello */
    uint8_t hdr[HNP_FRAME_HEADER_LEN];
    size_t hdr_got;
    size_t body_left;
    unsigned frames;   /* whole frames so far */
} stream_t;

static size_t handshake_len(const stream_t *s)
{
    return s->version >= 2 ? HELLO_LEN + PROOF_LEN : HELLO_LEN;
}

static void forged_failure(const stream_t *s, int to)
{
    hnp_wire_failure_t m = { 0, 42, "forged by the man in the middle" };
    hnp_buffer_t body;
    uint8_t hdr[HNP_FRAME_HEADER_LEN], mac[MAC_LEN] = { 0 };
    hnp_vpid_t src = (hnp_vpid_t)s->hello[8] << 24 |
                     (hnp_vpid_t)s->hello[9] << 16 |
                     (hnp_vpid_t)s->hello[10] << 8 | s->hello[11];

    hnp_buffer_init(&body);
    if (hnp_wire_failure_pack(&body, &m) != 0)
        die("pack");
    hnp_frame_header_t h = { src, 0, TAG_FAILURE, (uint32_t)body.len };
    hnp_frame_header_encode(&h, hdr);
    write_all(to, hdr, sizeof(hdr));
    write_all(to, body.data, body.len);
    if (s->version >= 2)
        write_all(to, mac, sizeof(mac));
    hnp_buffer_release(&body);
    fprintf(stderr, "hnp-mitm: injected a FAILURE frame after frame %u\n",
            s->frames);
}

/* Relay @p n bytes of the connector's stream, injecting once at the end
 * of its first whole frame. */
static void relay_c2s(stream_t *s, const uint8_t *p, size_t n, int to,
                      bool *inject)
{
    while (n > 0) {
        size_t take = 1;
        if (s->seen < handshake_len(s)) {
            if (s->seen < HELLO_LEN)
                s->hello[s->seen] = *p;
            if (s->seen == 5)
                s->version = (unsigned)s->hello[4] << 8 | s->hello[5];
        } else if (s->hdr_got < sizeof(s->hdr)) {
            s->hdr[s->hdr_got++] = *p;
            if (s->hdr_got == sizeof(s->hdr)) {
                uint32_t len = (uint32_t)s->hdr[12] << 24 |
                               (uint32_t)s->hdr[13] << 16 |
                               (uint32_t)s->hdr[14] << 8 | s->hdr[15];
                s->body_left = len + (s->version >= 2 ? MAC_LEN : 0);
            }
        } else {
            take = s->body_left < n ? s->body_left : n;
            s->body_left -= take;
        }
        write_all(to, p, take);
        s->seen += take;
        p += take;
        n -= take;
        if (s->seen > handshake_len(s) && s->hdr_got == sizeof(s->hdr) &&
            s->body_left == 0) {
            s->frames++;
            s->hdr_got = 0;
            if (*inject) {
                forged_failure(s, to);
                *inject = false;
            }
        }
    }
}

static int forward(const char *portfile, unsigned target, const char *log,
                   bool inject)
{
    struct sockaddr_in sin;
    socklen_t sl = sizeof(sin);
    char c2s_name[4096];
    stream_t s;
    int l = socket(AF_INET, SOCK_STREAM, 0);

    memset(&s, 0, sizeof(s));
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
        listen(l, 1) != 0 || getsockname(l, (struct sockaddr *)&sin, &sl) != 0)
        die("listen");
    FILE *pf = fopen(portfile, "w");
    if (pf == NULL)
        die(portfile);
    fprintf(pf, "%u\n", ntohs(sin.sin_port));
    fclose(pf);
    snprintf(c2s_name, sizeof(c2s_name), "%s.c2s", log);
    FILE *all = fopen(log, "wb"), *c2s = fopen(c2s_name, "wb");
    if (all == NULL || c2s == NULL)
        die(log);
    int c = accept(l, NULL, NULL);
    if (c < 0)
        die("accept");
    close(l);
    int t = connect_to(target);
    struct pollfd pfd[2] = { { c, POLLIN, 0 }, { t, POLLIN, 0 } };
    bool open[2] = { true, true };
    uint8_t buf[65536];
    while (open[0] || open[1]) {
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            die("poll");
        for (int i = 0; i < 2; i++) {
            if (!open[i] || pfd[i].revents == 0)
                continue;
            ssize_t n = recv(pfd[i].fd, buf, sizeof(buf), 0);
            if (n <= 0) {
                open[i] = false;
                pfd[i].fd = -1;
                shutdown(i == 0 ? t : c, SHUT_WR);
                continue;
            }
            fwrite(buf, 1, (size_t)n, all);
            fflush(all);
            if (i == 0) {
                fwrite(buf, 1, (size_t)n, c2s);
                fflush(c2s);
                relay_c2s(&s, buf, (size_t)n, t, &inject);
            } else {
                write_all(c, buf, (size_t)n);
            }
        }
    }
    fclose(all);
    fclose(c2s);
    return 0;
}

static bool closed_within(int fd, int ms)
{
    uint8_t buf[4096];
    struct pollfd pfd = { fd, POLLIN, 0 };

    for (;;) {
        int r = poll(&pfd, 1, ms);
        if (r <= 0)
            return false;
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n <= 0)
            return true;
    }
}

static int replay(unsigned target, const char *path)
{
    static uint8_t rec[1 << 20];
    FILE *fp = fopen(path, "rb");
    uint8_t reply[REPLY2_LEN];

    if (fp == NULL)
        die(path);
    size_t n = fread(rec, 1, sizeof(rec), fp);
    fclose(fp);
    if (n < HELLO_LEN) {
        fprintf(stderr, "hnp-mitm: %s holds no hello\n", path);
        return 2;
    }
    unsigned version = (unsigned)rec[4] << 8 | rec[5];
    size_t answer = version >= 2 ? REPLY2_LEN : HELLO_LEN;
    int fd = connect_to(target);
    write_all(fd, rec, HELLO_LEN);
    size_t got = 0;
    while (got < answer) {
        struct pollfd pfd = { fd, POLLIN, 0 };
        if (poll(&pfd, 1, 5000) <= 0)
            break;
        ssize_t r = recv(fd, reply + got, answer - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == answer)
        write_all(fd, rec + HELLO_LEN, n - HELLO_LEN);
    printf("%s\n", closed_within(fd, 5000) ? "closed" : "open");
    close(fd);
    return 0;
}

static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool contains(const uint8_t *hay, size_t n, const uint8_t *needle,
                     size_t m)
{
    for (size_t i = 0; m > 0 && i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return true;
    return false;
}

static int find(const char *hex, const char *path)
{
    static uint8_t data[64 << 20];
    uint8_t bytes[256];
    size_t m = strlen(hex) / 2;
    FILE *fp = fopen(path, "rb");

    if (fp == NULL)
        die(path);
    size_t n = fread(data, 1, sizeof(data), fp);
    fclose(fp);
    if (m == 0 || m > sizeof(bytes))
        return 2;
    for (size_t i = 0; i < m; i++) {
        int hi = unhex(hex[2 * i]), lo = unhex(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 2;
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    return contains(data, n, bytes, m) ||
                   contains(data, n, (const uint8_t *)hex, strlen(hex))
               ? 0
               : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "forward") == 0)
        return forward(argv[2], (unsigned)atoi(argv[3]), argv[4],
                       argc > 5 && strcmp(argv[5], "inject") == 0);
    if (argc == 4 && strcmp(argv[1], "replay") == 0)
        return replay((unsigned)atoi(argv[2]), argv[3]);
    if (argc == 4 && strcmp(argv[1], "find") == 0)
        return find(argv[2], argv[3]);
    fprintf(stderr, "usage: hnp-mitm forward PORTFILE TARGET_PORT LOG "
            "[inject] | replay TARGET_PORT C2S | find HEX FILE\n");
    return 2;
}
