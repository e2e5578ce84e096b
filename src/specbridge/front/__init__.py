"""The gateway's own OAuth 2.1 authorization server (`oauth_server:`), free of MCP: a front before the
company's OpenID Connect provider. MCP clients register by Client ID Metadata Document (or, when
allowed, dynamically), people sign in at the provider and are mapped to `clients.<id>` by the
operator's claim rules, consent on a page of the gateway, and get short-lived access tokens the
resource server (`access`) checks like any other, with rotating refresh tokens sealed in the store.

Modules:

- `_front`: `Front`, its parts wired once per gateway and read against the config served now.
- `_routes`: the front's HTTP routes (metadata, JWKS, authorize, sign-in callback, consent, token,
  registration).
- `_flow`: the authorization code flow (PKCE S256 only) and the token endpoint that ends it.
- `_clients`: who the MCP clients are: Client ID Metadata Documents, or dynamic registration.
- `_issue`: the tokens issued: short-lived access tokens (EdDSA JWTs) and rotating refresh tokens.
- `_records`: what the front keeps in the store, each record sealed with `store_key`.
- `_pages`: the consent page and the page that says why a sign-in went no further.
"""

from __future__ import annotations

from ._flow import front_resources as front_resources
from ._front import Front as Front
from ._routes import COOKIE as COOKIE
from ._routes import front_routes as front_routes
from ._routes import metadata as metadata
