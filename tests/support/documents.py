"""Document fragments more than one test folder uses.

`IDEMPOTENCY_KEY`: an optional `Idempotency-Key` header; `BLOBS`: `putBlob`, raw bytes stored by name.

`DOCUMENT`: the call layer's test API (tests/call/), every parameter style and location, a JSON body
with bounds, and a catch-all path whose parameters name headers a caller must not set.
"""

from __future__ import annotations

from typing import Any

from tests.support.openapi import operation

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


IDEMPOTENCY_KEY = "{name: Idempotency-Key, in: header, required: false, schema: {type: string}}"
BLOBS = operation(
    "/blobs/{name}", "put", "putBlob", "Store raw bytes",
    parameters=["{name: name, in: path, required: true, schema: {type: string}}"],
    body="{type: string, format: binary}", media="application/octet-stream", answer="Stored",
)  # fmt: skip
