"""Sealing what the store keeps (`grants/_seal.py`): only this key opens it, only under its own name."""

from __future__ import annotations

import pytest

from specbridge._errors import CallError
from specbridge.config import GrantConfig, Secret
from specbridge.grants._seal import Sealer, Unreadable, sealer_for

KEY = "k" * 44


def test_a_sealed_record_opens_with_its_key_under_its_own_name_and_hides_its_content() -> None:
    sealer = Sealer(KEY)
    blob = sealer.seal("account:shop:d:bot-1", b'{"a": "the-access-token"}')
    assert b"the-access-token" not in blob
    assert sealer.open("account:shop:d:bot-1", blob) == b'{"a": "the-access-token"}'
    assert sealer.seal("account:shop:d:bot-1", b"x") != sealer.seal("account:shop:d:bot-1", b"x")  # nonces


def test_a_record_moved_under_another_clients_name_does_not_open() -> None:
    sealer = Sealer(KEY)
    blob = sealer.seal("account:shop:d:bot-1", b"bot-1's tokens")
    with pytest.raises(Unreadable, match="moved there from another record"):
        sealer.open("account:shop:d:bot-2", blob)


def test_a_record_changed_in_the_store_is_refused() -> None:
    sealer = Sealer(KEY)
    blob = bytearray(sealer.seal("grant:shop:d", b"tokens"))
    blob[-1] ^= 1
    with pytest.raises(Unreadable, match="changed in the store"):
        sealer.open("grant:shop:d", bytes(blob))


def test_another_store_key_says_so_rather_than_calling_the_record_damaged() -> None:
    blob = Sealer(KEY).seal("grant:shop:d", b"tokens")
    with pytest.raises(Unreadable, match="another store_key"):
        Sealer("o" * 44).open("grant:shop:d", blob)
    with pytest.raises(Unreadable, match="not a record"):
        Sealer(KEY).open("grant:shop:d", b"plain text")


def grant(reference: str) -> GrantConfig:
    return GrantConfig(
        "client_credentials", "https://auth.example.com/token", "gw", store_key=Secret(reference)
    )


def test_a_missing_or_short_store_key_refuses_the_call_with_secret_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_SUCH_STORE_KEY", raising=False)
    with pytest.raises(CallError) as missing:
        sealer_for(grant("env:NO_SUCH_STORE_KEY"))
    assert missing.value.code == "secret-unavailable" and "NO_SUCH_STORE_KEY" in missing.value.message
    monkeypatch.setenv("SHORT_STORE_KEY", "too-short")
    with pytest.raises(CallError) as short:
        sealer_for(grant("env:SHORT_STORE_KEY"))
    assert short.value.code == "secret-unavailable" and "32 characters" in short.value.message
    assert "too-short" not in short.value.message
