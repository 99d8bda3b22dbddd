/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client of a persistent runtime (dvm.h): reads the DVM's file, proves
 * its secret, hands over the command line with its own stdin, stdout and
 * stderr, forwards the signals it gets, and exits with the job's status.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dvm.h"
#include "dvm_proto.h"

extern char **environ;

/* The signals a client forwards, written by the handler into a pipe the
 * loop reads (the handler's only owner is this process). */
static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
    unsigned char s = (unsigned char)sig;
    int saved = errno;

    if (write(signal_pipe[1], &s, 1) < 0) {
        /* full: the signal is already on its way many times */
    }
    errno = saved;
}

static void catch_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2,
                                SIGTSTP, SIGCONT };
    struct sigaction sa;

    if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

/* The DVM's file: "uri unix:PATH" and "secret HEX". */
static int read_contact(const char *file, char *path, size_t pathlen,
                        uint8_t secret[HNP_SECRET_LEN], pid_t *pid,
                        char *err, size_t errlen)
{
    FILE *f = fopen(file, "r");
    char line[PATH_MAX + 64];
    bool have_uri = false, have_secret = false;

    if (f == NULL) {
        hnp_err_set(err, errlen, "--dvm-uri %s: %s", file, strerror(errno));
        return HNP_ERR_NOT_FOUND;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "uri unix:", 9) == 0 &&
            strlen(line + 9) < pathlen) {
            strcpy(path, line + 9);
            have_uri = true;
        } else if (strncmp(line, "pid ", 4) == 0) {
            *pid = (pid_t)strtol(line + 4, NULL, 10);
        } else if (strncmp(line, "secret ", 7) == 0) {
            have_secret = hnp_secret_from_hex(line + 7, secret) ==
                          HNP_SUCCESS;
        }
    }
    fclose(f);
    if (!have_uri || !have_secret) {
        hnp_err_set(err, errlen, "--dvm-uri %s: not a DVM's file (it has "
                    "no %s line)", file, have_uri ? "valid \"secret\""
                                                  : "\"uri unix:\"");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

static int connect_dvm(const char *file, pid_t *pid, char *err,
                       size_t errlen)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    uint8_t secret[HNP_SECRET_LEN];
    int fd, rc;

    rc = read_contact(file, addr.sun_path, sizeof(addr.sun_path), secret,
                      pid, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        hnp_err_set(err, errlen, "cannot reach the DVM of %s at %s: %s (is "
                    "it still running?)", file, addr.sun_path,
                    strerror(errno));
        if (fd >= 0)
            close(fd);
        return HNP_ERR_UNREACHABLE;
    }
    if (hnp_auth_init() != HNP_SUCCESS ||
        dvm_client_handshake(fd, secret, err, errlen) != HNP_SUCCESS) {
        if (err[0] == '\0')
            hnp_err_set(err, errlen, "cannot start libsodium");
        close(fd);
        return HNP_ERROR;
    }
    sodium_memzero(secret, sizeof(secret));
    return fd;
}

static void forward_signal(int fd, int sig)
{
    hnp_wire_dvm_request_t m = { .kind = HNP_DVM_SIGNAL, .signo = sig };

    (void)dvm_send_request(fd, &m, NULL, 0);
    if (sig == SIGTSTP) /* the job stops, and so does its client */
        raise(SIGSTOP);
}

/* What the DVM says; returns the exit status when it is the last word,
 * -1 while more is to come. */
static int take_reply(const hnp_args_t *args, const uint8_t *body, size_t len,
                      bool *stopping)
{
    hnp_wire_dvm_reply_t m;
    hnp_reader_t rd;
    int status = -1;

    hnp_reader_init(&rd, body, len);
    if (hnp_wire_dvm_reply_unpack(&rd, &m) != HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "a malformed answer from the "
                      "DVM");
        return 1;
    }
    if (m.kind == HNP_DVM_QUEUED && !args->quiet)
        HNP_INFO(hnp_log_stream("hnp"), "waiting: %s", m.text);
    else if (m.kind == HNP_DVM_STARTED)
        HNP_VERBOSE(hnp_log_stream("rte"), 1, "job %u started", m.jobid);
    else if (m.kind == HNP_DVM_DONE)
        status = m.status;
    else if (m.kind == HNP_DVM_REFUSED) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", m.text);
        status = m.status != 0 ? m.status : 1;
    } else if (m.kind == HNP_DVM_LISTING) {
        fputs(m.text, stdout);
        status = 0;
    } else if (m.kind == HNP_DVM_STOPPING) {
        *stopping = true; /* done when the DVM closes the connection */
    }
    hnp_wire_dvm_reply_clear(&m);
    return status;
}

static int wait_for_end(const hnp_args_t *args, int fd)
{
    dvm_inbuf_t in = { 0 };
    bool stopping = false, bad = false;
    int status = -1;

    while (status < 0) {
        struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
                               { .fd = signal_pipe[0], .events = POLLIN } };
        const uint8_t *body;
        size_t len = 0;
        unsigned char sig;

        if (poll(p, signal_pipe[0] >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
            break;
        while (signal_pipe[0] >= 0 && read(signal_pipe[0], &sig, 1) == 1)
            forward_signal(fd, sig);
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        long n = dvm_recv_some(fd, &in, NULL, NULL);
        if (n == 0 || n < -1) {
            if (stopping)
                status = 0;
            else
                HNP_ERROR_LOG(hnp_log_stream("hnp"), "the DVM went away "
                              "before the job ended");
            break;
        }
        while (status < 0 && (body = dvm_inbuf_frame(&in, &len, &bad)) !=
                                 NULL) {
            status = take_reply(args, body, len, &stopping);
            dvm_inbuf_drop(&in, len);
        }
        if (bad)
            break;
    }
    dvm_inbuf_release(&in);
    return status < 0 ? 1 : status;
}

/* The values of --mca, --gmca and --tune, name then value, for the DVM to
 * apply to the job or refuse: a client registers no framework, so it
 * cannot tell hnp's parameters from Open MPI's. */
typedef struct given_params {
    char **v;
    uint32_t n; /* pairs */
    int rc;
} given_params_t;

static void give(given_params_t *g, const char *name, const char *value,
                 hnp_param_source_t source)
{
    char **grown;

    if (g->rc != HNP_SUCCESS || (source != HNP_PARAM_SRC_CMDLINE &&
                                 source != HNP_PARAM_SRC_TUNE_FILE))
        return;
    grown = realloc(g->v, (2 * (size_t)g->n + 3) * sizeof(*grown));
    if (grown == NULL) {
        g->rc = HNP_ERR_NOMEM;
        return;
    }
    g->v = grown;
    g->v[2 * g->n] = (char *)name;
    g->v[2 * g->n + 1] = (char *)value;
    g->v[2 * g->n + 2] = NULL;
    g->n++;
}

static int give_registered(const hnp_param_info_t *info, void *ctx)
{
    give(ctx, info->full_name, info->value, info->source);
    return 0;
}

static int give_unregistered(const char *name, const char *value,
                             hnp_param_source_t source, void *ctx)
{
    give(ctx, name, value, source);
    return 0;
}

/* --dvm-stop returns once the HNP is gone (its daemons went before it). */
static void wait_gone(pid_t pid)
{
    for (int i = 0; pid > 0 && i < 600 && kill(pid, 0) == 0; i++)
        usleep(50000);
}

int hnp_dvm_client(const hnp_args_t *args, const hnp_params_t *params,
                   int argc, char **argv)
{
    given_params_t given = { NULL, 0, HNP_SUCCESS };
    const char *file = args->dvm_uri != NULL ? args->dvm_uri
                                             : getenv("HNP_DVM_URI");
    static const int stdio[3] = { 0, 1, 2 };
    hnp_wire_dvm_request_t req = { .kind = HNP_DVM_SUBMIT };
    char err[1024] = "", cwd[PATH_MAX];
    pid_t pid = 0;
    int fd, status;

    fd = connect_dvm(file, &pid, err, sizeof(err));
    if (fd < 0) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "%s", err);
        return 1;
    }
    if (args->dvm_stop)
        req.kind = HNP_DVM_STOP;
    else if (args->dvm_jobs)
        req.kind = HNP_DVM_LIST;
    req.flags = args->dvm_nowait ? HNP_DVM_NOWAIT : 0;
    req.argc = (uint32_t)argc - 1;
    req.argv = argv + 1;
    req.cwd = getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "";
    req.env = environ;
    while (environ[req.nenv] != NULL)
        req.nenv++;
    hnp_params_foreach(params, give_registered, &given);
    hnp_params_foreach_unregistered(params, give_unregistered, &given);
    if (given.rc != HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "out of memory");
        close(fd);
        free(given.v);
        return 1;
    }
    req.mca = given.v;
    req.nmca = given.n;
    catch_signals();
    if (dvm_send_request(fd, &req, req.kind == HNP_DVM_SUBMIT ? stdio : NULL,
                         req.kind == HNP_DVM_SUBMIT ? 3 : 0) != HNP_SUCCESS) {
        HNP_ERROR_LOG(hnp_log_stream("hnp"), "cannot send the job to the "
                      "DVM of %s", file);
        close(fd);
        free(given.v);
        return 1;
    }
    free(given.v);
    status = wait_for_end(args, fd);
    close(fd);
    if (args->dvm_stop && status == 0)
        wait_gone(pid);
    return status;
}
