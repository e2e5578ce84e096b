"""The document an API serves: its `spec` (a file, or a URL fetched under its egress rules), its
config `operations` as an OpenAPI document built in memory, or the two together.

`api_document(api)` is what `lint`, `tools`, `call` and `serve` all read, so an endpoint described in
the config goes through the one conversion like any operation of a document. Operations beside a
document are added to its `paths` (in Swagger 2.0 terms for a Swagger document), so their request and
response schemas may `$ref` the document's own schemas.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._errors import ConfigError, RequestRefused
from .._network import AllowEntry, base_url_host, check_host, is_allowed, parse_allow
from ..document import ApiDocument, FetchRules, from_data, is_url, load_document
from ._model import ApiConfig, OperationConfig, ParameterConfig
from ._operation_schemas import check_refs
from ._schema import key_path

Json = Any
OPENAPI_VERSION = "3.1.0"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def read_spec(
    raw: str | None, base_dir: Path, allow: list[AllowEntry], fail: Callable[[str], ConfigError]
) -> str:
    """`apis.<name>.spec` as the reader keeps it: a path made absolute against the config's folder, or
    an http(s) URL whose host the egress rules let it fetch; "" when the API has none."""
    spec = (raw or "").strip()
    if spec == "-":
        raise fail("`-` (stdin) is for the command line; name a file or an http(s):// URL")
    if _SCHEME.match(spec) and not is_url(spec):
        raise fail(
            "must be a file path or an http:// or https:// URL; other URL schemes (file:// too) are not read"
        )
    if not spec or not is_url(spec):
        return str((base_dir / spec).resolve()) if spec and not Path(spec).is_absolute() else spec
    try:
        host, port = base_url_host(spec.split("?", 1)[0])
        if not is_allowed(allow, host, port):
            check_host(host)
    except RequestRefused as error:
        raise fail(f"{error.message} (list the host:port under egress.allow to permit it)") from None
    return spec


def fetch_rules(api: ApiConfig) -> FetchRules:
    """How the API's document (and its `$ref`s) may be fetched: its own egress rules."""
    return FetchRules(
        allow=tuple(parse_allow(entry) for entry in api.egress.allow),
        redirects=api.egress.redirects,
        timeout=max(api.timeout, 30.0),
    )


def api_document(api: ApiConfig) -> ApiDocument:
    """The document of `api`: its `spec`, its `operations`, or both (a ConfigError when an operation
    of the config is an endpoint the document has already)."""
    if not api.operations:
        return load_document(api.spec, ref_dirs=api.ref_dirs, rules=fetch_rules(api))
    if not api.spec:
        data = operations_document(api)
        source = f"{api.source} (apis.{api.name}.operations)"
        built = from_data(data, source=source, base=f"<{source}>")
    else:
        rules = fetch_rules(api).with_budget()  # the document and its $refs, read again for the merged one
        document = load_document(api.spec, ref_dirs=api.ref_dirs, rules=rules)
        merged = _merged(document, api)
        built = from_data(
            merged,
            source=document.source,
            text=document.text,
            base=document.resolver.root_base,
            ref_dirs=api.ref_dirs,
            rules=rules,
        )
    check_refs(built, api.name, api.operations, api.source)
    return built


def operations_document(api: ApiConfig) -> dict[str, Json]:
    """An OpenAPI 3.1 document of the API's config operations alone."""
    paths: dict[str, dict[str, Json]] = {}
    for operation in api.operations:
        paths.setdefault(operation.path, {})[operation.method.lower()] = _openapi3(operation)
    data: dict[str, Json] = {
        "openapi": OPENAPI_VERSION,
        "info": {"title": api.name, "version": "config"},
        "paths": paths,
    }
    if api.base_url:
        data["servers"] = [{"url": api.base_url}]
    return data


def _merged(document: ApiDocument, api: ApiConfig) -> dict[str, Json]:
    """The document's data with the config operations added to its `paths` (a new dict; the
    document's own data is not changed)."""
    data = dict(document.data)
    swagger = document.version.startswith("2")
    paths = dict(data.get("paths") or {})
    taken = {op.operation_id: op.label for op in document.operations if op.operation_id}
    for operation in api.operations:
        key = key_path(["apis", api.name, "operations", operation.id])
        item = dict(paths.get(operation.path) or {})
        method = operation.method.lower()
        if method in item:
            raise ConfigError(
                f"is {operation.method} {operation.path}, which the document {document.source} describes "
                "already; configure that operation under `tools` instead",
                source=api.source,
                key=key,
            )
        if operation.id in taken:
            raise ConfigError(
                f"is the operationId of {taken[operation.id]} in the document {document.source}; give the "
                "operation another name",
                source=api.source,
                key=key,
            )
        item[method] = _swagger2(operation) if swagger else _openapi3(operation)
        paths[operation.path] = item
    data["paths"] = paths
    return data


def _schema_of(parameter: ParameterConfig) -> dict[str, Json]:
    schema: dict[str, Json] = {"type": parameter.type}
    if parameter.enum is not None:
        schema["enum"] = list(parameter.enum)
    if parameter.default is not None:
        schema["default"] = parameter.default
    return schema


def _openapi3(operation: OperationConfig) -> dict[str, Json]:
    out: dict[str, Json] = {"operationId": operation.id}
    if operation.description:
        out["description"] = operation.description
    if operation.parameters:
        out["parameters"] = [
            {
                "name": parameter.name,
                "in": parameter.location,
                "required": parameter.required,
                **({"description": parameter.description} if parameter.description else {}),
                "schema": _schema_of(parameter),
            }
            for parameter in operation.parameters
        ]
    if operation.request is not None:  # without a request schema, no body is sent
        out["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": operation.request}},
        }
    answer: dict[str, Json] = {"description": _answer_words(operation)}
    if operation.response is not None:
        answer["content"] = {"application/json": {"schema": operation.response}}
    out["responses"] = {"200": answer}
    return out


def _swagger2(operation: OperationConfig) -> dict[str, Json]:
    """The same operation in Swagger 2.0 terms, beside a Swagger document's own."""
    out: dict[str, Json] = {"operationId": operation.id}
    if operation.description:
        out["description"] = operation.description
    parameters: list[Json] = [
        {
            "name": parameter.name,
            "in": parameter.location,
            "required": parameter.required,
            **({"description": parameter.description} if parameter.description else {}),
            **_schema_of(parameter),
        }
        for parameter in operation.parameters
    ]
    if operation.request is not None:
        parameters.append({"name": "body", "in": "body", "required": True, "schema": operation.request})
        out["consumes"] = ["application/json"]
    if parameters:
        out["parameters"] = parameters
    answer: dict[str, Json] = {"description": _answer_words(operation)}
    if operation.response is not None:
        answer["schema"] = operation.response
        out["produces"] = ["application/json"]
    out["responses"] = {"200": answer}
    return out


def _answer_words(operation: OperationConfig) -> str:
    """The answer's description: the response schema's own, else nothing (the tool's description says
    `Returns 200 (JSON).`)."""
    schema = operation.response
    found = schema.get("description") if isinstance(schema, dict) else None
    return found.strip() if isinstance(found, str) else ""
