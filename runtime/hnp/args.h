/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line of hnp, in the style of mpirun. */
#ifndef HNP_ARGS_H
#define HNP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hosts/jobmap.h"
#include "mapping.h"
#include "wire/stdin.h"

/* One app context: `-n 2 ./a` of `hnp -n 2 ./a : -n 6 ./b`. Its -n,
 * --wdir and -x are its own, as in Open MPI's mpirun: options after a ':'
 * belong to that context only. */
typedef struct hnp_app {
    uint32_t np;        /* -n; 0: not given */
    char **argv;        /* the program and its arguments; into argv */
    int argc;
    char *wdir;         /* --wdir, made absolute against hnp's working
                           directory; owned; NULL: hnp's */
    char **env;         /* -x, as "NAME=value"; owned */
    size_t nenv;
    char *hosts;        /* its --host; into argv; NULL: none of its own */
    char *hostfile;     /* its --hostfile; into argv */
    uint32_t first_rank;
    uint32_t pmi_uses;  /* HNP_PMI_SERVES_* its program can use (prelaunch) */
} hnp_app_t;

/* HNP_STDIN_NONE, HNP_STDIN_ALL: wire/stdin.h */
/* --plan[=text|csv|dot]: print the launch plan instead of launching. */
typedef enum hnp_plan_format {
    HNP_PLAN_NONE, HNP_PLAN_TEXT, HNP_PLAN_CSV, HNP_PLAN_DOT,
} hnp_plan_format_t;

typedef struct hnp_args {
    uint32_t npernode;      /* -N, -npernode */
    hnp_map_policy_t map_by;
    bool oversubscribe;
    bool timing;
    bool tag_output;
    bool prepend_rank;      /* Hydra's -l: "[rank] " before each line */
    bool timestamp_output;  /* --timestamp-output */
    bool merge_stderr;      /* --merge-stderr-to-stdout */
    bool report_state_on_timeout; /* --report-state-on-timeout */
    bool get_stack_traces;  /* --get-stack-traces */
    hnp_mapping_t mapping;  /* --map-by, --bind-to, ...: mapping.h */
    int64_t stdin_target;   /* a rank, HNP_STDIN_NONE or HNP_STDIN_ALL */
    double timeout;         /* --timeout; 0: none */
    char *hosts;            /* the first --host given; into argv (each
                               context's own: hnp_app_t) */
    char *hostfile;         /* the first --hostfile given */
    char *default_hostfile; /* --default-hostfile: when no host is named */
    char *appfile;          /* --app */
    char *prefix;
    char *output_dir;       /* --output-filename */
    hnp_app_t *apps;        /* owned; their argv points into argv */
    size_t napps;
    bool help;
    bool version;
    bool verbose;           /* -v: hnp's own progress messages */
    bool quiet;             /* -q: not even its informational ones */
    char **genv;            /* -genv, as "NAME=value"; owned: every app
                               context's unless it sets NAME itself */
    size_t ngenv;
    bool genvall;           /* -genvall: all of hnp's environment too */
    char ***appfile_lines;  /* owned: the words of --app's lines, which
                               the app contexts' argv point into */
    size_t nappfile_lines;
    hnp_plan_format_t plan; /* --plan; HNP_PLAN_NONE: launch */
    /* A persistent runtime (dvm.h) */
    bool dvm;               /* --dvm: serve jobs, run none of its own */
    char *report_uri;       /* --report-uri FILE; into argv */
    bool daemonize;         /* --daemonize */
    char *dvm_uri;          /* --dvm-uri FILE: submit into that DVM */
    bool dvm_jobs;          /* --dvm-jobs */
    bool dvm_stop;          /* --dvm-stop */
    bool dvm_nowait;        /* --dvm-nowait (--dvm-wait: the default) */
} hnp_args_t;

struct hnp_setup_option;

/** Parse argv (after --mca/--tune were taken out). Errors name the option. */
int hnp_args_parse(hnp_args_t *args, int argc, char **argv, char *err,
                   size_t errlen);
void hnp_args_free(hnp_args_t *args);
/** Give every app context each of @p env ("NAME=value") whose NAME it does
 *  not set itself (-x, -env, -genv, -genvall). */
int hnp_args_add_default_env(hnp_args_t *args, char *const *env,
                             size_t nenv);
/** Processes over all app contexts (0 when the only one gave no -n). */
uint32_t hnp_args_total_np(const hnp_args_t *args);
/** The app context that rank @p rank belongs to. */
const hnp_app_t *hnp_args_app_of(const hnp_args_t *args, uint32_t rank);
void hnp_args_usage(FILE *out);
/** The options that take values, each as it may be typed, for the scan
 *  that takes --mca out of argv (core/startup.h); malloc'd, NULL-ended. */
struct hnp_setup_option *hnp_args_setup_options(void);

#endif /* HNP_ARGS_H */
