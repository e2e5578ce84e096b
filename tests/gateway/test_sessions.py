"""The sessions a client may hold (gateway/_sessions.py): the config's default is the gateway's."""

from __future__ import annotations

from dataclasses import asdict

from specbridge.call import DEFAULT_LIMITS
from specbridge.config import LimitsConfig
from specbridge.gateway._sessions import DEFAULT_MAX_SESSIONS_PER_CLIENT


def test_the_config_defaults_are_the_call_layers_defaults() -> None:
    defaults = asdict(LimitsConfig())
    assert defaults.pop("sessions_per_client") == DEFAULT_MAX_SESSIONS_PER_CLIENT
    assert defaults == asdict(DEFAULT_LIMITS)
