/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hnp's stdin on the wire: which ranks get it, as the HNP sends it in the
 * launch message and the daemons read it.
 */
#ifndef HNP_WIRE_STDIN_H
#define HNP_WIRE_STDIN_H

/* A rank (>= 0), or one of these. */
enum { HNP_STDIN_NONE = -1, HNP_STDIN_ALL = -2 };

#endif
