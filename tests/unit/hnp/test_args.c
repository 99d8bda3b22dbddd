/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's command line (runtime/hnp/args.c, mapping.c, appfile.c): Open
 * MPI's spellings and MPICH's where they clash with nothing, what each
 * sets, the appfile, and the errors: a bad value names the option and
 * what it expects; an unknown option gets the options it is close to.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hnp_errors.h"
#include "core/startup.h"
#include "hnp/appfile.h"
#include "hnp/args.h"

#define MAX_WORDS 32

/* A command line as one string, split at blanks (no quoting). */
typedef struct line {
    char text[1024];
    char *argv[MAX_WORDS + 1];
    int argc;
} line_t;

static void split(line_t *l, const char *cmd)
{
    snprintf(l->text, sizeof(l->text), "hnp %s", cmd);
    l->argc = 0;
    for (char *w = strtok(l->text, " "); w != NULL && l->argc < MAX_WORDS;
         w = strtok(NULL, " "))
        l->argv[l->argc++] = w;
    l->argv[l->argc] = NULL;
}

static line_t cmdline;
static hnp_args_t args;
static char err[1024];

static void parse_ok(const char *cmd)
{
    split(&cmdline, cmd);
    err[0] = '\0';
    int rc = hnp_args_parse(&args, cmdline.argc, cmdline.argv, err,
                            sizeof(err));
    if (rc != HNP_SUCCESS)
        fail_msg("hnp %s: %s", cmd, err);
}

/* @p cmd is refused with an error containing each of the NULL-ended
 * texts that follow. */
static void parse_fails(const char *cmd, ...)
{
    va_list ap;

    split(&cmdline, cmd);
    err[0] = '\0';
    if (hnp_args_parse(&args, cmdline.argc, cmdline.argv, err,
                       sizeof(err)) == HNP_SUCCESS) {
        hnp_args_free(&args);
        fail_msg("hnp %s was accepted", cmd);
    }
    va_start(ap, cmd);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;)
        if (strstr(err, want) == NULL)
            fail_msg("hnp %s: error \"%s\" lacks \"%s\"", cmd, err, want);
    va_end(ap);
}

static const char *env_of(const hnp_app_t *app, const char *name)
{
    size_t len = strlen(name);

    for (size_t i = 0; i < app->nenv; i++)
        if (strncmp(app->env[i], name, len) == 0 && app->env[i][len] == '=')
            return app->env[i] + len + 1;
    return NULL;
}

static void test_open_mpi_spellings(void **state)
{
    static const char *const npernode[] = { "-N", "-npernode", "--npernode",
                                            "-ppn", "--ppn" };
    static const char *const host[] = { "-H", "-host", "--host", "-hosts",
                                        "--hosts" };
    static const char *const hostfile[] = { "-hostfile", "--hostfile",
                                            "-machinefile", "--machinefile",
                                            "-f" };
    char cmd[256];

    (void)state;
    for (size_t i = 0; i < 5; i++) {
        snprintf(cmd, sizeof(cmd), "%s 3 a", npernode[i]);
        parse_ok(cmd);
        assert_int_equal(args.npernode, 3);
        hnp_args_free(&args);
        snprintf(cmd, sizeof(cmd), "%s n1,n2 a", host[i]);
        parse_ok(cmd);
        assert_string_equal(args.hosts, "n1,n2");
        hnp_args_free(&args);
        snprintf(cmd, sizeof(cmd), "%s /h a", hostfile[i]);
        parse_ok(cmd);
        assert_string_equal(args.hostfile, "/h");
        hnp_args_free(&args);
    }
    parse_ok("-np 2 -wdir /w -oversubscribe -tag-output -display-map a");
    assert_int_equal(args.apps[0].np, 2);
    assert_string_equal(args.apps[0].wdir, "/w");
    assert_true(args.oversubscribe);
    assert_true(args.tag_output);
    assert_true(args.mapping.display_map);
    hnp_args_free(&args);
    parse_ok("--wd /w2 -c 4 a");
    assert_string_equal(args.apps[0].wdir, "/w2");
    assert_int_equal(args.apps[0].np, 4);
    hnp_args_free(&args);
}

static void test_new_flags(void **state)
{
    (void)state;
    parse_ok("--allow-run-as-root -allow-run-as-root a");
    assert_false(args.verbose || args.quiet);
    hnp_args_free(&args);
    parse_ok("-v -q a");
    assert_true(args.verbose && args.quiet);
    hnp_args_free(&args);
    parse_ok("--verbose --quiet a");
    assert_true(args.verbose && args.quiet);
    hnp_args_free(&args);
    /* the last of --oversubscribe and --nooversubscribe holds */
    parse_ok("--oversubscribe --nooversubscribe a");
    assert_false(args.oversubscribe);
    hnp_args_free(&args);
    parse_ok("-nooversubscribe --oversubscribe a");
    assert_true(args.oversubscribe);
    hnp_args_free(&args);
    parse_ok("--default-hostfile /etc/h -default-hostfile /etc/h2 a");
    assert_string_equal(args.default_hostfile, "/etc/h2");
    assert_null(args.hostfile);
    hnp_args_free(&args);
    parse_ok("--timestamp-output -merge-stderr-to-stdout --timeout 5 "
             "--report-state-on-timeout -get-stack-traces a");
    assert_true(args.timestamp_output && args.merge_stderr);
    assert_true(args.report_state_on_timeout && args.get_stack_traces);
    hnp_args_free(&args);
    parse_fails("--get-stack-traces a", "--get-stack-traces acts when "
                "--timeout expires", NULL);
}

static void test_plan_and_help(void **state)
{
    (void)state;
    parse_ok("-plan=csv");
    assert_int_equal(args.plan, HNP_PLAN_CSV);
    hnp_args_free(&args);
    parse_ok("--plan");
    assert_int_equal(args.plan, HNP_PLAN_TEXT);
    hnp_args_free(&args);
    parse_ok("-h");
    assert_true(args.help);
    hnp_args_free(&args);
    parse_fails("--plan=svg", "option --plan expects text, csv or dot",
                "\"svg\"", NULL);
}

static void test_npersocket(void **state)
{
    (void)state;
    parse_ok("-npersocket 2 a");
    assert_int_equal(args.mapping.ppr, 2);
    assert_int_equal(args.mapping.ppr_obj, HNP_OBJ_SOCKET);
    assert_int_equal(args.mapping.place.map_obj, HNP_OBJ_SOCKET);
    /* a mapping inside the node binds to its object */
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_SOCKET);
    hnp_args_free(&args);
    parse_ok("--npersocket 1 --bind-to core a");
    assert_int_equal(args.mapping.ppr, 1);
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_CORE);
    hnp_args_free(&args);
    parse_fails("-npersocket 0 a", "option -npersocket expects a positive "
                "number", "\"0\"", NULL);
    parse_fails("-npersocket two a", "-npersocket", "\"two\"", NULL);
    parse_fails("-npersocket 2 --map-by core a", "--map-by core",
                "-npersocket is given already", NULL);
    parse_fails("--map-by node -npersocket 2 a", "-npersocket 2",
                "--map-by is given already", NULL);
}

/* The mapping and binding options (mapping.c), and the bindings they
 * imply when --bind-to is not given. */
static void test_mapping_options(void **state)
{
    (void)state;
    parse_ok("--map-by ppr:2:numa a");
    assert_int_equal(args.mapping.ppr, 2);
    assert_int_equal(args.mapping.ppr_obj, HNP_OBJ_NUMA);
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_NUMA);
    hnp_args_free(&args);
    parse_ok("-map-by socket:PE=2 a");
    assert_int_equal(args.mapping.place.map_obj, HNP_OBJ_SOCKET);
    assert_int_equal(args.mapping.place.pe, 2);
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_CORE);
    hnp_args_free(&args);
    parse_ok("--map-by node:OVERSUBSCRIBE,DISPLAY a");
    assert_int_equal(args.map_by, HNP_MAP_BY_NODE);
    assert_true(args.oversubscribe);
    assert_true(args.mapping.display_map);
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_NONE);
    hnp_args_free(&args);
    parse_ok("--rank-by node a");
    assert_int_equal(args.mapping.ranking, HNP_RANK_SPAN);
    hnp_args_free(&args);
    parse_ok("--bind-to core:overload-allowed,if-supported a");
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_CORE);
    assert_int_equal(args.mapping.place.flags,
                     HNP_PLACE_OVERLOAD | HNP_PLACE_IF_SUPPORTED);
    hnp_args_free(&args);
    parse_ok("--cpus-per-proc 2 a");
    assert_int_equal(args.mapping.place.pe, 2);
    assert_int_equal(args.mapping.place.map_obj, HNP_OBJ_NUMA);
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_CORE);
    hnp_args_free(&args);
    parse_ok("--use-hwthread-cpus -cpus-per-rank 2 a");
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_HWTHREAD);
    hnp_args_free(&args);
    parse_ok("--cpu-set 0,2,4-7 -report-bindings a");
    assert_string_equal(args.mapping.place.cpu_list, "0,2,4-7");
    assert_int_equal(args.mapping.place.bind_obj, HNP_OBJ_CPULIST);
    assert_true(args.mapping.place.flags & HNP_PLACE_REPORT);
    hnp_args_free(&args);
    parse_ok("-rf /r -display-allocation a");
    assert_string_equal(args.mapping.rankfile, "/r");
    assert_true(args.mapping.display_allocation);
    hnp_args_free(&args);

    parse_fails("--rankfile /r --map-by node a", "--rankfile places every "
                "rank itself", NULL);
    parse_fails("--map-by core:PE=2 a", "cannot give a rank several CPUs",
                NULL);
    parse_fails("--cpus-per-proc 2 --map-by slot:PE=3 a", "--cpus-per-proc "
                "and --map-by ...:PE= give different numbers", NULL);
    parse_fails("--bind-to cpu-list a", "--bind-to cpu-list needs "
                "--cpu-list", NULL);
    parse_fails("--map-by slot:PE=2 --bind-to socket a", "--bind-to must be "
                "core or hwthread", NULL);
}

static void test_env(void **state)
{
    (void)state;
    setenv("TEST_ARGS_HNP_A", "from-hnp", 1);
    setenv("HNP_TEST_ARGS_OWN", "runtime", 1);
    parse_ok("-genv G g -env E e -x X=x -n 1 a : -n 1 -env G own b");
    assert_string_equal(env_of(&args.apps[0], "G"), "g");
    assert_string_equal(env_of(&args.apps[0], "E"), "e");
    assert_string_equal(env_of(&args.apps[0], "X"), "x");
    /* -env is its context's only; -genv every context's, below its own */
    assert_string_equal(env_of(&args.apps[1], "G"), "own");
    assert_null(env_of(&args.apps[1], "E"));
    assert_null(env_of(&args.apps[1], "TEST_ARGS_HNP_A"));
    hnp_args_free(&args);

    parse_ok("-n 1 a : -genvall -genv TEST_ARGS_HNP_A mine -n 1 b");
    for (size_t a = 0; a < 2; a++) {
        assert_string_equal(env_of(&args.apps[a], "TEST_ARGS_HNP_A"),
                            "mine");
        assert_non_null(env_of(&args.apps[a], "PATH"));
        assert_null(env_of(&args.apps[a], "HNP_TEST_ARGS_OWN"));
    }
    hnp_args_free(&args);

    /* -x NAME=... twice: the last holds, once */
    parse_ok("-x A=1 -x A=2 a");
    assert_int_equal(args.apps[0].nenv, 1);
    assert_string_equal(env_of(&args.apps[0], "A"), "2");
    hnp_args_free(&args);

    parse_fails("-genv A=1 a", "option -genv expects a variable's NAME and "
                "its VALUE as two words", "\"A=1\"", NULL);
    parse_fails("-env =x y a", "option -env expects", NULL);
    parse_fails("-genv A", "option -genv needs a name and a value", NULL);
    parse_fails("-x =1 a", "option -x expects NAME or NAME=VALUE", NULL);
    /* Unset: warned of (on stderr) and left out, as mpirun does. */
    parse_ok("-x TEST_ARGS_NOT_SET_ANYWHERE -x B=2 a");
    assert_null(env_of(&args.apps[0], "TEST_ARGS_NOT_SET_ANYWHERE"));
    assert_string_equal(env_of(&args.apps[0], "B"), "2");
    hnp_args_free(&args);
    unsetenv("TEST_ARGS_HNP_A");
    unsetenv("HNP_TEST_ARGS_OWN");
}

static void test_bad_values(void **state)
{
    (void)state;
    parse_fails("-n 0 a", "option -n expects a positive number", "\"0\"",
                NULL);
    parse_fails("-np -3 a", "option -np expects a positive number", NULL);
    parse_fails("-npernode x a", "option -npernode expects a positive "
                "number, got \"x\"", NULL);
    parse_fails("-ppn 1.5 a", "option -ppn expects a positive number",
                NULL);
    parse_fails("--timeout 0 a", "option --timeout expects a number of "
                "seconds above 0", NULL);
    parse_fails("-stdin everyone a", "option -stdin expects a rank, all or "
                "none", NULL);
    parse_fails("--map-by board a", "option --map-by expects slot, node",
                "\"board\"", NULL);
    parse_fails("-map-by ppr:2:rack a", "unknown object \"rack\"", NULL);
    parse_fails("--map-by slot:PE=0 a", "unknown modifier \"PE=0\"", NULL);
    parse_fails("--bind-to board a", "option --bind-to expects none",
                NULL);
    parse_fails("--bind-to core:loose a", "unknown qualifier \"loose\"",
                NULL);
    parse_fails("--rank-by board a", "option --rank-by expects slot", NULL);
    parse_fails("--cpus-per-proc 0 a", "option --cpus-per-proc expects a "
                "positive number", NULL);
    parse_fails("--cpu-list 1- a", "option --cpu-list expects CPU numbers",
                NULL);
    parse_fails("--host", "option --host needs a value", NULL);
    parse_fails("-hostfile", "option -hostfile needs a value", NULL);
    parse_fails("-n 1 a : --mca plm rsh -n 1 b", "--mca sets a parameter of "
                "the whole job: give it before the first program", NULL);
    parse_fails("--app", "option --app needs a value", NULL);
}

static void test_unknown_options(void **state)
{
    (void)state;
    parse_fails("--hostfil h a", "unknown option --hostfil",
                "did you mean --hostfile", NULL);
    parse_fails("-npernod 1 a", "did you mean --npernode?", NULL);
    parse_fails("--allow-run-as-rot a", "did you mean --allow-run-as-root?",
                NULL);
    parse_fails("--bind a", "did you mean --bind-to?", NULL);
    parse_fails("--genv-all a", "did you mean --genvall?", NULL);
    parse_fails("--verbos a", "did you mean --verbose?", NULL);
    /* nothing close: no guess, and never one from a single letter */
    parse_fails("--frobnicate a", "unknown option --frobnicate (see hnp "
                "--help)", NULL);
    parse_fails("-z a", "unknown option -z (see hnp --help)", NULL);
    /* Open MPI's options that hnp does not have say why */
    parse_fails("--preload-binary a", "--preload-binary of Open MPI's "
                "mpirun is not supported", "hnp copies no files", NULL);
    parse_fails("-xml a", "-xml of Open MPI's mpirun is not supported",
                NULL);
}

/* The scan that takes --mca out must skip every option's values. */
static void test_setup_options(void **state)
{
    hnp_setup_option_t *all = hnp_args_setup_options();
    static const struct { const char *name; int nvalues; } want[] = {
        { "-genv", 2 }, { "--genv", 2 }, { "-env", 2 }, { "-hostfile", 1 },
        { "--hostfile", 1 }, { "-f", 1 }, { "-npersocket", 1 },
        { "-map-by", 1 }, { "--default-hostfile", 1 }, { "--app", 1 },
        { "-rf", 1 }, { "-x", 1 }, { "-np", 1 }, { "-ppn", 1 },
    };

    (void)state;
    assert_non_null(all);
    for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
        size_t i = 0;
        while (all[i].name != NULL && strcmp(all[i].name, want[w].name) != 0)
            i++;
        if (all[i].name == NULL)
            fail_msg("%s is not in the scan's options", want[w].name);
        assert_int_equal(all[i].nvalues, want[w].nvalues);
    }
    for (size_t i = 0; all[i].name != NULL; i++)
        if (strcmp(all[i].name, "-v") == 0 ||
            strcmp(all[i].name, "--mca") == 0)
            fail_msg("%s takes no value of hnp's", all[i].name);
    /* Those that set parameters are taken out by the scan, as --mca. */
    static const char *const setters[] = { "-iface", "--iface", "-launcher",
                                           "-launcher-exec", "--am",
                                           "-mca-param-file", NULL };
    for (const char *const *w = setters; *w != NULL; w++) {
        size_t i = 0;
        while (all[i].name != NULL && strcmp(all[i].name, *w) != 0)
            i++;
        if (all[i].name == NULL || all[i].take == NULL || all[i].nvalues != 1)
            fail_msg("%s is not taken out by the scan", *w);
    }
    free(all);
}

/* ------------------------------------------------------------- --app */

static char appfile[64];

static void write_appfile(const char *text)
{
    FILE *f;

    snprintf(appfile, sizeof(appfile), "/tmp/test_args.XXXXXX");
    int fd = mkstemp(appfile);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_appfile(void **state)
{
    char cmd[256];

    (void)state;
    write_appfile("# two programs\n"
                  "\n"
                  "-n 2 -x A=1 ./a one 'two words' \"x \\$y\" # comment\n"
                  "   -np 3 --wdir /w -env B b ./b\n");
    snprintf(cmd, sizeof(cmd), "-x C=c --wdir /top --map-by node --app %s",
             appfile);
    parse_ok(cmd);
    unlink(appfile);
    assert_int_equal(args.napps, 2);
    assert_int_equal(args.map_by, HNP_MAP_BY_NODE);
    assert_int_equal(args.apps[0].np, 2);
    assert_int_equal(args.apps[0].argc, 4);
    assert_string_equal(args.apps[0].argv[0], "./a");
    assert_string_equal(args.apps[0].argv[2], "two words");
    assert_string_equal(args.apps[0].argv[3], "x $y");
    assert_null(args.apps[0].argv[4]);
    assert_string_equal(env_of(&args.apps[0], "A"), "1");
    assert_null(env_of(&args.apps[0], "B"));
    /* the command line's -x and --wdir: every line's, unless it says */
    assert_string_equal(env_of(&args.apps[0], "C"), "c");
    assert_string_equal(env_of(&args.apps[1], "C"), "c");
    assert_string_equal(args.apps[0].wdir, "/top");
    assert_string_equal(args.apps[1].wdir, "/w");
    assert_int_equal(args.apps[1].np, 3);
    assert_string_equal(env_of(&args.apps[1], "B"), "b");
    assert_int_equal(hnp_args_total_np(&args), 5);
    hnp_args_free(&args);
}

/* hnp BEFORE --app FILE AFTER, FILE holding @p text, fails naming FILE
 * (and @p line when not 0) and saying @p want. */
static void appfile_fails(const char *text, const char *before,
                          const char *after, unsigned line, const char *want)
{
    char cmd[256], where[96];

    write_appfile(text);
    snprintf(cmd, sizeof(cmd), "%s --app %s%s", before, appfile, after);
    snprintf(where, sizeof(where), "%s:%u: ", appfile, line);
    parse_fails(cmd, line > 0 ? where : appfile, want, NULL);
    unlink(appfile);
}

static void test_appfile_errors(void **state)
{
    (void)state;
    appfile_fails("-n 1 ./a\n-n 1 --hostfil h ./b\n", "", "", 2,
                  "unknown option --hostfil (did you mean --hostfile");
    appfile_fails("-n 1 './a\n", "", "", 1, "unterminated single quote");
    appfile_fails("# c\n-n 0 ./a\n", "", "", 2,
                  "option -n expects a positive");
    appfile_fails("-n 2\n", "", "", 1, "no program on this line");
    appfile_fails("-n 1 ./a : -n 1 ./b\n", "", "", 1,
                  "one app context a line");
    appfile_fails("--mca plm rsh -n 1 ./a\n", "", "", 1,
                  "--mca sets a parameter");
    appfile_fails("--app other -n 1 ./a\n", "", "", 1, "is given already");
    appfile_fails("# nothing\n\n", "", "", 0, "names no program");
    appfile_fails("-n 1 ./a\n", "", " ./prog", 0, "the command line must give "
                  "neither");
    appfile_fails("-n 1 ./a\n", "-n 2", "", 0, "the command line must give "
                  "neither");
    parse_fails("--app /nonexistent/appfile", "cannot open appfile "
                "/nonexistent/appfile", NULL);
}

static void test_split(void **state)
{
    char **words;
    int n;

    (void)state;
    assert_int_equal(hnp_appfile_split("  a\\ b 'c # d'#e f #g", &words, &n,
                                       err, sizeof(err)), HNP_SUCCESS);
    assert_int_equal(n, 3);
    assert_string_equal(words[0], "a b");
    assert_string_equal(words[1], "c # d#e");
    assert_string_equal(words[2], "f");
    hnp_appfile_words_free(words);
    assert_int_equal(hnp_appfile_split("# all comment", &words, &n, err,
                                       sizeof(err)), HNP_SUCCESS);
    assert_int_equal(n, 0);
    assert_null(words);
    assert_int_equal(hnp_appfile_split("a \"b", &words, &n, err,
                                       sizeof(err)), HNP_ERR_BAD_PARAM);
    assert_non_null(strstr(err, "unterminated double quote"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_mpi_spellings),
        cmocka_unit_test(test_new_flags),
        cmocka_unit_test(test_plan_and_help),
        cmocka_unit_test(test_npersocket),
        cmocka_unit_test(test_mapping_options),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_unknown_options),
        cmocka_unit_test(test_setup_options),
        cmocka_unit_test(test_appfile),
        cmocka_unit_test(test_appfile_errors),
        cmocka_unit_test(test_split),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
