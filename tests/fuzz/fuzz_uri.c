/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: a peer's contact URI as the OOB reads it (runtime/oob/
 * addr.c), from the contact exchange or a daemon's command line, and the
 * order in which its addresses are then tried.
 *
 * Input layout: the URI's text (a NUL ends it early, as it would a C
 * string). make-corpus.sh writes seeds.
 *
 * Besides the sanitizers, the target checks what a parsed URI promises:
 * at least one address, each IPv4 or IPv6 with a port; the URI written
 * back from them parses to the very same addresses; ordering them against
 * the local networks keeps every address (a stable partition).
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "hnp_errors.h"
#include "oob/internal.h"

#define ERRLEN 256

static bool same_endpoint(const oob_endpoint_t *a, const oob_endpoint_t *b)
{
    return a->len == b->len && memcmp(&a->sa, &b->sa, a->len) == 0;
}

static unsigned endpoint_port(const oob_endpoint_t *ep)
{
    const struct sockaddr *sa = (const struct sockaddr *)&ep->sa;

    if (sa->sa_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
    return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
}

/* The URI the addresses make, written back. */
static char *write_back(const oob_endpoint_t *eps, size_t n)
{
    char *uri = malloc(n * OOB_URI_ENTRY_LEN + 1);
    size_t used = 0;

    if (uri == NULL)
        abort();
    uri[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            uri[used++] = ',';
        oob_endpoint_uri(&eps[i], uri + used, OOB_URI_ENTRY_LEN);
        used += strlen(uri + used);
    }
    return uri;
}

/* Two local networks: 10.1.0.0/16 and fd00::/8. */
static void check_order(const oob_endpoint_t *eps, size_t n)
{
    oob_ifaddr_t local[2] = {
        { "eth0", AF_INET, { 10, 1 }, 16, false },
        { "eth1", AF_INET6, { 0xfd }, 8, false },
    };
    oob_endpoint_t *ordered = malloc(n * sizeof(*ordered));

    if (ordered == NULL)
        abort();
    memcpy(ordered, eps, n * sizeof(*ordered));
    oob_endpoints_order(local, 2, ordered, n);
    /* Every address once, as often as in the URI. */
    for (size_t i = 0; i < n; i++) {
        size_t want = 0, got = 0;
        for (size_t j = 0; j < n; j++) {
            want += same_endpoint(&eps[i], &eps[j]);
            got += same_endpoint(&eps[i], &ordered[j]);
        }
        FUZZ_CHECK(want == got);
    }
    free(ordered);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oob_endpoint_t *eps, *again;
    size_t n, n2;
    char err[ERRLEN];
    char *uri = malloc(size + 1);

    if (uri == NULL)
        abort();
    memcpy(uri, data, size);
    uri[size] = '\0';
    int rc = oob_uri_parse(uri, &eps, &n, err, sizeof(err));
    free(uri);
    if (rc != HNP_SUCCESS) {
        FUZZ_CHECK(err[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        int family = ((const struct sockaddr *)&eps[i].sa)->sa_family;
        FUZZ_CHECK(family == AF_INET || family == AF_INET6);
        FUZZ_CHECK(endpoint_port(&eps[i]) != 0);
    }
    char *written = write_back(eps, n);
    FUZZ_CHECK(oob_uri_parse(written, &again, &n2, err, sizeof(err)) ==
               HNP_SUCCESS);
    FUZZ_CHECK(n2 == n);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(same_endpoint(&eps[i], &again[i]));
    check_order(eps, n);
    free(written);
    free(again);
    free(eps);
    return 0;
}
