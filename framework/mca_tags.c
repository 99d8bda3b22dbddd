/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reservation of message tags (hnp_mca.h): each component lists the
 * tags it uses; when a framework's components are found, each one's tags
 * are checked against its framework's hundred and against those of every
 * component found before it, in this framework and in the frameworks
 * searched earlier. A component that fails is refused, as one that fails
 * to load is, and the warning names both components of a collision.
 */
#include "config.h"

#include <stdio.h>

#include "mca_internal.h"

/* The component of @p mca that has reserved @p tag, other than @p self;
 * NULL if none. Components of @p fw from @p upto on are not yet reserved. */
static const hnp_mca_component_t *holder_of(const hnp_mca_t *mca,
                                            const hnp_mca_framework_t *fw,
                                            size_t upto, uint32_t tag)
{
    for (size_t f = 0; f < mca->nframeworks; f++) {
        const mca_found_t *found = &mca->frameworks[f]->found;
        size_t n = mca->frameworks[f] == fw ? upto : found->ncomponents;

        for (size_t i = 0; i < n; i++) {
            const hnp_mca_component_t *c = found->components[i].component;
            for (const uint32_t *t = c->tags; t != NULL && *t != 0; t++)
                if (*t == tag)
                    return c;
        }
    }
    return NULL;
}

/* Why component @p index of @p fw cannot have its tags, into @p reason;
 * false when it can. */
static bool tags_refused(const hnp_mca_framework_t *fw, size_t index,
                         char *reason, size_t len)
{
    const hnp_mca_component_t *c = fw->found.components[index].component;
    uint32_t first = fw->desc->tag_first;

    for (const uint32_t *t = c->tags; t != NULL && *t != 0; t++) {
        const hnp_mca_component_t *holder;

        if (first == 0 || *t < first || *t >= first + HNP_TAG_FRAMEWORK_RANGE) {
            snprintf(reason, len, "its message tag %u is outside the %s "
                     "framework's tags (%u..%u)", *t, fw->desc->name, first,
                     first + HNP_TAG_FRAMEWORK_RANGE - 1);
            return true;
        }
        holder = holder_of(fw->mca, fw, index, *t);
        if (holder != NULL) {
            snprintf(reason, len, "its message tag %u is reserved by %s "
                     "component '%s' already", *t, holder->framework,
                     holder->name);
            return true;
        }
    }
    return false;
}

int mca_tags_reserve(hnp_mca_framework_t *fw, char *err, size_t errlen)
{
    size_t i = 0;

    while (i < fw->found.ncomponents) {
        const hnp_mca_component_t *c = fw->found.components[i].component;
        char reason[256];

        if (!tags_refused(fw, i, reason, sizeof(reason))) {
            i++;
            continue;
        }
        HNP_WARN(fw->log, "%s component '%s' (%s) refused: %s",
                 fw->desc->name, c->name,
                 fw->found.components[i].path != NULL
                     ? fw->found.components[i].path : "built in", reason);
        if (mca_found_reject(&fw->found, i, reason) != HNP_SUCCESS) {
            hnp_err_set(err, errlen, "out of memory checking the %s "
                        "components' message tags", fw->desc->name);
            return HNP_ERR_NOMEM;
        }
    }
    return HNP_SUCCESS;
}
