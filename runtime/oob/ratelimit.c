/* SPDX-License-Identifier: BSD-3-Clause */
/* One warning line per cause per interval (see ratelimit.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ratelimit.h"

void oob_ratelimit_init(oob_ratelimit_t *rl, double interval)
{
    memset(rl, 0, sizeof(*rl));
    rl->interval = interval;
}

static oob_ratelimit_cause_t *cause_find(oob_ratelimit_t *rl, const char *key)
{
    oob_ratelimit_cause_t *victim = &rl->causes[0];

    for (size_t i = 0; i < OOB_RATELIMIT_CAUSES; i++)
        if (strncmp(rl->causes[i].key, key, OOB_RATELIMIT_KEY_LEN - 1) == 0)
            return &rl->causes[i];
    /* A free slot, else the cause shown least recently. */
    for (size_t i = 1; i < OOB_RATELIMIT_CAUSES && victim->key[0] != '\0'; i++)
        if (rl->causes[i].key[0] == '\0' || rl->causes[i].shown < victim->shown)
            victim = &rl->causes[i];
    snprintf(victim->key, sizeof(victim->key), "%s", key);
    victim->suppressed = 0;
    victim->shown = 0;
    victim->ever_shown = false;
    return victim;
}

bool oob_ratelimit_allow(oob_ratelimit_t *rl, const char *key, double now,
                         unsigned long *suppressed)
{
    oob_ratelimit_cause_t *c = cause_find(rl, key[0] != '\0' ? key : "?");

    if (c->ever_shown && now - c->shown < rl->interval) {
        c->suppressed++;
        return false;
    }
    *suppressed = c->suppressed;
    c->suppressed = 0;
    c->shown = now;
    c->ever_shown = true;
    return true;
}

void oob_ratelimit_key(const char *reason, char *key, size_t len)
{
    const char *colon = strchr(reason, ':');
    size_t n = strlen(reason);

    if (colon != NULL) {
        const char *p = colon + 1;
        while (*p == ' ')
            p++;
        while (*p != '\0' && *p != ' ' && *p != ':' && *p != '(')
            p++;
        n = (size_t)(p - reason);
    }
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(key, reason, n);
    key[n] = '\0';
}

void oob_ratelimit_flush(oob_ratelimit_t *rl,
                         void (*report)(void *ctx, const char *key,
                                        unsigned long suppressed),
                         void *ctx)
{
    for (size_t i = 0; i < OOB_RATELIMIT_CAUSES; i++) {
        oob_ratelimit_cause_t *c = &rl->causes[i];
        if (c->key[0] != '\0' && c->suppressed > 0)
            report(ctx, c->key, c->suppressed);
        c->suppressed = 0;
    }
}
