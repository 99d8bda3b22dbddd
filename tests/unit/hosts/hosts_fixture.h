/* SPDX-License-Identifier: BSD-3-Clause */
/* What the tests of host lists and of hostfiles share (hosts_fixture.c).
 * Each fails the running cmocka test with a message on a mismatch. */
#ifndef HNP_TEST_HOSTS_FIXTURE_H
#define HNP_TEST_HOSTS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hosts/hostlist.h"

/* The node named @p name of @p l. */
const hnp_node_t *find_node(const hnp_nodelist_t *l, const char *name);
/* Node @p i of @p l is @p name with @p slots, given or not. */
void expect_node(const hnp_nodelist_t *l, size_t i, const char *name,
                 uint32_t slots, bool given);
/* Parse @p text as --host into @p l, which must succeed. */
void parse_hosts_ok(hnp_nodelist_t *l, const char *text);
/* A hostfile with @p content; the caller frees the path and unlinks it. */
char *write_hostfile(const char *content);
/* Parse a hostfile holding @p content into @p l, which must succeed. */
void parse_hostfile_ok(hnp_nodelist_t *l, const char *content);
/* The hostfile fails with "PATH:LINE: ..." holding @p piece (PATH alone
 * when @p line is 0), and the list it was parsed into is left as it was. */
void expect_hostfile_error(const char *content, unsigned line,
                           const char *piece);

#endif /* HNP_TEST_HOSTS_FIXTURE_H */
