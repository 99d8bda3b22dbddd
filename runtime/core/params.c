/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "params.h"
#include "hnp_errors.h"
#include "oob/oob.h"

/* A default defined as a number elsewhere, as the text registered. */
#define NUMBER_TEXT(n) NUMBER_TEXT_(n)
#define NUMBER_TEXT_(n) #n

#define CORE_PARAM(fw, comp, nm, ty, def, lvl, store, text)                  \
    { .framework = fw, .component = comp, .name = nm, .type = ty,           \
      .default_value = def, .level = lvl, .storage = store, .help = text }

/* Every double of the core is a number of seconds, where 0 says "never",
 * "none" or "the default" and nothing means less than 0: -1 is refused,
 * naming where it came from, rather than read as a surprise. */
static int seconds_check(const hnp_params_t *params, const char *name,
                         double value, char *err, size_t errlen)
{
    hnp_param_info_t info;

    if (value >= 0)
        return HNP_SUCCESS;
    if (hnp_param_lookup(params, name, &info) != HNP_SUCCESS)
        return HNP_ERR_BAD_PARAM;
    const char *from = hnp_param_source_name(info.source);
    const char *detail = info.source_detail;
    bool say_detail = detail != NULL && detail[0] != '\0' &&
                      strcmp(detail, from) != 0;
    hnp_err_set(err, errlen, "parameter %s: value \"%s\" (from %s%s%s) is "
                "out of range: expected a number of seconds, 0 or more",
                name, info.value, from, say_detail ? " " : "",
                say_detail ? detail : "");
    return HNP_ERR_BAD_PARAM;
}

/* oob_tcp_test_stall: "VPID:SECONDS", VPID a daemon's (1 or more). */
static int test_stall_read(hnp_core_params_t *core, char *err, size_t errlen)
{
    unsigned vpid = 0;
    double seconds = 0;
    char end = '\0';

    core->test_stall_vpid = 0;
    core->test_stall_seconds = 0;
    if (core->test_stall == NULL || core->test_stall[0] == '\0')
        return HNP_SUCCESS;
    if (sscanf(core->test_stall, "%u:%lf%c", &vpid, &seconds, &end) != 2 ||
        vpid == 0 || !(seconds > 0)) {
        hnp_err_set(err, errlen, "parameter oob_tcp_test_stall: value \"%s\" "
                    "is not VPID:SECONDS (a daemon's vpid, 1 or more, and "
                    "seconds above 0)", core->test_stall);
        return HNP_ERR_BAD_PARAM;
    }
    core->test_stall_vpid = vpid;
    core->test_stall_seconds = seconds;
    return HNP_SUCCESS;
}

static int core_params_check(const hnp_params_t *params,
                             hnp_core_params_t *core, char *err,
                             size_t errlen)
{
    const struct {
        const char *name;
        double value;
    } seconds[] = {
        {"plm_base_launch_timeout", core->launch_timeout},
        {"plm_base_launch_warn", core->launch_warn},
        {"oob_tcp_handshake_timeout", core->handshake_timeout},
        {"rte_kill_grace", core->kill_grace},
        {"rte_heartbeat_interval", core->heartbeat_interval},
    };

    for (size_t i = 0; i < sizeof(seconds) / sizeof(seconds[0]); i++) {
        int rc = seconds_check(params, seconds[i].name, seconds[i].value, err,
                               errlen);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return test_stall_read(core, err, errlen);
}

static const hnp_param_enum_value_t dvm_loss_values[] = {
    { "continue", HNP_DVM_LOSS_CONTINUE },
    { "stop", HNP_DVM_LOSS_STOP },
    { NULL, 0 },
};

static const hnp_param_enum_value_t name_scope_values[] = {
    { "family", HNP_NAME_SCOPE_FAMILY },
    { "session", HNP_NAME_SCOPE_SESSION },
    { NULL, 0 },
};

int hnp_core_params_register(hnp_params_t *params, hnp_core_params_t *core,
                             char *err, size_t errlen)
{
    const hnp_param_desc_t descs[] = {
        CORE_PARAM("plm", "rsh", "agent", HNP_PARAM_STRING, "ssh : rsh", 2,
                   &core->rsh_agent,
                   "Remote-shell agent that starts the daemons, with optional "
                   "arguments; alternatives separated by ':' are tried in "
                   "order and the first one found in PATH is used"),
        CORE_PARAM("plm", "rsh", "args", HNP_PARAM_STRING, "", 4,
                   &core->rsh_args,
                   "Extra arguments given to the agent before the node name"),
        CORE_PARAM("plm", "rsh", "num_concurrent", HNP_PARAM_UNSIGNED, "128", 4,
                   &core->rsh_num_concurrent,
                   "Most agents running at once in one process (0: no limit)"),
        CORE_PARAM("plm", "rsh", "retries", HNP_PARAM_UNSIGNED, "3", 5,
                   &core->rsh_retries,
                   "Times an agent that fails to connect (exit status 255) "
                   "is retried, with exponential backoff"),
        CORE_PARAM("plm", "base", "launch_timeout", HNP_PARAM_DOUBLE, "60", 3,
                   &core->launch_timeout,
                   "Seconds to wait for every daemon to call back before the "
                   "job is aborted, naming the missing nodes (0: forever)"),
        CORE_PARAM("plm", "base", "launch_warn", HNP_PARAM_DOUBLE, "10", 4,
                   &core->launch_warn,
                   "Seconds into the launch after which the nodes whose "
                   "daemons have not joined are named, with where they hang "
                   "in the spawn tree (0: never)"),
        CORE_PARAM("plm", "base", "daemons_on_all_nodes", HNP_PARAM_BOOL,
                   "false", 3, &core->daemons_on_all_nodes,
                   "A standalone hnp starts a daemon on every node of the "
                   "allocation, also where its job has no rank, as Open "
                   "MPI's mpirun does (without --novm): the job's "
                   "MPI_Comm_spawn may then place processes on any of "
                   "them. Off: daemons only where the job's ranks are"),
        CORE_PARAM("plm", "base", "secret_dir", HNP_PARAM_STRING, "", 5,
                   &core->secret_dir,
                   "Directory in which a launcher that gives its daemons no "
                   "stdin leaves the job secret: a private subdirectory "
                   "(mode 0700) with one file (mode 0600) a daemon, which "
                   "the daemon reads and removes. It must be visible where "
                   "the daemons run; empty: $TMPDIR, else /tmp"),
        CORE_PARAM("oob", "tcp", "if_include", HNP_PARAM_STRING, "", 3,
                   &core->if_include,
                   "Interfaces (names or CIDR networks, comma-separated) to "
                   "listen on and advertise; empty: all"),
        CORE_PARAM("oob", "tcp", "if_exclude", HNP_PARAM_STRING, "", 3,
                   &core->if_exclude,
                   "Interfaces (names or CIDR networks) not to use; ignored "
                   "when oob_tcp_if_include is set"),
        CORE_PARAM("oob", "tcp", "max_frame", HNP_PARAM_SIZE, "64M", 6,
                   &core->max_frame,
                   "Largest runtime message accepted; a peer sending more is "
                   "disconnected"),
        CORE_PARAM("oob", "tcp", "handshake_timeout", HNP_PARAM_DOUBLE,
                   NUMBER_TEXT(HNP_OOB_HANDSHAKE_TIMEOUT_DEFAULT), 5,
                   &core->handshake_timeout,
                   "Seconds an accepted connection has to complete its "
                   "handshake (until then a stranger holds a descriptor), "
                   "and that a closing connection lingers; our own "
                   "connections wait for the reply at least the connect "
                   "timeout (0: the default)"),
        CORE_PARAM("oob", "tcp", "max_handshakes", HNP_PARAM_UNSIGNED, "128",
                   5, &core->max_handshakes,
                   "Most accepted connections awaiting their handshake at "
                   "once; past it the oldest is dropped, so that "
                   "connections that never authenticate cannot use up the "
                   "process's descriptors. The HNP lowers it when its "
                   "descriptor limit is tight (0: the default)"),
        CORE_PARAM("oob", "tcp", "test_stall", HNP_PARAM_STRING, "", 9,
                   &core->test_stall,
                   "For tests: VPID:SECONDS makes the daemon of that vpid "
                   "wait SECONDS after the hello of its first connection "
                   "before it reads the answer, as a daemon starved of CPU "
                   "would (set in the environment, so that the daemon has "
                   "it before it joins); empty: never"),
        CORE_PARAM("rte", NULL, "kill_grace", HNP_PARAM_DOUBLE, "2", 4,
                   &core->kill_grace,
                   "Seconds between SIGTERM and SIGKILL when processes are "
                   "killed"),
        CORE_PARAM("rte", NULL, "abort_on_nonzero", HNP_PARAM_BOOL, "true", 3,
                   &core->abort_on_nonzero,
                   "End the job when a process exits with a non-zero status"),
        CORE_PARAM("rte", NULL, "heartbeat_interval", HNP_PARAM_DOUBLE, "5", 4,
                   &core->heartbeat_interval,
                   "Seconds between the heartbeats routing neighbours send "
                   "each other, so that a node that hangs or drops off the "
                   "network is noticed (0: none)"),
        CORE_PARAM("rte", NULL, "heartbeat_misses", HNP_PARAM_UNSIGNED, "3", 5,
                   &core->heartbeat_misses,
                   "Heartbeats a neighbour may miss before it is declared "
                   "gone and the job ends"),
        CORE_PARAM("hwloc", "base", "topo_file", HNP_PARAM_STRING, "", 5,
                   &core->topo_file,
                   "An XML topology (lstopo --of xml) that stands for the "
                   "nodes' own in mapping and binding; empty: each node's. "
                   "For tests: a binding is computed and reported on the "
                   "file's topology, and applied only to the CPUs of it "
                   "that this machine has (none: the rank is left unbound)"),
        CORE_PARAM("rte", NULL, "iof_window", HNP_PARAM_SIZE, "256K", 6,
                   &core->iof_window,
                   "Bytes of its processes' output a daemon may have sent "
                   "that the HNP has not yet taken on; past it, the daemon "
                   "stops reading its processes' output until the HNP "
                   "catches up"),
        CORE_PARAM("rte", NULL, "iof_buffer", HNP_PARAM_SIZE, "4M", 6,
                   &core->iof_buffer,
                   "Bytes of output the HNP holds for a slow reader of its "
                   "stdout or stderr before it holds the daemons back "
                   "(then it holds at most this plus rte_iof_window a "
                   "daemon)"),
        CORE_PARAM("rte", NULL, "forward_job_control", HNP_PARAM_BOOL, "true", 3,
                   &core->forward_job_control,
                   "On SIGTSTP (Ctrl-Z), stop the job's processes with "
                   "SIGSTOP and then hnp; on SIGCONT (fg, bg), continue "
                   "them. Off: SIGTSTP stops hnp alone"),
        CORE_PARAM("rte", NULL, "daemon_log_rate", HNP_PARAM_UNSIGNED, "20", 5,
                   &core->daemon_log_rate,
                   "Most warnings, errors and stderr lines a daemon sends "
                   "the HNP in a second; the number of those held back "
                   "follows at the second's end (0: no limit; verbose "
                   "messages are never held back)"),
        { .framework = "dvm", .component = "on", .name = "daemon_loss",
          .type = HNP_PARAM_ENUM, .default_value = "continue", .level = 3,
          .enum_values = dvm_loss_values, .storage = &core->dvm_on_daemon_loss,
          .help = "What a persistent runtime (hnp --dvm) does when a daemon "
                  "dies: continue (the jobs with ranks on its node end, the "
                  "others run on, new jobs use the remaining nodes) or stop "
                  "(every job and the DVM end)" },
        { .framework = "pmi", .component = "base", .name = "name_scope",
          .type = HNP_PARAM_ENUM, .default_value = "family", .level = 4,
          .enum_values = name_scope_values, .storage = &core->name_scope,
          .help = "Who sees a name an MPI process publishes "
                  "(MPI_Publish_name, PMIx_Publish): family (the jobs of "
                  "its job family: its job, the jobs it spawned and the job "
                  "that spawned it) or session (every job of the runtime, "
                  "as a persistent runtime's jobs need to connect to each "
                  "other). A process may ask for the session's scope "
                  "itself (PMIX_RANGE_SESSION)" },
        { .framework = "pmi", .component = "base", .name = "preload",
          .type = HNP_PARAM_BOOL, .default_value = "false", .level = 5,
          .storage = &core->pmi_preload,
          .help = "Daemons load the pmi components once they hold every "
                  "daemon's contact, before the runtime is ready, instead "
                  "of at their first job: what loading costs a node (the "
                  "components' libraries, libpmix's relocations) moves "
                  "from the first job to the start. A persistent runtime "
                  "(hnp --dvm) sets it unless it is given" },
        { .framework = "pmi", .component = "base", .name = "start_early",
          .type = HNP_PARAM_BOOL, .default_value = "true", .level = 5,
          .storage = &core->pmi_start_early,
          .help = "The daemons of a job (not of a persistent runtime) "
                  "load the pmi components its programs use and start "
                  "them (the PMIx server) once they have started their "
                  "own daemons, while the launch message is on its way, "
                  "instead of when it arrives: the set-up leaves the "
                  "job's start and costs the same. A job whose programs "
                  "use none loads none either way. A failure to start "
                  "them fails the job when it starts, as it would have "
                  "then" },
    };

    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
        int rc = hnp_param_register(params, &descs[i], err, errlen);
        if (rc != HNP_SUCCESS)
            return rc;
    }
    return core_params_check(params, core, err, errlen);
}
