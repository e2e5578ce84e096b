"""Small documents the call tests share (the red-team findings' search and form operations)."""

from __future__ import annotations

from typing import Any


def document(paths: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "Red team", "version": "1"}, "paths": paths}


OK = {"200": {"description": "OK"}}


# A search operation whose object parameters use the OpenAPI defaults for query and cookie
# (style form, explode true): each key of the object becomes a parameter / cookie of its own.
SEARCH = document(
    {
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [
                    {"name": "filter", "in": "query", "schema": {"type": "object"}},
                    {"name": "tenant", "in": "query", "schema": {"type": "string"}},
                    {"name": "prefs", "in": "cookie", "schema": {"type": "object"}},
                    {"name": "account", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": OK,
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
                                    "customer_id": {"type": "string"},
                                    "meta": {"type": "object"},
                                },
                            }
                        }
                    }
                },
                "responses": OK,
            }
        },
    }
)
