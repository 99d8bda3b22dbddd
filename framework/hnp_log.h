/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file hnp_log.h
 * @brief The one logging facility of hnp.
 *
 * Messages go through named streams. Each framework owns the stream of its
 * name ("plm", "routed", ...) whose verbosity is the parameter
 * `<framework>_base_verbose`; the component architecture itself logs on the
 * stream "mca" (`mca_base_verbose`). Verbose messages are filtered inside the
 * macro, so a disabled message costs one comparison.
 *
 * Everything is written to one sink, stderr by default; hnp_log_set_file()
 * or hnp_log_set_handler() redirect it (the parameter `log_output` does it
 * for users).
 */
#ifndef HNP_LOG_H
#define HNP_LOG_H

#include <stdarg.h>
#include <stdio.h>

#include "hnp_export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hnp_log_severity {
    HNP_LOG_ERROR,
    HNP_LOG_WARN,
    HNP_LOG_INFO,
    HNP_LOG_VERBOSE,
} hnp_log_severity_t;

/** A named stream. Owned by the log facility; never freed by callers. */
typedef struct hnp_log_stream {
    const char *name; /**< printed in front of every message */
    int verbose;      /**< messages with level <= verbose are shown */
} hnp_log_stream_t;

/** The stream called @p name, created on first use. Never NULL: past 64
 *  names, the later ones share one stream called "log". */
HNP_EXPORT hnp_log_stream_t *hnp_log_stream(const char *name);

/** Receives every message that passes its filter. */
typedef void (*hnp_log_handler_fn)(void *ctx, hnp_log_severity_t sev,
                                   const char *stream, const char *message);

/** Send messages to @p fp (not closed by the facility); NULL means stderr. */
HNP_EXPORT void hnp_log_set_file(FILE *fp);
/** The file set now (NULL: stderr), to put back after a hnp_log_set_file(). */
HNP_EXPORT FILE *hnp_log_get_file(void);
/** Send messages to @p fn instead of a file; NULL restores the file sink. */
HNP_EXPORT void hnp_log_set_handler(hnp_log_handler_fn fn, void *ctx);
/** The handler set now (NULL: the file sink), to put back after a
 *  temporary one. */
HNP_EXPORT void hnp_log_get_handler(hnp_log_handler_fn *fn, void **ctx);
/** The prefix of every line, e.g. "hnp" or "hnpd[node7]"; copied. */
HNP_EXPORT void hnp_log_set_program(const char *program);

HNP_EXPORT
void hnp_log_emit(const hnp_log_stream_t *stream, hnp_log_severity_t sev,
                  const char *fmt, ...) __attribute__((format(printf, 3, 4)));
HNP_EXPORT
void hnp_log_vemit(const hnp_log_stream_t *stream, hnp_log_severity_t sev,
                   const char *fmt, va_list ap);

/** Write a message to the file sink (stderr by default) as this process
 *  would, whatever the handler: for a handler that wants it there too. */
HNP_EXPORT
void hnp_log_write(hnp_log_severity_t sev, const char *stream,
                   const char *message);

/** A message another process logged (a daemon's, relayed to the HNP),
 *  written to this process's sink as that process would have written it:
 *  @p program in front (a handler gets it without). */
HNP_EXPORT
void hnp_log_emit_as(const char *program, const char *stream,
                     hnp_log_severity_t sev, const char *message);

/** A line the user asked for with an option (--report-bindings), written
 *  to this process's sink as it is, with no program name in front, as
 *  mpirun writes it (a handler gets it as an HNP_LOG_INFO of stream ""). */
HNP_EXPORT
void hnp_log_plain(const char *message);

/** Log at verbosity @p level on @p stream (a hnp_log_stream_t pointer). */
#define HNP_VERBOSE(stream, level, ...)                                    \
    do {                                                                   \
        if ((stream)->verbose >= (level))                                  \
            hnp_log_emit((stream), HNP_LOG_VERBOSE, __VA_ARGS__);          \
    } while (0)

#define HNP_ERROR_LOG(stream, ...) hnp_log_emit((stream), HNP_LOG_ERROR, __VA_ARGS__)
#define HNP_WARN(stream, ...) hnp_log_emit((stream), HNP_LOG_WARN, __VA_ARGS__)
#define HNP_INFO(stream, ...) hnp_log_emit((stream), HNP_LOG_INFO, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* HNP_LOG_H */
