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
"""
import os
import re
import resource
import select
import socket
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


def main():
    addr = address(sys.argv[1])
    if sys.argv[2] == "flood":
        flood(addr, int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif sys.argv[2] == "junk":
        junk(addr, sys.argv[3])
    else:
        http(addr)


main()
