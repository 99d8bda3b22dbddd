/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD: getuid() and friends answer FAKE_UID and FAKE_GID, as a
 * process that lies about who it is would (pmix-strangers.sh). What the
 * kernel knows of the process is unchanged. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static unsigned fake(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? (unsigned)strtoul(v, NULL, 10) : 0;
}

uid_t getuid(void) { return (uid_t)fake("FAKE_UID"); }
uid_t geteuid(void) { return (uid_t)fake("FAKE_UID"); }
gid_t getgid(void) { return (gid_t)fake("FAKE_GID"); }
gid_t getegid(void) { return (gid_t)fake("FAKE_GID"); }
