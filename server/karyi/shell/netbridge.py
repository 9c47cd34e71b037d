"""Inside the sandbox: the way out to Karyi's proxy (netproxy.py), then the command.

Run as a script (`python -I -S netbridge.py SOCKET -- ARGV...`, nothing of Karyi is
imported: it must start fast). It listens on the sandbox's own loopback, sets
`HTTP_PROXY`/`HTTPS_PROXY` (and the lower-case forms) to it, forks a child that relays
every connection to the Unix socket bound into the sandbox, and execs the command in its
own place. The child dies with the sandbox (its PID namespace ends with the command).
See docs/security.md#the-network-allowlist.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def _relay(client: socket.socket, path: str) -> None:
    try:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(path)
    except OSError:
        client.close()
        return
    there = threading.Thread(target=_pump, args=(client, upstream), daemon=True)
    there.start()
    _pump(upstream, client)
    there.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> None:
    """`SOCKET -- ARGV...`: listen, fork the relay, exec ARGV with the proxy variables."""
    path, sep, command = argv[0], argv[1], argv[2:]
    assert sep == "--" and command, "usage: netbridge.py SOCKET -- ARGV..."
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        os.environ[name] = os.environ[name.lower()] = url
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = ""
    relay = os.fork()
    if relay == 0:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        _serve(listener, path)
        os._exit(0)
    listener.close()
    os.environ["KARYI_NET_RELAY"] = str(relay)  # not a leftover of the command (oneshot.py)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
