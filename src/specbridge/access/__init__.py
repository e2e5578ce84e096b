"""Who may call: one admission step for every route of the HTTP edge (`Admission`: a request becomes an
`Identity` or a `Refusal`), client and admin keys (made once, stored as SHA-256, compared in constant time), and
OAuth 2.1 access tokens for an API with `oauth:` (the gateway as a resource server: tokens checked
against the issuer's JWKS or by introspection, the Protected Resource Metadata that tells clients where
to get one)."""

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
    from ._resource import ResourceServer as ResourceServer
    from ._resource import ResourceServers as ResourceServers

__getattr__, __dir__ = lazy_exports(__name__)
