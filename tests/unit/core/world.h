/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture of the application-job tests: a runtime of WORLD_PROCS real
 * contexts in one process (the HNP, vpid 0, and daemons 1..), each with its
 * own event loop and OOB on 127.0.0.1, every one knowing every other's
 * contact; and an exchange component of the test's own that gathers
 * among them.
 */
#ifndef HNP_TEST_CORE_WORLD_H
#define HNP_TEST_CORE_WORLD_H

#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rte.h"

#define WORLD_PROCS 3

typedef struct world {
    hnp_setup_t setup;
    hnp_rte_t *rte[WORLD_PROCS]; /* NULL once stopped */
} world_t;

/** Start the world (state is the world_t). */
int world_setup(void **state);
int world_teardown(void **state);
/** Destroy process @p vpid: its connections close. */
void world_stop(world_t *w, hnp_vpid_t vpid);
/** Turn every process's loop once, without blocking. */
void world_turn(world_t *w);
double world_now(void);

/** Turn the loops until @p cond holds; fail the test after @p secs, but
 *  never before WORLD_WAIT_FLOOR seconds (a starved process on a loaded
 *  machine must not fail a test whose state only comes late). */
#define WORLD_WAIT_FLOOR 60.0
#define WORLD_RUN_UNTIL(w, cond, secs)                                     \
    do {                                                                   \
        double deadline_ = world_now() + ((secs) > WORLD_WAIT_FLOOR        \
                                              ? (secs) : WORLD_WAIT_FLOOR); \
        while (!(cond) && world_now() < deadline_)                         \
            world_turn(w);                                                 \
        if (!(cond))                                                       \
            fail_msg("timed out waiting for %s", #cond);                   \
    } while (0)

/** Turn the loops for a while (what must not happen has had its chance). */
void world_settle(world_t *w);

/*
 * The test's exchange: contributions of every process of the world are
 * collected per id; when the last arrives, every process learns all of
 * them and completes, inside that last exchange call (as gather_scatter
 * does in the HNP). A contribution tells the processes that have not
 * joined the id (hnp_rte_collective_seen), as a message would.
 */
typedef struct fake_gather {
    uint32_t id;
    unsigned joins[WORLD_PROCS];   /* contributions per vpid (1 is right) */
    size_t len[WORLD_PROCS];
    char data[WORLD_PROCS][32];
    hnp_exchange_callbacks_t cb[WORLD_PROCS];
    bool done;
} fake_gather_t;

#define FAKE_GATHERS 16
extern fake_gather_t fake_gathers[FAKE_GATHERS];
extern unsigned fake_ngathers;
/** The fake all-gather of @p id, or NULL. */
fake_gather_t *fake_gather_find(uint32_t id);

#endif /* HNP_TEST_CORE_WORLD_H */
