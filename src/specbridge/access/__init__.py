"""Who may call: one admission step for every route of the HTTP edge (`Admission`: a request becomes an
`Identity` or a `Refusal`), client and admin keys (made once, stored as SHA-256, compared in constant time), and
OAuth 2.1 access tokens for an API with `oauth:` (the gateway as a resource server: tokens checked
against the issuer's JWKS or by introspection, the Protected Resource Metadata that tells clients where
to get one).

Modules:

- `_admission`: `Admission`, the one admission step of every route of the HTTP edge: a request becomes
  an `Identity` or a `Refusal` (status, code, message, headers), whatever it presents.
- `_identity`: `Identity`, who a request comes from once it is let in: the client, its name, the
  token's claims and scopes.
- `_keys`: client and admin keys: made once, kept only as SHA-256, compared in constant time.
- `_resource`: `ResourceServer.admit`, one API with `oauth:` as a resource server (a client key, or an
  access token whose client is `clients.<client_id>`, else `clients.<sub>`), the RFC 6750/9728 refusals.
- `_jwt`: JWT access tokens (RFC 9068) checked with PyJWT: asymmetric algorithms only, `iss`, `aud`,
  `exp`/`nbf` with leeway.
- `_jwks`: the issuer's signing keys, kept an hour, fetched again for an unknown `kid` at most once a
  minute.
- `_introspection`: opaque tokens checked by RFC 7662 introspection; an active answer kept at most five
  minutes.
- `_fetch`: every request to the authorization server (metadata, JWKS, introspection), through the
  API's egress policy, bounded in time and size.
- `_refused`: `refused`, the one JSON body of every HTTP route's refusal.
- `_metadata`: the Protected Resource Metadata (RFC 9728) and the `WWW-Authenticate` challenges.
- `_claims`: `TokenClaims`, what is kept of a checked token: never the token.
- `_front_key`: the Ed25519 key the gateway's own authorization server signs with, derived from
  `store_key`.
- `_oidc`: a person signed in at an OpenID Connect provider (for `oauth_server` and the admin page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._claims import TokenClaims as TokenClaims
from ._claims import canonical_resource as canonical_resource
from ._identity import NOBODY as NOBODY
from ._identity import Identity as Identity
from ._identity import Presented as Presented
from ._keys import ADMIN_KEY_PREFIX as ADMIN_KEY_PREFIX
from ._keys import KEY_PREFIX as KEY_PREFIX
from ._keys import KeyHolder as KeyHolder
from ._keys import Refusal as Refusal
from ._keys import authenticate as authenticate
from ._keys import find_client as find_client
from ._keys import key_sha256 as key_sha256
from ._keys import new_key as new_key
from ._keys import presented_key as presented_key
from ._metadata import WELL_KNOWN as WELL_KNOWN
from ._metadata import challenge as challenge
from ._metadata import metadata_url as metadata_url
from ._metadata import resource_metadata as resource_metadata

if TYPE_CHECKING:  # loaded on first use: they import httpx, PyJWT or cryptography, which the light form
    # has not (`keys new` needs only `_keys`)
    from ._admission import Admission as Admission
    from ._admission import admin_identity as admin_identity
    from ._admission import open_to_anyone as open_to_anyone
    from ._fetch import Fetcher as Fetcher
    from ._front_key import FrontKeys as FrontKeys
    from ._front_key import front_keys as front_keys
    from ._oidc import OidcProvider as OidcProvider
    from ._oidc import SignInError as SignInError
    from ._oidc import Start as Start
    from ._oidc import challenge_of as challenge_of
    from ._refused import refused as refused
    from ._resource import ResourceServer as ResourceServer
    from ._resource import ResourceServers as ResourceServers

__getattr__, __dir__ = lazy_exports(__name__)
