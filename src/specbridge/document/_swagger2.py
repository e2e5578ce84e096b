"""Swagger 2.0 normalised into the same model: body and formData parameters become a request body,
`type`/`items`/`collectionFormat` become a schema and a style, `produces` and `consumes` become content."""

from __future__ import annotations

from typing import Any

from ._model import MediaType, Parameter, RequestBody, Schema
from ._openapi3 import (
    OperationReader,
    text,
)
from .pointer import walk_pointer

_SCHEMA_KEYS = (
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
    "x-nullable",
)
# collectionFormat -> (style, explode)
_COLLECTION_FORMATS = {
    "csv": ("form", False),
    "ssv": ("spaceDelimited", False),
    "pipes": ("pipeDelimited", False),
    "tsv": ("tabDelimited", False),
    "multi": ("form", True),
}


def parameter_schema(node: dict[str, Any]) -> dict[str, Any]:
    schema = {key: node[key] for key in _SCHEMA_KEYS if key in node}
    if isinstance(schema.get("items"), dict):
        schema["items"] = (
            parameter_schema(schema["items"]) if "$ref" not in schema["items"] else schema["items"]
        )
    return schema


def swagger_servers(data: dict[str, Any]) -> tuple[str, ...]:
    host = data.get("host") if isinstance(data.get("host"), str) else ""
    base_path = data.get("basePath") if isinstance(data.get("basePath"), str) else ""
    schemes = (
        [s for s in data.get("schemes", []) if s in ("https", "http")]
        if isinstance(data.get("schemes"), list)
        else []
    )
    if not host:
        return (base_path,) if base_path else ()
    ordered = sorted(schemes, key=lambda scheme: scheme != "https") or ["https"]
    return tuple(f"{scheme}://{host}{base_path}" for scheme in ordered)


class SwaggerOperationReader(OperationReader):
    def _types(self, op: dict[str, Any], key: str) -> list[str]:
        value = op.get(key, self.data.get(key))
        return [str(item) for item in value] if isinstance(value, list) and value else ["application/json"]

    def inputs(
        self, op: dict[str, Any], shared: Any, base: str, item_pointer: str, pointer: str
    ) -> tuple[tuple[Parameter, ...], RequestBody | None]:
        """`in: body` becomes the request body, `in: formData` a form or multipart body's fields."""
        raw: dict[tuple[str, str], tuple[dict[str, Any], str, str]] = {}
        for raw_list, list_pointer in ((shared, item_pointer), (op.get("parameters"), pointer)):
            if not isinstance(raw_list, list):
                continue
            for index, entry in enumerate(raw_list):
                entry_pointer = f"{list_pointer}/parameters/{index}"
                resolved = self.deref(base, entry, entry_pointer)
                if resolved is None or not isinstance(resolved[1], dict):
                    continue
                node_base, node = resolved
                if not isinstance(node.get("name"), str) or not isinstance(node.get("in"), str):
                    self.note("parameter-invalid", entry_pointer, "a parameter has no usable `name` or `in`")
                    continue
                raw[(node["in"], node["name"])] = (node, node_base, entry_pointer)
        parameters: list[Parameter] = []
        body: RequestBody | None = None
        form: list[tuple[dict[str, Any], str, str]] = []
        consumes = self._types(op, "consumes")
        for (location, _name), (node, node_base, entry_pointer) in raw.items():
            if location == "body":
                schema = node.get("schema") if isinstance(node.get("schema"), dict) else {}
                body = RequestBody(
                    required=node.get("required") is True,
                    description=text(node.get("description")),
                    content=tuple(MediaType(ct, Schema(schema, node_base)) for ct in consumes),
                    pointer=entry_pointer,
                )
            elif location == "formData":
                form.append((node, node_base, entry_pointer))
            else:
                style, explode = _COLLECTION_FORMATS.get(
                    str(node.get("collectionFormat", "csv")), ("form", False)
                )
                if location in ("path", "header"):
                    style = "simple"
                converted = {
                    **{k: v for k, v in node.items() if k not in _SCHEMA_KEYS},
                    "schema": parameter_schema(node),
                    "style": style,
                    "explode": explode,
                }
                parameter = self.parameter(converted, node_base, entry_pointer)
                if parameter is not None:
                    parameters.append(parameter)
        if form:
            body = self._form_body(form, consumes)
        return tuple(parameters), body

    def _form_body(self, form: list[tuple[dict[str, Any], str, str]], consumes: list[str]) -> RequestBody:
        has_file = any(node.get("type") == "file" for node, _, _ in form)
        content_type = (
            "multipart/form-data"
            if has_file or "multipart/form-data" in consumes
            else "application/x-www-form-urlencoded"
        )
        properties = {}
        required = []
        for node, _, _ in form:
            schema = parameter_schema(node)
            if node.get("description"):
                schema["description"] = node["description"]
            properties[node["name"]] = schema
            if node.get("required") is True:
                required.append(node["name"])
        schema_value: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema_value["required"] = required
        return RequestBody(
            required=bool(required),
            description="",
            content=(MediaType(content_type, Schema(schema_value, form[0][1])),),
            pointer=form[0][2],
        )

    def response_content(self, response: dict[str, Any], base: str, op_pointer: str) -> tuple[MediaType, ...]:
        """Swagger 2.0 gives one `schema` and the operation's `produces` types."""
        schema = response.get("schema")
        if not isinstance(schema, dict):
            return ()
        return tuple(MediaType(ct, Schema(schema, base)) for ct in self._produces(op_pointer))

    def _produces(self, op_pointer: str) -> list[str]:
        try:
            op = walk_pointer(self.data, op_pointer)
        except (KeyError, IndexError):
            op = {}
        return self._types(op if isinstance(op, dict) else {}, "produces")
