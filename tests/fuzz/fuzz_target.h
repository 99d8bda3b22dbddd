/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every fuzz target provides, and how it reports a broken invariant.
 *
 * The same target source is linked either with libFuzzer (clang
 * -fsanitize=fuzzer) or with fuzz_driver.c, which replays files; abort() is
 * what both recognise as a finding.
 */
#ifndef HNP_FUZZ_TARGET_H
#define HNP_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hnp_log.h"

/** Run one input; always returns 0 (libFuzzer reserves other values). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The codec's own checks found nothing wrong, but the fuzz target's oracle
 * did: say which one, then crash so the input is kept as a reproducer. */
#define FUZZ_CHECK(cond)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__,   \
                    __LINE__, #cond);                                         \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* A log handler that drops everything: the code under test warns about
 * each bad input, and a fuzzer feeds it little else. */
static inline void fuzz_discard_log(void *ctx, hnp_log_severity_t sev,
                                    const char *stream, const char *message)
{
    (void)ctx;
    (void)sev;
    (void)stream;
    (void)message;
}

#endif /* HNP_FUZZ_TARGET_H */
