/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calibrated launch model (plm_prsh_model=auto): per remote-shell
 * agent, a running estimate of paper 001's SEQ and REM, kept in the user's
 * ~/.hnp/launch-model so that the next greedy tree is built for what the
 * agent really costs here.
 *
 * The file is text, one line per agent, written only by hnp:
 *
 *     agent<TAB>seq<TAB>rem<TAB>samples
 *
 * (seconds; samples counts the runs folded in). Empty lines and lines
 * starting with '#' are skipped. A file that does not parse is rejected
 * whole: callers ignore it with a warning, since a guess is never worth
 * failing a job for.
 */
#ifndef HNP_LAUNCH_MODEL_H
#define HNP_LAUNCH_MODEL_H

#include <stddef.h>

/* How much one run moves the estimate: enough to follow a changed cluster
 * within a few runs, little enough that one run on a loaded machine does
 * not throw the tree off. */
#define HNP_LAUNCH_MODEL_WEIGHT 0.3

typedef struct hnp_launch_model_entry {
    char *agent;             /**< the agent command line, owned */
    double seq;              /**< seconds */
    double rem;              /**< seconds */
    unsigned long samples;   /**< runs folded into the estimate */
} hnp_launch_model_entry_t;

typedef struct hnp_launch_model {
    hnp_launch_model_entry_t *entries; /**< owned */
    size_t n;
} hnp_launch_model_t;

/** `$HOME/.hnp/launch-model` into @p buf. HNP_ERR_NOT_FOUND without HOME. */
int hnp_launch_model_path(char *buf, size_t len, char *err, size_t errlen);

/** Parse @p text (NUL-terminated) into @p m, which must be empty. On
 *  HNP_ERR_BAD_PARAM @p err names the line and @p m stays empty. */
int hnp_launch_model_parse(hnp_launch_model_t *m, const char *text,
                           char *err, size_t errlen);

/** Read and parse @p path into the empty @p m. A missing file is
 *  HNP_ERR_NOT_FOUND, an unreadable one HNP_ERR_IO, a malformed one
 *  HNP_ERR_BAD_PARAM; @p m then stays empty. */
int hnp_launch_model_load(hnp_launch_model_t *m, const char *path,
                          char *err, size_t errlen);

/** The estimate for @p agent, or NULL. */
const hnp_launch_model_entry_t *
hnp_launch_model_find(const hnp_launch_model_t *m, const char *agent);

/**
 * Fold one measurement into @p agent's estimate: taken as is for a new
 * agent, else weighted by HNP_LAUNCH_MODEL_WEIGHT against the old one.
 * HNP_ERR_BAD_PARAM for an agent containing a tab or newline, or values
 * that are not finite and >= 0; @p m is then unchanged.
 */
int hnp_launch_model_update(hnp_launch_model_t *m, const char *agent,
                            double seq, double rem);

/** Write @p m to @p path atomically (a temporary file in the same
 *  directory, then rename), creating the directory (mode 0700). */
int hnp_launch_model_save(const hnp_launch_model_t *m, const char *path,
                          char *err, size_t errlen);

void hnp_launch_model_free(hnp_launch_model_t *m);

/**
 * SEQ and REM from the delays (seconds after the launching process started
 * its first agent) at which @p n >= 2 of its children joined. The model
 * puts the i-th to join at (i - 1)·SEQ + REM: SEQ is the median gap
 * between successive joins, REM the median of delay_i - (i - 1)·SEQ;
 * medians, so that one straggler on a loaded machine does not count.
 * @p delays is not modified. HNP_ERR_BAD_PARAM for n < 2.
 */
int hnp_launch_model_fit(const double *delays, size_t n, double *seq,
                         double *rem);

#endif /* HNP_LAUNCH_MODEL_H */
