"""Egress policy: requests go to public addresses only, unless an explicit, narrow exception says so.

Host names are checked as written (internal names, odd IPv4 spellings), and every address a name
resolves to is checked again at call time; the connection then goes to the address that was checked
(see `_transport.py`). `ipaddress` flags alone are not trusted (`is_global` changed between Python patch
releases and misses NAT64, 6to4, 192.0.0.0/24 ...): the blocked ranges are listed here explicitly.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import anyio

from .._errors import ErrorCode, RequestRefused, UpstreamError

log = logging.getLogger("specbridge.call")

Resolver = Callable[[str, int], Awaitable[list[str]]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network", unspecified
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # CGNAT (100.100.100.200 Alibaba metadata lives here)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local, cloud metadata 169.254.169.254
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments (192.0.0.192 Oracle metadata)
        "192.0.2.0/24",  # documentation TEST-NET-1
        "192.31.196.0/24",  # AS112
        "192.52.193.0/24",  # AMT
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.168.0.0/16",  # private
        "192.175.48.0/24",  # AS112 direct delegation
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation TEST-NET-2
        "203.0.113.0/24",  # documentation TEST-NET-3
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and 255.255.255.255 broadcast
    )
)
_BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/128",  # unspecified
        "::1/128",  # loopback
        "::/96",  # IPv4-compatible (deprecated)
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated
        "64:ff9b::/96",  # NAT64
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard-only
        "2001::/32",  # Teredo
        "2001:2::/48",  # benchmarking
        "2001:db8::/32",  # documentation
        "2001:10::/28",  # ORCHID
        "2001:20::/28",  # ORCHIDv2
        "2002::/16",  # 6to4 (embeds an IPv4 address)
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # SRv6 SIDs
        "fc00::/7",  # unique local (fd00:ec2::254 AWS metadata lives here)
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)
_INTERNAL_SUFFIXES = (".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".lan", ".intranet")
_INTERNAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_IPV4_PART = re.compile(r"^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$")


def refused(message: str) -> RequestRefused:
    return RequestRefused(message, code=ErrorCode.EGRESS_REFUSED)


def dns_failed(message: str) -> UpstreamError:
    """Not a policy decision: the name has no address now (a typo, or DNS down); nothing was sent."""
    return UpstreamError(message + "; nothing was sent", code=ErrorCode.UPSTREAM_DNS_FAILED)


def parse_ipv4_loose(host: str) -> ipaddress.IPv4Address | None:
    """The address an inet_aton-style spelling means (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`), or
    None when `host` is not numeric. Such spellings are refused by `check_host`, never reinterpreted."""
    parts = host.split(".")
    if host.endswith(".") and len(parts) > 1:
        parts = parts[:-1]
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART.match(part) for part in parts):
        return None
    try:
        values = [
            int(part, 0) if not part.startswith("0") or part.startswith("0x") else int(part, 8)
            for part in parts
        ]
    except ValueError:
        return None
    *head, last = values
    if any(value > 255 for value in head) or last >= 256 ** (5 - len(parts)):
        return None
    number = 0
    for value in head:
        number = number * 256 + value
    number = number * 256 ** (5 - len(parts)) + last
    return ipaddress.IPv4Address(number)


def blocked_reason(address: IPAddress) -> str:
    """Why `address` is not a public address, or "" when it is."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            return "a scoped (zone) IPv6 address"
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return "an IPv6 address embedding an IPv4 address"
        if address.teredo is not None:
            return "a Teredo address"
        for network in _BLOCKED_V6:
            if address in network:
                return f"in the blocked range {network}"
        if not address.is_global:
            return "not a public address"
        return ""
    for network4 in _BLOCKED_V4:
        if address in network4:
            return f"in the blocked range {network4}"
    if not address.is_global:
        return "not a public address"
    return ""


def parse_ip(host: str) -> IPAddress | None:
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def normalise_host(host: str) -> str:
    return host.strip().lower()


@dataclass(frozen=True, slots=True)
class _Allowed:
    host: str
    port: int | None


def _parse_allow(entry: str) -> _Allowed:
    text = entry.strip().lower()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    return _Allowed(host.rstrip("."), int(port) if port.isdigit() else None)


@dataclass(slots=True)
class EgressPolicy:
    """Which hosts and addresses a request may go to. `allow` holds the explicit exceptions
    (`"127.0.0.1:8080"`, `"10.0.0.5"`, `"internal.example:443"`); each use of one is logged."""

    allow: tuple[str, ...] = ()
    resolve: Resolver | None = None
    _allowed: tuple[_Allowed, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        self._allowed = tuple(_parse_allow(entry) for entry in self.allow)

    def allowed(self, host: str, port: int) -> bool:
        host = normalise_host(host).strip("[]").rstrip(".")
        for entry in self._allowed:
            if entry.host == host and entry.port in (None, port):
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


def check_host(host: str) -> None:
    """Refuse internal names, non-canonical address spellings and non-public literal addresses."""
    name = normalise_host(host)
    if not name:
        raise refused("the URL has no host")
    literal = parse_ip(name)
    if literal is not None:
        if isinstance(literal, ipaddress.IPv6Address) and "%" in name:
            raise refused("the host is a scoped (zone) IPv6 address, which is never public")
        reason = blocked_reason(literal)
        if reason:
            raise refused(f"the host {name} is {reason}; only public addresses are allowed")
        return
    if "%" in name or "\\" in name or any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in name):
        raise refused("the host name contains characters no host name has")
    bare = name[:-1] if name.endswith(".") else name
    loose = parse_ipv4_loose(bare)
    if loose is not None:
        raise refused(
            f"the host {name} is a non-standard spelling of the address {loose}; write addresses as a.b.c.d"
        )
    if bare in _INTERNAL_NAMES or bare.endswith(_INTERNAL_SUFFIXES):
        raise refused(f"the host {name} is an internal name; only public hosts are allowed")
    labels = bare.split(".")
    if len(labels) < 2:
        raise refused(f"the host {name} is a single-label name, which only resolves inside a network")
    if not all(_LABEL.match(label) for label in labels):
        raise refused(f"the host {name} is not a valid host name")
    if labels[-1].isdigit():
        raise refused(f"the host {name} looks like an address but is not one")


def check_base_url(url: str, allow: Iterable[str] = ()) -> None:
    """Refuse a base URL whose scheme is not http(s), that carries user info, a query or a fragment,
    or whose host is not public as written (the config loader and `Caller` both call this)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise refused("the base URL is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise refused("the base URL must be an http:// or https:// URL")
    if parts.username is not None or parts.password is not None:
        raise refused("the base URL must not carry a user name or password; use `auth`")
    if parts.query or parts.fragment:
        raise refused("the base URL must not have a query or fragment")
    host = parts.hostname or ""
    policy = EgressPolicy(allow=tuple(allow))
    policy.check_host(host, port or (443 if parts.scheme == "https" else 80))
