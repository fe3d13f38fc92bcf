#!/usr/bin/env python3
"""Hostile peers for test_net.sh, on loopback only.

  net_hostile.py flood PORT SECONDS   open hundreds of connections to a virtperf serve:
                                      garbage, truncated frames, oversized lengths, a
                                      wrong version, and silent ones held open; prints
                                      how many got an ERROR frame back
  net_hostile.py version PORT         send a HELLO of a version this end does not speak;
                                      print the ERROR text
  net_hostile.py fake-server PORT     accept one client and answer as a server of another
                                      version
"""
import socket
import struct
import sys
import time

PROTOCOL = 2          # what virtperf speaks
OTHER = PROTOCOL + 1  # a version it must refuse


def header(frame_type, length, version=PROTOCOL, magic=b"VPRF"):
    return magic + bytes([version, frame_type]) + b"\0\0" + struct.pack(">I", length)


def read_error(sock):
    """Returns the text of an ERROR frame, or None."""
    sock.settimeout(5)
    data = b""
    try:
        while len(data) < 12:
            chunk = sock.recv(12 - len(data))
            if not chunk:
                return None
            data += chunk
        if data[5] != 12:
            return None
        length = struct.unpack(">I", data[8:12])[0]
        text = b""
        while len(text) < length:
            chunk = sock.recv(length - len(text))
            if not chunk:
                break
            text += chunk
        return text.decode("ascii", "replace")
    except OSError:
        return None


def flood(port, seconds):
    payloads = {
        "garbage": b"\xde\xad\xbe\xef" * 64,
        "truncated": header(1, 0)[:7],
        "oversized": header(7, 0xFFFFFFF0),
        "wrong-first": header(7, 4) + b"abcd",
        "version": header(1, 0, version=OTHER),
        "silent": b"",
    }
    counts = {"garbage": 60, "truncated": 60, "oversized": 60, "wrong-first": 40,
              "version": 40, "silent": 100}
    held = []
    for kind, count in counts.items():
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            if payloads[kind]:
                sock.sendall(payloads[kind])
            held.append((kind, sock))
    refused = 0
    for kind, sock in held:
        if kind in ("garbage", "oversized", "wrong-first", "version"):
            if read_error(sock) is not None:
                refused += 1
    time.sleep(seconds)  # the silent and truncated ones stay open meanwhile
    for _, sock in held:
        sock.close()
    print(refused)


def version(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(header(1, 0, version=OTHER))
    print(read_error(sock))


def fake_server(port):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(4)
    listener.settimeout(20)
    conn, _ = listener.accept()
    conn.recv(12)
    conn.sendall(header(2, 33, version=OTHER) + bytes(33))
    time.sleep(1)
    conn.close()


if __name__ == "__main__":
    command, port = sys.argv[1], int(sys.argv[2])
    if command == "flood":
        flood(port, float(sys.argv[3]))
    elif command == "version":
        version(port)
    else:
        fake_server(port)
