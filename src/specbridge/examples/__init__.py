"""The bundled example: a small shop API (`shop_api`) and its document (`shop.openapi.yaml`).

Modules:

- `shop_api`: a small shop API of our own implementing `shop.openapi.yaml`, in memory, on loopback.
"""
