/* The command line of hnp. */
#ifndef HNP_ARGS_H
#define HNP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "jobmap.h"

typedef struct hnp_args {
    uint32_t np;            /* -n; 0: one per slot */
    uint32_t npernode;      /* -N */
    hnp_map_policy_t map_by;
    bool oversubscribe;
    bool timing;
    char *hosts;            /* --host; points into argv */
    char *hostfile;         /* --hostfile */
    char *prefix;           /* --prefix */
    char **app_argv;        /* the program and its arguments; into argv */
    int app_argc;
    bool help;
    bool version;
} hnp_args_t;

/** Parse argv (after --mca/--tune were taken out). Errors name the option. */
int hnp_args_parse(hnp_args_t *args, int argc, char **argv, char *err,
                   size_t errlen);
void hnp_args_usage(FILE *out);

#endif /* HNP_ARGS_H */
