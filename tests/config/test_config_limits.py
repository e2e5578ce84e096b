"""`limits:` reaches the argument check of every call and the session cap per client; its defaults are the
call layer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, load_config
from specbridge.call import DEFAULT_LIMITS
from specbridge.config import Config
from specbridge.gateway import Gateway


def test_limits_in_the_config_reach_the_gateways_callers(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text("limits: {max_items: 50, sessions_per_client: 3}\n", encoding="utf-8")
    config = load_config(path)
    assert config.limits.sessions_per_client == 3
    assert Gateway(config).limits.max_items == 50
    assert Gateway(Config(source="x", apis={})).limits == DEFAULT_LIMITS


@pytest.mark.parametrize("text", ["limits: {max_items: 0}\n", "limits: {max_itemz: 5}\n"])
def test_a_limit_that_is_no_positive_whole_number_or_unknown_is_a_config_error(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "limits" in str(caught.value.key)
