"""Request fidelity: do the requests we build satisfy the original document, as openapi-core reads it?

For a sample of operations from the corpus (OpenAPI 3.0/3.1 documents), arguments are generated from
each tool's input schema (one deterministic, valid value per schema), checked and built by the call
layer with a credential placed where the document's security scheme says, and the request is validated
by openapi-core against the original document. Used by tests/call/test_call_fidelity.py and
bench/fidelity.py (which prints the share and the failures by kind).
"""

from __future__ import annotations

import csv
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
BASE = "https://api.example.com"


@dataclass
class Fidelity:
    operations: int = 0
    accepted: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def share(self) -> float:
        return self.accepted / self.operations if self.operations else 0.0


def documents(max_bytes: int) -> list[Path]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        CORPUS / row["file"]
        for row in rows
        if row["format_version"].startswith(("openapi 3.0", "openapi 3.1"))
        and int(row["size_bytes"]) <= max_bytes
    ]


def example(schema: Any, depth: int = 0) -> Any:
    """One valid value for a shaped schema: first enum value, in-range numbers, formatted strings."""
    if not isinstance(schema, dict) or depth > 6:
        return "x"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            merged: dict[str, Any] = {}
            parts = schema[key] if key == "allOf" else schema[key][:1]
            for part in parts:
                if isinstance(part, dict):
                    for name, value in part.items():
                        if name == "properties" and "properties" in merged:
                            merged["properties"] = {**merged["properties"], **value}
                        elif name == "required" and "required" in merged:
                            merged["required"] = [*merged["required"], *value]
                        else:
                            merged[name] = value
            rest = {k: v for k, v in schema.items() if k != key}
            return example({**merged, **rest}, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "null":
        return None
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        value = 1 if low is None else int(low) + 1
        if high is not None and value > high:
            value = int(high) - (1 if "exclusiveMaximum" in schema else 0)
        return value
    if kind == "array":
        count = max(1, schema.get("minItems", 1))
        return [example(schema.get("items", {}), depth + 1) for _ in range(count)]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: example(sub, depth + 1) for name, sub in properties.items()}
    formats = {"date": "2024-01-02", "date-time": "2024-01-02T03:04:05Z", "email": "a@example.com",
               "uuid": "123e4567-e89b-12d3-a456-426614174000"}  # fmt: skip
    if schema.get("format") in formats:
        return formats[schema["format"]]
    length = max(3, schema.get("minLength", 0))
    if "maxLength" in schema:
        length = min(length, schema["maxLength"])
    return "a" * length


class _Request:
    """openapi-core's request protocol over a built httpx request."""

    def __init__(self, request: httpx.Request) -> None:
        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        url = request.url
        self.host_url = f"{url.scheme}://{url.netloc.decode()}"
        self.path = url.raw_path.decode().split("?")[0]
        self.full_url_pattern = self.host_url + self.path
        self.method = request.method.lower()
        cookie = SimpleCookie()
        cookie.load(request.headers.get("cookie", ""))
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qsl(url.query.decode(), keep_blank_values=True)),
            header=Headers(list(request.headers.multi_items())),
            cookie=ImmutableMultiDict({name: morsel.value for name, morsel in cookie.items()}),
        )
        self.content_type = request.headers.get("content-type", "").lower()
        self.body = request.content or None


def run(max_bytes: int = 300_000, per_document: int = 4) -> Fidelity:
    from openapi_core import OpenAPI

    from specbridge._errors import SpecbridgeError
    from specbridge.call import Caller, build_request
    from specbridge.call._check import shape
    from specbridge.call._credential import Credential
    from specbridge.config import ApiConfig
    from specbridge.document import load_document
    from specbridge.tools import convert

    stats = Fidelity()
    started = time.perf_counter()
    for path in documents(max_bytes):
        try:
            document = load_document(path)
            toolset = convert(document)
            data = _with_server(document.data)
            openapi = OpenAPI.from_dict(data)
        except Exception as error:  # a document openapi-core or we cannot read is not our fidelity
            stats.skipped[f"document: {type(error).__name__}"] += 1
            continue
        caller = Caller(ApiConfig(name="f", spec=str(path), base_url=BASE), toolset)
        step = max(1, len(toolset.tools) // per_document)
        for tool in toolset.tools[::step][:per_document]:
            schema = tool.input_schema
            arguments = example(shape(schema, schema.get("$defs", {})))
            try:
                checked = caller.prepare(tool, arguments)
            except SpecbridgeError:
                stats.skipped["generator: value our check refuses"] += 1
                continue
            credential = _credential(document, tool)
            try:
                request = build_request(tool, checked, base_url=BASE, credential=credential).to_httpx()
            except SpecbridgeError as error:
                stats.skipped[f"refused: {error.code}"] += 1
                continue
            stats.operations += 1
            try:
                openapi.validate_request(_Request(request))
            except Exception as error:
                kind = _kind(error)
                stats.failures[kind] += 1
                stats.examples.setdefault(kind, f"{path.name} {tool.operation.label}: {str(error)[:200]}")
            else:
                stats.accepted += 1
    stats.seconds = time.perf_counter() - started
    _ = Credential  # imported for _credential's annotations
    return stats


def _kind(error: Exception) -> str:
    cause = error.__cause__ or error.__context__
    name = type(error).__name__
    schema_errors = getattr(cause, "schema_errors", None) or ()
    if schema_errors and all(getattr(item, "validator", "") == "pattern" for item in schema_errors):
        return f"{name}: generated value misses a `pattern` (generator limit; pattern is left to the API)"
    if schema_errors and all(getattr(item, "validator", "") == "format" for item in schema_errors):
        return f"{name}: generated value misses a format we do not check (byte, time, ...; generator limit)"
    if schema_errors:
        validators = sorted({str(getattr(item, "validator", "?")) for item in schema_errors})
        return f"{name} ({', '.join(validators)})"
    if cause is not None and type(cause).__name__ not in name:
        name += f" ({type(cause).__name__})"
    return name


def _with_server(data: dict[str, Any]) -> dict[str, Any]:
    """The document with one server: our base URL, so openapi-core matches paths the way we built them."""
    paths = {
        key: {
            method: {k: v for k, v in operation.items() if k != "servers"}
            if isinstance(operation, dict)
            else operation
            for method, operation in item.items()
            if method != "servers"
        }
        if isinstance(item, dict)
        else item
        for key, item in (data.get("paths") or {}).items()
    }
    return {**data, "servers": [{"url": BASE}], "paths": paths}


def _credential(document: Any, tool: Any) -> Any:
    from specbridge.call._credential import Credential

    requirements = tool.operation.security
    if requirements is None:
        requirements = document.default_security
    if not requirements or not requirements[0]:
        return None
    schemes = {scheme.name: scheme for scheme in document.security_schemes}
    scheme = schemes.get(requirements[0][0])
    if scheme is None:
        return None
    if scheme.type == "apiKey" and scheme.location in ("header", "query", "cookie"):
        return Credential(scheme.location, scheme.parameter_name, "Zq7credentialXk9")
    if scheme.type == "http" and scheme.scheme.lower() == "basic":
        return Credential("basic", "", "user:Zq7credentialXk9")
    return Credential("bearer", "", "Zq7credentialXk9")
