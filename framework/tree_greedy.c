/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launch model of paper 001 and its greedy tree.
 *
 * Model: a process starts its children one after another, SEQ apart, and a
 * child is ready to start children of its own REM after its parent began
 * starting it. So child i (1-based) of p starts at
 * start(p) + SEQ * (i - 1) + REM, and a tree launches in the latest start.
 *
 * Greedy tree: a heap holds one open position per placed vertex, its next
 * child, keyed by the time that child would start. Each new vertex takes the
 * earliest position; that opens the parent's following position and the new
 * vertex's first one. The heap never holds more than n entries. Times are
 * computed from start(p) and i each time rather than accumulated, so the
 * builder and hnp_tree_model_time() agree to the last bit, and ties are
 * broken by the parent's vpid, so every process builds the same tree.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "hnp_errors.h"
#include "tree_internal.h"

typedef struct open_position {
    double start;      /* when the child placed here would start */
    hnp_vpid_t parent;
    uint32_t index;    /* 1-based among the parent's children */
} open_position_t;

typedef struct position_heap {
    open_position_t *slot;
    uint32_t len;
} position_heap_t;

static bool earlier(const open_position_t *a, const open_position_t *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    return a->parent < b->parent;
}

static void heap_push(position_heap_t *h, open_position_t p)
{
    uint32_t i = h->len++;

    while (i > 0 && earlier(&p, &h->slot[(i - 1) / 2])) {
        h->slot[i] = h->slot[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->slot[i] = p;
}

static open_position_t heap_pop(position_heap_t *h)
{
    open_position_t top = h->slot[0];
    open_position_t last = h->slot[--h->len];
    uint32_t i = 0;

    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && earlier(&h->slot[c + 1], &h->slot[c]))
            c++;
        if (!earlier(&h->slot[c], &last))
            break;
        h->slot[i] = h->slot[c];
        i = c;
    }
    if (h->len > 0)
        h->slot[i] = last;
    return top;
}

static double child_start(double parent_start, uint32_t index, double seq,
                          double rem)
{
    return parent_start + seq * (double)(index - 1) + rem;
}

/* Place vertices 1..n-1; writes parent[]. start[] and heap are scratch. */
static void place_greedily(uint32_t n, double seq, double rem,
                           hnp_vpid_t *parent, double *start,
                           position_heap_t *heap)
{
    open_position_t root_first = { child_start(0.0, 1, seq, rem), 0, 1 };

    start[0] = 0.0;
    heap_push(heap, root_first);
    for (hnp_vpid_t v = 1; v < n; v++) {
        open_position_t p = heap_pop(heap);
        open_position_t sibling = {
            child_start(start[p.parent], p.index + 1, seq, rem), p.parent,
            p.index + 1,
        };
        open_position_t first_child = { child_start(p.start, 1, seq, rem), v,
                                        1 };
        parent[v] = p.parent;
        start[v] = p.start;
        heap_push(heap, sibling);
        heap_push(heap, first_child);
    }
}

static bool valid_cost(double x)
{
    return isfinite(x) && x >= 0.0;
}

int hnp_tree_greedy(uint32_t n, double seq, double rem, hnp_tree_t *out)
{
    hnp_vpid_t *parent = malloc((size_t)n * sizeof(*parent));
    double *start = malloc((size_t)n * sizeof(*start));
    position_heap_t heap = { malloc(((size_t)n + 1) * sizeof(open_position_t)),
                             0 };
    hnp_tree_shape_t *shape = NULL;
    int rc = HNP_ERR_NOMEM;

    if (n == 0 || out == NULL || !valid_cost(seq) || !valid_cost(rem)) {
        rc = HNP_ERR_BAD_PARAM;
        goto out;
    }
    if (parent == NULL || start == NULL || heap.slot == NULL)
        goto out;
    place_greedily(n, seq, rem, parent, start, &heap);
    shape = explicit_shape_create(n, parent);
    if (shape == NULL)
        goto out;
    out->kind = HNP_TREE_EXPLICIT;
    out->n = n;
    out->arity = 0;
    out->shape = shape;
    rc = HNP_SUCCESS;
out:
    free(heap.slot);
    free(start);
    free(parent);
    return rc;
}

int hnp_tree_copy(const hnp_tree_t *t, hnp_tree_t *out)
{
    hnp_vpid_t *parent;
    hnp_tree_shape_t *shape;

    if (t == NULL || out == NULL)
        return HNP_ERR_BAD_PARAM;
    if (t->kind != HNP_TREE_EXPLICIT) {
        *out = *t;
        return HNP_SUCCESS;
    }
    if (t->shape == NULL || t->n == 0)
        return HNP_ERR_BAD_PARAM;
    parent = calloc(t->n, sizeof(*parent));
    if (parent == NULL)
        return HNP_ERR_NOMEM;
    for (hnp_vpid_t v = 1; v < t->n; v++)
        parent[v] = hnp_tree_parent(t, v);
    shape = explicit_shape_create(t->n, parent);
    free(parent);
    if (shape == NULL)
        return HNP_ERR_NOMEM;
    *out = (hnp_tree_t){ .kind = HNP_TREE_EXPLICIT, .n = t->n, .shape = shape };
    return HNP_SUCCESS;
}

void hnp_tree_release(hnp_tree_t *t)
{
    if (t == NULL || t->kind != HNP_TREE_EXPLICIT)
        return;
    /* The shape is immutable for its readers, not for its owner. */
    explicit_shape_destroy((hnp_tree_shape_t *)t->shape);
    t->shape = NULL;
    t->n = 0;
}

/*
 * Every kind numbers a parent below its children, so one pass in vpid order
 * finds each start after its parent's.
 */
int hnp_tree_model_time(const hnp_tree_t *t, double seq, double rem,
                        double *out)
{
    double *start;
    hnp_vpid_t *kids;
    double latest = 0.0;

    if (t == NULL || t->n == 0 || out == NULL)
        return HNP_ERR_BAD_PARAM;
    start = malloc((size_t)t->n * sizeof(*start));
    kids = malloc((size_t)t->n * sizeof(*kids));
    if (start == NULL || kids == NULL) {
        free(start);
        free(kids);
        return HNP_ERR_NOMEM;
    }
    start[0] = 0.0;
    for (hnp_vpid_t v = 0; v < t->n; v++) {
        uint32_t nk = hnp_tree_children(t, v, kids, t->n);
        for (uint32_t i = 0; i < nk; i++)
            start[kids[i]] = child_start(start[v], i + 1, seq, rem);
        if (start[v] > latest)
            latest = start[v];
    }
    free(kids);
    free(start);
    *out = latest;
    return HNP_SUCCESS;
}

int hnp_tree_extend(const hnp_tree_t *t, uint32_t n, hnp_tree_t *out)
{
    hnp_vpid_t *parent;
    hnp_tree_shape_t *shape;

    if (t == NULL || out == NULL || t->n == 0 || n < t->n)
        return HNP_ERR_BAD_PARAM;
    if (n == t->n)
        return hnp_tree_copy(t, out);
    if (t->kind == HNP_TREE_KARY && t->arity == 0) {
        *out = hnp_tree_kary(n, 0);
        return HNP_SUCCESS;
    }
    parent = calloc(n, sizeof(*parent)); /* the new ones' parent is 0 */
    if (parent == NULL)
        return HNP_ERR_NOMEM;
    for (hnp_vpid_t v = 1; v < t->n; v++)
        parent[v] = hnp_tree_parent(t, v);
    shape = explicit_shape_create(n, parent);
    free(parent);
    if (shape == NULL)
        return HNP_ERR_NOMEM;
    *out = (hnp_tree_t){ .kind = HNP_TREE_EXPLICIT, .n = n, .shape = shape };
    return HNP_SUCCESS;
}
