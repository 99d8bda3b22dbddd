/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's check of a program before launch (runtime/hnp/prelaunch.c, on
 * runtime/procs/elfneeds.c): an Open MPI program (built here with
 * mpicc.openmpi, when it is installed) needs PMIx and is refused by an hnp
 * whose pmi components do not serve it, naming the program and the
 * library; /bin/true, a script and a missing file are never refused.
 * Which interfaces a program can use: its MPI's for an MPI program; PMI-1/2
 * alone for one that links only the C runtime and can neither run another
 * program nor load a library (it may speak that protocol itself, never
 * PMIx); all for anything that cannot be told.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "procs/elfneeds.h"
#include "hnp/prelaunch.h"

static bool collect(void *ctx, const char *lib)
{
    char *all = ctx;

    strcat(all, lib);
    strcat(all, " ");
    return false;
}

static void test_needed_of_true(void **state)
{
    char all[1024] = "";

    (void)state;
    assert_int_equal(hnp_elf_needed_each("/bin/true", collect, all),
                     HNP_SUCCESS);
    assert_non_null(strstr(all, "libc.so.6 "));
    assert_int_equal(hnp_elf_needed_each("/nonexistent/x", collect, all),
                     HNP_ERR_NOT_FOUND);
    /* a text file: not ELF */
    assert_int_equal(hnp_elf_needed_each("/etc/passwd", collect, all),
                     HNP_ERR_BAD_PARAM);
    assert_int_equal(hnp_elf_needed_each("/etc", collect, all),
                     HNP_ERR_BAD_PARAM);
}

static int check(const char *prog, const hnp_pmi_active_t *pmi, char *err,
                 size_t errlen)
{
    char *argv[] = { (char *)prog, NULL };
    hnp_app_t app = { .argv = argv, .argc = 1 };
    hnp_args_t args = { .apps = &app, .napps = 1 };

    err[0] = '\0';
    return hnp_prelaunch_check(&args, pmi, err, errlen);
}

static const hnp_pmi_module_t simple = { .serves = HNP_PMI_SERVES_PMI1 |
                                                   HNP_PMI_SERVES_PMI2 };
static const hnp_pmi_module_t pmix = { .serves = HNP_PMI_SERVES_PMIX };

static const hnp_pmi_module_t observer = {
    .serves = 0, .needs = HNP_PMI_NEEDS_EVERY_JOB,
};

/* The components a job's daemons load: those that serve what its programs
 * can use, and an observer for every job, even one no component serves. */
static void test_job_names_observer(void **state)
{
    hnp_pmi_active_t active = { 3, { "pmix", "simple", "trace" },
                                { &pmix, &simple, &observer } };
    hnp_app_t app = { .pmi_uses = HNP_PMI_SERVES_PMI1 };
    hnp_args_t args = { .apps = &app, .napps = 1 };
    char names[64];

    (void)state;
    hnp_prelaunch_pmi_names(&args, &active, names, sizeof(names));
    assert_string_equal(names, "simple,trace");
    app.pmi_uses = HNP_PMI_SERVES_PMIX;
    hnp_prelaunch_pmi_names(&args, &active, names, sizeof(names));
    assert_string_equal(names, "pmix,trace");
    app.pmi_uses = 0;
    hnp_prelaunch_pmi_names(&args, &active, names, sizeof(names));
    assert_string_equal(names, "trace");
}

static void test_not_refused(void **state)
{
    hnp_pmi_active_t none = { 0 };
    char err[512];
    bool open_mpi;
    char lib[64];

    (void)state;
    assert_false(hnp_program_needs_pmix("true", lib, sizeof(lib), &open_mpi));
    assert_int_equal(check("true", &none, err, sizeof(err)), HNP_SUCCESS);
    assert_int_equal(check("/bin/true", &none, err, sizeof(err)),
                     HNP_SUCCESS);
    assert_int_equal(check("no-such-program-anywhere", &none, err,
                           sizeof(err)), HNP_SUCCESS);
}

static void test_open_mpi_program(void **state)
{
    hnp_pmi_active_t with_simple = { 1, { "simple" }, { &simple } };
    hnp_pmi_active_t with_pmix = { 2, { "pmix", "simple" },
                                   { &pmix, &simple } };
    char dir[] = "/tmp/hnp-prelaunch-XXXXXX", src[128], prog[128];
    char cmd[512], err[512], lib[64];
    bool open_mpi = false;
    FILE *f;

    (void)state;
    if (system("command -v mpicc.openmpi >/dev/null 2>&1") != 0)
        skip();
    assert_non_null(mkdtemp(dir));
    snprintf(src, sizeof(src), "%s/ring.c", dir);
    snprintf(prog, sizeof(prog), "%s/ring", dir);
    assert_non_null(f = fopen(src, "w"));
    fputs("#include <mpi.h>\nint main(int c, char **v)\n"
          "{ MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "mpicc.openmpi -o %s %s", prog, src);
    assert_int_equal(system(cmd), 0);

    assert_true(hnp_program_needs_pmix(prog, lib, sizeof(lib), &open_mpi));
    assert_true(open_mpi);
    assert_string_equal(lib, "libmpi.so.40");
    assert_int_equal(check(prog, &with_simple, err, sizeof(err)),
                     HNP_ERR_NOT_AVAILABLE);
    assert_non_null(strstr(err, prog));
    assert_non_null(strstr(err, "is an Open MPI program (it links "
                                "libmpi.so.40, which needs PMIx); this hnp "
                                "has no pmix component"));
    assert_int_equal(check(prog, &with_pmix, err, sizeof(err)), HNP_SUCCESS);

    unlink(prog);
    unlink(src);
    rmdir(dir);
}

#define PMI (HNP_PMI_SERVES_PMI1 | HNP_PMI_SERVES_PMI2)
#define ANY (PMI | HNP_PMI_SERVES_PMIX)

/* Build @p body into DIR/NAME with @p cc; false when @p cc is missing. */
static bool build(const char *dir, const char *name, const char *cc,
                  const char *flags, const char *body, char *prog,
                  size_t len)
{
    char src[256], cmd[1024];
    FILE *f;

    snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", cc);
    if (system(cmd) != 0)
        return false;
    snprintf(src, sizeof(src), "%s/%s.c", dir, name);
    snprintf(prog, len, "%s/%s", dir, name);
    assert_non_null(f = fopen(src, "w"));
    fputs(body, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s %s -o %s %s", cc, flags, prog, src);
    assert_int_equal(system(cmd), 0);
    unlink(src);
    return true;
}

static void test_uses(void **state)
{
    char dir[] = "/tmp/hnp-uses-XXXXXX", prog[256], script[256];
    const char *mpi = "#include <mpi.h>\nint main(int c, char **v)\n"
                      "{ MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n";
    FILE *f;

    (void)state;
    /* a checker's own preload (valgrind's, a sanitizer's) is not the
     * user's */
    unsetenv("LD_PRELOAD");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(hnp_program_pmi_uses("/bin/true"), PMI);
    assert_int_equal(hnp_program_pmi_uses("true"), PMI);
    /* a shell runs programs (sh -c ./ring) */
    assert_int_equal(hnp_program_pmi_uses("/bin/sh"), ANY);
    assert_int_equal(hnp_program_pmi_uses("no-such-program-anywhere"), ANY);
    if (access("/usr/bin/python3", X_OK) == 0)
        assert_int_equal(hnp_program_pmi_uses("/usr/bin/python3"), ANY);
    assert_true(build(dir, "plain", "cc", "", "#include <stdio.h>\n"
                      "int main(void) { puts(\"x\"); return 0; }\n", prog,
                      sizeof(prog)));
    assert_int_equal(hnp_program_pmi_uses(prog), PMI);
    setenv("LD_PRELOAD", "libsomething.so", 1);
    assert_int_equal(hnp_program_pmi_uses(prog), ANY);
    unsetenv("LD_PRELOAD");
    unlink(prog);
    assert_true(build(dir, "runs", "cc", "", "#include <unistd.h>\n"
                      "int main(int c, char **v) { (void)c; "
                      "execvp(v[1], v + 1); return 1; }\n", prog,
                      sizeof(prog)));
    assert_int_equal(hnp_program_pmi_uses(prog), ANY);
    unlink(prog);
    /* python with mpi4py loads Open MPI's libmpi this way */
    assert_true(build(dir, "loads", "cc", "", "#include <dlfcn.h>\n"
                      "int main(int c, char **v) { (void)c; "
                      "return dlopen(v[1], RTLD_NOW) == 0; }\n", prog,
                      sizeof(prog)));
    assert_int_equal(hnp_program_pmi_uses(prog), ANY);
    unlink(prog);
    snprintf(script, sizeof(script), "%s/script", dir);
    assert_non_null(f = fopen(script, "w"));
    fputs("#!/bin/true\n", f);
    fclose(f);
    chmod(script, 0755);
    assert_int_equal(hnp_program_pmi_uses(script), ANY);
    unlink(script);
    if (build(dir, "ompi", "mpicc.openmpi", "", mpi, prog, sizeof(prog))) {
        assert_int_equal(hnp_program_pmi_uses(prog), HNP_PMI_SERVES_PMIX);
        unlink(prog);
    }
    if (build(dir, "mpich", "mpicc.mpich", "", mpi, prog, sizeof(prog))) {
        assert_int_equal(hnp_program_pmi_uses(prog), PMI);
        unlink(prog);
    }
    rmdir(dir);
}

/* Whether a job's programs may take part in MPI's all-gathers: a DVM
 * runs one such job at a time, the others beside it. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_needed_of_true),
        cmocka_unit_test(test_not_refused),
        cmocka_unit_test(test_job_names_observer),
        cmocka_unit_test(test_open_mpi_program),
        cmocka_unit_test(test_uses),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
