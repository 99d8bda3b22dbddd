/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses for the OOB: which local addresses carry traffic
 * (oob_tcp_if_include / oob_tcp_if_exclude), the URI syntax, and the order
 * in which a peer's addresses are tried.
 *
 * Selection: oob_tcp_if_include keeps the addresses it names, by interface
 * name or by network (CIDR; a bare address is its own /32 or /128).
 * oob_tcp_if_exclude drops them instead, and applies only when include is
 * empty: with both set, include wins and exclude is ignored with a warning
 * naming both (as oob.h says; refusing to start over a redundant setting
 * would help nobody). An include that selects nothing at all is an error
 * listing what exists; an entry of it that matches nothing only warns, since
 * other nodes may have that interface. With neither list, loopback is left
 * out unless nothing else is up (ORTE's default exclude of 127.0.0.1/8).
 * IPv6 link-local addresses are never used.
 *
 * Addresses only, never host names: a resolver call would block the event
 * loop, and its answer could differ from node to node.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "internal.h"

#define PARAM_INCLUDE "oob_tcp_if_include"
#define PARAM_EXCLUDE "oob_tcp_if_exclude"
#define TOKEN_MAX 64
#define IFLIST_MAX 512

/* One entry of an include or exclude list: an interface name, or a network
 * (a bare address is its own /32 or /128). */
typedef struct if_token {
    char text[TOKEN_MAX];
    bool is_net;
    int family;
    uint8_t addr[16];
    unsigned prefix;
} if_token_t;

static size_t family_bytes(int family)
{
    return family == AF_INET ? 4 : 16;
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
    unsigned whole = prefix / 8;
    unsigned bits = prefix % 8;

    if (memcmp(a, b, whole) != 0)
        return false;
    if (bits == 0)
        return true;
    uint8_t mask = (uint8_t)(0xffu << (8 - bits));
    return (a[whole] & mask) == (b[whole] & mask);
}

static const uint8_t *sockaddr_bytes(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)
            ->sin_addr;
    return (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)sa)
        ->sin6_addr;
}

static unsigned sockaddr_port(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
    return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
}

static void endpoint_set(oob_endpoint_t *ep, int family, const uint8_t *addr,
                         unsigned port)
{
    memset(ep, 0, sizeof(*ep));
    if (family == AF_INET) {
        struct sockaddr_in *sin = (struct sockaddr_in *)(void *)&ep->sa;
        sin->sin_family = AF_INET;
        sin->sin_port = htons((uint16_t)port);
        memcpy(&sin->sin_addr, addr, 4);
        ep->len = sizeof(*sin);
    } else {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)(void *)&ep->sa;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons((uint16_t)port);
        memcpy(&sin6->sin6_addr, addr, 16);
        ep->len = sizeof(*sin6);
    }
}

void oob_ifaddr_endpoint(const oob_ifaddr_t *ifa, oob_endpoint_t *ep)
{
    endpoint_set(ep, ifa->family, ifa->addr, 0);
}

const char *oob_endpoint_str(const struct sockaddr *sa, char *buf, size_t len)
{
    char addr[INET6_ADDRSTRLEN] = "?";

    if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) {
        snprintf(buf, len, "(address family %d)", sa->sa_family);
        return buf;
    }
    inet_ntop(sa->sa_family, sockaddr_bytes(sa), addr, sizeof(addr));
    if (sa->sa_family == AF_INET6)
        snprintf(buf, len, "[%s]:%u", addr, sockaddr_port(sa));
    else
        snprintf(buf, len, "%s:%u", addr, sockaddr_port(sa));
    return buf;
}

void oob_endpoint_uri(const oob_endpoint_t *ep, char *buf, size_t len)
{
    const struct sockaddr *sa = (const struct sockaddr *)&ep->sa;
    char where[OOB_ENDPOINT_STRLEN];

    snprintf(buf, len, "%s://%s", sa->sa_family == AF_INET6 ? "tcp6" : "tcp",
             oob_endpoint_str(sa, where, sizeof(where)));
}

/* ---------------------------------------------------------- interfaces */

static unsigned netmask_prefix(const struct sockaddr *mask, int family)
{
    unsigned n = 0;

    if (mask == NULL) /* point-to-point links may report none */
        return (unsigned)family_bytes(family) * 8;
    const uint8_t *b = sockaddr_bytes(mask);
    for (size_t i = 0; i < family_bytes(family); i++)
        n += (unsigned)__builtin_popcount(b[i]);
    return n;
}

static bool ifaddr_usable(const struct ifaddrs *ifa)
{
    if (ifa->ifa_addr == NULL || !(ifa->ifa_flags & IFF_UP))
        return false;
    if (ifa->ifa_addr->sa_family == AF_INET)
        return true;
    if (ifa->ifa_addr->sa_family != AF_INET6)
        return false;
    /* A link-local address would need its scope id in the URI, and the same
     * address means something else on every link. */
    const struct sockaddr_in6 *sin6 =
        (const struct sockaddr_in6 *)(const void *)ifa->ifa_addr;
    return !IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr);
}

static void ifaddr_fill(oob_ifaddr_t *out, const struct ifaddrs *ifa)
{
    int family = ifa->ifa_addr->sa_family;

    snprintf(out->name, sizeof(out->name), "%s", ifa->ifa_name);
    out->family = family;
    memcpy(out->addr, sockaddr_bytes(ifa->ifa_addr), family_bytes(family));
    out->prefix = netmask_prefix(ifa->ifa_netmask, family);
    out->loopback = (ifa->ifa_flags & IFF_LOOPBACK) != 0;
}

/* Every usable address of this host, in getifaddrs() order. */
static int ifaddrs_list(oob_ifaddr_t **out, size_t *nout, char *err,
                        size_t errlen)
{
    struct ifaddrs *all = NULL;
    size_t n = 0;

    if (getifaddrs(&all) != 0) {
        hnp_err_set(err, errlen, "getifaddrs: %s", strerror(errno));
        return HNP_ERR_IO;
    }
    for (struct ifaddrs *ifa = all; ifa != NULL; ifa = ifa->ifa_next)
        n += ifaddr_usable(ifa);
    oob_ifaddr_t *list = calloc(n > 0 ? n : 1, sizeof(*list));
    if (list == NULL) {
        freeifaddrs(all);
        hnp_err_set(err, errlen, "out of memory listing interfaces");
        return HNP_ERR_NOMEM;
    }
    n = 0;
    for (struct ifaddrs *ifa = all; ifa != NULL; ifa = ifa->ifa_next)
        if (ifaddr_usable(ifa))
            ifaddr_fill(&list[n++], ifa);
    freeifaddrs(all);
    *out = list;
    *nout = n;
    return HNP_SUCCESS;
}

/* "lo 127.0.0.1/8, eth0 10.0.0.2/24", for messages that must say what
 * exists. */
static void ifaddrs_describe(const oob_ifaddr_t *list, size_t n, char *buf,
                             size_t len)
{
    size_t used = 0;

    snprintf(buf, len, "none");
    for (size_t i = 0; i < n; i++) {
        char addr[INET6_ADDRSTRLEN] = "?";
        inet_ntop(list[i].family, list[i].addr, addr, sizeof(addr));
        int w = snprintf(buf + used, len - used, "%s%s %s/%u",
                         i > 0 ? ", " : "", list[i].name, addr,
                         list[i].prefix);
        if (w < 0 || (size_t)w >= len - used)
            break; /* truncated: what fits is still useful */
        used += (size_t)w;
    }
}

/* ------------------------------------------------------ include/exclude */

static int prefix_parse(const char *text, unsigned max, unsigned *out)
{
    char *end = NULL;

    if (*text < '0' || *text > '9')
        return HNP_ERR_BAD_PARAM;
    unsigned long v = strtoul(text, &end, 10);
    if (*end != '\0' || v > max)
        return HNP_ERR_BAD_PARAM;
    *out = (unsigned)v;
    return HNP_SUCCESS;
}

static int token_parse(const char *text, size_t len, const char *param,
                       if_token_t *tok, char *err, size_t errlen)
{
    if (len >= sizeof(tok->text)) {
        hnp_err_set(err, errlen, "%s: \"%.*s\" is too long for an interface "
                    "name or an address", param, (int)len, text);
        return HNP_ERR_BAD_PARAM;
    }
    memcpy(tok->text, text, len);
    tok->text[len] = '\0';

    char *slash = strchr(tok->text, '/');
    if (slash != NULL)
        *slash = '\0';
    if (inet_pton(AF_INET, tok->text, tok->addr) == 1)
        tok->family = AF_INET;
    else if (inet_pton(AF_INET6, tok->text, tok->addr) == 1)
        tok->family = AF_INET6;
    else if (slash == NULL)
        return HNP_SUCCESS; /* an interface name */

    int rc = HNP_SUCCESS;
    unsigned max = (unsigned)family_bytes(tok->family) * 8;
    tok->is_net = true;
    tok->prefix = max;
    if (slash != NULL) {
        *slash = '/';
        rc = tok->family == 0 ? HNP_ERR_BAD_PARAM
                              : prefix_parse(slash + 1, max, &tok->prefix);
    }
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "%s: \"%s\" is not an address/prefix such "
                    "as 10.1.0.0/16", param, tok->text);
    return rc;
}

/* Split a comma list; blanks around entries are ignored. */
static int tokens_parse(const char *list, const char *param,
                        if_token_t **out, size_t *nout, char *err,
                        size_t errlen)
{
    size_t cap = 1, n = 0;
    int rc = HNP_SUCCESS;

    for (const char *p = list; *p != '\0'; p++)
        cap += *p == ',';
    if_token_t *toks = calloc(cap, sizeof(*toks));
    if (toks == NULL) {
        hnp_err_set(err, errlen, "out of memory parsing %s", param);
        return HNP_ERR_NOMEM;
    }
    for (const char *p = list; *p != '\0' && rc == HNP_SUCCESS;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, ",");
        size_t tlen = len;
        while (tlen > 0 && (p[tlen - 1] == ' ' || p[tlen - 1] == '\t'))
            tlen--;
        if (tlen > 0)
            rc = token_parse(p, tlen, param, &toks[n++], err, errlen);
        p += len + (p[len] == ',');
    }
    if (rc == HNP_SUCCESS && n == 0) {
        hnp_err_set(err, errlen, "%s=\"%s\" names nothing", param, list);
        rc = HNP_ERR_BAD_PARAM;
    }
    if (rc != HNP_SUCCESS) {
        free(toks);
        return rc;
    }
    *out = toks;
    *nout = n;
    return HNP_SUCCESS;
}

static bool token_matches(const if_token_t *tok, const oob_ifaddr_t *ifa)
{
    if (!tok->is_net)
        return strcmp(tok->text, ifa->name) == 0;
    return tok->family == ifa->family &&
           prefix_match(ifa->addr, tok->addr, tok->prefix);
}

static bool tokens_match(const if_token_t *toks, size_t ntoks,
                         const oob_ifaddr_t *ifa)
{
    for (size_t i = 0; i < ntoks; i++)
        if (token_matches(&toks[i], ifa))
            return true;
    return false;
}

/* An include entry that selects nothing is most likely a typo, but other
 * nodes of a heterogeneous cluster may have that interface: warn only. */
static void tokens_warn_unmatched(const if_token_t *toks, size_t ntoks,
                                  const oob_ifaddr_t *all, size_t nall,
                                  hnp_log_stream_t *log)
{
    for (size_t t = 0; t < ntoks; t++) {
        bool hit = false;
        for (size_t i = 0; i < nall && !hit; i++)
            hit = token_matches(&toks[t], &all[i]);
        if (!hit)
            HNP_WARN(log, "%s: \"%s\" matches no interface or address of "
                     "this host", PARAM_INCLUDE, toks[t].text);
    }
}

/* ------------------------------------------------------------ selection */

/* Without either list, loopback is left out unless nothing else is up:
 * a 127.0.0.1 in a URI would send other nodes to themselves. */
static size_t select_default(const oob_ifaddr_t *all, size_t nall,
                             oob_ifaddr_t *kept)
{
    size_t n = 0;

    for (size_t i = 0; i < nall; i++)
        if (!all[i].loopback)
            kept[n++] = all[i];
    if (n == 0)
        for (size_t i = 0; i < nall; i++)
            kept[n++] = all[i];
    return n;
}

static int select_by_list(const char *list, bool include,
                          const oob_ifaddr_t *all, size_t nall,
                          oob_ifaddr_t *kept, size_t *nkept,
                          hnp_log_stream_t *log, char *err, size_t errlen)
{
    const char *param = include ? PARAM_INCLUDE : PARAM_EXCLUDE;
    if_token_t *toks = NULL;
    size_t ntoks = 0, n = 0;

    int rc = tokens_parse(list, param, &toks, &ntoks, err, errlen);
    if (rc != HNP_SUCCESS)
        return rc;
    for (size_t i = 0; i < nall; i++)
        if (tokens_match(toks, ntoks, &all[i]) == include)
            kept[n++] = all[i];
    if (include && n > 0)
        tokens_warn_unmatched(toks, ntoks, all, nall, log);
    free(toks);
    *nkept = n;
    return HNP_SUCCESS;
}

/* Nothing selected: name the value that did it and list what exists. */
static void select_nothing_error(const char *include, const char *exclude,
                                 const oob_ifaddr_t *all, size_t nall,
                                 char *err, size_t errlen)
{
    char have[IFLIST_MAX];

    ifaddrs_describe(all, nall, have, sizeof(have));
    if (include != NULL)
        hnp_err_set(err, errlen, "%s=\"%s\" names no interface or address of "
                    "this host; it has: %s", PARAM_INCLUDE, include, have);
    else if (exclude != NULL)
        hnp_err_set(err, errlen, "%s=\"%s\" leaves no interface; this host "
                    "has: %s", PARAM_EXCLUDE, exclude, have);
    else
        hnp_err_set(err, errlen, "no network interface is up");
}

int oob_addr_select(const char *include, const char *exclude,
                    hnp_log_stream_t *log, oob_ifaddr_t **out, size_t *nout,
                    char *err, size_t errlen)
{
    oob_ifaddr_t *all = NULL, *kept = NULL;
    size_t nall = 0, nkept = 0;
    bool has_include = include != NULL && include[0] != '\0';
    bool has_exclude = exclude != NULL && exclude[0] != '\0';
    int rc;

    rc = ifaddrs_list(&all, &nall, err, errlen);
    if (rc != HNP_SUCCESS)
        goto cleanup;
    kept = calloc(nall > 0 ? nall : 1, sizeof(*kept));
    if (kept == NULL) {
        hnp_err_set(err, errlen, "out of memory selecting interfaces");
        rc = HNP_ERR_NOMEM;
        goto cleanup;
    }
    if (has_include && has_exclude)
        HNP_WARN(log, "both %s=\"%s\" and %s=\"%s\" are set: %s wins, %s is "
                 "ignored", PARAM_INCLUDE, include, PARAM_EXCLUDE, exclude,
                 PARAM_INCLUDE, PARAM_EXCLUDE);
    if (has_include || has_exclude)
        rc = select_by_list(has_include ? include : exclude, has_include, all,
                            nall, kept, &nkept, log, err, errlen);
    else
        nkept = select_default(all, nall, kept);
    if (rc != HNP_SUCCESS)
        goto cleanup;
    if (nkept == 0) {
        select_nothing_error(has_include ? include : NULL,
                             has_exclude ? exclude : NULL, all, nall, err,
                             errlen);
        rc = HNP_ERR_NOT_FOUND;
        goto cleanup;
    }
    *out = kept;
    *nout = nkept;
    kept = NULL;
cleanup:
    free(kept);
    free(all);
    return rc;
}

/* ------------------------------------------------------------------ URIs */

static int port_parse(const char *text, unsigned *port)
{
    char *end = NULL;

    if (*text < '0' || *text > '9')
        return HNP_ERR_BAD_PARAM;
    unsigned long v = strtoul(text, &end, 10);
    if (*end != '\0' || v == 0 || v > 65535)
        return HNP_ERR_BAD_PARAM;
    *port = (unsigned)v;
    return HNP_SUCCESS;
}

/* "tcp://a.b.c.d:port" or "tcp6://[address]:port". */
static int uri_entry_parse(const char *entry, size_t len, oob_endpoint_t *ep,
                           char *err, size_t errlen)
{
    char text[OOB_URI_ENTRY_LEN];
    char *host = NULL, *port_text = NULL, *sep;
    uint8_t addr[16];
    unsigned port = 0;
    int family = 0;

    if (len < sizeof(text)) {
        memcpy(text, entry, len);
        text[len] = '\0';
        if (strncmp(text, "tcp://", 6) == 0 &&
            (sep = strrchr(text + 6, ':')) != NULL) {
            family = AF_INET;
            host = text + 6;
            *sep = '\0';
            port_text = sep + 1;
        } else if (strncmp(text, "tcp6://[", 8) == 0 &&
                   (sep = strstr(text + 8, "]:")) != NULL) {
            family = AF_INET6;
            host = text + 8;
            *sep = '\0';
            port_text = sep + 2;
        }
    }
    if (family != 0 && inet_pton(family, host, addr) == 1 &&
        port_parse(port_text, &port) == HNP_SUCCESS) {
        endpoint_set(ep, family, addr, port);
        return HNP_SUCCESS;
    }
    hnp_err_set(err, errlen, "\"%.*s\" is neither tcp://a.b.c.d:port nor "
                "tcp6://[address]:port", (int)len, entry);
    return HNP_ERR_BAD_PARAM;
}

int oob_uri_parse(const char *uri, oob_endpoint_t **out, size_t *nout,
                  char *err, size_t errlen)
{
    size_t cap = 1, n = 0;
    int rc = HNP_SUCCESS;

    if (uri[0] == '\0') {
        hnp_err_set(err, errlen, "the URI is empty");
        return HNP_ERR_BAD_PARAM;
    }
    for (const char *p = uri; *p != '\0'; p++)
        cap += *p == ',';
    oob_endpoint_t *eps = calloc(cap, sizeof(*eps));
    if (eps == NULL) {
        hnp_err_set(err, errlen, "out of memory");
        return HNP_ERR_NOMEM;
    }
    for (const char *p = uri; rc == HNP_SUCCESS; p++) {
        size_t len = strcspn(p, ",");
        rc = uri_entry_parse(p, len, &eps[n++], err, errlen);
        p += len;
        if (*p == '\0')
            break;
    }
    if (rc != HNP_SUCCESS) {
        free(eps);
        return rc;
    }
    *out = eps;
    *nout = n;
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------- ordering */

static bool endpoint_is_near(const oob_ifaddr_t *local, size_t nlocal,
                             const oob_endpoint_t *ep)
{
    const struct sockaddr *sa = (const struct sockaddr *)&ep->sa;

    for (size_t i = 0; i < nlocal; i++)
        if (local[i].family == sa->sa_family &&
            prefix_match(local[i].addr, sockaddr_bytes(sa), local[i].prefix))
            return true;
    return false;
}

/* Stable: addresses on a network we share first (no router in between,
 * and most likely the one the peer's launcher meant), the rest after, each
 * group in URI order. URIs are short, so moving entries one by one is fine. */
void oob_endpoints_order(const oob_ifaddr_t *local, size_t nlocal,
                         oob_endpoint_t *eps, size_t n)
{
    size_t near = 0;

    for (size_t i = 0; i < n; i++) {
        if (!endpoint_is_near(local, nlocal, &eps[i]))
            continue;
        oob_endpoint_t ep = eps[i];
        memmove(&eps[near + 1], &eps[near], (i - near) * sizeof(*eps));
        eps[near++] = ep;
    }
}
