#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Generate configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p config m4
autoreconf --install --force --warnings=all,no-portability
