/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Child processes on the event loop: one SIGCHLD handler a process, and a
 * callback per watched pid when it is reaped. Used by the daemon launcher
 * (agents) and the local launcher (application processes).
 */
#ifndef HNP_CHILDREN_H
#define HNP_CHILDREN_H

#include <sys/types.h>

struct event_base;

typedef struct hnp_children hnp_children_t;
typedef void (*hnp_child_exit_fn)(void *ctx, pid_t pid, int wait_status);

int hnp_children_create(hnp_children_t **out, struct event_base *base);
/** Call @p fn once when @p pid has exited and been reaped. */
int hnp_children_watch(hnp_children_t *ch, pid_t pid, hnp_child_exit_fn fn,
                       void *ctx);
/** Forget @p pid (it will still be reaped, silently). */
void hnp_children_forget(hnp_children_t *ch, pid_t pid);
/** Watched children not yet reaped. */
size_t hnp_children_count(const hnp_children_t *ch);
void hnp_children_destroy(hnp_children_t *ch);

#endif /* HNP_CHILDREN_H */
