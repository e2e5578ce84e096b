"""`specbridge keys new`: `--admin-id` asks for an admin key; client and admin ids follow the one rule the
config's schema has (`[A-Za-z0-9_.-]{1,64}`), so a key is never made for an id the config refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from specbridge.cli import app

SHOP = str(Path(__file__).resolve().parents[2] / "src" / "specbridge" / "examples" / "shop.openapi.yaml")


def keys_new(*words: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["keys", "new", *words])
    return result.exit_code, result.stdout, result.stderr


def test_admin_id_alone_makes_an_admin_key_for_that_admin() -> None:
    code, stdout, _ = keys_new("--admin-id", "bob")
    assert code == 0
    assert stdout.startswith("admin key: sba_")
    assert "admins:\n  bob:\n" in stdout


def test_a_client_key_by_default() -> None:
    code, stdout, _ = keys_new("--client", "support-bot.v2")
    assert code == 0 and stdout.startswith("key: sbk_")
    assert "clients:\n  support-bot.v2:\n" in stdout


@pytest.mark.parametrize("option", ["--client", "--admin-id"])
@pytest.mark.parametrize("bad", ["", "bad id!", "ops@example.com", "x" * 65])
def test_an_id_the_config_would_refuse_is_refused_here(option: str, bad: str) -> None:
    code, stdout, stderr = keys_new(option, bad)
    assert code == 2
    assert stdout == ""  # no key made
    assert "use 1 to 64 letters, digits, `_`, `.` or `-`" in stderr


@pytest.mark.parametrize("section", ["clients", "admins"])
def test_the_config_refuses_the_same_ids(tmp_path: Path, section: str) -> None:
    path = tmp_path / "specbridge.yaml"
    entry = "{key_sha256: '" + "0" * 64 + "'" + (", apis: [shop]}" if section == "clients" else "}")
    path.write_text(f"apis:\n  shop: {{spec: {SHOP}}}\n{section}:\n  'bad id!': {entry}\n")
    result = CliRunner().invoke(app, ["lint", SHOP, "--config", str(path)])
    assert result.exit_code == 3
    assert "error [config-invalid]" in result.stderr
    assert "letters, digits, `_`, `.` and `-`" in result.stderr
