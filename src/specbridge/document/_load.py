"""The one loader funnel: a path or a text ends in `from_data`, which checks the version once."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._errors import DocumentError, ErrorCode
from .._files import (
    MAX_DOCUMENT_BYTES,
    STDIN_IDLE_SECONDS,
    FileTooLarge,
    StreamIdle,
    read_bounded,
    read_stream,
)
from ._fetch import FetchRules, fetch, is_url
from ._locate import locate
from ._model import ApiDocument
from ._openapi3 import OperationReader, as_dict, security_schemes, servers, text
from ._parse import parse_text
from ._refs import Resolver
from ._swagger2 import SwaggerOperationReader, swagger_servers
from .pointer import pointer_of

_OPENAPI_VERSION = re.compile(r"^3\.[0-2](\.\d+)?(-[\w.]+)?$")


RefDirs = Sequence[str | os.PathLike[str]]


STDIN = "-"
_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*://")  # ftp://, file://: read as a (missing) path
OTHER_SCHEME = (
    " (a document is a file path, an http:// or https:// URL, or - for stdin; other URL schemes, "
    "file:// included, are not read: give the path itself)"
)


def load_document(
    path: str | os.PathLike[str], *, ref_dirs: RefDirs = (), rules: FetchRules | None = None
) -> ApiDocument:
    """Read an OpenAPI 3.x or Swagger 2.0 document from a file, an `http(s)://` URL (fetched once under
    `rules`, the API's egress rules; public addresses only by default) or `-` (stdin, bounded, given up
    after 30 s without a byte). File `$ref`s may read under the document's folder and under `ref_dirs`,
    nowhere else; a fetched document's `$ref`s are fetched from its own origin only."""
    source = str(path)
    if source == STDIN:
        return parse_document(decode_document(_read_stdin(), "<stdin>"), source="<stdin>")
    if is_url(source):
        rules = (rules or FetchRules()).with_budget()  # the document and its $refs, together
        raw, final = fetch(source, rules)
        return parse_document(decode_document(raw, source), source=source, base=final, rules=rules)
    raw = read_document_file(path)
    return parse_document(
        decode_document(raw, source), source=source, base=str(Path(path).resolve()), ref_dirs=ref_dirs
    )


def read_document_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a document file, bounded; a DocumentError that says why when it cannot be read."""
    source = str(path)
    try:
        return read_bounded(Path(path), MAX_DOCUMENT_BYTES)
    except FileTooLarge as error:
        raise DocumentError(
            f"is {error}: not read (the largest real API documents are a few tens of MB)",
            code=ErrorCode.DOCUMENT_TOO_LARGE,
            source=source,
        ) from None
    except FileNotFoundError:
        raise DocumentError(
            "no such file" + (OTHER_SCHEME if _SCHEME.match(source) else ""),
            code=ErrorCode.DOCUMENT_NOT_FOUND,
            source=source,
        ) from None
    except IsADirectoryError:
        raise DocumentError(
            "is a directory, not a document", code=ErrorCode.DOCUMENT_NOT_FOUND, source=source
        ) from None
    except OSError as error:
        raise DocumentError(
            f"cannot be read ({error.strerror})", code=ErrorCode.DOCUMENT_UNREADABLE, source=source
        ) from None


def parse_document(
    document_text: str,
    *,
    source: str = "<text>",
    base: str | None = None,
    ref_dirs: RefDirs = (),
    rules: FetchRules | None = None,
) -> ApiDocument:
    """Read a document from its text. Relative `$ref`s resolve against `base` (a file path, or the URL
    the text came from: then they are fetched under `rules`)."""
    data = parse_text(document_text, source=source)
    return from_data(
        data, source=source, text=document_text, base=base or f"<{source}>", ref_dirs=ref_dirs, rules=rules
    )


def from_data(
    data: Any,
    *,
    source: str,
    text: str = "",
    base: str | None = None,
    ref_dirs: RefDirs = (),
    rules: FetchRules | None = None,
) -> ApiDocument:
    base = base or f"<{source}>"
    if not isinstance(data, dict):
        raise DocumentError(
            "the document is not an object with `openapi` or `swagger` at its top",
            code=ErrorCode.DOCUMENT_NOT_OPENAPI,
            source=source,
        )
    version = _version(data, source, text)
    paths = data.get("paths", {})
    if not isinstance(paths, dict):
        line = locate(text, "/paths")
        raise DocumentError(
            "`paths` must be an object of path items",
            code=ErrorCode.DOCUMENT_STRUCTURE,
            source=source,
            pointer="/paths",
            line=line[0] if line else None,
            column=line[1] if line else None,
        )
    load = _fetched_loader((rules or FetchRules()).with_budget()) if is_url(base) else FileLoader()
    resolver = Resolver(base, data, load, ref_dirs=ref_dirs)
    info = as_dict(data.get("info"))
    swagger = version.startswith("2")
    reader = (SwaggerOperationReader if swagger else OperationReader)(resolver, data)
    operations = reader.operations()
    schemes = (
        data.get("securityDefinitions")
        if swagger
        else (data.get("components") or {}).get("securitySchemes")
        if isinstance(data.get("components"), dict)
        else None
    )
    document_servers = swagger_servers(data) if swagger else servers(data)
    if not document_servers:
        reader.note("servers-missing", "", "the document names no server; a base URL must be configured")
    if not info.get("title"):
        reader.note("title-missing", pointer_of("info"), "the document has no `info.title`")
    return ApiDocument(
        source=source,
        text=text,
        data=data,
        format="json" if text.lstrip()[:1] in ("{", "[") else "yaml",
        version=version,
        title=text_of(info.get("title")),
        servers=document_servers,
        operations=tuple(operations),
        security_schemes=security_schemes(schemes),
        default_security=_security(data.get("security")),
        resolver=resolver,
        notes=tuple(reader.notes),
    )


def text_of(value: Any) -> str:
    return text(value)


def _security(value: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        return ()
    return tuple(tuple(str(name) for name in item) for item in value if isinstance(item, dict))


def _version(data: dict[str, Any], source: str, document_text: str) -> str:
    if "openapi" in data:
        version = str(data["openapi"]).strip()
        if _OPENAPI_VERSION.match(version):
            return version
        pointer = "/openapi"
    elif "swagger" in data:
        version = str(data["swagger"]).strip()
        if version in ("2.0", "2"):
            return "2.0"
        pointer = "/swagger"
    else:
        raise DocumentError(
            "not an OpenAPI or Swagger document: it has neither `openapi` nor `swagger` at its top",
            code=ErrorCode.DOCUMENT_NOT_OPENAPI,
            source=source,
        )
    position = locate(document_text, pointer)
    raise DocumentError(
        f"version {version!r} is not supported; specbridge reads OpenAPI 3.0, 3.1, 3.2 and Swagger 2.0",
        code=ErrorCode.DOCUMENT_VERSION,
        source=source,
        pointer=pointer,
        line=position[0] if position else None,
        column=position[1] if position else None,
    )


def decode_document(raw: bytes, source: str) -> str:
    """A document's bytes as text (UTF-8), or a DocumentError naming the line that is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise DocumentError(
            "is not UTF-8 text", code=ErrorCode.DOCUMENT_UNREADABLE, source=source, line=line
        ) from None


class FileLoader:
    """Reads a `$ref`ed file for the `Resolver` (bounded, UTF-8, parsed), and remembers the SHA-256 of
    the bytes of each file it read ("" for one it could not read), so a conversion cached on disk
    (`tools.ConversionCache`) knows every file its result depends on. A class, not a closure: a
    cached document is pickled with its resolver."""

    def __init__(self) -> None:
        self.digests: dict[str, str] = {}

    def __call__(self, path: str) -> Any:
        try:
            raw = read_bounded(path, MAX_DOCUMENT_BYTES)
        except Exception:
            self.digests[path] = ""
            raise
        self.digests[path] = hashlib.sha256(raw).hexdigest()
        return parse_text(decode_document(raw, path), source=path)


def _fetched_loader(rules: FetchRules) -> Any:
    def load(url: str) -> Any:
        raw, _ = fetch(url, rules)
        return parse_text(decode_document(raw, url), source=url)

    return load


def _read_stdin() -> bytes:
    """The document piped to stdin; a terminal (nothing piped) or a silent pipe is an error, not a hang."""
    import sys

    try:
        if sys.stdin is None or sys.stdin.isatty():
            raise DocumentError(
                "`-` reads the document from stdin, and nothing is piped to it (`cat api.yaml | specbridge lint -`)",
                code=ErrorCode.DOCUMENT_UNREADABLE,
                source="<stdin>",
            )
        return read_stream(sys.stdin.fileno(), MAX_DOCUMENT_BYTES, STDIN_IDLE_SECONDS)
    except FileTooLarge as error:
        raise DocumentError(
            f"is {error}: not read", code=ErrorCode.DOCUMENT_TOO_LARGE, source="<stdin>"
        ) from None
    except StreamIdle as error:
        raise DocumentError(
            f"gave no document: {error}", code=ErrorCode.DOCUMENT_UNREADABLE, source="<stdin>"
        ) from None
    except (OSError, ValueError) as error:  # a closed or unselectable stdin
        raise DocumentError(
            f"cannot be read ({error})", code=ErrorCode.DOCUMENT_UNREADABLE, source="<stdin>"
        ) from None
