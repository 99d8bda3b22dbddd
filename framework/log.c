/* SPDX-License-Identifier: BSD-3-Clause */
/* The logging facility: named streams, one sink. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hnp_log.h"

#define LOG_MAX_STREAMS 64
#define LOG_LINE_MAX 4096

/* The facility is the one owner of this state; nothing else touches it. */
static struct {
    hnp_log_stream_t streams[LOG_MAX_STREAMS];
    char names[LOG_MAX_STREAMS][32];
    int nstreams;
    hnp_log_stream_t overflow; /* shared by names past the table's end */
    FILE *file;
    hnp_log_handler_fn handler;
    void *handler_ctx;
    char program[64];
} logger = { .overflow = { "log", 0 }, .program = "hnp" };

hnp_log_stream_t *hnp_log_stream(const char *name)
{
    for (int i = 0; i < logger.nstreams; i++)
        if (strcmp(logger.streams[i].name, name) == 0)
            return &logger.streams[i];
    if (logger.nstreams == LOG_MAX_STREAMS)
        return &logger.overflow;

    int i = logger.nstreams++;
    snprintf(logger.names[i], sizeof(logger.names[i]), "%s", name);
    logger.streams[i].name = logger.names[i];
    logger.streams[i].verbose = 0;
    return &logger.streams[i];
}

void hnp_log_set_file(FILE *fp)
{
    logger.file = fp;
}

FILE *hnp_log_get_file(void)
{
    return logger.file;
}

void hnp_log_set_handler(hnp_log_handler_fn fn, void *ctx)
{
    logger.handler = fn;
    logger.handler_ctx = ctx;
}

void hnp_log_get_handler(hnp_log_handler_fn *fn, void **ctx)
{
    *fn = logger.handler;
    *ctx = logger.handler_ctx;
}

void hnp_log_set_program(const char *program)
{
    snprintf(logger.program, sizeof(logger.program), "%s", program);
}

static const char *severity_word(hnp_log_severity_t sev)
{
    switch (sev) {
    case HNP_LOG_ERROR: return "error: ";
    case HNP_LOG_WARN: return "warning: ";
    default: return "";
    }
}

static void write_message(const char *program, const char *stream,
                          hnp_log_severity_t sev, const char *message)
{
    FILE *out = logger.file != NULL ? logger.file : stderr;

    if (sev == HNP_LOG_VERBOSE)
        fprintf(out, "[%s:%s] %s\n", program, stream, message);
    else
        fprintf(out, "%s: %s%s\n", program, severity_word(sev), message);
    fflush(out);
}

void hnp_log_vemit(const hnp_log_stream_t *stream, hnp_log_severity_t sev,
                   const char *fmt, va_list ap)
{
    char message[LOG_LINE_MAX];

    vsnprintf(message, sizeof(message), fmt, ap);
    if (logger.handler != NULL) {
        logger.handler(logger.handler_ctx, sev, stream->name, message);
        return;
    }
    write_message(logger.program, stream->name, sev, message);
}

void hnp_log_write(hnp_log_severity_t sev, const char *stream,
                   const char *message)
{
    write_message(logger.program, stream, sev, message);
}

void hnp_log_emit_as(const char *program, const char *stream,
                     hnp_log_severity_t sev, const char *message)
{
    if (logger.handler != NULL) {
        logger.handler(logger.handler_ctx, sev, stream, message);
        return;
    }
    write_message(program, stream, sev, message);
}

void hnp_log_plain(const char *message)
{
    FILE *out = logger.file != NULL ? logger.file : stderr;

    if (logger.handler != NULL) {
        logger.handler(logger.handler_ctx, HNP_LOG_INFO, "", message);
        return;
    }
    fprintf(out, "%s\n", message);
    fflush(out);
}

void hnp_log_emit(const hnp_log_stream_t *stream, hnp_log_severity_t sev,
                  const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    hnp_log_vemit(stream, sev, fmt, ap);
    va_end(ap);
}
