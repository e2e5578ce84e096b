"""Building exactly one request from the tool's argument→location map, the checked arguments and the
stored credential only. Nothing of the agent's own request is copied.

The URL and its path are `_url`'s; here the rest is assembled: query, header and cookie values per
style/explode, the document's fixed headers, Accept and our own headers, the body (`_body`), and the
credential, put on last by `BuiltRequest.to_httpx`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from .._errors import ErrorCode
from .._json import dumps
from .._version import __version__
from ..tools import Argument, Tool, is_forbidden_header
from ._bindings import Extra
from ._body import Attachment, encode_body
from ._check import format_path
from ._credential import Credential
from ._encode import deep_pairs, name_key, quote, refuse, scalar
from ._url import request_url, template_query, with_query

Json = Any
USER_AGENT = f"specbridge/{__version__}"
ACCEPT = "application/json, text/*;q=0.9, */*;q=0.8"
ACCEPT_ENCODING = "gzip, deflate"
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


@dataclass(slots=True)
class BuiltRequest:
    """One request, without the credential; `to_httpx()` puts the credential on last."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    content: bytes | None
    credential: Credential | None = None
    cookies: list[tuple[str, str]] = field(default_factory=list)

    def to_httpx(self, *, with_credential: bool = True, url: str | None = None) -> httpx.Request:
        target = url or self.url
        headers = list(self.headers)
        cookies = list(self.cookies)
        credential = self.credential if with_credential else None
        if credential is not None and credential.kind == "query":
            separator = "&" if "?" in target else "?"
            target += f"{separator}{quote(credential.name)}={quote(credential.value)}"
        if credential is not None and credential.kind == "cookie":
            cookies.append((credential.name, quote(credential.value)))
        if cookies:
            headers.append(("Cookie", "; ".join(f"{name}={value}" for name, value in cookies)))
        if credential is not None:
            header = credential.header()
            if header is not None:
                headers.append(header)
        return httpx.Request(self.method, target, headers=headers, content=self.content)


def build_request(
    tool: Tool,
    arguments: Mapping[str, Json],
    *,
    base_url: str,
    credential: Credential | None = None,
    extras: tuple[Extra, ...] = (),
    attachments: Mapping[str, Attachment] | None = None,
) -> BuiltRequest:
    """The request for checked (and bound) `arguments`. `attachments` maps a body field's argument
    name (or `body` for a whole binary body) to (filename, content type, bytes) for file parts."""
    owned = credential.owned_names() if credential is not None else {}
    by_location: dict[str, list[tuple[Argument, Json]]] = {
        "path": [],
        "query": [],
        "header": [],
        "cookie": [],
        "body": [],
    }
    for argument in tool.arguments:
        if argument.name in arguments and arguments[argument.name] is not None:
            by_location[argument.location].append((argument, arguments[argument.name]))

    bound = {
        location: frozenset(name_key(e.name) for e in extras if e.location == location)
        for location in ("query", "cookie", "body")
    }
    sent = tuple(extra for extra in extras if extra.sent)
    url = request_url(tool, base_url, by_location["path"])
    pairs: list[tuple[str, str]] = template_query(tool.operation.path)
    for name, _ in pairs:
        _not_owned("query", name, owned)
    for argument, value in by_location["query"]:
        _not_owned("query", argument.original, owned)
        _spread("query", argument.name, argument.original, _query_keys(argument, value), owned, bound)
        pairs.extend(_query_pairs(argument, value))
    for extra in sent:
        if extra.location == "query":
            _not_owned("query", extra.name, owned)
            pairs.append((extra.name, scalar(extra.value)))
    url = with_query(url, pairs)

    fixed = {name.lower(): (name, value) for name, value in tool.fixed_headers}
    headers: list[tuple[str, str]] = [
        fixed.pop("accept", ("Accept", tool.accept or ACCEPT)),
        fixed.pop("accept-encoding", ("Accept-Encoding", ACCEPT_ENCODING)),
        ("User-Agent", USER_AGENT),
        ("X-Specbridge-Operation", tool.name),
    ]
    fixed_type = fixed.pop("content-type", None)
    for name, value in fixed.values():
        _check_fixed(name, value, owned)
        headers.append((name, value))
    header_values = [(a.original, _header_value(a, v)) for a, v in by_location["header"]]
    header_values += [(e.name, scalar(e.value)) for e in sent if e.location == "header"]
    for name, value in header_values:
        _check_header(name, value, owned)
        headers.append((name, value))

    cookies: list[tuple[str, str]] = []
    cookie_values: list[tuple[str, Argument | None, Json]] = [
        (a.original, a, v) for a, v in by_location["cookie"]
    ]
    cookie_values += [(e.name, None, e.value) for e in sent if e.location == "cookie"]
    for name, maybe_argument, value in cookie_values:
        if not _TOKEN.match(name):
            raise refuse(f"the cookie name {name!r} is not a valid cookie name", ErrorCode.HEADER_REFUSED)
        _not_owned("cookie", name, owned)
        if maybe_argument is not None:
            keys = _cookie_keys(maybe_argument, value)
            _spread("cookie", maybe_argument.name, name, keys, owned, bound)
        cookies.extend(_cookie_pairs(name, maybe_argument, value))

    content, content_type = encode_body(
        tool, by_location["body"], arguments, attachments or {}, bound["body"]
    )
    if fixed_type is not None and _same_kind(content_type, fixed_type[1]):
        content_type = fixed_type[1]  # the document's own value, when it names the body actually sent
    if content_type is not None:
        headers.append(("Content-Type", content_type))
    for name, value in headers[:2]:
        _check_fixed(name, value, owned)
    return BuiltRequest(tool.operation.method, url, headers, content, credential, cookies)


def _same_kind(sent: str | None, fixed: str) -> bool:
    """Whether a fixed `Content-Type` describes the body sent (none; the same media type; JSON as a
    `+json` type). A multipart boundary, or a form the document's value does not name, stays ours."""
    if sent is None:
        return True
    ours = sent.split(";")[0].strip().lower()
    theirs = fixed.split(";")[0].strip().lower()
    if ours.startswith("multipart/"):
        return False
    is_json = [kind == "application/json" or kind.endswith("+json") for kind in (ours, theirs)]
    return ours == theirs or all(is_json)


# -- query, headers, cookies -----------------------------------------------------------------------


def _query_pairs(argument: Argument, value: Json) -> list[tuple[str, str]]:
    name = argument.original
    if argument.content_type:
        return [(name, dumps(value))]
    style = argument.style or "form"
    explode = argument.explode
    if style == "deepObject" and isinstance(value, dict | list):
        return deep_pairs(name, value)
    if isinstance(value, list):
        items = [scalar(v) for v in value]
        if style == "spaceDelimited" and not explode:
            return [(name, " ".join(items))]
        if style == "pipeDelimited" and not explode:
            return [(name, "|".join(items))]
        if explode:
            return [(name, item) for item in items]
        return [(name, ",".join(items))]
    if isinstance(value, dict):
        pairs = [(str(k), scalar(v)) for k, v in value.items()]
        if explode:
            return pairs
        delimiter = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
        return [(name, delimiter.join(part for pair in pairs for part in pair))]
    return [(name, scalar(value))]


def _header_value(argument: Argument, value: Json) -> str:
    if argument.content_type:
        return dumps(value)
    if isinstance(value, dict):
        pairs = [(str(k), scalar(v)) for k, v in value.items()]
        if argument.explode:
            return ",".join(f"{k}={v}" for k, v in pairs)
        return ",".join(part for pair in pairs for part in pair)
    if isinstance(value, list):
        return ",".join(scalar(v) for v in value)
    return scalar(value)


def _cookie_pairs(name: str, argument: Argument | None, value: Json) -> list[tuple[str, str]]:
    explode = argument.explode if argument is not None else False
    if argument is not None and argument.content_type:
        return [(name, quote(dumps(value)))]
    if isinstance(value, list):
        if explode:
            return [(name, quote(scalar(v))) for v in value]
        return [(name, ",".join(quote(scalar(v)) for v in value))]
    if isinstance(value, dict):
        if explode:
            return [(quote(str(k)), quote(scalar(v))) for k, v in value.items()]
        return [(name, ",".join(quote(part) for k, v in value.items() for part in (str(k), scalar(v))))]
    return [(name, quote(scalar(value)))]


def _query_keys(argument: Argument, value: Json) -> list[str]:
    """The keys of an object that become query parameter names of their own (form/explode)."""
    if not isinstance(value, dict) or argument.content_type:
        return []
    if (argument.style or "form") == "deepObject" or not argument.explode:
        return []
    return [str(key) for key in value]


def _cookie_keys(argument: Argument, value: Json) -> list[str]:
    """The keys of an object that become cookie names of their own (explode)."""
    if not isinstance(value, dict) or argument.content_type or not argument.explode:
        return []
    return [str(key) for key in value]


def _spread(
    location: str,
    argument: str,
    original: str,
    keys: list[str],
    owned: Mapping[str, str],
    bound: Mapping[str, frozenset[str]],
) -> None:
    """Refuse an object key that would become the credential's parameter or a bound one. A bound
    object (its own name bound) is the operator's and may spread into bound names."""
    reserved = bound.get(location, frozenset())
    own_bound = name_key(original) in reserved
    for key in keys:
        name = name_key(key)
        if name == name_key(original):
            continue
        if owned.get(location) == name:
            raise refuse(
                f"{format_path((argument, key))}: would set the {location} parameter where the stored "
                "credential goes",
                ErrorCode.HEADER_REFUSED,
            )
        if name in reserved and not own_bound:
            raise refuse(
                f"{format_path((argument, key))}: would set a {location} value the gateway sets; "
                "it may not be sent",
                ErrorCode.ARGUMENT_BOUND,
            )


def _not_owned(location: str, name: str, owned: Mapping[str, str]) -> None:
    if owned.get(location) == name_key(name):
        raise refuse(f"{location}.{name}: is where the stored credential goes", ErrorCode.HEADER_REFUSED)


def _check_fixed(name: str, value: str, owned: Mapping[str, str]) -> None:
    """A header the gateway sets from the document: never the credential's, never CR, LF or NUL."""
    if not _TOKEN.match(name) or name_key(name) == owned.get("header"):
        raise refuse(f"header.{name}: the document's fixed value cannot be sent", ErrorCode.HEADER_REFUSED)
    if not all(" " <= ch <= "~" or ch == "\t" for ch in value):
        raise refuse(f"header.{name}: a header value must be printable ASCII", ErrorCode.HEADER_REFUSED)


def _check_header(name: str, value: str, owned: Mapping[str, str]) -> None:
    if not _TOKEN.match(name):
        raise refuse(f"the header name {name!r} is not a valid header name", ErrorCode.HEADER_REFUSED)
    credential_header = frozenset({owned["header"]}) if "header" in owned else frozenset()
    if is_forbidden_header(name, credential_header):
        raise refuse(f"header.{name}: the gateway owns this header", ErrorCode.HEADER_REFUSED)
    if any(ch in value for ch in "\r\n\0"):
        raise refuse(f"header.{name}: a header value may not contain CR, LF or NUL", ErrorCode.HEADER_REFUSED)
    if not all(" " <= ch <= "~" or ch == "\t" for ch in value):
        raise refuse(f"header.{name}: a header value must be printable ASCII", ErrorCode.HEADER_REFUSED)
