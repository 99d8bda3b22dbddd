#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian packages hnp needs to build and test. Installs only what
# is missing; as non-root it prints the apt-get command instead. With
# package names as arguments it installs those instead of its own list (the
# benchmarks use it for theirs).
#
# Open MPI's packages register alternatives (mpi, mpirun, mpi-<arch>) of a
# higher priority than MPICH's: in auto mode an install would switch
# mpicc and mpirun to Open MPI under the feet of everything that builds and
# runs with MPICH. So every mpi* group is pinned (manual mode) to what it
# points at before the install, and any group the install changed anyway
# is set back after it. hnp's own tests call mpicc.mpich, mpicc.openmpi and
# mpirun.openmpi by those names and depend on no alternative.
set -euo pipefail

packages=(
    gcc g++ make autoconf automake libtool pkg-config
    libltdl-dev libhwloc-dev libevent-dev libsodium-dev libcmocka-dev
    procps psmisc clang libclang-rt-14-dev
    mpich libmpich-dev
    libpmix-dev openmpi-bin libopenmpi-dev python3-mpi4py
)
[ $# -eq 0 ] || packages=("$@")

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "hnp needs these Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install ${missing[*]}" >&2
    echo "(Open MPI's packages switch the mpicc and mpirun alternatives to" \
        "themselves; $0 run as root keeps them as they were)" >&2
    exit 1
fi

# "group mode value" for every mpi* alternative group.
mpi_alternatives() {
    update-alternatives --get-selections 2>/dev/null | awk '$1 ~ /^mpi/ { print $1, $2, $3 }'
}

before=$(mpi_alternatives)
while read -r group mode value; do
    [ -n "$group" ] && [ "$mode" = auto ] || continue
    update-alternatives --set "$group" "$value" >/dev/null
    echo "pinned the $group alternative to $value for the install"
done <<<"$before"

echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 \
    "${missing[@]}" >/dev/null

while read -r group _ value; do
    [ -n "$group" ] || continue
    if [ "$(update-alternatives --query "$group" | awk '$1 == "Value:" { print $2 }')" != "$value" ]; then
        update-alternatives --set "$group" "$value" >/dev/null
        echo "the install switched the $group alternative: set back to $value"
    fi
done <<<"$before"
