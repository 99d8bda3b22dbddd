/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp --plan: the launch plan, modeled instead of measured.
 *
 * The chosen spawn tree is asked of the selected plm exactly as a launch
 * asks for it, so the plan shows what would happen rather than a guess made
 * from parameter values. The alternatives are the trees paper 001 ranks in
 * its Table II (flat, k-ary for k = 2 .. 512, greedy) plus the routing
 * topology's tree, which a tree launcher may spawn along. The model's
 * costs come from the plm's launch_model (hnp_rte_launch_model): the core
 * never includes a component's header nor reads its parameters by name.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fdplan.h"
#include "hnp_errors.h"
#include "plan.h"
#include "hnp_tree.h"
#include "procs/odls.h"

#define PLAN_MAX_ROWS 16

typedef struct plan_row {
    char name[32];
    double time;   /* modeled launch time, seconds */
    size_t order;  /* insertion order: breaks ties, so greedy leads */
    bool chosen;
} plan_row_t;

typedef struct plan {
    const hnp_job_map_t *map;
    bool output_files;     /* --output-filename: two files a rank */
    uint32_t n;            /* the HNP and the daemons */
    double seq, rem;
    hnp_tree_t routing;    /* view of what the routed component describes */
    hnp_tree_t chosen;     /* owned: the plm's spawn tree for this job */
    hnp_tree_t greedy;     /* owned: built here for the comparison */
    char chosen_name[48];
    plan_row_t rows[PLAN_MAX_ROWS];
    size_t nrows;
} plan_t;

static int read_costs(plan_t *p, hnp_rte_t *rte, char *err, size_t errlen)
{
    hnp_plm_launch_model_t model;

    if (hnp_rte_launch_model(rte, &model) != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "--plan needs a launch model, which no plm "
                    "component gives");
        return HNP_ERR_NOT_FOUND;
    }
    if (!(model.seq >= 0) || !(model.rem >= 0)) {
        bool seq = !(model.seq >= 0);
        hnp_err_set(err, errlen, "%s = %g is not a duration in seconds",
                    seq ? model.seq_param : model.rem_param,
                    seq ? model.seq : model.rem);
        return HNP_ERR_BAD_PARAM;
    }
    p->seq = model.seq;
    p->rem = model.rem;
    return HNP_SUCCESS;
}

static bool same_shape(const hnp_tree_t *a, const hnp_tree_t *b)
{
    if (a->kind != b->kind || a->n != b->n)
        return false;
    /* Explicit trees come only from the greedy builder. */
    return a->kind == HNP_TREE_EXPLICIT || a->arity == b->arity;
}

static void tree_name(const hnp_tree_t *t, char *buf, size_t len)
{
    if (t->kind == HNP_TREE_EXPLICIT)
        snprintf(buf, len, "greedy");
    else if (t->kind == HNP_TREE_BINOMIAL)
        snprintf(buf, len, "binomial");
    else if (t->arity == 0)
        snprintf(buf, len, "flat");
    else
        snprintf(buf, len, "%u-ary", t->arity);
}

static int add_row(plan_t *p, const char *name, const hnp_tree_t *t)
{
    plan_row_t *row = &p->rows[p->nrows];
    int rc = hnp_tree_model_time(t, p->seq, p->rem, &row->time);

    if (rc != HNP_SUCCESS)
        return rc;
    snprintf(row->name, sizeof(row->name), "%s", name);
    row->order = p->nrows++;
    row->chosen = same_shape(t, &p->chosen);
    return HNP_SUCCESS;
}

static int by_time(const void *a, const void *b)
{
    const plan_row_t *x = a, *y = b;

    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->order < y->order ? -1 : 1;
}

/* Greedy first, so that it ranks above a tree that ties with it (the flat
 * tree of Table II's third scenario). */
static int add_rows(plan_t *p)
{
    char name[32], routed[48];
    bool chosen_listed = false;
    int rc = add_row(p, "greedy", &p->greedy);
    hnp_tree_t flat = hnp_tree_kary(p->n, 0);

    if (rc == HNP_SUCCESS)
        rc = add_row(p, "flat", &flat);
    for (uint32_t k = 2; rc == HNP_SUCCESS && k <= 512; k *= 2) {
        hnp_tree_t t = hnp_tree_kary(p->n, k);
        snprintf(name, sizeof(name), "%u-ary", k);
        rc = add_row(p, name, &t);
    }
    tree_name(&p->routing, name, sizeof(name));
    snprintf(routed, sizeof(routed), "routed (%s)", name);
    if (rc == HNP_SUCCESS)
        rc = add_row(p, routed, &p->routing);
    for (size_t i = 0; i < p->nrows; i++)
        chosen_listed = chosen_listed || p->rows[i].chosen;
    if (rc == HNP_SUCCESS && !chosen_listed)
        rc = add_row(p, p->chosen_name, &p->chosen);
    qsort(p->rows, p->nrows, sizeof(p->rows[0]), by_time);
    return rc;
}

/*
 * A process keeps the connections of both trees: its spawn parent and
 * children (the call-backs of phase 1) and its routing neighbours. An edge
 * in both trees is one connection.
 */
static void count_connections(const plan_t *p, uint32_t *conns)
{
    const hnp_tree_t *s = &p->chosen, *r = &p->routing;

    for (hnp_vpid_t v = 0; v < p->n; v++)
        conns[v] = hnp_tree_children(s, v, NULL, 0) +
                   hnp_tree_children(r, v, NULL, 0) + 2 * (v != 0);
    for (hnp_vpid_t v = 1; v < p->n; v++) {
        hnp_vpid_t up = hnp_tree_parent(s, v);
        if (hnp_tree_parent(r, v) == up || hnp_tree_parent(r, up) == v) {
            conns[v]--;
            conns[up]--;
        }
    }
}

static const char *node_label(const plan_t *p, hnp_vpid_t v)
{
    return v == 0 ? "the HNP" : p->map->node_names[v - 1];
}

/* ------------------------------------------------------------- text */

static void print_levels(const plan_t *p, FILE *out)
{
    uint32_t height = hnp_tree_height(&p->chosen);
    uint32_t *count = calloc((size_t)height + 1, sizeof(*count));
    uint32_t *fanout = calloc((size_t)height + 1, sizeof(*fanout));

    if (count == NULL || fanout == NULL)
        goto out;
    for (hnp_vpid_t v = 0; v < p->n; v++) {
        uint32_t d = hnp_tree_depth(&p->chosen, v);
        uint32_t kids = hnp_tree_children(&p->chosen, v, NULL, 0);
        count[d]++;
        if (kids > fanout[d])
            fanout[d] = kids;
    }
    fprintf(out, "  depth %u; fan-out per level (processes: most children "
            "of one):\n", height);
    for (uint32_t d = 0; d <= height; d++)
        fprintf(out, "    level %u: %u: %u\n", d, count[d], fanout[d]);
out:
    free(count);
    free(fanout);
}

static void print_busiest(const plan_t *p, const uint32_t *conns, FILE *out)
{
    hnp_vpid_t parent = 0, daemon = p->n > 1 ? 1 : 0;
    uint32_t most = 0;

    for (hnp_vpid_t v = 0; v < p->n; v++) {
        uint32_t kids = hnp_tree_children(&p->chosen, v, NULL, 0);
        if (kids > most) {
            most = kids;
            parent = v;
        }
        if (v > 0 && conns[v] > conns[daemon])
            daemon = v;
    }
    fprintf(out, "  busiest parent: vpid %u (%s), %u children\n", parent,
            node_label(p, parent), most);
    fprintf(out, "connections held (spawn and routing trees): the HNP %u",
            conns[0]);
    if (p->n > 1)
        fprintf(out, ", the busiest daemon %u (vpid %u on %s)", conns[daemon],
                daemon, node_label(p, daemon));
    fprintf(out, "\n");
}

/* A daemon's descriptors: its connections, the agents of its spawn
 * children (attached for the job, two pipes each), about four a process
 * (what odls holds for it, the pmi channel), and the reserve. Only shown: the
 * daemons raise their own limit, which on other nodes may differ. */
static void print_daemon_fds(const plan_t *p, hnp_rte_t *rte,
                             const uint32_t *conns, FILE *out)
{
    unsigned most = hnp_rte_agents_in_flight(rte);
    uint32_t worst = 0, worst_conns = 0, worst_agents = 0, worst_procs = 0;
    hnp_vpid_t which = 0;

    for (hnp_vpid_t v = 1; v < p->n; v++) {
        uint32_t kids = hnp_tree_children(&p->chosen, v, NULL, 0);
        uint32_t agents = most == 0 || kids < most ? kids : most;
        uint32_t procs = p->map->local_size[v - 1];
        uint32_t need = conns[v] + agents * HNP_FD_PER_AGENT +
                        (HNP_ODLS_FDS_PER_PROC + 1) * procs + HNP_FD_RESERVE;
        if (need > worst) {
            worst = need;
            which = v;
            worst_conns = conns[v];
            worst_agents = agents;
            worst_procs = procs;
        }
    }
    if (which > 0)
        fprintf(out, "descriptors in the busiest daemon: about %u (vpid %u "
                "on %s): %u connections, %u agent(s), %u process(es), and "
                "at most a quarter of its limit for connections in their "
                "handshake\n",
                worst, which, node_label(p, which), worst_conns,
                worst_agents, worst_procs);
}

/* The exchange chosen for this size, and the HNP's descriptors: what
 * the launch would adapt, or why it would refuse. */
static void print_resources(const plan_t *p, hnp_rte_t *rte, FILE *out)
{
    hnp_fd_need_t need;
    hnp_fd_plan_t plan;
    char figures[512];

    fprintf(out, "exchange: %s (offered for %u daemons: %s)\n",
            rte->selected[2], p->n - 1, rte->exchange_offers);
    hnp_fd_need_for_job(rte, p->map, p->output_files, &p->chosen,
                        &p->routing, &need);
    hnp_fd_plan(&need, &plan);
    hnp_fd_plan_describe(&need, &plan, figures, sizeof(figures));
    fprintf(out, "descriptors in the HNP: %s%s\n", figures,
            !plan.fits ? " -- does NOT fit: the launch would be refused"
            : plan.agents < need.agents || plan.handshakes < need.handshakes
                ? " (lowered to fit)" : "");
}

static void print_text(const plan_t *p, hnp_rte_t *rte, const uint32_t *conns,
                       FILE *out)
{
    double best = p->rows[0].time;

    fprintf(out, "plan: %u processes (the HNP and %u daemons), model SEQ "
            "%g s, REM %g s\n", p->n, p->n - 1, p->seq, p->rem);
    fprintf(out, "spawn tree: %s\n", p->chosen_name);
    print_levels(p, out);
    print_busiest(p, conns, out);
    print_resources(p, rte, out);
    print_daemon_fds(p, rte, conns, out);
    fprintf(out, "modeled launch time (SEQ/REM launch model), best first:\n");
    fprintf(out, "  %4s  %-22s %10s %10s %8s\n", "rank", "topology",
            "time (s)", "gap (s)", "vs best");
    for (size_t i = 0; i < p->nrows; i++) {
        const plan_row_t *r = &p->rows[i];
        fprintf(out, "  %4zu  %-22s %10.3f %10.3f %7.0f%%%s\n", i + 1,
                r->name, r->time, r->time - best,
                best > 0 ? 100.0 * (r->time - best) / best : 0.0,
                r->chosen ? "  <- chosen" : "");
    }
}

/* -------------------------------------------------------- csv, dot */

static void print_csv(const plan_t *p, FILE *out)
{
    double best = p->rows[0].time;

    fprintf(out, "rank,topology,launch_time_s,gap_s,chosen\n");
    for (size_t i = 0; i < p->nrows; i++)
        fprintf(out, "%zu,%s,%.6f,%.6f,%d\n", i + 1, p->rows[i].name,
                p->rows[i].time, p->rows[i].time - best, p->rows[i].chosen);
}

/* Node names come from the user's host list: quote what DOT would not
 * take inside a string. */
static void print_dot_string(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static int print_dot(const plan_t *p, FILE *out)
{
    hnp_vpid_t *kids = malloc((size_t)p->n * sizeof(*kids));

    if (kids == NULL)
        return HNP_ERR_NOMEM;
    fprintf(out, "digraph spawn_tree {\n  node [shape=box];\n");
    fprintf(out, "  label=\"%s spawn tree, %u processes\";\n",
            p->chosen_name, p->n);
    for (hnp_vpid_t v = 0; v < p->n; v++) {
        fprintf(out, "  v%u [label=", v);
        print_dot_string(v == 0 ? "HNP" : p->map->node_names[v - 1], out);
        fprintf(out, "];\n");
    }
    /* The edge label is the child's place in its parent's spawn order. */
    for (hnp_vpid_t v = 0; v < p->n; v++) {
        uint32_t nk = hnp_tree_children(&p->chosen, v, kids, p->n);
        for (uint32_t i = 0; i < nk; i++)
            fprintf(out, "  v%u -> v%u [label=\"%u\"];\n", v, kids[i], i + 1);
    }
    fprintf(out, "}\n");
    free(kids);
    return HNP_SUCCESS;
}

/* ------------------------------------------------------------ entry */

static int plan_trees(plan_t *p, hnp_rte_t *rte, char *err, size_t errlen)
{
    char name[32];
    int rc = read_costs(p, rte, err, errlen);

    if (rc == HNP_SUCCESS)
        rc = rte->routed->spanning_tree(p->n, &p->routing);
    if (rc == HNP_SUCCESS)
        rc = hnp_rte_plm_spawn_tree(rte, p->n, &p->routing, &p->chosen);
    if (rc == HNP_SUCCESS)
        rc = hnp_tree_greedy(p->n, p->seq, p->rem, &p->greedy);
    if (rc != HNP_SUCCESS && err[0] == '\0')
        hnp_err_set(err, errlen, "cannot build the trees of %u processes: "
                    "%s", p->n, hnp_strerror(rc));
    if (rc != HNP_SUCCESS)
        return rc;
    tree_name(&p->chosen, name, sizeof(name));
    if (same_shape(&p->chosen, &p->routing) &&
        p->chosen.kind != HNP_TREE_EXPLICIT)
        snprintf(p->chosen_name, sizeof(p->chosen_name), "routed (%s)", name);
    else
        snprintf(p->chosen_name, sizeof(p->chosen_name), "%s", name);
    return HNP_SUCCESS;
}

int hnp_plan_print(hnp_rte_t *rte, const hnp_job_map_t *map,
                   bool output_files, hnp_plan_format_t format, FILE *out,
                   char *err, size_t errlen)
{
    plan_t p = { .map = map, .output_files = output_files,
                 .n = map->nnodes + 1 };
    uint32_t *conns = NULL;
    int rc;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    rc = plan_trees(&p, rte, err, errlen);
    if (rc == HNP_SUCCESS)
        rc = add_rows(&p);
    if (rc == HNP_SUCCESS && format == HNP_PLAN_TEXT) {
        conns = malloc((size_t)p.n * sizeof(*conns));
        rc = conns == NULL ? HNP_ERR_NOMEM : HNP_SUCCESS;
    }
    if (rc == HNP_SUCCESS && format == HNP_PLAN_TEXT) {
        count_connections(&p, conns);
        print_text(&p, rte, conns, out);
    } else if (rc == HNP_SUCCESS && format == HNP_PLAN_CSV)
        print_csv(&p, out);
    else if (rc == HNP_SUCCESS)
        rc = print_dot(&p, out);
    if (rc != HNP_SUCCESS && err != NULL && err[0] == '\0')
        hnp_err_set(err, errlen, "--plan: %s", hnp_strerror(rc));
    free(conns);
    hnp_rte_release_trees(&p.chosen, &p.routing);
    hnp_tree_release(&p.greedy);
    return rc;
}
