/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `slurm` plm's account of a failed job: the nodes of the allocation
 * Slurm reports down, drained or failing.
 *
 * When Slurm loses a node it ends the whole step: slurmstepd kills the
 * daemons and the ranks on every node at about the same time, and the
 * first death the HNP hears of is any node's, seldom the one that failed.
 * Slurm knows which one it was; sinfo says it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hnp_rte.h"
#include "plm_slurm.h"

/* sinfo asks slurmctld, which may not answer: the job's failure is not
 * held up longer than this for it. */
#define SINFO_DEADLINE_MS 5000

static long elapsed_ms(const struct timespec *since)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000 +
           (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* In the child: stdout into the pipe, stderr to /dev/null, then exec. */
static void exec_child(char *const *argv, int out_fd)
{
    int null = open("/dev/null", O_WRONLY);

    dup2(out_fd, STDOUT_FILENO);
    if (null >= 0)
        dup2(null, STDERR_FILENO);
    execvp(argv[0], argv);
    _exit(127);
}

/* Read @p fd into @p buf (NUL-terminated; what does not fit is dropped)
 * until end of file or the deadline. */
static void read_until(int fd, char *buf, size_t len,
                       const struct timespec *start)
{
    size_t used = 0;
    char drop[256];

    for (;;) {
        long left = SINFO_DEADLINE_MS - elapsed_ms(start);
        struct pollfd p = { fd, POLLIN, 0 };
        if (left <= 0)
            break;
        int ready = poll(&p, 1, (int)left);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            break;
        ssize_t n = used + 1 < len ? read(fd, buf + used, len - 1 - used)
                                   : read(fd, drop, sizeof(drop));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (used + 1 < len)
            used += (size_t)n;
    }
    buf[used] = '\0';
}

/* Run @p argv, its stdout into @p buf; 0 when it exited 0 in time. */
static int run_capture(char *const *argv, char *buf, size_t len)
{
    struct timespec start;
    int fds[2], status = 0;
    pid_t pid;

    clock_gettime(CLOCK_MONOTONIC, &start);
    if (pipe2(fds, O_CLOEXEC) != 0)
        return HNP_ERR_IO;
    pid = fork();
    if (pid == 0)
        exec_child(argv, fds[1]);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return HNP_ERR_IO;
    }
    read_until(fds[0], buf, len, &start);
    close(fds[0]);
    /* Its output ended; its exit may follow a moment later. */
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
           elapsed_ms(&start) < SINFO_DEADLINE_MS)
        nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return HNP_ERR_TIMEOUT;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? HNP_SUCCESS
                                                         : HNP_ERR_IO;
}

int plm_slurm_describe_down(const char *sinfo_out, char *buf, size_t len,
                            size_t *nodes)
{
    size_t used = 0, count = 0;
    const char *line = sinfo_out;

    buf[0] = '\0';
    while (line != NULL && *line != '\0') {
        const char *end = strchr(line, '\n');
        int n = end != NULL ? (int)(end - line) : (int)strlen(line);
        /* A node in several partitions comes once per partition. */
        char entry[320];
        snprintf(entry, sizeof(entry), "%.*s", n, line);
        line = end != NULL ? end + 1 : NULL;
        char node[128], state[64];
        int reason_at = 0;
        if (sscanf(entry, "%127s %63s %n", node, state, &reason_at) < 2)
            continue;
        char item[400];
        const char *reason = entry + reason_at;
        snprintf(item, sizeof(item), "%s (%s%s%s)", node, state,
                 reason_at > 0 && *reason != '\0' ? ": " : "",
                 reason_at > 0 ? reason : "");
        if (strstr(buf, item) != NULL)
            continue;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                 "%s%s", count > 0 ? ", " : "", item);
        count++;
    }
    *nodes = count;
    return count > 0 ? HNP_SUCCESS : HNP_ERR_NOT_FOUND;
}

/* The module's explain_failure. */
int plm_slurm_explain_failure(struct hnp_rte *rte, char *buf, size_t len)
{
    const char *nodes = getenv("SLURM_JOB_NODELIST");
    char out[4096], down[1024];
    size_t count = 0;
    char *argv[] = { "sinfo", "--noheader", "--Node", "--nodes",
                     (char *)nodes, "--states", "down,drain,fail,no_respond",
                     "--format", "%N %T %E", NULL };

    (void)rte;
    if (nodes == NULL || nodes[0] == '\0' ||
        run_capture(argv, out, sizeof(out)) != HNP_SUCCESS ||
        plm_slurm_describe_down(out, down, sizeof(down), &count) !=
            HNP_SUCCESS)
        return HNP_ERR_NOT_FOUND;
    snprintf(buf, len, "Slurm reports %s of the allocation failed: %s",
             count > 1 ? "nodes" : "a node", down);
    return HNP_SUCCESS;
}
