/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The child watcher: one SIGCHLD event on the loop, waitpid(-1) to reap.
 *
 * SIGCHLD and waitpid(-1) are process-wide, so the watcher owns them: at
 * most one watcher may exist in a process at a time, and every child of the
 * process is reaped by it (a child nobody watches is reaped silently, so
 * code that forks and waits for its own child elsewhere must not coexist
 * with a watcher).
 *
 * No child is lost between fork and hnp_children_watch(): SIGCHLD only
 * marks the event active and the reaping runs later from the loop, so as
 * long as the pid is watched before control returns to the loop — the
 * launchers call watch right after fork — its exit finds the watch in
 * place. A child that was already a zombie when it is watched (forked
 * before the watcher existed, say) makes watch activate the event itself,
 * since its SIGCHLD may have come and gone before anyone listened.
 *
 * Callbacks may watch and forget re-entrantly, but must not destroy the
 * watcher: the reaping loop continues after they return.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <event2/event.h>

#include "children.h"
#include "hnp_errors.h"

typedef struct child_watch {
    pid_t pid;
    hnp_child_exit_fn fn;
    void *ctx;
} child_watch_t;

struct hnp_children {
    struct event *sigchld;
    child_watch_t *watches;  /* unordered; removal swaps in the last */
    size_t count;
    size_t capacity;
};

static size_t find_watch(const hnp_children_t *ch, pid_t pid)
{
    for (size_t i = 0; i < ch->count; i++)
        if (ch->watches[i].pid == pid)
            return i;
    return ch->count;
}

static void remove_watch(hnp_children_t *ch, size_t i)
{
    ch->watches[i] = ch->watches[--ch->count];
}

/* The watch is taken out before its callback runs, and nothing of the
 * array is held across the call: the callback may watch or forget any pid,
 * this one included. */
static void reap_children(evutil_socket_t sig, short what, void *arg)
{
    hnp_children_t *ch = arg;
    pid_t pid;
    int status;

    (void)sig;
    (void)what;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        size_t i = find_watch(ch, pid);
        if (i == ch->count)
            continue;
        child_watch_t watch = ch->watches[i];
        remove_watch(ch, i);
        watch.fn(watch.ctx, pid, status);
    }
}

int hnp_children_create(hnp_children_t **out, struct event_base *base)
{
    hnp_children_t *ch = calloc(1, sizeof(*ch));
    int rc = HNP_ERR_NOMEM;

    if (ch == NULL)
        return HNP_ERR_NOMEM;
    ch->sigchld = evsignal_new(base, SIGCHLD, reap_children, ch);
    if (ch->sigchld == NULL)
        goto fail_free;
    if (evsignal_add(ch->sigchld, NULL) != 0) {
        rc = HNP_ERROR;
        goto fail_event;
    }
    *out = ch;
    return HNP_SUCCESS;

fail_event:
    event_free(ch->sigchld);
fail_free:
    free(ch);
    return rc;
}

/* Whether @p pid is a child of ours that has already exited, unreaped. */
static int child_state(pid_t pid, bool *exited)
{
    siginfo_t info;

    memset(&info, 0, sizeof(info));
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return HNP_ERR_NOT_FOUND;
    *exited = info.si_pid == pid;
    return HNP_SUCCESS;
}

static int reserve_watch(hnp_children_t *ch)
{
    if (ch->count < ch->capacity)
        return HNP_SUCCESS;
    size_t capacity = ch->capacity != 0 ? ch->capacity * 2 : 16;
    child_watch_t *grown = realloc(ch->watches, capacity * sizeof(*grown));
    if (grown == NULL)
        return HNP_ERR_NOMEM;
    ch->watches = grown;
    ch->capacity = capacity;
    return HNP_SUCCESS;
}

int hnp_children_watch(hnp_children_t *ch, pid_t pid, hnp_child_exit_fn fn,
                       void *ctx)
{
    bool exited = false;
    int rc;

    if (pid <= 0 || fn == NULL)
        return HNP_ERR_BAD_PARAM;
    if (find_watch(ch, pid) != ch->count)
        return HNP_ERR_EXISTS;
    /* Refusing a pid that is not our child (or already reaped) turns a
     * callback that would never come into an error now. */
    rc = child_state(pid, &exited);
    if (rc != HNP_SUCCESS)
        return rc;
    rc = reserve_watch(ch);
    if (rc != HNP_SUCCESS)
        return rc;
    ch->watches[ch->count++] = (child_watch_t){ pid, fn, ctx };
    if (exited)
        event_active(ch->sigchld, EV_SIGNAL, 1);
    return HNP_SUCCESS;
}

void hnp_children_forget(hnp_children_t *ch, pid_t pid)
{
    size_t i = find_watch(ch, pid);

    if (i != ch->count)
        remove_watch(ch, i);
}

size_t hnp_children_count(const hnp_children_t *ch)
{
    return ch->count;
}

void hnp_children_destroy(hnp_children_t *ch)
{
    if (ch == NULL)
        return;
    /* Deleting the event restores the SIGCHLD disposition libevent saved. */
    event_free(ch->sigchld);
    free(ch->watches);
    free(ch);
}
