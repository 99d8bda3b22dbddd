/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fork/exec shared by the local launcher (odls.c) and the daemon launcher
 * (launch/launcher.c). Private to the runtime core.
 *
 * Everything the child needs is prepared before vfork(): between vfork and
 * exec the child, which borrows the parent's memory, only makes
 * async-signal-safe system calls on that prepared data, so a process that
 * forks while another part of it holds a malloc or stdio lock cannot
 * deadlock, and no page tables are copied. The child runs in a new process group (its own pid), with
 * every signal disposition reset to the default and an empty signal mask,
 * with 0, 1 and 2 taken from the spec and every other descriptor closed at
 * exec, and with the soft descriptor limit this process had before it
 * raised its own (fdlimit.h). A failed chdir or exec is reported to the
 * parent through a close-on-exec pipe carrying the errno: the pipe reaches
 * end of file when the exec succeeds, and holds the errno when it did not.
 */
#ifndef HNP_FORKEXEC_H
#define HNP_FORKEXEC_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct hnp_forkexec_spec {
    char *const *argv;   /**< argv[0] looked up in env's PATH, like execvp */
    char *const *env;    /**< NULL: this process's environment */
    const char *wdir;    /**< NULL: this process's working directory */
    int stdin_fd;        /**< become 0, 1 and 2 in the child; each >= 3 */
    int stdout_fd;       /**< (hnp_pipe and hnp_open_devnull see to it) */
    int stderr_fd;
    int death_signal;    /**< sent to the child when we die; 0: none */
    const cpu_set_t *cpuset; /**< bind the child to these CPUs; NULL: no */
    const int *keep_fds; /**< [nkeep_fds], each > 2: left open across
                              exec, same numbers (the pmi components') */
    size_t nkeep_fds;
    bool then_wdir;      /**< a bare name not found in PATH is looked for
                              in the working directory too, as mpirun
                              looks for an application's program */
} hnp_forkexec_spec_t;

/**
 * Fork and exec @p spec. On success *@p pid is the child and *@p errno_fd
 * the non-blocking read end of the errno pipe, for
 * hnp_forkexec_exec_errno() once the child has been reaped. The caller
 * still owns (and closes) the spec's descriptors.
 */
int hnp_forkexec(const hnp_forkexec_spec_t *spec, pid_t *pid, int *errno_fd,
                 char *err, size_t errlen);

/** Whether hnp_forkexec() would find @p prog (a path, or a name looked up
 *  in this process's PATH the same way) as an executable file. */
bool hnp_program_exists(const char *prog);
/** The file hnp_forkexec() would run for @p prog (malloc'd), or NULL. */
char *hnp_program_path(const char *prog);

/** The errno of a failed exec (0 when it succeeded); closes @p errno_fd.
 *  Only meaningful once the child has exited. */
int hnp_forkexec_exec_errno(int errno_fd);

/** A close-on-exec pipe whose two ends are both >= 3. */
int hnp_pipe(int fds[2], char *err, size_t errlen);

/** /dev/null for reading, close-on-exec, >= 3; the descriptor or an error. */
int hnp_open_devnull(char *err, size_t errlen);

/** Make @p fd non-blocking; 0 or HNP_ERR_IO. */
int hnp_fd_set_nonblock(int fd);

/** Signal the process group led by @p pid, or @p pid alone when it has no
 *  group yet. Only for children not yet reaped: their pid cannot have been
 *  reused. */
void hnp_signal_child_group(pid_t pid, int sig);

#endif /* HNP_FORKEXEC_H */
