# SPDX-License-Identifier: BSD-3-Clause
# A script run by "python3 -m mpi4py.futures" under hnp (ompi-spawn.sh):
# it maps a function over MPIPoolExecutor's workers (spawned when the job
# has one process, the job's other processes otherwise) and says what
# came back, from how many workers and nodes.
import os
import socket
import sys
from mpi4py.futures import MPIPoolExecutor


def square(x):
    return x * x, os.getpid(), socket.gethostname()


if __name__ == "__main__":
    with MPIPoolExecutor(max_workers=int(sys.argv[1])) as pool:
        got = list(pool.map(square, range(24)))
    print("script squares", " ".join(str(v) for v, _, _ in got))
    print("script workers", len(set(p for _, p, _ in got)),
          "nodes", len(set(h for _, _, h in got)))
