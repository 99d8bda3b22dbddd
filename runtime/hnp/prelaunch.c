/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Before launch, from each app's program:
 *
 *  - Which pmi interfaces it can use, so that a daemon sets up only the
 *    components that can serve it: a PMIx server costs a node some 2 ms
 *    of CPU even with the topology handed over, more than a whole
 *    /bin/true rank. A program linked with an MPI uses the interface of
 *    that MPI (Open MPI's libmpi or libpmix: PMIx; MPICH's libmpich:
 *    PMI-1/2). A program that links nothing but the C and C++ runtime,
 *    and imports no way to run another program or load a library, cannot
 *    use PMIx, whose protocol libpmix alone speaks; it may speak the
 *    PMI-1/2 wire protocol itself (a few lines of text on an inherited
 *    socket), whose server costs little. Anything else can use every interface: a script, a static
 *    program, python (mpi4py loads Open MPI's libmpi with dlopen), a shell
 *    (sh -c ./ring), a program linking another library (which may link an
 *    MPI), any program when LD_PRELOAD is set.
 *  - A program that cannot find its peers without an interface no active
 *    pmi component serves would run as N singletons and exit 0. The one
 *    such case told for sure is a program linked with libpmix or with
 *    Open MPI's libmpi.so.40 (which needs PMIx) when no component serves
 *    PMIx: refused, naming it. What cannot be read is not refused.
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

#define PMI_ANY (HNP_PMI_SERVES_PMI1 | HNP_PMI_SERVES_PMI2 | HNP_PMI_SERVES_PMIX)

typedef struct pmi_uses {
    uint32_t mask;
    bool any;   /* a library that may load or be anything */
} pmi_uses_t;

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool classify_lib(void *ctx, const char *lib)
{
    /* The C and C++ runtime: neither an MPI nor a loader of one. */
    static const char *const plain[] = {
        "libc.so.", "libm.so.", "libpthread.so.", "libdl.so.", "librt.so.",
        "libgcc_s.so.", "libstdc++.so.", "ld-linux", NULL,
    };
    static const char *const pmix[] = {
        "libpmix.so", "libmpi.so.40", "libmpi_", "libopen-pal.so",
        "libopen-rte.so", NULL,
    };
    static const char *const pmi[] = {
        "libmpich", "libmpi.so.12", "libmpicxx.so.12", "libmpifort.so.12",
        NULL,
    };
    pmi_uses_t *uses = ctx;

    for (size_t i = 0; plain[i] != NULL; i++)
        if (has_prefix(lib, plain[i]))
            return false;
    for (size_t i = 0; pmix[i] != NULL; i++)
        if (has_prefix(lib, pmix[i])) {
            uses->mask |= HNP_PMI_SERVES_PMIX;
            return false;
        }
    for (size_t i = 0; pmi[i] != NULL; i++)
        if (has_prefix(lib, pmi[i])) {
            uses->mask |= HNP_PMI_SERVES_PMI1 | HNP_PMI_SERVES_PMI2;
            return false;
        }
    uses->any = true;
    return true;
}

/* A function through which a program runs another or loads a library. */
static bool runs_others(void *ctx, const char *sym)
{
    static const char *const calls[] = {
        "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
        "fexecve", "execveat", "posix_spawn", "posix_spawnp", "system",
        "popen", "dlopen", "dlmopen", NULL,
    };

    for (size_t i = 0; calls[i] != NULL; i++)
        if (strcmp(sym, calls[i]) == 0) {
            *(bool *)ctx = true;
            return true;
        }
    return false;
}

static char *app_program(const hnp_app_t *app);

/* The interfaces @p prog's libraries serve (0: only the C runtime's);
 * PMI_ANY when that cannot be told or it runs or loads other programs. */
static uint32_t linked_pmi(const char *prog)
{
    const char *preload = getenv("LD_PRELOAD");
    char *path;
    pmi_uses_t uses = { 0, false };
    bool runs = false;

    if (prog == NULL || (preload != NULL && preload[0] != '\0') ||
        (path = hnp_program_path(prog)) == NULL)
        return PMI_ANY;
    if (hnp_elf_needed_each(path, classify_lib, &uses) != HNP_SUCCESS ||
        uses.any ||
        hnp_elf_imports_each(path, runs_others, &runs) != HNP_SUCCESS || runs)
        uses.mask = PMI_ANY;
    free(path);
    return uses.mask;
}

uint32_t hnp_program_pmi_uses(const char *prog)
{
    uint32_t mask = linked_pmi(prog);

    /* by itself, it can speak PMI-1/2 */
    return mask != 0 ? mask : HNP_PMI_SERVES_PMI1 | HNP_PMI_SERVES_PMI2;
}

/* The file the daemons will run for @p app, as they look for it: a bare
 * name in PATH, then in the context's working directory (malloc'd); else
 * its name as given (malloc'd), or NULL without a program. */
static char *app_program(const hnp_app_t *app)
{
    const char *prog = app->argv != NULL ? app->argv[0] : NULL;
    char *path;

    if (prog == NULL)
        return NULL;
    if (strchr(prog, '/') == NULL && !hnp_program_exists(prog) &&
        asprintf(&path, "%s/%s", app->wdir != NULL ? app->wdir : ".",
                 prog) >= 0) {
        if (hnp_program_exists(path))
            return path;
        free(path);
    }
    return strdup(prog);
}

int hnp_prelaunch_check(hnp_args_t *args, const hnp_pmi_active_t *pmi,
                        char *err, size_t errlen)
{
    for (size_t a = 0; a < args->napps; a++) {
        char *prog = app_program(&args->apps[a]);
        args->apps[a].pmi_uses = hnp_program_pmi_uses(prog);
        free(prog);
    }
    if (hnp_pmi_base_serves(pmi) & HNP_PMI_SERVES_PMIX)
        return HNP_SUCCESS;
    for (size_t a = 0; a < args->napps; a++) {
        const char *prog = args->apps[a].argv != NULL
                               ? args->apps[a].argv[0] : NULL;
        char *file = app_program(&args->apps[a]);
        char lib[256];
        bool open_mpi;
        bool needs = file != NULL &&
                     hnp_program_needs_pmix(file, lib, sizeof(lib), &open_mpi);

        free(file);
        if (!needs)
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

/* Whether the job of @p args starts component @p m. */
static bool job_starts(const hnp_args_t *args, const hnp_pmi_module_t *m)
{
    uint32_t uses = 0;

    for (size_t a = 0; a < args->napps; a++)
        uses |= args->apps[a].pmi_uses;
    return (m->serves & uses) != 0 || (m->needs & HNP_PMI_NEEDS_EVERY_JOB);
}

uint32_t hnp_prelaunch_pmi_needs(const hnp_args_t *args,
                                 const hnp_pmi_active_t *pmi)
{
    uint32_t needs = 0;

    for (size_t i = 0; i < pmi->count; i++)
        if (job_starts(args, pmi->modules[i]))
            needs |= pmi->modules[i]->needs;
    return needs;
}

const char *hnp_prelaunch_pmi_needing(const hnp_args_t *args,
                                      const hnp_pmi_active_t *pmi,
                                      uint32_t flag)
{
    for (size_t i = 0; i < pmi->count; i++)
        if (job_starts(args, pmi->modules[i]) &&
            (pmi->modules[i]->needs & flag) != 0)
            return pmi->names[i];
    return NULL;
}

void hnp_prelaunch_pmi_names(const hnp_args_t *args,
                             const hnp_pmi_active_t *pmi, char *buf,
                             size_t len)
{
    size_t at = 0;

    if (len > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < pmi->count && at < len; i++) {
        if (!job_starts(args, pmi->modules[i]))
            continue;
        int n = snprintf(buf + at, len - at, "%s%s", at > 0 ? "," : "",
                         pmi->names[i]);
        at += n > 0 ? (size_t)n : 0;
    }
}
