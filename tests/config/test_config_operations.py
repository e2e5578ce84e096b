"""`apis.<name>.operations` (config/_operations.py, config/_document.py): endpoints with no document,
described in the config, read into the model with errors that name the key path, and turned into an
OpenAPI document that goes through the one conversion, alone or beside a document."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from specbridge import ConfigError, ErrorCode
from specbridge.config import api_document, check_tool_names, config_from_data
from specbridge.tools import convert

WEATHER: dict[str, Any] = {
    "method": "GET",
    "url": "https://api.open-meteo.com/v1/forecast",
    "description": "Current weather for a latitude and longitude",
    "parameters": {
        "query": [
            {"name": "latitude", "type": "number", "required": True, "description": "Latitude in degrees"},
            {"name": "current"},
        ]
    },
    "bindings": {"query.current": "temperature_2m"},
}


def read(api: dict[str, Any], tmp_path: Path | None = None) -> Any:
    return config_from_data({"apis": {"a": api}}, source="specbridge.yaml", base_dir=tmp_path).apis["a"]


def failure(api: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        read(api)
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    return caught.value


def tools_of(api: Any) -> dict[str, Any]:
    toolset = check_tool_names(api, convert(api_document(api), api.convert_options()))
    return {tool.name: tool for tool in toolset.tools}


def test_an_operation_with_a_whole_url_is_a_tool_and_its_origin_the_api_s_base_url() -> None:
    api = read({"operations": {"current_weather": WEATHER}})
    assert api.spec == "" and api.base_url == "https://api.open-meteo.com"
    (operation,) = api.operations
    assert (operation.method, operation.path) == ("GET", "/v1/forecast")
    assert api.tools["current_weather"].bindings == {"query.current": "temperature_2m"}
    tool = tools_of(api)["current_weather"]
    assert tool.description.startswith("Current weather for a latitude and longitude")
    assert tool.input_schema["properties"]["latitude"] == {
        "type": "number",
        "description": "Latitude in degrees",
    }
    assert tool.input_schema["required"] == ["latitude"]
    assert tool.hints.read_only


def test_path_parameters_come_from_the_url_template_and_a_request_schema_is_the_body() -> None:
    api = read(
        {
            "base_url": "https://shop.example.com/api",
            "operations": {
                "refund": {
                    "method": "post",
                    "path": "/orders/{orderId}/refund",
                    "request": {
                        "type": "object",
                        "required": ["amount"],
                        "properties": {"amount": {"type": "number"}},
                    },
                    "response": {"type": "object", "properties": {"id": {"type": "string"}}},
                    "requires_approval": True,
                    "name": "refund_order",
                },
                "ping": {"method": "POST", "url": "https://shop.example.com/api/ping"},
            },
        }
    )
    tools = tools_of(api)
    refund = tools["refund_order"]
    assert refund.input_schema["required"] == ["orderId", "amount"]
    assert [(a.name, a.location) for a in refund.arguments] == [("orderId", "path"), ("amount", "body")]
    assert refund.output_schema is not None and "id" in refund.output_schema["properties"]
    assert api.tools["refund"].requires_approval and api.tools["refund"].name == "refund_order"
    assert tools["ping"].body is None  # a POST without `request` sends no body


@pytest.mark.parametrize(
    ("api", "key", "words"),
    [
        ({"operations": {"o": {"method": "GET"}}}, "apis.a.operations.o", "needs `url`"),
        (
            {"operations": {"o": {"method": "GET", "url": "https://a.example.com/x", "path": "/x"}}},
            "apis.a.operations.o.path",
            "not both",
        ),
        ({"operations": {"o": {"method": "GET", "path": "/x"}}}, "apis.a.operations.o.path", "base_url"),
        (
            {
                "base_url": "https://a.example.com/v1",
                "operations": {"o": {"method": "GET", "url": "https://b.example.com/v1/x"}},
            },
            "apis.a.operations.o.url",
            "lies outside the API's base_url",
        ),
        (
            {
                "base_url": "https://a.example.com/v1",
                "operations": {"o": {"method": "GET", "url": "https://a.example.com/v10"}},
            },
            "apis.a.operations.o.url",
            "lies outside the API's base_url",
        ),
        (
            {
                "operations": {
                    "o": {"method": "GET", "url": "https://a.example.com/x"},
                    "p": {"method": "GET", "url": "https://b.example.com/y"},
                }
            },
            "apis.a.operations.p.url",
            "another origin",
        ),
        (
            {
                "operations": {
                    "o": {"method": "GET", "url": "https://a.example.com/x/{id}"},
                    "p": {"method": "GET", "url": "https://a.example.com/x/{id}"},
                }
            },
            "apis.a.operations.p",
            "give each endpoint once",
        ),
        (
            {
                "operations": {
                    "o": {
                        "method": "GET",
                        "url": "https://a.example.com/x",
                        "parameters": {"path": [{"name": "id"}]},
                    }
                }
            },
            "apis.a.operations.o.parameters.path[0].name",
            "is no `{id}` of the URL",
        ),
        (
            {"operations": {"o": {"method": "GET", "url": "https://10.0.0.5/x"}}},
            "apis.a.operations.o.url",
            "egress.allow",
        ),
        (
            {"operations": {"o": {**WEATHER}}, "tools": {"o": {"disabled": True}}},
            "apis.a.tools.o",
            "keep it in one place",
        ),
        (
            {"operations": {"o": {"method": "GET", "url": "https://a.example.com/", "body": {}}}},
            "apis.a.operations.o.body",
            "unknown key",
        ),
        ({"spec": "-"}, "apis.a.spec", "stdin"),
        ({"spec": "http://127.0.0.1:8080/api.yaml"}, "apis.a.spec", "egress.allow"),
    ],
)
def test_a_mistake_in_an_operation_is_named_by_its_key_path(
    api: dict[str, Any], key: str, words: str
) -> None:
    error = failure(api)
    assert error.key == key and words in str(error), str(error)


def test_an_allowed_private_origin_is_accepted_as_for_any_base_url() -> None:
    api = read(
        {
            "egress": {"allow": ["10.0.0.5"]},
            "operations": {"o": {"method": "GET", "url": "http://10.0.0.5:8080/x"}},
        }
    )
    assert api.base_url == "http://10.0.0.5:8080"


DOCUMENT = """\
openapi: 3.0.3
info: {title: Shop, version: '1'}
servers: [{url: 'https://shop.example.com/api'}]
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: The order, content: {application/json: {schema: {$ref: '#/components/schemas/Order'}}}}}
components:
  schemas:
    Order: {type: object, properties: {id: {type: string}, total: {type: number}}}
"""

SWAGGER = """\
swagger: '2.0'
info: {title: Shop, version: '1'}
host: shop.example.com
basePath: /api
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      parameters: [{name: id, in: path, required: true, type: string}]
      responses: {'200': {description: The order, schema: {$ref: '#/definitions/Order'}}}
definitions:
  Order: {type: object, properties: {id: {type: string}, total: {type: number}}}
"""


@pytest.mark.parametrize(
    ("text", "ref"), [(DOCUMENT, "#/components/schemas/Order"), (SWAGGER, "#/definitions/Order")]
)
def test_operations_beside_a_document_join_its_tools_and_may_ref_its_schemas(
    tmp_path: Path, text: str, ref: str
) -> None:
    (tmp_path / "shop.yaml").write_text(text, encoding="utf-8")
    refund = {
        "method": "POST",
        "path": "/orders/{id}/refund",
        "description": "Refunds an order",
        "parameters": {"query": [{"name": "notify", "type": "boolean"}]},
        "request": {"type": "object", "properties": {"order": {"$ref": ref}}},
    }
    api = read({"spec": "./shop.yaml", "operations": {"refundOrder": refund}}, tmp_path)
    tools = tools_of(api)
    assert sorted(tools) == ["getOrder", "refundOrder"]
    order = tools["refundOrder"].input_schema["properties"]["order"]
    assert set(order["properties"]) == {"id", "total"}
    assert tools["refundOrder"].input_schema["properties"]["notify"] == {"type": "boolean"}


def test_an_operation_the_document_has_already_is_a_config_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "shop.yaml").write_text(DOCUMENT, encoding="utf-8")
    again = {"method": "GET", "path": "/orders/{id}"}
    api = read({"spec": "./shop.yaml", "operations": {"fetchOrder": again}}, tmp_path)
    with pytest.raises(ConfigError) as caught:
        api_document(api)
    assert caught.value.key == "apis.a.operations.fetchOrder" and "describes already" in str(caught.value)
    same_id = {"method": "GET", "path": "/orders"}
    api = read({"spec": "./shop.yaml", "operations": {"getOrder": same_id}}, tmp_path)
    with pytest.raises(ConfigError) as caught:
        api_document(api)
    assert "operationId" in str(caught.value)


def test_the_configuration_docs_example_of_operations_reads(tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text(encoding="utf-8")
    start = docs.index("```yaml", docs.index("## Connectors: `operations`"))
    block = docs[start + len("```yaml") : docs.index("```", start + 7)]
    config = config_from_data(yaml.safe_load(textwrap.dedent(block)), source="docs", base_dir=tmp_path)
    for api in config.apis.values():
        assert tools_of(api)


def _operation(**fields: Any) -> dict[str, Any]:
    return {"operations": {"o": {"method": "POST", "url": "https://a.example.com/x", **fields}}}


@pytest.mark.parametrize(
    ("api", "key", "words"),
    [
        (
            _operation(request={"type": "objekt"}),
            "apis.a.operations.o.request.type",
            "`type` takes one of array",
        ),
        (
            _operation(response={"type": "object", "properties": {"id": {"type": "strin"}}}),
            "apis.a.operations.o.response.properties.id.type",
            "`type` takes one of",
        ),
        (
            _operation(request={"properties": {"code": {"type": "string", "pattern": "([a-z"}}}),
            "apis.a.operations.o.request.properties.code.pattern",
            "a regular expression (ECMA 262) that compiles",
        ),
        (
            _operation(request={"properties": {"n": 5}}),
            "apis.a.operations.o.request.properties.n",
            "is not a schema",
        ),
        (
            _operation(request={"minLength": -1}),
            "apis.a.operations.o.request.minLength",
            "JSON Schema 2020-12",
        ),
        (_operation(request=["type", "object"]), "apis.a.operations.o.request", "must be a JSON Schema"),
        (
            _operation(request={"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
            "apis.a.operations.o.request.$schema",
            "leave `$schema` out",
        ),
        (_operation(url="https://a.example.com/x/{id"), "apis.a.operations.o.url", "`{` that is not closed"),
        (_operation(url="https://a.example.com/x/id}"), "apis.a.operations.o.url", "`}` that opens nowhere"),
        (_operation(url="https://a.example.com/x/{}"), "apis.a.operations.o.url", "an empty `{}`"),
        (_operation(url="https://a.example.com/{a}/{a}"), "apis.a.operations.o.url", "twice"),
        (_operation(url="https://a.example.com/x?q={a}"), "apis.a.operations.o.url", "in its query"),
        (
            {"base_url": "https://a.example.com", "operations": {"o": {"method": "GET", "path": "/x/{id"}}},
            "apis.a.operations.o.path",
            "`{` that is not closed",
        ),
        (
            {"operations": {"o": {"method": "GET", "url": "https://a.example.com/x"}}, "tools": {"o": {}}},
            "apis.a.tools.o",
            "keep it in one place",
        ),
        (
            {
                "operations": {"o": {"method": "GET", "url": "https://a.example.com/x", "name": "get_x"}},
                "tools": {"get_x": {"requires_approval": True}},
            },
            "apis.a.tools.get_x",
            "keep it in one place",
        ),
    ],
)
def test_a_connector_that_would_pass_silently_is_a_config_error(
    api: dict[str, Any], key: str, words: str
) -> None:
    error = failure(api)
    assert error.key == key and words in str(error), str(error)
    message = str(error).partition(": ")[2].partition(": ")[2]
    for value in ("objekt", "strin", "([a-z", "{id", "draft-04"):  # the value found is never repeated
        assert not re.search(rf"(?<!\w){re.escape(value)}(?!\w)", message), message


@pytest.mark.parametrize(
    ("spec", "ref"),
    [
        (None, "#/components/schemas/Order"),
        ("openapi", "#/components/schemas/Nope"),
        ("openapi", "./absent.yaml#/X"),
    ],
)
def test_a_schema_ref_that_leads_nowhere_is_a_config_error(
    tmp_path: Path, spec: str | None, ref: str
) -> None:
    fields: dict[str, Any] = {
        "method": "POST",
        "request": {"type": "object", "properties": {"order": {"$ref": ref}}},
    }
    if spec is None:
        api = read({"operations": {"o": {**fields, "url": "https://a.example.com/x"}}}, tmp_path)
    else:
        document = tmp_path / "api.yaml"
        document.write_text(
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://a.example.com'}]\npaths: {}\n"
            "components: {schemas: {Order: {type: object}}}\n"
        )
        api = read({"spec": str(document), "operations": {"o": {**fields, "path": "/x"}}}, tmp_path)
    with pytest.raises(ConfigError) as caught:
        api_document(api)
    assert caught.value.key == "apis.a.operations.o.request.properties.order.$ref"
    assert "a config schema's `$ref` is read in the API's document" in str(caught.value)


def test_a_ref_to_a_schema_of_the_document_and_a_ref_in_data_keywords_pass(tmp_path: Path) -> None:
    document = tmp_path / "api.yaml"
    document.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://a.example.com'}]\npaths: {}\n"
        "components: {schemas: {Order: {type: object, properties: {id: {type: string}}}}}\n"
    )
    request = {
        "type": "object",
        "properties": {"order": {"$ref": "#/components/schemas/Order"}, "$ref": {"type": "string"}},
        "examples": [{"$ref": "#/not/a/schema"}],
    }
    api = read(
        {"spec": str(document), "operations": {"o": {"method": "POST", "path": "/x", "request": request}}},
        tmp_path,
    )
    assert "order" in tools_of(api)["o"].input_schema["properties"]
