/* SPDX-License-Identifier: BSD-3-Clause */
/* hnp --help: the options of hnp(1), short. */
#include "config.h"

#include <stdio.h>

#include "args.h"

void hnp_args_usage(FILE *out)
{
    fprintf(out,
"usage: hnp [options] program [args...] [: [-n N] program [args...]]...\n"
"\n"
"Placement\n"
"  -n, -np N               start N processes (default: one per slot)\n"
"  -N, --npernode K        start K processes on every node\n"
"  --host LIST             hosts, e.g. a,a,b:4,node[001-016],[fe80::1]:2\n"
"                          (slots after ':'; a name again is a slot more)\n"
"  --hostfile FILE         hosts, one a line, optional slots=N; with --host,\n"
"                          --host picks among them\n"
"  --oversubscribe         allow more processes than slots\n"
"Mapping and binding (see hnp(1))\n"
"  --map-by slot|node|core|socket|numa|hwthread|ppr:N:OBJ[:PE=n]\n"
"                          where ranks go (default: fill each node's slots)\n"
"  --rank-by slot|node|core|socket|numa\n"
"                          the order of the ranks over the places\n"
"  --bind-to none|hwthread|core|socket|numa|cpu-list[:overload-allowed,\n"
"            if-supported,ordered]\n"
"                          what each rank is bound to (default none)\n"
"  --cpus-per-proc N       N CPUs a rank (as --map-by numa:PE=N)\n"
"  --use-hwthread-cpus     hardware threads are the CPUs, not cores\n"
"  --cpu-list LIST         use only these CPUs (logical numbers)\n"
"  --rankfile, -rf FILE    each rank's node and CPUs, Open MPI's format\n"
"  --report-bindings       print each rank's binding, bound or not\n"
"  --display-map           print the map before the launch\n"
"  --display-allocation    print the nodes and their slots\n"
"Environment (-x and --wdir: of their app context only)\n"
"  -x NAME[=VALUE]         pass NAME (hnp's value, or VALUE) to the processes\n"
"  --wdir DIR              run the processes in DIR (default: hnp's; a\n"
"                          relative DIR is hnp's working directory's)\n"
"  --prefix DIR            start the daemons as DIR/bin/hnpd\n"
"Input and output\n"
"  --stdin RANK|all|none   where hnp's stdin goes (default: rank 0)\n"
"  --tag-output            prefix each line with [jobid,rank]<stream>:\n"
"  --output-filename DIR   also write each rank's output to DIR/rank.N/\n"
"Control\n"
"  --timeout SECONDS       end the job when it runs longer\n"
"  --timing                print the time of each launch phase\n"
"  --plan[=text|csv|dot]   launch nothing; print the spawn tree chosen and\n"
"                          the launch model's time of it and of other trees\n"
"  --mca NAME VALUE        set a parameter (see hnp-info --param all all)\n"
"  --tune FILE             read parameters from FILE\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n");
}

