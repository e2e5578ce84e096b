"""Where grants/ keeps things in the store (sealed values), one key per thing:

    grant:<api>:<digest>              the API's own token (client credentials, refresh token)
    account:<api>:<digest>:<client>   one client's connected account (its tokens)
    person:<api>:<digest>:<who>       one signed-in person's token (`who`: a hash of the person and of
                                      what they signed in with, `_person`)
    connect:<api>:<id>                a connect link handed to a client (ten minutes, used once)
    state:<api>:<state>               an authorization under way (its PKCE verifier; ten minutes, once)

`digest` is a hash of the grant's settings (type, token endpoint, client id, scopes, audience), so a
token fetched under other settings is never sent under these: changing them fetches anew (and asks
each client to connect its account again). The key is also what a sealed record is bound to.
"""

from __future__ import annotations

import functools
import hashlib

from ..config import ApiConfig, GrantConfig


@functools.lru_cache(maxsize=256)
def digest(grant: GrantConfig) -> str:
    parts: tuple[str, ...] = (grant.grant, grant.token_url, grant.client_id, " ".join(grant.scopes))
    parts += (grant.audience or "",)
    if grant.per_person:  # what else names the token asked for (not in earlier digests: kept tokens stay)
        parts += (grant.resource or "", grant.subject_token_type, grant.assertion_issuer or "")
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]


def grant_of(api: ApiConfig) -> GrantConfig:
    grant = api.auth.grant
    if grant is None:  # only called for APIs whose `auth.type` is an oauth2_* type
        raise ValueError(f"apis.{api.name}.auth is not an OAuth 2 grant")
    return grant


def shared_slot(api: ApiConfig) -> str:
    return f"grant:{api.name}:{digest(grant_of(api))}"


def account_slot(api: ApiConfig, client: str) -> str:
    return f"account:{api.name}:{digest(grant_of(api))}:{client}"


def person_slot(api: ApiConfig, person: str) -> str:
    who = hashlib.sha256(person.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"person:{api.name}:{digest(grant_of(api))}:{who}"


def connect_slot(api: str, connect_id: str) -> str:
    return f"connect:{api}:{connect_id}"


def state_slot(api: str, state: str) -> str:
    return f"state:{api}:{state}"
