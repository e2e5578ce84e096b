"""The bundled example shop (src/specbridge/examples/) as the demo uses it: its document's path, and
an order it starts with (the one the demo refunds)."""

from __future__ import annotations

from importlib import resources

DEMO_ORDER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"  # examples/shop_api.py: an order the shop starts with


def example_spec_path() -> str:
    return str(resources.files("specbridge") / "examples" / "shop.openapi.yaml")
