/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_param.h
 * @brief Registered, typed, tunable parameters.
 *
 * Every tunable of hnp is a parameter registered with a name, a type, a
 * default, a help text and a level. Values come from several sources; the
 * strongest one that set a name wins:
 *
 *   command line (`--mca NAME VALUE`)
 *   > forwarded by the HNP (what a daemon receives in its first message)
 *   > environment (`HNP_MCA_NAME=VALUE`)
 *   > tune file (`--tune FILE`)
 *   > user file (`~/.hnp/mca-params.conf`)
 *   > system file (`$sysconfdir/hnp-mca-params.conf`)
 *   > default
 *
 * Values may be set before the parameter is registered (they are kept
 * pending and applied at registration) or after (the bound variable is
 * updated at once). Names follow `<framework>_<component>_<name>`; the
 * framework's own name is its selection parameter.
 *
 * Every value set for a registered parameter must parse as its type, even
 * one a stronger source overrides: set before registration, a bad value
 * makes hnp_param_register() fail; set after, hnp_param_set() fails. The
 * answer therefore does not depend on the order.
 *
 * A failing call changes nothing: a file or environment with one bad entry
 * is applied not at all.
 */
#ifndef HNP_PARAM_H
#define HNP_PARAM_H

#include <stdbool.h>
#include <stddef.h>

#include "hnp_export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hnp_param_type {
    HNP_PARAM_INT,      /**< int; storage: int * */
    HNP_PARAM_UNSIGNED, /**< unsigned int; storage: unsigned int * */
    HNP_PARAM_SIZE,     /**< size_t, accepts k/m/g suffixes; storage: size_t * */
    HNP_PARAM_BOOL,     /**< true/false/yes/no/on/off/1/0; storage: bool * */
    HNP_PARAM_DOUBLE,   /**< double; storage: double * */
    HNP_PARAM_STRING,   /**< storage: char * *, owned by the registry: it
                             is replaced (never modify or free it) when the
                             value changes and set to NULL by
                             hnp_params_destroy(). A NULL default stores
                             NULL; its value text reads "". */
    HNP_PARAM_ENUM,     /**< one of enum_values by name or number; storage: int * */
} hnp_param_type_t;

/** Where a value came from, weakest first. */
typedef enum hnp_param_source {
    HNP_PARAM_SRC_DEFAULT,
    HNP_PARAM_SRC_SYSTEM_FILE,
    HNP_PARAM_SRC_USER_FILE,
    HNP_PARAM_SRC_TUNE_FILE,
    HNP_PARAM_SRC_ENV,
    HNP_PARAM_SRC_FORWARDED,
    HNP_PARAM_SRC_CMDLINE,
} hnp_param_source_t;

typedef struct hnp_param_enum_value {
    const char *name;
    int value;
} hnp_param_enum_value_t;

/** What a caller registers. Strings are copied; @c storage must outlive the
 *  registry (components keep it in a static). */
typedef struct hnp_param_desc {
    const char *framework; /**< "plm", or "mca" for the architecture's own */
    const char *component; /**< "rsh", "base", or NULL for the framework's
                                selection parameter itself */
    const char *name;      /**< the last part; NULL with component NULL */
    hnp_param_type_t type;
    const char *default_value; /**< in the same text form a user would type */
    const char *help;
    int level; /**< 1 (every user) .. 9 (developers); hnp-info filters on
                    it. Outside 1..9 registration fails. */
    const hnp_param_enum_value_t *enum_values; /**< HNP_PARAM_ENUM only;
                                                    ends with a NULL name */
    const char *const *synonyms; /**< other full names; NULL-terminated */
    void *storage; /**< may be NULL: the value is then only read through
                        hnp_param_lookup() */
} hnp_param_desc_t;

/** The registry: every parameter and every value set so far. Opaque. */
typedef struct hnp_params hnp_params_t;

/** A registered parameter as hnp-info reads it. Valid until the registry is
 *  destroyed, except @c value and @c source_detail, which describe the value
 *  at the time of the call and are valid until that value is replaced.
 *  Canonical value text: bools "true"/"false", enums by name, sizes as a
 *  plain number of bytes, doubles in the shortest form that reads back the
 *  same. */
typedef struct hnp_param_info {
    const char *full_name;
    const char *framework;
    const char *component; /**< "" for a framework's selection parameter */
    hnp_param_type_t type;
    const char *value;  /**< current value, as text */
    const char *default_value;
    hnp_param_source_t source;
    const char *source_detail; /**< file:line, variable name, or "" */
    const char *help;
    int level;
    const hnp_param_enum_value_t *enum_values;
    const char *const *synonyms;
} hnp_param_info_t;

HNP_EXPORT hnp_params_t *hnp_params_create(void);
HNP_EXPORT void hnp_params_destroy(hnp_params_t *params);

/**
 * Register a parameter and write its value (the strongest one set so far,
 * else the default) to desc->storage. Fails, changing nothing, when the name
 * is taken or the value does not parse as the type; @p err then names the
 * parameter, the value, where it came from, and the expected type.
 */
HNP_EXPORT int hnp_param_register(hnp_params_t *params,
                                  const hnp_param_desc_t *desc, char *err,
                                  size_t errlen);

/**
 * Set @p name to @p value from @p source. A weaker source than the one that
 * set the current value is remembered but does not win. @p detail says where
 * exactly (e.g. "/etc/hnp-mca-params.conf:12"); may be NULL. For a registered
 * parameter the value is parsed at once and a bad value is an error.
 */
HNP_EXPORT int hnp_param_set(hnp_params_t *params, const char *name,
                             const char *value, hnp_param_source_t source,
                             const char *detail, char *err, size_t errlen);

/** Read every `HNP_MCA_<name>=<value>` of @p envp (NULL-terminated). */
HNP_EXPORT int hnp_params_load_env(hnp_params_t *params, char *const *envp,
                                   char *err, size_t errlen);

/**
 * Read a file of `name = value` lines (`#` starts a comment) as @p source.
 * A missing file is not an error when @p optional is true.
 *
 * Blanks around name and value are trimmed; a value may be quoted ("..." or
 * '...') to keep blanks or a '#'. Unquoted, '#' starts a comment only at
 * the start of a word (`a#b` stays whole). The same name twice: the later
 * line wins. A malformed line is HNP_ERR_BAD_PARAM naming `file:line`; a
 * missing required file HNP_ERR_NOT_FOUND; an unreadable one HNP_ERR_IO.
 */
HNP_EXPORT int hnp_params_load_file(hnp_params_t *params, const char *path,
                                    hnp_param_source_t source, bool optional,
                                    char *err, size_t errlen);

/** Look a registered parameter up by full name or synonym. */
HNP_EXPORT int hnp_param_lookup(const hnp_params_t *params, const char *name,
                                hnp_param_info_t *info);

/** Call @p fn for each registered parameter, in registration order; stops
 *  and returns the first non-zero value @p fn returns. */
HNP_EXPORT int hnp_params_foreach(const hnp_params_t *params,
                                  int (*fn)(const hnp_param_info_t *info,
                                            void *ctx),
                                  void *ctx);

/** The most suggestions hnp_params_check_unknown() passes for one name. */
#define HNP_PARAM_MAX_SUGGESTIONS 3

/**
 * For each name that was set but that nothing registered, call @p fn with
 * the name, its strongest source and that source's detail, and up to
 * HNP_PARAM_MAX_SUGGESTIONS registered names close to it (NULL-terminated,
 * best first: fewest edits, then longest shared run of characters, then
 * alphabetical; case ignored; a parameter is as close as the closest of
 * its names and synonyms, and is suggested under its main name). Names
 * come in the order they were first set. @p fn may be NULL to count only. Returns the number
 * of unknown names, or a negative HNP_ERR_* code.
 */
HNP_EXPORT int hnp_params_check_unknown(const hnp_params_t *params,
                                        void (*fn)(const char *name,
                                        hnp_param_source_t source,
                                        const char *detail,
                                        const char *const *suggestions,
                                        void *ctx),
                                        void *ctx);

/**
 * Call @p fn for each name that was set but that nothing registered, with
 * its value from the strongest source that set it and that source, in the
 * order the names were first set. Stops and returns the first non-zero
 * value @p fn returns; else 0.
 */
HNP_EXPORT int hnp_params_foreach_unregistered(const hnp_params_t *params,
                                               int (*fn)(const char *name,
                                               const char *value,
                                               hnp_param_source_t source,
                                               void *ctx),
                                               void *ctx);

/**
 * Pack every value that does not come from the default into a compact,
 * self-delimiting buffer (what the HNP sends its daemons). *out is malloc'd.
 */
HNP_EXPORT int hnp_params_pack(const hnp_params_t *params, char **out,
                               size_t *len);

/** Apply a buffer made by hnp_params_pack() as source @p source. A corrupt
 *  buffer is rejected whole: HNP_ERR_TRUNCATED when it ends early,
 *  HNP_ERR_BAD_PARAM when it is damaged or a value does not parse as the
 *  type registered here. */
HNP_EXPORT int hnp_params_unpack(hnp_params_t *params, const char *buf,
                                 size_t len, hnp_param_source_t source,
                                 char *err, size_t errlen);

HNP_EXPORT const char *hnp_param_type_name(hnp_param_type_t type);
HNP_EXPORT const char *hnp_param_source_name(hnp_param_source_t source);

#ifdef __cplusplus
}
#endif

#endif /* HNP_PARAM_H */
