"""OpenAPI 3.0 / 3.1 / 3.2 documents into the model."""

from __future__ import annotations

from typing import Any

from ._model import (
    HTTP_METHODS,
    MediaType,
    Note,
    Operation,
    Parameter,
    ParameterLocation,
    RequestBody,
    Response,
    Schema,
    SecurityScheme,
)
from ._refs import Resolver, UnresolvedRef
from .pointer import pointer_of

_LOCATIONS: tuple[ParameterLocation, ...] = ("path", "query", "header", "cookie")
# OpenAPI: a header parameter named Accept, Content-Type or Authorization "SHALL be ignored". Real
# documents still use Accept and Content-Type to fix a value (a versioned media type), so those are
# kept: the conversion never offers them as arguments, and sends a value the document fixes.
_IGNORED_HEADER_PARAMETERS = frozenset({"authorization"})


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def extension_name(operation: dict[str, Any]) -> str | None:
    for key in ("x-agentify", "x-mcp"):
        value = operation.get(key)
        if isinstance(value, dict):
            value = value.get("name")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def ignored_rules(node: Any) -> frozenset[str]:
    value = node.get("x-specbridge-ignore") if isinstance(node, dict) else None
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list):
        return frozenset(item for item in value if isinstance(item, str))
    return frozenset()


def security_requirements(value: Any) -> tuple[tuple[str, ...], ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(tuple(str(name) for name in item) for item in value if isinstance(item, dict))


def operation_sunset(operation: dict[str, Any], responses: tuple[Response, ...]) -> str | None:
    for key in ("x-sunset", "x-sunset-date"):
        if isinstance(operation.get(key), str | int):
            return str(operation[key])
    return next((response.sunset for response in responses if response.sunset), None)


class OperationReader:
    """Collects operations from `paths`; keeps odd-but-usable things as notes."""

    def __init__(self, resolver: Resolver, data: dict[str, Any]) -> None:
        self.resolver = resolver
        self.data = data
        self.base = resolver.root_base
        self.notes: list[Note] = []

    def note(self, rule: str, pointer: str, message: str) -> None:
        self.notes.append(Note(rule, pointer, message))

    def deref(self, base: str, node: Any, pointer: str) -> tuple[str, Any] | None:
        try:
            return self.resolver.deref(base, node)
        except UnresolvedRef as error:
            self.note("ref-unresolved", pointer, str(error))
            return None

    def operations(self) -> list[Operation]:
        paths = self.data.get("paths")
        result: list[Operation] = []
        if not isinstance(paths, dict):
            return result
        for path, raw_item in paths.items():
            if not isinstance(path, str) or not path.startswith("/"):
                continue
            item_pointer = pointer_of("paths", path)
            resolved = self.deref(self.base, raw_item, item_pointer)
            if resolved is None or not isinstance(resolved[1], dict):
                continue
            item_base, item = resolved
            shared = item.get("parameters")
            for method in HTTP_METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    result.append(self.operation(path, method, operation, shared, item_base, item_pointer))
        return result

    def operation(
        self, path: str, method: str, op: dict[str, Any], shared: Any, base: str, item_pointer: str
    ) -> Operation:
        pointer = f"{item_pointer}/{method}"
        parameters, request_body = self.inputs(op, shared, base, item_pointer, pointer)
        responses = self.responses(op.get("responses"), base, pointer)
        return Operation(
            method=method.upper(),
            path=path,
            pointer=pointer,
            operation_id=text(op.get("operationId")) or None,
            extension_name=extension_name(op),
            summary=text(op.get("summary")),
            description=text(op.get("description")),
            deprecated=op.get("deprecated") is True,
            sunset=operation_sunset(op, responses),
            parameters=parameters,
            request_body=request_body,
            responses=responses,
            security=security_requirements(op.get("security")),
            ignored_rules=ignored_rules(op),
            extensions={key: value for key, value in op.items() if key.startswith("x-")} or None,
        )

    def inputs(
        self, op: dict[str, Any], shared: Any, base: str, item_pointer: str, pointer: str
    ) -> tuple[tuple[Parameter, ...], RequestBody | None]:
        """The operation's parameters (path-level ones overridden by its own) and its request body."""
        parameters = self.parameters(shared, op.get("parameters"), base, item_pointer, pointer)
        return parameters, self.request_body(op.get("requestBody"), base, pointer + "/requestBody")

    def parameters(
        self, shared: Any, own: Any, base: str, item_pointer: str, op_pointer: str
    ) -> tuple[Parameter, ...]:
        by_key: dict[tuple[str, str], Parameter] = {}
        for raw_list, list_pointer in ((shared, item_pointer), (own, op_pointer)):
            if not isinstance(raw_list, list):
                continue
            for index, raw in enumerate(raw_list):
                pointer = f"{list_pointer}/parameters/{index}"
                parameter = self.parameter(raw, base, pointer)
                if parameter is not None:
                    by_key[(parameter.location, parameter.name)] = parameter
        return tuple(by_key.values())

    def parameter(self, raw: Any, base: str, pointer: str) -> Parameter | None:
        resolved = self.deref(base, raw, pointer)
        if resolved is None:
            return None
        base, node = resolved
        if not isinstance(node, dict):
            self.note("parameter-invalid", pointer, "a parameter is not an object; it is left out")
            return None
        name, location = node.get("name"), node.get("in")
        if not isinstance(name, str) or not name or location not in _LOCATIONS:
            self.note(
                "parameter-invalid", pointer, "a parameter has no usable `name` or `in`; it is left out"
            )
            return None
        if location == "header" and name.lower() in _IGNORED_HEADER_PARAMETERS:
            return None
        content_type = None
        schema_value: Any = node.get("schema")
        if schema_value is None and isinstance(node.get("content"), dict) and node["content"]:
            content_type, media = next(iter(node["content"].items()))
            schema_value = media.get("schema") if isinstance(media, dict) else None
        style = node.get("style") if isinstance(node.get("style"), str) else None
        style = style or ("form" if location in ("query", "cookie") else "simple")
        explode = node.get("explode")
        return Parameter(
            name=name,
            location=location,
            required=location == "path" or node.get("required") is True,
            schema=Schema(schema_value if isinstance(schema_value, dict | bool) else {}, base),
            description=text(node.get("description")),
            style=style,
            explode=explode if isinstance(explode, bool) else style == "form",
            allow_reserved=node.get("allowReserved") is True,
            deprecated=node.get("deprecated") is True,
            pointer=pointer,
            content_type=content_type,
        )

    def content(self, raw: Any, base: str) -> tuple[MediaType, ...]:
        if not isinstance(raw, dict):
            return ()
        media: list[MediaType] = []
        for content_type, entry in raw.items():
            entry = entry if isinstance(entry, dict) else {}
            schema = entry.get("schema")
            media.append(
                MediaType(
                    content_type=str(content_type),
                    schema=Schema(schema, base) if isinstance(schema, dict | bool) else None,
                    encoding=entry.get("encoding") if isinstance(entry.get("encoding"), dict) else None,
                )
            )
        return tuple(media)

    def request_body(self, raw: Any, base: str, pointer: str) -> RequestBody | None:
        if raw is None:
            return None
        resolved = self.deref(base, raw, pointer)
        if resolved is None or not isinstance(resolved[1], dict):
            return None
        base, node = resolved
        return RequestBody(
            required=node.get("required") is True,
            description=text(node.get("description")),
            content=self.content(node.get("content"), base),
            pointer=pointer,
        )

    def responses(self, raw: Any, base: str, op_pointer: str) -> tuple[Response, ...]:
        if not isinstance(raw, dict):
            return ()
        result: list[Response] = []
        for status, entry in raw.items():
            if status.startswith("x-"):
                continue
            resolved = self.deref(base, entry, f"{op_pointer}/responses/{status}")
            if resolved is None or not isinstance(resolved[1], dict):
                continue
            response_base, node = resolved
            headers = node.get("headers") if isinstance(node.get("headers"), dict) else {}
            result.append(
                Response(
                    status=str(status),
                    description=text(node.get("description")),
                    content=self.response_content(node, response_base, op_pointer),
                    headers=tuple(str(name).lower() for name in headers),
                    sunset=_documented_sunset(headers),
                )
            )
        return tuple(result)

    def response_content(self, response: dict[str, Any], base: str, op_pointer: str) -> tuple[MediaType, ...]:
        return self.content(response.get("content"), base)


def _documented_sunset(headers: dict[str, Any]) -> str | None:
    for name, header in headers.items():
        if str(name).lower() != "sunset" or not isinstance(header, dict):
            continue
        schema = as_dict(header.get("schema"))
        for value in (header.get("example"), schema.get("example"), schema.get("default")):
            if isinstance(value, str) and value.strip():
                return value.strip()
        return ""
    return None


def security_schemes(schemes: Any) -> tuple[SecurityScheme, ...]:
    if not isinstance(schemes, dict):
        return ()
    result = []
    for name, scheme in schemes.items():
        if not isinstance(scheme, dict):
            continue
        kind = str(scheme.get("type", ""))
        if kind == "basic":  # Swagger 2.0
            kind, http_scheme = "http", "basic"
        else:
            http_scheme = str(scheme.get("scheme", "")).lower()
        result.append(
            SecurityScheme(
                name=str(name),
                type=kind,
                scheme=http_scheme,
                parameter_name=str(scheme.get("name", "")),
                location=str(scheme.get("in", "")),
            )
        )
    return tuple(result)


def servers(data: dict[str, Any]) -> tuple[str, ...]:
    raw = data.get("servers")
    if not isinstance(raw, list):
        return ()
    urls = []
    for server in raw:
        if isinstance(server, dict) and isinstance(server.get("url"), str):
            url = server["url"]
            variables = as_dict(server.get("variables"))
            for name, variable in variables.items():
                if isinstance(variable, dict) and "default" in variable:
                    url = url.replace("{" + str(name) + "}", str(variable["default"]))
            urls.append(url)
    return tuple(urls)
