#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A stranger on the HNP's port, for the OOB's guard tests.

  stranger.py URIFILE flood N READYFILE DONEFILE
      open N connections to the first tcp:// address in URIFILE (waiting
      for the file to appear) and say nothing; touch READYFILE once all
      have been answered (accepted, or dropped), then hold them, opening
      again each one the other side drops, until DONEFILE appears. Prints
      how many were dropped.
  stranger.py URIFILE junk DONEFILE
      open connections that send an HTTP request and close them, as fast
      as they are answered (at most 64 at once), until DONEFILE appears.
      Prints how many.
  stranger.py URIFILE http
      send an HTTP request and print the seconds until the other side
      closes the connection (at most 30).
  stranger.py URIFILE hellos RATE SECONDS COUNT VPIDS GOFILE DONEFILE
      a hello flood: RATE new connections a second, from 127.0.0.2 to
      127.0.0.5 in turn, each saying a well-formed hello (the protocol's
      magic and version, a vpid from 1 to VPIDS, a random nonce) and never
      its proof, each held until the other side drops it. It touches
      GOFILE after its first second and stops opening after COUNT
      connections, after SECONDS, or when DONEFILE appears; then closes
      all. Prints how many it opened and how many were dropped.
"""
import os
import random
import re
import resource
import select
import socket
import struct
import sys
import time


def address(urifile):
    for _ in range(1200):
        if os.path.exists(urifile):
            text = open(urifile).read()
            m = re.search(r"tcp://([0-9.]+):([0-9]+)", text)
            if m:
                return m.group(1), int(m.group(2))
        time.sleep(0.05)
    sys.exit("no URI in %s" % urifile)


def opened(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.connect_ex(addr)
    return s


def flood(addr, n, ready, done):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = n + 64
    if soft < want and (hard == resource.RLIM_INFINITY or hard >= want):
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    socks = {}
    poller = select.poll()
    for _ in range(n):
        s = opened(addr)
        socks[s.fileno()] = s
        poller.register(s, select.POLLOUT)
    # Every connection established or refused: the HNP had its chance to
    # accept them all before the daemons start.
    pending = n
    deadline = time.time() + 20
    while pending > 0 and time.time() < deadline:
        for fd, _ in poller.poll(200):
            poller.unregister(fd)
            pending -= 1
    time.sleep(0.5)
    for s in socks.values():
        poller.register(s, select.POLLIN)
    open(ready, "w").close()
    # Held, and every one the other side drops is opened again, as an
    # attacker would, until the job is over.
    dropped = 0
    while not os.path.exists(done):
        for fd, _ in poller.poll(100):
            poller.unregister(fd)
            socks.pop(fd).close()
            dropped += 1
            s = opened(addr)
            socks[s.fileno()] = s
            poller.register(s, select.POLLIN)
    for s in socks.values():
        s.close()
    print("%d dropped and opened again" % dropped)


def junk(addr, done):
    count = 0
    live = []
    while not os.path.exists(done):
        while len(live) < 64:
            try:
                s = socket.create_connection(addr, timeout=5)
                s.sendall(b"GET / HTTP/1.0\r\n\r\n")
                live.append(s)
                count += 1
            except OSError:
                break
        for s in live:
            s.close()
        live = []
    print("%d junk connections" % count)


def http(addr):
    s = socket.create_connection(addr, timeout=30)
    start = time.time()
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    print("%.2f" % (time.time() - start))


def hello(vpid):
    # Magic, version 2, reserved, vpid, 32 bytes of nonce: 44 bytes.
    return b"HNP1" + struct.pack(">HHI", 2, 0, vpid) + os.urandom(32)


def hellos(addr, rate, seconds, count, vpids, go, done):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = count + 64
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    sources = ["127.0.0.%d" % i for i in range(2, 6)]
    socks = {}
    poller = select.poll()
    opened_n = dropped = 0
    start = time.time()
    while (opened_n < count and time.time() - start < seconds and
           not os.path.exists(done)):
        if time.time() - start >= 1 and not os.path.exists(go):
            open(go, "w").close()
        # Keep to the rate: open what is due, then look at what dropped.
        due = int((time.time() - start) * rate) - opened_n
        for _ in range(max(0, min(due, count - opened_n))):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind((sources[opened_n % len(sources)], 0))
                s.settimeout(1)
                s.connect(addr)
                s.sendall(hello(random.randint(1, vpids)))
            except OSError:
                s.close()
                opened_n += 1
                continue
            s.setblocking(False)
            socks[s.fileno()] = s
            poller.register(s, select.POLLIN)
            opened_n += 1
            if len(socks) >= want - 32:
                break
        for fd, _ in poller.poll(5):
            try:
                # The HNP's answer (its hello and proof) is read and
                # ignored; only the end of the stream is a drop.
                if socks[fd].recv(4096):
                    continue
            except OSError:
                pass
            poller.unregister(fd)
            socks.pop(fd).close()
            dropped += 1
    open(go, "w").close()
    for s in socks.values():
        s.close()
    print("%d hellos said, %d dropped by the other side, in %.1f s" %
          (opened_n, dropped, time.time() - start))


def main():
    addr = address(sys.argv[1])
    if sys.argv[2] == "flood":
        flood(addr, int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif sys.argv[2] == "hellos":
        hellos(addr, float(sys.argv[3]), float(sys.argv[4]),
               int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8])
    elif sys.argv[2] == "junk":
        junk(addr, sys.argv[3])
    else:
        http(addr)


main()
