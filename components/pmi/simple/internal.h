/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the PMI server (components/pmi/simple): the wire codec, the key-value
 * store, and the server's and connections' state shared by the connection
 * code (server.c) and the command handlers (commands.c). The unit
 * and fuzz tests use the codec and the store directly; the daemon uses
 * pmi.h only.
 */
#ifndef PMI_SIMPLE_INTERNAL_H
#define PMI_SIMPLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hnp_buffer.h"
#include "hnp_log.h"
#include "server.h"

/* ------------------------------------------------------------ wire codec */

typedef enum pmi_simple_wire {
    PMI_SIMPLE_WIRE_V1,  /**< newline-terminated lines */
    PMI_SIMPLE_WIRE_V2,  /**< length-prefixed messages */
} pmi_simple_wire_t;

/** One key=value of a message; key and value point into the message. */
typedef struct pmi_simple_pair {
    const char *key;
    const char *value;   /**< NUL-terminated; may hold NULs in PMI-2 */
    size_t value_len;
} pmi_simple_pair_t;

/** A parsed request. Release with pmi_simple_msg_release(). */
typedef struct pmi_simple_msg {
    const char *cmd;     /**< the value of cmd= (or mcmd=) */
    bool multiline;      /**< PMI-1 "mcmd=": a block up to "endcmd" */
    size_t npairs;       /**< the pairs after cmd */
    pmi_simple_pair_t *pairs;
    char *storage;       /**< owned copy the pointers point into */
} pmi_simple_msg_t;

/**
 * Find the next message at the start of [data, data+len).
 * Returns 1 with the message at data[*start .. *start + *msg_len) and
 * *consumed bytes to drop; 0 when more bytes are needed; HNP_ERR_BAD_PARAM
 * (with a message) when no valid message can start there: a PMI-1 line (or
 * mcmd block, up to its "endcmd" line) longer than @p max, a PMI-2 length
 * field that is not a number, or one announcing more than @p max.
 */
int pmi_simple_frame(pmi_simple_wire_t wire, const char *data, size_t len,
                     size_t max, size_t *start, size_t *msg_len,
                     size_t *consumed, char *err, size_t errlen);

/** Parse one PMI-1 message as pmi_simple_frame() delimits it: a line
 *  "cmd=NAME key=value ..." (blank-separated words), or an mcmd block
 *  "mcmd=NAME\nkey=value\n...\nendcmd" (one pair a line; values may hold
 *  blanks). HNP_ERR_BAD_PARAM with a message for anything else;
 *  HNP_ERR_NOMEM. */
int pmi_simple_parse_v1(pmi_simple_msg_t *msg, const char *text, size_t len,
                        char *err, size_t errlen);
/** Parse one PMI-2 message body (after the length field). */
int pmi_simple_parse_v2(pmi_simple_msg_t *msg, const char *body, size_t len,
                        char *err, size_t errlen);
void pmi_simple_msg_release(pmi_simple_msg_t *msg);
/** The value of the first @p key, or NULL. */
const char *pmi_simple_msg_get(const pmi_simple_msg_t *msg, const char *key);
const pmi_simple_pair_t *pmi_simple_msg_find(const pmi_simple_msg_t *msg,
                                       const char *key);

/** Builds one answer at the end of an output buffer. */
typedef struct pmi_simple_reply {
    hnp_buffer_t *out;
    pmi_simple_wire_t wire;
    size_t start;     /**< where this answer begins in out */
    bool invalid;     /**< a PMI-1 value that the line cannot carry */
} pmi_simple_reply_t;

void pmi_simple_reply_begin(pmi_simple_reply_t *r, hnp_buffer_t *out,
                            pmi_simple_wire_t wire, const char *cmd);
void pmi_simple_reply_add(pmi_simple_reply_t *r, const char *key,
                          const char *value, size_t value_len);
void pmi_simple_reply_add_str(pmi_simple_reply_t *r, const char *key,
                              const char *value);
void pmi_simple_reply_add_int(pmi_simple_reply_t *r, const char *key,
                              long value);
/** Terminate the answer. On failure (HNP_ERR_BAD_PARAM: a PMI-1 value with
 *  a blank, a newline or a NUL, or a PMI-1 answer longer than
 *  PMI_SIMPLE_V1_LINE_MAX - 1; HNP_ERR_TRUNCATED: a PMI-2 body over
 *  PMI_SIMPLE_V2_BODY_MAX; HNP_ERR_NOMEM) the answer is removed again. */
int pmi_simple_reply_end(pmi_simple_reply_t *r);

/** Whether a PMI-1 line can carry @p value: no blank, newline or NUL. */
bool pmi_simple_v1_value_ok(const char *value, size_t len);

/* The key-value store. Values are byte strings (PMI-2 can carry NULs);
 * each is stored with a terminating NUL. */
typedef struct pmi_simple_kvs pmi_simple_kvs_t;

int pmi_simple_kvs_create(pmi_simple_kvs_t **out);
void pmi_simple_kvs_destroy(pmi_simple_kvs_t *kvs);
/** Insert or replace. @p pending: ship it with the next fence blob. The
 *  key is then nobody's (owner 0, charge 0). */
int pmi_simple_kvs_put(pmi_simple_kvs_t *kvs, const char *key,
                       const char *value, size_t value_len, bool pending);
/** Insert or replace on behalf of @p owner (not 0), who is charged
 *  @p charge for it. */
int pmi_simple_kvs_put_owned(pmi_simple_kvs_t *kvs, const char *key,
                             const char *value, size_t value_len, bool pending,
                             uint32_t owner, size_t charge);
/** Who put @p key (0: nobody local, or no such key) and, in @p charge,
 *  what it was charged. A merge leaves both as they were. */
uint32_t pmi_simple_kvs_owner(const pmi_simple_kvs_t *kvs, const char *key,
                              size_t *charge);
/** The value of @p key (NUL-terminated) or NULL. */
const char *pmi_simple_kvs_get(const pmi_simple_kvs_t *kvs, const char *key,
                               size_t *value_len);
size_t pmi_simple_kvs_count(const pmi_simple_kvs_t *kvs);
/** Pack the pending puts (u32 count, then key string and value blob each)
 *  into @p out and forget they were pending. */
int pmi_simple_kvs_pack_pending(pmi_simple_kvs_t *kvs, hnp_buffer_t *out);
/** Merge a blob pmi_simple_kvs_pack_pending() wrote. All or nothing. */
int pmi_simple_kvs_merge(pmi_simple_kvs_t *kvs, const void *blob, size_t len,
                         char *err, size_t errlen);

/* ------------------------------------------------------------ the server */

/* Unanswered output above which a connection's requests wait: a process
 * that asks without reading cannot make the daemon buffer without end. */
#define PMI_OUT_HIGH_WATER ((size_t)1 << 20)
#define PMI_ERR_LEN 256

typedef enum pmi_client_wait {
    PMI_WAIT_NONE,
    PMI_WAIT_FENCE,     /* barrier_in / kvs-fence, until the fence is over */
    PMI_WAIT_NODEATTR,  /* info-getnodeattr wait=TRUE, until it is put */
} pmi_client_wait_t;

struct evbuffer;
struct hnp_rte_fd_watch;
struct hnp_rte_timer;

typedef struct pmi_client {
    pmi_simple_server_t *srv;
    uint32_t rank;
    int32_t appnum;     /* its program in an MPMD job, from 0 */
    int fd;
    struct hnp_rte_fd_watch *rd, *wr; /* while reading, while output
                                         waits */
    struct hnp_rte_timer *resume;     /* a resumed connection's first turn */
    struct evbuffer *in;
    hnp_buffer_t out;
    size_t out_sent;
    bool wire_known;
    pmi_simple_wire_t wire;
    bool initialized, finalized, closed;
    pmi_client_wait_t wait;
    char *wait_key;     /* the node attribute waited for */
    char *wait_thrid;   /* PMI-2 thread id of the parked request */
    /* PMI-1 mcmd=spawn comes as one block per executable: the request
     * grows until the last one */
    pmi_simple_spawn_t *spawn;
    size_t stored;      /* charged for its puts (max_kvs_bytes) */
    bool over_limit_told; /* kvs_limit was called for it */
} pmi_client_t;

struct pmi_simple_server {
    struct hnp_rte *rte;
    pmi_simple_callbacks_t cb;
    hnp_log_stream_t *log;
    uint32_t size, universe_size;
    char *kvsname;
    size_t v1_vallen_max;      /* advertised, with the NUL */
    size_t max_fence_bytes;
    size_t max_kvs_bytes;      /* one rank's puts; 0: no bound */
    uint32_t *local_ranks;
    pmi_client_t **clients;    /* clients[i] serves local_ranks[i] */
    size_t nlocal, nfinalized;
    pmi_simple_kvs_t *kvs;        /* puts: this node's and the fences' */
    pmi_simple_kvs_t *node_attrs; /* PMI-2 node attributes, never shipped */
    pmi_simple_kvs_t *job_attrs;  /* from the config; see
                                     pmi_job_attrs() */
    uint32_t *mapping_nodes;   /* [size] until PMI_process_mapping is in
                                  job_attrs, then NULL */
    uint32_t fence_seq;        /* the fence in progress */
    size_t fence_entered;
    bool fence_ready_called;
    struct pmi_name_wait *name_waits; /* name requests the daemon holds */
    uint64_t name_tickets;     /* the last ticket given */
    struct pmi_spawn_wait *spawn_waits; /* spawns the daemon holds */
    uint64_t spawn_tickets;
    char *spawner_jobid;       /* a spawned job's parent's kvs name */
    int depth;                 /* frames of the server on the stack */
    bool destroy_pending;
};

/* server.c */
/** The job attributes, PMI_process_mapping among them from the first
 *  call on (when the config gave mapping_nodes). */
const pmi_simple_kvs_t *pmi_job_attrs(pmi_simple_server_t *srv);
/** The job's number, the end of its kvsname, for the log (a daemon of a
 *  DVM serves several jobs at once). */
const char *pmi_job_tag(const pmi_simple_server_t *srv);
/** Report @p c to the daemon (client_error) and close its connection. */
void pmi_client_fail(pmi_client_t *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Close without a report (abort: the process said why itself). */
void pmi_client_close(pmi_client_t *c);
/** Write what can be written now; the rest waits for the socket. */
void pmi_client_flush(pmi_client_t *c);
/** The server is on the stack (a destroy meanwhile waits) / is no more:
 *  the last release frees a server destroyed meanwhile. */
void pmi_server_hold(pmi_simple_server_t *srv);
void pmi_server_release(pmi_simple_server_t *srv);
/** The local process of rank @p rank, or NULL. */
pmi_client_t *pmi_client_of_rank(pmi_simple_server_t *srv, uint32_t rank);
/** Let a parked connection go on, from the event loop. */
void pmi_client_resume(pmi_client_t *c);
/** @p c enters the fence in progress (the request @p req parks it). */
void pmi_fence_enter(pmi_client_t *c, const pmi_simple_msg_t *req);
/** A local rank finalized: the fence may be complete without it. */
void pmi_fence_check(pmi_simple_server_t *srv, uint32_t rank);

/* commands.c */
/** Parse and answer one message as pmi_simple_frame() delimited it. */
void pmi_handle_message(pmi_client_t *c, const char *text, size_t len);
/** Begin an answer; a PMI-2 one carries the request's thread id back. */
void pmi_reply_begin(pmi_client_t *c, pmi_simple_reply_t *r, const char *cmd,
                     const char *thrid);
/** End it; false when it could not be written (the connection may be
 *  closed then, if memory ran out). */
bool pmi_reply_end(pmi_client_t *c, pmi_simple_reply_t *r);

/* names.c: name publishing */
void pmi_v1_publish(pmi_client_t *c, const pmi_simple_msg_t *req);
void pmi_v1_lookup(pmi_client_t *c, const pmi_simple_msg_t *req);
void pmi_v1_unpublish(pmi_client_t *c, const pmi_simple_msg_t *req);
void pmi_v2_publish(pmi_client_t *c, const pmi_simple_msg_t *req);
void pmi_v2_lookup(pmi_client_t *c, const pmi_simple_msg_t *req);
void pmi_v2_unpublish(pmi_client_t *c, const pmi_simple_msg_t *req);
/** Forget the requests the daemon holds (the server's end). */
void pmi_names_release(pmi_simple_server_t *srv);

/* spawn.c: spawn requests */
void pmi_v1_spawn(pmi_client_t *c, const pmi_simple_msg_t *req);
void pmi_v2_spawn(pmi_client_t *c, const pmi_simple_msg_t *req);
/** Parse one PMI-1 block into @p s; NULL, or the field that is wrong
 *  ("memory" without memory); *@p done after the last block. */
const char *pmi_spawn_parse_v1(const pmi_simple_msg_t *req,
                               pmi_simple_spawn_t *s, bool *done);
/** Parse a PMI-2 spawn into *@p out (allocated even on failure). */
const char *pmi_spawn_parse_v2(const pmi_simple_msg_t *req,
                               pmi_simple_spawn_t **out);
void pmi_spawn_request_free(pmi_simple_spawn_t *s);
void pmi_spawns_release(pmi_simple_server_t *srv);

#endif /* PMI_SIMPLE_INTERNAL_H */
