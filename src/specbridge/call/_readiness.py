"""What will fail for every call of an API, known before the first call: its credential's secret is not
there (an `env:` variable unset, a `file:` that cannot be read), its `store_key` is too short to seal
with, or no base URL can be used (none configured, and every server of the document is refused by the
egress policy or not absolute).

`specbridge serve` logs one warning per problem at start (with `--strict-start`, they stop it). Nothing
here reveals a secret: a variable is only looked up, a file only opened for reading (the store key's is
read to count its characters).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import ErrorCode, SpecbridgeError
from ..config import MIN_STORE_KEY, ApiConfig, Secret


@dataclass(frozen=True, slots=True)
class Unready:
    """One reason every call of `api` will fail: a stable code and a sentence saying what to change."""

    api: str
    code: ErrorCode
    message: str


def readiness(api: ApiConfig, base_url: str | None, servers: Sequence[str] = ()) -> list[Unready]:
    """The problems of `api` as served: `base_url` is the one the caller chose (None: no usable one),
    `servers` the document's server URLs (to say why none was usable)."""
    problems: list[Unready] = []
    secrets: list[tuple[str, Secret]] = []
    if api.auth.secret is not None:
        secrets.append(("auth.secret", api.auth.secret))
    secrets += [(f"auth.secrets.{name}", secret) for name, secret in api.auth.secrets.items()]
    if api.auth.grant is not None:  # what fetching the API's token needs, and the key that seals it
        secrets += [
            (name if name == "store_key" else f"auth.{name}", secret)
            for name, secret in api.auth.grant.secrets()
        ]
    for key, secret in secrets:
        why = _unavailable(secret)
        if why is None and key == "store_key":
            why = _too_short(secret)
        if why is not None:
            problems.append(
                Unready(
                    api.name,
                    ErrorCode.SECRET_UNAVAILABLE,
                    f"{'' if key == 'store_key' else f'apis.{api.name}.'}{key}: {why}; calls that need it "
                    "will fail until it is there",
                )
            )
    if base_url is None:
        shown = ", ".join(servers[:3]) if servers else "none"
        problems.append(
            Unready(
                api.name,
                ErrorCode.BASE_URL_MISSING,
                f"apis.{api.name}: no base URL every call can go to (the document's servers: {shown}; "
                "a server on this machine or a private network is refused by the egress policy); set "
                "`base_url` (and `egress.allow` for a host that is not public), or give --base-url",
            )
        )
    return problems


def _too_short(secret: Secret) -> str | None:
    """Why a store key that is there cannot seal: fewer characters than MIN_STORE_KEY (its length is
    not said: the message goes to a log)."""
    try:
        short = len(secret.reveal()) < MIN_STORE_KEY
    except SpecbridgeError:
        return None  # gone since it was looked up: the next start says so
    if not short:
        return None
    source = secret.reference.partition(":")
    where = f"the environment variable {source[2]}" if source[0] == "env" else f"the secret file {source[2]}"
    return (
        f"{where} holds fewer than {MIN_STORE_KEY} characters (`openssl rand -base64 32` makes a key of 44)"
    )


def _unavailable(secret: Secret) -> str | None:
    kind, _, target = secret.reference.partition(":")
    if kind == "env":
        value = os.environ.get(target)
        if value is None:
            return f"the environment variable {target} is not set"
        return None if value else f"the environment variable {target} is empty"
    try:
        with open(target, "rb"):
            return None
    except OSError as error:
        return f"the secret file {target} cannot be read ({error.strerror or type(error).__name__})"
