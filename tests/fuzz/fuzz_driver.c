/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replays inputs through a fuzz target without libFuzzer, so every build
 * (gcc included) compiles the targets and runs the corpus in `make check`.
 *
 *   fuzz_<target>_replay FILE|DIR...
 *
 * Runs the empty input, then every file named and every file in every
 * directory named (sorted by name, so runs are reproducible). Each input
 * lives in an allocation of exactly its size, so a read past its end shows
 * under valgrind or AddressSanitizer. A broken invariant aborts, as it does
 * under libFuzzer.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

/* The whole file in a buffer of exactly its length (1 byte when empty, so
 * that NULL means failure). */
static uint8_t *read_whole_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *data = NULL;
    struct stat st;

    if (fp == NULL)
        return NULL;
    if (fstat(fileno(fp), &st) == 0 && st.st_size >= 0) {
        *len = (size_t)st.st_size;
        data = malloc(*len > 0 ? *len : 1);
        if (data != NULL && fread(data, 1, *len, fp) != *len) {
            free(data);
            data = NULL;
        }
    }
    fclose(fp);
    return data;
}

static int replay_file(const char *path)
{
    size_t len = 0;
    uint8_t *data = read_whole_file(path, &len);

    if (data == NULL) {
        fprintf(stderr, "fuzz replay: cannot read %s: %s\n", path,
                strerror(errno != 0 ? errno : EIO));
        return -1;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int skip_hidden(const struct dirent *entry)
{
    return entry->d_name[0] != '.';
}

/* Every regular file directly in @p dir; returns how many, or -1. */
static int replay_directory(const char *dir)
{
    struct dirent **entries;
    int n = scandir(dir, &entries, skip_hidden, alphasort);
    int replayed = 0, rc = 0;

    if (n < 0) {
        fprintf(stderr, "fuzz replay: cannot list %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(entries[i]->d_name) + 2;
        char *path = malloc(len);
        struct stat st;

        if (path == NULL) {
            rc = -1;
        } else {
            snprintf(path, len, "%s/%s", dir, entries[i]->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(path) == 0)
                    replayed++;
                else
                    rc = -1;
            }
            free(path);
        }
        free(entries[i]);
    }
    free(entries);
    return rc == 0 ? replayed : -1;
}

int main(int argc, char **argv)
{
    int total = 1, failed = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int n;

        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            n = replay_directory(argv[i]);
        else
            n = replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0)
            failed = 1;
        else
            total += n;
    }
    printf("%s: replayed %d inputs%s\n", argv[0], total,
           failed ? ", some could not be read" : "");
    return failed;
}
