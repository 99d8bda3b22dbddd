/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp-local-agent: stands in for ssh when every "node" of a test cluster
 * is this machine.
 *
 *     hnp-local-agent [ssh options] HOST COMMAND [ARG...]
 *
 * takes ssh's options and ignores them (but -n, which ssh honours and which
 * a launcher must not pass when it writes the job's secret on stdin), then
 * runs COMMAND ARG... joined with spaces through /bin/sh -c, exactly as
 * sshd hands a command to the remote shell: callers quote for a shell, as
 * they must for ssh.
 *
 * It can make a launch cost what it costs on a real cluster (paper 001's
 * model): HNP_AGENT_SEQ seconds of the launching node's time, taken in
 * turn, since one node's ssh clients contend for its CPU and start one
 * after another, then HNP_AGENT_REM seconds of remote start-up that
 * overlaps with everything else. HNP_AGENT_DOWN and HNP_AGENT_FLAKY make
 * hosts refuse connections the way ssh reports it.
 *
 * The command runs under the host name HOST, in a UTS namespace of its own
 * (through a user namespace for a user without CAP_SYS_ADMIN), as on a
 * cluster; where no namespace can be made it keeps this machine's name and
 * the agent says so once.
 *
 * After the delays it execs the shell (or, for a command the shell would
 * only split into words, the command itself), so nothing of the agent
 * remains: the launcher sees the command's own exit status and signals.
 *
 * A standalone program on plain libc, so that it builds and runs where the
 * runtime does not; errors go to stderr prefixed by the program name, and
 * the agent's own failures exit 255, as ssh's do.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "hnp-local-agent"
#define SSH_FAILURE 255

/* ssh's options (OpenSSH 9 getopt string): flags, and those taking a
 * value, glued ("-p22", "-oBatchMode=yes") or in the next word. */
static const char ssh_flags[] = "1246AaCfGgKkMNnqsTtVvXxYy";
static const char ssh_valued[] = "BbcDEeFIiJLlmOoPpQRSWw";

typedef struct agent_args {
    const char *host;
    char **command; /* NULL-terminated */
    int ncommand;
    bool stdin_null; /* -n */
} agent_args_t;

static void usage(FILE *out)
{
    fprintf(out,
        "usage: " PROG " [ssh options] HOST COMMAND [ARG...]\n"
        "Stands in for ssh on one machine: runs COMMAND ARG... joined with\n"
        "spaces through /bin/sh -c, as if on HOST (never resolved). ssh's\n"
        "options are accepted and ignored, except -n (stdin from /dev/null).\n"
        "\n"
        "Environment:\n"
        "  HNP_AGENT_SEQ=SECONDS  the launching node's time a launch takes\n"
        "                         (one node's launches take turns, in order)\n"
        "  HNP_AGENT_REM=SECONDS  then wait this long before the command\n"
        "  HNP_NODE_NAME=NAME     the launching node (default: head)\n"
        "  HNP_AGENT_LOCKDIR=DIR  lock and marker files (default:\n"
        "                         ${TMPDIR:-/tmp}/hnp-agent-UID)\n"
        "  HNP_AGENT_DOWN=H1,H2   hosts that refuse connections (exit 255)\n"
        "  HNP_AGENT_FLAKY=H1,H2  hosts that refuse only the first one\n"
        "  HNP_AGENT_HOSTNAME=keep  keep this machine's host name (default:\n"
        "                         HOST's, in a UTS namespace, where possible)\n"
        "The command gets HNP_AGENT_HOST=HOST in its environment.\n");
}

static void vcomplain(const char *fmt, va_list ap)
{
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vcomplain(fmt, ap);
    va_end(ap);
    exit(SSH_FAILURE);
}

/* A bad invocation: say what is wrong, then how to call the agent. */
static void die_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die_usage(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vcomplain(fmt, ap);
    va_end(ap);
    usage(stderr);
    exit(SSH_FAILURE);
}

/* ----------------------------------------------------------- arguments */

/* One word of options at argv[*i] (getopt rules: flags may cluster, a
 * valued option takes the rest of the word or the next one). */
static void take_options(int argc, char **argv, int *i, agent_args_t *a)
{
    const char *word = argv[*i];

    for (const char *c = word + 1; *c != '\0'; c++) {
        if (strchr(ssh_flags, *c) != NULL) {
            a->stdin_null = a->stdin_null || *c == 'n';
            continue;
        }
        if (strchr(ssh_valued, *c) == NULL)
            die_usage("unknown option -%c", *c);
        if (c[1] == '\0' && ++*i >= argc)
            die_usage("option -%c needs a value", *c);
        return;
    }
}

static void parse_args(int argc, char **argv, agent_args_t *a)
{
    int i = 1;

    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        take_options(argc, argv, &i, a);
    }
    if (i >= argc)
        die_usage("no host given");
    a->host = argv[i++];
    if (a->host[0] == '\0')
        die_usage("empty host name");
    if (i >= argc)
        die("no command for %s (an interactive shell is not supported)",
            a->host);
    a->command = argv + i;
    a->ncommand = argc - i;
}

/* COMMAND ARG... joined with single spaces, as ssh sends it. */
static char *join_command(char **words, int n)
{
    size_t len = 1;

    for (int i = 0; i < n; i++)
        len += strlen(words[i]) + 1;
    char *cmd = malloc(len), *at = cmd;
    if (cmd == NULL)
        die("out of memory");
    for (int i = 0; i < n; i++) {
        size_t wl = strlen(words[i]);
        if (i > 0)
            *at++ = ' ';
        memcpy(at, words[i], wl);
        at += wl;
    }
    *at = '\0';
    return cmd;
}

/* ------------------------------------------------------- running it */

/* Characters that mean nothing to the shell outside quotes. */
static bool plain_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || strchr("_./:,=@%+-", c) != NULL;
}

/* The words of @p command when the shell would do nothing with it but
 * split it and execute its first word: words of plain characters and
 * single-quoted strings (in which nothing is special), separated by single
 * spaces, the first naming a file by a path (so no builtin, function,
 * keyword or assignment can be meant). NULL for anything else --
 * expansions, double quotes, backslashes, operators, redirections -- which
 * goes to the shell. The result points into a copy of @p command. */
static char **plain_words(const char *command)
{
    size_t n = 1;

    for (const char *c = command; *c != '\0'; c++)
        n += *c == ' ';
    char **words = calloc(n + 1, sizeof(*words));
    char *out = malloc(strlen(command) + 1);
    if (words == NULL || out == NULL)
        die("out of memory");
    size_t nw = 0;
    const char *c = command;
    while (*c != '\0') {
        words[nw] = out;
        const char *start = c;
        while (*c != '\0' && *c != ' ') {
            if (*c == '\'') {
                const char *end = strchr(c + 1, '\'');
                if (end == NULL)
                    goto shell;
                memcpy(out, c + 1, (size_t)(end - c - 1));
                out += end - c - 1;
                c = end + 1;
            } else if (plain_char(*c)) {
                *out++ = *c++;
            } else {
                goto shell;
            }
        }
        if (c == start)
            goto shell; /* two spaces in a row, or a leading one */
        *out++ = '\0';
        nw++;
        if (*c == ' ' && *++c == '\0')
            goto shell; /* a trailing space */
    }
    if (nw == 0 || strchr(words[0], '/') == NULL)
        goto shell;
    return words;
shell:
    free(words[0] != NULL ? words[0] : out);
    free(words);
    return NULL;
}

/* The CPU this process has used so far, exported for hnpd: its start-up
 * figure (hnp --timing) should count hnpd alone, not the stand-in for ssh
 * that ran in the same process before the exec. */
static void export_cpu_used(void)
{
    struct rusage ru;
    char text[32];

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    unsigned long long us =
        (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
        (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    snprintf(text, sizeof(text), "%llu", us);
    (void)setenv("HNP_CPU_BEFORE_EXEC_US", text, 1);
}

/* Run @p command as sshd would, through the shell, or without one when
 * the shell would only split it (see plain_words): on a one-machine
 * cluster that is a shell less per launch, hundreds per job. A file that
 * cannot be executed directly (a script without "#!", a missing one) goes
 * to the shell after all, which runs it or reports it in its own words. */
static void __attribute__((noreturn)) run_command(const char *command)
{
    char **words = plain_words(command);

    export_cpu_used();
    fflush(NULL);
    if (words != NULL)
        execv(words[0], words);
    execl("/bin/sh", "sh", "-c", command, (char *)NULL);
    fprintf(stderr, PROG ": cannot run /bin/sh: %s\n", strerror(errno));
    exit(127);
}

/* ------------------------------------------------------------ settings */

/* Is @p host in the comma list in @p var? Blanks around names ignored. */
static bool host_listed(const char *var, const char *host)
{
    const char *list = getenv(var);
    size_t hl = strlen(host);

    for (const char *p = list; p != NULL && *p != '\0';) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, ",");
        size_t trimmed = len;
        while (trimmed > 0 && (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t'))
            trimmed--;
        if (trimmed == hl && strncmp(p, host, hl) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static double seconds_from_env(const char *var)
{
    const char *text = getenv(var);
    char *end;

    if (text == NULL || text[0] == '\0')
        return 0.0;
    errno = 0;
    double s = strtod(text, &end);
    end += strspn(end, " \t");
    if (errno != 0 || end == text || *end != '\0' || !isfinite(s) || s < 0 ||
        s > 1e6)
        die("%s=%s is not a number of seconds (such as 0.25)", var, text);
    return s;
}

/* File names are made of node names: keep them inside the lock directory
 * and free of surprises. */
static char *file_in(const char *dir, const char *name, const char *suffix)
{
    size_t len = strlen(dir) + strlen(name) + strlen(suffix) + 3;
    char *path = malloc(len);

    if (path == NULL)
        die("out of memory");
    int at = snprintf(path, len, "%s/%s", dir, name[0] == '.' ? "_" : "");
    for (const char *c = name; *c != '\0'; c++) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || strchr("._-", *c) != NULL;
        path[at++] = plain ? *c : '_';
    }
    strcpy(path + at, suffix);
    return path;
}

/* The default directory is in a shared /tmp: it must be ours, a real
 * directory, and closed to others, or another user could steer the locks. */
static void check_private_dir(const char *dir)
{
    struct stat st;

    if (lstat(dir, &st) < 0)
        die("cannot use lock directory %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 022) != 0)
        die("lock directory %s is not a directory owned by you and closed "
            "to others (set HNP_AGENT_LOCKDIR)", dir);
}

static char *lock_dir(void)
{
    const char *set = getenv("HNP_AGENT_LOCKDIR");
    const char *tmp = getenv("TMPDIR");
    char *dir;

    if (set != NULL && set[0] != '\0')
        dir = strdup(set);
    else if (asprintf(&dir, "%s/hnp-agent-%lu",
                      tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp",
                      (unsigned long)getuid()) < 0)
        dir = NULL;
    if (dir == NULL)
        die("out of memory");
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        die("cannot create lock directory %s: %s", dir, strerror(errno));
    if (set == NULL || set[0] == '\0')
        check_private_dir(dir);
    return dir;
}

/* -------------------------------------------------------------- delays */

static int64_t monotonic_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* Until CLOCK_MONOTONIC reads @p deadline_ns: an absolute deadline, so a
 * signal that interrupts the sleep does not stretch it. */
static void sleep_until(int64_t deadline_ns)
{
    struct timespec deadline = { .tv_sec = (time_t)(deadline_ns / 1000000000),
                                 .tv_nsec = (long)(deadline_ns % 1000000000) };

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL)
           == EINTR)
        ;
}

static void sleep_seconds(double seconds)
{
    if (seconds > 0)
        sleep_until(monotonic_ns() + (int64_t)(seconds * 1e9));
}

/* One launch's turn on its launching node: who, and until when. */
typedef struct turn {
    int64_t pid;
    int64_t until_ns; /* CLOCK_MONOTONIC */
} turn_t;

/* The node's turns still to come, read from @p fd: those over are left
 * out, and so are the last ones whose agent is gone (killed with its run),
 * which would otherwise hold up the next run for nothing. Turns are in the
 * order they were taken, so their ends only grow. *@p n is how many. */
static turn_t *turns_pending(int fd, const char *path, int64_t now, size_t *n)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        die("cannot read lock file %s: %s", path, strerror(errno));
    size_t count = (size_t)st.st_size / sizeof(turn_t);
    turn_t *t = malloc((count + 1) * sizeof(*t));
    if (t == NULL)
        die("out of memory");
    ssize_t got = pread(fd, t, count * sizeof(*t), 0);
    if (got < 0)
        die("cannot read lock file %s: %s", path, strerror(errno));
    count = (size_t)got / sizeof(*t);
    size_t first = 0;
    while (first < count && t[first].until_ns <= now)
        first++;
    while (count > first && kill((pid_t)t[count - 1].pid, 0) != 0 &&
           errno == ESRCH)
        count--;
    memmove(t, t + first, (count - first) * sizeof(*t));
    *n = count - first;
    return t;
}

/* The sequential part of a launch: the launching node's CPU is busy with
 * one ssh client after another, in the order the launcher started them.
 * The node's lock file lists the turns taken and not yet over: each call,
 * under a brief lock, starts its own @p seconds when the last turn ends
 * (or now, if none is pending), adds its turn, and sleeps until its end
 * without the lock. First come, first served, which the order of waiters
 * on a held flock is not: a tree launcher's first child, which has the
 * largest subtree, really starts first. */
static void take_launch_turn(const char *dir, double seconds)
{
    const char *node = getenv("HNP_NODE_NAME");
    char *path = file_in(dir, node != NULL && node[0] != '\0' ? node : "head",
                         ".lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    size_t n;

    if (fd < 0)
        die("cannot open lock file %s: %s", path, strerror(errno));
    while (flock(fd, LOCK_EX) < 0)
        if (errno != EINTR)
            die("cannot lock %s: %s", path, strerror(errno));
    int64_t now = monotonic_ns();
    turn_t *t = turns_pending(fd, path, now, &n);
    int64_t from = n > 0 && t[n - 1].until_ns > now ? t[n - 1].until_ns : now;
    t[n].pid = getpid();
    t[n].until_ns = from + (int64_t)(seconds * 1e9);
    int64_t done = t[n].until_ns;
    size_t size = (n + 1) * sizeof(*t);
    if (pwrite(fd, t, size, 0) != (ssize_t)size || ftruncate(fd, (off_t)size) != 0)
        die("cannot write lock file %s: %s", path, strerror(errno));
    free(t);
    close(fd); /* releases the lock */
    free(path);
    sleep_until(done);
}

/* ------------------------------------------------------------- failures */

static void refuse_connection(const char *host)
{
    fprintf(stderr, "ssh: connect to host %s port 22: Connection refused\n",
            host);
    exit(SSH_FAILURE);
}

/* True the first time @p host is tried: the marker file's creation is
 * atomic, so of two simultaneous first attempts exactly one fails. */
static bool first_attempt(const char *dir, const char *host)
{
    char *path = file_in(dir, host, ".flaky");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

    if (fd < 0 && errno != EEXIST)
        die("cannot create marker %s: %s", path, strerror(errno));
    free(path);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

/* ------------------------------------------------------ the node's name */

/* Write @p text to the file @p path of /proc; false, errno set, if not. */
static bool write_proc(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    size_t len = strlen(text);

    if (fd < 0)
        return false;
    bool ok = write(fd, text, len) == (ssize_t)len;
    int saved = errno;
    close(fd);
    errno = saved;
    return ok;
}

/* A user namespace in which we stay who we are: our uid and gid mapped to
 * themselves, so that files, locks and signals work as outside. Once the
 * namespace exists there is no way back to the one we came from: a map
 * that cannot be written would leave the command running as "nobody". */
static void map_ourselves(uid_t uid, gid_t gid)
{
    char map[64];

    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid,
             (unsigned long)uid);
    if (!write_proc("/proc/self/uid_map", map))
        die("cannot map uid %lu in a new user namespace: %s",
            (unsigned long)uid, strerror(errno));
    /* An unprivileged gid map needs setgroups(2) denied first. */
    if (!write_proc("/proc/self/setgroups", "deny") && errno != ENOENT)
        die("cannot deny setgroups in a new user namespace: %s",
            strerror(errno));
    snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid,
             (unsigned long)gid);
    if (!write_proc("/proc/self/gid_map", map))
        die("cannot map gid %lu in a new user namespace: %s",
            (unsigned long)gid, strerror(errno));
}

/* Give the command @p host as its host name, as on a cluster: programs
 * that name shared resources after gethostname() (Open MPI's shared-memory
 * segments) then do not collide across simulated nodes. A UTS namespace
 * of our own needs CAP_SYS_ADMIN; without it, a user namespace (where the
 * kernel lets unprivileged users make one) brings it. Returns NULL, or
 * why the host name stays this machine's. */
static const char *take_node_name(const char *host, char *why, size_t len)
{
    uid_t uid = getuid();
    gid_t gid = getgid();

    if (strlen(host) > HOST_NAME_MAX) {
        snprintf(why, len, "'%s' is longer than a host name may be (%d)",
                 host, HOST_NAME_MAX);
        return why;
    }
    if (unshare(CLONE_NEWUTS) != 0) {
        int uts_errno = errno;
        if (unshare(CLONE_NEWUSER | CLONE_NEWUTS) != 0) {
            snprintf(why, len, "no UTS namespace (%s), nor a user namespace "
                     "to make one in (%s)", strerror(uts_errno),
                     strerror(errno));
            return why;
        }
        map_ourselves(uid, gid);
    }
    if (sethostname(host, strlen(host)) != 0) {
        snprintf(why, len, "sethostname(%s): %s", host, strerror(errno));
        return why;
    }
    return NULL;
}

/* The command runs on a machine named @p host, or, where that cannot be,
 * on this machine's name: a simulated cluster that works as before, said
 * once a lock directory (once a test or benchmark run), never a failure.
 * HNP_AGENT_HOSTNAME=keep asks for the old behaviour without a word. */
static void name_the_node(const char *host)
{
    const char *want = getenv("HNP_AGENT_HOSTNAME");
    char why[256];

    if (want != NULL && strcmp(want, "keep") == 0)
        return;
    if (want != NULL && want[0] != '\0' && strcmp(want, "node") != 0)
        die("HNP_AGENT_HOSTNAME=%s: expected 'node' (the default) or 'keep'",
            want);
    if (take_node_name(host, why, sizeof(why)) == NULL)
        return;
    char *dir = lock_dir();
    char *marker = file_in(dir, "hostname", ".shared");
    int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        fprintf(stderr, PROG ": simulated nodes keep this machine's host "
                "name: %s (said once; HNP_AGENT_HOSTNAME=keep silences it)\n",
                why);
        close(fd);
    }
    free(marker);
    free(dir);
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    agent_args_t a = { NULL, NULL, 0, false };
    char *dir = NULL;

    parse_args(argc, argv, &a);
    double seq = seconds_from_env("HNP_AGENT_SEQ");
    double rem = seconds_from_env("HNP_AGENT_REM");
    char *command = join_command(a.command, a.ncommand);

    /* A refused TCP connection fails before any key exchange: no cost. */
    if (host_listed("HNP_AGENT_DOWN", a.host))
        refuse_connection(a.host);
    if (host_listed("HNP_AGENT_FLAKY", a.host)) {
        dir = lock_dir();
        if (first_attempt(dir, a.host))
            refuse_connection(a.host);
    }
    if (seq > 0) {
        if (dir == NULL)
            dir = lock_dir();
        take_launch_turn(dir, seq);
    }
    free(dir);
    sleep_seconds(rem);

    if (setenv("HNP_AGENT_HOST", a.host, 1) < 0)
        die("cannot set HNP_AGENT_HOST: %s", strerror(errno));
    name_the_node(a.host);
    if (a.stdin_null) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
            die("cannot redirect stdin from /dev/null: %s", strerror(errno));
        if (fd != STDIN_FILENO)
            close(fd);
    }
    run_command(command);
}
