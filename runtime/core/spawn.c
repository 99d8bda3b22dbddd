/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launch service of hnp_rte.h: starting daemons through the agent with
 * the shared launcher, and reporting what failed in words.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/forkexec.h"
#include "hosts/hostlist.h"
#include "rte.h"

#define AGENT_MAX_WORDS 64

/* Split @p text on blanks into @p words (pointers into @p text). */
static size_t split_words(char *text, char **words, size_t max)
{
    size_t n = 0;

    for (char *tok = strtok(text, " \t"); tok != NULL && n < max;
         tok = strtok(NULL, " \t"))
        words[n++] = tok;
    return n;
}

/*
 * The agent's argv: the first alternative of plm_rsh_agent ("ssh : rsh")
 * whose program exists, with its own words, then plm_rsh_args. Fills
 * @p words with pointers into @p storage.
 */
static int choose_agent(const hnp_core_params_t *core, char *storage,
                        size_t storage_len, char **words, char *err,
                        size_t errlen)
{
    char *alternatives = strdup(core->rsh_agent != NULL ? core->rsh_agent : "");
    char *save = NULL;
    size_t n = 0;

    if (alternatives == NULL)
        return HNP_ERR_NOMEM;
    for (char *alt = strtok_r(alternatives, ":", &save); alt != NULL && n == 0;
         alt = strtok_r(NULL, ":", &save)) {
        snprintf(storage, storage_len, "%s %s", alt,
                 core->rsh_args != NULL ? core->rsh_args : "");
        n = split_words(storage, words, AGENT_MAX_WORDS - 1);
        if (n > 0 && !hnp_program_exists(words[0]))
            n = 0;
    }
    free(alternatives);
    if (n == 0) {
        hnp_err_set(err, errlen, "no remote-shell agent found: plm_rsh_agent "
                    "is \"%s\" and none of its programs is in PATH",
                    core->rsh_agent != NULL ? core->rsh_agent : "");
        return HNP_ERR_NOT_FOUND;
    }
    words[n] = NULL;
    return HNP_SUCCESS;
}

int hnp_rte_agent_name(const hnp_rte_t *rte, char *buf, size_t len)
{
    char storage[1024], unused[256];
    char *words[AGENT_MAX_WORDS];
    size_t used = 0;
    int rc = choose_agent(rte->core, storage, sizeof(storage), words, unused,
                          sizeof(unused));

    if (rc != HNP_SUCCESS)
        return rc;
    buf[0] = '\0';
    /* Joined by single blanks, so that the same agent spelt with other
     * blanks in plm_rsh_agent keeps one estimate. */
    for (size_t i = 0; words[i] != NULL && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i > 0 ? " " : "", words[i]);
    return used < len ? HNP_SUCCESS : HNP_ERR_TRUNCATED;
}

static void agent_failed(void *ctx, hnp_vpid_t vpid, const char *node,
                         const char *command, int wait_status,
                         const char *output)
{
    hnp_rte_t *rte = ctx;
    char status[64];

    if (WIFSIGNALED(wait_status))
        snprintf(status, sizeof(status), "was killed by signal %d",
                 WTERMSIG(wait_status));
    else
        snprintf(status, sizeof(status), "exited with status %d",
                 WEXITSTATUS(wait_status));
    /* vpid 0: one command of the launcher's for every daemon (srun), and
     * node says whose ("the Slurm allocation"). */
    if (vpid >= rte->nfirst && rte->is_hnp) {
        char why[1024];
        /* one command for several added daemons: node names them all */
        bool several = strchr(node, ',') != NULL;
        snprintf(why, sizeof(why), "the daemon%s for node%s %s (vpid%s %u) "
                 "could not be started: the %s %s\n  command: %s\n  output "
                 "of the %s: %s", several ? "s" : "", several ? "s" : "",
                 node, several ? "s from" : "", vpid,
                 hnp_rte_growth_by_command(rte) ? "command" : "agent",
                 status, command,
                 hnp_rte_growth_by_command(rte) ? "command" : "agent",
                 output != NULL && output[0] != '\0' ? output : "(none)");
        if (hnp_rte_growth_failed(rte, vpid, why))
            return;
    }
    if (vpid == 0)
        hnp_rte_fail(rte, 1, "the daemons could not be started through %s: "
                     "the command %s\n  command: %s\n  its output: %s", node,
                     status, command,
                     output != NULL && output[0] != '\0' ? output : "(none)");
    else
        hnp_rte_fail(rte, 1, "the daemon for node %s (vpid %u) could not be "
                     "started: the agent %s\n  command: %s\n  output of the "
                     "agent: %s", node, vpid, status, command,
                     output != NULL && output[0] != '\0' ? output : "(none)");
}

static void agent_done(void *ctx, hnp_vpid_t vpid)
{
    hnp_rte_t *rte = ctx;
    HNP_VERBOSE(rte->log, 5, "agent for vpid %u finished", vpid);
}

static void agent_printed(void *ctx, hnp_vpid_t vpid)
{
    hnp_rte_spawn_notes_printed(ctx, vpid);
}

unsigned hnp_rte_agents_in_flight(const hnp_rte_t *rte)
{
    unsigned most = rte->core->rsh_num_concurrent;

    if (rte->agents_in_flight > 0 && (most == 0 || rte->agents_in_flight < most))
        return rte->agents_in_flight;
    return most;
}

int hnp_rte_launcher_start(hnp_rte_t *rte, char *err, size_t errlen)
{
    char storage[1024];
    char *words[AGENT_MAX_WORDS];
    int rc;

    if (rte->launcher != NULL)
        return HNP_SUCCESS;
    /* Without an agent the launcher still starts daemons on this machine;
     * the reason is kept for the first node that needs one. */
    rc = choose_agent(rte->core, storage, sizeof(storage), words,
                      rte->agent_error, sizeof(rte->agent_error));
    hnp_launch_config_t config = {
        .agent_argv = rc == HNP_SUCCESS ? words : NULL,
        .daemon_path = rte->daemon_path,
        .secret_hex = rte->secret_hex,
        .max_concurrent = hnp_rte_agents_in_flight(rte),
        .retries = rte->core->rsh_retries,
        .retry_delay = 0.2,
        .secret_dir = rte->core->secret_dir,
    };
    hnp_launch_callbacks_t cb = { agent_failed, agent_done, rte,
                                  agent_printed };
    rc = hnp_launcher_create(&rte->launcher, rte->base, rte->children,
                             &config, &cb, err, errlen);
    if (rc == HNP_SUCCESS)
        hnp_rte_spawn_notes_arm(rte);
    return rc;
}

/* A node name that means this machine: started without an agent. */
static bool node_is_local(const char *node)
{
    char host[256];

    if (strcmp(node, "localhost") == 0)
        return true;
    if (gethostname(host, sizeof(host)) != 0)
        return false;
    host[sizeof(host) - 1] = '\0';
    return strcmp(node, host) == 0;
}

/* The interfaces the daemon may use, and its handshake deadline when not
 * the default: it needs them before its first message (it accepts its
 * children's connections before the welcome), so they travel on its
 * command line (9 words at most). */
static size_t oob_args(hnp_rte_t *rte, char **args)
{
    size_t n = 0;
    double deadline = rte->core->handshake_timeout;

    if (deadline > 0 && deadline != HNP_OOB_HANDSHAKE_TIMEOUT_DEFAULT) {
        snprintf(rte->handshake_arg, sizeof(rte->handshake_arg), "%g",
                 deadline);
        args[n++] = "--mca";
        args[n++] = "oob_tcp_handshake_timeout";
        args[n++] = rte->handshake_arg;
    }

    if (rte->core->if_include != NULL && rte->core->if_include[0] != '\0') {
        args[n++] = "--mca";
        args[n++] = "oob_tcp_if_include";
        args[n++] = rte->core->if_include;
    }
    if (rte->core->if_exclude != NULL && rte->core->if_exclude[0] != '\0') {
        args[n++] = "--mca";
        args[n++] = "oob_tcp_if_exclude";
        args[n++] = rte->core->if_exclude;
    }
    return n;
}

/* The daemon's arguments: who it is and whom to call. The oob_tcp
 * interface choices travel here because the daemon needs them before its
 * first message; everything else comes in that message. */
static int daemon_args(hnp_rte_t *rte, hnp_vpid_t vpid, char *vpid_text,
                       char *parent_text, char **args)
{
    size_t n = 0;

    snprintf(vpid_text, 16, "%u", vpid);
    snprintf(parent_text, 16, "%u", rte->self);
    args[n++] = "--vpid";
    args[n++] = vpid_text;
    args[n++] = "--node";
    args[n++] = rte->node_names[vpid];
    args[n++] = "--parent";
    args[n++] = parent_text;
    args[n++] = "--parent-uri";
    args[n++] = (char *)hnp_oob_uri(rte->oob);
    /* Attached agents stay alive for the job, so they count against the
     * agents a node may run at once; past that, daemons detach. */
    unsigned most = hnp_rte_agents_in_flight(rte);
    if (rte->spawn_attached && (most == 0 || rte->attached_started < most)) {
        rte->attached_started++;
        args[n++] = "--attached";
    }
    n += oob_args(rte, args + n);
    args[n] = NULL;
    return (int)n;
}

void hnp_rte_set_spawn_attached(hnp_rte_t *rte, bool attached)
{
    rte->spawn_attached = attached;
}

int hnp_rte_spawn_daemon(hnp_rte_t *rte, hnp_vpid_t vpid)
{
    char err[512] = "";
    char vpid_text[16], parent_text[16];
    char *args[20];
    int rc;

    if (vpid == 0 || vpid >= rte->nprocs || rte->node_names[vpid] == NULL)
        return HNP_ERR_BAD_PARAM;
    bool local = node_is_local(rte->node_names[vpid]);
    rc = hnp_rte_launcher_start(rte, err, sizeof(err));
    if (rc == HNP_SUCCESS && !local && rte->agent_error[0] != '\0') {
        snprintf(err, sizeof(err), "%s", rte->agent_error);
        rc = HNP_ERR_NOT_FOUND;
    }
    if (rc != HNP_SUCCESS) {
        hnp_rte_fail(rte, 1, "%s", err);
        return rc;
    }
    daemon_args(rte, vpid, vpid_text, parent_text, args);
    return hnp_launcher_submit(rte->launcher, vpid, rte->node_names[vpid], args,
                               local);
}

/* The arguments of a daemon that asks the plm who it is: whom to call,
 * which plm to ask, and where its secret is when it is in a file
 * (@p secret_file, or NULL). */
static size_t identity_args(hnp_rte_t *rte, char *parent_text,
                            char *secret_file, char **args)
{
    size_t n = 0;

    snprintf(parent_text, 16, "%u", rte->self);
    args[n++] = "--parent";
    args[n++] = parent_text;
    args[n++] = "--parent-uri";
    args[n++] = (char *)hnp_oob_uri(rte->oob);
    args[n++] = "--plm";
    args[n++] = rte->selected[0];
    if (secret_file != NULL) {
        args[n++] = "--secret-file";
        args[n++] = secret_file;
    }
    n += oob_args(rte, args + n);
    args[n] = NULL;
    return n;
}

char **hnp_rte_daemon_command(hnp_rte_t *rte, char *const *extra)
{
    char *args[20], parent_text[16];
    size_t n = identity_args(rte, parent_text, NULL, args), nextra = 0;
    char **argv;

    while (extra != NULL && extra[nextra] != NULL)
        nextra++;
    argv = calloc(n + nextra + 2, sizeof(*argv));
    if (argv == NULL)
        return NULL;
    for (size_t i = 0; i <= n + nextra; i++) {
        const char *word = i == 0 ? rte->daemon_path
                                  : i <= n ? args[i - 1] : extra[i - n - 1];
        if ((argv[i] = strdup(word)) == NULL) {
            hnp_rte_free_argv(argv);
            return NULL;
        }
    }
    return argv;
}

int hnp_rte_spawn_daemon_with(hnp_rte_t *rte, hnp_vpid_t vpid,
                              char *const *command)
{
    char err[512] = "", parent_text[16], path[4096];
    char *args[20], *secret_file = NULL;
    const char *node;
    int rc = HNP_SUCCESS;

    if (vpid == 0 || vpid >= rte->nprocs || command == NULL ||
        command[0] == NULL || (node = rte->node_names[vpid]) == NULL)
        return HNP_ERR_BAD_PARAM;
    rc = hnp_rte_launcher_start(rte, err, sizeof(err));
    if (rc == HNP_SUCCESS && rte->plm->secret == HNP_PLM_SECRET_FILE) {
        rc = hnp_launcher_secret_file(rte->launcher, vpid, path, sizeof(path),
                                      err, sizeof(err));
        secret_file = path;
    }
    if (rc == HNP_SUCCESS) {
        identity_args(rte, parent_text, secret_file, args);
        rc = hnp_launcher_submit_via(rte->launcher, vpid, node, command, args,
                                     secret_file);
    }
    if (rc != HNP_SUCCESS)
        hnp_rte_fail(rte, 1, "cannot start the daemon for node %s (vpid %u) "
                     "with %s: %s", node, vpid, command[0],
                     err[0] != '\0' ? err : hnp_strerror(rc));
    return rc;
}

void hnp_rte_free_argv(char **argv)
{
    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
        free(argv[i]);
    free(argv);
}

int hnp_rte_spawn_command(hnp_rte_t *rte, char *const *argv, const char *label)
{
    char err[512] = "";
    int rc = hnp_rte_launcher_start(rte, err, sizeof(err));

    if (rc == HNP_SUCCESS)
        rc = hnp_launcher_submit_command(rte->launcher, 0, label, argv);
    if (rc != HNP_SUCCESS)
        hnp_rte_fail(rte, 1, "cannot run %s: %s", argv[0],
                     err[0] != '\0' ? err : hnp_strerror(rc));
    return rc;
}

char **hnp_rte_added_daemon_command(hnp_rte_t *rte, hnp_vpid_t first)
{
    char first_text[16];
    char *extra[] = { "--first-vpid", first_text, NULL };

    if (first < rte->nfirst || first >= rte->nprocs)
        return NULL;
    snprintf(first_text, sizeof(first_text), "%u", first);
    return hnp_rte_daemon_command(rte, extra);
}

int hnp_rte_spawn_added_command(hnp_rte_t *rte, hnp_vpid_t first,
                                char *const *argv, const char *label)
{
    char err[512] = "";
    int rc;

    if (first < rte->nfirst || first >= rte->nprocs || argv == NULL ||
        argv[0] == NULL)
        return HNP_ERR_BAD_PARAM;
    rc = hnp_rte_launcher_start(rte, err, sizeof(err));
    /* its failure is the growth's (agent_failed: vpid >= nfirst) */
    if (rc == HNP_SUCCESS)
        rc = hnp_launcher_submit_command(rte->launcher, first, label, argv);
    if (rc != HNP_SUCCESS)
        HNP_ERROR_LOG(rte->log, "cannot run %s for the added daemons: %s",
                      argv[0], err[0] != '\0' ? err : hnp_strerror(rc));
    return rc;
}

int hnp_rte_spawn_daemons(hnp_rte_t *rte, const hnp_vpid_t *vpids,
                          uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        int rc = hnp_rte_spawn_daemon(rte, vpids[i]);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return HNP_SUCCESS;
}

int hnp_rte_expand_hostlist(const char *text, char ***names, size_t *count,
                            char *err, size_t errlen)
{
    return hnp_hostlist_expand(text, names, count, err, errlen);
}

void hnp_rte_free_hostlist(char **names, size_t count)
{
    hnp_hostlist_free(names, count);
}
