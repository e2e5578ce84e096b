"""Clients of the gateway tests: three keys, the `clients:` block naming them, an API auth with a secret per client."""

from __future__ import annotations

from specbridge.access import key_sha256

KEY_A = "sbk_test-key-for-client-a"
KEY_B = "sbk_test-key-for-client-b"
KEY_OTHER = "sbk_test-key-for-another-api-only"

CLIENTS = f"""\
  other:
    spec: ./shop.yaml
clients:
  shop-a:
    key_sha256: "{key_sha256(KEY_A)}"
    apis: [shop]
    bindings: {{shop: {{path.shopId: shop-1}}}}
    secrets: {{shop: a}}
  shop-b:
    key_sha256: "{key_sha256(KEY_B)}"
    apis: [shop]
    bindings: {{shop: {{path.shopId: shop-2}}}}
    secrets: {{shop: b}}
  other-only:
    key_sha256: "{key_sha256(KEY_OTHER)}"
    apis: [other]
"""

AUTH = "auth: {type: header, name: X-Shop-Token, secrets: {a: env:SHOP_TOKEN_A, b: env:SHOP_TOKEN_B}}\n"
