/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job secret in a file, for a daemon whose command gives it no stdin
 * (HNP_PLM_SECRET_FILE): a private directory of the launching process and
 * one file a daemon in it, whose path the daemon is given (hnpd
 * --secret-file: it reads the file and removes it). Private to the daemon
 * launcher.
 */
#ifndef HNP_LAUNCH_SECRET_H
#define HNP_LAUNCH_SECRET_H

#include <stddef.h>

#include "hnp_errors.h"

/** Make a directory of mode 0700 under @p base ($TMPDIR or /tmp when NULL
 *  or empty); *@p dir is malloc'd. */
int launch_secret_dir_create(const char *base, char **dir, char *err,
                             size_t errlen);

/** Write @p line to the new file @p path, mode 0600, refusing a file or a
 *  symbolic link that is there already; nothing is left behind on error. */
int launch_secret_write(const char *path, const char *line, char *err,
                        size_t errlen);

#endif /* HNP_LAUNCH_SECRET_H */
