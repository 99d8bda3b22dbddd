/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMI wire-protocol server a daemon embeds: it answers the application
 * processes of its node in the protocol MPICH, MVAPICH and Intel MPI speak
 * to their process manager ("simple" PMI-1, and PMI-2 when the library
 * asks), over one socket per process.
 *
 * The component (pmi_simple_module.c) makes a socketpair per process,
 * passes one end to the process (see pmi_simple_client_env()) and hands the
 * other to the server with pmi_simple_server_add_client(). The server reads, parses and answers on the
 * daemon's event loop; what needs the rest of the job goes through the
 * callbacks:
 *
 *  - a fence (PMI-1 barrier_in, PMI-2 kvs-fence): once every local rank has
 *    entered fence number S, the server calls fence_ready(S, blob) with the
 *    node's puts since the previous fence packed into one blob. The daemon
 *    spreads the blobs (the exchange framework's all-gather), hands each
 *    node's blob back with pmi_simple_fence_merge() (its own may come back
 *    too: merging is idempotent), then calls pmi_simple_fence_complete(S). The
 *    server answers the waiting processes and serves gets from the merged
 *    store. The blob maps directly onto the exchange callbacks: learned()
 *    -> pmi_simple_fence_merge(), complete() -> pmi_simple_fence_complete().
 *  - init and finalize of a process, abort requests, spawn requests and
 *    misbehaving clients are reported with the process's rank.
 *
 * A put is visible to the node's own processes at once and to the other
 * nodes' after the next fence; a get of a key nobody has is answered "not
 * found" at once (PMI-1 rc=-1, PMI-2 found=FALSE), never held. Job
 * attributes (PMI_process_mapping, universeSize, the config's) answer
 * PMI-2 info-getjobattr and, as MPICH's PMI-1 client expects, plain gets.
 *
 * Callbacks run from the event loop or from the hnp_pmi_* call that caused
 * them, and may call any hnp_pmi_* function, pmi_simple_server_destroy()
 * included (the free is then deferred until the server's frames unwind).
 *
 * Wire formats (tests/pmi/pmi-serve.c shows what MPICH's client sends):
 *  - PMI-1: lines "cmd=NAME key=value key=value\n"; values cannot hold
 *    blanks. "mcmd=spawn" opens a block of key=value lines up to "endcmd".
 *  - PMI-2: a six-character decimal length (space padded), then that many
 *    bytes of "cmd=NAME;key=value;...;" where a ';' inside a value is
 *    written ";;". A PMI-2 client may open with the PMI-1 line
 *    "cmd=init pmi_version=2 ..." and switch to PMI-2 framing after the
 *    answer; the server follows. Answers carry back a request's "thrid"
 *    (threaded clients match answers to requests with it).
 *
 * Served: PMI-1 init (versions 1 and 2), initack, get_maxes, get_appnum,
 * get_universe_size, get_my_kvsname, put, get, barrier_in, finalize,
 * abort; PMI-2 init, fullinit, job-getid, kvs-put, kvs-get, kvs-fence,
 * info-putnodeattr, info-getnodeattr (wait=TRUE waits for the put),
 * info-getjobattr, finalize, abort; name publishing, through the name
 * callback (PMI-1 publish_name, lookup_name, unpublish_name; PMI-2
 * name-publish, name-lookup, name-unpublish); spawn, through the
 * spawn_request callback (PMI-1 mcmd=spawn, PMI-2 spawn). Anything else
 * (job-connect, ...) gets the answer its client expects with rc=-1; only
 * bytes that are not the protocol close a connection (client_error).
 *
 * Limits:
 *  - keys: PMI_SIMPLE_KEY_MAX characters; kvs names: PMI_SIMPLE_KVSNAME_MAX - 1.
 *  - PMI-1: MPICH's client reads replies into 1024-byte lines, so the
 *    vallen_max the server advertises is what keeps a put of the longest
 *    key under that (932 less the kvs name's length, so at least 677);
 *    larger puts are refused with rc=-1. MPICH splits longer values into
 *    several keys itself. Lines up to PMI_SIMPLE_V1_INPUT_MAX are accepted.
 *  - PMI-2: a message is at most PMI_SIMPLE_V2_BODY_MAX bytes (six digits), so
 *    values may be close to a megabyte (MPICH's own client stops at 1024).
 *  - a fence blob is bounded by pmi_simple_config_t.max_fence_bytes, which the
 *    daemon sets below the runtime's frame limit: a node whose puts do not
 *    fit fails the fence (its processes get an error answer, the daemon a
 *    client_error with HNP_ERR_TRUNCATED).
 *  - what one process stores is bounded by pmi_simple_config_t.max_kvs_bytes:
 *    each key it put (PMI-1 put, PMI-2 kvs-put and info-putnodeattr) costs
 *    it the bytes of the key and the value and PMI_SIMPLE_KVS_ENTRY_COST more
 *    (the store's own bookkeeping, so that many tiny keys are bounded as
 *    well as a few large ones), as long as the key holds what it put. A
 *    put that replaces a key gives the previous value's cost back to
 *    whoever put it, so rewriting a key does not add up. A put that would
 *    take a process past the bound is refused with rc=-1 (the store keeps
 *    what it had) and, the first time for that process, kvs_limit is
 *    called. The bound also caps the node's fence blob, which carries only
 *    keys its processes put: at most 4 bytes more than nlocal times
 *    max_kvs_bytes.
 */
#ifndef PMI_SIMPLE_SERVER_H
#define PMI_SIMPLE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hnp_rte;

#define PMI_SIMPLE_KVSNAME_MAX 256     /**< advertised kvsname_max (with NUL) */
#define PMI_SIMPLE_KEY_MAX 64          /**< longest key, in characters */
#define PMI_SIMPLE_V1_LINE_MAX 1024    /**< MPICH's PMI-1 line buffer */
#define PMI_SIMPLE_V1_INPUT_MAX 4096   /**< longest PMI-1 line accepted */
#define PMI_SIMPLE_V2_HEADER_LEN 6     /**< the PMI-2 length field */
#define PMI_SIMPLE_V2_BODY_MAX 999999  /**< what six digits can announce */
#define PMI_SIMPLE_ENV_COUNT 4         /**< variables pmi_simple_client_env() sets */
/** Longest name or port of name publishing, in characters. */
#define PMI_SIMPLE_NAME_MAX 511
/** What a key costs against max_kvs_bytes beyond its key and value bytes. */
#define PMI_SIMPLE_KVS_ENTRY_COST 64

/* ------------------------------------------------------------ the server */

typedef struct pmi_simple_server pmi_simple_server_t;

/** A job attribute served as is (PMI-2 info-getjobattr, PMI-1 get). */
typedef struct pmi_simple_attr {
    const char *key;
    const char *value;
} pmi_simple_attr_t;

/** What the server tells the processes; everything is copied at create. */
typedef struct pmi_simple_config {
    uint32_t size;             /**< ranks in the job (PMI_SIZE) */
    uint32_t universe_size;    /**< 0: the job's size */
    const char *kvsname;       /**< the job's kvs name, also its PMI-2 jobid */
    /** PMI_process_mapping, e.g. "(vector,(0,4,2))"; NULL: not offered
     *  (MPICH then works the node map out itself). */
    const char *process_mapping;
    /** Else, where its mapping comes from: rank r runs on node
     *  node_of_rank[r], [size], in any numbering (the mapping numbers the
     *  job's nodes from 0 in the order of these); copied, and the text
     *  worked out when a process first asks for it (most jobs never do:
     *  a daemon of a 1,024-node job spent 50 us on it). */
    const uint32_t *node_of_rank;
    const uint32_t *local_ranks; /**< the ranks this server serves */
    size_t nlocal;
    const pmi_simple_attr_t *job_attrs; /**< more job attributes, may be NULL */
    size_t njob_attrs;
    size_t max_fence_bytes;    /**< 0: no bound but memory */
    /** What one process may store (see Limits); 0: no bound but memory. */
    size_t max_kvs_bytes;
    /** A spawned job: its parent's kvs name, which PMI-2 fullinit tells
     *  as spawner-jobid; NULL otherwise. */
    const char *spawner_jobid;
} pmi_simple_config_t;

/** A key and its value of a spawn request. */
typedef struct pmi_simple_kv {
    char *key;
    char *value;
} pmi_simple_kv_t;

/** One program of a spawn request. */
typedef struct pmi_simple_spawn_app {
    char *cmd;               /**< execname / subcmd */
    uint32_t maxprocs;       /**< >= 1 */
    char **argv;             /**< its arguments, without cmd; NULL-ended */
    size_t ninfo;
    pmi_simple_kv_t *info;   /**< info_key_I/info_val_I, infokeyI/... */
} pmi_simple_spawn_app_t;

/** A spawn request (PMI-1 mcmd=spawn blocks, PMI-2 cmd=spawn). */
typedef struct pmi_simple_spawn {
    size_t napps;
    pmi_simple_spawn_app_t *apps;
    size_t npreput;
    pmi_simple_kv_t *preput; /**< keys for the new job's kvs */
} pmi_simple_spawn_t;

/** A request of name publishing (pmi_simple_callbacks_t::name). */
typedef enum pmi_simple_name_op {
    PMI_SIMPLE_NAME_PUBLISH,   /**< PMI-1 publish_name, PMI-2 name-publish */
    PMI_SIMPLE_NAME_LOOKUP,    /**< lookup_name, name-lookup */
    PMI_SIMPLE_NAME_UNPUBLISH, /**< unpublish_name, name-unpublish */
} pmi_simple_name_op_t;

typedef struct pmi_simple_callbacks {
    /** Every local rank entered fence @p seq: spread @p blob (valid only
     *  during the call) to every node. Required. */
    void (*fence_ready)(void *ctx, uint32_t seq, const void *blob,
                        size_t len);
    /** @p rank asked to abort the job (PMI_Abort / PMI2_Abort). */
    void (*abort)(void *ctx, uint32_t rank, int exit_code, const char *msg);
    /** @p rank broke the protocol (its connection is then closed), or its
     *  node's fence could not be shipped (see Limits). @p code is
     *  HNP_ERR_*. (A process that closes between init and finalize is
     *  not an error here: the runtime reports it when it exits.) */
    void (*client_error)(void *ctx, uint32_t rank, int code,
                         const char *msg);
    /** @p rank initialized PMI (it was answered), once (may be NULL). */
    void (*initialized)(void *ctx, uint32_t rank);
    /** @p rank finalized PMI (it was answered). */
    void (*finalized)(void *ctx, uint32_t rank);
    /** @p rank asked to spawn processes; it was answered with an error
     *  (may be NULL). Only without spawn_request. */
    void (*spawn)(void *ctx, uint32_t rank);
    /** @p rank asks to spawn @p req (valid during the call): answer with
     *  pmi_simple_spawn_done(@p ticket) once the children are started or
     *  the spawn failed. NULL: spawns are refused (and spawn is told). */
    void (*spawn_request)(void *ctx, uint32_t rank,
                          const pmi_simple_spawn_t *req, uint64_t ticket);
    /** A put of @p rank was refused: what it stores would pass
     *  max_kvs_bytes (@p limit). Once per rank, at its first refused put;
     *  the process got the error answer and goes on (may be NULL). */
    void (*kvs_limit)(void *ctx, uint32_t rank, size_t limit);
    /** @p rank asks to publish @p name with @p port (NULL but for a
     *  publish), look it up or unpublish it: answer with
     *  pmi_simple_name_done(@p ticket), now or later. NULL: every such
     *  request is answered with an error. */
    void (*name)(void *ctx, uint32_t rank, pmi_simple_name_op_t op,
                 const char *name, const char *port, uint64_t ticket);
    void *ctx;
} pmi_simple_callbacks_t;

/**
 * Create a server on the event loop of @p rte (hnp_rte_fd_watch_create()).
 * Fails with HNP_ERR_BAD_PARAM (and a message in @p err) for a config it cannot serve: no kvs name, one too long or
 * with blanks, a size of 0, no local rank, local ranks out of range or
 * repeated, no fence_ready. Fences are numbered from 0. (A node without
 * processes needs no server; its part of each fence is the empty blob,
 * four zero bytes.)
 */
int pmi_simple_server_create(pmi_simple_server_t **out, struct hnp_rte *rte,
                             const pmi_simple_config_t *cfg,
                             const pmi_simple_callbacks_t *cb, char *err,
                             size_t errlen);
/** Closes every connection; callbacks are not called. */
void pmi_simple_server_destroy(pmi_simple_server_t *srv);

/**
 * Serve @p rank, of the job's @p appnum'th program (its app context, from
 * 0), on @p fd (the daemon's end of the process's socketpair). The server
 * owns @p fd from then on, whatever the outcome, and makes it
 * non-blocking. HNP_ERR_BAD_PARAM: not a local rank; HNP_ERR_EXISTS: the
 * rank has a connection already.
 */
int pmi_simple_server_add_client(pmi_simple_server_t *srv, int fd,
                                 uint32_t rank, int32_t appnum);

/**
 * Merge one node's fence blob (from its fence_ready) into the store, for
 * fence @p seq, the one in progress. All or nothing: a malformed blob
 * changes nothing and gives HNP_ERR_BAD_PARAM with a message.
 */
int pmi_simple_fence_merge(pmi_simple_server_t *srv, uint32_t seq,
                           const void *blob, size_t len, char *err,
                           size_t errlen);
/**
 * Fence @p seq is over everywhere (status 0): answer the waiting processes.
 * A negative status fails the fence: they get an error answer. The next
 * fence is seq + 1. HNP_ERR_BAD_PARAM when @p seq is not the fence whose
 * fence_ready was called.
 */
int pmi_simple_fence_complete(pmi_simple_server_t *srv, uint32_t seq,
                              int status);

/**
 * The answer to the name request @p ticket: @p status HNP_SUCCESS (a
 * lookup's with @p port), HNP_ERR_EXISTS (published already),
 * HNP_ERR_NOT_FOUND (no such name), or another error. The process is
 * answered unless it is gone. HNP_ERR_NOT_FOUND: no such ticket.
 */
int pmi_simple_name_done(pmi_simple_server_t *srv, uint64_t ticket,
                         int status, const char *port);

/**
 * The end of the spawn request @p ticket: @p status HNP_SUCCESS with the
 * new job's kvs name @p jobid, or an error and @p why (a line for the
 * process). The process is answered unless it is gone.
 * HNP_ERR_NOT_FOUND: no such ticket.
 */
int pmi_simple_spawn_done(pmi_simple_server_t *srv, uint64_t ticket,
                          int status, const char *jobid, const char *why);

/**
 * The environment @p rank needs to find the server on @p fd (its end of the
 * socketpair, as numbered in the process): PMI_SIMPLE_ENV_COUNT malloc'd
 * "NAME=value" strings stored at env[0..], which the caller frees. Returns
 * how many, or HNP_ERR_NOMEM (nothing left allocated).
 */
int pmi_simple_client_env(const pmi_simple_server_t *srv, uint32_t rank, int fd,
                          char **env);

/**
 * PMI_process_mapping for a job whose rank r runs on node node_of_rank[r]:
 * "(vector,(first,count,ppn),...)" with the job's own node numbers (its
 * nodes from 0, in the order of the numbers given), shortened to its
 * repeating part when it has one (MPICH repeats a vector that covers
 * fewer ranks than the job). *out is malloc'd.
 */
int pmi_simple_process_mapping(const uint32_t *node_of_rank, uint32_t nranks,
                               char **out);

#endif /* PMI_SIMPLE_SERVER_H */
