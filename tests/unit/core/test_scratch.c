/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scratch directories of the runtime services (hnp_rte.h,
 * runtime/core/scratch.c) on a real runtime context, under a TMPDIR of
 * the test's: made 0700 under one private root a kind, told to the guard
 * (the daemon's sentinel) once a root, removed one by one or all at the
 * end; bad names refused, and nothing outside the roots ever removed;
 * the roots of this user's processes that are gone (killed with their
 * guard) removed when a root is made beside them, and no other.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "hnp_errors.h"
#include "rte.h"

typedef struct fixture {
    hnp_setup_t setup;
    hnp_rte_t *rte;
    char tmpdir[64];
    char guarded[4][4096];
    int nguarded;
} fixture_t;

static void guard(void *ctx, unsigned kind, const char *path)
{
    fixture_t *f = ctx;

    /* the kind: 0 in TMPDIR, 1 in memory (else in TMPDIR too) */
    assert_true(kind == 1 ||
                (kind == 0 && strncmp(path, f->tmpdir, strlen(f->tmpdir)) == 0));
    if (f->nguarded < 4)
        snprintf(f->guarded[f->nguarded++], sizeof(f->guarded[0]), "%s", path);
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    char err[256] = "";

    assert_non_null(f);
    snprintf(f->tmpdir, sizeof(f->tmpdir), "/tmp/hnp-scratch-test-XXXXXX");
    assert_non_null(mkdtemp(f->tmpdir));
    setenv("TMPDIR", f->tmpdir, 1);
    assert_int_equal(hnp_rte_create(&f->rte, &f->setup, false, 1, err,
                                    sizeof(err)), HNP_SUCCESS);
    f->rte->scratch_guard = guard;
    f->rte->scratch_guard_ctx = f;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;

    hnp_rte_destroy(f->rte);
    assert_int_equal(rmdir(f->tmpdir), 0); /* empty: everything went */
    free(f);
    return 0;
}

static bool is_private_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
           (st.st_mode & 0777) == 0700 && st.st_uid == geteuid();
}

static void test_made_guarded_removed(void **state)
{
    fixture_t *f = *state;
    char *a = NULL, *b = NULL, *m = NULL, err[256] = "", file[4200];

    assert_int_equal(hnp_rte_scratch_make(f->rte, "job1-x", 0, &a, err,
                                          sizeof(err)), HNP_SUCCESS);
    assert_int_equal(hnp_rte_scratch_make(f->rte, "job1-y", 0, &b, err,
                                          sizeof(err)), HNP_SUCCESS);
    assert_true(is_private_dir(a) && is_private_dir(b));
    assert_true(strncmp(a, f->tmpdir, strlen(f->tmpdir)) == 0);
    /* one root under TMPDIR, told to the guard once */
    assert_int_equal(f->nguarded, 1);
    assert_true(is_private_dir(f->guarded[0]));
    assert_true(strncmp(a, f->guarded[0], strlen(f->guarded[0])) == 0);
    /* the same name twice is refused */
    char *again = NULL;
    assert_int_equal(hnp_rte_scratch_make(f->rte, "job1-x", 0, &again, err,
                                          sizeof(err)), HNP_ERR_IO);
    assert_null(again);
    assert_non_null(strstr(err, "job1-x"));
    /* in memory: another root, guarded too */
    assert_int_equal(hnp_rte_scratch_make(f->rte, "job1-shm",
                                          HNP_RTE_SCRATCH_MEMORY, &m, err,
                                          sizeof(err)), HNP_SUCCESS);
    assert_true(is_private_dir(m));
    assert_int_equal(f->nguarded, 2);
    /* removed with what is in it */
    snprintf(file, sizeof(file), "%s/sub", a);
    assert_int_equal(mkdir(file, 0700), 0);
    snprintf(file, sizeof(file), "%s/sub/f", a);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    hnp_rte_scratch_remove(f->rte, a);
    assert_false(is_private_dir(a));
    assert_true(is_private_dir(b));
    /* the memory root had m alone: it goes with it, and the next one is
     * a new root, guarded again */
    char *m_root = strdup(f->guarded[1]);
    hnp_rte_scratch_remove(f->rte, m);
    assert_false(is_private_dir(m));
    assert_false(is_private_dir(m_root));
    free(m);
    assert_int_equal(hnp_rte_scratch_make(f->rte, "job2-shm",
                                          HNP_RTE_SCRATCH_MEMORY, &m, err,
                                          sizeof(err)), HNP_SUCCESS);
    assert_int_equal(f->nguarded, 3);
    assert_true(is_private_dir(f->guarded[2]));
    assert_string_not_equal(f->guarded[2], m_root);
    free(m_root);
    /* the rest at the end (teardown checks TMPDIR is empty) */
    hnp_rte_scratch_release(f->rte);
    assert_false(is_private_dir(b));
    assert_false(is_private_dir(m));
    assert_false(is_private_dir(f->guarded[0]));
    assert_false(is_private_dir(f->guarded[2]));
    free(a);
    free(b);
    free(m);
}

static void test_names_and_paths_refused(void **state)
{
    fixture_t *f = *state;
    char *p = NULL, err[256] = "", outside[128];
    static const char *const bad[] = { "", ".", "..", "a/b", "/etc" };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(hnp_rte_scratch_make(f->rte, bad[i], 0, &p, err,
                                              sizeof(err)), HNP_ERR_BAD_PARAM);
        assert_null(p);
        assert_true(err[0] != '\0');
    }
    /* no root was made for nothing */
    assert_int_equal(f->nguarded, 0);
    /* a path outside the roots, or a root itself, is never removed */
    snprintf(outside, sizeof(outside), "%s/mine", f->tmpdir);
    assert_int_equal(mkdir(outside, 0700), 0);
    hnp_rte_scratch_remove(f->rte, outside);
    assert_true(is_private_dir(outside));
    assert_int_equal(hnp_rte_scratch_make(f->rte, "job2", 0, &p, err,
                                          sizeof(err)), HNP_SUCCESS);
    hnp_rte_scratch_remove(f->rte, f->guarded[0]);
    assert_true(is_private_dir(f->guarded[0]));
    char sneaky[4200];
    snprintf(sneaky, sizeof(sneaky), "%s/../mine", f->guarded[0]);
    hnp_rte_scratch_remove(f->rte, sneaky);
    assert_true(is_private_dir(outside));
    assert_int_equal(rmdir(outside), 0);
    free(p);
}

/* A pid that no process has now: a child's, reaped. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

/* Under TMPDIR, the directory "hnp-UID-PID-TAIL" (with @p inside, a
 * pmix-store directory and a file in it), its path into @p path. */
static void make_root(const fixture_t *f, unsigned long uid, long pid,
                      const char *tail, bool inside, char *path, size_t len)
{
    char sub[4300];

    snprintf(path, len, "%s/hnp-%lu-%ld-%s", f->tmpdir, uid, pid, tail);
    assert_int_equal(mkdir(path, 0700), 0);
    if (!inside)
        return;
    snprintf(sub, sizeof(sub), "%s/pmix-store", path);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof(sub), "%s/pmix-store/f", path);
    FILE *fp = fopen(sub, "w");
    assert_non_null(fp);
    fclose(fp);
}

/* A daemon killed with its sentinel (Slurm's SIGKILL to a whole step)
 * left its root: the next root made under the same base removes it. Kept:
 * a root whose maker lives, one whose lock is held (a maker in another
 * pid namespace), another user's, and a name that is not a root's. */
static void test_dead_makers_roots_removed(void **state)
{
    fixture_t *f = *state;
    unsigned long uid = (unsigned long)getuid();
    pid_t dead = dead_pid();
    char gone[4096], locked[4096], alive[4096], other[4096], odd[4096];
    char *p = NULL, err[256] = "";

    make_root(f, uid, dead, "aB3dE6", true, gone, sizeof(gone));
    make_root(f, uid, dead, "gH7jK9", false, locked, sizeof(locked));
    make_root(f, uid, getppid(), "mN1pQ2", false, alive, sizeof(alive));
    make_root(f, uid + 1, dead, "sT4vW5", false, other, sizeof(other));
    make_root(f, uid, dead, "short", false, odd, sizeof(odd));
    int held = open(locked, O_RDONLY | O_DIRECTORY);
    assert_true(held >= 0);
    assert_int_equal(flock(held, LOCK_EX), 0);

    assert_int_equal(hnp_rte_scratch_make(f->rte, "job1", 0, &p, err,
                                          sizeof(err)), HNP_SUCCESS);
    assert_false(is_private_dir(gone));
    assert_true(is_private_dir(locked));
    assert_true(is_private_dir(alive));
    assert_true(is_private_dir(other));
    assert_true(is_private_dir(odd));
    /* the new root is locked while it is ours */
    int probe = open(f->guarded[0], O_RDONLY | O_DIRECTORY);
    assert_true(probe >= 0);
    assert_int_not_equal(flock(probe, LOCK_EX | LOCK_NB), 0);
    close(probe);
    close(held);
    hnp_rte_scratch_remove(f->rte, p);
    free(p);
    assert_false(is_private_dir(f->guarded[0]));
    const char *kept[] = { locked, alive, other, odd };
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        assert_int_equal(rmdir(kept[i]), 0);
}

/* Where many processes share a base (a simulated cluster's daemons on one
 * machine), a process looks at a share of the roots there, not at every
 * one: of 300 dead makers' roots, some go and some stay for the next. */
static void test_crowded_base_swept_in_part(void **state)
{
    fixture_t *f = *state;
    unsigned long uid = (unsigned long)getuid();
    pid_t dead = dead_pid();
    char roots[300][4096], tail[8];
    char *p = NULL, err[256] = "";
    struct stat st;
    size_t gone = 0;

    for (size_t i = 0; i < 300; i++) {
        snprintf(tail, sizeof(tail), "x%05zu", i);
        make_root(f, uid, dead, tail, false, roots[i], sizeof(roots[i]));
    }
    assert_int_equal(stat(f->tmpdir, &st), 0);
    assert_int_equal(hnp_rte_scratch_make(f->rte, "job1", 0, &p, err,
                                          sizeof(err)), HNP_SUCCESS);
    for (size_t i = 0; i < 300; i++)
        gone += !is_private_dir(roots[i]);
    assert_true(gone > 0);
    /* a file system that does not count a directory's subdirectories
     * (its link count stays 1) has every root looked at */
    if (st.st_nlink > 2)
        assert_true(gone < 300);
    else
        assert_int_equal(gone, 300);
    for (size_t i = 0; i < 300; i++)
        rmdir(roots[i]);
    hnp_rte_scratch_remove(f->rte, p);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_made_guarded_removed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_names_and_paths_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dead_makers_roots_removed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_crowded_base_swept_in_part,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
