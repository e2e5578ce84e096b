"""Documents where they live: one `GET` of an `http(s)://` URL under the egress rules calls obey.

`spec: https://…` in the config and `specbridge lint|tools https://…` read a document from the web
once. The same rules as a call (`_network`): public addresses only unless an `egress.allow` entry names
the host and port; every address the name resolves to is checked, and the connection goes to the
address that was checked (no DNS-rebinding window); redirects only when `egress.redirects` allows,
each hop checked again and never from https down to http; the same size bound as a file; no
credential, no cookie, no proxy from the environment. Synchronous on purpose: a document is read
when a command starts or (in the gateway) in a worker thread, never on the event loop.

Lives in `document/`, the lowest layer, because `$ref`s of a fetched document are fetched here too,
and `config/` (which may not import `call/`) names the documents to read; `call/`'s pinned transport
is asynchronous, built for the gateway's event loop and its per-call deadline.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from .._errors import DocumentError, ErrorCode, RequestRefused
from .._files import MAX_DOCUMENT_BYTES
from .._network import AllowEntry, blocked_reason, check_host, default_port, is_allowed, parse_ip
from .._version import __version__

DEFAULT_FETCH_TIMEOUT = 30.0
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
ACCEPT = "application/json, application/yaml, application/x-yaml, text/yaml, text/plain;q=0.9, */*;q=0.5"


@dataclass(frozen=True, slots=True)
class FetchRules:
    """How a document may be fetched: the API's `egress.allow` entries and `egress.redirects`, and
    seconds to wait for the server (connecting, and between bytes)."""

    allow: tuple[AllowEntry, ...] = ()
    redirects: int = 0
    timeout: float = DEFAULT_FETCH_TIMEOUT
    max_bytes: int = MAX_DOCUMENT_BYTES


def is_url(source: str) -> bool:
    return source.lstrip().lower().startswith(("http://", "https://"))


def origin_of(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default_port(parts.scheme)


def fetch(url: str, rules: FetchRules, *, source: str | None = None) -> tuple[bytes, str]:
    """The bytes at `url` and the URL they finally came from (after redirects the rules allow); a
    DocumentError naming `source` (the URL as given) otherwise."""
    named = source or url
    current = url.strip()
    for hop in range(rules.redirects + 1):
        status, location, body = _get(current, rules, named)
        if status in _REDIRECTS and location:
            target = urljoin(current, location)
            if hop == rules.redirects:
                raise DocumentError(
                    f"answered {status}, a redirect to {target[:200]}, which is not followed "
                    f"(egress.redirects allows {rules.redirects})",
                    code=ErrorCode.DOCUMENT_NOT_FOUND,
                    source=named,
                )
            if urlsplit(current).scheme == "https" and urlsplit(target).scheme != "https":
                raise DocumentError(
                    f"answered {status}, a redirect from https down to {target[:200]}, which is never followed",
                    code=ErrorCode.DOCUMENT_NOT_FOUND,
                    source=named,
                )
            current = target
            continue
        if status != 200:
            raise DocumentError(
                f"could not be fetched: the server answered {status}",
                code=ErrorCode.DOCUMENT_NOT_FOUND,
                source=named,
            )
        return body, current
    raise AssertionError("unreachable")  # pragma: no cover


def _get(url: str, rules: FetchRules, named: str) -> tuple[int, str, bytes]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        raise DocumentError("is not a valid URL", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise DocumentError(
            "must be an http:// or https:// URL", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named
        )
    if parts.username is not None or parts.password is not None:
        raise DocumentError(
            "must not carry a user name or password", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named
        )
    host, port = parts.hostname, port or default_port(parts.scheme.lower())
    address = _checked_address(host, port, rules, named)
    connection = _connection(parts.scheme.lower(), host, port, address, rules.timeout)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"Accept": ACCEPT, "Accept-Encoding": "identity", "User-Agent": f"specbridge/{__version__}"}
    try:
        connection.request("GET", target, headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            return response.status, response.getheader("Location") or "", b""
        body = response.read(rules.max_bytes + 1)
    except (OSError, http.client.HTTPException) as error:
        raise DocumentError(
            f"could not be fetched ({_reason(error)})", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named
        ) from None
    finally:
        connection.close()
    if len(body) > rules.max_bytes:
        raise DocumentError(
            f"is larger than {rules.max_bytes // (1024 * 1024)} MB: not read",
            code=ErrorCode.DOCUMENT_TOO_LARGE,
            source=named,
        )
    return 200, "", body


def _reason(error: BaseException) -> str:
    if isinstance(error, TimeoutError | socket.timeout):
        return "no answer in time"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error.reason or 'handshake failed'}"
    return getattr(error, "strerror", None) or type(error).__name__


def _checked_address(host: str, port: int, rules: FetchRules, named: str) -> str:
    """The address to connect to: every address `host` resolves to is public (or the host:port is an
    `egress.allow` entry), and the first is used."""
    allowed = is_allowed(rules.allow, host, port)
    try:
        if not allowed:
            check_host(host)
        literal = parse_ip(host)
        if literal is not None:
            return str(literal)
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise DocumentError(
                f"could not be fetched: the name {host} does not resolve",
                code=ErrorCode.DOCUMENT_NOT_FOUND,
                source=named,
            ) from None
        addresses = list(dict.fromkeys(str(item[4][0]) for item in found))
        for address in addresses if not allowed else ():
            ip = parse_ip(address)
            reason = blocked_reason(ip) if ip is not None else "not an address"
            if reason:
                raise RequestRefused(f"the host {host} resolves to {address}, {reason}")
        return addresses[0]
    except RequestRefused as error:
        why = f"{error.message}; only public addresses are fetched (an API's egress.allow may list the host:port)"
        raise DocumentError(why, code=ErrorCode.EGRESS_REFUSED, source=named) from None


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to `address`, speaking to `host` (its Host header)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """An HTTPS connection to `address`, checking the certificate of `host` (its SNI and Host)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=_tls_context())
        self.address = address

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def _connection(scheme: str, host: str, port: int, address: str, timeout: float) -> Any:
    kind = _PinnedHTTPS if scheme == "https" else _PinnedHTTP
    return kind(host, port, address, timeout)


_tls: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    """Certificates checked against certifi's bundle when it is installed (as the gateway's calls do),
    else the system's."""
    global _tls
    if _tls is None:
        try:
            import certifi

            _tls = ssl.create_default_context(cafile=certifi.where())
        except ImportError:
            _tls = ssl.create_default_context()
    return _tls
