/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMI client that speaks the requests of dynamic processes exactly as
 * MPICH's libpmi writes them (PMI-1: src/pmi/simple/simple_pmi.c of
 * MPICH 4.0, Debian's; PMI-2: src/pmi/pmi2/simple/simple2pmi.c), on the
 * connection hnp's daemon gives a rank (PMI_FD), and checks every
 * answer. Debian's MPICH cannot spawn, so this stands for it.
 *
 *   pmi_dyn names1|names2 TAG   every rank: name publishing with PMI-1 or
 *                               PMI-2 (>= 2 ranks): an unknown name, a
 *                               publish, a second publish refused, a
 *                               lookup by another rank, an unpublish, a
 *                               second unpublish refused, a lookup after
 *   pmi_dyn publish1 NAME PORT DIR  publish, say so (DIR/published), and
 *                               wait for DIR/done before finalize
 *   pmi_dyn lookup1 NAME        look NAME up, print what came
 *   pmi_dyn spawn1|spawn2 ...   spawn (pmi_dyn_spawn.c)
 *
 * Every check prints "FAIL: ..." and exits 1 when it fails; a mode that
 * passes prints "rank R: MODE ok".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmi_dyn.h"

static int pmi_fd = -1;
static int v2;           /* the connection speaks PMI-2 framing */
int dyn_rank = -1;

void dyn_fail(const char *fmt, ...)
{
    va_list ap;

    printf("FAIL: rank %d: ", dyn_rank);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(1);
}

static void write_all(const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(pmi_fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            dyn_fail("cannot write to PMI_FD: %s", strerror(errno));
        data += n;
        len -= (size_t)n;
    }
}

static void read_all(char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(pmi_fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            dyn_fail("the server closed the PMI connection");
        buf += n;
        len -= (size_t)n;
    }
}

/* PMI-1: one line (MPICH's PMIU_readline reads up to the newline). */
static void read_line(char *buf, size_t cap)
{
    size_t n = 0;

    while (n + 1 < cap) {
        read_all(buf + n, 1);
        if (buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = '\0';
}

void dyn_send(const char *request)
{
    if (!v2) {
        write_all(request, strlen(request));
        return;
    }
    /* PMI-2: the length in six characters, left aligned, blank padded */
    char head[32];
    if (strlen(request) > 999999)
        dyn_fail("a PMI-2 request too long");
    snprintf(head, sizeof(head), "%-6u", (unsigned)strlen(request));
    write_all(head, 6);
    write_all(request, strlen(request));
}

void dyn_recv(char *answer, size_t cap)
{
    if (!v2) {
        read_line(answer, cap);
        return;
    }
    char head[7] = { 0 };
    read_all(head, 6);
    size_t len = strtoul(head, NULL, 10);
    if (len + 1 > cap)
        dyn_fail("a PMI-2 answer of %zu bytes", len);
    read_all(answer, len);
    answer[len] = '\0';
}

void dyn_ask(const char *request, char *answer, size_t cap)
{
    dyn_send(request);
    dyn_recv(answer, cap);
}

/* The value of KEY in an answer (PMI-1 "key=value " words, PMI-2
 * "key=value;"), or NULL; a static buffer. */
const char *dyn_field(const char *answer, const char *key)
{
    static char value[1024];
    size_t klen = strlen(key);
    const char *p = answer;

    while ((p = strstr(p, key)) != NULL) {
        bool starts = p == answer || p[-1] == ' ' || p[-1] == ';' ||
                      p[-1] == '\n';
        if (starts && p[klen] == '=') {
            size_t n = strcspn(p + klen + 1, v2 ? ";" : " \n");
            if (n >= sizeof(value))
                n = sizeof(value) - 1;
            memcpy(value, p + klen + 1, n);
            value[n] = '\0';
            return value;
        }
        p += klen;
    }
    return NULL;
}

/* The answer's cmd is @p cmd and its rc @p rc. */
void dyn_expect(const char *what, const char *answer, const char *cmd,
                int rc)
{
    const char *got_cmd = dyn_field(answer, "cmd");
    char c[128];

    snprintf(c, sizeof(c), "%s", got_cmd != NULL ? got_cmd : "");
    const char *got_rc = dyn_field(answer, "rc");
    if (strcmp(c, cmd) != 0 || got_rc == NULL || atoi(got_rc) != rc)
        dyn_fail("%s: expected cmd=%s rc=%d, got \"%s\"", what, cmd, rc,
                 answer);
}

void dyn_init(int version)
{
    const char *fd = getenv("PMI_FD"), *rank = getenv("PMI_RANK");
    char line[DYN_LINE];

    if (fd == NULL || rank == NULL)
        dyn_fail("no PMI_FD or PMI_RANK in the environment");
    pmi_fd = atoi(fd);
    dyn_rank = atoi(rank);
    if (version == 1) {
        dyn_ask("cmd=init pmi_version=1 pmi_subversion=1\n", line,
                sizeof(line));
        dyn_expect("init", line, "response_to_init", 0);
        dyn_ask("cmd=get_maxes\n", line, sizeof(line));
        if (dyn_field(line, "vallen_max") == NULL)
            dyn_fail("get_maxes: %s", line);
        return;
    }
    dyn_ask("cmd=init pmi_version=2 pmi_subversion=0\n", line, sizeof(line));
    dyn_expect("init", line, "response_to_init", 0);
    v2 = 1;
    char req[256];
    snprintf(req, sizeof(req), "cmd=fullinit;pmijobid=%s;pmirank=%s;"
             "threaded=FALSE;", getenv("PMI_JOBID") != NULL
                 ? getenv("PMI_JOBID") : "", rank);
    dyn_ask(req, line, sizeof(line));
    dyn_expect("fullinit", line, "fullinit-response", 0);
    dyn_fullinit_answer(line);
}

void dyn_barrier(void)
{
    char line[DYN_LINE];

    if (!v2) {
        dyn_ask("cmd=barrier_in\n", line, sizeof(line));
        /* MPICH's client reads no rc here */
        if (strncmp(line, "cmd=barrier_out", 15) != 0 ||
            strstr(line, "rc=-1") != NULL)
            dyn_fail("barrier: %s", line);
    } else {
        dyn_ask("cmd=kvs-fence;", line, sizeof(line));
        dyn_expect("kvs-fence", line, "kvs-fence-response", 0);
    }
}

void dyn_finalize(void)
{
    char line[DYN_LINE];

    if (!v2) {
        dyn_ask("cmd=finalize\n", line, sizeof(line));
        if (strncmp(line, "cmd=finalize_ack", 16) != 0)
            dyn_fail("finalize: %s", line);
    } else {
        dyn_ask("cmd=finalize;", line, sizeof(line));
        dyn_expect("finalize", line, "finalize-response", 0);
    }
}

/* ------------------------------------------------------------ names */

static void publish(const char *name, const char *port, char *line)
{
    char req[512];

    if (!v2)
        snprintf(req, sizeof(req), "cmd=publish_name service=%s port=%s\n",
                 name, port);
    else
        snprintf(req, sizeof(req), "cmd=name-publish;name=%s;port=%s;"
                 "infokeycount=0;", name, port);
    dyn_ask(req, line, DYN_LINE);
}

static void unpublish(const char *name, char *line)
{
    char req[512];

    if (!v2)
        snprintf(req, sizeof(req), "cmd=unpublish_name service=%s\n", name);
    else
        snprintf(req, sizeof(req), "cmd=name-unpublish;name=%s;"
                 "infokeycount=0;", name);
    dyn_ask(req, line, DYN_LINE);
}

static void lookup(const char *name, char *line)
{
    char req[512];

    if (!v2)
        snprintf(req, sizeof(req), "cmd=lookup_name service=%s\n", name);
    else
        snprintf(req, sizeof(req), "cmd=name-lookup;name=%s;"
                 "infokeycount=0;", name);
    dyn_ask(req, line, DYN_LINE);
}

#define R_PUBLISH (v2 ? "name-publish-response" : "publish_result")
#define R_UNPUBLISH (v2 ? "name-unpublish-response" : "unpublish_result")
#define R_LOOKUP (v2 ? "name-lookup-response" : "lookup_result")

static int names(const char *tag)
{
    char line[DYN_LINE], name[128], port[128];
    const char *got;

    snprintf(name, sizeof(name), "svc-%s", tag);
    snprintf(port, sizeof(port), "port-%s-of-rank-0", tag);
    if (dyn_rank == 0) {
        lookup("no-such-service", line);
        dyn_expect("lookup of an unknown name", line, R_LOOKUP, -1);
        publish(name, port, line);
        dyn_expect("publish", line, R_PUBLISH, 0);
        publish(name, "another-port", line);
        dyn_expect("a second publish of the name", line, R_PUBLISH, -1);
    }
    dyn_barrier();
    lookup(name, line);
    dyn_expect("lookup", line, R_LOOKUP, 0);
    if ((got = dyn_field(line, "port")) == NULL || strcmp(got, port) != 0)
        dyn_fail("lookup of %s: expected port=%s, got \"%s\"", name, port,
                 line);
    dyn_barrier();
    if (dyn_rank == 1) {
        unpublish(name, line);
        dyn_expect("unpublish by another rank", line, R_UNPUBLISH, 0);
        unpublish(name, line);
        dyn_expect("a second unpublish", line, R_UNPUBLISH, -1);
    }
    dyn_barrier();
    lookup(name, line);
    dyn_expect("lookup after the unpublish", line, R_LOOKUP, -1);
    dyn_finalize();
    printf("rank %d: names%d ok\n", dyn_rank, v2 ? 2 : 1);
    return 0;
}

int dyn_wait_for_file(const char *path)
{
    struct stat st;
    /* a bound for a test: the other job may be slow to come on a busy
     * machine, but never this slow */
    for (int i = 0; i < 120 * 20; i++) {
        if (stat(path, &st) == 0)
            return 0;
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return -1;
}

static int publish_and_wait(const char *name, const char *port,
                            const char *dir)
{
    char line[DYN_LINE], path[4096];

    publish(name, port, line);
    dyn_expect("publish", line, R_PUBLISH, 0);
    snprintf(path, sizeof(path), "%s/published", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL || fclose(f) != 0)
        dyn_fail("cannot write %s", path);
    snprintf(path, sizeof(path), "%s/done", dir);
    if (dyn_wait_for_file(path) != 0)
        dyn_fail("%s never came", path);
    dyn_finalize();
    printf("rank %d: publish1 ok\n", dyn_rank);
    return 0;
}

static int lookup_and_say(const char *name)
{
    char line[DYN_LINE];
    const char *rc, *port;

    lookup(name, line);
    rc = dyn_field(line, "rc");
    if (rc != NULL && atoi(rc) == 0 && (port = dyn_field(line, "port")))
        printf("lookup %s: port=%s\n", name, port);
    else
        printf("lookup %s: not found (%s)\n", name, line);
    dyn_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "names1") == 0 || strcmp(mode, "names2") == 0) {
        if (argc != 3)
            return 2;
        dyn_init(mode[5] - '0');
        return names(argv[2]);
    }
    if (strcmp(mode, "publish1") == 0 && argc == 5) {
        dyn_init(1);
        return publish_and_wait(argv[2], argv[3], argv[4]);
    }
    if (strcmp(mode, "lookup1") == 0 && argc == 3) {
        dyn_init(1);
        return lookup_and_say(argv[2]);
    }
    return dyn_spawn_main(argc, argv);
}
