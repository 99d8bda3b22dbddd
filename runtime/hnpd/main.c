/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnpd: the daemon, started on every node by a plm component, never by
 * hand. Its command line says who it is (or which plm to ask) and whom to
 * call; the job secret comes on stdin or in a file; everything else comes
 * in its parent's first message.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "identity.h"
#include "procs/fdlimit.h"

#define NODE_NAME_LEN 256

typedef struct hnpd_args {
    hnp_vpid_t vpid;
    hnp_vpid_t parent;
    const char *node;
    const char *parent_uri;
    const char *plm;         /* started by this plm's own command: who it
                                is comes from the plm, and it stays that
                                command's task */
    const char *secret_file; /* the secret is here, not on stdin */
    const char *first_vpid;  /* with plm: added to a running job, the
                                command's daemons numbered from here */
    bool attached;   /* stays with the agent: no fork to leave it */
    const char *self; /* argv[0]: how this binary was started */
    char node_buf[NODE_NAME_LEN]; /* the node's name as the plm gave it */
} hnpd_args_t;

static const hnp_setup_option_t hnpd_options[] = {
    { "--vpid", 1, NULL }, { "--node", 1, NULL }, { "--parent", 1, NULL },
    { "--parent-uri", 1, NULL }, { "--plm", 1, NULL },
    { "--secret-file", 1, NULL }, { "--first-vpid", 1, NULL },
    { NULL, 0, NULL },
};

static int parse_vpid(const char *text, hnp_vpid_t *out)
{
    char *end = NULL;
    unsigned long v = strtoul(text, &end, 10);

    if (*text == '\0' || *end != '\0' || v >= HNP_VPID_INVALID)
        return HNP_ERR_BAD_PARAM;
    *out = (hnp_vpid_t)v;
    return HNP_SUCCESS;
}

static int parse_args(hnpd_args_t *a, int argc, char **argv, char *err,
                      size_t errlen)
{
    bool have_vpid = false, have_parent = false;

    memset(a, 0, sizeof(*a));
    a->self = argc > 0 ? argv[0] : NULL;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(opt, "--attached") == 0) {
            a->attached = true;
            continue;
        }
        if (strcmp(opt, "--vpid") == 0)
            have_vpid = parse_vpid(val, &a->vpid) == HNP_SUCCESS;
        else if (strcmp(opt, "--parent") == 0)
            have_parent = parse_vpid(val, &a->parent) == HNP_SUCCESS;
        else if (strcmp(opt, "--node") == 0)
            a->node = val;
        else if (strcmp(opt, "--parent-uri") == 0)
            a->parent_uri = val;
        else if (strcmp(opt, "--plm") == 0)
            a->plm = val;
        else if (strcmp(opt, "--secret-file") == 0)
            a->secret_file = val;
        else if (strcmp(opt, "--first-vpid") == 0)
            a->first_vpid = val;
        i++;
    }
    if (((!have_vpid || a->vpid == 0 || a->node == NULL) && a->plm == NULL) ||
        !have_parent || a->parent_uri == NULL) {
        hnp_err_set(err, errlen, "hnpd is started by hnp, not by hand (needs "
                    "--vpid N --node NAME, or --plm NAME inside that plm's "
                    "command, --parent N --parent-uri URI and the job secret "
                    "on stdin or in --secret-file FILE)");
        return HNP_ERR_BAD_PARAM;
    }
    if (a->first_vpid != NULL && a->plm == NULL) {
        hnp_err_set(err, errlen, "--first-vpid numbers the daemons a plm's "
                    "own command starts: it needs --plm NAME");
        return HNP_ERR_BAD_PARAM;
    }
    return HNP_SUCCESS;
}

/* Started by a plm's own command (srun, a batch system's spawn): that plm
 * knows, from the command's environment, which daemon this is. */
static int identity_from_plm(hnp_setup_t *setup, hnpd_args_t *a,
                             const hnp_plm_module_t **plm, char *err,
                             size_t errlen)
{
    char why[512] = "";
    int rc = hnp_setup_select_plm(setup, a->plm, plm, why, sizeof(why));

    if (rc == HNP_SUCCESS)
        rc = (*plm)->daemon_identity(&a->vpid, a->node_buf,
                                     sizeof(a->node_buf), why, sizeof(why));
    if (rc == HNP_SUCCESS && (a->vpid == 0 || a->node_buf[0] == '\0')) {
        snprintf(why, sizeof(why), "it gave vpid %u on node \"%s\"", a->vpid,
                 a->node_buf);
        rc = HNP_ERR_BAD_PARAM;
    }
    /* one of the daemons a spawn added, started by a command of their own */
    if (rc == HNP_SUCCESS && a->first_vpid != NULL)
        rc = hnpd_added_vpid(a->first_vpid, a->vpid, &a->vpid, why,
                             sizeof(why));
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "plm %s cannot tell this daemon who it is: "
                    "%s", a->plm, why[0] != '\0' ? why : hnp_strerror(rc));
        return rc;
    }
    a->node = a->node_buf;
    return HNP_SUCCESS;
}

/*
 * Split in two: the first process stays with the agent until the second
 * has joined the job (then exits 0, so the remote shell ends) or has failed
 * (then exits with its status, its error already on the agent's stderr).
 */
static int fork_detachable(int *detach_fd)
{
    int fds[2];
    char byte;
    int status = 0;

    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        *detach_fd = fds[1];
        return 0;
    }
    close(fds[1]);
    ssize_t n;
    do
        n = read(fds[0], &byte, 1);
    while (n < 0 && errno == EINTR);
    if (n == 1 && byte == 'k')
        _exit(0);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* The CPU this process had used before it exec'd hnpd, in microseconds:
 * a remote shell that measures it exports HNP_CPU_BEFORE_EXEC_US (the
 * local agent does), so that the start-up figure of --timing counts hnpd
 * alone. Without it, the remote shell's own start is counted too. */
static uint64_t cpu_before_exec(void)
{
    const char *text = getenv("HNP_CPU_BEFORE_EXEC_US");
    uint64_t us = 0;

    if (text != NULL) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (errno == 0 && end != text && *end == '\0')
            us = v;
        unsetenv("HNP_CPU_BEFORE_EXEC_US");
    }
    return us;
}

/* A daemon that spawns its own subtree (a tree launcher) starts hnpd
 * again: the binary running now, at the same absolute path on every node,
 * as the HNP's own copy was found. Launchers start it by that absolute
 * path, so argv[0] says it; /proc is asked only otherwise (the first
 * look at /proc/self costs a new process some 16 us). */
static int find_own_path(hnp_rte_t *rte, const char *argv0, char *err,
                         size_t errlen)
{
    char self[PATH_MAX];
    ssize_t n = 0;

    if (argv0 != NULL && argv0[0] == '/' && strlen(argv0) < sizeof(self)) {
        n = (ssize_t)strlen(argv0);
        memcpy(self, argv0, (size_t)n);
    } else {
        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    }
    if (n <= 0) {
        hnp_err_set(err, errlen, "cannot find where hnpd runs from: %s",
                    strerror(errno));
        return HNP_ERR_NOT_FOUND;
    }
    self[n] = '\0';
    rte->daemon_path = strdup(self);
    if (rte->daemon_path == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    return HNP_SUCCESS;
}

/*
 * The normal end: every process reaped, every child daemon gone, all that
 * was queued sent. What is left to do is the modules' finalize and the
 * components' close hooks; the heap, the sockets and the loaded modules go
 * with the process, as the kernel frees them at exit anyway. Freeing them
 * one by one cost a daemon 0.2 ms of CPU, and hundreds of daemons do it at
 * once at the very end of a job. exit() rather than _exit(): stdio and the
 * log file are flushed, and a leak checker still sees every block reachable
 * from main's frame, so only genuinely lost memory shows as a leak.
 */
static void quick_exit_daemon(hnpd_t *d, hnp_setup_t *setup)
{
    hnpd_pmi_release(d); /* nothing may be left in /tmp */
    hnpd_relay_stop(d);
    hnp_rte_finalize(d->rte);
    hnp_mca_close(setup->mca);
    exit(0);
}

/*
 * SIGTERM: the agent's process group is ended (an HNP that gives up on a
 * daemon still starting, a batch system cancelling the step). The ranks
 * go first, then the daemon leaves through its usual release, which
 * removes what it made in /tmp (the pmi components' directories).
 */
static void on_sigterm(evutil_socket_t sig, short what, void *arg)
{
    hnpd_t *d = arg;

    (void)what;
    if (d->odls != NULL)
        hnp_odls_signal_all(d->odls, SIGKILL);
    d->exit_status = 128 + (int)sig;
    d->clean_end = false;
    event_base_loopbreak(d->rte->base);
}

/*
 * SIGUSR1, SIGUSR2: meant for the job (a batch system's warning before the
 * end of the allocation, scancel -s USR1 of the step, which reaches the
 * daemons rather than the ranks): passed on to this node's processes, as
 * hnp passes on those it gets. Before the ranks start they are dropped.
 */
static void on_user_signal(evutil_socket_t sig, short what, void *arg)
{
    hnpd_t *d = arg;

    (void)what;
    HNP_VERBOSE(d->rte->log, 1, "node %s: forwarding signal %d to its "
                "processes", d->node, (int)sig);
    if (d->odls != NULL)
        hnp_odls_signal_all(d->odls, (int)sig);
}

static int run_daemon(hnpd_t *d, const hnpd_args_t *a,
                      const hnp_plm_module_t *plm, char *err, size_t errlen)
{
    int rc = hnp_rte_create(&d->rte, d->setup, false, a->vpid, err, errlen);

    if (rc == HNP_SUCCESS)
        rc = find_own_path(d->rte, a->self, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    if (plm != NULL)
        hnp_rte_set_plm(d->rte, a->plm, plm);
    if (hnpd_read_secret(a->secret_file, d->rte->secret, err, errlen) !=
        HNP_SUCCESS)
        return HNP_ERR_BAD_PARAM;
    hnp_secret_to_hex(d->rte->secret, d->rte->secret_hex);
    rc = hnpd_start(d, a->parent_uri, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    struct event *term = evsignal_new(d->rte->base, SIGTERM, on_sigterm, d);
    struct event *usr1 = evsignal_new(d->rte->base, SIGUSR1, on_user_signal, d);
    struct event *usr2 = evsignal_new(d->rte->base, SIGUSR2, on_user_signal, d);
    struct event *const handlers[] = { term, usr1, usr2 };
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
        if (handlers[i] != NULL)
            evsignal_add(handlers[i], NULL);
    event_base_dispatch(d->rte->base);
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
        if (handlers[i] != NULL)
            event_free(handlers[i]);
    return d->exit_status;
}

int main(int argc, char **argv)
{
    hnp_setup_t setup;
    hnpd_args_t args;
    const hnp_plm_module_t *plm = NULL;
    hnpd_t d;
    char err[1024] = "", program[300];
    int rc;

    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    /* Until the event loop forwards them to the ranks (run_daemon), a
     * batch system's SIGUSR1/2 must not end the daemon; the process that
     * waits for it to detach ignores them too. */
    signal(SIGUSR1, SIG_IGN);
    signal(SIGUSR2, SIG_IGN);
    /* A connection per neighbour, pipes per child: the most it may have. */
    (void)hnp_fd_limit_raise(NULL, NULL);
    hnp_log_set_program("hnpd");
    memset(&d, 0, sizeof(d));
    d.detach_fd = -1;
    rc = hnp_setup_init_core(&setup, &argc, argv, hnpd_options, err, sizeof(err));
    if (rc == HNP_SUCCESS)
        rc = parse_args(&args, argc, argv, err, sizeof(err));
    if (rc == HNP_SUCCESS && args.plm != NULL)
        rc = identity_from_plm(&setup, &args, &plm, err, sizeof(err));
    if (rc != HNP_SUCCESS) {
        hnp_setup_fini(&setup);
        HNP_ERROR_LOG(hnp_log_stream("hnpd"), "%s", err);
        return 1;
    }
    snprintf(program, sizeof(program), "hnpd[%s]", args.node);
    hnp_log_set_program(program);
    setenv("HNP_NODE_NAME", args.node, 1);
    /* A batch system's tasks (srun's) stay its tasks: it tracks and ends
     * them, and a daemon told so stays with its agent. Otherwise the daemon
     * goes on in a child, and the CPU of the process that will exit at
     * detach is counted here. */
    d.before_exec_us = cpu_before_exec();
    d.attached = args.attached && args.plm == NULL;
    if (!d.attached && args.plm == NULL) {
        uint64_t rss_kb;
        hnp_daemon_stats_usage(&d.prefork_cpu_us, &rss_kb);
        if (fork_detachable(&d.detach_fd) != 0) {
            HNP_ERROR_LOG(hnp_log_stream("hnpd"), "cannot fork: %s",
                          strerror(errno));
            return 1;
        }
    }
    /* The sentinel is started now, once for the daemon's life. Without
     * it, the first rank starts one. */
    if (hnp_sentinel_spawn(&d.sentinel, err, sizeof(err)) != HNP_SUCCESS)
        HNP_WARN(hnp_log_stream("odls"), "%s", err);
    d.setup = &setup;
    d.node = (char *)args.node;
    d.parent = args.parent;
    rc = run_daemon(&d, &args, plm, err, sizeof(err));
    if (rc < 0)
        HNP_ERROR_LOG(hnp_log_stream("hnpd"), "%s", err[0] ? err : hnp_strerror(rc));
    if (rc == 0 && d.clean_end)
        quick_exit_daemon(&d, &setup);
    hnpd_procs_release(&d);
    hnp_sentinel_destroy(d.sentinel);
    free(d.pmi_wanted);
    free(d.pmi_early);
    free(d.pmi_early_err);
    hnp_rte_timer_destroy(d.pmi_early_timer);
    hnp_rte_timer_destroy(d.exit_timer);
    hnp_rte_timer_destroy(d.drain_timer);
    hnpd_relay_stop(&d);
    hnp_rte_destroy(d.rte);
    hnp_setup_fini(&setup);
    return rc < 0 ? 1 : rc;
}
