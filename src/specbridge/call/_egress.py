"""Egress policy: requests go to public addresses only, unless an explicit, narrow exception says so.

Host names are checked as written (internal names, odd IPv4 spellings), and every address a name
resolves to is checked again at call time; the connection then goes to the address that was checked
(see `_transport.py`). What counts as public, and how an `egress.allow` entry reads, are the ground
rules of `specbridge._network`, which the config loader uses too.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

import anyio

from .._errors import ConfigError, ErrorCode, UpstreamError
from .._network import (
    AllowEntry,
    IPAddress,
    allow_host,
    base_url_host,
    blocked_reason,
    check_host,
    normalise_host,
    parse_allow,
    parse_ip,
    parse_ipv4_loose,
    refused,
)

log = logging.getLogger("specbridge.call")

Resolver = Callable[[str, int], Awaitable[list[str]]]
__all__ = [  # the ground rules, re-exported for the rest of call/
    "EgressPolicy",
    "IPAddress",
    "blocked_reason",
    "check_base_url",
    "check_host",
    "normalise_host",
    "parse_ip",
    "parse_ipv4_loose",
    "refused",
    "system_resolve",
]


def dns_failed(message: str) -> UpstreamError:
    """Not a policy decision: the name has no address now (a typo, or DNS down); nothing was sent."""
    return UpstreamError(message + "; nothing was sent", code=ErrorCode.UPSTREAM_DNS_FAILED)


@dataclass(slots=True)
class EgressPolicy:
    """Which hosts and addresses a request may go to. `allow` holds the explicit exceptions
    (`"127.0.0.1:8080"`, `"10.0.0.5"`, `"internal.example:443"`); each use of one is logged."""

    allow: tuple[str, ...] = ()
    resolve: Resolver | None = None
    _allowed: tuple[AllowEntry, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        self._allowed = tuple(_allow_entry(entry) for entry in self.allow)

    def allowed(self, host: str, port: int) -> bool:
        host = allow_host(host)
        for entry in self._allowed:
            if entry.matches(host, port):
                log.info("egress exception used: %s:%s", host, port)
                return True
        return False

    def check_host(self, host: str, port: int) -> None:
        """Refuse a host that is not a public name or address as written (no DNS involved)."""
        if self.allowed(host, port):
            return
        check_host(host)

    async def addresses(self, host: str, port: int) -> list[str]:
        """The checked addresses to connect to for host:port; refuses if any resolved one is blocked
        (a name that resolves to a public and a private address is refused as a whole)."""
        name = normalise_host(host).strip("[]")
        if self.allowed(name, port):
            literal = parse_ip(name)
            if literal is not None:
                return [str(literal)]
            return await self._resolve(name, port)
        check_host(name)
        literal = parse_ip(name)
        if literal is not None:
            return [str(literal)]
        resolved = await self._resolve(name.rstrip("."), port)
        if not resolved:
            raise dns_failed(f"the host {name} did not resolve to any address")
        checked: list[str] = []
        for text in resolved:
            address = parse_ip(text)
            if address is None:
                raise refused(f"the host {name} resolved to something that is not an address")
            # An allowed *address* is only the URL's host written as that address: a name that merely
            # resolves to it (say, after a redirect to an attacker's name) gets no exception.
            reason = blocked_reason(address)
            if reason:
                raise refused(
                    f"the host {name} resolves to an address that is {reason}; only public addresses are allowed"
                )
            checked.append(str(address))
        return checked

    async def _resolve(self, host: str, port: int) -> list[str]:
        if self.resolve is not None:
            return list(await self.resolve(host, port))
        return await system_resolve(host, port)


async def system_resolve(host: str, port: int) -> list[str]:
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise dns_failed(f"the host {host} cannot be resolved (DNS)") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_base_url(url: str, allow: Iterable[str] = ()) -> None:
    """Refuse a base URL whose scheme is not http(s), that carries user info, a query or a fragment,
    or whose host is not public as written (the config loader and `Caller` both call this); the
    rules are `_network`'s, and using an `egress.allow` exception is logged."""
    host, port = base_url_host(url)
    EgressPolicy(allow=tuple(allow)).check_host(host, port)


def _allow_entry(entry: str) -> AllowEntry:
    try:
        return parse_allow(entry)
    except ValueError as error:  # the config loader refuses these first; this covers direct use
        raise ConfigError(f"{entry!r} {error}", source="egress", key="allow") from None
