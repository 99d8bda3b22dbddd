/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One daemon's request, as the runtime sees it (see launcher.h): the
 * command that started it, when, its join and pid, the last words of its
 * agent, and the kill when the job gives up on it.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_log.h"
#include "launcher_internal.h"
#include "procs/forkexec.h"

const char *hnp_launcher_command(const hnp_launcher_t *l, hnp_vpid_t vpid)
{
    const launch_req_t *r = req_of(l, vpid);

    return r != NULL ? r->words.command : NULL;
}

int hnp_launcher_started_at(const hnp_launcher_t *l, hnp_vpid_t vpid,
                            double *at)
{
    const launch_req_t *r = req_of(l, vpid);

    if (r == NULL || r->local || r->started.tv_sec == 0)
        return HNP_ERR_NOT_FOUND;
    *at = (double)r->started.tv_sec + r->started.tv_nsec / 1e9;
    return HNP_SUCCESS;
}

void hnp_launcher_joined(hnp_launcher_t *l, hnp_vpid_t vpid)
{
    launch_req_t *r = req_of(l, vpid);

    if (r == NULL || !r->daemon)
        return;
    r->joined = true;
    launch_req_drop_secret(r);
    if (r->state != REQ_RUNNING)
        return;
    r->state = REQ_JOINED;
    l->running--;
    launch_schedule_pump(l);
}

void hnp_launcher_set_daemon_pid(hnp_launcher_t *l, hnp_vpid_t vpid,
                                 pid_t pid)
{
    launch_req_t *r = req_of(l, vpid);

    if (r != NULL && r->daemon && pid > 0)
        r->daemon_pid = pid;
}

int hnp_launcher_kill_daemon(hnp_launcher_t *l, hnp_vpid_t vpid)
{
    launch_req_t *r = req_of(l, vpid);
    char pid_text[16];
    int rc = HNP_ERR_NOT_FOUND;

    if (r == NULL || !r->daemon)
        return HNP_ERR_NOT_FOUND;
    /* An agent still there (an attached daemon's) goes with its group. */
    if (agent_alive(r)) {
        hnp_signal_child_group(r->pid, SIGKILL);
        rc = HNP_SUCCESS;
    }
    if (r->kill_sent) /* once is enough */
        return HNP_SUCCESS;
    if (r->daemon_pid <= 0)
        return rc;
    if (r->local) {
        (void)kill(r->daemon_pid, SIGKILL);
        return HNP_SUCCESS;
    }
    /* A daemon that left its agent is reached through a new one. */
    snprintf(pid_text, sizeof(pid_text), "%ld", (long)r->daemon_pid);
    char *const args[] = { "-KILL", pid_text, NULL };
    launch_req_t *k = launch_submit_req(l, vpid, r->node, "kill", args,
                                        false, false, false, NULL);
    if (k == NULL)
        return rc == HNP_SUCCESS ? rc : HNP_ERR_NOMEM;
    k->quiet = true;
    k->attempt = l->retries;
    r->kill_sent = true;
    HNP_VERBOSE(l->log, 1, "vpid %u on %s: %s", vpid, r->node,
                k->words.command);
    return HNP_SUCCESS;
}

int hnp_launcher_stop_command(hnp_launcher_t *l, hnp_vpid_t vpid)
{
    launch_req_t *r = req_of(l, vpid);

    if (r == NULL || r->daemon || !agent_alive(r))
        return HNP_ERR_NOT_FOUND;
    HNP_VERBOSE(l->log, 1, "stopping %s", r->words.command);
    hnp_signal_child_group(r->pid, SIGTERM);
    return HNP_SUCCESS;
}

bool hnp_launcher_awaiting(const hnp_launcher_t *l, hnp_vpid_t vpid)
{
    const launch_req_t *r = req_of(l, vpid);

    return r != NULL && r->daemon && !r->joined && !r->cancelled;
}

size_t hnp_launcher_output_tail(const hnp_launcher_t *l, hnp_vpid_t vpid,
                                char *buf, size_t len)
{
    const launch_req_t *r = req_of(l, vpid);
    char *text;

    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (r != NULL && r->capture != NULL &&
        (text = launch_capture_render(r->capture)) != NULL) {
        size_t n = launch_last_lines(text, LAUNCH_TAIL_LINES, buf, len);
        free(text);
        return n;
    }
    if (r != NULL && r->last_words != NULL)
        snprintf(buf, len, "%s", r->last_words);
    return strlen(buf);
}
