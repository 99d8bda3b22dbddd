/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Before launch: a program that cannot find its peers without an
 * interface no active pmi component serves would run as N singletons and
 * exit 0. The one such case told for sure from the program itself is a
 * program linked with libpmix or with Open MPI's libmpi.so.40 (which needs
 * PMIx) when no component serves PMIx: refused, naming it. What cannot be
 * read (a script, python) is not refused.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "prelaunch.h"
#include "procs/elfneeds.h"
#include "procs/forkexec.h"

typedef struct pmix_need {
    char lib[256];  /* the library that needs PMIx, once found */
    bool open_mpi;  /* it is Open MPI's libmpi */
} pmix_need_t;

static bool needs_pmix(void *ctx, const char *lib)
{
    pmix_need_t *need = ctx;

    need->open_mpi = strncmp(lib, "libmpi.so.40", 12) == 0 &&
                     (lib[12] == '\0' || lib[12] == '.');
    if (!need->open_mpi && strncmp(lib, "libpmix.so", 10) != 0)
        return false;
    snprintf(need->lib, sizeof(need->lib), "%s", lib);
    return true;
}

bool hnp_program_needs_pmix(const char *prog, char *lib, size_t liblen,
                            bool *open_mpi)
{
    char *path = hnp_program_path(prog);
    pmix_need_t need = { .lib = "" };

    if (path != NULL)
        (void)hnp_elf_needed_each(path, needs_pmix, &need);
    free(path);
    snprintf(lib, liblen, "%s", need.lib);
    *open_mpi = need.open_mpi;
    return need.lib[0] != '\0';
}

int hnp_prelaunch_check(const hnp_args_t *args, const hnp_pmi_active_t *pmi,
                        char *err, size_t errlen)
{
    if (hnp_pmi_base_serves(pmi) & HNP_PMI_SERVES_PMIX)
        return HNP_SUCCESS;
    for (size_t a = 0; a < args->napps; a++) {
        const char *prog = args->apps[a].argv != NULL
                               ? args->apps[a].argv[0] : NULL;
        char lib[256];
        bool open_mpi;

        if (prog == NULL || !hnp_program_needs_pmix(prog, lib, sizeof(lib), &open_mpi))
            continue;
        hnp_err_set(err, errlen, "%s %s (it links %s%s); this hnp has no "
                    "pmix component (hnp builds one where `pkg-config pmix` "
                    "finds libpmix, e.g. Debian's libpmix-dev; where it is "
                    "built, `--mca pmi` must not leave it out: see "
                    "`hnp-info`)", prog,
                    open_mpi ? "is an Open MPI program" : "is a PMIx program",
                    lib, open_mpi ? ", which needs PMIx" : "");
        return HNP_ERR_NOT_AVAILABLE;
    }
    return HNP_SUCCESS;
}
