#!/usr/bin/env python3
"""A TCP relay on loopback for test_time.sh, standing in for netem (absent here).

  time_relay.py LISTEN_PORT TARGET_PORT delay SECONDS
      forwards both ways; what the client sends reaches the server SECONDS late, the
      way back is not delayed: a path as asymmetric as it gets
  time_relay.py LISTEN_PORT TARGET_PORT step AFTER SECONDS
      forwards both ways and, AFTER seconds into the first connection, adds SECONDS to
      the two timestamps of every TIME_REPLY: the reference clock steps
Serves connections until killed.
"""
import socket
import struct
import sys
import threading
import time

TIME_REPLY = 14  # frame type of protocol version 2
HEADER = 12


def close_writing(sock):
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:  # the other end went first
        pass


def recv_exact(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def pump_delayed(source, target, delay):
    """Each chunk leaves delay seconds after it came, in order."""
    queue, lock, ready = [], threading.Lock(), threading.Condition()

    def sender():
        while True:
            with ready:
                while not queue:
                    ready.wait()
                due, chunk = queue.pop(0)
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            if chunk is None:
                close_writing(target)
                return
            target.sendall(chunk)

    threading.Thread(target=sender, daemon=True).start()
    while True:
        chunk = source.recv(65536)
        with ready:
            queue.append((time.monotonic() + delay, chunk or None))
            ready.notify()
        if not chunk:
            return


def pump_frames(source, target, started, after, step_ns):
    """Frame by frame; TIME_REPLY timestamps shifted once after has passed."""
    while True:
        header = recv_exact(source, HEADER)
        if header is None:
            close_writing(target)
            return
        length = struct.unpack(">I", header[8:12])[0]
        payload = recv_exact(source, length) if length else b""
        if payload is None:
            return
        if header[5] == TIME_REPLY and time.monotonic() - started[0] >= after:
            sequence, received, sent = struct.unpack(">Qqq", payload)
            payload = struct.pack(">Qqq", sequence, received + step_ns, sent + step_ns)
        target.sendall(header + payload)


def pump_plain(source, target):
    while True:
        chunk = source.recv(65536)
        if not chunk:
            close_writing(target)
            return
        target.sendall(chunk)


def main():
    listen_port, target_port, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", listen_port))
    listener.listen(16)
    started = [None]
    while True:
        client, _ = listener.accept()
        server = socket.create_connection(("127.0.0.1", target_port))
        for sock in (client, server):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if started[0] is None:
            started[0] = time.monotonic()
        if mode == "delay":
            forward = (pump_delayed, (client, server, float(sys.argv[4])))
            back = (pump_plain, (server, client))
        else:
            forward = (pump_plain, (client, server))
            back = (pump_frames, (server, client, started, float(sys.argv[4]),
                                  int(float(sys.argv[5]) * 1e9)))
        for function, args in (forward, back):
            threading.Thread(target=function, args=args, daemon=True).start()


if __name__ == "__main__":
    main()
