"""Building exactly one request from the tool's argument→location map, the checked arguments and the
stored credential only. Nothing of the agent's own request is copied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import httpx

from .. import __version__
from .._errors import ErrorCode, RequestRefused
from .._json import dumps, dumps_bytes
from ..tools import Argument, Tool, is_forbidden_header
from ._credential import Credential

Json = Any
Attachment = tuple[str, str, bytes]  # filename, content type, bytes
USER_AGENT = f"specbridge/{__version__}"
ACCEPT = "application/json, text/*;q=0.9, */*;q=0.8"
ACCEPT_ENCODING = "gzip, deflate"
MAX_URL_LENGTH = 32_000  # httpx refuses 65,536; most servers stop far below
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True, slots=True)
class Extra:
    """A bound value for a header, query or cookie the document does not declare."""

    location: str
    name: str
    value: Json


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
            target += f"{separator}{_q(credential.name)}={_q(credential.value)}"
        if credential is not None and credential.kind == "cookie":
            cookies.append((credential.name, _q(credential.value)))
        if cookies:
            headers.append(("Cookie", "; ".join(f"{name}={value}" for name, value in cookies)))
        if credential is not None:
            header = credential.header()
            if header is not None:
                headers.append(header)
        return httpx.Request(self.method, target, headers=headers, content=self.content)


def refuse(message: str, code: ErrorCode) -> RequestRefused:
    return RequestRefused(message + "; nothing was sent", code=code)


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

    url = _url(tool, base_url, by_location["path"])
    pairs: list[tuple[str, str]] = []
    for argument, value in by_location["query"]:
        _not_owned("query", argument.original, owned)
        pairs.extend(_query_pairs(argument, value))
    for extra in extras:
        if extra.location == "query":
            _not_owned("query", extra.name, owned)
            pairs.append((extra.name, _scalar(extra.value)))
    if pairs:
        url += "?" + "&".join(f"{_q(name)}={_q(value)}" for name, value in pairs)
    if len(url) > MAX_URL_LENGTH:
        raise refuse(
            f"the request URL would be longer than {MAX_URL_LENGTH} characters", ErrorCode.PATH_REFUSED
        )

    headers: list[tuple[str, str]] = [
        ("Accept", ACCEPT),
        ("Accept-Encoding", ACCEPT_ENCODING),
        ("User-Agent", USER_AGENT),
        ("X-Specbridge-Operation", tool.name),
    ]
    header_values = [(a.original, _header_value(a, v)) for a, v in by_location["header"]]
    header_values += [(e.name, _scalar(e.value)) for e in extras if e.location == "header"]
    for name, value in header_values:
        _check_header(name, value, owned)
        headers.append((name, value))

    cookies: list[tuple[str, str]] = []
    cookie_values: list[tuple[str, Argument | None, Json]] = [
        (a.original, a, v) for a, v in by_location["cookie"]
    ]
    cookie_values += [(e.name, None, e.value) for e in extras if e.location == "cookie"]
    for name, maybe_argument, value in cookie_values:
        if not _TOKEN.match(name):
            raise refuse(f"the cookie name {name!r} is not a valid cookie name", ErrorCode.HEADER_REFUSED)
        _not_owned("cookie", name, owned)
        cookies.extend(_cookie_pairs(name, maybe_argument, value))

    content, content_type = _body(tool, by_location["body"], arguments, attachments or {})
    if content_type is not None:
        headers.append(("Content-Type", content_type))
    return BuiltRequest(tool.operation.method, url, headers, content, credential, cookies)


# -- URL -------------------------------------------------------------------------------------------


def _url(tool: Tool, base_url: str, path_arguments: list[tuple[Argument, Json]]) -> str:
    values = {argument.original: (argument, value) for argument, value in path_arguments}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise refuse(f"path.{name}: has no value", ErrorCode.PATH_REFUSED)
        argument, value = values[name]
        return _path_value(argument, value)

    path = _PLACEHOLDER.sub(fill, tool.operation.path)
    base = base_url.rstrip("/")
    url = base + (path if path.startswith("/") else "/" + path)
    _stays_under(url, base)
    return url


def _path_value(argument: Argument, value: Json) -> str:
    items = _items(value)
    for _key, item in items:
        if item in ("", ".", ".."):
            raise refuse(
                f"path.{argument.name}: an empty, `.` or `..` value would change the path",
                ErrorCode.PATH_REFUSED,
            )
    style, explode, name = argument.style or "simple", argument.explode, _q(argument.original)
    if isinstance(value, dict):
        joined = (
            [f"{_q(k)}={_q(v)}" for k, v in items]
            if explode
            else [part for k, v in items for part in (_q(k), _q(v))]
        )
    else:
        joined = [_q(v) for _, v in items]
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
        root = httpx.URL(base + "/")
    except (httpx.InvalidURL, ValueError):
        raise refuse("the request URL is not valid", ErrorCode.PATH_REFUSED) from None
    raw_path = url.split("?", 1)[0][len(base) :]
    for segment in raw_path.split("/"):
        if unquote(segment) in (".", ".."):
            raise refuse("the request path would leave the base URL", ErrorCode.PATH_REFUSED)
    if (
        target.scheme != root.scheme
        or target.host != root.host
        or target.port != root.port
        or not target.raw_path.decode("ascii").startswith(root.raw_path.decode("ascii"))
    ):
        raise refuse("the request URL would leave the base URL", ErrorCode.PATH_REFUSED)


# -- query, headers, cookies -----------------------------------------------------------------------


def _q(value: str) -> str:
    return quote(value, safe="")


def _scalar(value: Json) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return dumps(value)


def _items(value: Json) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [(str(k), _scalar(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [("", _scalar(v)) for v in value]
    return [("", _scalar(value))]


def _query_pairs(argument: Argument, value: Json) -> list[tuple[str, str]]:
    name = argument.original
    if argument.content_type:
        return [(name, dumps(value))]
    style = argument.style or "form"
    explode = argument.explode
    if isinstance(value, list):
        items = [_scalar(v) for v in value]
        if style == "spaceDelimited" and not explode:
            return [(name, " ".join(items))]
        if style == "pipeDelimited" and not explode:
            return [(name, "|".join(items))]
        if explode:
            return [(name, item) for item in items]
        return [(name, ",".join(items))]
    if isinstance(value, dict):
        pairs = [(str(k), _scalar(v)) for k, v in value.items()]
        if style == "deepObject":
            return [(f"{name}[{k}]", v) for k, v in pairs]
        if explode:
            return pairs
        return [(name, ",".join(part for pair in pairs for part in pair))]
    return [(name, _scalar(value))]


def _header_value(argument: Argument, value: Json) -> str:
    if argument.content_type:
        return dumps(value)
    if isinstance(value, dict):
        pairs = [(str(k), _scalar(v)) for k, v in value.items()]
        if argument.explode:
            return ",".join(f"{k}={v}" for k, v in pairs)
        return ",".join(part for pair in pairs for part in pair)
    if isinstance(value, list):
        return ",".join(_scalar(v) for v in value)
    return _scalar(value)


def _cookie_pairs(name: str, argument: Argument | None, value: Json) -> list[tuple[str, str]]:
    explode = argument.explode if argument is not None else False
    if argument is not None and argument.content_type:
        return [(name, _q(dumps(value)))]
    if isinstance(value, list):
        if explode:
            return [(name, _q(_scalar(v))) for v in value]
        return [(name, ",".join(_q(_scalar(v)) for v in value))]
    if isinstance(value, dict):
        if explode:
            return [(_q(str(k)), _q(_scalar(v))) for k, v in value.items()]
        return [(name, ",".join(_q(part) for k, v in value.items() for part in (str(k), _scalar(v))))]
    return [(name, _q(_scalar(value)))]


def _not_owned(location: str, name: str, owned: Mapping[str, str]) -> None:
    if owned.get(location) == name.lower():
        raise refuse(f"{location}.{name}: is where the stored credential goes", ErrorCode.HEADER_REFUSED)


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


# -- body ------------------------------------------------------------------------------------------


def _body(
    tool: Tool,
    fields: list[tuple[Argument, Json]],
    arguments: Mapping[str, Json],
    attachments: Mapping[str, Attachment],
) -> tuple[bytes | None, str | None]:
    body = tool.body
    declared = body.content_type.split(";")[0].strip().lower() if body is not None else ""
    if attachments and (
        body is None or _is_json(declared) or declared == "application/x-www-form-urlencoded"
    ):
        raise refuse("this tool takes no file, so attachments cannot be sent", ErrorCode.BODY_REFUSED)
    if body is None:
        return None, None
    if not body.whole:
        names = {argument.name for argument in tool.arguments if argument.location == "body"}
        unknown = sorted(name for name in attachments if name not in names)
        if unknown:
            raise refuse(
                f"attachments: {unknown[0][:64]!r} is not a field of this tool's body", ErrorCode.BODY_REFUSED
            )
    if body.whole:
        if "body" not in arguments and "body" not in attachments:
            return None, None
        value = arguments.get("body")
        if "body" in attachments:
            _, attachment_type, data = attachments["body"]
            return data, _concrete(body.content_type, attachment_type)
        if _is_json(declared):
            return dumps_bytes(value), _concrete(body.content_type, "application/json")
        if declared == "application/x-www-form-urlencoded" and isinstance(value, dict):
            return _form(list(value.items())), declared
        if isinstance(value, str):
            return value.encode("utf-8"), _concrete(body.content_type, "application/octet-stream")
        return dumps_bytes(value), _concrete(body.content_type, "application/json")
    present = [(argument.original, value) for argument, value in fields]
    files = {name: attachments[name] for name in attachments if name != "body"}
    if not present and not files:
        return None, None
    if _is_json(declared):
        return dumps_bytes(dict(present)), _concrete(body.content_type, "application/json")
    if declared == "application/x-www-form-urlencoded":
        return _form(present), declared
    if declared == "multipart/form-data":
        return _multipart(tool, fields, files)
    return dumps_bytes(dict(present)), "application/json"


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


def _concrete(declared: str, fallback: str) -> str:
    kind = declared.split(";")[0].strip().lower()
    if "*" in kind or not kind:
        return fallback
    return declared


def _form(pairs: list[tuple[str, Json]]) -> bytes:
    out: list[tuple[str, str]] = []
    for name, value in pairs:
        if isinstance(value, list):
            out.extend((name, _scalar(item)) for item in value)
        elif isinstance(value, dict):
            out.extend((str(k), _scalar(v)) for k, v in value.items())
        else:
            out.append((name, _scalar(value)))
    return "&".join(f"{_q(k)}={_q(v)}" for k, v in out).encode("ascii")


def _is_binary(schema: Json) -> bool:
    if not isinstance(schema, dict):
        return False
    return (
        schema.get("format") in ("binary", "byte")
        or "contentMediaType" in schema
        or "contentEncoding" in schema
    )


def _multipart(
    tool: Tool, fields: list[tuple[Argument, Json]], files: Mapping[str, Attachment]
) -> tuple[bytes, str]:
    data: dict[str, Any] = {}
    parts: list[tuple[str, tuple[str, bytes, str]]] = []
    originals = {argument.name: argument.original for argument in tool.arguments}
    for name, (filename, content_type, content) in files.items():
        parts.append((originals.get(name, name), (filename, content, content_type)))
    attached = {originals.get(name, name) for name in files}
    for argument, value in fields:
        if argument.original in attached:
            continue
        if _is_binary(argument.schema) and isinstance(value, str):
            parts.append(
                (argument.original, (argument.original, value.encode("utf-8"), "application/octet-stream"))
            )
        elif isinstance(value, list):
            data[argument.original] = [_scalar(item) for item in value]
        else:
            data[argument.original] = _scalar(value)
    request = httpx.Request("POST", "http://multipart.invalid/", data=data, files=parts or None)
    content = request.read()
    if not parts:
        # httpx only writes multipart when a file is present; form fields alone are still multipart here.
        request = httpx.Request(
            "POST",
            "http://multipart.invalid/",
            data=data,
            files=[("", ("", b"", "application/octet-stream"))],
        )
        boundary = request.headers["Content-Type"].split("boundary=", 1)[1]
        content = _multipart_fields(data, boundary)
        return content, f"multipart/form-data; boundary={boundary}"
    return content, request.headers["Content-Type"]


def _multipart_fields(data: Mapping[str, Any], boundary: str) -> bytes:
    out = bytearray()
    for name, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            safe_name = name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
            out += f'--{boundary}\r\nContent-Disposition: form-data; name="{safe_name}"\r\n\r\n'.encode()
            out += str(item).encode("utf-8") + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out)
