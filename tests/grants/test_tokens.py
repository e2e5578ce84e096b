"""A token endpoint's answer read (`grants/_tokens.py`): what is used, and until when."""

from __future__ import annotations

from specbridge.grants._tokens import UNKNOWN_LIFE, Tokens, from_answer

NOW = 1_764_500_000.0


def test_a_bearer_answer_becomes_tokens_used_until_shortly_before_they_expire() -> None:
    tokens = from_answer({"access_token": "at-1", "token_type": "bearer", "expires_in": 3600}, NOW)
    assert isinstance(tokens, Tokens)
    assert tokens.expires_at == NOW + 3600 and tokens.usable_until == NOW + 3540
    assert tokens.usable(NOW + 3539) and not tokens.usable(NOW + 3540)
    short = from_answer({"access_token": "at-2", "token_type": "Bearer", "expires_in": "30"}, NOW)
    assert isinstance(short, Tokens) and short.usable_until == NOW + 27  # a tenth of a short life


def test_an_answer_without_expires_in_is_kept_for_an_hour_and_a_refresh_keeps_its_refresh_token() -> None:
    tokens = from_answer({"access_token": "at", "token_type": "Bearer"}, NOW, previous_refresh="rt-1")
    assert isinstance(tokens, Tokens)
    assert tokens.expires_at == NOW + UNKNOWN_LIFE and tokens.refresh == "rt-1"
    rotated = from_answer(
        {"access_token": "at", "token_type": "Bearer", "refresh_token": "rt-2"}, NOW, "rt-1"
    )
    assert isinstance(rotated, Tokens) and rotated.refresh == "rt-2"


def test_answers_the_gateway_cannot_send_say_why_without_repeating_a_value() -> None:
    assert from_answer([], NOW) == "its answer is not a JSON object"
    assert "access_token" in str(from_answer({"token_type": "Bearer"}, NOW))
    assert "access_token" in str(from_answer({"access_token": "a b\r\nX: y", "token_type": "Bearer"}, NOW))
    assert "Bearer" in str(from_answer({"access_token": "at", "token_type": "DPoP"}, NOW))
    assert "expires_in" in str(
        from_answer({"access_token": "at", "token_type": "bearer", "expires_in": -5}, NOW)
    )
    refused = from_answer({"access_token": "at", "token_type": "bearer", "refresh_token": 7}, NOW)
    assert refused == "its answer's refresh_token is not usable"


def test_tokens_round_trip_through_their_stored_form_and_never_show_in_a_repr() -> None:
    tokens = Tokens("at-secret", NOW, NOW + 60, "rt-secret")
    assert Tokens.from_data(tokens.data()) == tokens
    assert "secret" not in repr(tokens)
