"""The version-independent model of an API document: what the conversion reads, nothing more.

Schemas stay as the document wrote them (they may hold `$ref`s); a `SchemaRef` names the file the
schema came from, so the conversion can resolve its references with the document's `Resolver`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ._refs import Resolver

Json = Any
ParameterLocation = Literal["path", "query", "header", "cookie"]
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


@dataclass(frozen=True, slots=True)
class Schema:
    """A schema as written, and the file whose `$ref`s it uses."""

    value: Json
    base: str


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    location: ParameterLocation
    required: bool
    schema: Schema
    description: str
    style: str
    explode: bool
    allow_reserved: bool
    deprecated: bool
    pointer: str
    content_type: str | None = None  # set when the parameter uses `content` instead of `schema`


@dataclass(frozen=True, slots=True)
class MediaType:
    content_type: str
    schema: Schema | None
    encoding: Json = None  # the OpenAPI `encoding` map for form and multipart bodies


@dataclass(frozen=True, slots=True)
class RequestBody:
    required: bool
    description: str
    content: tuple[MediaType, ...]
    pointer: str


@dataclass(frozen=True, slots=True)
class Response:
    status: str  # "200", "2XX", "default"
    description: str
    content: tuple[MediaType, ...]
    headers: tuple[str, ...]  # header names, lower-cased
    sunset: str | None = None  # a documented Sunset header's example value, if any


@dataclass(frozen=True, slots=True)
class SecurityScheme:
    name: str
    type: str  # apiKey | http | oauth2 | openIdConnect | mutualTLS
    scheme: str = ""  # for http: bearer, basic
    parameter_name: str = ""  # for apiKey
    location: str = ""  # for apiKey: header, query, cookie


@dataclass(frozen=True, slots=True)
class Operation:
    method: str  # upper case
    path: str
    pointer: str  # JSON pointer of the operation object
    operation_id: str | None
    extension_name: str | None  # from x-agentify / x-mcp
    summary: str
    description: str
    deprecated: bool
    sunset: str | None
    parameters: tuple[Parameter, ...]
    request_body: RequestBody | None
    responses: tuple[Response, ...]
    security: tuple[tuple[str, ...], ...] | None  # alternatives of scheme names; None = document default
    ignored_rules: frozenset[str] = frozenset()
    extensions: Json = field(default=None, compare=False)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True, slots=True)
class Note:
    """Something odd about the document that did not stop it from being read (becomes a lint finding)."""

    rule: str
    pointer: str
    message: str


@dataclass(frozen=True, slots=True)
class ApiDocument:
    source: str
    text: str = field(repr=False)
    data: Json = field(repr=False)
    format: Literal["json", "yaml"]
    version: str  # "2.0", "3.0.3", "3.1.0", "3.2.0"
    title: str
    servers: tuple[str, ...]
    operations: tuple[Operation, ...]
    security_schemes: tuple[SecurityScheme, ...]
    default_security: tuple[tuple[str, ...], ...]
    resolver: Resolver = field(repr=False, compare=False)
    notes: tuple[Note, ...] = ()
