"""The URL of one request: the document's path template filled with percent-encoded segments, refused
when a value (`.`, `..`, empty) or the template's own text would climb out of the base URL, the literal
query of a path key (`/responses/{id}?beta=true`), and the query appended within a length servers accept.
This is the part of building a request that keeps a call under its base URL; `_build` assembles the rest.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any
from urllib.parse import unquote, unquote_to_bytes

import httpx

from .._errors import ErrorCode
from ..tools import Argument, Tool
from ._encode import quote, refuse, scalar

Json = Any
MAX_URL_LENGTH = 32_000  # httpx refuses 65,536; most servers stop far below
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def request_url(tool: Tool, base_url: str, path_arguments: list[tuple[Argument, Json]]) -> str:
    """The URL of `tool`'s operation under `base_url`, its path template filled with the path arguments
    (each value percent-encoded as one segment), without any query; refused if it would leave the base."""
    values = {argument.original: (argument, value) for argument, value in path_arguments}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise refuse(f"path.{name}: has no value", ErrorCode.PATH_REFUSED)
        argument, value = values[name]
        return _path_value(argument, value)

    # `/files/{id}#get_link` names a variant, not a URL part; a literal `?beta=true` is query
    template = tool.operation.path.split("#", 1)[0].split("?", 1)[0]
    _check_template(template)
    path = _PLACEHOLDER.sub(fill, template)
    base = base_url.rstrip("/")
    url = base + (path if path.startswith("/") else "/" + path)
    _stays_under(url, base)
    return url


_OVERLONG_DOTS = (b"\xc0\xae", b"\xe0\x80\xae")


@functools.lru_cache(maxsize=4096)
def _check_template(template: str) -> None:
    """Refuse a document's path template whose own text climbs out of the base path as *some* server
    reads it: `..;` (Tomcat), `\\` as `/` (IIS, WHATWG parsers), `%2F` or `%252e` decoded before
    routing, overlong UTF-8 or NFKC-folded dots. Only the template's literal text is read this way;
    argument values are percent-encoded and never contain such forms."""
    literal = _PLACEHOLDER.sub("x", template).split("?", 1)[0].split("#", 1)[0]
    text = literal
    for _ in range(3):
        data = unquote_to_bytes(text)
        for overlong in _OVERLONG_DOTS:
            data = data.replace(overlong, b".")
        text = data.decode("utf-8", "replace")
    text = unicodedata.normalize("NFKC", text).replace("\\", "/")
    for segment in text.split("/"):
        if segment.split(";", 1)[0].strip() in (".", ".."):
            raise refuse("the operation's path would leave the base URL", ErrorCode.PATH_REFUSED)


def template_query(template: str) -> list[tuple[str, str]]:
    """The literal query of a path key (`/responses/{id}?beta=true`), sent as it is written."""
    query = template.split("#", 1)[0].partition("?")[2]
    return [
        (unquote(name), unquote(value))
        for name, _, value in (pair.partition("=") for pair in query.split("&") if pair)
    ]


def with_query(url: str, pairs: list[tuple[str, str]]) -> str:
    """`url` with `pairs` as its query, each name and value percent-encoded; refused past `MAX_URL_LENGTH`."""
    if pairs:
        url += "?" + "&".join(f"{quote(name)}={quote(value)}" for name, value in pairs)
    if len(url) > MAX_URL_LENGTH:
        raise refuse(
            f"the request URL would be longer than {MAX_URL_LENGTH} characters", ErrorCode.PATH_REFUSED
        )
    return url


def _path_value(argument: Argument, value: Json) -> str:
    items = _items(value)
    for _key, item in items:
        if item in ("", ".", ".."):
            raise refuse(
                f"path.{argument.name}: an empty, `.` or `..` value would change the path",
                ErrorCode.PATH_REFUSED,
            )
    style, explode, name = argument.style or "simple", argument.explode, quote(argument.original)
    if isinstance(value, dict):
        joined = (
            [f"{quote(k)}={quote(v)}" for k, v in items]
            if explode
            else [part for k, v in items for part in (quote(k), quote(v))]
        )
    else:
        joined = [quote(v) for _, v in items]
    if style == "label":
        return "." + ("." if explode else ",").join(joined)
    if style == "matrix":
        if isinstance(value, list) and explode:
            return "".join(f";{name}={part}" for part in joined)
        if isinstance(value, dict) and explode:
            return "".join(f";{part}" for part in joined)
        return f";{name}=" + ",".join(joined)
    return ",".join(joined)


def _stays_under(url: str, base: str) -> None:
    try:
        target = httpx.URL(url)
        root = _root(base)
    except (httpx.InvalidURL, ValueError):
        raise refuse("the request URL is not valid", ErrorCode.PATH_REFUSED) from None
    raw_path = url.split("?", 1)[0][len(base) :]
    for segment in raw_path.split("/"):
        if unquote(segment) in (".", ".."):
            raise refuse("the request path would leave the base URL", ErrorCode.PATH_REFUSED)
    if (
        target.scheme != root[0]
        or target.host != root[1]
        or target.port != root[2]
        or not target.raw_path.decode("ascii").startswith(root[3])
    ):
        raise refuse("the request URL would leave the base URL", ErrorCode.PATH_REFUSED)


@functools.lru_cache(maxsize=64)  # an API's base URL, parsed once rather than at each call
def _root(base: str) -> tuple[str, str, int | None, str]:
    root = httpx.URL(base + "/")
    return root.scheme, root.host, root.port, root.raw_path.decode("ascii")


def _items(value: Json) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [(str(k), scalar(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [("", scalar(v)) for v in value]
    return [("", scalar(value))]
