/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_mca_base.h
 * @brief The component architecture as the programs drive it (not installed).
 *
 * One hnp_mca_t per process owns the parameter registry, the component
 * repository and the state of every framework. The lifecycle is:
 *
 *   hnp_mca_create()                 built-in components known
 *   hnp_param_set() / load_*()       command line, --tune, ...
 *   hnp_mca_load_default_sources()   environment, user and system files
 *   hnp_mca_framework_register()     per framework: its parameters, then find
 *                                    its components and register theirs
 *   hnp_mca_warn_unknown_params()    after every framework is registered
 *   hnp_mca_framework_open()         apply the user's include/exclude list,
 *                                    open the components that remain
 *   hnp_mca_framework_select()       query them, pick the highest priority
 *   hnp_mca_close()                  optional: run the components' close
 *                                    hooks now (a process about to exit
 *                                    without freeing)
 *   hnp_mca_destroy()                close what is still open, then unload
 *                                    and free everything
 */
#ifndef HNP_MCA_BASE_H
#define HNP_MCA_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "hnp_log.h"
#include "hnp_mca.h"
#include "hnp_param.h"

/** A framework as its base code describes it. Static, never freed. */
typedef struct hnp_mca_framework_desc {
    const char *name;           /**< "plm" */
    const char *description;    /**< one line, for hnp-info */
    uint32_t interface_version; /**< HNP_PLM_INTERFACE_VERSION */
    uint32_t tag_first;         /**< its hundred of message tags
                                     (HNP_TAG_PLM_FIRST); 0: none */
    bool all_active;            /**< every component that accepts is used
                                     (hnp_mca_framework_select_all) */
    bool load_when_opened;      /**< where only the chosen components are
                                     loaded (hnp_mca_load_selected_only: a
                                     daemon), they are looked for and
                                     loaded when the framework is opened,
                                     not when it is registered: it may
                                     never be */
} hnp_mca_framework_desc_t;

typedef struct hnp_mca hnp_mca_t;
typedef struct hnp_mca_framework hnp_mca_framework_t;

/** A component the repository found and accepted. */
typedef struct hnp_mca_component_entry {
    const hnp_mca_component_t *component;
    const char *path; /**< the .so it came from; NULL when built in */
    bool opened;      /**< open() succeeded and it was not filtered out */
    bool queried;     /**< query() was called (at most once a process) */
    const void *module; /**< what query() offered; NULL: declined, or not
                             asked */
    int priority;     /**< what query() offered with it */
} hnp_mca_component_entry_t;

/** A file the repository skipped, and why. */
typedef struct hnp_mca_load_failure {
    const char *path;
    const char *framework;
    const char *component;
    const char *reason;
} hnp_mca_load_failure_t;

/**
 * Create the context. @p builtin is the NULL-terminated table of components
 * linked into the program (empty unless built with --disable-dlopen), and
 * @p default_component_path the installed component directory.
 */
int hnp_mca_create(hnp_mca_t **out, const hnp_mca_component_t *const *builtin,
                   const char *default_component_path, char *err,
                   size_t errlen);
/** Call close() of every opened component, last framework first; each
 *  only once (destroy skips those already closed). The modules stay
 *  loaded and the memory allocated. */
void hnp_mca_close(hnp_mca_t *mca);
void hnp_mca_destroy(hnp_mca_t *mca);

hnp_params_t *hnp_mca_params(hnp_mca_t *mca);

/**
 * Read the environment (`HNP_MCA_*`), the user's file
 * `$HOME/.hnp/mca-params.conf` and the system file @p system_file. Then
 * register the architecture's own parameters (`mca_base_component_path`,
 * `mca_base_verbose`, `log_output`).
 */
int hnp_mca_load_default_sources(hnp_mca_t *mca, char *const *envp,
                                 const char *system_file, char *err,
                                 size_t errlen);

/**
 * Send the log where `log_output` now says, as the daemons do once the
 * HNP's values have come (they came after the start-up applied it). A
 * file's name gets @p file_suffix (a daemon's node, so that daemons that
 * share a file system write a file each). On an error the log stays
 * where it was.
 */
int hnp_mca_apply_log_output(hnp_mca_t *mca, const char *file_suffix,
                             char *err, size_t errlen);
/** The file the log goes to (log_output=file:PATH), NULL for stderr or
 *  stdout; owned by @p mca. */
FILE *hnp_mca_log_file(const hnp_mca_t *mca);

/**
 * Register a framework: its parameters `<fw>` (the selection list) and
 * `<fw>_base_verbose`, then every component of it found among the built-in
 * ones and in `mca_base_component_path`, calling each one's register_params.
 */
int hnp_mca_framework_register(hnp_mca_t *mca,
                               const hnp_mca_framework_desc_t *desc,
                               hnp_mca_framework_t **out, char *err,
                               size_t errlen);

/**
 * From now on, a framework whose selection parameter names exactly one
 * component (`--mca plm prsh`) loads that component alone. For daemons,
 * which are told the HNP's choices: opening nothing else keeps their
 * start-up cheap. Off by default, so that hnp and hnp-info see every
 * component's parameters.
 */
void hnp_mca_load_selected_only(hnp_mca_t *mca, bool only);

/**
 * Load the helper module @p name (file `<name>.so`) from the component
 * path and find @p symbol in it. For code of the core that needs a library
 * few runs use (hwloc, for binding): a process that never asks for it does
 * not load that library at all. Release with hnp_mca_close_module().
 */
int hnp_mca_open_module(hnp_mca_t *mca, const char *name, const char *symbol,
                        void **handle, void **sym, char *err, size_t errlen);
void hnp_mca_close_module(void *handle);

/** Warn about every parameter set but never registered, with suggestions,
 *  except those the foreign-name hook claims. Returns how many unknown
 *  names there were, claimed ones included. */
int hnp_mca_warn_unknown_params(hnp_mca_t *mca);

/**
 * Names of another program's parameters, which a process hands on rather
 * than registers (hnp gives Open MPI's to its ranks): @p claims says
 * whether an unregistered @p name is one, and is called with @p ctx; a
 * claimed name is not warned of. NULL removes the hook. Set it before
 * hnp_mca_warn_unknown_params().
 */
void hnp_mca_set_foreign_params(hnp_mca_t *mca,
                                bool (*claims)(const char *name, void *ctx),
                                void *ctx);

/**
 * Open the framework's components that the selection list allows. A name in
 * the list that exists nowhere is an error listing those that do; a listed
 * component that failed to load is an error with the reason; other load
 * failures are warnings.
 */
int hnp_mca_framework_open(hnp_mca_framework_t *fw, char *err, size_t errlen);

/**
 * Query every opened component and pick the one with the highest priority
 * (ties: the name that sorts first). Fails with a message when none is
 * available.
 */
int hnp_mca_framework_select(hnp_mca_framework_t *fw,
                             const hnp_mca_component_t **component,
                             const void **module, char *err, size_t errlen);

/**
 * Every component the selection list allows whose query offered a module,
 * highest priority first (ties: the name that sorts first), as pointers
 * into the framework's entries: for a framework whose components are all
 * active at once (pmi). At most @p max in @p out; *@p count says how many
 * there are (may be 0, which is no error).
 */
int hnp_mca_framework_select_all(hnp_mca_framework_t *fw,
                                 const hnp_mca_component_entry_t **out,
                                 size_t max, size_t *count, char *err,
                                 size_t errlen);

/**
 * The first module, in the order of the components' names, that @p accept
 * takes, into *@p module: for what the core asks of a framework as a whole
 * rather than of its selected component (the launch model that hnp --plan
 * ranks every launcher's tree by). A component the selection list left out
 * is opened and queried for it, once, and closed with the others; its
 * module is described, never selected. The framework must be open.
 * HNP_ERR_NOT_FOUND when @p accept takes none.
 */
int hnp_mca_framework_find_module(hnp_mca_framework_t *fw,
                                  bool (*accept)(void *ctx,
                                                 const void *module),
                                  void *ctx, const void **module);

/** The framework's log stream (verbosity `<fw>_base_verbose`). */
hnp_log_stream_t *hnp_mca_framework_log(hnp_mca_framework_t *fw);
const hnp_mca_framework_desc_t *hnp_mca_framework_desc(hnp_mca_framework_t *fw);

/** The components found for @p fw, sorted by name. Valid until destroy. */
size_t hnp_mca_framework_components(hnp_mca_framework_t *fw,
                                    const hnp_mca_component_entry_t **list);
/** The files skipped for @p fw. Valid until destroy. */
size_t hnp_mca_framework_failures(hnp_mca_framework_t *fw,
                                  const hnp_mca_load_failure_t **list);

/**
 * Parse a selection list: "a,b" (include) or "^a,b" (exclude). "^" applies to
 * the whole list; mixing is an error. An empty or NULL list selects all.
 */
typedef struct hnp_mca_selection {
    bool exclude;
    size_t count;
    char **names;
} hnp_mca_selection_t;

int hnp_mca_selection_parse(const char *text, hnp_mca_selection_t *sel,
                            char *err, size_t errlen);
void hnp_mca_selection_free(hnp_mca_selection_t *sel);
/** Whether @p name passes the selection. */
bool hnp_mca_selection_allows(const hnp_mca_selection_t *sel, const char *name);
/**
 * The entries of @p entries (sorted by name) that @p sel allows and whose
 * query offered a module, highest priority first, ties in the order given:
 * at most @p max of them in @p out. Returns how many there are.
 */
size_t hnp_mca_selection_rank(const hnp_mca_component_entry_t *entries,
                              size_t n, const hnp_mca_selection_t *sel,
                              const hnp_mca_component_entry_t **out,
                              size_t max);

#endif /* HNP_MCA_BASE_H */
