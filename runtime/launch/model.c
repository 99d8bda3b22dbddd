/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launch model file (see model.h): parsing, the weighted
 * update, the atomic write, and fitting SEQ and REM to join times.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hnp_errors.h"
#include "model.h"

#define MODEL_FIELDS 4
/* Far more than any agent line; a bigger file is not one hnp wrote. */
#define MODEL_MAX_FILE (1024 * 1024)

int hnp_launch_model_path(char *buf, size_t len, char *err, size_t errlen)
{
    const char *home = getenv("HOME");

    if (home == NULL || home[0] == '\0') {
        hnp_err_set(err, errlen, "HOME is not set");
        return HNP_ERR_NOT_FOUND;
    }
    if ((size_t)snprintf(buf, len, "%s/.hnp/launch-model", home) >= len) {
        hnp_err_set(err, errlen, "HOME is too long");
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}

static bool parse_seconds(const char *text, double *out)
{
    char *end = NULL;
    double v;

    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

static bool parse_samples(const char *text, unsigned long *out)
{
    char *end = NULL;
    unsigned long v;

    if (text[0] < '0' || text[0] > '9')
        return false;
    errno = 0;
    v = strtoul(text, &end, 10);
    if (*end != '\0' || errno != 0 || v == 0)
        return false;
    *out = v;
    return true;
}

static int append_entry(hnp_launch_model_t *m,
                        const hnp_launch_model_entry_t *e)
{
    hnp_launch_model_entry_t *grown =
        realloc(m->entries, (m->n + 1) * sizeof(*grown));

    if (grown == NULL)
        return HNP_ERR_NOMEM;
    m->entries = grown;
    m->entries[m->n] = *e;
    m->entries[m->n].agent = strdup(e->agent);
    if (m->entries[m->n].agent == NULL)
        return HNP_ERR_NOMEM;
    m->n++;
    return HNP_SUCCESS;
}

/* One line, modified in place; blank and comment lines add nothing. */
static int parse_line(hnp_launch_model_t *m, char *line, unsigned lineno,
                      char *err, size_t errlen)
{
    char *field[MODEL_FIELDS];
    hnp_launch_model_entry_t e;
    size_t n = 0;

    if (line[0] == '\0' || line[0] == '#')
        return HNP_SUCCESS;
    /* n counts fields: one more than the tabs, however many there are */
    for (char *p = line; p != NULL; n++) {
        if (n < MODEL_FIELDS)
            field[n] = p;
        p = strchr(p, '\t');
        if (p != NULL)
            *p++ = '\0';
    }
    if (n != MODEL_FIELDS || field[0][0] == '\0' || !parse_seconds(field[1], &e.seq) ||
        !parse_seconds(field[2], &e.rem) ||
        !parse_samples(field[3], &e.samples)) {
        hnp_err_set(err, errlen, "line %u is not agent<TAB>seq<TAB>rem<TAB>"
                    "samples", lineno);
        return HNP_ERR_BAD_PARAM;
    }
    if (hnp_launch_model_find(m, field[0]) != NULL) {
        hnp_err_set(err, errlen, "line %u repeats agent '%s'", lineno,
                    field[0]);
        return HNP_ERR_BAD_PARAM;
    }
    e.agent = field[0];
    return append_entry(m, &e);
}

int hnp_launch_model_parse(hnp_launch_model_t *m, const char *text,
                           char *err, size_t errlen)
{
    char *copy = strdup(text), *save = NULL;
    unsigned lineno = 0;
    int rc = copy != NULL ? HNP_SUCCESS : HNP_ERR_NOMEM;

    /* strtok_r would merge empty lines and miscount; walk by hand. */
    for (char *line = copy; rc == HNP_SUCCESS && line != NULL; line = save) {
        save = strchr(line, '\n');
        if (save != NULL)
            *save++ = '\0';
        lineno++;
        rc = parse_line(m, line, lineno, err, errlen);
    }
    free(copy);
    if (rc != HNP_SUCCESS)
        hnp_launch_model_free(m);
    return rc;
}

static int read_text(const char *path, char **out, size_t *len, char *err,
                     size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *text;
    size_t n;

    if (f == NULL) {
        hnp_err_set(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return errno == ENOENT ? HNP_ERR_NOT_FOUND : HNP_ERR_IO;
    }
    text = malloc(MODEL_MAX_FILE + 1);
    n = text != NULL ? fread(text, 1, MODEL_MAX_FILE + 1, f) : 0;
    int failed = text == NULL || ferror(f) || n > MODEL_MAX_FILE;
    fclose(f);
    if (failed) {
        free(text);
        hnp_err_set(err, errlen, "cannot read %s (or it is over %d bytes)",
                    path, MODEL_MAX_FILE);
        return text == NULL ? HNP_ERR_NOMEM : HNP_ERR_IO;
    }
    text[n] = '\0';
    *out = text;
    *len = n;
    return HNP_SUCCESS;
}

int hnp_launch_model_load(hnp_launch_model_t *m, const char *path,
                          char *err, size_t errlen)
{
    char *text = NULL;
    char why[256] = "";
    size_t len = 0;
    int rc = read_text(path, &text, &len, err, errlen);

    if (rc != HNP_SUCCESS)
        return rc;
    /* A NUL would hide the rest of the file from the parser. */
    if (strlen(text) != len)
        hnp_err_set(why, sizeof(why), "it contains a NUL byte");
    rc = strlen(text) != len ? HNP_ERR_BAD_PARAM
                             : hnp_launch_model_parse(m, text, why, sizeof(why));
    if (rc != HNP_SUCCESS)
        hnp_err_set(err, errlen, "%s: %s", path, why);
    free(text);
    return rc;
}

const hnp_launch_model_entry_t *
hnp_launch_model_find(const hnp_launch_model_t *m, const char *agent)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->entries[i].agent, agent) == 0)
            return &m->entries[i];
    return NULL;
}

int hnp_launch_model_update(hnp_launch_model_t *m, const char *agent,
                            double seq, double rem)
{
    const double w = HNP_LAUNCH_MODEL_WEIGHT;
    hnp_launch_model_entry_t *e;

    if (agent == NULL || agent[0] == '\0' || strpbrk(agent, "\t\n") != NULL ||
        !isfinite(seq) || !isfinite(rem) || seq < 0 || rem < 0)
        return HNP_ERR_BAD_PARAM;
    e = (hnp_launch_model_entry_t *)hnp_launch_model_find(m, agent);
    if (e == NULL) {
        hnp_launch_model_entry_t fresh = { (char *)agent, seq, rem, 1 };
        return append_entry(m, &fresh);
    }
    e->seq = (1 - w) * e->seq + w * seq;
    e->rem = (1 - w) * e->rem + w * rem;
    e->samples++;
    return HNP_SUCCESS;
}

static int write_entries(FILE *f, const hnp_launch_model_t *m)
{
    fprintf(f, "# hnp launch model (plm_prsh_model=auto), written by hnp\n"
               "# agent<TAB>seq<TAB>rem<TAB>samples (seconds)\n");
    for (size_t i = 0; i < m->n; i++)
        fprintf(f, "%s\t%.6f\t%.6f\t%lu\n", m->entries[i].agent,
                m->entries[i].seq, m->entries[i].rem, m->entries[i].samples);
    return fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0
               ? HNP_ERR_IO : HNP_SUCCESS;
}

/* The directory of @p path, created private: the file says which agents
 * this user runs. */
static int make_parent(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    char *slash;

    snprintf(dir, sizeof(dir), "%s", path);
    slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return HNP_SUCCESS;
    *slash = '\0';
    if (mkdir(dir, 0700) == 0 || errno == EEXIST)
        return HNP_SUCCESS;
    hnp_err_set(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    return HNP_ERR_IO;
}

int hnp_launch_model_save(const hnp_launch_model_t *m, const char *path,
                          char *err, size_t errlen)
{
    char tmp[4096];
    int fd, rc = make_parent(path, err, errlen);
    FILE *f;

    if (rc != HNP_SUCCESS)
        return rc;
    /* Unique per writer, so two jobs ending together never share a
     * temporary file; the last rename wins whole. */
    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
        hnp_err_set(err, errlen, "cannot create a file beside %s: %s", path,
                    strerror(errno));
        if (fd >= 0)
            close(fd);
        return HNP_ERR_IO;
    }
    rc = write_entries(f, m);
    if (fclose(f) != 0)
        rc = HNP_ERR_IO;
    if (rc == HNP_SUCCESS && rename(tmp, path) != 0)
        rc = HNP_ERR_IO;
    if (rc != HNP_SUCCESS) {
        hnp_err_set(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

void hnp_launch_model_free(hnp_launch_model_t *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->entries[i].agent);
    free(m->entries);
    m->entries = NULL;
    m->n = 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Sorts @p v. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), by_value);
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int hnp_launch_model_fit(const double *delays, size_t n, double *seq,
                         double *rem)
{
    double *sorted, *work;

    if (delays == NULL || n < 2)
        return HNP_ERR_BAD_PARAM;
    sorted = malloc(n * sizeof(*sorted));
    work = malloc(n * sizeof(*work));
    if (sorted == NULL || work == NULL) {
        free(sorted);
        free(work);
        return HNP_ERR_NOMEM;
    }
    memcpy(sorted, delays, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), by_value);
    for (size_t i = 1; i < n; i++)
        work[i - 1] = sorted[i] - sorted[i - 1];
    *seq = median(work, n - 1);
    for (size_t i = 0; i < n; i++)
        work[i] = sorted[i] - (double)i * *seq;
    *rem = median(work, n);
    if (*rem < 0)
        *rem = 0;
    free(sorted);
    free(work);
    return HNP_SUCCESS;
}
