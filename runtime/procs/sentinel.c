/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sentinel (see sentinel.h): a child that reads which process groups
 * to end should its parent die, and ends them when it does.
 *
 * It is started with clone(CLONE_VM) on a stack of its own: it shares its
 * parent's memory instead of a copy of it. A fork copied the daemon's map
 * and page tables, and then each page the daemon wrote again cost it a
 * copy; the sentinel needs none of that memory, only system calls. It
 * allocates nothing and writes nothing of its parent's but its own stack
 * and mapping, and errno: the C library's errno is its parent's thread's
 * (the thread pointer is shared). So its parent waits until it has set
 * itself up (the set-up makes calls that fail: sigaction of the signals
 * the C library reserves), it then makes no call that can fail until the
 * pipe ends, and after that it waits for its parent to be gone before it
 * kills or removes anything.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "forkexec.h"
#include "hnp_errors.h"
#include "hnp_log.h"
#include "sentinel.h"

/* A build with AddressSanitizer forks the sentinel: the sanitizer cannot
 * follow a second process running on a stack of its own in shared
 * memory (it reports the switch, and its allocator state is shared). */
#if defined(__SANITIZE_ADDRESS__)
#define SENTINEL_SHARES_MEMORY 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SENTINEL_SHARES_MEMORY 0
#endif
#endif
#ifndef SENTINEL_SHARES_MEMORY
#define SENTINEL_SHARES_MEMORY 1
#endif

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* Linux's PID_MAX_LIMIT: no pid, hence no process group, reaches it. */
#define SENTINEL_PID_LIMIT (1 << 22)
#define WORD_BITS 64
/* The descriptor the sentinel reads, once everything else is closed. */
#define SENTINEL_FD 3

/* One write each, atomic on a pipe: +pgid to guard, -pgid to release;
 * SENTINEL_DIR_MARK + slot, a length and that many bytes (padded to a
 * record): the directory of that slot (replacing the one before), to
 * remove once the groups are gone. */
typedef int32_t sentinel_record_t;
#define SENTINEL_DIR_MARK INT32_MIN
#define SENTINEL_MAX_DIRS 4
#define SENTINEL_PATH_MAX 1024
_Static_assert(2 * sizeof(int32_t) + SENTINEL_PATH_MAX <= 4096,
               "a directory's record fits in one atomic pipe write");
/* How long the groups killed get to vanish before their files go. */
#define SENTINEL_GONE_WAIT_MS 5000
/* Directories below a removed one, at most (the rest stays). */
#define SENTINEL_DEPTH 24
/* The sentinel's stack: remove_inside's 4 kB a level, SENTINEL_DEPTH
 * levels, and its reading buffers; only the pages used are resident. */
#define SENTINEL_STACK ((size_t)256 << 10)
/* How often it looks whether its parent is gone, once the pipe ended. */
#define SENTINEL_PARENT_POLL_NS (1000 * 1000)

struct hnp_sentinel {
    hnp_children_t *children;
    hnp_log_stream_t *log;
    pid_t pid;          /* 0 once it has been reaped */
    int fd;             /* the pipe's write end; -1 once it has gone */
    bool warned;        /* a lost record has been reported */
};

/* ------------------------------------------------------------ the child */

/* From the fork on: system calls only, no allocation, never a return. */

/* The groups guarded now: a bitmap by pgid, mapped and touched page by
 * page as used, and how many bits are set (none: nothing to scan). */
typedef struct guarded {
    uint64_t *bits;
    size_t count;
    char dirs[SENTINEL_MAX_DIRS][SENTINEL_PATH_MAX]; /* "" if none */
    size_t ndirs;       /* directories given so far, whatever the slot */
} guarded_t;

static void apply_record(guarded_t *g, sentinel_record_t record)
{
    uint32_t pgid = (uint32_t)(record < 0 ? -(int64_t)record : record);

    if (pgid == 0 || pgid >= SENTINEL_PID_LIMIT)
        return;
    uint64_t *word = &g->bits[pgid / WORD_BITS];
    uint64_t bit = (uint64_t)1 << (pgid % WORD_BITS);
    bool set = (*word & bit) != 0;
    if (set == (record > 0))
        return;
    *word ^= bit;
    if (set)
        g->count--;
    else
        g->count++;
}

static void kill_guarded(const guarded_t *g)
{
    size_t left = g->count;

    for (uint32_t w = 0; left > 0 && w < SENTINEL_PID_LIMIT / WORD_BITS; w++)
        for (uint32_t b = 0; g->bits[w] != 0 && b < WORD_BITS; b++)
            if (g->bits[w] & ((uint64_t)1 << b)) {
                (void)kill(-(pid_t)(w * WORD_BITS + b), SIGKILL);
                left--;
            }
}

/* Whether a process of a guarded group is still there (a zombie too: its
 * files may still be open until it is reaped). */
static bool any_guarded_alive(const guarded_t *g)
{
    size_t left = g->count;

    for (uint32_t w = 0; left > 0 && w < SENTINEL_PID_LIMIT / WORD_BITS; w++)
        for (uint32_t b = 0; g->bits[w] != 0 && b < WORD_BITS; b++)
            if (g->bits[w] & ((uint64_t)1 << b)) {
                if (kill(-(pid_t)(w * WORD_BITS + b), 0) == 0)
                    return true;
                left--;
            }
    return false;
}

static void wait_guarded_gone(const guarded_t *g)
{
    const struct timespec step = { 0, 20 * 1000 * 1000 };

    for (int ms = 0; ms < SENTINEL_GONE_WAIT_MS && any_guarded_alive(g);
         ms += 20)
        (void)nanosleep(&step, NULL);
}

/* Remove what is in directory @p fd (closed here), system calls only: the
 * sentinel may be a fork of a threaded process. */
static void remove_inside(int fd, int depth)
{
    char buf[4096];
    long n;

    while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < n;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *e = (void *)(buf + off);
            off += e->reclen;
            if (e->name[0] == '.' && (e->name[1] == '\0' ||
                (e->name[1] == '.' && e->name[2] == '\0')))
                continue;
            if (unlinkat(fd, e->name, 0) == 0 || errno != EISDIR)
                continue;
            int sub = openat(fd, e->name, O_RDONLY | O_DIRECTORY |
                             O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0 && depth < SENTINEL_DEPTH)
                remove_inside(sub, depth + 1);
            else if (sub >= 0)
                close(sub);
            (void)unlinkat(fd, e->name, AT_REMOVEDIR);
        }
    }
    close(fd);
}

static void remove_dirs(const guarded_t *g)
{
    for (size_t i = 0; i < SENTINEL_MAX_DIRS; i++) {
        if (g->dirs[i][0] == '\0')
            continue;
        int fd = open(g->dirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                      O_CLOEXEC);
        if (fd < 0)
            continue;
        remove_inside(fd, 0);
        (void)rmdir(g->dirs[i]);
    }
}

/* The records in @p buf[0..have): those complete are applied; the bytes
 * used are returned. */
static size_t apply_records(guarded_t *g, const unsigned char *buf,
                            size_t have)
{
    size_t used = 0;
    sentinel_record_t r[2];

    while (have - used >= sizeof(r[0])) {
        memcpy(&r[0], buf + used, sizeof(r[0]));
        if (r[0] < SENTINEL_DIR_MARK ||
            r[0] >= SENTINEL_DIR_MARK + SENTINEL_MAX_DIRS) {
            apply_record(g, r[0]);
            used += sizeof(r[0]);
            continue;
        }
        if (have - used < sizeof(r))
            break;
        memcpy(r, buf + used, sizeof(r));
        size_t len = r[1] > 0 && r[1] < SENTINEL_PATH_MAX ? (size_t)r[1] : 0;
        size_t padded = (len + sizeof(r[0]) - 1) / sizeof(r[0]) * sizeof(r[0]);
        if (have - used < sizeof(r) + padded)
            break;
        if (len > 0) {
            char *dir = g->dirs[r[0] - SENTINEL_DIR_MARK];
            memcpy(dir, buf + used + sizeof(r), len);
            dir[len] = '\0';
            g->ndirs++;
        }
        used += sizeof(r) + padded;
    }
    return used;
}

/* The pipe ends when its parent exits or closes it (hnp_sentinel_destroy,
 * the parent ending); the groups and directories are dealt with once the
 * parent is gone (reparented: getppid() changes), so that no failed call
 * of ours sets errno under a parent still running. */
static void wait_parent_gone(pid_t parent)
{
    const struct timespec step = { 0, SENTINEL_PARENT_POLL_NS };

    while (getppid() == parent)
        (void)nanosleep(&step, NULL);
}

/* Records until end of file, the writer gone; then the groups, and once
 * they are gone, the directories. The state is on this child's stack:
 * static storage would be its parent's. */
static void __attribute__((noreturn)) sentinel_watch(int fd, pid_t parent,
                                                    uint64_t *bits)
{
    guarded_t guarded;
    unsigned char buf[2 * SENTINEL_PATH_MAX + 1024];
    size_t have = 0;

    memset(&guarded, 0, sizeof(guarded));
    guarded.bits = bits;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        size_t used = apply_records(&guarded, buf, have);
        have -= used;
        memmove(buf, buf + used, have);
    }
    if (guarded.count == 0 && guarded.ndirs == 0)
        _exit(0);
    wait_parent_gone(parent);
    kill_guarded(&guarded);
    if (guarded.ndirs > 0) {
        wait_guarded_gone(&guarded);
        remove_dirs(&guarded);
    }
    _exit(0);
}

static void close_from(int first)
{
    struct rlimit lim;

    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
        return;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur > 65536)
        lim.rlim_cur = 65536;
    for (int fd = first; fd < (int)lim.rlim_cur; fd++)
        (void)close(fd);
}

typedef struct sentinel_start {
    int read_fd;
    pid_t parent;
} sentinel_start_t;

/* Its parent waits for the end of file on a pipe whose write end only the
 * child holds then: closed with everything else at the end of its set-up. */

/* Only the pipe is kept: a socket of the parent's held here would hide the
 * parent's death from its peers, and its stdio may be a remote shell's. */
static int sentinel_child(void *arg)
{
    const sentinel_start_t *start = arg;
    int read_fd = start->read_fd;
    pid_t parent = start->parent;
    struct sigaction act;
    uint64_t *bits;
    sigset_t none;

    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP)
            continue;
        /* What a batch system sends the whole step (scancel -s USR1)
         * reaches it too: only SIGKILL ends it, or its parent's end. */
        act.sa_handler = sig == SIGTERM || sig == SIGINT || sig == SIGHUP ||
                                 sig == SIGUSR1 || sig == SIGUSR2
                             ? SIG_IGN : SIG_DFL;
        (void)sigaction(sig, &act, NULL);
    }
    (void)setpgid(0, 0);
    /* Its command line is still its parent's; ps -o comm tells them apart. */
    (void)prctl(PR_SET_NAME, "hnp-sentinel");
    if (dup2(read_fd, SENTINEL_FD) != SENTINEL_FD)
        _exit(1);
    int null_fd = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null_fd >= 0; fd++)
        if (null_fd != fd)
            (void)dup2(null_fd, fd);
    bits = mmap(NULL, SENTINEL_PID_LIMIT / 8, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (bits == MAP_FAILED)
        _exit(1);
    close_from(SENTINEL_FD + 1); /* the parent goes on */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    sentinel_watch(SENTINEL_FD, parent, bits);
}

#if SENTINEL_SHARES_MEMORY
/* Whether this process runs under valgrind, whose preload library its
 * programs carry: valgrind 3.19 does not refuse a clone that shares the
 * memory without being a thread, it ends the program ("Unsupported
 * clone() flags"). */
static bool under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");

    return preload != NULL && strstr(preload, "vgpreload") != NULL;
}
#endif

/* The child in its parent's memory (clone), or in a copy of it (fork)
 * where sharing is not possible: a sanitizer's build, valgrind, or a tool
 * that follows memory and refuses such a clone (EINVAL). */
static pid_t sentinel_start_child(char *sp, sentinel_start_t *start,
                                  bool *shared)
{
    pid_t pid;

    *shared = false;
#if SENTINEL_SHARES_MEMORY
    if (!under_valgrind()) {
        pid = clone(sentinel_child, sp, CLONE_VM | SIGCHLD, start);
        if (pid >= 0 || errno != EINVAL) {
            *shared = pid >= 0;
            return pid;
        }
    }
#else
    (void)sp;
#endif
    pid = fork();
    if (pid == 0)
        _exit(sentinel_child(start));
    return pid;
}

/* The child, on a stack of its own in its parent's memory (left mapped:
 * the child may outlive any owner of it here). What it is told sits at
 * the top of that stack, which nothing of the parent's reuses. Returns
 * once the child has set itself up (or is gone). */
static pid_t sentinel_clone(int read_fd)
{
    const size_t top = SENTINEL_STACK - 64;
    _Static_assert(sizeof(sentinel_start_t) <= 64,
                   "what the sentinel is told fits above its stack");
    int ready[2];
    char byte;

    if (pipe2(ready, O_CLOEXEC) != 0)
        return -1;
    char *stack = mmap(NULL, SENTINEL_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                       -1, 0);
    if (stack == MAP_FAILED) {
        int saved = errno;
        close(ready[0]);
        close(ready[1]);
        errno = saved;
        return -1;
    }
    sentinel_start_t *start = (sentinel_start_t *)(void *)(stack + top);
    start->read_fd = read_fd;
    start->parent = getpid();
    bool shared = false;
    pid_t pid = sentinel_start_child(stack + top, start, &shared);
    int saved = errno;
    close(ready[1]);
    if (pid < 0 || !shared)
        (void)munmap(stack, SENTINEL_STACK);
    else
        while (read(ready[0], &byte, 1) < 0 && errno == EINTR)
            continue;
    close(ready[0]);
    errno = saved;
    return pid;
}

/* ------------------------------------------------------------ the parent */

static void sentinel_exited(void *ctx, pid_t pid, int wait_status)
{
    hnp_sentinel_t *s = ctx;

    HNP_WARN(s->log, "the sentinel (pid %d) ended (wait status 0x%x): the "
             "descendants of this node's processes would now outlive an "
             "abrupt end of this daemon", (int)pid, (unsigned)wait_status);
    s->pid = 0;
    close(s->fd);
    s->fd = -1;
}

int hnp_sentinel_spawn(hnp_sentinel_t **out, char *err, size_t errlen)
{
    hnp_sentinel_t *s = calloc(1, sizeof(*s));
    sigset_t all, saved;
    int ends[2];
    int rc;

    if (s == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    rc = hnp_pipe(ends, err, errlen);
    if (rc != HNP_SUCCESS) {
        free(s);
        return rc;
    }
    /* Blocked across fork: no handler of ours runs in the child before its
     * dispositions are reset. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &saved);
    pid_t pid = sentinel_clone(ends[0]);
    int fork_errno = errno;
    sigprocmask(SIG_SETMASK, &saved, NULL);
    close(ends[0]);
    if (pid < 0) {
        hnp_err_set(err, errlen, "cannot start the sentinel: %s",
                    strerror(fork_errno));
        close(ends[1]);
        free(s);
        return HNP_ERR_IO;
    }
    /* Never blocked by a sentinel that does not read: a record lost is
     * reported, the daemon goes on. */
    (void)hnp_fd_set_nonblock(ends[1]);
    s->log = hnp_log_stream("odls");
    s->pid = pid;
    s->fd = ends[1];
    *out = s;
    return HNP_SUCCESS;
}

int hnp_sentinel_adopt(hnp_sentinel_t *s, hnp_children_t *children,
                       char *err, size_t errlen)
{
    int rc = hnp_children_watch(children, s->pid, sentinel_exited, s);

    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot watch the sentinel (pid %d): %s",
                    (int)s->pid, hnp_strerror(rc));
        return rc;
    }
    s->children = children;
    return HNP_SUCCESS;
}

int hnp_sentinel_create(hnp_sentinel_t **out, hnp_children_t *children,
                        char *err, size_t errlen)
{
    hnp_sentinel_t *s = NULL;
    int rc = hnp_sentinel_spawn(&s, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    rc = hnp_sentinel_adopt(s, children, err, errlen);
    if (rc != HNP_SUCCESS) {
        (void)kill(s->pid, SIGKILL); /* unwatched, it is reaped silently */
        s->pid = 0;
        hnp_sentinel_destroy(s);
        return rc;
    }
    *out = s;
    return HNP_SUCCESS;
}

static void sentinel_send(hnp_sentinel_t *s, sentinel_record_t record)
{
    ssize_t n;

    if (s == NULL || s->fd < 0)
        return;
    do
        n = write(s->fd, &record, sizeof(record));
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof(record) || s->warned)
        return;
    s->warned = true;
    HNP_WARN(s->log, "cannot tell the sentinel (pid %d) of process group "
             "%d: %s", (int)s->pid, (int)(record < 0 ? -record : record),
             n < 0 ? strerror(errno) : "short write");
}

void hnp_sentinel_guard(hnp_sentinel_t *s, pid_t pgid)
{
    if (pgid > 0)
        sentinel_send(s, (sentinel_record_t)pgid);
}

void hnp_sentinel_release(hnp_sentinel_t *s, pid_t pgid)
{
    if (pgid > 0)
        sentinel_send(s, -(sentinel_record_t)pgid);
}

int hnp_sentinel_remove_dir(hnp_sentinel_t *s, unsigned slot,
                            const char *path)
{
    sentinel_record_t rec[2 + SENTINEL_PATH_MAX / sizeof(sentinel_record_t)];
    size_t len = strlen(path);
    ssize_t n;

    if (s == NULL || s->fd < 0)
        return HNP_ERR_NOT_FOUND;
    if (len == 0 || len >= SENTINEL_PATH_MAX || path[0] != '/' ||
        slot >= SENTINEL_MAX_DIRS)
        return HNP_ERR_BAD_PARAM;
    memset(rec, 0, sizeof(rec));
    rec[0] = SENTINEL_DIR_MARK + (sentinel_record_t)slot;
    rec[1] = (sentinel_record_t)len;
    memcpy(&rec[2], path, len);
    size_t bytes = sizeof(rec[0]) * (2 + (len + sizeof(rec[0]) - 1) /
                                             sizeof(rec[0]));
    /* One write below PIPE_BUF: never interleaved with another record. */
    do
        n = write(s->fd, rec, bytes);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)bytes ? HNP_SUCCESS : HNP_ERR_IO;
}

pid_t hnp_sentinel_pid(const hnp_sentinel_t *s)
{
    return s != NULL ? s->pid : 0;
}

void hnp_sentinel_destroy(hnp_sentinel_t *s)
{
    if (s == NULL)
        return;
    /* It exits on its own once the pipe is closed; whoever reaps children
     * then reaps it silently. */
    if (s->pid > 0 && s->children != NULL)
        hnp_children_forget(s->children, s->pid);
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}
