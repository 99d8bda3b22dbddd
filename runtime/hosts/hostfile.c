/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Node lists: the hosts of a job, from --host ("a,b:4,node[1-8]:2") and
 * from hostfiles ("node[01-16] slots=8", or MPICH's "node1:8"; '#'
 * comments).
 *
 * A name given twice is one node, its slots counted as Open MPI 4.1 counts
 * them (see node_merge). The parsers collect every node of their input in
 * a list of their own, with a hash index so that a hostfile of a hundred thousand lines is
 * not quadratic, and merge it into the caller's list only when the whole
 * input is good: a hostfile with an error on its last line leaves the list
 * as it was.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "hostlist.h"

/* An index from name to position in a nodes array: open addressing over
 * positions + 1 (0 marks a free slot), kept at most half full. */
typedef struct name_index {
    size_t *slot;
    size_t size; /* a power of two */
} name_index_t;

/* The nodes a parser has read so far, before they reach the caller. */
typedef struct pending {
    hnp_nodelist_t list;
    name_index_t index;
    /* A hostfile lists a node once per slot or once with slots=N: a
     * count on a later line for the same node is refused, as Open MPI
     * refuses it, since no sum of the two is what the author meant. */
    bool refuse_late_count;
    size_t expanded; /* names read, given twice or not */
} pending_t;

static const char blanks[] = " \t\r\n\v\f";

/* ------------------------------------------------------------- storage */

/* Room for @p count nodes. The array doubles as it grows, so that a list of
 * n nodes costs log n reallocations rather than n: under valgrind or ASan
 * every realloc copies the whole array, and a hostfile of 200,000 names
 * took minutes. A capacity of 0 says nothing of the array (the caller may
 * have allocated it some other way), so it is reallocated on first growth. */
static int nodes_reserve(hnp_nodelist_t *list, size_t count)
{
    size_t cap = list->capacity > 8 ? list->capacity : 8;

    if (count <= list->capacity)
        return HNP_SUCCESS;
    while (cap < count) {
        if (cap > SIZE_MAX / 2 / sizeof(hnp_node_t))
            return HNP_ERR_NOMEM;
        cap *= 2;
    }
    hnp_node_t *grown = realloc(list->nodes, cap * sizeof(*grown));
    if (grown == NULL)
        return HNP_ERR_NOMEM;
    list->nodes = grown;
    list->capacity = cap;
    return HNP_SUCCESS;
}

static int node_add_slots(hnp_node_t *node, uint32_t slots, bool slots_given)
{
    if (slots > UINT32_MAX - node->slots)
        return HNP_ERR_BAD_PARAM;
    node->slots += slots;
    node->slots_given = node->slots_given || slots_given;
    return HNP_SUCCESS;
}

/* Whether merging @p more into @p node (see node_merge) passes UINT32_MAX. */
static bool node_merge_overflows(const hnp_node_t *node,
                                 const hnp_node_t *more)
{
    uint32_t have = node->slots_given ? node->slots : 1;

    return (more->slots_given ? more->slots : 1) > UINT32_MAX - have;
}

/* A name met again in --host or a hostfile, as Open MPI 4.1 counts it:
 * each mention without a count is one slot, one with a count brings that
 * many, and the sum is a given count. So "a,a,b" gives a 2 slots, and a
 * PBS nodefile (a node once per slot) gives each node its lines. */
static int node_merge(hnp_node_t *node, uint32_t slots, bool slots_given)
{
    uint32_t have = node->slots_given ? node->slots : 1;
    uint32_t more = slots_given ? slots : 1;

    if (more > UINT32_MAX - have)
        return HNP_ERR_BAD_PARAM;
    node->slots = have + more;
    node->slots_given = true;
    return HNP_SUCCESS;
}

hnp_node_t *hnp_nodelist_find(const hnp_nodelist_t *list, const char *name)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->nodes[i].name, name) == 0)
            return &list->nodes[i];
    return NULL;
}

int hnp_nodelist_add(hnp_nodelist_t *list, const char *name, uint32_t slots,
                     bool slots_given)
{
    if (list == NULL || name == NULL || name[0] == '\0')
        return HNP_ERR_BAD_PARAM;
    hnp_node_t *known = hnp_nodelist_find(list, name);
    if (known != NULL)
        return node_add_slots(known, slots, slots_given);
    char *copy = strdup(name);
    if (copy == NULL || nodes_reserve(list, list->count + 1) < 0) {
        free(copy);
        return HNP_ERR_NOMEM;
    }
    list->nodes[list->count++] =
        (hnp_node_t){ .name = copy, .slots = slots, .slots_given = slots_given };
    return HNP_SUCCESS;
}

void hnp_nodelist_free(hnp_nodelist_t *list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->nodes[i].name);
    free(list->nodes);
    list->nodes = NULL;
    list->count = 0;
    list->capacity = 0;
}

/* ----------------------------------------------------------- the index */

static size_t hash_name(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return (size_t)(h ^ (h >> 32));
}

/* The slot holding @p name, or the free slot where it would go. */
static size_t *index_lookup(const name_index_t *ix, const hnp_node_t *nodes,
                            const char *name)
{
    size_t mask = ix->size - 1;

    for (size_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
        size_t *slot = &ix->slot[i];
        if (*slot == 0 || strcmp(nodes[*slot - 1].name, name) == 0)
            return slot;
    }
}

/* Index the first @p count nodes in a table a quarter full, so that it
 * takes as many again before pending_add rebuilds it at half full. */
static int index_build(name_index_t *ix, const hnp_node_t *nodes,
                       size_t count)
{
    size_t size = 16;

    while (size < 4 * (count + 1))
        size *= 2;
    size_t *slot = calloc(size, sizeof(*slot));
    if (slot == NULL)
        return HNP_ERR_NOMEM;
    free(ix->slot);
    ix->slot = slot;
    ix->size = size;
    for (size_t i = 0; i < count; i++)
        *index_lookup(ix, nodes, nodes[i].name) = i + 1;
    return HNP_SUCCESS;
}

/* ----------------------------------------------------- pending entries */

static void pending_free(pending_t *p)
{
    hnp_nodelist_free(&p->list);
    free(p->index.slot);
    p->index.slot = NULL;
}

/* Add a node, taking ownership of @p name in every case. A count for a
 * node listed before, where refused, is HNP_ERR_EXISTS and a sentence. */
static int pending_add(pending_t *p, char *name, uint32_t slots,
                       bool slots_given, char *err, size_t errlen)
{
    hnp_nodelist_t *l = &p->list;
    int rc = HNP_SUCCESS;

    if (2 * (l->count + 1) >= p->index.size)
        rc = index_build(&p->index, l->nodes, l->count);
    if (rc == HNP_SUCCESS)
        rc = nodes_reserve(l, l->count + 1);
    if (rc < 0) {
        free(name);
        return rc;
    }
    size_t *slot = index_lookup(&p->index, l->nodes, name);
    if (*slot != 0 && p->refuse_late_count && slots_given) {
        hnp_err_set(err, errlen, "%s is listed before: list a node once "
                    "per slot, or once with slots=N, not both", name);
        rc = HNP_ERR_EXISTS;
    } else if (*slot != 0)
        rc = node_merge(&l->nodes[*slot - 1], slots, slots_given);
    if (*slot != 0) {
        free(name);
        return rc;
    }
    l->nodes[l->count] =
        (hnp_node_t){ .name = name, .slots = slots, .slots_given = slots_given };
    *slot = ++l->count;
    return HNP_SUCCESS;
}

/* Expand @p expr and add each name with @p slots. */
static int pending_add_expression(pending_t *p, const char *expr,
                                  uint32_t slots, bool slots_given,
                                  char *err, size_t errlen)
{
    char **names;
    size_t count, i;
    int rc = hnp_hostlist_expand(expr, &names, &count, err, errlen);

    if (rc < 0)
        return rc;
    /* Each expression is bounded, but lines are many: bound them all. */
    if (count > HNP_HOSTLIST_MAX_NAMES - p->expanded) {
        hnp_hostlist_free(names, count);
        hnp_err_set(err, errlen, "more than %u host names in all",
                    HNP_HOSTLIST_MAX_NAMES);
        return HNP_ERR_BAD_PARAM;
    }
    p->expanded += count;
    for (i = 0; i < count && rc == HNP_SUCCESS; i++)
        rc = pending_add(p, names[i], slots, slots_given, err, errlen);
    for (; i < count; i++)
        free(names[i]);
    free(names);
    if (rc == HNP_ERR_EXISTS)
        rc = HNP_ERR_BAD_PARAM;
    else if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory reading host names");
    else if (rc < 0)
        hnp_err_set(err, errlen, "host expression \"%s\": more than %u "
                    "slots on one node", expr, UINT32_MAX);
    return rc;
}

/* Move every pending node into @p list: nothing changes unless all fit. */
static int pending_commit(pending_t *p, hnp_nodelist_t *list, char *err,
                          size_t errlen)
{
    name_index_t ix = { NULL, 0 };
    size_t added = list->count;
    const char *too_full = NULL;
    int rc = index_build(&ix, list->nodes, list->count);

    for (size_t i = 0; rc == HNP_SUCCESS && i < p->list.count; i++) {
        const hnp_node_t *n = &p->list.nodes[i];
        size_t *slot = index_lookup(&ix, list->nodes, n->name);
        if (*slot == 0)
            added++;
        else if (node_merge_overflows(&list->nodes[*slot - 1], n))
            too_full = n->name;
        rc = too_full != NULL ? HNP_ERR_BAD_PARAM : HNP_SUCCESS;
    }
    if (rc == HNP_SUCCESS)
        rc = nodes_reserve(list, added);
    for (size_t i = 0; rc == HNP_SUCCESS && i < p->list.count; i++) {
        hnp_node_t *n = &p->list.nodes[i];
        size_t *slot = index_lookup(&ix, list->nodes, n->name);
        if (*slot != 0) {
            node_merge(&list->nodes[*slot - 1], n->slots, n->slots_given);
            continue;
        }
        /* New names are distinct among themselves: no need to index them. */
        list->nodes[list->count++] = *n;
        n->name = NULL;
    }
    free(ix.slot);
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory adding hosts");
    else if (rc < 0)
        hnp_err_set(err, errlen, "more than %u slots on %s", UINT32_MAX,
                    too_full);
    return rc;
}

/* ------------------------------------------------------------- parsing */

/* A count of @p len digits no smaller than @p min. */
static int parse_count(const char *s, size_t len, uint32_t min, uint32_t *out)
{
    uint64_t v = 0;

    if (len == 0 || len > 10)
        return HNP_ERR_BAD_PARAM;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return HNP_ERR_BAD_PARAM;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v < min || v > UINT32_MAX)
        return HNP_ERR_BAD_PARAM;
    *out = (uint32_t)v;
    return HNP_SUCCESS;
}

/* Where the optional ":slots" of a --host item starts: the last colon
 * outside brackets, so that "n[1-2:3" stays one (bad) expression. More
 * than one colon outside brackets is a bare IPv6 address ("fe80::1"),
 * which takes no slot count, as Open MPI reads it; "[fe80::1]:4" has one. */
static const char *find_slot_colon(const char *item, size_t len)
{
    const char *colon = NULL;
    int depth = 0, colons = 0;

    for (size_t i = 0; i < len; i++) {
        if (item[i] == '[')
            depth++;
        else if (item[i] == ']' && depth > 0)
            depth--;
        else if (item[i] == ':' && depth == 0) {
            colon = item + i;
            colons++;
        }
    }
    return colons == 1 ? colon : NULL;
}

/* "[fe80::1]" is the IPv6 address inside the brackets (a range group
 * never holds a colon): a node is the same node however it is written,
 * and the agent gets the address as ssh takes it. */
static void unwrap_ipv6(const char **name, size_t *len)
{
    const char *s = *name;

    if (*len > 2 && s[0] == '[' && s[*len - 1] == ']' &&
        memchr(s, ':', *len) != NULL) {
        *name = s + 1;
        *len -= 2;
    }
}

/* One item of --host: "name", "name:4", "node[1-8]:2". */
static int parse_host_item(pending_t *p, const char *item, size_t len,
                           char *err, size_t errlen)
{
    while (len > 0 && strchr(blanks, item[len - 1]) != NULL)
        len--;
    const char *colon = find_slot_colon(item, len);
    size_t namelen = colon != NULL ? (size_t)(colon - item) : len;
    uint32_t slots = 0;

    while (namelen > 0 && strchr(blanks, item[namelen - 1]) != NULL)
        namelen--;
    if (colon != NULL) {
        const char *num = colon + 1 + strspn(colon + 1, blanks);
        size_t numlen = (size_t)(item + len - num);
        if (parse_count(num, numlen, 1, &slots) < 0) {
            hnp_err_set(err, errlen, "bad slot count in \"%.*s\": want a "
                        "number from 1 to %u after the ':'", (int)len, item,
                        UINT32_MAX);
            return HNP_ERR_BAD_PARAM;
        }
        if (namelen == 0) {
            hnp_err_set(err, errlen, "no host name before \"%.*s\"",
                        (int)len, item);
            return HNP_ERR_BAD_PARAM;
        }
    }
    unwrap_ipv6(&item, &namelen);
    char *expr = strndup(item, namelen);
    if (expr == NULL) {
        hnp_err_set(err, errlen, "out of memory reading host names");
        return HNP_ERR_NOMEM;
    }
    int rc = pending_add_expression(p, expr, slots, colon != NULL, err,
                                    errlen);
    free(expr);
    return rc;
}

int hnp_nodelist_parse_hosts(hnp_nodelist_t *list, const char *text,
                             char *err, size_t errlen)
{
    pending_t p = { { NULL, 0, 0 }, { NULL, 0 }, false, 0 };
    int depth = 0, rc = HNP_SUCCESS;
    const char *start;

    if (list == NULL || text == NULL) {
        hnp_err_set(err, errlen, "no host list given");
        return HNP_ERR_BAD_PARAM;
    }
    start = text + strspn(text, blanks);
    if (*start == '\0') {
        hnp_err_set(err, errlen, "empty host list");
        return HNP_ERR_BAD_PARAM;
    }
    for (const char *s = start; rc == HNP_SUCCESS; s++) {
        /* Commas inside brackets belong to the range. An unbalanced bracket
         * keeps the rest together, and the expansion names it. */
        depth += *s == '[' ? 1 : (*s == ']' && depth > 0 ? -1 : 0);
        if (*s != '\0' && (*s != ',' || depth > 0))
            continue;
        if (s == start) {
            hnp_err_set(err, errlen, "host list \"%s\": empty name before "
                        "or after a comma", text);
            rc = HNP_ERR_BAD_PARAM;
            break;
        }
        rc = parse_host_item(&p, start, (size_t)(s - start), err, errlen);
        if (*s == '\0')
            break;
        start = s + 1 + strspn(s + 1, blanks);
    }
    if (rc == HNP_SUCCESS)
        rc = pending_commit(&p, list, err, errlen);
    pending_free(&p);
    return rc;
}

/* ------------------------------------------------------------ hostfile */

/* Where a hostfile line is, for messages. */
typedef struct line_ctx {
    const char *path;
    unsigned lineno;
    char *err;
    size_t errlen;
} line_ctx_t;

static void line_error(const line_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void line_error(const line_ctx_t *c, const char *fmt, ...)
{
    char why[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    hnp_err_set(c->err, c->errlen, "%s:%u: %s", c->path, c->lineno, why);
}

/* One "key=value" (blanks around '=' allowed) at *pos; moves *pos past it.
 * Sets *slots for "slots=N"; "max_slots=N" is checked, then ignored, since
 * the mapper never fills a node past its slots unless told to. */
static int parse_keyword(const line_ctx_t *c, const char **pos,
                         uint32_t *slots, bool *slots_given)
{
    const char *key = *pos, *s;
    size_t keylen = strcspn(key, "= \t\r\n\v\f");
    uint32_t value;

    s = key + keylen + strspn(key + keylen, blanks);
    if (*s != '=') {
        line_error(c, "\"%.*s\" is not KEY=VALUE (a line is: HOST "
                   "[slots=N] [max_slots=N])", (int)keylen, key);
        return HNP_ERR_BAD_PARAM;
    }
    s++;
    s += strspn(s, blanks);
    size_t vallen = strcspn(s, blanks);
    int textlen = (int)(s + vallen - key);
    *pos = s + vallen;
    if (keylen == 5 && strncmp(key, "slots", 5) == 0) {
        if (parse_count(s, vallen, 1, &value) < 0) {
            line_error(c, "bad slot count \"%.*s\": want a number from 1 "
                       "to %u", textlen, key, UINT32_MAX);
            return HNP_ERR_BAD_PARAM;
        }
        if (*slots_given) {
            line_error(c, "\"%.*s\": slots given twice", textlen, key);
            return HNP_ERR_BAD_PARAM;
        }
        *slots = value;
        *slots_given = true;
        return HNP_SUCCESS;
    }
    if (keylen == 9 && strncmp(key, "max_slots", 9) == 0) {
        if (parse_count(s, vallen, 0, &value) == HNP_SUCCESS)
            return HNP_SUCCESS;
        line_error(c, "bad \"%.*s\": want a number", textlen, key);
        return HNP_ERR_BAD_PARAM;
    }
    line_error(c, "unknown keyword \"%.*s\" (a line is: HOST [slots=N] "
               "[max_slots=N])", textlen, key);
    return HNP_ERR_BAD_PARAM;
}

/* The host token of a line: a host expression, optionally followed by
 * ":N", the slots in MPICH's machinefile format ("n1:4", "[fe80::1]:4").
 * Sets *len to the expression's length and the slots it gives. */
static int parse_host_token(const line_ctx_t *c, const char *host,
                            size_t *len, uint32_t *slots, bool *slots_given)
{
    const char *colon = find_slot_colon(host, *len);
    size_t before_group = strcspn(host, "[");

    /* Only before any bracket: an unbalanced '[' swallows the rest of the
     * line, and the expansion gives the better message for it. */
    if (memchr(host, '=', before_group < *len ? before_group : *len) != NULL) {
        line_error(c, "no host name before \"%.*s\"", (int)*len, host);
        return HNP_ERR_BAD_PARAM;
    }
    if (colon == NULL)
        return HNP_SUCCESS;
    size_t numlen = (size_t)(host + *len - colon - 1);
    if (colon == host || parse_count(colon + 1, numlen, 1, slots) < 0) {
        line_error(c, "\"%.*s\": expected HOST:N, N a number of slots from "
                   "1 to %u (or HOST slots=N)", (int)*len, host, UINT32_MAX);
        return HNP_ERR_BAD_PARAM;
    }
    *slots_given = true;
    *len = (size_t)(colon - host);
    return HNP_SUCCESS;
}

/* Length of the host token: blanks inside brackets ("n[1, 3]") are part
 * of it. An unbalanced '[' takes the rest, and the expansion names it. */
static size_t host_token_length(const char *s)
{
    int depth = 0;
    size_t i = 0;

    for (; s[i] != '\0'; i++) {
        if (s[i] == '[')
            depth++;
        else if (s[i] == ']' && depth > 0)
            depth--;
        else if (depth == 0 && strchr(blanks, s[i]) != NULL)
            break;
    }
    return i;
}

static int parse_hostfile_line(pending_t *p, const line_ctx_t *c, char *line)
{
    char *hash = strchr(line, '#');
    uint32_t slots = 0;
    bool slots_given = false;
    char why[512];

    if (hash != NULL)
        *hash = '\0';
    const char *host = line + strspn(line, blanks);
    size_t hostlen = host_token_length(host);
    if (hostlen == 0)
        return HNP_SUCCESS;
    const char *rest = host + hostlen;
    int rc = parse_host_token(c, host, &hostlen, &slots, &slots_given);
    for (const char *s = rest; rc == HNP_SUCCESS;) {
        s += strspn(s, blanks);
        if (*s == '\0')
            break;
        rc = parse_keyword(c, &s, &slots, &slots_given);
    }
    if (rc < 0)
        return rc;
    unwrap_ipv6(&host, &hostlen);
    host = strndup(host, hostlen);
    if (host == NULL) {
        line_error(c, "out of memory");
        return HNP_ERR_NOMEM;
    }
    rc = pending_add_expression(p, host, slots, slots_given, why,
                                sizeof(why));
    if (rc < 0)
        line_error(c, "%s", why);
    free((char *)host);
    return rc;
}

static int read_hostfile(pending_t *p, FILE *f, line_ctx_t *c)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = HNP_SUCCESS;

    ssize_t len;

    while (rc == HNP_SUCCESS && (len = getline(&line, &cap, f)) != -1) {
        c->lineno++;
        /* A NUL would end the line early, and the host name with it. */
        size_t text = strlen(line);
        if (text < (size_t)len) {
            line_error(c, "a NUL byte at column %zu: a hostfile is text",
                       text + 1);
            rc = HNP_ERR_BAD_PARAM;
        } else
            rc = parse_hostfile_line(p, c, line);
    }
    free(line);
    if (rc == HNP_SUCCESS && ferror(f)) {
        hnp_err_set(c->err, c->errlen, "cannot read hostfile %s: %s",
                    c->path, strerror(errno));
        rc = HNP_ERR_IO;
    }
    if (rc == HNP_SUCCESS && p->list.count == 0) {
        hnp_err_set(c->err, c->errlen, "hostfile %s names no hosts",
                    c->path);
        rc = HNP_ERR_BAD_PARAM;
    }
    return rc;
}

int hnp_nodelist_parse_hostfile(hnp_nodelist_t *list, const char *path,
                                char *err, size_t errlen)
{
    pending_t p = { { NULL, 0, 0 }, { NULL, 0 }, true, 0 };
    line_ctx_t c = { path, 0, err, errlen };

    if (list == NULL || path == NULL) {
        hnp_err_set(err, errlen, "no hostfile given");
        return HNP_ERR_BAD_PARAM;
    }
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        int e = errno;
        hnp_err_set(err, errlen, "cannot open hostfile %s: %s", path,
                    strerror(e));
        return e == ENOENT ? HNP_ERR_NOT_FOUND : HNP_ERR_IO;
    }
    int rc = read_hostfile(&p, f, &c);
    fclose(f);
    if (rc == HNP_SUCCESS)
        rc = pending_commit(&p, list, err, errlen);
    pending_free(&p);
    return rc;
}

/* ------------------------------------------------------------ filter */

/* Open MPI's --host with --hostfile: the hostfile is what there is, --host
 * picks from it. */
int hnp_nodelist_filter(hnp_nodelist_t *pool, const hnp_nodelist_t *wanted,
                        const char *pool_name, char *err, size_t errlen)
{
    name_index_t ix = { NULL, 0 };
    hnp_nodelist_t kept = { NULL, 0, 0 };
    int rc = index_build(&ix, pool->nodes, pool->count);

    if (rc == HNP_SUCCESS)
        rc = nodes_reserve(&kept, wanted->count);
    for (size_t i = 0; rc == HNP_SUCCESS && i < wanted->count; i++) {
        const hnp_node_t *w = &wanted->nodes[i];
        size_t *slot = index_lookup(&ix, pool->nodes, w->name);
        if (*slot == 0) {
            hnp_err_set(err, errlen, "--host names %s, which %s does not "
                        "list (with both, --host picks among its nodes)",
                        w->name, pool_name);
            rc = HNP_ERR_NOT_FOUND;
            break;
        }
        const hnp_node_t *have = &pool->nodes[*slot - 1];
        hnp_node_t *k = &kept.nodes[kept.count];
        *k = w->slots_given ? *w : *have;
        k->name = strdup(w->name);
        rc = k->name != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
        kept.count += rc == HNP_SUCCESS;
    }
    free(ix.slot);
    if (rc == HNP_ERR_NOMEM)
        hnp_err_set(err, errlen, "out of memory choosing hosts");
    if (rc != HNP_SUCCESS) {
        hnp_nodelist_free(&kept);
        return rc;
    }
    hnp_nodelist_free(pool);
    *pool = kept;
    return HNP_SUCCESS;
}
