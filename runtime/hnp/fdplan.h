/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HNP's descriptors, planned before launch. What a job will make the
 * HNP hold open at once is known before anything starts: the connections
 * to the daemons its spawn and routing trees and its exchange give it,
 * two pipes per agent running, the connections still in their handshake
 * (oob_tcp_max_handshakes), the job's output files, and what is open
 * already. When that exceeds the descriptor limit the plan first admits
 * fewer connections awaiting a handshake, then runs fewer agents at once;
 * when even one agent does not fit, the job is refused before launch,
 * with the figures, instead of failing half-way with a node blamed for a
 * pipe the HNP could not make.
 */
#ifndef HNP_FDPLAN_H
#define HNP_FDPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_tree.h"
#include "hosts/jobmap.h"
#include "core/rte.h"

/* An agent's output pipe and the pipe that reports a failed exec, held
 * while it runs; a pipe for its stdin too while it starts. */
#define HNP_FD_PER_AGENT 2
#define HNP_FD_AGENT_START 4
/* The event loop's own, the log, a daemon reporting a failure straight to
 * the HNP, a simultaneous connect's duplicate. */
#define HNP_FD_RESERVE 16
/* Fewer connections awaiting a handshake would turn daemons calling back
 * at once into dropped connections. */
#define HNP_FD_MIN_HANDSHAKES 8

typedef struct hnp_fd_need {
    uint32_t limit;       /**< the soft RLIMIT_NOFILE (raised to the hard) */
    uint32_t open;        /**< open when planning: stdio, listeners, ... */
    uint32_t connections; /**< daemons the HNP holds connections with */
    uint32_t agents;      /**< agents wanted at once (0: none to run) */
    uint32_t handshakes;  /**< oob_tcp_max_handshakes */
    uint32_t outputs;     /**< output files held for the job */
} hnp_fd_need_t;

typedef struct hnp_fd_plan {
    uint32_t agents;     /**< agents at once, at most need->agents */
    uint32_t handshakes; /**< connections awaiting a handshake at once */
    uint32_t total;      /**< descriptors needed at most */
    bool fits;           /**< total <= limit */
} hnp_fd_plan_t;

/** Plan for @p need: adapted (fewer handshakes, then fewer agents) until
 *  it fits, or the smallest plan when nothing does (fits false). */
void hnp_fd_plan(const hnp_fd_need_t *need, hnp_fd_plan_t *plan);

/** The plan's figures in one sentence ("... 40 connections to daemons,
 *  8 agents at once (20), ..."), for --plan and the refusal. */
void hnp_fd_plan_describe(const hnp_fd_need_t *need,
                          const hnp_fd_plan_t *plan, char *buf, size_t len);

/** The daemons the HNP (vpid 0) is a neighbour of in @p spawn or in
 *  @p routing: its connections from the two trees, an edge in both
 *  counted once. */
uint32_t hnp_fd_tree_connections(const hnp_tree_t *spawn,
                                 const hnp_tree_t *routing);

/**
 * The figures of a job of @p map with the trees @p spawn and @p routing,
 * as @p rte (components selected, the exchange chosen for the job) would
 * run it. Raises the soft descriptor limit to the hard one first.
 */
void hnp_fd_need_for_job(hnp_rte_t *rte, const hnp_job_map_t *map,
                         bool output_files, const hnp_tree_t *spawn,
                         const hnp_tree_t *routing, hnp_fd_need_t *need);

#endif /* HNP_FDPLAN_H */
