"""The bundled example: a small shop API (`shop_api`) and its document (`shop.openapi.yaml`)."""
