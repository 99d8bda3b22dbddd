# SPDX-License-Identifier: BSD-3-Clause
# mpi4py.futures under hnp (ompi-spawn.sh): rank 0 maps a function over a
# pool of 3 spawned workers and says what came back and from how many nodes.
import socket
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor

def square(x):
    return x * x, socket.gethostname()

if __name__ == "__main__":
    if MPI.COMM_WORLD.Get_rank() == 0:
        with MPIPoolExecutor(max_workers=3) as pool:
            got = list(pool.map(square, range(12)))
        print("squares", " ".join(str(v) for v, _ in got))
        print("worker nodes", len(set(h for _, h in got)))
