"""Fixtures for the call layer: a real loopback upstream, a test API document, and a Caller factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest

from specbridge.call import Caller
from specbridge.config import AnswersConfig, ApiConfig, AuthConfig, EgressConfig, Secret, ToolConfig
from specbridge.document import from_data
from specbridge.tools import ToolSet, convert
from tests.conftest import SECRET as SECRET  # the credential `secret_env` puts in the environment
from tests.support.upstream import Upstream

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Test", "version": "1"},
    "paths": {
        "/items/{itemId}": {
            "get": {
                "operationId": "getItem",
                "parameters": [
                    {"name": "itemId", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "verbose", "in": "query", "schema": {"type": "boolean"}},
                    {
                        "name": "tag",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}},
                        "style": "form",
                        "explode": True,
                    },
                    {
                        "name": "ids",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "integer"}},
                        "style": "pipeDelimited",
                        "explode": False,
                    },
                    {
                        "name": "filter",
                        "in": "query",
                        "schema": {"type": "object", "properties": {"color": {"type": "string"}}},
                        "style": "deepObject",
                        "explode": True,
                    },
                    {"name": "X-Trace-Note", "in": "header", "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "OK"}},
            }
        },
        "/shops/{shopId}/orders": {
            "post": {
                "operationId": "createOrder",
                "parameters": [
                    {"name": "shopId", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["items"],
                                "properties": {
                                    "items": {
                                        "type": "array",
                                        "maxItems": 50,
                                        "items": {
                                            "type": "object",
                                            "required": ["sku", "qty"],
                                            "properties": {
                                                "sku": {"type": "string", "maxLength": 32},
                                                "qty": {"type": "integer", "minimum": 1, "maximum": 100},
                                            },
                                        },
                                    },
                                    "currency": {"type": "string", "enum": ["EUR", "USD"]},
                                    "note": {"type": "string", "pattern": "^[a-z]+$"},
                                    "when": {"type": "string", "format": "date-time"},
                                    "contact": {"type": "string", "format": "email"},
                                    "address": {
                                        "type": "object",
                                        "properties": {
                                            "city": {"type": "string"},
                                            "street": {"type": "string"},
                                        },
                                    },
                                    "nested": {"type": "object"},
                                },
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "Created"}},
            }
        },
        "/forms": {
            "post": {
                "operationId": "sendForm",
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "colors": {"type": "array", "items": {"type": "string"}},
                                },
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "OK"}},
            }
        },
        "/uploads": {
            "post": {
                "operationId": "upload",
                "requestBody": {
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "file": {"type": "string", "format": "binary"},
                                    "caption": {"type": "string"},
                                },
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "OK"}},
            }
        },
        "/raw": {
            "put": {
                "operationId": "putRaw",
                "requestBody": {"content": {"text/csv": {"schema": {"type": "string"}}}},
                "responses": {"200": {"description": "OK"}},
            }
        },
        "/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "OK"}}}},
        "/anything/{rest}": {
            "get": {
                "operationId": "anything",
                "parameters": [
                    {"name": "rest", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "Authorization", "in": "header", "schema": {"type": "string"}},
                    {"name": "Host", "in": "header", "schema": {"type": "string"}},
                    {"name": "Cookie", "in": "header", "schema": {"type": "string"}},
                    {"name": "X-Specbridge-Operation", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "OK"}},
            }
        },
    },
}


def toolset_for(document: dict[str, Any] | None = None) -> ToolSet:
    return convert(from_data(document or DOCUMENT, source="test.yaml"))


MakeCaller = Callable[..., Caller]


async def call(caller: Caller, tool: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
    """One call through `caller`, bounded: no test waits for ever."""
    with anyio.fail_after(10):
        return await caller.call(tool, arguments, **kwargs)


def api_config(
    base_url: str,
    *,
    allow: tuple[str, ...] = (),
    auth: AuthConfig | None = None,
    timeout: float = 10.0,
    redirects: int = 0,
    tools: dict[str, ToolConfig] | None = None,
    answers: AnswersConfig | None = None,
) -> ApiConfig:
    return ApiConfig(
        name="test",
        spec="test.yaml",
        base_url=base_url,
        auth=auth or AuthConfig(),
        timeout=timeout,
        egress=EgressConfig(allow=allow, redirects=redirects),
        tools=tools or {},
        answers=answers or AnswersConfig(),
    )


@pytest.fixture
async def make_caller(upstream: Upstream, secret_env: str) -> AsyncIterator[MakeCaller]:
    """`make_caller(auth_type="bearer", base_path="/v1", **api_config_kwargs)`: a Caller for DOCUMENT
    against the loopback upstream (allowed explicitly), closed after the test."""
    callers: list[Caller] = []

    def make(
        *,
        auth_type: str = "bearer",
        auth_name: str = "",
        base_path: str = "/v1",
        document: dict[str, Any] | None = None,
        secrets: dict[str, Secret] | None = None,
        **kwargs: Any,
    ) -> Caller:
        auth = AuthConfig(
            type=auth_type,  # type: ignore[arg-type]
            name=auth_name,
            secret=Secret(secret_env) if auth_type != "none" else None,
            secrets=secrets or {},
        )
        kwargs.setdefault("allow", (upstream.address,))
        caller = Caller(api_config(upstream.url + base_path, auth=auth, **kwargs), toolset_for(document))
        callers.append(caller)
        return caller

    yield make
    for caller in callers:
        await caller.aclose()
