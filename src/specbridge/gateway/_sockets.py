"""The gateway's listening socket, made before serving starts (so its URL is known), and the event loop
it is served on."""

from __future__ import annotations

import importlib.util
import socket
import sys


def bind(host: str, port: int, *, reuse_port: bool = False, listening: bool = True) -> socket.socket:
    """A listening socket (port 0: any free one), so the URL is known before serving starts; with
    `reuse_port` shared by `serve --workers` processes, and not `listening`, only reserved."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose `proto` says TCP, and accepted
    # sockets inherit it. Without it, a response's body written after its headers waits for the client's
    # delayed ACK (40 ms on Linux).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
        if listening:
            sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def event_loop_options() -> dict[str, object]:
    """`anyio.run(..., backend_options=...)` for serving HTTP: uvloop when installed (a dependency on
    Linux and macOS). With it and httptools, the gateway spends about a fifth less CPU per tool call
    than on asyncio's loop and h11 (docs/history/benchmarks-speed.md)."""
    use = sys.platform != "win32" and importlib.util.find_spec("uvloop") is not None
    return {"use_uvloop": use}


def base_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
