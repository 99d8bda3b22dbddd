/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trees that no formula describes, such as the greedy spawn tree: their
 * parent and children are stored once, in one allocation, and never change
 * afterwards, so every copy of an hnp_tree_t can read them without locks or
 * reference counts.
 *
 * Besides parent and children (in spawn order) the shape keeps each
 * vertex's depth, so that "is v below root" is a short walk up from v, and
 * the breadth-first order of the whole tree with each vertex's position in
 * it. The breadth-first order of a subtree is the whole tree's order with
 * the other vertices left out (both order a level by the path of child
 * indices from the top), which lets hnp_tree_descendants() fill a buffer
 * too small for the whole subtree without scratch memory.
 */
#include "config.h"

#include <stdlib.h>

#include "tree_internal.h"

struct hnp_tree_shape {
    uint32_t n;
    uint32_t height;
    hnp_vpid_t *parent;   /* [n]; parent[0] = HNP_VPID_INVALID */
    uint32_t *first;      /* [n + 1]; children of v: kids[first[v]..first[v+1]) */
    hnp_vpid_t *kids;     /* [n] (n - 1 used) */
    uint32_t *depth;      /* [n] */
    uint32_t *size;       /* [n]; vertices in v's subtree, v included */
    hnp_vpid_t *bfs;      /* [n]; breadth-first order from the root */
    uint32_t *bfs_pos;    /* [n]; v's index in bfs */
};

/* Children lists from the parents: counting sort by parent, which keeps
 * each list in increasing vpid order. */
static void fill_children(hnp_tree_shape_t *s)
{
    uint32_t n = s->n;

    for (uint32_t v = 1; v < n; v++)
        s->first[s->parent[v] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        s->first[v + 1] += s->first[v];
    /* bfs_pos serves as the fill cursor until fill_orders() rewrites it. */
    for (uint32_t v = 0; v < n; v++)
        s->bfs_pos[v] = s->first[v];
    for (uint32_t v = 1; v < n; v++)
        s->kids[s->bfs_pos[s->parent[v]]++] = v;
}

/* Depth, subtree sizes, breadth-first order. Parents precede children in
 * vpid order, so one forward and one backward pass suffice. */
static void fill_orders(hnp_tree_shape_t *s)
{
    uint32_t n = s->n;
    uint32_t tail = 1;

    s->height = 0;
    s->depth[0] = 0;
    for (uint32_t v = 1; v < n; v++) {
        s->depth[v] = s->depth[s->parent[v]] + 1;
        if (s->depth[v] > s->height)
            s->height = s->depth[v];
    }
    for (uint32_t v = 0; v < n; v++)
        s->size[v] = 1;
    for (uint32_t v = n - 1; v > 0; v--)
        s->size[s->parent[v]] += s->size[v];
    s->bfs[0] = 0;
    for (uint32_t head = 0; head < n; head++) {
        hnp_vpid_t u = s->bfs[head];
        s->bfs_pos[u] = head;
        for (uint32_t c = s->first[u]; c < s->first[u + 1]; c++)
            s->bfs[tail++] = s->kids[c];
    }
}

hnp_tree_shape_t *explicit_shape_create(uint32_t n, const hnp_vpid_t *parent)
{
    size_t words = (size_t)n * 7 + 1;
    hnp_tree_shape_t *s;
    uint32_t *w;

    if (n == 0)
        return NULL;
    s = calloc(1, sizeof(*s) + words * sizeof(uint32_t));
    if (s == NULL)
        return NULL;
    w = (uint32_t *)(s + 1);
    s->n = n;
    s->parent = w;
    s->first = w + n;
    s->kids = s->first + n + 1;
    s->depth = s->kids + n;
    s->size = s->depth + n;
    s->bfs = s->size + n;
    s->bfs_pos = s->bfs + n;
    s->parent[0] = HNP_VPID_INVALID;
    for (uint32_t v = 1; v < n; v++)
        s->parent[v] = parent[v];
    fill_children(s);
    fill_orders(s);
    return s;
}

void explicit_shape_destroy(hnp_tree_shape_t *s)
{
    free(s);
}

hnp_vpid_t explicit_parent(const hnp_tree_shape_t *s, hnp_vpid_t v)
{
    return s->parent[v];
}

uint32_t explicit_children(const hnp_tree_shape_t *s, hnp_vpid_t v,
                           hnp_vpid_t *out, uint32_t max)
{
    uint32_t count = s->first[v + 1] - s->first[v];

    for (uint32_t i = 0; out != NULL && i < count && i < max; i++)
        out[i] = s->kids[s->first[v] + i];
    return count;
}

bool explicit_in_subtree(const hnp_tree_shape_t *s, hnp_vpid_t root,
                         hnp_vpid_t v)
{
    while (s->depth[v] > s->depth[root])
        v = s->parent[v];
    return v == root;
}

/* The caller's buffer is the queue of the breadth-first walk. */
static void descendants_by_queue(const hnp_tree_shape_t *s, hnp_vpid_t v,
                                 hnp_vpid_t *out)
{
    uint32_t tail = explicit_children(s, v, out, UINT32_MAX);

    for (uint32_t head = 0; head < tail; head++) {
        hnp_vpid_t u = out[head];
        for (uint32_t c = s->first[u]; c < s->first[u + 1]; c++)
            out[tail++] = s->kids[c];
    }
}

/* A buffer shorter than the subtree: filter the whole tree's order. */
static void descendants_by_scan(const hnp_tree_shape_t *s, hnp_vpid_t v,
                                hnp_vpid_t *out, uint32_t max)
{
    uint32_t written = 0;

    for (uint32_t i = s->bfs_pos[v] + 1; i < s->n && written < max; i++)
        if (explicit_in_subtree(s, v, s->bfs[i]))
            out[written++] = s->bfs[i];
}

uint32_t explicit_descendants(const hnp_tree_shape_t *s, hnp_vpid_t v,
                              hnp_vpid_t *out, uint32_t max)
{
    uint32_t count = s->size[v] - 1;

    if (out == NULL || max == 0 || count == 0)
        return count;
    if (max >= count)
        descendants_by_queue(s, v, out);
    else
        descendants_by_scan(s, v, out, max);
    return count;
}

hnp_vpid_t explicit_child_towards(const hnp_tree_shape_t *s, hnp_vpid_t self,
                                  hnp_vpid_t dest)
{
    while (s->parent[dest] != self)
        dest = s->parent[dest];
    return dest;
}

uint32_t explicit_depth(const hnp_tree_shape_t *s, hnp_vpid_t v)
{
    return s->depth[v];
}

uint32_t explicit_height(const hnp_tree_shape_t *s)
{
    return s->height;
}
