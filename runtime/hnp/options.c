/* SPDX-License-Identifier: BSD-3-Clause */
/* hnp's options, their spellings, and the error for an unknown one
 * (options.h). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "hnp_errors.h"
#include "hnp_suggest.h"
#include "options.h"
#include "core/startup.h"

static const hnp_option_t options[] = {
    { OPT_NP, 1, { "-n", "--np", "-c" } },
    { OPT_ENV, 1, { "-x" } },
    { OPT_ENV_PAIR, 2, { "--env" } },
    { OPT_WDIR, 1, { "--wdir", "--wd" } },
    { OPT_NPERNODE, 1, { "--npernode", "-N", "--ppn" } },
    { OPT_HOST, 1, { "--host", "-H", "--hosts" } },
    { OPT_HOSTFILE, 1, { "--hostfile", "--machinefile", "-f" } },
    { OPT_DEFAULT_HOSTFILE, 1, { "--default-hostfile" } },
    { OPT_PREFIX, 1, { "--prefix" } },
    { OPT_OUTPUT_FILENAME, 1, { "--output-filename" } },
    { OPT_STDIN, 1, { "--stdin" } },
    { OPT_TIMEOUT, 1, { "--timeout" } },
    { OPT_APP, 1, { "--app" } },
    { OPT_GENV, 2, { "--genv" } },
    { OPT_GENVALL, 0, { "--genvall" } },
    { OPT_MAPPING, 1, { "--map-by" } },
    { OPT_MAPPING, 1, { "--rank-by" } },
    { OPT_MAPPING, 1, { "--bind-to" } },
    { OPT_MAPPING, 1, { "--cpus-per-proc" } },
    { OPT_MAPPING, 1, { "--cpus-per-rank" } },
    { OPT_MAPPING, 1, { "--cpu-list", "--cpu-set" } },
    { OPT_MAPPING, 1, { "--rankfile", "--rf" } },
    { OPT_MAPPING, 1, { "--npersocket" } },
    { OPT_MAPPING_FLAG, 0, { "--report-bindings" } },
    { OPT_MAPPING_FLAG, 0, { "--use-hwthread-cpus" } },
    { OPT_MAPPING_FLAG, 0, { "--display-map" } },
    { OPT_MAPPING_FLAG, 0, { "--display-allocation" } },
    { OPT_OVERSUBSCRIBE, 0, { "--oversubscribe" } },
    { OPT_NOOVERSUBSCRIBE, 0, { "--nooversubscribe" } },
    { OPT_TIMING, 0, { "--timing" } },
    { OPT_TAG_OUTPUT, 0, { "--tag-output" } },
    { OPT_PREPEND_RANK, 0, { "--prepend-rank", "-l" } },
    { OPT_BYNODE, 0, { "--bynode" } },
    { OPT_BYSLOT, 0, { "--byslot" } },
    { OPT_LAUNCH_AGENT, 1, { "--launch-agent" } },
    { OPT_TIMESTAMP_OUTPUT, 0, { "--timestamp-output" } },
    { OPT_MERGE_STDERR, 0, { "--merge-stderr-to-stdout" } },
    { OPT_REPORT_STATE_ON_TIMEOUT, 0, { "--report-state-on-timeout" } },
    { OPT_GET_STACK_TRACES, 0, { "--get-stack-traces" } },
    { OPT_PLAN, 0, { "--plan", "--do-not-launch" } },
    { OPT_HELP, 0, { "-h", "--help" } },
    { OPT_VERSION, 0, { "-V", "--version" } },
    { OPT_VERBOSE, 0, { "-v", "--verbose" } },
    { OPT_QUIET, 0, { "-q", "--quiet" } },
    { OPT_ALLOW_ROOT, 0, { "--allow-run-as-root" } },
    { OPT_DVM, 0, { "--dvm" } },
    { OPT_REPORT_URI, 1, { "--report-uri" } },
    { OPT_DAEMONIZE, 0, { "--daemonize" } },
    { OPT_DVM_URI, 1, { "--dvm-uri" } },
    { OPT_DVM_JOBS, 0, { "--dvm-jobs" } },
    { OPT_DVM_STOP, 0, { "--dvm-stop" } },
    { OPT_DVM_WAIT, 0, { "--dvm-wait" } },
    { OPT_DVM_NOWAIT, 0, { "--dvm-nowait" } },
    { OPT_SETUP, 2, { "--mca", "--gmca" } },
    { OPT_SETUP, 1, { "--tune" } },
    { OPT_SETUP, 1, { "--am", "--mca-param-file" } },
    { OPT_SETUP, 1, { "--iface" } },
    { OPT_SETUP, 1, { "--launcher" } },
    { OPT_SETUP, 1, { "--launcher-exec" } },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

/* ---------------------------------------------- options that set params */

static int set_param(hnp_params_t *params, const char *name,
                     const char *value, const char *opt, char *err,
                     size_t errlen)
{
    char detail[128];

    snprintf(detail, sizeof(detail), "command line (%s)", opt);
    return hnp_param_set(params, name, value, HNP_PARAM_SRC_CMDLINE, detail,
                         err, errlen);
}

/* Hydra's -iface NAME: the network the runtime uses. */
static int take_iface(hnp_params_t *params, const char *opt,
                      char *const *values, char *err, size_t errlen)
{
    return set_param(params, "oob_tcp_if_include", values[0], opt, err,
                     errlen);
}

/* Hydra's -launcher-exec PATH: the remote shell the daemons start by. */
static int take_launcher_exec(hnp_params_t *params, const char *opt,
                              char *const *values, char *err, size_t errlen)
{
    return set_param(params, "plm_rsh_agent", values[0], opt, err, errlen);
}

/* Hydra's -launcher NAME: ssh and rsh are the remote shell hnp's launchers
 * (rsh, prsh) start the daemons by, slurm is the slurm launcher; hnp has
 * none of the others. */
static int take_launcher(hnp_params_t *params, const char *opt,
                         char *const *values, char *err, size_t errlen)
{
    const char *name = values[0];

    if (strcmp(name, "ssh") == 0 || strcmp(name, "rsh") == 0)
        return set_param(params, "plm_rsh_agent", name, opt, err, errlen);
    if (strcmp(name, "slurm") == 0)
        return set_param(params, "plm", "slurm", opt, err, errlen);
    hnp_err_set(err, errlen, "%s %s: hnp starts its daemons by ssh or rsh "
                "(%s ssh, or --mca plm_rsh_agent COMMAND) or by srun inside "
                "a Slurm allocation (%s slurm)%s", opt, name, opt, opt,
                strcmp(name, "fork") == 0
                    ? "; to run on this machine alone, name no hosts" : "");
    return HNP_ERR_BAD_PARAM;
}

/* --am FILE[,FILE...] and --mca-param-file FILE: files of "name = value"
 * lines, which is what --tune reads. */
static int take_param_files(hnp_params_t *params, const char *opt,
                            char *const *values, char *err, size_t errlen)
{
    char *list = strdup(values[0]), *save = NULL;
    int rc = list != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;

    for (char *file = list != NULL ? strtok_r(list, ",", &save) : NULL;
         rc == HNP_SUCCESS && file != NULL; file = strtok_r(NULL, ",", &save))
        rc = hnp_params_load_file(params, file, HNP_PARAM_SRC_TUNE_FILE,
                                  false, err, errlen);
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory reading %s", opt);
    free(list);
    return rc;
}

static const struct param_option {
    const char *name; /* two-dash form */
    int (*take)(hnp_params_t *params, const char *opt, char *const *values,
                char *err, size_t errlen);
} param_options[] = {
    { "--am", take_param_files },
    { "--mca-param-file", take_param_files },
    { "--iface", take_iface },
    { "--launcher", take_launcher },
    { "--launcher-exec", take_launcher_exec },
};

#define NPARAM_OPTIONS (sizeof(param_options) / sizeof(param_options[0]))

/* @p arg in its two-dash form, into @p buf: "-npernode" -> "--npernode";
 * "-n" and "--np" stay as they are. */
static const char *two_dash_form(const char *arg, char *buf, size_t len)
{
    if (arg[0] != '-' || arg[1] == '-' || arg[1] == '\0' || arg[2] == '\0')
        return arg;
    snprintf(buf, len, "-%s", arg);
    return buf;
}

const hnp_option_t *hnp_option_find(const char *arg)
{
    char buf[256];
    const char *name = two_dash_form(arg, buf, sizeof(buf));

    for (size_t o = 0; o < NOPTIONS; o++)
        for (int n = 0; n < OPT_NAMES && options[o].names[n] != NULL; n++)
            if (strcmp(options[o].names[n], name) == 0)
                return &options[o];
    return NULL;
}

struct hnp_setup_option *hnp_args_setup_options(void)
{
    size_t count = 0;
    hnp_setup_option_t *all = calloc(2 * (NOPTIONS * OPT_NAMES +
                                          NPARAM_OPTIONS) + 1, sizeof(*all));

    for (size_t o = 0; all != NULL && o < NOPTIONS; o++) {
        const hnp_option_t *opt = &options[o];
        if (opt->nvalues == 0 || opt->id == OPT_SETUP)
            continue;
        for (int n = 0; n < OPT_NAMES && opt->names[n] != NULL; n++) {
            const char *name = opt->names[n];
            all[count++] = (hnp_setup_option_t){ name, opt->nvalues, NULL };
            if (name[1] == '-') /* and with one dash */
                all[count++] = (hnp_setup_option_t){ name + 1,
                                                     opt->nvalues, NULL };
        }
    }
    /* Those that set parameters are taken out by the scan, as --mca. */
    for (size_t o = 0; all != NULL && o < NPARAM_OPTIONS; o++) {
        const struct param_option *p = &param_options[o];
        all[count++] = (hnp_setup_option_t){ p->name, 1, p->take };
        all[count++] = (hnp_setup_option_t){ p->name + 1, 1, p->take };
    }
    return all;
}

/* Options of Open MPI's mpirun that hnp refuses, and why (hnp(1) has
 * the others). */
static const struct not_supported {
    const char *name; /* two-dash form */
    const char *why;
} not_supported[] = {
    { "--preload-binary", "hnp copies no files: install the program on the "
      "nodes or put it on a shared file system" },
    { "-s", "it is --preload-binary, and hnp copies no files: install the "
      "program on the nodes or put it on a shared file system" },
    { "--preload-files", "hnp copies no files" },
    { "--xml", "hnp's output is plain text" },
    { "--nolocal", "name the nodes to use with --host or --hostfile" },
    { "--enable-recovery", "hnp ends the job when a process or a node fails" },
    { "--max-restarts", "hnp restarts no process" },
    { "--ompi-server", "hnp has no name server for MPI_Publish_name between "
      "jobs" },
    { "--report-uri", "hnp has no server for other jobs to reach" },
    { "--display-devel-map", "use --display-map" },
    { "--debug-devel", "use -v, or --mca NAME_base_verbose N" },
    { "-d", "it is --debug-devel: use -v, or --mca NAME_base_verbose N" },
    { "--path", "give the program's path (DIR/PROGRAM); a bare name is "
      "looked for in the PATH of the node, then in the working directory" },
    { "--noprefix", "hnp starts its daemons by the absolute path of its "
      "installation, never through PATH: --prefix DIR names where hnpd is "
      "installed on the nodes" },
};

/* The spelling an option is suggested by: its first of several letters
 * ("--np" rather than "-n"). */
static const char *suggested_name(const hnp_option_t *o)
{
    for (int n = 0; n < OPT_NAMES && o->names[n] != NULL; n++)
        if (strlen(o->names[n]) > 2)
            return o->names[n];
    return NULL;
}

/* Whether @p name is worth suggesting for @p bare: close (hnp_suggest.h)
 * with at most half its letters changed, since option names are short
 * ("--rep" is not "--np"), or begun by it ("--bind" for --bind-to).
 * Measures it into *s. */
static bool option_close(hnp_suggest_t *search, const char *bare,
                         const char *name, hnp_suggest_score_t *s)
{
    bool close = hnp_suggest_measure(search, name, s) &&
                 (2 * s->distance <= strlen(bare) || s->run >= 5);

    return close || (s->name == name && strlen(bare) >= 3 &&
                     strncmp(name, bare, strlen(bare)) == 0);
}

/* Up to HNP_SUGGEST_MAX options close to @p bare (no dashes), in @p out;
 * an option is as close as its closest spelling. */
static void suggest_options(const char *bare, const char **out)
{
    hnp_suggest_t search;

    hnp_suggest_init(&search, bare);
    for (size_t o = 0; o < NOPTIONS; o++) {
        const char *shown = suggested_name(&options[o]);
        hnp_suggest_score_t best, s;
        bool near = false;
        for (int n = 0; shown != NULL && n < OPT_NAMES &&
                        options[o].names[n] != NULL; n++) {
            const char *name = options[o].names[n] + 2;
            s.name = NULL;
            if (options[o].names[n][1] != '-' ||
                !option_close(&search, bare, name, &s))
                continue;
            if (!near || hnp_suggest_ranks_before(&s, &best))
                best = s;
            near = true;
        }
        if (near) {
            best.name = shown;
            hnp_suggest_keep(&search, &best);
        }
    }
    hnp_suggest_result(&search, out);
    hnp_suggest_fini(&search);
}

int hnp_option_unknown(const char *opt, char *err, size_t errlen)
{
    char buf[256], hint[256] = "";
    const char *name = two_dash_form(opt, buf, sizeof(buf));
    const char *close[HNP_SUGGEST_MAX + 1] = { NULL };

    for (size_t i = 0; i < sizeof(not_supported) / sizeof(*not_supported);
         i++)
        if (strcmp(name, not_supported[i].name) == 0) {
            hnp_err_set(err, errlen, "option %s of Open MPI's mpirun is not "
                        "supported: %s (see hnp(1), OPEN MPI'S OPTIONS)", opt,
                        not_supported[i].why);
            return HNP_ERR_BAD_PARAM;
        }
    /* One letter is too little to guess from. */
    if (name[0] == '-' && name[1] == '-' && strlen(name) > 3)
        suggest_options(name + 2, close);
    for (size_t i = 0, at = 0; close[i] != NULL; i++) {
        const char *sep = i == 0 ? "did you mean " :
                          close[i + 1] == NULL ? " or " : ", ";
        at += (size_t)snprintf(hint + at, sizeof(hint) - at, "%s%s%s", sep,
                               close[i], close[i + 1] == NULL ? "? " : "");
        if (at >= sizeof(hint))
            break;
    }
    hnp_err_set(err, errlen, "unknown option %s (%ssee hnp --help)", opt,
                hint);
    return HNP_ERR_BAD_PARAM;
}
