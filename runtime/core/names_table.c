/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HNP's table of published names (see names.h): a list, since a job
 * publishes a handful of names (a port or two per connect/accept), and
 * the families of spawned jobs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_errors.h"
#include "names.h"

typedef struct name {
    struct name *next;
    char *key;
    void *value;
    size_t len;
    uint32_t scope;
    uint32_t jobid, rank;
    bool persist;
} name_t;

typedef struct family {
    struct family *next;
    uint32_t jobid;
    uint32_t family;
} family_t;

struct hnp_names {
    name_t *names;
    family_t *families;
    size_t count;
};

int hnp_names_create(hnp_names_t **out)
{
    *out = calloc(1, sizeof(**out));
    return *out != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;
}

static void name_free(name_t *n)
{
    free(n->key);
    free(n->value);
    free(n);
}

void hnp_names_destroy(hnp_names_t *t)
{
    if (t == NULL)
        return;
    while (t->names != NULL) {
        name_t *n = t->names;
        t->names = n->next;
        name_free(n);
    }
    while (t->families != NULL) {
        family_t *f = t->families;
        t->families = f->next;
        free(f);
    }
    free(t);
}

uint32_t hnp_names_family(const hnp_names_t *t, uint32_t jobid)
{
    for (const family_t *f = t->families; f != NULL; f = f->next)
        if (f->jobid == jobid)
            return f->family;
    return jobid;
}

int hnp_names_set_family(hnp_names_t *t, uint32_t jobid, uint32_t parent)
{
    family_t *f;

    if (jobid == 0 || parent == 0 || jobid == parent)
        return HNP_ERR_BAD_PARAM;
    if ((f = calloc(1, sizeof(*f))) == NULL)
        return HNP_ERR_NOMEM;
    f->jobid = jobid;
    f->family = hnp_names_family(t, parent);
    f->next = t->families;
    t->families = f;
    return HNP_SUCCESS;
}

static name_t *find(const hnp_names_t *t, uint32_t scope, const char *key)
{
    for (name_t *n = t->names; n != NULL; n = n->next)
        if (n->scope == scope && strcmp(n->key, key) == 0)
            return n;
    return NULL;
}

/* What @p family sees under @p key: its own, else the session's. */
static name_t *visible(const hnp_names_t *t, uint32_t family,
                       const char *key)
{
    name_t *n = family != 0 ? find(t, family, key) : NULL;
    return n != NULL ? n : find(t, 0, key);
}

static int check_puts(const hnp_names_t *t, uint32_t scope,
                      const hnp_names_put_t *puts, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (puts[i].key == NULL || puts[i].key[0] == '\0' ||
            (puts[i].len > 0 && puts[i].value == NULL))
            return HNP_ERR_BAD_PARAM;
        if (find(t, scope, puts[i].key) != NULL)
            return HNP_ERR_EXISTS;
        for (size_t j = 0; j < i; j++)
            if (strcmp(puts[j].key, puts[i].key) == 0)
                return HNP_ERR_EXISTS;
    }
    return HNP_SUCCESS;
}

static name_t *name_new(const hnp_names_put_t *put)
{
    name_t *n = calloc(1, sizeof(*n));

    if (n == NULL || (n->key = strdup(put->key)) == NULL ||
        (n->value = malloc(put->len + 1)) == NULL) {
        if (n != NULL)
            name_free(n);
        return NULL;
    }
    if (put->len > 0)
        memcpy(n->value, put->value, put->len);
    ((char *)n->value)[put->len] = '\0';
    n->len = put->len;
    return n;
}

int hnp_names_publish(hnp_names_t *t, uint32_t scope, uint32_t jobid,
                      uint32_t rank, const hnp_names_put_t *puts,
                      size_t count, bool persist)
{
    name_t *made = NULL, *last = NULL;
    int rc = count > 0 ? check_puts(t, scope, puts, count)
                       : HNP_ERR_BAD_PARAM;

    for (size_t i = 0; rc == HNP_SUCCESS && i < count; i++) {
        name_t *n = name_new(&puts[i]);
        if (n == NULL) {
            rc = HNP_ERR_NOMEM;
            break;
        }
        *n = (name_t){ .next = made, .key = n->key, .value = n->value,
                       .len = n->len, .scope = scope, .jobid = jobid,
                       .rank = rank, .persist = persist };
        if (last == NULL)
            last = n;
        made = n;
    }
    if (rc != HNP_SUCCESS) {
        while (made != NULL) {
            name_t *n = made;
            made = n->next;
            name_free(n);
        }
        return rc;
    }
    last->next = t->names;
    t->names = made;
    t->count += count;
    return HNP_SUCCESS;
}

size_t hnp_names_lookup(const hnp_names_t *t, uint32_t family,
                        const char *const *keys, size_t count,
                        hnp_names_entry_t *found)
{
    size_t nfound = 0;

    for (size_t i = 0; i < count; i++) {
        const name_t *n = keys[i] != NULL ? visible(t, family, keys[i])
                                          : NULL;
        if (n == NULL) {
            memset(&found[i], 0, sizeof(found[i]));
            continue;
        }
        found[i] = (hnp_names_entry_t){ .key = n->key, .value = n->value,
                                        .len = n->len, .jobid = n->jobid,
                                        .rank = n->rank };
        nfound++;
    }
    return nfound;
}

static void unlink_name(hnp_names_t *t, name_t *gone)
{
    for (name_t **p = &t->names; *p != NULL; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            name_free(gone);
            t->count--;
            return;
        }
}

/* Remove every name for which @p drop says so; how many went. */
static size_t remove_if(hnp_names_t *t, bool (*drop)(const name_t *n,
                                                     uint32_t jobid,
                                                     uint32_t rank),
                        uint32_t jobid, uint32_t rank)
{
    size_t gone = 0;
    name_t **p = &t->names;

    while (*p != NULL) {
        name_t *n = *p;
        if (!drop(n, jobid, rank)) {
            p = &n->next;
            continue;
        }
        *p = n->next;
        name_free(n);
        t->count--;
        gone++;
    }
    return gone;
}

static bool published_by(const name_t *n, uint32_t jobid, uint32_t rank)
{
    return n->jobid == jobid && n->rank == rank;
}

static bool ends_with_job(const name_t *n, uint32_t jobid, uint32_t rank)
{
    (void)rank;
    return n->jobid == jobid && !n->persist;
}

int hnp_names_unpublish(hnp_names_t *t, uint32_t family, uint32_t jobid,
                        uint32_t rank, const char *const *keys, size_t count)
{
    int rc = HNP_SUCCESS;

    if (count == 0)
        return remove_if(t, published_by, jobid, rank) > 0
                   ? HNP_SUCCESS : HNP_ERR_NOT_FOUND;
    for (size_t i = 0; i < count; i++) {
        name_t *n = keys[i] != NULL ? visible(t, family, keys[i]) : NULL;
        if (n == NULL)
            rc = HNP_ERR_NOT_FOUND;
        else
            unlink_name(t, n);
    }
    return rc;
}

void hnp_names_job_end(hnp_names_t *t, uint32_t jobid)
{
    remove_if(t, ends_with_job, jobid, 0);
    for (family_t **p = &t->families; *p != NULL; p = &(*p)->next)
        if ((*p)->jobid == jobid) {
            family_t *f = *p;
            *p = f->next;
            free(f);
            return;
        }
}

size_t hnp_names_count(const hnp_names_t *t)
{
    return t->count;
}
