"""Sending once: never retried, one deadline for the whole exchange, redirects only when configured and
each hop checked, the answer read up to a limit (raw and decompressed) so no body can run away.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, unquote_plus

import anyio
import httpx

from .._errors import ErrorCode, RequestRefused, UpstreamError
from .._telemetry import inject
from ._build import BuiltRequest

MIN_HUNTED = 4  # shorter configured values are looked for only as a whole URL part
READ_LIMIT = 1024 * 1024  # bytes of raw body read, and bytes of decompressed body kept
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_NO_TIMEOUTS: dict[str, float | None] = dict.fromkeys(("connect", "read", "write", "pool"), None)


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: httpx.Headers
    body: bytes
    truncated: bool
    undecoded: str | None = None  # a Content-Encoding we could not decode


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    port = url.port or (443 if url.scheme == "https" else 80)
    return (url.scheme, url.host, port)


async def send(
    built: BuiltRequest,
    transport: httpx.AsyncBaseTransport,
    *,
    timeout: float,
    redirects: int = 0,
    configured: Sequence[str] = (),
) -> Answer:
    """`configured`: values from the config in this request (bound values, the credential's forms);
    a redirect to another origin whose URL carries one is not followed."""
    request = built.to_httpx()
    inject(request.headers)  # the gateway's own traceparent, when tracing is on (no argument may set it)
    keep_home = _KeepHome(configured)
    home = origin(request.url)
    try:
        with anyio.fail_after(timeout):
            hops = 0
            while True:
                # No timeouts of httpcore's own: the deadline above bounds the whole exchange, and a
                # timeout per read and write (each a cancel scope and a timer) only repeats it.
                request.extensions["timeout"] = _NO_TIMEOUTS
                response = await _exchange(transport, request)
                location = response.headers.get("location")
                if response.status_code not in _REDIRECTS or location is None:
                    return await _read(response)
                await response.aclose()
                if redirects == 0:
                    raise UpstreamError(
                        f"the API answered {response.status_code} (a redirect to {location}); "
                        "redirects are not followed for this API",
                        code=ErrorCode.UPSTREAM_REDIRECT,
                    )
                if hops >= redirects:
                    raise UpstreamError(
                        f"the API redirected more than {redirects} times (last to {location})",
                        code=ErrorCode.REDIRECT_LIMIT,
                    )
                hops += 1
                request = _next_request(built, request, response.status_code, location, home, keep_home)
    except TimeoutError:
        raise UpstreamError(
            f"the API did not answer within {timeout:g} seconds; the request may or may not have had "
            "an effect and was not retried",
            code=ErrorCode.UPSTREAM_TIMEOUT,
        ) from None


class _KeepHome:
    """Finds configured values in a URL: as a whole decoded path segment, query name or value, and, for
    values of 4 characters or more, anywhere in the URL raw or percent-decoded (once or twice)."""

    def __init__(self, values: Sequence[str]) -> None:
        self.exact = frozenset(value for value in values if value)
        self.long = tuple(sorted({value for value in self.exact if len(value) >= MIN_HUNTED}, key=len))

    def carries(self, url: httpx.URL) -> bool:
        if not self.exact:
            return False
        raw = str(url)
        texts = {raw, unquote(raw), unquote_plus(raw), unquote(unquote(raw))}
        if any(value in text for value in self.long for text in texts):
            return True
        parts = {
            unquote(segment) for segment in url.raw_path.decode("ascii", "replace").split("?")[0].split("/")
        }
        parts.update(part for pair in parse_qsl(url.query.decode("ascii", "replace"), True) for part in pair)
        return not self.exact.isdisjoint(parts)


_HOME_ONLY_HEADERS = frozenset({"accept", "accept-encoding", "user-agent"})


def _next_request(
    built: BuiltRequest,
    previous: httpx.Request,
    status: int,
    location: str,
    home: tuple[str, str, int | None],
    keep_home: _KeepHome | None = None,
) -> httpx.Request:
    try:
        target = previous.url.join(location)
    except (httpx.InvalidURL, ValueError):
        raise RequestRefused(
            "the API redirected to a URL that is not valid; it was not followed",
            code=ErrorCode.EGRESS_REFUSED,
        ) from None
    if target.scheme not in ("http", "https"):
        raise RequestRefused(
            "the API redirected to a URL that is not http(s); it was not followed",
            code=ErrorCode.EGRESS_REFUSED,
        )
    same_origin = origin(target) == home  # https -> http changes the origin, so no credential then
    if not same_origin and keep_home is not None and keep_home.carries(target):
        raise UpstreamError(
            f"the API answered {status} (a redirect to another origin whose URL carries a value the gateway "
            "sets for this API); it was not followed",
            code=ErrorCode.UPSTREAM_REDIRECT,
        )
    request = built.to_httpx(with_credential=same_origin, url=str(target))
    if not same_origin:
        # Header and cookie values may be bound ones (a tenant, an account) or hold a per-client
        # secret: another origin gets the gateway's own headers only, as a browser drops cookies.
        request = httpx.Request(
            request.method,
            request.url,
            headers=[(k, v) for k, v in request.headers.multi_items() if k.lower() in _HOME_ONLY_HEADERS],
            content=built.content,
        )
    if status == 303 or (status in (301, 302) and request.method == "POST"):
        headers = [
            (k, v)
            for k, v in request.headers.multi_items()
            if k.lower() not in ("content-type", "content-length")
        ]
        request = httpx.Request("GET" if request.method != "HEAD" else "HEAD", request.url, headers=headers)
    elif not same_origin and built.content:
        # A body can carry bound values (a customer id, a currency) the model never saw; it goes only
        # where the base URL points, never re-sent to another origin by a 307/308.
        raise UpstreamError(
            f"the API answered {status} (a redirect to {target} that would re-send the request body to "
            "another origin); it was not followed",
            code=ErrorCode.UPSTREAM_REDIRECT,
        )
    return request


async def _exchange(transport: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
    try:
        return await transport.handle_async_request(request)
    except httpx.TimeoutException:
        raise TimeoutError from None
    except httpx.TransportError as error:
        raise UpstreamError(
            f"the API could not be reached ({type(error).__name__}); nothing was received",
            code=ErrorCode.UPSTREAM_UNREACHABLE,
        ) from None


class _Decoder:
    """Decompresses gzip/deflate with a bound on the output, so a small bomb stops at the limit."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._zlib: zlib._Decompress | None = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS)
        self.unknown = encoding not in ("", "identity", "gzip", "x-gzip", "deflate")
        self._first = True

    def feed(self, data: bytes, room: int) -> tuple[bytes, bool]:
        """Output for `data` (at most room + 1 bytes) and whether output was left over."""
        if self._zlib is None:
            return data[: room + 1], len(data) > room
        try:
            out = self._zlib.decompress(data, room + 1)
        except zlib.error:
            if self.encoding == "deflate" and self._first:
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                self._first = False
                return self.feed(data, room)
            raise
        self._first = False
        return out, len(out) > room or bool(self._zlib.unconsumed_tail)


async def _raw_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    if response.is_stream_consumed:  # an injected transport that read the body already (MockTransport)
        yield response.content
        return
    async for chunk in response.aiter_raw():
        yield chunk


async def _read(response: httpx.Response) -> Answer:
    encoding = response.headers.get("content-encoding", "").strip().lower()
    decoder = _Decoder(encoding)
    body = bytearray()
    raw = 0
    truncated = False
    try:
        async for chunk in _raw_chunks(response):
            raw += len(chunk)
            if raw > READ_LIMIT:
                chunk = chunk[: len(chunk) - (raw - READ_LIMIT)]
                truncated = True
            room = READ_LIMIT - len(body)
            out, over = (
                decoder.feed(chunk, room) if not decoder.unknown else (chunk[: room + 1], len(chunk) > room)
            )
            body += out[:room]
            if over or truncated:
                truncated = True
                break
    except zlib.error:
        raise UpstreamError(
            f"the API's answer claimed {encoding} encoding but could not be decoded",
            code=ErrorCode.UPSTREAM_UNREACHABLE,
        ) from None
    except httpx.TimeoutException:
        raise TimeoutError from None
    except httpx.TransportError as error:
        raise UpstreamError(
            f"the connection broke while reading the API's answer ({type(error).__name__})",
            code=ErrorCode.UPSTREAM_UNREACHABLE,
        ) from None
    finally:
        await response.aclose()
    return Answer(
        response.status_code,
        response.headers,
        bytes(body),
        truncated,
        encoding if decoder.unknown else None,
    )
