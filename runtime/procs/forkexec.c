/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vfork/exec with everything prepared before the vfork (see forkexec.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdlimit.h"
#include "forkexec.h"
#include "hnp_errors.h"

/* close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11) through syscall(2):
 * older C libraries lack the wrapper, and an older kernel answers ENOSYS or
 * EINVAL, which only costs the hardening, never the launch. */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* glibc's execvp searches this when PATH is unset. */
#define DEFAULT_PATH "/bin:/usr/bin"

extern char **environ;

/* What the child reads between fork and exec; built by the parent. */
typedef struct exec_plan {
    char **candidates;   /* paths to try in order, NULL-terminated */
    char **sh_argv;      /* "/bin/sh", <candidate>, argv[1..]: ENOEXEC */
    char *const *argv;
    char *const *env;
    const char *wdir;
    int fds[3];          /* become 0, 1, 2 */
    int death_signal;
    const cpu_set_t *cpuset; /* NULL: not bound */
    const int *keep_fds;     /* each > 2: survives exec */
    size_t nkeep_fds;
    pid_t parent;
    int report_fd;       /* write end of the errno pipe */
    bool restore_nofile; /* the program gets back... */
    struct rlimit nofile; /* ...the descriptor limit we started with */
} exec_plan_t;

/* ------------------------------------------------------------ descriptors */

/* Descriptors 0-2 may be free in a daemon that closed its stdio; a pipe end
 * landing there would be clobbered by the child's own dup2 calls. */
static int fd_above_stdio(int fd)
{
    if (fd > 2)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    close(fd);
    errno = saved;
    return moved;
}

int hnp_pipe(int fds[2], char *err, size_t errlen)
{
    int raw[2];

    if (pipe2(raw, O_CLOEXEC) != 0) {
        hnp_err_set(err, errlen, "cannot create a pipe: %s", strerror(errno));
        return HNP_ERR_IO;
    }
    raw[0] = fd_above_stdio(raw[0]);
    raw[1] = fd_above_stdio(raw[1]);
    if (raw[0] < 0 || raw[1] < 0) {
        hnp_err_set(err, errlen, "cannot move a pipe above stdio: %s",
                    strerror(errno));
        if (raw[0] >= 0)
            close(raw[0]);
        if (raw[1] >= 0)
            close(raw[1]);
        return HNP_ERR_IO;
    }
    fds[0] = raw[0];
    fds[1] = raw[1];
    return HNP_SUCCESS;
}

int hnp_open_devnull(char *err, size_t errlen)
{
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

    if (fd >= 0)
        fd = fd_above_stdio(fd);
    if (fd < 0) {
        hnp_err_set(err, errlen, "cannot open /dev/null: %s", strerror(errno));
        return HNP_ERR_IO;
    }
    return fd;
}

int hnp_fd_set_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);

    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return HNP_ERR_IO;
    return HNP_SUCCESS;
}

void hnp_signal_child_group(pid_t pid, int sig)
{
    /* The parent and the child both call setpgid, so the group exists as
     * soon as fork returns; falling back to the pid covers a child that
     * changed its own group later. */
    if (kill(-pid, sig) != 0 && errno == ESRCH)
        (void)kill(pid, sig);
}

/* ------------------------------------------------------------ the plan */

static const char *env_lookup(char *const *env, const char *name)
{
    size_t len = strlen(name);

    for (; *env != NULL; env++)
        if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
            return *env + len + 1;
    return NULL;
}

/* Every "dir/prog" of PATH in order; an empty entry means the working
 * directory, as in execvp, hence the bare name. With @p then_wdir,
 * "./prog" last: the working directory after PATH. */
static char **path_candidates(const char *prog, const char *path,
                              bool then_wdir)
{
    size_t n = 1;
    for (const char *c = path; *c != '\0'; c++)
        n += *c == ':';
    char **out = calloc(n + 2, sizeof(*out));
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t dirlen = strcspn(path, ":");
        size_t size = dirlen + strlen(prog) + 2;
        out[i] = malloc(size);
        if (out[i] == NULL)
            goto fail;
        if (dirlen == 0)
            snprintf(out[i], size, "%s", prog);
        else
            snprintf(out[i], size, "%.*s/%s", (int)dirlen, path, prog);
        path += dirlen + (path[dirlen] == ':');
    }
    if (then_wdir && asprintf(&out[n], "./%s", prog) < 0) {
        out[n] = NULL;
        goto fail;
    }
    return out;
fail:
    for (size_t i = 0; i < n; i++)
        free(out[i]);
    free(out);
    return NULL;
}

static char **exec_candidates(char *const *argv, char *const *env,
                              bool then_wdir)
{
    const char *prog = argv[0];

    /* A name with a slash, or an empty one (which execve rejects with
     * ENOENT), is used as it stands. */
    if (prog[0] == '\0' || strchr(prog, '/') != NULL) {
        char **out = calloc(2, sizeof(*out));
        if (out != NULL && (out[0] = strdup(prog)) == NULL) {
            free(out);
            out = NULL;
        }
        return out;
    }
    const char *path = env_lookup(env, "PATH");
    return path_candidates(prog, path != NULL ? path : DEFAULT_PATH,
                           then_wdir);
}

static void free_candidates(char **candidates)
{
    if (candidates != NULL)
        for (char **c = candidates; *c != NULL; c++)
            free(*c);
    free(candidates);
}

char *hnp_program_path(const char *prog)
{
    char *const argv[] = { (char *)prog, NULL };
    char **candidates = exec_candidates(argv, environ, false);
    char *found = NULL;

    for (char **c = candidates; c != NULL && *c != NULL && found == NULL; c++)
        if (access(*c, X_OK) == 0)
            found = strdup(*c);
    free_candidates(candidates);
    return found;
}

bool hnp_program_exists(const char *prog)
{
    char *path = hnp_program_path(prog);

    free(path);
    return path != NULL;
}

static void plan_free(exec_plan_t *plan)
{
    free_candidates(plan->candidates);
    free(plan->sh_argv);
}

/* This process raised its descriptor limit for itself (fdlimit.h): what
 * it starts gets the soft limit it was given back, under today's hard
 * one. */
static void plan_nofile(exec_plan_t *plan)
{
    uint64_t soft;

    if (!hnp_fd_limit_original(&soft) ||
        getrlimit(RLIMIT_NOFILE, &plan->nofile) != 0)
        return;
    if ((rlim_t)soft < plan->nofile.rlim_max)
        plan->nofile.rlim_cur = (rlim_t)soft;
    plan->restore_nofile = true;
}

static int plan_build(exec_plan_t *plan, const hnp_forkexec_spec_t *spec,
                      char *err, size_t errlen)
{
    size_t argc = 0;

    memset(plan, 0, sizeof(*plan));
    if (spec->argv == NULL || spec->argv[0] == NULL) {
        hnp_err_set(err, errlen, "no program to execute (empty argv)");
        return HNP_ERR_BAD_PARAM;
    }
    while (spec->argv[argc] != NULL)
        argc++;
    plan->argv = spec->argv;
    plan->env = spec->env != NULL ? spec->env : environ;
    plan->wdir = spec->wdir;
    plan->fds[0] = spec->stdin_fd;
    plan->fds[1] = spec->stdout_fd;
    plan->fds[2] = spec->stderr_fd;
    plan->death_signal = spec->death_signal;
    plan->cpuset = spec->cpuset;
    plan->keep_fds = spec->keep_fds;
    plan->nkeep_fds = spec->nkeep_fds;
    plan->parent = getpid();
    plan_nofile(plan);
    plan->candidates = exec_candidates(spec->argv, plan->env,
                                       spec->then_wdir);
    plan->sh_argv = calloc(argc + 2, sizeof(char *));
    if (plan->candidates == NULL || plan->sh_argv == NULL) {
        plan_free(plan);
        hnp_err_set(err, errlen, "out of memory preparing to execute %s",
                    spec->argv[0]);
        return HNP_ERR_NOMEM;
    }
    plan->sh_argv[0] = "/bin/sh";
    for (size_t i = 1; i < argc; i++)
        plan->sh_argv[i + 1] = spec->argv[i];
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ the child */

/* From here to exec: async-signal-safe calls only, no allocation. */

static void __attribute__((noreturn)) child_fail(const exec_plan_t *plan,
                                                 int error)
{
    ssize_t n = write(plan->report_fd, &error, sizeof(error));
    (void)n;
    _exit(127);
}

/* Handlers were inherited from the parent (libevent's among them) and
 * ignored signals survive exec; the program must start with defaults. */
static void reset_signal_dispositions(void)
{
    struct sigaction dfl;

    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            (void)sigaction(sig, &dfl, NULL);
}

static bool is_lookup_miss(int error)
{
    return error == ENOENT || error == ENOTDIR || error == ESTALE ||
           error == ENODEV || error == ETIMEDOUT || error == ELOOP ||
           error == ENAMETOOLONG;
}

/* execvp's search, with the environment's PATH: a permission error is
 * remembered and reported only when nothing later in PATH runs. */
static int exec_search(const exec_plan_t *plan)
{
    int result = ENOENT;
    bool saw_eacces = false;

    for (char **c = plan->candidates; *c != NULL; c++) {
        execve(*c, plan->argv, plan->env);
        int error = errno;
        if (error == ENOEXEC) {
            /* A script without "#!": the shell runs it, as with execvp. */
            plan->sh_argv[1] = *c;
            execve(plan->sh_argv[0], plan->sh_argv, plan->env);
            return errno;
        }
        if (error == EACCES)
            saw_eacces = true;
        else if (!is_lookup_miss(error))
            return error;
        result = error;
    }
    return saw_eacces ? EACCES : result;
}

static void __attribute__((noreturn)) child_exec(const exec_plan_t *plan)
{
    sigset_t none;

    reset_signal_dispositions();
    (void)setpgid(0, 0);
    if (plan->death_signal != 0) {
        if (prctl(PR_SET_PDEATHSIG, plan->death_signal) != 0)
            child_fail(plan, errno);
        /* The parent may have died before prctl took effect. */
        if (getppid() != plan->parent)
            _exit(127);
    }
    for (int i = 0; i < 3; i++)
        if (dup2(plan->fds[i], i) < 0)
            child_fail(plan, errno);
    /* Only 0, 1 and 2 are the program's business; a descriptor some other
     * part of the process forgot to mark close-on-exec stays here. */
    (void)syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
    /* ...except those the program is told about (PMI_FD, ...). */
    for (size_t i = 0; i < plan->nkeep_fds; i++)
        if (plan->keep_fds[i] > 2 && fcntl(plan->keep_fds[i], F_SETFD, 0) != 0)
            child_fail(plan, errno);
    if (plan->wdir != NULL && chdir(plan->wdir) != 0)
        child_fail(plan, errno);
    if (plan->cpuset != NULL &&
        sched_setaffinity(0, sizeof(*plan->cpuset), plan->cpuset) != 0)
        child_fail(plan, errno);
    /* Lowering a soft limit cannot fail for want of privilege; should it
     * fail all the same, the program runs with ours rather than not. */
    if (plan->restore_nofile)
        (void)setrlimit(RLIMIT_NOFILE, &plan->nofile);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    child_fail(plan, exec_search(plan));
}

/* ------------------------------------------------------------ the parent */

int hnp_forkexec(const hnp_forkexec_spec_t *spec, pid_t *pid, int *errno_fd,
                 char *err, size_t errlen)
{
    exec_plan_t plan;
    int report[2];
    sigset_t all, saved;
    int rc = plan_build(&plan, spec, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    rc = hnp_pipe(report, err, errlen);
    if (rc != HNP_SUCCESS)
        goto out_plan;
    plan.report_fd = report[1];

    /* Blocked across vfork so that no signal runs one of our handlers in
     * the child before its dispositions are reset. vfork, not fork: the
     * child borrows this process's memory until it execs or exits, so no
     * page tables are copied and none of ours are made copy-on-write; a
     * daemon launching its children and processes pays for an exec, not
     * for a copy of itself. child_exec only makes system calls on the plan
     * built above and never returns. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &saved);
    pid_t child = vfork();
    if (child == 0)
        child_exec(&plan);
    int fork_errno = errno;
    sigprocmask(SIG_SETMASK, &saved, NULL);
    close(report[1]);
    if (child < 0) {
        hnp_err_set(err, errlen, "cannot fork to execute %s: %s",
                    spec->argv[0], strerror(fork_errno));
        close(report[0]);
        rc = HNP_ERR_IO;
        goto out_plan;
    }
    /* Also done by the child; whichever runs first wins, so a signal to the
     * group sent right after we return cannot miss it. */
    (void)setpgid(child, child);
    (void)hnp_fd_set_nonblock(report[0]);
    *pid = child;
    *errno_fd = report[0];
out_plan:
    plan_free(&plan);
    return rc;
}

int hnp_forkexec_exec_errno(int errno_fd)
{
    int error = 0;

    if (errno_fd < 0)
        return 0;
    if (read(errno_fd, &error, sizeof(error)) != (ssize_t)sizeof(error))
        error = 0;
    close(errno_fd);
    return error;
}
