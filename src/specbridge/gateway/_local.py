"""Which bound addresses count as local (loopback): used by the bind check, reloads and the HTTP guards."""

from __future__ import annotations

import ipaddress

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str) -> bool:
    if host.strip("[]") in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
