/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's options, one table: every spelling, how many words follow, which
 * option it is. The parser (args.c) reads it, and so do the scan that
 * takes --mca out of argv first (main.c) and the suggestion for an
 * unknown option. Private to hnp.
 *
 * As Open MPI 4.1's mpirun does, a long option may be written with one
 * dash or two (-npernode, --npernode): names are looked up in their
 * two-dash form. Options of one letter have one dash only.
 *
 * MPICH's mpiexec (Hydra) spellings are taken where they mean the same
 * and clash with nothing of mpirun's: -ppn, -f, -hosts, -genv, -genvall,
 * -env, -l, -prepend-rank, -iface, -launcher, -launcher-exec (hnp(1)
 * lists those left out, and why).
 */
#ifndef HNP_OPTIONS_H
#define HNP_OPTIONS_H

#include <stddef.h>

typedef enum hnp_option_id {
    /* of the app context they are given in */
    OPT_NP, OPT_ENV, OPT_ENV_PAIR, OPT_WDIR,
    /* of the job */
    OPT_NPERNODE, OPT_HOST, OPT_HOSTFILE, OPT_DEFAULT_HOSTFILE, OPT_PREFIX,
    OPT_OUTPUT_FILENAME, OPT_STDIN, OPT_TIMEOUT, OPT_APP, OPT_GENV,
    OPT_MAPPING,        /* valued, mapping.h's */
    OPT_MAPPING_FLAG,   /* flag, mapping.h's */
    OPT_OVERSUBSCRIBE, OPT_NOOVERSUBSCRIBE, OPT_TIMING, OPT_TAG_OUTPUT,
    OPT_PLAN, OPT_HELP, OPT_VERSION, OPT_VERBOSE, OPT_QUIET,
    OPT_ALLOW_ROOT, OPT_GENVALL,
    OPT_TIMESTAMP_OUTPUT, OPT_MERGE_STDERR, OPT_REPORT_STATE_ON_TIMEOUT,
    OPT_GET_STACK_TRACES, OPT_PREPEND_RANK, OPT_BYNODE, OPT_BYSLOT,
    OPT_LAUNCH_AGENT,
    OPT_DVM, OPT_REPORT_URI, OPT_DAEMONIZE, OPT_DVM_URI, OPT_DVM_JOBS,
    OPT_DVM_STOP, OPT_DVM_WAIT, OPT_DVM_NOWAIT,
    OPT_SETUP,          /* --mca, --tune, and the options that set
                           parameters (-iface): taken out before, unless
                           misplaced */
} hnp_option_id_t;

#define OPT_NAMES 4

/* One option: its spellings (the first is the one messages use), in their
 * two-dash form but for one-letter ones, and the words that follow it. */
typedef struct hnp_option {
    hnp_option_id_t id;
    int nvalues;
    const char *names[OPT_NAMES];
} hnp_option_t;

/** The option @p arg is a spelling of, or NULL. */
const hnp_option_t *hnp_option_find(const char *arg);
/** The error for an option that is none of hnp's: why, for an Open MPI
 *  option hnp does not support; else the options it is close to. */
int hnp_option_unknown(const char *opt, char *err, size_t errlen);

#endif /* HNP_OPTIONS_H */
