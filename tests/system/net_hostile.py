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
  net_hostile.py trickle PORT N SECS [INTERVAL]
                                      open N connections, each sending its HELLO one byte
                                      every INTERVAL s (0.4); print how long the longest stayed
                                      open (the server must close them; "held" if one was
                                      still open after SECS) and how many were refused
  net_hostile.py trickle-server PORT  accept one client, answer its handshake and test at
                                      once, then trickle each RESPONSE a byte every 0.2 s
  net_hostile.py evicting-server PORT N SERVE_PORT
                                      close the first N handshakes after their HELLO (as
                                      serve evicts one), relay the next one to the serve
                                      on SERVE_PORT; print how many it closed
  net_hostile.py hold PORT SECS SOURCE MODE
                                      for SECS, open connections from address SOURCE as
                                      fast as the server takes them, holding the newest
                                      500; MODE silent sends nothing, hello a HELLO and
                                      then nothing (stalls at AUTH); prints how many
"""
import select
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


def clients(port, wait=20):
    """Listens on port and yields each connection that sends a HELLO header, with that
    header (one that closes at once only checked that the port listens); ends wait
    seconds after the last."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(4)
    listener.settimeout(wait)
    while True:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            return
        conn.settimeout(60)
        try:
            head = recv_exact(conn, 12)
        except OSError:
            conn.close()
            continue
        yield conn, head


def first_client(port):
    return next(clients(port))[0]


def fake_server(port):
    conn = first_client(port)
    conn.sendall(header(2, 33, version=OTHER) + bytes(33))
    time.sleep(1)
    conn.close()


def trickle(port, count, seconds, interval):
    hello = header(1, 0)
    socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
    opened = time.monotonic()
    longest, open_socks, answered = 0.0, list(socks), set()

    def closed(sock):
        nonlocal longest
        longest = max(longest, time.monotonic() - opened)
        open_socks.remove(sock)

    for sent in range(10 ** 6):
        if not open_socks or time.monotonic() - opened > seconds:
            break
        for sock in list(open_socks):
            try:
                sock.send(hello[sent % len(hello):sent % len(hello) + 1])
            except OSError:
                closed(sock)
        until = time.monotonic() + interval
        while open_socks and time.monotonic() < until:  # closes seen as they happen
            readable, _, _ = select.select(open_socks, [], [], max(0, until - time.monotonic()))
            for sock in readable:
                try:
                    data = sock.recv(4096)
                except OSError:
                    data = b""
                if data:
                    answered.add(sock)  # an ERROR frame: refused
                else:
                    closed(sock)
    print("%s %d" % ("%.1f" % longest if not open_socks else "held", len(answered)))


def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionResetError
        data += chunk
    return data


def recv_frame(conn):
    head = recv_exact(conn, 12)
    return head[5], recv_exact(conn, struct.unpack(">I", head[8:12])[0])


def trickle_server(port):
    conn = first_client(port)                             # its HELLO read
    try:
        conn.sendall(header(2, 33) + bytes(33))           # CHALLENGE, no key needed
        recv_frame(conn)                                  # AUTH
        conn.sendall(header(4, 0))                        # WELCOME
        _, test = recv_frame(conn)                        # TEST
        response_size = struct.unpack(">I", test[16:20])[0]
        conn.sendall(header(6, 12) + bytes(12))           # READY
        while True:
            kind, _ = recv_frame(conn)
            if kind != 10:                                # REQUEST
                break
            for byte in header(11, response_size) + bytes(response_size):
                conn.send(bytes([byte]))
                time.sleep(0.2)
    except OSError:
        pass  # the client gave up: what this peer is for
    conn.close()


def relay(conn, target_port, first):
    """Passes conn's bytes (first: those already read) to a server on target_port and
    its answers back, until either end closes."""
    upstream = socket.create_connection(("127.0.0.1", target_port), timeout=5)
    upstream.sendall(first)
    other = {conn: upstream, upstream: conn}
    going = True
    while going:
        readable, _, _ = select.select(list(other), [], [], 60)
        going = bool(readable)
        for sock in readable:
            data = sock.recv(65536)
            going = going and bool(data)
            if data:
                other[sock].sendall(data)
    upstream.close()
    conn.close()


def evicting_server(port, evictions, target_port):
    """Closes the first EVICTIONS handshakes right after their HELLO, as serve ends one
    that makes room for another's, then relays the next one to the virtperf serve on
    target_port; prints how many it closed (it ends 3 s after the last connection when
    no other comes)."""
    closed = 0
    for conn, hello in clients(port, wait=3):
        if closed < evictions:
            conn.close()
            closed += 1
            continue
        relay(conn, target_port, hello)
        break
    print(closed)


def hold(port, seconds, source, mode):
    held, opened, ended = [], 0, time.monotonic() + seconds
    while time.monotonic() < ended:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=1,
                                            source_address=(source, 0))
            if mode == "hello":
                sock.sendall(header(1, 0))
        except OSError:
            continue  # refused or reset under the flood: go on flooding
        opened += 1
        held.append(sock)
        if len(held) > 500:
            held.pop(0).close()
    for sock in held:
        sock.close()
    print(opened)


if __name__ == "__main__":
    command, port = sys.argv[1], int(sys.argv[2])
    if command == "flood":
        flood(port, float(sys.argv[3]))
    elif command == "version":
        version(port)
    elif command == "trickle":
        trickle(port, int(sys.argv[3]), float(sys.argv[4]),
                float(sys.argv[5]) if len(sys.argv) > 5 else 0.4)
    elif command == "trickle-server":
        trickle_server(port)
    elif command == "evicting-server":
        evicting_server(port, int(sys.argv[3]), int(sys.argv[4]))
    elif command == "hold":
        hold(port, float(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        fake_server(port)
