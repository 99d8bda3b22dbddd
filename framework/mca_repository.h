/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The component repository (private to libhnpmca): finds the components of
 * one framework among the built-in ones and the shared objects on a search
 * path, checks each one before using it, and keeps the loaded files open
 * until they are released. mca_repository.c is the only file that calls
 * libltdl.
 */
#ifndef HNP_MCA_REPOSITORY_H
#define HNP_MCA_REPOSITORY_H

#include <stddef.h>
#include <stdint.h>

#include "hnp_mca_base.h"

/** Owns the libltdl initialisation and the loading options. */
typedef struct mca_repository mca_repository_t;

/** Label used as the path of a built-in component that was rejected. */
#define MCA_BUILTIN_PATH "(built in)"

/**
 * What one search found for one framework. Every string in @c components
 * and @c failures is owned by this struct, as is every handle.
 */
typedef struct mca_found {
    hnp_mca_component_entry_t *components; /**< sorted by name */
    size_t ncomponents;
    hnp_mca_load_failure_t *failures; /**< in the order they were met */
    size_t nfailures;
    void **handles; /**< every file kept loaded (lt_dlhandle) */
    size_t nhandles;
} mca_found_t;

int mca_repository_create(mca_repository_t **out, char *err, size_t errlen);
void mca_repository_destroy(mca_repository_t *repo);

/**
 * Find the components of @p framework. @p builtin (NULL-terminated, may be
 * NULL) comes first, then every directory of @p path (colon-separated, `~`
 * is $HOME) in order, looking for files `mca_<framework>_<name>.so`. The
 * first component of a name wins. Files that fail a check are recorded in
 * found->failures; the only errors are running out of memory and a bad
 * framework name. On error *found is left empty. With @p only (may be
 * NULL), no other component is loaded at all.
 */
int mca_repository_find(mca_repository_t *repo, const char *framework,
                        uint32_t interface_version, const char *path,
                        const hnp_mca_component_t *const *builtin,
                        const char *only, mca_found_t *found, char *err,
                        size_t errlen);

/**
 * Move component @p index to the failures with @p reason. Its file stays
 * loaded until mca_found_release(): the component may have handed out
 * pointers into it (e.g. parameter storage).
 */
int mca_found_reject(mca_found_t *found, size_t index, const char *reason);

/** The component called @p name in @p found, or NULL. */
const hnp_mca_component_entry_t *mca_found_find(const mca_found_t *found,
                                                const char *name);

/** Unload every file of @p found and free it; leaves *found empty. */
void mca_found_release(mca_found_t *found);

/**
 * Load the helper module @p name (the file `<name>.so`) from the first
 * directory of @p path that holds it, and find @p symbol in it; *@p handle
 * goes to mca_repository_close_module(). For code that needs a library
 * few runs use, so that the other runs do not load it.
 */
int mca_repository_open_module(mca_repository_t *repo, const char *path,
                               const char *name, const char *symbol,
                               void **handle, void **sym, char *err,
                               size_t errlen);
void mca_repository_close_module(void *handle);

#endif /* HNP_MCA_REPOSITORY_H */
