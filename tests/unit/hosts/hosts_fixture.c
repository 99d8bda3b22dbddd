/* SPDX-License-Identifier: BSD-3-Clause */
/* What the tests of host lists and of hostfiles share: node checks, and
 * hostfiles written to $TMPDIR and parsed. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hnp_errors.h"
#include "hosts/hostlist.h"
#include "hosts_fixture.h"

const hnp_node_t *find_node(const hnp_nodelist_t *l, const char *name)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->nodes[i].name, name) == 0)
            return &l->nodes[i];
    fail_msg("no node %s", name);
    return NULL;
}

void expect_node(const hnp_nodelist_t *l, size_t i, const char *name,
                        uint32_t slots, bool given)
{
    if (i >= l->count)
        fail_msg("node %zu missing (only %zu)", i, l->count);
    assert_string_equal(l->nodes[i].name, name);
    if (l->nodes[i].slots != slots || l->nodes[i].slots_given != given)
        fail_msg("%s: slots %u given %d, want %u %d", name,
                 l->nodes[i].slots, l->nodes[i].slots_given, slots, given);
}

void parse_hosts_ok(hnp_nodelist_t *l, const char *text)
{
    char err[512] = "";
    int rc = hnp_nodelist_parse_hosts(l, text, err, sizeof(err));
    if (rc != HNP_SUCCESS)
        fail_msg("--host \"%s\": %d %s", text, rc, err);
}

/* A hostfile with @p content; the caller frees the path and unlinks it. */
char *write_hostfile(const char *content)
{
    const char *dir = getenv("TMPDIR");
    char *path;

    if (asprintf(&path, "%s/hnp-hostfile-XXXXXX", dir ? dir : "/tmp") < 0)
        fail();
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(content);
    assert_int_equal(write(fd, content, len), (ssize_t)len);
    close(fd);
    return path;
}

void parse_hostfile_ok(hnp_nodelist_t *l, const char *content)
{
    char err[512] = "";
    char *path = write_hostfile(content);
    int rc = hnp_nodelist_parse_hostfile(l, path, err, sizeof(err));
    unlink(path);
    free(path);
    if (rc != HNP_SUCCESS)
        fail_msg("hostfile \"%s\": %d %s", content, rc, err);
}

/* Expect the hostfile to fail with "PATH:LINE: ..." holding @p piece. */
void expect_hostfile_error(const char *content, unsigned line,
                                  const char *piece)
{
    hnp_nodelist_t l = { NULL, 0, 0 };
    char err[512] = "", where[600];
    char *path = write_hostfile(content);

    assert_int_equal(hnp_nodelist_add(&l, "keep", 0, false), HNP_SUCCESS);
    int rc = hnp_nodelist_parse_hostfile(&l, path, err, sizeof(err));
    if (line > 0)
        snprintf(where, sizeof(where), "%s:%u: ", path, line);
    else
        snprintf(where, sizeof(where), "%s", path);
    unlink(path);
    free(path);
    if (rc != HNP_ERR_BAD_PARAM)
        fail_msg("hostfile \"%s\": returned %d (%s)", content, rc, err);
    if (strncmp(err, where, strlen(where)) != 0 && line > 0)
        fail_msg("message \"%s\" does not start with \"%s\"", err, where);
    if (strstr(err, where) == NULL || strstr(err, piece) == NULL)
        fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err, where, piece);
    assert_int_equal(l.count, 1);
    expect_node(&l, 0, "keep", 0, false);
    hnp_nodelist_free(&l);
}
