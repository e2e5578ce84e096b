"""A small shop API of our own, implementing `shop.openapi.yaml`, for the demo and tests.

In memory, on loopback, no dependencies beyond Starlette. Mounted at /v1 like the document's server.
Every request needs `Authorization: Bearer <token>` with the token the app was made with.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

# A 1x1 transparent PNG: what a product image is until one is uploaded.
PLACEHOLDER_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


def _seed() -> dict[str, dict[str, Any]]:
    products = [
        ("p-mug", "Mug", 1200, ["kitchen"]),
        ("p-tee", "T-shirt", 2500, ["clothes"]),
        ("p-cap", "Cap", 1800, ["clothes", "summer"]),
        ("p-pen", "Fountain pen", 4500, ["office"]),
    ]
    return {
        pid: {"id": pid, "name": name, "price": {"amount": amount, "currency": "EUR"}, "tags": tags}
        for pid, name, amount, tags in products
    }


def shop_app(token: str) -> Starlette:
    """The example shop; state lives in this app instance."""
    products = _seed()
    images: dict[str, tuple[bytes, str]] = {}
    orders: dict[str, dict[str, Any]] = {
        "7c9e6679-7425-40de-944b-e07fc1f90ae7": {
            "id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
            "status": "paid",
            "lines": [{"product_id": "p-mug", "quantity": 2}],
        }
    }

    def authorised(request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {token}"

    def problem(status: int, message: str) -> JSONResponse:
        return JSONResponse({"message": message}, status_code=status)

    async def list_products(request: Request) -> Response:
        try:
            limit = int(request.query_params.get("limit", "10"))
        except ValueError:
            return problem(400, "limit must be a whole number")
        tags = request.query_params.getlist("tag")
        items = [p for p in reversed(products.values()) if not tags or set(tags) & set(p["tags"])]
        return JSONResponse({"items": items[:limit]})

    async def create_product(request: Request) -> Response:
        body = await request.json()
        if not isinstance(body, dict) or not body.get("name") or "price" not in body:
            return problem(422, "a product needs a name and a price")
        pid = f"p-{uuid.uuid4().hex[:8]}"
        products[pid] = {**body, "id": pid}
        return JSONResponse(products[pid], status_code=201)

    async def product(request: Request) -> Response:
        pid = request.path_params["id"]
        if pid not in products:
            return problem(404, f"no product {pid}")
        if request.method == "GET":
            return JSONResponse(products[pid])
        if request.method == "DELETE":
            del products[pid]
            return Response(status_code=204)
        body = await request.json()
        products[pid].update({k: v for k, v in body.items() if k in ("name",)})
        return JSONResponse(products[pid])

    async def product_image(request: Request) -> Response:
        pid = request.path_params["id"]
        if pid not in products:
            return problem(404, f"no product {pid}")
        if request.method == "GET":
            data, content_type = images.get(pid, (PLACEHOLDER_PNG, "image/png"))
            return Response(data, media_type=content_type)
        async with request.form() as form:
            upload = form.get("file")
            if upload is None or isinstance(upload, str):
                return problem(400, "send the image as the multipart part `file`")
            data = await upload.read()
            images[pid] = (data, upload.content_type or "application/octet-stream")
            return JSONResponse({"stored": len(data), "caption": form.get("caption")})

    async def categories(request: Request) -> Response:
        return JSONResponse(
            {"name": "all", "children": [{"name": "clothes", "children": []}, {"name": "kitchen"}]}
        )

    async def refund(request: Request) -> Response:
        order = orders.get(request.path_params["orderId"])
        if order is None:
            return problem(404, "no such order")
        if order["status"] == "refunded":
            return problem(409, "already refunded")
        order["status"] = "refunded"
        return JSONResponse(order)

    async def search(request: Request) -> Response:
        q = request.query_params.get("q", "").lower()
        return JSONResponse([p for p in products.values() if q in p["name"].lower()])

    routes = [
        Route("/products", list_products, methods=["GET"]),
        Route("/products", create_product, methods=["POST"]),
        Route("/products/{id}", product, methods=["GET", "PUT", "DELETE"]),
        Route("/products/{id}/image", product_image, methods=["GET", "PUT"]),
        Route("/categories", categories, methods=["GET"]),
        Route("/orders/{orderId}/refund", refund, methods=["POST"]),
        Route("/search", search, methods=["GET"]),
    ]
    inner = Starlette(routes=routes)

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not authorised(Request(scope)):
            await problem(401, "missing or wrong token")(scope, receive, send)
            return
        await inner(scope, receive, send)

    return Starlette(routes=[Mount("/v1", app=guarded)])
